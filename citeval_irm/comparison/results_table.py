"""``results_table``: a paper's results table from a manifest of runs, in one call.

The manifest (CSV or TSV, columns ``system, dataset, run``; run paths relative to the
manifest) lists each system's run on each dataset; a run file named ``.jsonl`` (or
``.ndjson``) holds generated reference lists, resolved first (:func:`citeval_irm.resolve`,
with ``catalogue`` and ``threshold``): its resolved run is validated and evaluated as any
run, and its rates (``in_pool_rate``, ...) are columns after the field's measures, tested
against a baseline that has them (:mod:`citeval_irm.comparison.resolutions`). Every run is
validated against its
dataset (:func:`citeval_irm.validate`, with the measures it is evaluated with) and
evaluated with the dataset's protocol (or the one given), the runs in parallel (processes,
or the workers of a Dask cluster). On each dataset every system that obeys the protocol is
compared with the baseline by :func:`citeval_irm.compare` (its paired tests over every qrels
query, a query a run does not rank scoring 0, as the cells do), and the p-values of the
whole table are corrected together. A run that breaks the protocol is shown, marked, and
neither compared nor ranked best; a system without a run on a dataset is shown as missing.
``paper=PAPER`` interleaves the paper's published rows (marked, never ranked) with the
like-for-like verdict of :mod:`citeval_irm.checks.published` per dataset in a footnote.
The table prints as text and Markdown (a column group per dataset, the legend under it),
LaTeX (booktabs, the published rows after a rule, in italics, the legend as the caption)
and CSV (its cells, tidy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ..base.choices import TABLE_FORMATS, TESTS, check_choice
from ..base.errors import EvalWarning, InputError, deprecated, issue
from ..base.measures import Protocol
from ..base.options import (
    EvalOptions,
    ExecutionOptions,
    StatisticsOptions,
    boolean,
    display_decimals,
    display_percent,
    options_from,
)
from ..printing.document import Report
from ..printing.escaping import csv_frame, latex_label, latex_text
from ..printing.printable import Printable
from ..printing.text_tables import blocks, render, wrap
from .family import Family
from .labels import displayed
from .manifest import read_manifest
from .model import CompareSettings
from .table_marks import LATEX_MARKS, best_systems, cell_text, table_legend
from .table_runs import baseline_tests, cell_values, evaluated_runs, published_rows, with_tests

__all__ = ["ResultsTable", "results_table"]


@dataclass(repr=False)
class ResultsTable(Printable):
    """A paper's results table: systems (rows) by datasets (column groups) by measures.

    ``values``: one row per (system, dataset, measure) with ``value`` (a fraction; ``NaN``
    when missing), ``status`` (``ok``, ``missing``, ``violation``, or ``published``), and,
    for systems compared with the baseline, compare's ``diff``, ``p`` and ``p_adj``
    (corrected over the whole table) and ``significant``. ``notes``: the footnotes."""

    datasets: list[str]
    measures: dict[str, list[str]]
    systems: list[str]
    published_systems: list[str]
    values: pd.DataFrame
    baseline: str | None
    test: str
    correction: str
    alpha: float
    percent: bool
    decimals: int
    notes: list[str] = field(default_factory=list)
    warnings: list[EvalWarning] = field(default_factory=list)
    results: dict = field(default_factory=dict, repr=False)
    validations: dict = field(default_factory=dict, repr=False)
    settings: CompareSettings | None = None  # the tests' settings, B as used (None: no tests)
    family: Family | None = None  # the tests corrected together
    protocol: Protocol | None = field(default=None, repr=False)  # the unit's, the decimals'

    def _summary(self) -> dict[str, object]:
        measures = {m for names in self.measures.values() for m in names}
        return {
            "datasets": self.datasets,
            "systems": self.systems,
            "measures": len(measures),
            "baseline": self.baseline,
            "published_systems": len(self.published_systems),
        }

    FORMATS = TABLE_FORMATS

    def value(self, system: str, dataset: str, measure: str) -> float | None:
        """The cell's value as a fraction (``None``: missing)."""
        row = self.values[
            (self.values["system"] == system)
            & (self.values["dataset"] == dataset)
            & (self.values["measure"] == measure)
        ]
        if row.empty or pd.isna(row["value"].iloc[0]):
            return None
        return float(row["value"].iloc[0])

    def to_frame(self) -> pd.DataFrame:
        """The table's cells, tidy.

        Returns
        -------
        pandas.DataFrame
            One row per (system, dataset, measure): ``value`` (a fraction), ``status``, and
            for the systems compared with the baseline ``diff``, ``p``, ``p_adj`` and
            ``significant``. The table as printed: :meth:`wide`.
        """
        return self.values.copy()

    def wide(self) -> pd.DataFrame:
        """The table as printed: systems by (dataset, measure), fractions, NaN if missing."""
        frame = self.values.pivot_table(
            index="system",
            columns=["dataset", "measure"],
            values="value",
            dropna=False,
            sort=False,
        )
        columns = [(d, m) for d in self.datasets for m in self.measures[d]]
        return frame.reindex(index=self.systems + self.published_systems, columns=columns)

    def to_dict(self) -> dict:
        return {
            "datasets": self.datasets,
            "measures": self.measures,
            "systems": self.systems,
            "published_systems": self.published_systems,
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "settings": asdict(self.settings) if self.settings else None,
            "family": asdict(self.family) if self.family else None,
            "legend": self.legend(),
            "unit": "percent" if self.percent else "fraction",
            "cells": [
                {k: (None if isinstance(v, float) and pd.isna(v) else v) for k, v in row.items()}
                for row in self.values.to_dict(orient="records")
            ],
            "notes": self.notes,
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def legend(self) -> list[str]:
        """What the values and marks mean, one sentence a line, then the notes."""
        return table_legend(self)

    def write_report(
        self,
        path: str | Path,
        *,
        command: str | None = None,
        percent: bool | None = None,
        decimals: int | None = None,
    ) -> Path:
        """Write the table and a plot per dataset (each system's values) as a report page.

        Parameters
        ----------
        path : str or Path
            ``.html`` / ``.htm`` for HTML, ``.md`` for Markdown; written beside it and
            renamed into place, never half-written.
        command : str, optional
            The command that made it, the way to repeat it (its last section).
        percent, decimals : optional
            As :meth:`format` takes them (default: as made).

        Returns
        -------
        Path
            The file written.
        """
        return self._report(command, percent, decimals).write(path)

    def report(
        self,
        command: str | None = None,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
    ) -> Report:
        """Deprecated: the report is written by :meth:`write_report` (removed in the next
        release)."""
        deprecated(
            "ResultsTable.report()",
            "ResultsTable.write_report(path, command=..., percent=..., decimals=...)",
        )
        return self._report(command, percent, decimals)

    def _report(self, command: str | None, percent: bool | None, decimals: int | None) -> Report:
        """The table and a plot per dataset, as one report document."""
        from ..printing.blocks import Figure, Section, Text, table
        from ..printing.plots import Unit, system_scores

        if percent is not None or decimals is not None:
            return displayed(self, percent, decimals)._report(command, None, None)

        unit = Unit(self.percent)
        rows = [[cell.replace("**", "") for cell in row] for row in self._cells(latex=False)]
        headers = ["system"] + [f"{d} {m}" for d in self.datasets for m in self.measures[d]]
        section = Section("table", "Results")
        section.add(table("results-table", headers, rows, left=1), Text(" ".join(self.legend())))
        plots = Section("datasets", "Per dataset")
        wide = self.wide()
        for dataset in self.datasets:
            names = [
                s
                for s in self.systems
                if wide.loc[s, (dataset, self.measures[dataset][0])]
                == wide.loc[s, (dataset, self.measures[dataset][0])]
            ]
            data = {
                s: [float(wide.loc[s, (dataset, m)]) for m in self.measures[dataset]] for s in names
            }
            plots.add(
                Figure(
                    f"dataset-{dataset}",
                    system_scores(self.measures[dataset], data, dataset, unit),
                    f"{dataset}: each system's {', '.join(self.measures[dataset])} "
                    f"({unit.label}); systems without a run are left out.",
                    f"Bar chart of the systems' values on {dataset}",
                    {"measures": self.measures[dataset], **data},
                )
            )
        summary = f"{len(self.systems)} systems on {len(self.datasets)} datasets"
        return Report("citeval table", summary, [section, plots], command)

    # ----------------------------------------------------------------- formats
    def _json(self, *, percent: bool | None = None, decimals: int | None = None) -> dict:
        return displayed(self, percent, decimals).to_dict()

    def _render(self, fmt: str, *, percent: bool | None = None, decimals: int | None = None) -> str:
        """The table in ``fmt``, in ``percent`` (default: as made, the protocol's unit)
        with ``decimals``."""
        if percent is not None or decimals is not None:
            return displayed(self, percent, decimals)._render(fmt)
        if fmt == "csv":
            return csv_frame(self.values)
        if fmt == "latex":
            return self._latex()
        bullet = "- " if fmt == "markdown" else "  "
        rows = self._cells(latex=False)
        if fmt == "markdown":
            headers = ["system"] + [f"{d} {m}" for d in self.datasets for m in self.measures[d]]
            table = render(headers, rows, "markdown")
        else:
            rows = [[cell.replace("**", "") for cell in row] for row in rows]
            groups = ["system"]
            for dataset in self.datasets:
                groups += [dataset] + [""] * (len(self.measures[dataset]) - 1)
            measures = [""] + [m for d in self.datasets for m in self.measures[d]]
            table = render(groups, [measures, *rows])
        return blocks([table] + [wrap(line, bullet, fmt) for line in self.legend()], fmt)

    def _latex(self) -> str:
        """A booktabs table: a column group per dataset (cmidrule under its name), the
        published rows after a rule, in italics; the legend as the caption."""
        widths = [len(self.measures[d]) for d in self.datasets]
        spec = "l" + "".join("r" * w for w in widths)
        groups, rules, start = ["system"], [], 2
        for dataset, width in zip(self.datasets, widths):
            groups.append(f"\\multicolumn{{{width}}}{{c}}{{{latex_text(dataset)}}}")
            rules.append(f"\\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        measures = [""] + [latex_text(m) for d in self.datasets for m in self.measures[d]]
        rows = self._cells(latex=True)
        ours, published = rows[: len(self.systems)], rows[len(self.systems) :]
        lines = [
            "\\begin{table}",
            "\\centering",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(groups) + " \\\\",
            " ".join(rules),
            " & ".join(measures) + " \\\\",
            "\\midrule",
            *(" & ".join(r) + " \\\\" for r in ours),
        ]
        if published:
            lines += ["\\midrule", *(" & ".join(r) + " \\\\" for r in published)]
        legend = latex_text("; ".join(self.legend()))  # the marks are no LaTeX specials
        for mark, latex in LATEX_MARKS.items():
            legend = legend.replace(mark, latex)
        label = latex_label("table", *self.systems, "", *self.datasets, repr(self.measures))
        lines += [
            "\\bottomrule",
            "\\end{tabular}",
            f"\\caption{{{legend}}}",
            f"\\label{{{label}}}",
            "\\end{table}",
        ]
        return "\n".join(lines) + "\n"

    def _cells(self, latex: bool) -> list[list[str]]:
        """One row of formatted cells per system (ours, then the published ones)."""
        scale = 100.0 if self.percent else 1.0
        indexed = self.values.set_index(["system", "dataset", "measure"])
        best = best_systems(self.values)
        rows = []
        for system in self.systems + self.published_systems:
            published = system in self.published_systems
            label = f"{system} (published)" if published else system
            cells = [latex_text(label) if latex else label]
            for dataset in self.datasets:
                for measure in self.measures[dataset]:
                    key = (system, dataset, measure)
                    cell = indexed.loc[key] if key in indexed.index else None
                    bold = best.get((dataset, measure)) == system
                    cells.append(cell_text(cell, scale, self.decimals, bold, latex, measure))
            rows.append(cells)
        return rows


def results_table(
    manifest,
    measures=None,
    *,
    protocol=None,
    baseline: str | None = None,
    paper=None,
    same_year: bool = True,
    resolving: Mapping | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
    statistics: StatisticsOptions | None = None,
) -> ResultsTable:
    """The results table of the runs a manifest lists, tested per dataset.

    The table a paper prints, made from the runs themselves: every run validated and
    evaluated the same way, with significance against a baseline and, if asked, the
    published rows beside them.

    Parameters
    ----------
    manifest : path or iterable of rows
        A CSV / TSV path, or rows of ``system, dataset, run``.
    measures : str, Measure or iterable, optional
        What every run is evaluated with. Default: each dataset's own protocol.
    protocol : str or Protocol, optional
        A paper's protocol, for every dataset.
    baseline : str, optional
        The system the others are compared with on each dataset.
    paper : str, path or DataFrame, optional
        A paper (``"goyal2026"``) whose published rows are interleaved where it has a table
        for the dataset, or a table of your own (a CSV path or DataFrame with the shipped
        columns); the footnote says where the figures come from.
    same_year : bool, default True
        Whether papers of the query paper's own year are admissible (the validation).
    resolving : dict, optional
        How the generated lists a manifest names (``.jsonl``) are resolved,
        ``{"catalogue": FILE, "threshold": 90}`` as in :func:`citeval_irm.resolve`
        (default: no catalogue, its threshold).
    options : EvalOptions, optional
        What every run's numbers mean, as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        How they are computed: ``jobs`` runs at once in processes, or with
        ``engine="dask"`` on the workers of the cluster at ``scheduler``.
    statistics : StatisticsOptions, optional
        ``test`` and ``correction`` as in :func:`citeval_irm.compare`, the correction over
        every test of the table.

    Returns
    -------
    ResultsTable
        A row per (dataset, system), a column per measure, significance marks;
        ``format(fmt, percent=..., decimals=...)`` prints it.

    Examples
    --------
    >>> import citeval_irm
    >>> rows = [
    ...     {"system": "bm25", "dataset": "citeval/demo/test", "run": "bm25.trec"},
    ...     {"system": "titles", "dataset": "citeval/demo/test", "run": "titles.trec"},
    ... ]
    >>> table = citeval_irm.results_table(rows, baseline="bm25")  # doctest: +SKIP
    """
    from .compare import compare_settings

    same_year = boolean("same_year", same_year)
    options, execution, statistics = options_from(
        "results_table",
        (options, EvalOptions),
        (execution, ExecutionOptions),
        (statistics, StatisticsOptions),
    )
    check_choice("test", statistics.test, TESTS)  # a paired test: the Tukey HSD marks no baseline
    entries = read_manifest(manifest)
    systems = list(dict.fromkeys(e.system for e in entries))
    if baseline is not None and baseline not in systems:
        raise InputError(
            None, f"baseline {baseline!r} is not a system of the manifest: {', '.join(systems)}"
        )
    resolving = _resolving(resolving)
    runs = evaluated_runs(entries, measures, protocol, options, execution, same_year, resolving)
    values, notes, warnings = cell_values(runs)
    found = None
    if baseline is not None:
        found = baseline_tests(
            runs, baseline, notes, compare_settings(statistics, "all", options.ties)
        )
        warnings += found.warnings
        issue(found.warnings)  # B raised for the family, as compare says
        values = with_tests(values, found, statistics.test)
    published_systems: list[str] = []
    if paper is not None:
        extra, published_systems, verdicts = published_rows(paper, runs, protocol)
        values = pd.concat([values, extra], ignore_index=True) if len(extra) else values
        notes += verdicts
    first = next(iter(runs.results.values()))
    percent = display_percent(None, first.protocol)
    return ResultsTable(
        datasets=runs.datasets,
        measures=runs.measures,
        systems=runs.systems,
        published_systems=published_systems,
        values=values,
        baseline=baseline,
        test=statistics.test,
        correction=statistics.correction,
        alpha=statistics.alpha,
        percent=percent,
        decimals=display_decimals(percent, first.protocol),
        notes=notes,
        warnings=warnings,
        results=runs.results,
        validations={k: f.validation for k, f in runs.facts.items()},
        settings=found.settings if found else None,
        family=found.family if found else None,
        protocol=first.protocol,
    )


def _resolving(resolving: Mapping | None) -> dict:
    """How generated lists are resolved: ``catalogue`` and ``threshold``, those given."""
    resolving = {k: v for k, v in dict(resolving or {}).items() if v is not None}
    unknown = set(resolving) - {"catalogue", "threshold"}
    if unknown:
        raise InputError(None, f"resolving takes catalogue and threshold, not {sorted(unknown)}")
    return resolving
