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
- :func:`randomised_tukey_hsd`: Sakai's randomised Tukey HSD (after Carterette 2012): the
  values of the systems are shuffled within each query, the statistic is the range (largest
  minus smallest system mean); a pair's p-value is the share of shufflings (the observed one
  counted, as above) whose range reaches the pair's observed difference, which controls the
  family-wise error over all pairs of systems.
- :func:`paired_t`, :func:`wilcoxon`, :func:`sign_test`: scipy's tests, with the all-zero case
  (no evidence at all) given p = 1 where scipy has no answer.
- :func:`bootstrap_ci`: percentile interval of the mean difference over resampled queries.
- :func:`effect_size`: the standardised mean difference of paired values, Cohen's d_z.
- :func:`adjust`: Holm, Bonferroni and Benjamini-Hochberg adjusted p-values.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator

import numpy as np
from scipy import sparse
from scipy import stats as scipy_stats

from .choices import CORRECTIONS
from .errors import InputError

BATCH_ELEMENTS = 1 << 22
"""Random numbers drawn per batch (4 M: a few tens of MB with the arrays built from them)."""

_CORRECTION_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "bonf": "bonferroni"}

_MAX_TABLE_SYSTEMS = 8  # 8! = 40,320 orders: beyond that, shuffle by sorting random keys


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
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
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


# --------------------------------------------------------------------------- Tukey HSD


def randomised_tukey_hsd(
    values: np.ndarray, permutations: int, rng: np.random.Generator, *, exact: bool | None = None
) -> tuple[np.ndarray, bool]:
    """Sakai's randomised Tukey HSD over ``values`` (queries x systems x measures).

    Returns p-values (systems x systems x measures, symmetric, diagonal 1) and whether they
    are exact: ``exact=None`` enumerates every within-query shuffling when there are at most
    ``permutations`` of them (queries whose systems all score the same are left out: any
    shuffling leaves them as they are).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 2:
        values = values[:, :, None]
    n, k, measures = values.shape
    if k < 2:
        raise InputError(None, "the randomised Tukey HSD needs at least two systems")
    means = values.mean(axis=0)  # systems x measures
    observed = np.abs(means[:, None, :] - means[None, :, :])  # k x k x measures
    varying = values[(values != values[:, :1, :]).any(axis=(1, 2))]
    orders = math.factorial(k)
    shufflings = orders ** len(varying)
    if exact is None:
        exact = k <= _MAX_TABLE_SYSTEMS and shufflings <= permutations
    if exact and k > _MAX_TABLE_SYSTEMS:
        raise InputError(None, f"exact Tukey HSD needs at most {_MAX_TABLE_SYSTEMS} systems")
    gamma = 1e-11 * np.maximum(np.abs(values).sum(axis=(0, 1)), 1.0) / n
    fixed = (values.sum(axis=0) - varying.sum(axis=0)) if exact else None
    reached = np.zeros_like(observed)
    draws = shufflings if exact else permutations
    for sums in _shuffled_sums(varying if exact else values, draws, rng, exact):
        if fixed is not None:
            sums = sums + fixed
        spread = (sums.max(axis=1) - sums.min(axis=1)) / n  # batch x measures
        reached += (spread[:, None, None, :] >= observed[None] - gamma).sum(axis=0)
    p = reached / shufflings if exact else (reached + 1) / (permutations + 1)
    p[np.arange(k), np.arange(k)] = 1.0
    return p, bool(exact)


def _shuffled_sums(
    values: np.ndarray, draws: int, rng: np.random.Generator, exact: bool
) -> Iterator[np.ndarray]:
    """Column sums (batch x systems x measures) after shuffling the systems within each row:
    ``draws`` random shufflings, or with ``exact`` every combination of row orders."""
    n, k, measures = values.shape
    if k > _MAX_TABLE_SYSTEMS:
        yield from _sorted_key_sums(values, draws, rng)
        return
    table = np.array(list(itertools.permutations(range(k))), dtype=np.intp)  # orders x k
    orders = len(table)
    flat = values.transpose(0, 2, 1).reshape(n, measures * k)
    per_draw = max(n, orders * measures * k)
    done = 0
    for count in _batches(draws, per_draw):
        if exact:
            codes = np.arange(done, done + count, dtype=np.int64)
            choice = (codes[None, :] // orders ** np.arange(n, dtype=np.int64)[:, None]) % orders
        else:
            choice = rng.integers(0, orders, size=(n, count))
        done += count
        # Sum the rows that got the same order (one sparse product for all draws), then
        # put each order's sums in the systems' places.
        rows = choice + (np.arange(count) * orders)[None, :]
        onehot = sparse.csc_matrix(
            (np.ones(n * count), rows.ravel(), np.arange(0, n * count + 1, count)),
            shape=(count * orders, n),
        )
        grouped = (onehot @ flat).reshape(count, orders, measures, k)
        sums = np.take_along_axis(grouped, table[None, :, None, :], axis=3).sum(axis=1)
        yield sums.transpose(0, 2, 1)


def _sorted_key_sums(
    values: np.ndarray, draws: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """As :func:`_shuffled_sums` for many systems: each row's order from sorted random keys."""
    n, k, measures = values.shape
    for count in _batches(draws, n * k * measures):
        order = np.argsort(rng.random((count, n, k)), axis=2)
        shuffled = np.take_along_axis(values[None], order[..., None], axis=2)
        yield shuffled.sum(axis=1)


# --------------------------------------------------------------------------- scipy's tests


def _all_zero(d: np.ndarray) -> bool:
    return not np.any(d)


def paired_t(d: np.ndarray) -> float:
    """Paired t-test (scipy ``ttest_1samp`` of the differences, two-sided)."""
    if _all_zero(d):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(scipy_stats.ttest_1samp(d, 0.0).pvalue)


def wilcoxon(d: np.ndarray) -> float:
    """Wilcoxon signed-rank test (scipy, two-sided, zero differences dropped)."""
    if _all_zero(d):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(scipy_stats.wilcoxon(d, zero_method="wilcox").pvalue)


def sign_test(d: np.ndarray) -> float:
    """Sign test: scipy's exact binomial test of wins against losses (ties dropped)."""
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if wins + losses == 0:
        return 1.0
    return float(scipy_stats.binomtest(wins, wins + losses, 0.5).pvalue)


# --------------------------------------------------------------------------- intervals, sizes


def bootstrap_ci(
    diffs: np.ndarray, resamples: int, rng: np.random.Generator, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean of each column (queries resampled with
    replacement, the same resamples for every column). Returns ``(low, high)``."""
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    if not 0 < confidence < 1:
        raise InputError(None, f"confidence must be between 0 and 1, not {confidence}")
    if resamples < 1:
        raise InputError(None, f"bootstrap resamples must be at least 1, not {resamples}")
    n = diffs.shape[0]
    means = np.empty((resamples, diffs.shape[1]))
    done = 0
    for count in _batches(resamples, n):
        picks = rng.integers(0, n, size=(count, n))
        # how often each query was drawn, as weights: one product for every column
        picks += (np.arange(count) * n)[:, None]
        weights = np.bincount(picks.ravel(), minlength=count * n).reshape(count, n)
        means[done : done + count] = weights.astype(np.float64) @ diffs / n
        done += count
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail], axis=0)
    return low, high


def effect_size(d: np.ndarray) -> float:
    """Cohen's d_z: mean difference over the standard deviation of the differences (ddof 1);
    0 when there is no difference, infinite for a constant non-zero one."""
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1)) if len(d) > 1 else 0.0
    if sd == 0.0:
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


# --------------------------------------------------------------------------- corrections


def correction_name(method: str) -> str:
    """The canonical name of a correction (``fdr_bh`` and ``benjamini-hochberg`` are ``bh``)."""
    name = _CORRECTION_ALIASES.get(method.lower(), method.lower())
    if name not in CORRECTIONS:
        raise InputError(
            None, f"unknown correction {method!r}; choose from {', '.join(CORRECTIONS)}"
        )
    return name


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
