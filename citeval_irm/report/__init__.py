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

from ..base.errors import CitevalError, InputError, issue, silenced
from ..base.options import EvalOptions, StatisticsOptions, options_from
from ..checks.crosscheck import CrosscheckReport
from ..checks.protocol import ValidationReport
from ..comparison.compare import compare, is_evaluated, named_inputs
from ..comparison.model import Comparison
from ..comparison.resolutions import field_result, generated_validation
from ..evaluation.results import EvalResult
from ..printing.blocks import Facts, Figure, Items, Section, Table, Text
from ..printing.document import Report
from ..reading.io import as_dataset, as_qrels
from ..resolving.result import Resolution
from . import sections
from .facts import RunFacts, run_facts
from .provenance import dataset_info, file_sha256
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
    statistics: StatisticsOptions | None = None,
    computed: Computed | None = None,
    same_year: bool = True,
    command: str | None = None,
    descriptions: Mapping[str, str] | None = None,
) -> Report:
    """A :class:`Report` of runs evaluated on qrels: one document with the evaluations, the
    comparison, the validations and plots, and the command that repeats it.

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
        A paper's protocol; its unit is the default of ``options.percent``.
    options : EvalOptions, optional
        How the runs are evaluated, as in :func:`citeval_irm.evaluate`; ``percent``: values
        in percent (fractions only; counts stay counts), default the protocol's unit;
        ``decimals``: default :func:`~citeval_irm.base.options.display_decimals`.
    statistics : StatisticsOptions, optional
        The comparison of two or more runs, as in :func:`citeval_irm.compare`.
    computed : Computed, optional
        What was computed already (evaluations, a comparison, cross-checks, validations, by
        run name), shown as it is; what is missing is computed. ``Computed(validations=False)``:
        no validation. A cross-check appears only when given.
    same_year : bool, default True
        As in :func:`citeval_irm.validate`.
    command : str, optional
        Printed as the way to repeat the report.
    descriptions : mapping of str to str, optional
        How each run was made, by run name, shown beside its source.

    Returns
    -------
    Report
        The document; ``write(path)`` writes HTML or Markdown. Its ``title`` may be set on it.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test", progress=False)
    >>> report = citeval_irm.make_report({"bm25": run}, "citeval/demo/test", protocol="goyal2026")
    """
    options, statistics = options_from(
        "make_report", (options, EvalOptions), (statistics, StatisticsOptions)
    )
    computed = computed if computed is not None else Computed()
    evaluations, comparison = computed.evaluations, computed.comparison
    crosschecks, validations = computed.crosschecks, computed.validations
    validate = validations is not False
    named = named_inputs(runs)
    resolutions = {n: item for n, item in named.items() if isinstance(item, Resolution)}
    for name, item in named.items():
        if name in resolutions:
            field_result(name, item)  # an error when it resolved nothing
        elif is_evaluated(item):
            raise InputError(None, f"{name}: a report needs the run itself, not its evaluation")
    evaluations = dict(evaluations or {})
    validations = dict(validations) if validate and validations else {}
    crosschecks = dict(crosschecks or {})
    qrels_table = as_qrels(qrels)
    found = as_dataset(qrels)
    dataset_id = found[0] if found is not None and isinstance(qrels, str) else None
    for name, item in resolutions.items():
        evaluations.setdefault(name, item.evaluation)
        if validate and dataset_id is not None and name not in validations:
            validations[name] = resolved_validation(item, dataset_id, same_year)
    facts: list[RunFacts] = []
    for name, source in named.items():  # one run in memory at a time
        facts.append(
            run_facts(
                name,
                source.run if name in resolutions else source,
                qrels_table,
                measures,
                protocol=protocol,
                options=options,
                evaluation=evaluations.get(name),
                dataset=dataset_id if validate else None,
                validation=validations.get(name),
                same_year=same_year,
            )
        )
    for fact in facts:
        if descriptions and fact.name in descriptions:
            fact.source = f"{fact.source} ({descriptions[fact.name]})"
    results = {f.name: f.evaluation for f in facts}
    issue(
        w.of_run(name)
        for name, result in results.items()
        if name not in evaluations
        for w in result.warnings
    )
    if comparison is None and len(facts) > 1:
        with silenced():  # each run's warnings are issued above
            comparison = compare(
                {**results, **resolutions}, measures=measures, protocol=protocol, options=options,
                statistics=statistics,
            )  # fmt: skip
    first = facts[0].evaluation
    fmt = sections.Formatter.of(options, first.protocol)
    qrels_path = qrels if isinstance(qrels, (str, os.PathLike)) and dataset_id is None else None
    policies = {
        "ties": options.ties,
        "duplicates": options.duplicates,
        "empty_queries": options.empty_queries,
    }
    parts = [
        sections.setup_section(
            facts,
            first.qrels_source,
            file_sha256(qrels_path) if qrels_path is not None else None,
            dataset_info(dataset_id) if dataset_id is not None else None,
            policies,
            command,
            comparison,
            fmt,
        ),
        sections.scores_section(facts, comparison, fmt),
    ]
    if resolutions:
        parts.append(resolution_section(resolutions))
        if dataset_id is not None:
            parts.append(popularity_rate_section(resolutions, dataset_id, options, statistics))
    if comparison is not None:
        parts.append(sections.differences_section(comparison, fmt))
        if comparison.published is not None:
            parts.append(sections.published_section(comparison))
        if comparison.popularity is not None and dataset_id is not None:
            from ..comparison.breakdown import popularity_section

            parts.append(popularity_section(comparison, dataset_id, options))
    parts += [
        sections.ties_section(facts, fmt),
        sections.validation_section(facts),
        sections.crosscheck_section(crosschecks, options),
        sections.warnings_section(_warnings(facts, comparison, crosschecks)),
        sections.environment_section(),
    ]
    names = ", ".join(f.name for f in facts)
    where = dataset_id or first.qrels_source
    return Report(
        title=f"citeval report: {names} on {where}",
        summary=_summary(facts, comparison, crosschecks, where, fmt),
        sections=[p for p in parts if p is not None],
    )


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
