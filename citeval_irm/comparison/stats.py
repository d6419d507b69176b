"""Paired significance tests, confidence intervals, effect sizes and corrections.

Everything works on per-query values of the same queries (paired samples), one column per
test, so one draw of random signs or resamples serves every measure and pair at once. Random
draws are batched to bound memory (:data:`BATCH_ELEMENTS` numbers per batch), so 120,000
queries and 10,000 permutations need about 40 MB, not 10 GB.

- :func:`randomisation_test`: Fisher's paired randomisation test (two-sided, sign flips of the
  per-query differences, statistic the mean difference). With ``B`` random sign vectors the
  p-value is ``(b + 1) / (B + 1)``, ``b`` the number at least as extreme as the observed one:
  the observed labelling counts as one of the permutations, so the test never reports 0 and
  keeps its level (Phipson and Smyth 2010). When the ``m`` non-zero differences allow at most
  ``B`` sign vectors (``2**m <= B``) all of them are enumerated and the p-value is exact.
- :func:`paired_t`, :func:`wilcoxon`, :func:`sign_test`: each a :class:`TestResult` (p, the
  direction of the test's own statistic, how p was found, why there is none). Wilcoxon's
  exact distribution is computed here over the non-zero differences (scipy's counts the
  zeros when it chooses, and is not exact with tied magnitudes).
- :func:`degenerate`: why a set of differences supports no spread-based inference (one
  query, a constant difference): the t-test, d_z and the interval are then NaN.
- :func:`bootstrap_ci`: BCa (default) or percentile interval of the mean difference.
- :func:`effect_size`: the standardised mean difference of paired values, Cohen's d_z.
- :func:`adjust`: Holm, Bonferroni and Benjamini-Hochberg adjusted p-values;
  :func:`permutations_needed`: the B at which a family's corrected floor is below alpha;
  :func:`p_floor`: the smallest p a test can give with m non-zero differences.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special as scipy_special
from scipy import stats as scipy_stats

from ..base.choices import EXACT_WILCOXON_MAX, correction_name
from ..base.errors import InputError

BATCH_ELEMENTS = 1 << 22
"""Random numbers drawn per batch (4 M: a few tens of MB with the arrays built from them)."""


def _tolerance(values: np.ndarray) -> np.ndarray:
    """How close a permuted statistic may come to the observed one and count as reaching it:
    sums of the same numbers in another order differ in their last bits, and a tie must not
    be lost to rounding (scipy's permutation_test allows for the same)."""
    return 1e-11 * np.maximum(np.abs(values).sum(axis=0), 1.0)


def _batches(total: int, per_item: int) -> Iterator[int]:
    """Sizes of the batches of ``total`` draws of ``per_item`` numbers each."""
    size = max(1, BATCH_ELEMENTS // max(per_item, 1))
    for start in range(0, total, size):
        yield min(size, total - start)


# --------------------------------------------------------------------------- randomisation


def randomisation_test(
    diffs: np.ndarray, permutations: int, rng: np.random.Generator, *, exact: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired randomisation test of each column of ``diffs`` (queries x tests).

    Returns the p-values and, per column, whether they are exact (every sign vector of the
    non-zero differences enumerated). ``exact=None`` enumerates when ``2**m <= permutations``;
    ``False`` always samples; ``True`` always enumerates (small ``m`` only).
    """
    diffs = _finite(diffs)
    if permutations < 1:
        raise InputError(None, f"permutations must be at least 1, not {permutations}")
    nonzero = (diffs != 0).sum(axis=0)
    if exact is None:
        enumerate_ = nonzero <= math.floor(math.log2(permutations))
    else:
        enumerate_ = np.full(diffs.shape[1], bool(exact))
    if exact and nonzero.max(initial=0) > 24:
        raise InputError(None, "exact randomisation needs at most 24 non-zero differences")
    p = np.empty(diffs.shape[1])
    for column in np.flatnonzero(enumerate_):
        p[column] = _exact_sign_flip(diffs[diffs[:, column] != 0, column])
    sampled = np.flatnonzero(~enumerate_)
    if len(sampled):
        p[sampled] = _sampled_sign_flip(diffs[:, sampled], permutations, rng)
    return p, enumerate_


def _exact_sign_flip(d: np.ndarray) -> float:
    """Share of all ``2**m`` sign vectors whose |sum| reaches the observed |sum|."""
    m = len(d)
    observed = abs(d.sum())
    gamma = _tolerance(d[:, None])[0]
    reached = done = 0
    for count in _batches(2**m, max(m, 1)):
        codes = np.arange(done, done + count, dtype=np.int64)
        done += count
        signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(m)) & 1)
        reached += int((np.abs(signs @ d) >= observed - gamma).sum())
    return reached / 2**m


def _sampled_sign_flip(
    diffs: np.ndarray, permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """``(b + 1) / (B + 1)`` over ``B`` random sign vectors, all columns with the same signs."""
    n = diffs.shape[0]
    total = diffs.sum(axis=0)
    observed = np.abs(total)
    gamma = _tolerance(diffs)
    reached = np.zeros(diffs.shape[1])
    packed = (n + 7) // 8
    for count in _batches(permutations, n):
        # one random bit per query: flipped (1) or kept (0); sum(s * d) = total - 2 * flipped
        bits = rng.integers(0, 256, size=(count, packed), dtype=np.uint8)
        flipped = np.unpackbits(bits, axis=1, count=n).astype(np.float64)
        statistic = np.abs(total - 2.0 * (flipped @ diffs))
        reached += (statistic >= observed - gamma).sum(axis=0)
    return (reached + 1) / (permutations + 1)


# --------------------------------------------------------------------------- classic tests


@dataclass(frozen=True)
class TestResult:
    """A paired test's two-sided p (NaN when ``reason`` says why there is none), the
    direction its own statistic points to (+1: the system is better, -1 worse, 0 neither)
    and how p was found."""

    p: float
    direction: int
    method: str
    reason: str | None = None


ONE_QUERY = "one query: no variation to infer from"
"""Why no test is made on a single query's difference."""


def degenerate(d: np.ndarray) -> str | None:
    """Why no spread-based inference (t-test, d_z, interval) can be drawn from ``d``, if it
    cannot: one query, or the same difference on every query."""
    if len(d) < 2:
        return ONE_QUERY
    if np.ptp(d) <= 1e-12 * max(float(np.abs(d).max()), 1.0):  # the same, to rounding
        return f"every query has the same difference ({d[0]:+.4g}): no variation to infer from"
    return None


def _no_test(reason: str) -> TestResult:
    return TestResult(math.nan, 0, "n/a", reason)


def _direction(value: float) -> int:
    return int(np.sign(value))


def paired_t(d: np.ndarray) -> TestResult:
    """Paired t-test (scipy ``ttest_1samp`` of the differences, two-sided); not available
    without spread (it would be 0/0 or a division by zero)."""
    reason = degenerate(d)
    if reason:
        return _no_test(reason)
    p = float(scipy_stats.ttest_1samp(d, 0.0).pvalue)
    return TestResult(p, _direction(d.mean()), "scipy")


def wilcoxon(d: np.ndarray) -> TestResult:
    """Wilcoxon signed-rank test, two-sided, zero differences dropped (Wilcoxon 1945): the
    exact distribution of the signed-rank sum of the non-zero differences, ties in their
    magnitudes given mid-ranks, up to :data:`EXACT_WILCOXON_MAX` of them; above, the normal
    approximation with tie correction and no continuity correction. Its direction is the
    sign of the signed-rank sum."""
    if len(d) < 2:
        return _no_test(ONE_QUERY)
    nonzero = d[d != 0]
    n = len(nonzero)
    if n == 0:
        return TestResult(1.0, 0, "exact")  # every sign vector gives the observed sum, 0
    doubled = np.rint(2 * scipy_stats.rankdata(np.abs(nonzero))).astype(np.int64)
    total = int(doubled.sum())
    plus = int(doubled[nonzero > 0].sum())  # twice the sum of positive ranks
    deviation = abs(2 * plus - total)  # twice |T+ - E(T+)|, an integer
    direction = int(np.sign(2 * plus - total))
    if n <= EXACT_WILCOXON_MAX:
        pmf = np.zeros(total + 1)
        pmf[0] = 1.0
        reach = 0
        for rank in doubled.tolist():  # each rank's sign is + or - with probability 1/2
            reach += rank
            shifted = pmf[: reach - rank + 1].copy()
            pmf[: reach + 1] *= 0.5
            pmf[rank : reach + 1] += 0.5 * shifted
        sums = np.arange(total + 1)
        p = float(pmf[np.abs(2 * sums - total) >= deviation].sum())
        return TestResult(min(p, 1.0), direction, "exact")
    _, counts = np.unique(doubled, return_counts=True)
    variance = n * (n + 1) * (2 * n + 1) / 24 - float((counts**3 - counts).sum()) / 48
    z = (deviation / 4) / math.sqrt(variance)
    return TestResult(float(2 * scipy_stats.norm.sf(z)), direction, "normal")


def sign_test(d: np.ndarray) -> TestResult:
    """Sign test: scipy's exact binomial test of wins against losses (ties dropped); its
    direction is wins against losses, whatever the mean says."""
    if len(d) < 2:
        return _no_test(ONE_QUERY)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if wins + losses == 0:
        return TestResult(1.0, 0, "exact")
    p = float(scipy_stats.binomtest(wins, wins + losses, 0.5).pvalue)
    return TestResult(p, _direction(wins - losses), "exact")


# --------------------------------------------------------------------------- intervals, sizes

CI_METHODS = ("bca", "percentile")


def bootstrap_ci(
    diffs: np.ndarray,
    resamples: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
    method: str = "bca",
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap interval of the mean of each column (queries resampled with replacement,
    the same resamples for every column). Returns ``(low, high)``, NaN where a column has
    no interval (see :func:`degenerate`; also a zero-width one).

    ``bca`` (default): Efron's bias-corrected and accelerated interval (Efron 1987); the
    acceleration from the jackknife, whose leave-one-out means come from the column sums,
    so it costs O(n). The bias correction counts resampled means equal to the observed one
    as half below (as scipy does). ``percentile``: the plain percentile interval, which
    under-covers when most differences are zero."""
    diffs = _finite(diffs)
    if not 0 < confidence < 1:
        raise InputError(None, f"confidence must be between 0 and 1, not {confidence}")
    if resamples < 1:
        raise InputError(None, f"bootstrap resamples must be at least 1, not {resamples}")
    if method not in CI_METHODS:
        raise InputError(None, f"unknown interval {method!r}; choose from {', '.join(CI_METHODS)}")
    n, columns = diffs.shape
    means = np.empty((resamples, columns))
    done = 0
    for count in _batches(resamples, n):
        picks = rng.integers(0, n, size=(count, n))
        # how often each query was drawn, as weights: one product for every column
        picks += (np.arange(count) * n)[:, None]
        weights = np.bincount(picks.ravel(), minlength=count * n).reshape(count, n)
        means[done : done + count] = weights.astype(np.float64) @ diffs / n
        done += count
    tail = (1 - confidence) / 2
    levels = np.tile([tail, 1 - tail], (columns, 1)).T  # 2 x columns
    if method == "bca" and n > 1:
        levels = _bca_levels(diffs, means, levels)
    low, high = _column_quantiles(np.sort(means, axis=0), levels)
    spread = np.array([degenerate(diffs[:, c]) is None for c in range(columns)])
    empty = ~spread | ~(high > low) | np.isnan(levels).any(axis=0)
    low[empty] = high[empty] = np.nan
    return low, high


def _bca_levels(diffs: np.ndarray, means: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """The BCa quantile levels of each column (2 x columns), NaN where undefined."""
    n = diffs.shape[0]
    observed = diffs.mean(axis=0)
    gamma = _tolerance(diffs) / n
    below = (means < observed - gamma).sum(axis=0)
    at_most = (means <= observed + gamma).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = scipy_special.ndtri((below + at_most) / (2 * len(means)))
        leave_one_out = (diffs.sum(axis=0) - diffs) / (n - 1)
        u = leave_one_out.mean(axis=0) - leave_one_out
        acceleration = (u**3).sum(axis=0) / (6 * ((u**2).sum(axis=0)) ** 1.5)
        acceleration = np.nan_to_num(acceleration)
        z = scipy_special.ndtri(levels)
        shifted = z0 + (z0 + z) / (1 - acceleration * (z0 + z))
        out = scipy_special.ndtr(shifted)
    out[:, ~np.isfinite(z0)] = np.nan
    return out


def _column_quantiles(ordered: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Linear-interpolated quantiles (numpy's default) of each sorted column at its own
    levels (rows of ``levels``)."""
    count, columns = ordered.shape
    position = np.nan_to_num(levels) * (count - 1)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, count - 1)
    column = np.arange(columns)[None, :]
    fraction = position - below
    return ordered[below, column] * (1 - fraction) + ordered[above, column] * fraction


def effect_size(d: np.ndarray) -> float:
    """Cohen's d_z: mean difference over the standard deviation of the differences (ddof 1);
    NaN where it is not defined (:func:`degenerate`: one query or no spread)."""
    if degenerate(d):
        return math.nan
    return float(np.mean(d)) / float(np.std(d, ddof=1))


def _finite(diffs) -> np.ndarray:
    """Differences as a 2-D float array; a NaN or infinite one is an error (it would make
    every comparison with it false and pass for significance)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    bad = np.argwhere(~np.isfinite(diffs))
    if len(bad):
        row, column = bad[0]
        raise InputError(
            None, f"difference {diffs[row, column]} at row {row}, column {column}: not a number"
        )
    return diffs


# --------------------------------------------------------------------------- floors, B

FEW_NONZERO = 30
"""Non-zero differences (or values) below which a bootstrap interval is flagged: it
under-covers there (docs/guides/comparing.md, What n is needed)."""

MONTE_CARLO_TESTS = ("randomisation", "tukey")


def p_floor(
    test: str, nonzero: int, *, exact: bool = True, permutations: int = 1, method: str = "exact"
) -> float:
    """The smallest two-sided p ``test`` can give on differences with ``nonzero`` non-zero
    values: 2 / 2**m for the sign test and the exact randomisation and Wilcoxon tests (every
    difference on one side), 1 / (B + 1) for a sampled Monte Carlo p, 0 for the t-test and
    Wilcoxon's normal approximation."""
    if test == "t" or (test == "wilcoxon" and method == "normal"):
        return 0.0
    if test in MONTE_CARLO_TESTS and not exact:
        return 1.0 / (permutations + 1)
    return min(1.0, 2.0 ** (1 - nonzero))


def permutations_needed(family: int, alpha: float) -> int:
    """The smallest B at which a Monte Carlo p at its floor, 1 / (B + 1), corrected over a
    family of ``family`` tests (Holm and Bonferroni multiply it by ``family``; so does BH
    for a lone discovery) is at most alpha / 2: below, a clearly different pair can never
    come out significant."""
    return max(1, math.ceil(2 * family / alpha) - 1)


# --------------------------------------------------------------------------- corrections


def adjust(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values for one family of tests: ``holm`` (step-down, family-wise error),
    ``bonferroni``, ``bh`` (Benjamini-Hochberg, false discovery rate) or ``none``."""
    method = correction_name(method)
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        steps = np.maximum.accumulate(ranked * (m - np.arange(m)))
    else:  # bh: step-up, from the largest p down
        steps = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(steps, 1.0)
    return out
