"""Runs beside one published table (:class:`PublishedComparison`): the values side by
side, the differences, the like-for-like checks, and their text, JSON and LaTeX rows."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from ...printing.escaping import latex_text
from ...printing.printable import Printable
from ...printing.text_tables import blocks, render, wrap
from ...printing.text_tables import number as _number
from .consistency import MARK
from .like_for_like import DIFFERS, SAME, Check
from .tables import Paper


@dataclass(repr=False)
class PublishedComparison(Printable):
    """Runs beside one published table, with what makes the comparison like for like or not.

    ``yours``: measures (rows) by runs, ``figures``: measures by published systems, both in
    the table's unit (percent for goyal2026); ``checks``: one :class:`Check` per aspect
    (dataset, split, and per run setting, validation, depth); ``impossible``: the published
    systems whose row no rank distribution gives as printed, and why
    (:func:`.check.impossible_rows`); ``bounds``: for each measure of the runs the table does
    not report, the interval each system's reported values allow (``measure, system, low,
    high, run, yours``; one gold paper per query only).
    """

    paper: Paper
    dataset: str
    split: str
    setting: str
    stage: str
    source: str
    yours: pd.DataFrame
    figures: pd.DataFrame
    checks: list[Check]
    notes: list[str]
    impossible: dict[str, str] = field(default_factory=dict)
    bounds: pd.DataFrame = field(default_factory=pd.DataFrame)

    def _summary(self) -> dict[str, object]:
        return {
            "paper": self.paper.name,
            "dataset": self.dataset,
            "stage": self.stage,
            "runs": [str(r) for r in self.yours.columns],
            "systems": len(self.figures.columns),
            "like_for_like": self.like_for_like,
        }

    @property
    def like_for_like(self) -> bool:
        """True only when every aspect was checked and is the same."""
        return all(check.status == SAME for check in self.checks)

    def differences(self) -> pd.DataFrame:
        """Yours minus published: one row per (measure, run), one column per system."""
        index = pd.MultiIndex.from_product(
            [self.yours.index, self.yours.columns], names=["measure", "run"]
        )
        rows = [self.figures.loc[m].rsub(self.yours.at[m, r]) for m, r in index]
        return pd.DataFrame(rows, index=index, columns=self.figures.columns)

    def to_frame(self) -> pd.DataFrame:
        """One row per measure, run and published system: ``yours``, ``published`` and
        ``difference``, in the table's unit."""
        rows = [
            {
                "measure": measure,
                "run": run,
                "system": system,
                "yours": self.yours.at[measure, run],
                "published": self.figures.at[measure, system],
                "difference": self.yours.at[measure, run] - self.figures.at[measure, system],
            }
            for measure in self.yours.index
            for run in self.yours.columns
            for system in self.figures.columns
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "paper": self.paper.name,
            "reference": self.paper.reference,
            "provenance": self.paper.provenance,
            "dataset": self.dataset,
            "split": self.split,
            "setting": self.setting,
            "stage": self.stage,
            "unit": self.paper.unit,
            "like_for_like": self.like_for_like,
            "checks": [check.__dict__ for check in self.checks],
            "notes": list(self.notes),
            "impossible": dict(self.impossible),
            "bounds": self.bounds.to_dict(orient="records"),
            "rows": self.to_frame().to_dict(orient="records"),
        }

    def title(self) -> str:
        authors = self.paper.reference.split(",")[0]
        return (
            f"beside the published results: {authors}, {self.source}: {self.dataset}, "
            f"{self.split} split, {self.setting} setting, {self.stage} stage "
            f"({self.paper.unit}); figures {self.paper.provenance}"
        )

    def verdict(self) -> str:
        """One line: like for like, not, or not established."""
        if self.like_for_like:
            return "like for like: yes, every aspect checked"
        if any(check.status == DIFFERS for check in self.checks):
            return "like for like: NO"
        return "like for like: not established (some aspects could not be checked)"

    FORMATS = ("table", "markdown", "json")

    def _render(self, fmt: str) -> str:
        """``table`` or ``markdown``: the values side by side, the differences, the checks."""
        side, gaps = self.side_by_side(), self.difference_table()
        lines = [wrap(self.title(), "", fmt), render(*side, fmt)]
        lines.append("difference (yours - published):")
        lines.append(render(*gaps, fmt, left=2))
        bullet = "- " if fmt == "markdown" else "  "
        lines += [
            wrap(f"{MARK} {system}: {why}", "", fmt) for system, why in self.impossible.items()
        ]
        if len(self.bounds):
            lines.append(
                "not reported: the values each system's reported ones allow "
                "(one gold paper a query):"
            )
            lines.append(render(*self.bounds_table(), fmt, left=2))
        lines.append(wrap(self.verdict(), "", fmt))
        lines += [wrap(str(check), bullet, fmt) for check in self.checks]
        lines += [wrap(f"note: {note}", bullet, fmt) for note in self.notes]
        return blocks(lines, fmt)

    def side_by_side(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of the runs' values beside the published ones, as printed."""
        number = functools.partial(_number, decimals=self.paper.decimals)
        rows = [
            [
                m,
                *(number(self.yours.at[m, r]) for r in self.yours.columns),
                *(number(v) for v in self.figures.loc[m]),
            ]
            for m in self.yours.index
        ]
        systems = [self._shown(system) for system in self.figures.columns]
        return ["measure", *self.yours.columns, *systems], rows

    def bounds_table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of :attr:`bounds`: per measure and run, the run's value and, per
        system that does not report the measure, the interval its reported values allow;
        the last column names the systems the run is above (or below) whatever their value
        in that interval, and only those."""
        decimals = self.paper.decimals
        systems = list(dict.fromkeys(self.bounds["system"]))
        rows = []
        for (measure, run), part in self.bounds.groupby(["measure", "run"], sort=False):
            yours = float(part["yours"].iloc[0])
            cells = dict.fromkeys(systems, "")
            above, below = [], []
            for r in part.itertuples():
                cells[r.system] = f"[{_number(r.low, decimals)}, {_number(r.high, decimals)}]"
                if yours > r.high:
                    above.append(r.system)
                elif yours < r.low:
                    below.append(r.system)
            verdict = (
                "; ".join(
                    f"{word} {', '.join(names)}"
                    for word, names in (("above", above), ("below", below))
                    if names
                )
                or "inside every interval: cannot tell"
            )
            rows.append([measure, run, _number(yours, decimals), *cells.values(), verdict])
        headers = ["measure", "run", "yours", *(self._shown(s) for s in systems), "yours is"]
        return headers, rows

    def _shown(self, system: str) -> str:
        """A system's name as every output shows it: marked when its row is impossible."""
        return f"{system} {MARK}" if system in self.impossible else system

    def difference_table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of yours minus published, one row per (measure, run)."""
        diff = self.differences()
        rows = [
            [m, r, *(_number(v, self.paper.decimals, sign=True) for v in diff.loc[(m, r)])]
            for m, r in diff.index
        ]
        return ["measure", "run", *(self._shown(s) for s in self.figures.columns)], rows

    def latex_rows(
        self, columns: list[str], best: Mapping[str, float] | None = None
    ) -> list[list[str]]:
        """The published systems as LaTeX rows over ``columns`` (measures; "--" if absent);
        a figure equal to ``best`` (fractions by measure) in bold. Only a like-for-like
        comparison ranks published rows with the runs: otherwise give no ``best``."""
        unit = 100.0 if self.paper.percent else 1.0
        rows = []
        for system in self.figures.columns:
            cells = []
            for m in columns:
                if m not in self.figures.index:
                    cells.append("--")
                    continue
                value = self.figures.at[m, system]
                text = _number(value, self.paper.decimals)
                top = best is not None and m in best and value / unit >= best[m]
                cells.append(f"\\textbf{{{text}}}" if top else text)
            rows.append([latex_text(f"{self._shown(system)} (published)"), *cells])
        return rows
