"""A report a person reads: one self-contained HTML (or Markdown) file with the runs, the
dataset and its checksums, the scores, the checks and the plots.

>>> report = citeval_irm.make_report({"bm25": "bm25.trec"}, "citeval/demo/test",
...                                  protocol="goyal2026")
>>> report.write("report.html")  # or report.md; report.to_html(), report.to_markdown()

:func:`make_report` reads each run once and builds the sections from the API's own
objects (evaluations, the comparison, validations, cross-checks), computing whatever it is
not given. matplotlib is imported only here, so the command line stays light until
``--report`` is asked for.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base.downloads import file_checksum
from ..base.errors import CitevalError, InputError, issue, silenced
from ..base.options import (
    EvalOptions,
    ExecutionOptions,
    StatisticsOptions,
    boolean,
    options_from,
)
from ..checks.crosscheck import CrosscheckReport
from ..checks.protocol import ValidationReport
from ..comparison.compare import compare, is_evaluated, named_inputs
from ..comparison.model import Comparison
from ..comparison.resolutions import field_result, generated_validation
from ..evaluation.results import EvalResult
from ..printing.blocks import Facts, Figure, Items, Section, Table, Text
from ..printing.document import Report
from ..reading.io import as_dataset, read_qrels
from ..resolving.result import Resolution
from . import sections
from .facts import RunFacts, run_facts
from .provenance import DatasetInfo, dataset_info
from .resolution import popularity_rate_section, resolution_section

__all__ = [
    "Computed",
    "Facts",
    "Figure",
    "Items",
    "Report",
    "Section",
    "Table",
    "Text",
    "make_report",
]


@dataclass(frozen=True)
class Computed:
    """What was computed already, shown in a report as it is (by run name), not again.

    ``evaluations``: :class:`~citeval_irm.EvalResult` by run name; ``comparison``: a
    :class:`~citeval_irm.Comparison` of the runs; ``crosschecks``:
    :class:`~citeval_irm.CrosscheckReport` by run name (a cross-check appears only when
    given); ``validations``: :class:`~citeval_irm.ValidationReport` by run name, or
    ``False`` for no validation section.
    """

    evaluations: Mapping[str, EvalResult] | None = None
    comparison: Comparison | None = None
    crosschecks: Mapping[str, CrosscheckReport] | None = None
    validations: Mapping[str, ValidationReport] | bool | None = None


def make_report(
    runs,
    qrels,
    measures=None,
    *,
    protocol=None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
    statistics: StatisticsOptions | None = None,
    computed: Computed | None = None,
    same_year: bool = True,
    descriptions: Mapping[str, str] | None = None,
) -> Report:
    """A :class:`Report` of runs evaluated on qrels: one document with the evaluations, the
    comparison, the validations and plots.

    Parameters
    ----------
    runs : dict or list
        ``{name: run}`` or a list (named after the file stems, as in
        :func:`citeval_irm.compare`); each run a path or anything :func:`citeval_irm.evaluate`
        reads (not an EvalResult: the plots need the rankings), or a
        :class:`~citeval_irm.Resolution` (its resolved run is the run; the report adds how
        the lists were resolved and their rate by the cited paper's popularity).
    qrels : path, Parquet, DataFrame, dict, records, Qrels or ir_datasets dataset / id
        What the runs are scored against; a dataset also gives each run's validation.
    measures : str, Measure or iterable, optional
        ir-measures syntax. Default: the protocol's.
    protocol : str or Protocol, optional
        A paper's protocol; its unit is the unit values are shown in (``report.shown(
        percent=...)`` for another).
    options : EvalOptions, optional
        What the runs' numbers mean, as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        How they are computed, as in :func:`citeval_irm.evaluate`.
    statistics : StatisticsOptions, optional
        The comparison of two or more runs, as in :func:`citeval_irm.compare`.
    computed : Computed, optional
        What was computed already (evaluations, a comparison, cross-checks, validations, by
        run name), shown as it is; what is missing is computed. ``Computed(validations=False)``:
        no validation. A cross-check appears only when given.
    same_year : bool, default True
        As in :func:`citeval_irm.validate`.
    descriptions : mapping of str to str, optional
        How each run was made, by run name, shown beside its source.

    Returns
    -------
    Report
        The document; ``write(path)`` writes HTML or Markdown; ``shown(percent=...,
        decimals=...)`` gives it in another unit. Its ``title`` and ``command`` (the way to
        repeat it) may be set on it.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> report = citeval_irm.make_report({"bm25": run}, "citeval/demo/test", protocol="goyal2026")
    >>> report.command = "citeval eval bm25.trec --dataset citeval/demo/test --report r.html"
    """
    same_year = boolean("same_year", same_year)
    options, execution, statistics = options_from(
        "make_report",
        (options, EvalOptions),
        (execution, ExecutionOptions),
        (statistics, StatisticsOptions),
    )
    computed = computed if computed is not None else Computed()
    named = named_inputs(runs)
    resolutions = _resolutions(named)
    known = _Known.of(computed)
    qrels_table = read_qrels(qrels)
    dataset_id = _dataset_id(qrels)
    known.add_resolutions(resolutions, dataset_id, same_year)
    facts = _read_runs(
        named,
        resolutions,
        known,
        qrels_table,
        measures,
        protocol=protocol,
        options=options,
        execution=execution,
        dataset=dataset_id,
        same_year=same_year,
        descriptions=descriptions,
    )
    comparison = computed.comparison
    if comparison is None and len(facts) > 1:
        with silenced():  # each run's warnings are issued by _read_runs
            comparison = compare(
                {**{f.name: f.evaluation for f in facts}, **resolutions},
                measures=measures,
                protocol=protocol,
                options=options,
                execution=execution,
                statistics=statistics,
            )
    qrels_path = qrels if isinstance(qrels, (str, os.PathLike)) and dataset_id is None else None
    made = _Made(
        facts,
        comparison,
        known.crosschecks,
        resolutions,
        dataset_id,
        file_checksum(qrels_path, "sha256") if qrels_path is not None else None,
        dataset_info(dataset_id) if dataset_id is not None else None,
        options,
        execution,
        statistics,
    )
    return made.report()


@dataclass(frozen=True)
class _Made:
    """What a report shows, computed once: its document is made from it in a unit
    (:meth:`report`), again for :meth:`Report.shown`."""

    facts: list[RunFacts]
    comparison: Comparison | None
    crosschecks: dict[str, CrosscheckReport]
    resolutions: dict[str, Resolution]
    dataset_id: str | None
    qrels_sha256: str | None
    dataset: DatasetInfo | None
    options: EvalOptions
    execution: ExecutionOptions
    statistics: StatisticsOptions

    def report(self, percent: bool | None = None, decimals: int | None = None) -> Report:
        """The document, its values in ``percent`` (default the protocol's unit) with
        ``decimals``."""
        facts, comparison, dataset_id = self.facts, self.comparison, self.dataset_id
        fmt = sections.Formatter.of(facts[0].evaluation.protocol, percent, decimals)
        shown: dict[str, Any] = {"percent": fmt.unit.percent, "decimals": fmt.decimals}
        parts: list[Section | None] = [
            sections.setup_section(
                facts,
                self.qrels_sha256,
                self.dataset,
                {k: getattr(self.options, k) for k in ("ties", "duplicates", "empty_queries")},
                comparison,
                fmt,
            ),
            sections.scores_section(facts, comparison, fmt),
        ]
        if self.resolutions:  # how generated lists were resolved, their rate by popularity
            parts.append(resolution_section(self.resolutions))
            if dataset_id is not None:
                parts.append(
                    popularity_rate_section(
                        self.resolutions,
                        dataset_id,
                        (self.options, self.execution),
                        self.statistics,
                        **shown,
                    )
                )
        if comparison is not None:  # its differences, published rows, popularity summary
            parts.append(sections.differences_section(comparison, fmt))
            if comparison.published is not None:
                parts.append(sections.published_section(comparison.published))
            if comparison.popularity is not None and dataset_id is not None:
                from ..comparison.breakdown import popularity_section

                parts.append(popularity_section(comparison, dataset_id, self.options, **shown))
        parts += [
            sections.ties_section(facts, fmt),
            sections.validation_section(facts),
            sections.crosscheck_section(self.crosschecks, percent, decimals),
            sections.warnings_section(_warnings(facts, comparison, self.crosschecks)),
            sections.environment_section(),
        ]
        names = ", ".join(f.name for f in facts)
        where = dataset_id or facts[0].evaluation.qrels_source
        return Report(
            title=f"citeval report: {names} on {where}",
            summary=_summary(facts, comparison, self.crosschecks, where, fmt),
            sections=[p for p in parts if p is not None],
            remake=self.report,
        )


@dataclass
class _Known:
    """What a report is given already, by run name, and what it adds of the resolutions'
    (their evaluations, their validations)."""

    evaluations: dict[str, EvalResult]
    validations: dict[str, ValidationReport]
    crosschecks: dict[str, CrosscheckReport]
    validate: bool

    @classmethod
    def of(cls, computed: Computed) -> _Known:
        validations = computed.validations
        return cls(
            evaluations=dict(computed.evaluations or {}),
            validations=dict(validations) if isinstance(validations, Mapping) else {},
            crosschecks=dict(computed.crosschecks or {}),
            validate=validations is not False,
        )

    def add_resolutions(
        self, resolutions: Mapping[str, Resolution], dataset_id: str | None, same_year: bool
    ) -> None:
        """Each resolution's own evaluation, and its validation (short lists no violation)
        where a dataset gives one and none was given."""
        for name, item in resolutions.items():
            if item.evaluation is not None:  # resolve always evaluates the resolved run
                self.evaluations.setdefault(name, item.evaluation)
            if self.validate and dataset_id is not None and name not in self.validations:
                self.validations[name] = resolved_validation(item, dataset_id, same_year)


def _dataset_id(qrels) -> str | None:
    """The ir_datasets id the qrels are given as (a string), else ``None``."""
    found = as_dataset(qrels)
    return found[0] if found is not None and isinstance(qrels, str) else None


def _resolutions(named: Mapping[str, object]) -> dict[str, Resolution]:
    """The runs given as a :class:`Resolution` (each must have resolved something); a run
    given evaluated is an error: the plots need the rankings."""
    resolutions = {n: item for n, item in named.items() if isinstance(item, Resolution)}
    for name, item in named.items():
        if name in resolutions:
            field_result(name, item)  # an error when it resolved nothing
        elif is_evaluated(item):
            raise InputError(None, f"{name}: a report needs the run itself, not its evaluation")
    return resolutions


def _read_runs(
    named: Mapping[str, object],
    resolutions: Mapping[str, Resolution],
    known: _Known,
    qrels_table,
    measures,
    *,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    dataset: str | None,
    same_year: bool,
    descriptions: Mapping[str, str] | None,
) -> list[RunFacts]:
    """Each run read once (one in memory at a time) into its :class:`RunFacts`, its source
    with its description; the warnings of the evaluations made here issued, by run."""
    facts: list[RunFacts] = []
    for name, source in named.items():
        fact = run_facts(
            name,
            resolutions[name].run if name in resolutions else source,
            qrels_table,
            measures,
            protocol=protocol,
            options=options,
            execution=execution,
            evaluation=known.evaluations.get(name),
            dataset=dataset if known.validate else None,
            validation=known.validations.get(name),
            same_year=same_year,
        )
        if descriptions and name in descriptions:
            fact.source = f"{fact.source} ({descriptions[name]})"
        facts.append(fact)
    issue(
        w.of_run(f.name)
        for f in facts
        if f.name not in known.evaluations
        for w in f.evaluation.warnings
    )
    return facts


def resolved_validation(resolution: Resolution, dataset: str, same_year: bool):
    """A resolution's run validated (:func:`~citeval_irm.comparison.resolutions.
    generated_validation`: short lists are no violation), or ``None`` when it cannot be."""
    from ..checks.protocol import validate

    try:
        with silenced():
            return generated_validation(validate(resolution.run, dataset, same_year=same_year))
    except CitevalError:
        return None  # run_facts validates it again and says why it cannot


def _warnings(facts, comparison, crosschecks) -> list[str]:
    """Every counted warning, named after its run."""
    if comparison is not None:
        out = [str(w) for w in comparison.warnings]
    else:
        out = [f"{f.name}: {w}" for f in facts for w in f.evaluation.warnings]
    for name, report in crosschecks.items():  # those the evaluation has not said already
        said = {str(w) for f in facts if f.name == name for w in f.evaluation.warnings}
        out += [f"{name} cross-check: {w}" for w in report.warnings if str(w) not in said]
    return out


def _summary(facts, comparison, crosschecks, where: str, fmt) -> str:
    """One line: what was compared, how, and what the checks found."""
    first = facts[0].evaluation
    runs = (
        f"{len(facts)} runs ({', '.join(f.name for f in facts)})"
        if len(facts) > 1
        else f"the run '{facts[0].name}'"  # quoted: a run named "run" is not "run run"
    )
    protocol = f", protocol {first.protocol.name}" if first.protocol else ""
    queries = comparison.num_queries if comparison is not None else first.num_queries
    parts = [f"{runs} on {queries:,} queries of {where}{protocol}; values in {fmt.unit.label}"]
    validated = [f for f in facts if f.validation is not None]
    if validated:
        failed = [f.name for f in validated if not f.validation.passed]
        verdict = f"VIOLATIONS in {', '.join(failed)}" if failed else "passed"
        parts.append(f"validation: {verdict}")
    for name, report in crosschecks.items():
        parts.append(f"cross-check of {name}: {report.unexplained} unexplained differences")
    return "; ".join(parts) + "."
