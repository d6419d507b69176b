"""The report of a cross-check (:class:`CrosscheckReport`): per-measure summary, every
differing query with its causes, counts per cause, tie ranges, and its text and JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning, examples_of
from ..base.measures import Protocol, parse_measures
from ..base.options import display_decimals
from ..papers.recipes import Recipe
from ..printing.escaping import plain_text
from ..printing.printable import Printable
from ..printing.text_tables import text_width, wrap
from ..scoring import percent_scale

_SHORT_NAMES = {
    "difference": "diff",
    "max_abs_query_difference": "max|q|",
    "queries_differing": "n_diff",
    "tie_worst": "worst",
    "tie_expected": "expected",
    "tie_best": "best",
}

_VALUE_COLUMNS = [
    "trec_eval",
    "recipe",
    "difference",
    "max_abs_query_difference",
    "tie_worst",
    "tie_expected",
    "tie_best",
]


@dataclass(repr=False)
class CrosscheckReport(Printable):
    """The cross-check of one run: per-measure summary, every differing query with its
    causes, counts per cause, and tie ranges.

    ``summary``: one row per measure (``trec_eval``, ``recipe``, ``difference``,
    ``max_abs_query_difference``, ``queries_differing``, ``tie_worst``, ``tie_expected``,
    ``tie_best``). ``differences``: one row per differing (query, measure). ``causes``: one row
    per cause found. ``tie_queries``: per tied query and measure, the trec_eval value and its
    range. ``crashes``: the queries on which the paper's script itself would have stopped
    with an exception (the recipe scores them as an empty match); ``recipe_per_query``: the
    recipe's value of every query it averages. Values are fractions;
    ``percent`` says how the recipe's paper prints them.
    """

    recipe: Recipe
    protocol: Protocol | None
    recipe_ties: str
    summary: pd.DataFrame
    differences: pd.DataFrame
    causes: pd.DataFrame
    tie_queries: pd.DataFrame
    crashes: pd.DataFrame
    recipe_per_query: pd.DataFrame
    warnings: list[EvalWarning] = field(default_factory=list)
    percent: bool = False
    depth: int | None = None
    """The longest ranking of the run (``None``: not known): the table shows the rows of
    one measure at cut-offs beyond it, which hold the same values, as one row."""

    def _summary(self) -> dict[str, object]:
        differing = self.differences["query_id"].nunique() if len(self.differences) else 0
        return {
            "recipe": self.recipe.name,
            "measures": len(self.summary),
            "queries_differing": int(differing),
            "unexplained": self.unexplained,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per measure (index ``measure``): ``trec_eval``, ``recipe``,
        ``difference``, the largest per-query difference, ``queries_differing`` and the tie
        range. The differing queries, one row per (query, measure): :attr:`differences`."""
        return self.summary.copy()

    @property
    def unexplained(self) -> int:
        """Number of (query, measure) differences no cause accounts for."""
        if self.differences.empty:
            return 0
        return int(self.differences["causes"].str.contains("unexplained").sum())

    def failures(self, tolerance: float | None = None) -> list[str]:
        """Why a ``--strict`` check fails: unexplained differences, or an aggregate
        difference above ``tolerance`` (when given). Empty when it passes."""
        out = []
        if self.unexplained:
            out.append(f"{self.unexplained} unexplained difference(s)")
        if tolerance is not None:
            too_big = self.summary[self.summary["difference"].abs() > tolerance]
            out += [
                f"{m}: recipe and trec_eval differ by {d:+.6g} (tolerance {tolerance:g})"
                for m, d in too_big["difference"].items()
            ]
        return out

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict:
        return {
            "recipe": self.recipe.name,
            "recipe_reference": self.recipe.reference,
            "protocol": self.protocol.name if self.protocol else None,
            "recipe_ties": self.recipe_ties,
            "values_in": "fraction",
            "summary": _records(self.summary.reset_index()),
            "causes": _records(self.causes),
            "differences": _records(self.differences),
            "tie_queries": _records(self.tie_queries),
            "script_would_stop": _records(self.crashes),
            "unexplained": self.unexplained,
            "deepest_ranking": self.depth,
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(
        self,
        fmt: str,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        max_rows: int = 10,
    ) -> str:
        """The table for a terminal (``max_rows`` differing queries shown)."""
        percent = self.percent if percent is None else percent
        decimals = display_decimals(percent, self.protocol, decimals)
        lines = self._summary_lines(percent, decimals)
        if self.causes.empty:
            lines.append("no difference: the recipe and trec_eval agree on every query")
        else:
            lines += self._cause_lines()
            lines += self._difference_lines(percent, decimals, max_rows)
        lines += self._crash_lines()
        lines.append(f"unexplained differences: {self.unexplained}")
        return "\n".join(lines) + "\n"

    def _summary_lines(self, percent: bool, decimals: int) -> list[str]:
        """The heading and the per-measure summary, values scaled and rounded as shown."""
        shown = self.summary.copy()
        # rounded, then +0.0, so a difference of -1e-17 prints as 0.00, not -0.00
        factors = [percent_scale(m, percent) for m in shown.index]
        shown[_VALUE_COLUMNS] = shown[_VALUE_COLUMNS].mul(factors, axis=0).round(decimals) + 0.0
        shown, beyond = beyond_depth(shown, self.depth)
        return [
            wrap(
                f"cross-check: trec_eval vs recipe {self.recipe.name} "
                f"({self.recipe.reference}); the recipe sees tied scores in "
                f"{'the run' if self.recipe_ties == 'run_order' else 'trec_eval'}'s order"
                + (" (percent)" if percent else "")
            ),
            _indent(
                shown.rename(columns=_SHORT_NAMES).to_string(
                    float_format=lambda v: f"{v:.{decimals}f}", line_width=text_width() - 2
                )
            ),
            wrap(
                "(max|q|: largest per-query difference; n_diff: queries that differ; worst, "
                "expected, best: trec_eval's value over all orders of tied scores)",
                "  ",
            ),
        ] + [
            wrap(
                f"({label}: cut-offs beyond the longest ranking, {self.depth:,} docs: the same "
                "values, one row)",
                "  ",
            )
            for label in beyond
        ]

    def _cause_lines(self) -> list[str]:
        """Each cause found: its counts, examples and description."""
        lines = ["causes of the differences (query x measure pairs, queries, examples):"]
        for row in self.causes.itertuples():
            lines.append(
                f"  {row.cause:<22} {row.differences:>6,} {row.queries:>6,}  "
                f"{', '.join(map(plain_text, row.examples))}\n      {row.description}"
            )
        return lines

    def _difference_lines(self, percent: bool, decimals: int, max_rows: int) -> list[str]:
        """The first ``max_rows`` differing (query, measure) pairs, values scaled."""
        head = self.differences.head(max_rows).copy()
        factors = np.array([percent_scale(m, percent) for m in head["measure"]], dtype=float)
        for column in ("trec_eval", "recipe", "difference"):
            head[column] = head[column] * factors
        head["query_id"] = head["query_id"].map(plain_text)
        queries = self.differences["query_id"].nunique()
        return [
            f"differing query x measure pairs (first {len(head)} of "
            f"{len(self.differences):,}, in {queries:,} quer{'y' if queries == 1 else 'ies'}):",
            _indent(head.to_string(index=False, float_format=lambda v: f"{v:.{decimals}f}")),
        ]

    def _crash_lines(self) -> list[str]:
        """Where the paper's script would have stopped, by exception (none: no lines)."""
        if not len(self.crashes):
            return []
        lines = [
            f"the {self.recipe.name} script would have stopped on "
            f"{self.crashes['query_id'].nunique():,} queries (the recipe scores them 0):"
        ]
        for (exception, line), rows in self.crashes.groupby(["exception", "line"]):
            lines.append(
                f"  {exception} ({line}): {len(rows):,} queries, e.g. "
                + ", ".join(map(plain_text, examples_of(rows["query_id"], 3)))
            )
        return lines


def beyond_depth(shown: pd.DataFrame, depth: int | None) -> tuple[pd.DataFrame, list[str]]:
    """The summary as printed, the rows of one measure at cut-offs beyond ``depth`` (the
    longest ranking) shown as one row (``R@500-2000``) where they print the same (a 300-deep
    run's R@500, R@1000, R@2000 are R@300's ranking counted again; P@k, which divides by k,
    differs and keeps its rows); and the labels of the rows made so.

    Only what a terminal shows: the JSON keeps every measure's row."""
    if depth is None:
        return shown, []
    groups: dict[tuple, list[tuple[int, str]]] = {}
    for name in shown.index:
        (measure,) = parse_measures(name)
        cutoff = measure.params.get("cutoff")
        if cutoff is not None and cutoff > depth:
            rest = tuple(sorted((k, str(v)) for k, v in measure.params.items() if k != "cutoff"))
            groups.setdefault((measure.NAME, rest), []).append((int(cutoff), name))
    labels, dropped, renamed = [], [], {}
    for members in groups.values():
        names = [name for _, name in sorted(members)]
        rows = shown.loc[names]
        if len(names) < 2 or not (rows == rows.iloc[0]).all().all():
            continue
        label = names[0] + "-" + str(max(members)[0])
        renamed[names[0]] = label
        dropped += names[1:]
        labels.append(label)
    return shown.drop(index=dropped).rename(index=renamed), labels


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _records(frame: pd.DataFrame) -> list[dict]:
    out = []
    for record in frame.to_dict(orient="records"):
        out.append(
            {
                k: (
                    None
                    if isinstance(v, float) and math.isnan(v)
                    else list(v)
                    if isinstance(v, tuple)
                    else v
                )
                for k, v in record.items()
            }
        )
    return out
