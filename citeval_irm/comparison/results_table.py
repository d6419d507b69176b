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
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..base.choices import TABLE_FORMATS, TESTS, check_choice
from ..base.errors import CitevalError, EvalWarning, InputError, issue, silenced
from ..base.options import EvalOptions, StatisticsOptions, options_from
from ..base.texts import read_utf8
from ..printing.escaping import Markup, csv_frame, latex_label, latex_text
from ..printing.printable import Printable
from ..printing.text_tables import blocks, number, render, wrap
from ..resolving.result import LOWER_IS_BETTER, RATES
from . import family
from .family import Family, family_notes
from .labels import TEST_DIRECTIONS, TEST_LABELS
from .model import CompareSettings
from .resolutions import rate_legend, table_measures

MANIFEST_COLUMNS = ("system", "dataset", "run")
OK, MISSING, VIOLATION, FLAGGED = "ok", "missing", "violation", "flagged"
# significance against the baseline; protocol broken; gold possibly inserted (a warning)
BETTER, WORSE, BROKEN, ORACLE = "▲", "▼", "†", "‡"
ORACLE_MEANS = (
    "the run holds the gold paper in nearly every ranking that could miss it (validate's "
    "gold_always_present: an oracle first stage?)"
)  # what ORACLE stands for, in every table that shows a flagged run
_LATEX_MARKS = {
    BETTER: r"$^{\uparrow}$",
    WORSE: r"$^{\downarrow}$",
    BROKEN: r"$^{\dagger}$",
    ORACLE: r"$^{\ddagger}$",
}


@dataclass(frozen=True)
class Entry:
    """One manifest row: the system, the dataset id, the run's path, the manifest line."""

    system: str
    dataset: str
    run: Path
    line: int


def read_manifest(manifest) -> list[Entry]:
    """The rows of a manifest file (CSV, or TSV when its header has a tab), or of a
    DataFrame / list of dicts with the same columns (paths then relative to the current
    folder). Bad rows, unknown datasets and missing run files are errors naming the line."""
    from ..datasets.registry import find_dataset

    if isinstance(manifest, (str, Path)):
        path = Path(manifest)
        if not path.is_file():
            raise InputError(str(path), "no such manifest file")
        text = read_utf8(path)
        source, folder = str(path), path.parent
        delimiter = "\t" if "\t" in text.split("\n", 1)[0] else ","
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)]
        rows = [(n, line) for n, line in lines if line.strip() and not line.startswith("#")]
        if not rows:
            raise InputError(source, "the manifest is empty: give a header system, dataset, run")
        parsed = list(csv.reader([line for _, line in rows], delimiter=delimiter))
        numbers = [n for n, _ in rows]
        header = [cell.strip().lower() for cell in parsed[0]]
        records = [
            (numbers[i], dict(zip(header, (c.strip() for c in cells)))) if len(cells) == len(header)
            else (numbers[i], len(cells))
            for i, cells in enumerate(parsed[1:], 1)
        ]  # fmt: skip
        header_line = numbers[0]
    else:
        frame = pd.DataFrame(manifest)
        source, folder, header_line = "<manifest>", Path.cwd(), 1
        header = [str(c).strip().lower() for c in frame.columns]
        records = [
            (n, dict(zip(header, (str(v).strip() for v in row))))
            for n, row in enumerate(frame.itertuples(index=False), 2)
        ]
    missing = [c for c in MANIFEST_COLUMNS if c not in header]
    unknown = [c for c in header if c not in MANIFEST_COLUMNS]
    if missing or unknown:
        problem = f"missing column(s) {', '.join(missing)}" if missing else ""
        problem += ("; " if missing and unknown else "") + (
            f"unknown column(s) {', '.join(unknown)}" if unknown else ""
        )
        raise InputError(
            source, f"{problem}: the columns are {', '.join(MANIFEST_COLUMNS)}", header_line
        )
    entries: list[Entry] = []
    seen: dict[tuple[str, str], int] = {}
    known: dict[str, bool] = {}
    for line, record in records:
        if isinstance(record, int):
            raise InputError(source, f"{record} fields, the header has {len(header)}", line)
        empty = [c for c in MANIFEST_COLUMNS if not record[c]]
        if empty:
            raise InputError(source, f"empty {', '.join(empty)}", line)
        system, dataset, run = (record[c] for c in MANIFEST_COLUMNS)
        if (system, dataset) in seen:
            raise InputError(
                source,
                f"{system} on {dataset} is listed twice (first on line {seen[system, dataset]})",
                line,
            )
        seen[system, dataset] = line
        if dataset not in known:
            try:
                found = find_dataset(dataset)
            except CitevalError as exc:
                raise InputError(source, getattr(exc, "problem", str(exc)), line) from None
            if found is None:
                raise InputError(source, f"unknown dataset {dataset!r}", line)
            known[dataset] = True
        path = Path(run) if Path(run).is_absolute() else folder / run
        if not path.exists():
            raise InputError(source, f"run file {run} not found (looked for {path})", line)
        entries.append(Entry(system, dataset, path, line))
    if not entries:
        raise InputError(source, "the manifest lists no run")
    return entries


def _evaluate_entry(entry: Entry, measures, protocol, options: EvalOptions, same_year: bool,
                    resolving: dict | None = None):  # fmt: skip
    """Validate then evaluate one run (in this process, a worker process or on a Dask
    worker), generated lists resolved first (``resolving``: resolve's keywords): its
    evaluation (a resolution, for generated lists) and what the comparison with published
    results needs."""
    from .resolutions import generated_validation, is_generated, resolved_entry
    from .runs import RunEvidence, run_validation, validated_evaluation

    if not is_generated(entry.run):
        return validated_evaluation(entry.run, entry.dataset, measures, protocol, options,
                                    dataset=entry.dataset, same_year=same_year)  # fmt: skip
    with silenced():  # the table carries the warnings, counted, once
        result = resolved_entry(entry.run, entry.dataset, measures, protocol, options,
                                resolving or {})  # fmt: skip
        validation = run_validation(result.run, entry.dataset, measures, protocol, options,
                                    same_year)  # fmt: skip
    return result, RunEvidence.ranked_by(result.evaluation, generated_validation(validation))


def _protocol_of(dataset: str, protocol):
    """The protocol a dataset's runs are evaluated with: the one given, else its own."""
    from ..checks.protocol import dataset_protocol
    from ..datasets.registry import find_dataset

    return protocol if protocol is not None else dataset_protocol(find_dataset(dataset)[1])


def _evaluate_all(entries, measures, protocol, options: EvalOptions, same_year, jobs,
                  resolving=None):  # fmt: skip
    """Every entry evaluated: in this process (``jobs=1``), in ``jobs`` processes, or on
    a Dask cluster (``engine="dask"``); results in manifest order."""
    from .fanout import fan_out, per_run_options

    each = per_run_options(options)
    work = [
        (entry, measures, _protocol_of(entry.dataset, protocol), each, same_year, resolving)
        for entry in entries
    ]
    for entry, m, p, *_ in work:
        if m is None and p is None:
            raise InputError(
                None, f"{entry.dataset} (manifest line {entry.line}) names no protocol: give "
                "measures or a protocol"
            )  # fmt: skip
    return fan_out(_evaluate_entry, work, options, processes=jobs)


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
            index="system", columns=["dataset", "measure"], values="value", dropna=False,
            sort=False,
        )  # fmt: skip
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

    # ----------------------------------------------------------------- rendering

    def _cells(self, latex: bool) -> list[list[str]]:
        """One row of formatted cells per system (ours, then the published ones)."""
        scale = 100.0 if self.percent else 1.0
        indexed = self.values.set_index(["system", "dataset", "measure"])
        best = self._best()
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
                    cells.append(self._cell(cell, scale, bold, latex, measure))
            rows.append(cells)
        return rows

    def _cell(self, cell, scale: float, bold: bool, latex: bool, measure: str = "") -> str:
        if cell is None or pd.isna(cell["value"]):
            return "--" if latex else "-"
        text = number(cell["value"] * scale, self.decimals)
        marks = ""
        marks += {VIOLATION: BROKEN, FLAGGED: ORACLE}.get(cell["status"], "")
        significant = cell.get("significant")
        if not pd.isna(significant) and bool(significant):  # NaN: not tested
            better = cell["direction"] > 0  # the test's own direction; lower is better for
            better = not better if measure in LOWER_IS_BETTER else better  # duplicate_rate
            marks += BETTER if better else WORSE
        if latex:
            text = f"\\textbf{{{text}}}" if bold else text
            text = f"\\textit{{{text}}}" if cell["status"] == "published" else text
            return text + "".join(_LATEX_MARKS[m] for m in marks)
        return Markup(f"**{text}**{marks}") if bold else text + marks  # marks: ▲ ▼ † ‡

    def _best(self) -> dict[tuple[str, str], str]:
        """The best own system per (dataset, measure): obeying the protocol and not flagged
        by ``gold_always_present``, never a published row; none where two tie."""
        ours = self.values[(self.values["status"] == OK) & self.values["value"].notna()]
        best = {}
        for (dataset, measure), group in ours.groupby(["dataset", "measure"], sort=False):
            low = measure in LOWER_IS_BETTER
            top = group[group["value"] == (group["value"].min() if low else group["value"].max())]
            if len(top) == 1 and len(group) > 1:
                best[dataset, measure] = top["system"].iloc[0]
        return best

    def legend(self) -> list[str]:
        scale = "percent" if self.percent else "fraction"
        lines = [
            f"values: {scale}, trec_eval semantics; best own system per column in bold "
            "(Markdown, LaTeX)"
        ]
        tests = self.family is not None and self.family.size + self.family.left_out > 0
        if self.baseline is not None and tests:
            label = TEST_LABELS[self.test]
            lines.append(
                f"{BETTER} / {WORSE}: significantly better / worse than {self.baseline} on that "
                f"dataset ({label} over every qrels query, in the direction of its own "
                f"statistic: {TEST_DIRECTIONS[self.test]}; p < {self.alpha} after "
                f"{self.correction} correction over all {self.family.size} tests of the "
                f"table{self.family.left_note()})"
            )
            tested = self.values[self.values["p"].notna()] if "p" in self.values else None
            if tested is not None:
                lines += family_notes(tested, self.family, label, _cell_label, self.settings)
        if (self.values["status"] == VIOLATION).any():
            lines.append(f"{BROKEN}: the run breaks the dataset's protocol: not compared, not bold")
        if (self.values["status"] == FLAGGED).any():
            lines.append(f"{ORACLE}: {ORACLE_MEANS}: compared, not bold")
        if (self.values["status"] == MISSING).any():
            lines.append("-: no run of that system on that dataset")
        rates = [m for m in RATES if (self.values["measure"] == m).any()]
        if rates:
            lines.append(rate_legend(rates))
        return lines + self.notes

    def _render(self, fmt: str) -> str:
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
        for mark, latex in _LATEX_MARKS.items():
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

    def report(self, command: str | None = None):
        """The table and a plot per dataset (each system's values), as one report."""
        from ..printing.blocks import Figure, Section, Text, table
        from ..printing.document import command_report
        from ..printing.plots import Unit, system_scores

        unit = Unit(self.percent)
        rows = [[cell.replace("**", "") for cell in row] for row in self._cells(latex=False)]
        headers = ["system"] + [f"{d} {m}" for d in self.datasets for m in self.measures[d]]
        section = Section("table", "Results")
        section.add(table("results-table", headers, rows, left=1), Text(" ".join(self.legend())))
        plots = Section("datasets", "Per dataset")
        wide = self.wide()
        for dataset in self.datasets:
            names = [s for s in self.systems if wide.loc[s, (dataset, self.measures[dataset][0])]
                     == wide.loc[s, (dataset, self.measures[dataset][0])]]  # fmt: skip
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
        return command_report("citeval table", summary, [section, plots], command)


def _status(result, validation) -> str:
    """A cell's status: no run, a run that breaks the protocol, one that obeys it but is
    flagged by ``gold_always_present`` (a warning: its values may come from an oracle first
    stage), or one that obeys it."""
    if result is None:
        return MISSING
    if not validation.passed:
        return VIOLATION
    return FLAGGED if validation.oracle_warning is not None else OK


def results_table(
    manifest,
    measures=None,
    *,
    protocol=None,
    baseline: str | None = None,
    paper=None,
    same_year: bool = True,
    jobs: int = 1,
    resolving: Mapping | None = None,
    options: EvalOptions | None = None,
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
    jobs : int, default 1
        Processes evaluating runs at once.
    resolving : dict, optional
        How the generated lists a manifest names (``.jsonl``) are resolved,
        ``{"catalogue": FILE, "threshold": 90}`` as in :func:`citeval_irm.resolve`
        (default: no catalogue, its threshold).
    options : EvalOptions, optional
        How runs are evaluated and values printed, as in :func:`citeval_irm.evaluate`;
        ``engine="dask"``: on the workers of the cluster at ``scheduler``.
    statistics : StatisticsOptions, optional
        ``test`` and ``correction`` as in :func:`citeval_irm.compare`, the correction over
        every test of the table.

    Returns
    -------
    ResultsTable
        A row per (dataset, system), a column per measure, significance marks.

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

    options, statistics = options_from(
        "results_table", (options, EvalOptions), (statistics, StatisticsOptions)
    )
    test, correction, alpha = statistics.test, statistics.correction, statistics.alpha
    check_choice("test", test, TESTS)  # a paired test: the Tukey HSD marks no baseline
    entries = read_manifest(manifest)
    systems = list(dict.fromkeys(e.system for e in entries))
    datasets = list(dict.fromkeys(e.dataset for e in entries))
    if baseline is not None and baseline not in systems:
        raise InputError(None, f"baseline {baseline!r} is not a system of the manifest: "
                         f"{', '.join(systems)}")  # fmt: skip
    resolving = {k: v for k, v in dict(resolving or {}).items() if v is not None}
    unknown = set(resolving) - {"catalogue", "threshold"}
    if unknown:
        raise InputError(None, f"resolving takes catalogue and threshold, not {sorted(unknown)}")
    done = _evaluate_all(entries, measures, protocol, options, same_year, jobs, resolving)
    results = {(e.system, e.dataset): r for e, (r, _) in zip(entries, done)}
    facts = {(e.system, e.dataset): f for e, (_, f) in zip(entries, done)}
    first = next(iter(results.values()))
    percent = options.shown_percent(first.protocol)
    names = {d: table_measures([r for (_, dd), r in results.items() if dd == d])
             for d in datasets}  # fmt: skip
    rows, notes, warnings = [], [], []
    for system in systems:
        for dataset in datasets:
            result = results.get((system, dataset))
            validation = facts[system, dataset].validation if result is not None else None
            status = _status(result, validation)
            for measure in names[dataset]:
                missing = result is None
                value = float("nan") if missing else float(result.aggregate.get(measure, np.nan))
                rows.append({"system": system, "dataset": dataset, "measure": measure,
                             "value": value, "status": status})  # fmt: skip
            if status == VIOLATION:
                notes.append(f"{BROKEN} {system} on {dataset}: {validation.summary()}")
            exempt = [w for w in validation.warnings if w.code == "generated_lists"] if (
                validation is not None) else []  # fmt: skip
            notes += [f"{system} on {dataset}: {w.message}" for w in exempt]
            if status == FLAGGED:
                oracle = validation.oracle_warning
                notes.append(f"{ORACLE} {system} on {dataset}: {oracle.message}")
            if result is not None:
                warnings += [
                    EvalWarning(w.code, f"{system} on {dataset}: {w.message}", w.count, w.examples)
                    for w in result.warnings
                ]
    for dataset in datasets:  # the same for every run of a dataset: its year policy, measures
        checked = [facts[s, dataset].validation for s in systems if (s, dataset) in results]
        line = checked[0].ceiling_line() if checked and checked[0] is not None else None
        notes += [f"{dataset}: {line}"] if line else []
    values = pd.DataFrame(rows)
    found = None
    if baseline is not None:
        found = _baseline_tests(results, facts, systems, datasets, names, baseline, notes,
                                compare_settings(statistics, "all", options.ties))  # fmt: skip
        warnings += found.warnings
        issue(found.warnings)  # B raised for the family, as compare says
        if len(found.pairs):
            tested = found.pairs.rename(columns={f"p_{test}": "p"})[_TESTED_COLUMNS]
            values = values.merge(tested, on=["system", "dataset", "measure"], how="left")
    published_systems: list[str] = []
    if paper is not None:
        extra, published_systems, verdicts = _published_rows(
            paper, datasets, names, results, facts, systems, protocol
        )
        values = pd.concat([values, extra], ignore_index=True) if len(extra) else values
        notes += verdicts
    return ResultsTable(
        datasets=datasets,
        measures=names,
        systems=systems,
        published_systems=published_systems,
        values=values,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        percent=percent,
        decimals=options.shown_decimals(first.protocol, percent),
        notes=notes,
        warnings=warnings,
        results=results,
        validations={k: f.validation for k, f in facts.items()},
        settings=found.settings if found else None,
        family=found.family if found else None,
    )


def _cell_label(row) -> str:
    return f"{row.system} on {row.dataset} {row.measure}"


_TESTED_COLUMNS = [
    "dataset", "measure", "system", "diff", "p", "wins", "losses", "direction", "p_adj",
    "significant", "p_adj_floor", "reachable", "unavailable",
]  # fmt: skip
"""What a tested cell carries of compare's pair: the difference and the test (``p``: the
chosen test's, ``direction``: its own statistic's), corrected over the table."""


def _baseline_tests(results, facts, systems, datasets, names, baseline, notes, settings):
    """Every system that obeys the protocol against ``baseline`` on each dataset, by
    compare's statistics over every qrels query (a query a run does not rank scores 0),
    with one B and one correction for the whole table
    (:func:`citeval_irm.comparison.family.tested`); a dataset without a usable baseline
    gets a note."""
    from .compare import compared_values
    from .resolutions import field_result, rate_blocks

    blocks, warnings, owner = {}, [], {}
    for dataset in datasets:
        compared = {
            s: results[s, dataset]
            for s in systems
            if (s, dataset) in results and facts[s, dataset].validation.passed
        }
        if baseline not in compared:
            why = "has no run" if (baseline, dataset) not in results else "breaks the protocol"
            notes.append(f"{dataset}: no test: the baseline {baseline} {why} there")
            continue
        if len(compared) < 2:
            continue
        fields = [m for m in names[dataset] if m not in RATES]
        runs = {s: field_result(s, r) for s, r in compared.items()}
        values, *_ = compared_values(runs, dict.fromkeys(compared), fields, "all")
        blocks[dataset] = (values, list(compared), fields)
        more, left_out = rate_blocks(compared, baseline, dataset)
        blocks.update(more)
        owner.update(dict.fromkeys([dataset, *more], dataset))
        warnings += left_out
    found = family.tested(blocks, baseline, settings, column="dataset")
    if len(found.pairs):  # the block's dataset (blocks: the field's, then each rate's)
        found.pairs["dataset"] = found.pairs["dataset"].map(owner)
    found.warnings += warnings
    return found


def _published_rows(paper, datasets, names, results, facts, systems, protocol):
    """The paper's published rows (fractions), their systems, and a like-for-like verdict
    per dataset (reusing :func:`citeval_irm.checks.published.beside_published`)."""
    from ..checks.published import beside_published, scoring_recipe, table_source
    from ..papers import PROTOCOLS

    given = paper  # a shipped paper's name, or the user's table (a CSV path or a DataFrame)
    paper, papers, _ = table_source(given)
    rows, published_systems, verdicts = [], [], []
    for dataset in datasets:
        if papers[paper].table_dataset(dataset) is None:
            verdicts.append(f"published ({paper}): no table for {dataset}")
            continue
        ours = {s: results[s, dataset] for s in systems if (s, dataset) in results}
        chosen = PROTOCOLS.get(protocol) if isinstance(protocol, str) else protocol
        chosen = chosen or next(iter(ours.values())).protocol
        recipe = scoring_recipe(given, chosen)
        kept = {s: _with_scoring(facts[s, dataset], results[s, dataset], dataset, recipe)
                for s in ours}  # fmt: skip
        try:
            side = beside_published(
                ours, kept, dataset, protocol=chosen, paper=given, measures=names[dataset]
            )
        except InputError as exc:
            verdicts.append(f"published ({paper}) on {dataset}: none shown: {exc}")
            continue
        scale = 100.0 if side.paper.percent else 1.0
        for system in side.figures.columns:
            published_systems += [system] if system not in published_systems else []
            for measure in side.figures.index:
                rows.append({"system": system, "dataset": dataset, "measure": measure,
                             "value": side.figures.at[measure, system] / scale,
                             "status": "published"})  # fmt: skip
        differing = [str(c) for c in side.checks if c.status != "same"]
        detail = f" ({'; '.join(differing)})" if differing else ""
        verdicts.append(f"published rows on {dataset}: {side.title()}; {side.verdict()}{detail}")
    clash = [s for s in published_systems if s in systems]
    if clash:
        raise InputError(
            None, f"system(s) {', '.join(clash)} of the manifest share a name with published "
            f"rows of {paper}: rename them in the manifest"
        )  # fmt: skip
    return pd.DataFrame(rows), published_systems, verdicts


def _with_scoring(facts, result, dataset: str, recipe: str | None):
    """A run's facts with its cross-check by the paper's script, which the published rows'
    scoring check reads (the run is read again only when a paper is asked for)."""
    from .runs import scored_by_script

    if recipe is None or facts.scoring is not None:
        return facts
    if hasattr(result, "rates"):  # generated lists: the script scores a run file
        return replace(facts, unscored="generated lists: not scored by the paper's script")
    scoring, unscored = scored_by_script(result.run_source, dataset, recipe)
    return replace(facts, scoring=scoring, unscored=unscored)


def manifest_text(rows: list[tuple[str, str, str]], delimiter: str = ",") -> str:
    """A manifest's text for ``(system, dataset, run)`` rows (for scripts and tests)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(MANIFEST_COLUMNS)
    writer.writerows(rows)
    return out.getvalue()
