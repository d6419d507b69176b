"""The legend of a :class:`~citeval_irm.Comparison`: what every column of its tables means
and how each number was made (the differences and intervals, each test and its draws, the
correction over the family, what cannot come out significant), one sentence a line, as
the text, Markdown and report formats print it under the tables."""

from __future__ import annotations

import pandas as pd

from ..base.choices import EXACT_WILCOXON_MAX
from .family import CORRECTION_LABELS, Family, family_notes, few_line
from .labels import TEST_DIRECTIONS, TEST_LABELS


def comparison_legend(
    pairs: pd.DataFrame,
    tukey: pd.DataFrame | None,
    settings,
    family: Family | None,
    baseline: str | None,
    num_queries: int,
) -> list[str]:
    """The legend of a comparison's ``pairs`` and ``tukey`` tables, made with ``settings``
    (a ``CompareSettings``) and corrected as ``family`` over ``num_queries`` queries."""
    lines = _pair_lines(pairs, settings, family, baseline) if len(pairs) else []
    if tukey is not None:
        lines.append(_tukey_line(tukey, settings))
    if len(pairs):
        lines.append(
            "a p-value says whether a difference is there, not whether it matters: read it "
            f"beside diff, the CI and d_z (the more queries, here {num_queries:,}, the "
            "smaller the differences that come out significant)"
        )
    return lines


def _pair_lines(pairs: pd.DataFrame, s, family: Family, baseline: str | None) -> list[str]:
    """The lines on the pairs table: its columns, its tests, the correction, the marks and
    their caveats, the values no test could give."""
    test = TEST_LABELS[s.test]
    lines = [
        f"diff: {_diff_meaning(baseline)}, the mean of the per-query differences; "
        f"{s.confidence:.0%} CI: paired bootstrap BCa interval (bias-corrected and "
        f"accelerated, Efron 1987; {s.bootstrap:,} resamples of the queries, "
        f"seed {s.seed})",
        "d_z: standardised mean difference (mean / standard deviation of the per-query "
        "differences); W/T/L: queries where the pair's first run does better / the same / "
        "worse",
        _randomisation_line(pairs, s),
        "p(t): paired t-test (scipy); p(sign): sign test, exact binomial of wins against "
        "losses (ties dropped); " + _wilcoxon_line(pairs),
        _p_adj_line(s, family),
        f"*: p_adj < {s.alpha:g}; a letter after a mean: significantly better than that "
        f"run, in the direction of the {test}'s own statistic ({TEST_DIRECTIONS[s.test]})",
    ]
    lines += _caveats(pairs, family, test)
    for reason, count in pairs["unavailable"].dropna().value_counts().items():
        tests = "test" if count == 1 else "tests"
        lines.append(f"n/a ({count} {tests}): {reason}")
    return lines


def _diff_meaning(baseline: str | None) -> str:
    if baseline is not None:
        return f"each run minus the baseline ({baseline})"
    return "the pair's first run minus its second (each later run minus each earlier one)"


def _randomisation_line(pairs: pd.DataFrame, s) -> str:
    """How the randomisation test drew its flips: B (raised for the family, if it was),
    the seed, and the tests whose sign vectors were all enumerated."""
    exact = int(pairs["randomisation_exact"].sum())
    rand = (
        f"p(rand): randomisation test, paired and two-sided, sign flips of the per-query "
        f"differences, {s.permutations:,} random flips (seed {s.seed}), "
        "p = (b + 1) / (B + 1)"
    )
    if s.permutations_requested is not None:
        rand += (
            f" (B raised from {s.permutations_requested:,}: the family's smallest "
            "corrected p, at its floor, must be at most alpha / 2)"
        )
    if exact:
        rand += f"; exact (all sign vectors enumerated) for {exact} of {len(pairs)} tests"
    return rand


def _wilcoxon_line(pairs: pd.DataFrame) -> str:
    methods = pairs["wilcoxon_method"].value_counts()
    exact, normal = int(methods.get("exact", 0)), int(methods.get("normal", 0))
    return (
        "p(wsr): Wilcoxon signed-rank test on the non-zero differences (zeros dropped, "
        f"ties in magnitude given mid-ranks): exact distribution for {exact} of "
        f"{len(pairs)} tests (at most {EXACT_WILCOXON_MAX} non-zero "
        f"differences), normal approximation with tie correction and no continuity "
        f"correction for {normal}"
    )


def _p_adj_line(s, family: Family) -> str:
    """What ``p_adj`` is: the chosen test's p corrected over the family, or Tukey's own."""
    if s.test == "tukey":
        return (
            "p_adj: the Tukey HSD p-value (it controls the family-wise error over "
            "the pairs of a measure; not corrected across measures)"
        )
    return (
        f"p_adj: {TEST_LABELS[s.test]} p-values, {CORRECTION_LABELS[s.correction]}-"
        f"corrected over the {family.size} tests shown{family.left_note()}"
    )


def _caveats(pairs: pd.DataFrame, family: Family, test: str) -> list[str]:
    """The legend's lines on tests that cannot come out significant, on marks whose
    direction is not the mean's, and on intervals resting on few non-zero differences."""
    lines = family_notes(
        pairs, family, test, lambda row: f"{row.measure} {row.system} - {row.baseline}"
    )
    few = int(pairs["ci_few"].sum())
    if few:
        lines.append(few_line(few, len(pairs), "differences (W + L)"))
    return lines


def _tukey_line(tukey: pd.DataFrame, s) -> str:
    """How the Tukey HSD shuffled: every shuffling, or B random ones with their seed."""
    if tukey["exact"].any():
        method = "every shuffling enumerated"
    else:
        method = f"{s.permutations:,} random shufflings (seed {s.seed}), p = (b + 1) / (B + 1)"
    return (
        "p(tukey): Sakai's randomised Tukey HSD over all runs (scores shuffled within "
        f"each query; range of the run means), {method}"
    )
