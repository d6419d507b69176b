"""How the paired tests and their numbers are named and printed, in every table that shows
them (a comparison's, a breakdown's, a results table's): each test's label, its p column,
the statistic whose direction a significance mark follows, and how a p-value, a difference
and an effect size are written."""

from __future__ import annotations

import math

TEST_LABELS = {
    "randomisation": "randomisation test",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "tukey": "randomised Tukey HSD",
}
P_COLUMNS = {
    "randomisation": "p(rand)",
    "t": "p(t)",
    "wilcoxon": "p(wsr)",
    "sign": "p(sign)",
    "tukey": "p(tukey)",
}
"""Each test's p-value column as a comparison's pairs table prints it."""
TEST_DIRECTIONS = {
    "randomisation": "the mean difference",
    "t": "the mean difference",
    "wilcoxon": "the signed-rank sum",
    "sign": "wins against losses",
    "tukey": "the mean difference",
}
"""The statistic whose sign a test's significance mark follows."""


def format_p(p: float) -> str:
    """A p-value for a table: four decimals, ``<0.0001`` below that."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def signed(value: float, decimals: int) -> str:
    """A difference with its sign; one that rounds to zero prints as 0.00, never -0.00."""
    if round(value, decimals) == 0:
        return f"{0.0:.{decimals}f}"
    return f"{value:+.{decimals}f}"


def effect(value: float) -> str:
    """An effect size (d_z): signed, two decimals, ``n/a`` when there is none."""
    return "n/a" if math.isnan(value) else signed(value, 2)


def displayed(result, percent: bool | None = None, decimals: int | None = None, **changes):
    """``result`` (a table with ``percent``, ``decimals`` and ``protocol`` fields: a results
    table, a breakdown) as it prints in ``percent`` (default: as made, the protocol's unit)
    with ``decimals`` (:func:`~citeval_irm.base.options.display_decimals`) and ``changes``
    (a breakdown's ``min_queries``); itself when nothing is asked."""
    from dataclasses import replace

    from ..base.options import display_decimals

    if percent is None and decimals is None and not changes:
        return result
    shown = result.percent if percent is None else bool(percent)
    decimals = display_decimals(shown, result.protocol, decimals)
    return replace(result, percent=shown, decimals=decimals, **changes)
