"""The family of tests corrected together: the one correction ``compare``, ``table`` and
``breakdown`` share, the number of permutations the family needs, and what no data could
make significant.

- :func:`correct`: a pairs frame's tests corrected as one family. A test without a p-value
  (one query, no spread for the t-test: ``p`` NaN) is not in the family: it has no
  ``p_adj``, is never significant and does not count in the family's size, so
  Benjamini-Hochberg gives no NaN for the others and Holm multiplies by the size of the
  family actually corrected. ``significant`` needs the test's own direction (``direction``
  not 0). Each test also gets ``p_adj_floor``: the corrected p it would have if every test
  of the family sat at its own floor (``p_floor``, the smallest p the test can give with its
  number of non-zero differences and permutations, :func:`stats.p_floor`). The
  corrections are monotone in every p, so no data with these counts can give a smaller
  ``p_adj``: ``reachable`` is False where even that floor is not below alpha (5 non-zero
  differences: the sign test's p is at least 2 / 2**5 = 0.0625).
- :func:`permutations_for`: B raised until a Monte Carlo p at its floor, corrected over the
  family, can be below alpha / 2 (:func:`citeval_irm.comparison.stats.permutations_needed`),
  with the warning that says so, or that says it cannot be.
- :func:`tested`: blocks of runs' values (a results table's datasets, a breakdown's
  groups, a comparison's one block) through the paired statistics
  (:func:`citeval_irm.comparison.pairs.paired_statistics`) with one B for the whole family,
  then one correction over it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base import choices
from ..base.errors import EvalWarning
from . import stats
from .pairs import PAIR_COLUMNS, paired_statistics, pairs_of


@dataclass(frozen=True)
class CompareSettings:
    """How the comparison was made: reported with every result so it can be repeated."""

    test: str
    correction: str
    alpha: float
    confidence: float
    permutations: int
    bootstrap: int
    seed: int
    queries: str
    ties: str
    permutations_requested: int | None = None  # when B was raised for the family


FEW_MARK = "~"  # before an interval resting on fewer than FEW_NONZERO non-zero differences
UNREACHABLE_MARK = "x"  # after a test no data with these counts could make significant
CORRECTION_LABELS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}


@dataclass(frozen=True)
class Family:
    """What :func:`correct` did: the tests corrected together (``size``), those without a
    p left out (``left_out``, with their reasons), and those that cannot reach alpha."""

    correction: str
    alpha: float
    size: int
    left_out: int
    reasons: tuple[str, ...]
    unreachable: int
    lowest_floor: float  # the smallest p_adj floor among the unreachable tests

    def left_note(self) -> str:
        """`` (2 tests without a p left out: one query ...)``, or nothing."""
        if not self.left_out:
            return ""
        why = f": {'; '.join(self.reasons)}" if self.reasons else ""
        return f" ({self.left_out:,} {_tests(self.left_out)} without a p left out{why})"

    def unreachable_line(self, examples: list[str]) -> str | None:
        """The legend line for tests that cannot come out significant, or ``None``."""
        if not self.unreachable:
            return None
        shown = ", ".join(examples[:5]) + (", ..." if len(examples) > 5 else "")
        return (
            f"cannot reach significance ({self.unreachable:,} of {self.size:,} "
            f"{_tests(self.size)}: {shown}): with so few non-zero differences (or "
            f"permutations) and this family, no data could give p_adj < {self.alpha:g} "
            f"(the smallest possible p_adj is {self.lowest_floor:.4g} or more); a p above "
            "alpha there says nothing about the difference"
        )


def _tests(count: int) -> str:
    return "test" if count == 1 else "tests"


def correct(pairs: pd.DataFrame, test: str, correction: str, alpha: float) -> Family:
    """Correct the tests of ``pairs`` (compare's columns: ``p_<test>``, ``p_floor``,
    ``direction``, ``unavailable``) as one family, in place: ``p_adj``, ``significant``,
    ``p_adj_floor``, ``reachable``; see the module's docstring."""
    correction = choices.correction_name(correction)
    p = pairs[f"p_{test}"].to_numpy(dtype=np.float64) if len(pairs) else np.zeros(0)
    tested = ~np.isnan(p)
    floors = pairs["p_floor"].to_numpy(dtype=np.float64) if len(pairs) else np.zeros(0)
    adjusted, floor_adjusted = np.full(len(p), np.nan), np.full(len(p), np.nan)
    adjusted[tested] = stats.adjust(p[tested], correction)
    floor_adjusted[tested] = stats.adjust(floors[tested], correction)
    directed = pairs["direction"].to_numpy() != 0 if len(pairs) else np.zeros(0, bool)
    reachable = tested & (floor_adjusted < alpha)
    pairs["p_adj"] = adjusted
    pairs["significant"] = (adjusted < alpha) & directed
    pairs["p_adj_floor"] = floor_adjusted
    pairs["reachable"] = reachable
    blocked = tested & ~reachable
    reasons = pairs.loc[~tested, "unavailable"].dropna() if len(pairs) else pd.Series([])
    return Family(
        correction=correction,
        alpha=alpha,
        size=int(tested.sum()),
        left_out=int((~tested).sum()),
        reasons=tuple(dict.fromkeys(_reason(r) for r in reasons)),
        unreachable=int(blocked.sum()),
        lowest_floor=float(floor_adjusted[blocked].min()) if blocked.any() else float("nan"),
    )


def _reason(unavailable: str) -> str:
    """Why a test has no p, from compare's ``unavailable`` (``p(rand), ...: why``)."""
    return unavailable.split(": ", 1)[-1]


def unreachable_labels(pairs: pd.DataFrame, label: Callable[[object], str]) -> list[str]:
    """``label(row)`` of every tested pair that cannot reach significance."""
    rows = pairs[pairs["p_adj"].notna() & ~pairs["reachable"].astype(bool)]
    return [label(row) for row in rows.itertuples()]


def is_unreachable(row) -> bool:
    """Whether a pair (a row of the pairs) is tested and cannot reach significance."""
    return bool(row["p_adj"] == row["p_adj"] and not row["reachable"])


def family_notes(pairs: pd.DataFrame, found: Family, test: str, label, settings=None) -> list[str]:
    """The legend's lines every output of a family shares: B raised for the family (when
    ``settings`` are given), the tests that cannot reach significance (marked
    :data:`UNREACHABLE_MARK`), and the significant tests whose own direction (``test``'s
    statistic: wins against losses for the sign test, the signed-rank sum for Wilcoxon's)
    is not the mean difference's, named by ``label(row)``."""
    raised = raised_note(settings) if settings is not None else None
    lines = [raised] if raised else []
    line = found.unreachable_line(unreachable_labels(pairs, label))
    if line:
        lines.append(f"{UNREACHABLE_MARK}: {line}")
    marked = pairs[pairs["significant"].astype(bool)] if len(pairs) else pairs
    against = marked[np.sign(marked["diff"]) != marked["direction"]] if len(marked) else marked
    if len(against):
        cases = "; ".join(
            f"{label(row)}: {int(row.wins)} queries won, {int(row.losses)} lost, mean difference "
            f"{row.diff:+.4g}"
            for row in against.itertuples()
        )
        lines.append(
            f"the {test} marks by its own statistic, and here it points against the mean "
            f"difference ({len(against)} significant {_tests(len(against))}): {cases}"
        )
    return lines


def few_line(few: int, total: int, counted: str) -> str:
    """The legend line of the intervals resting on fewer than FEW_NONZERO non-zero
    ``counted`` (differences, or values)."""
    return (
        f"{FEW_MARK}[low, high] ({few} of {total}): the interval rests on fewer than "
        f"{stats.FEW_NONZERO} non-zero {counted}: a bootstrap interval under-covers there "
        "(with 90 % ties, a 95 % one covers about 80 % of the time at 5 non-zero differences: "
        "docs/guides/comparing.md, What n is needed): read it as too narrow, and go by the tests"
    )


def most_nonzero(values: np.ndarray, pairs: list[tuple[int, int]]) -> int:
    """The most non-zero differences of any pair and measure (queries x runs x measures)."""
    if not pairs or not len(values):
        return 0
    first, second = (np.array(side) for side in zip(*pairs))
    return int((values[:, first, :] != values[:, second, :]).sum(axis=0).max())


def permutations_for(settings, family: int, nonzero: int, queries: int):
    """``settings`` (a ``CompareSettings``) with B raised to what a family of ``family``
    tests needs (:func:`stats.permutations_needed`), within
    :data:`~citeval_irm.base.choices.MAX_AUTO_PERMUTATIONS`; above that bound B stays and a
    warning gives the number needed. Only a Monte Carlo primary test has the floor: the
    randomisation test sampled for at least one pair (``nonzero``, the most non-zero
    differences of a pair, above log2 B; an enumerated one is exact), or the Tukey HSD
    (its own family: one test). Returns the settings and the warnings."""
    if settings.test not in stats.MONTE_CARLO_TESTS or queries < 2 or not family:
        return settings, []
    if settings.test == "randomisation" and 2**nonzero <= settings.permutations:
        return settings, []
    if settings.test == "tukey" or settings.correction == "none":
        family = 1
    needed = stats.permutations_needed(family, settings.alpha)
    if needed <= settings.permutations:
        return settings, []
    floor = family / (settings.permutations + 1)
    if settings.test == "tukey":
        why = f"{settings.permutations:,} permutations put the smallest Tukey HSD p at {floor:.3g}"
    else:
        why = (
            f"{settings.permutations:,} permutations put the smallest {settings.correction}-"
            f"adjusted p of {family:,} tests at {family:,} / (B + 1) = {floor:.3g}"
        )
    if needed > choices.MAX_AUTO_PERMUTATIONS:
        message = (
            f"{why}, above alpha / 2: no clear difference can come out significant; "
            f"B = {needed:,} is needed (more than the {choices.MAX_AUTO_PERMUTATIONS:,} "
            "citeval raises B to by itself: pass permutations=, or compare fewer pairs or "
            "measures)"
        )
        return settings, [EvalWarning("permutations_too_few", message, needed)]
    message = f"{why}, above alpha / 2: raised to B = {needed:,}"
    raised = dataclasses.replace(
        settings, permutations=needed, permutations_requested=settings.permutations
    )
    return raised, [EvalWarning("permutations_raised", message, needed)]


@dataclass
class Tested:
    """What :func:`tested` found: the pairs of every block,
    each block's Tukey HSD table (when asked), the settings (B as used), the family and
    the warnings (B raised, or too few)."""

    pairs: pd.DataFrame
    tukey: dict
    settings: CompareSettings
    family: Family
    warnings: list[EvalWarning]


def tested(
    blocks: dict,
    baseline: str | None,
    settings,
    use_tukey: bool = False,
    column: str | None = None,
) -> Tested:
    """The paired statistics of every block (``{key: (values, runs, measures)}``, values
    queries x runs x measures; ``column``: the pairs' column naming the block), each run
    against ``baseline`` (or every pair), with one B
    for the whole family (:func:`permutations_for`) and one correction over it
    (:func:`correct`): how ``compare`` (one block), a results table (a block per dataset)
    and a breakdown (a block per group) test."""
    plans = {key: (v, runs, m, pairs_of(runs, baseline)) for key, (v, runs, m) in blocks.items()}
    size = sum(len(pairs) * len(m) for _, _, m, pairs in plans.values())
    nonzero = max((most_nonzero(v, pairs) for v, _, _, pairs in plans.values()), default=0)
    queries = max((len(v) for v, _, _, _ in plans.values()), default=0)
    settings, warnings = permutations_for(settings, size, nonzero, queries)
    frames, tukey = [], {}
    for key, (values, runs, measures, _) in plans.items():
        pairs, tukey[key] = paired_statistics(values, runs, measures, baseline, settings, use_tukey)
        frames.append(pairs.assign(**{column: key}) if column else pairs)
    pairs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PAIR_COLUMNS)
    found = correct(pairs, settings.test, settings.correction, settings.alpha)
    return Tested(pairs, tukey, settings, found, warnings)


def raised_note(settings) -> str | None:
    """The legend's words for a B raised for the family, or ``None``."""
    if settings.permutations_requested is None:
        return None
    return (
        f"B raised from {settings.permutations_requested:,} to {settings.permutations:,}: "
        "the family's smallest corrected p, at its floor, must be at most alpha / 2"
    )
