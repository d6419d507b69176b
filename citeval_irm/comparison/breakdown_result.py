"""What :func:`~citeval_irm.comparison.breakdown.breakdown` returns: :class:`Breakdown`,
a measure's mean per group of queries with its intervals and tests, and how it prints
(text, Markdown, CSV, JSON, a report section), in a unit, with decimals and with the
groups smaller than ``min_queries`` flagged, each chosen when it is printed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ..base.choices import LISTING_FORMATS
from ..base.errors import EvalWarning, deprecated
from ..base.measures import Protocol
from ..base.options import whole_number
from ..printing.document import Report
from ..printing.escaping import csv_frame
from ..printing.printable import Printable
from ..printing.text_tables import blocks, number, render, wrap
from .facets import FACETS
from .family import (
    FEW_MARK,
    UNREACHABLE_MARK,
    Family,
    family_notes,
    few_line,
    is_unreachable,
)
from .labels import TEST_DIRECTIONS, TEST_LABELS, displayed, format_p
from .model import CompareSettings

PAIR_COLUMNS = (
    "diff",
    "ci_low",
    "ci_high",
    "ci_few",
    "p_adj",
    "significant",
    "direction",
    "reachable",
)
"""The columns of each run's comparison with the baseline in :meth:`Breakdown.to_frame`."""

MIN_QUERIES = 30
"""Groups smaller than this are flagged: their intervals are wide and their tests weak."""


@dataclass(repr=False)
class Breakdown(Printable):
    """What :func:`breakdown` found. ``groups``: one row per group (``group``, ``queries``,
    ``small``, and per run ``<run>``, ``<run> low``, ``<run> high``); ``pairs``: one row
    per group and run compared with the baseline (compare's columns, ``p_adj`` corrected
    over the whole table); ``overall``: each run's mean over every query."""

    dataset: str
    facet: str
    measure: str
    runs: list[str]
    baseline: str | None
    groups: pd.DataFrame
    pairs: pd.DataFrame
    overall: pd.Series
    percent: bool
    decimals: int
    min_queries: int
    test: str
    correction: str
    confidence: float
    warnings: list[EvalWarning] = field(default_factory=list)
    settings: CompareSettings | None = None  # as used: B raised for the family, if it was
    family: Family | None = None  # the (group, run) tests corrected together
    protocol: Protocol | None = field(default=None, repr=False)  # the unit's, the decimals'

    def displayed(
        self,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> Breakdown:
        """The breakdown as it prints in ``percent`` with ``decimals``, groups smaller than
        ``min_queries`` flagged (``small``); each default: as made."""
        if min_queries is None:
            return displayed(self, percent, decimals)
        groups = flagged(self.groups, whole_number("min_queries", min_queries, 1))
        return displayed(self, percent, decimals, min_queries=min_queries, groups=groups)

    def _summary(self) -> dict[str, object]:
        return {
            "dataset": self.dataset,
            "by": self.facet,
            "measure": self.measure,
            "runs": self.runs,
            "groups": len(self.groups),
            "baseline": self.baseline,
        }

    FORMATS = LISTING_FORMATS

    def to_frame(self) -> pd.DataFrame:
        """The groups, one row each.

        Returns
        -------
        pandas.DataFrame
            Per group: ``group``, ``queries``, ``small`` (fewer than ``min_queries``, 30
            unless :meth:`displayed` says otherwise), each run's mean and interval, and
            each run's difference with the baseline (``<run> diff``, ``<run> p_adj``, ...).
        """
        frame = self.groups.copy()
        for system in [r for r in self.runs if r != self.baseline] if self.pairs.size else []:
            rows = self.pairs[self.pairs["system"] == system].set_index("group")
            for column in PAIR_COLUMNS + (f"p_{self.test}",):
                frame[f"{system} {column}"] = frame["group"].map(rows[column])
        return frame

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "facet": self.facet,
            "facet_definition": FACETS[self.facet],
            "measure": self.measure,
            "runs": self.runs,
            "baseline": self.baseline,
            "overall": self.overall.to_dict(),
            "min_queries": self.min_queries,
            "test": self.test,
            "correction": self.correction,
            "confidence": self.confidence,
            "settings": asdict(self.settings) if self.settings else None,
            "family": asdict(self.family) if self.family else None,
            "legend": self.legend(),
            "groups": self.groups.to_dict(orient="records"),
            "pairs": self.pairs.to_dict(orient="records"),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _json(
        self,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> dict:
        return self.displayed(percent, decimals, min_queries).to_dict()

    def _render(
        self,
        fmt: str,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> str:
        """The breakdown in ``fmt``, in ``percent`` with ``decimals``, groups smaller than
        ``min_queries`` flagged."""
        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries)._render(fmt)
        if fmt == "csv":
            return csv_frame(self.to_frame())
        headers, rows = self.table()
        scale = "percent" if self.percent else "fraction"
        lines = [
            wrap(
                f"breakdown of {self.measure} ({scale}) on {self.dataset} by {self.facet}: "
                f"{FACETS[self.facet]}; {len(self.groups)} groups, "
                f"{int(self.groups['queries'].sum()):,} queries",
                "",
                fmt,
            ),
            render(headers, rows, fmt, left=1),
        ]
        lines += [wrap(line, "- " if fmt == "markdown" else "  ", fmt) for line in self.legend()]
        return blocks(lines, fmt)

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows as printed: group, size, each run's mean [interval], each
        difference from the baseline with its corrected p-value."""
        scale = 100.0 if self.percent else 1.0
        value = lambda v: number(v * scale, self.decimals)  # noqa: E731
        others = [r for r in self.runs if r != self.baseline] if len(self.runs) > 1 else []
        headers = ["group", "queries", *self.runs, *(f"{r} - {self.baseline}" for r in others)]
        pairs = self.pairs.set_index(["group", "system"]) if len(self.pairs) else self.pairs
        rows = []
        for _, row in self.groups.iterrows():
            size = f"{row['queries']:,}" + (" (small)" if row["small"] else "")
            cells = [str(row["group"]), size]
            for run in self.runs:
                low, high = value(row[f"{run} low"]), value(row[f"{run} high"])
                few = FEW_MARK if row[f"{run} few"] else ""
                cells.append(f"{value(row[run])} {few}[{low}, {high}]")
            for run in others:
                pair = pairs.loc[(row["group"], run)]
                mark = "*" if pair["significant"] else ""
                diff = number(pair["diff"] * scale, self.decimals, sign=True)
                blocked = f" {UNREACHABLE_MARK}" if is_unreachable(pair) else ""
                cells.append(f"{diff}{mark} (p={format_p(pair['p_adj'])}){blocked}")
            rows.append(cells)
        return headers, rows

    def legend(self) -> list[str]:
        level = int(round(self.confidence * 100))
        lines = [
            f"[low, high]: {level} % BCa bootstrap interval of the group's mean; "
            f"(small): fewer than {self.min_queries} queries, read with care",
            "overall: "
            + ", ".join(
                f"{r} {number(v * (100 if self.percent else 1), self.decimals)}"
                for r, v in self.overall.items()
            )
            + " (the group means weighted by their sizes)",
        ]
        few = sum(int(self.groups[f"{run} few"].sum()) for run in self.runs)
        if few:
            lines.append(few_line(few, len(self.groups) * len(self.runs), "values"))
        tested = self.family  # set whenever there are pairs: they are corrected together
        if len(self.pairs) and tested is not None:
            lines.append(
                f"difference: run minus {self.baseline}; p: {self.test} test, "
                f"{self.correction} correction over all {tested.size} (group, run) "
                f"tests{tested.left_note()}; *: significant, in the direction of the "
                f"{TEST_LABELS[self.test]}'s own statistic ({TEST_DIRECTIONS[self.test]})"
            )
            label = TEST_LABELS[self.test]
            lines += family_notes(self.pairs, tested, label, _pair_label, self.settings)
        return lines

    def section(
        self,
        key: str = "breakdown",
        extra: tuple[str, ...] = (),
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ):
        """The breakdown as a report section: its definition, the table, the legend and a
        plot of the measure by group, per run (for ``popularity``, the popularity plot);
        ``extra``: lines shown above the table; ``percent``, ``decimals``, ``min_queries``:
        as in :meth:`format`."""
        from ..printing.blocks import Figure, Items, Section, Text, table
        from ..printing.plots import Unit, group_means

        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries).section(key, extra)

        unit = Unit(self.percent)
        headers, rows = self.table()
        labels = [str(g) for g in self.groups["group"]]
        data = {
            run: {
                "mean": list(self.groups[run]),
                "low": list(self.groups[f"{run} low"]),
                "high": list(self.groups[f"{run} high"]),
            }
            for run in self.runs
        }
        figure = Figure(
            f"breakdown-{self.facet}",
            group_means(labels, data, self.measure, self.facet, unit),
            f"{self.measure} ({unit.label}) per {self.facet} group, per run, with "
            f"{int(round(self.confidence * 100))} % bootstrap intervals.",
            f"Plot of {self.measure} by {self.facet} group for {', '.join(self.runs)}",
            {"groups": labels, **data},
        )
        section = Section(key, f"{self.measure} by {self.facet}")
        return section.add(
            Text(f"{self.facet}: {FACETS[self.facet]}."),
            Items(tuple(extra)) if extra else None,
            table(key, headers, rows, left=1),
            Items(tuple(self.legend())),
            figure,
        )

    def write_report(
        self,
        path: str | Path,
        *,
        command: str | None = None,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> Path:
        """Write the breakdown as a report page, as :meth:`format` prints it.

        Parameters
        ----------
        path : str or Path
            ``.html`` / ``.htm`` for HTML, ``.md`` for Markdown; written beside it and
            renamed into place, never half-written.
        command : str, optional
            The command that made it, the way to repeat it (its last section).
        percent, decimals, min_queries : optional
            As :meth:`format` takes them (default: as made).

        Returns
        -------
        Path
            The file written.
        """
        return self._report(command, percent, decimals, min_queries).write(path)

    def report(
        self,
        command: str | None = None,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> Report:
        """Deprecated: the report is written by :meth:`write_report` (removed in the next
        release)."""
        deprecated(
            "Breakdown.report()",
            "Breakdown.write_report(path, command=..., percent=..., decimals=..., min_queries=...)",
        )
        return self._report(command, percent, decimals, min_queries)

    def _report(
        self,
        command: str | None,
        percent: bool | None,
        decimals: int | None,
        min_queries: int | None,
    ) -> Report:
        """The breakdown as a report document (HTML or Markdown)."""

        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries)._report(command, None, None, None)
        summary = f"breakdown of {self.measure} on {self.dataset} by {self.facet}"
        return Report(f"citeval breakdown: {self.dataset}", summary, [self.section()], command)


def _pair_label(row) -> str:
    return f"{row.system} on {row.group}"


def flagged(groups: pd.DataFrame, min_queries: int) -> pd.DataFrame:
    """``groups`` with ``small`` (right after ``queries``): fewer than ``min_queries``."""
    groups = groups.drop(columns="small", errors="ignore")
    if "queries" in groups:
        groups.insert(
            groups.columns.get_loc("queries") + 1, "small", groups["queries"] < min_queries
        )
    return groups
