"""``compare``: is one system better than another, by how much, and is the difference real?

Every run is evaluated by :func:`citeval_irm.evaluate` with the same qrels, measures, tie
policy and query policies, then compared query by query on the same queries: by default the
queries every run ranks (``queries="common"``; the others are counted in a warning), or every
qrels query with unranked ones scored 0 (``queries="all"``, trec_eval ``-c``).

For each measure and pair of runs (each run against ``baseline``, or all pairs) the
comparison gives the two means, their difference, a paired-bootstrap confidence interval of
it, Cohen's d_z, win / tie / loss counts and four paired tests
(:mod:`citeval_irm.comparison.stats`):
the randomisation test (the default, as Smucker, Allan and Carterette 2007 recommend: it
assumes least), the t-test, Wilcoxon's signed-rank test and the sign test. The p-values of
the chosen test are corrected for multiple comparisons over every (pair, measure) tested
(Holm by default). With three or more runs Sakai's randomised Tukey HSD compares all of them
at once. Random draws are seeded, with separate streams for the randomisation test, the
bootstrap and the Tukey HSD, so one never changes another's numbers.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd

from ..base.choices import COMPARE_QUERY_POLICIES, check_choice
from ..base.errors import CitevalError, EvalWarning, InputError, examples_of, issue
from ..base.measures import parse_measures
from ..base.options import (
    EvalOptions,
    ExecutionOptions,
    StatisticsOptions,
    boolean,
    options_from,
)
from ..evaluation.results import EvalResult
from ..papers import PROTOCOLS
from ..reading.io import read_qrels
from ..reading.tables import Qrels
from ..resolving.result import Resolution
from . import family
from .fanout import fan_out
from .model import CompareSettings, Comparison
from .resolutions import (
    compared_rates,
    field_result,
    left_out_warnings,
    per_query_frame,
    valued_rate,
)
from .runs import (
    RunEvidence,
    check_evaluated,
    dataset_id,
    evaluate_run,
    is_evaluated,
    named_inputs,
    run_name,
)

__all__ = ["compare", "compare_settings", "is_evaluated", "named_inputs", "run_name"]


def compare(
    runs,
    qrels=None,
    measures=None,
    *,
    protocol=None,
    baseline: str | None = None,
    tukey: bool | None = None,
    queries: str = "common",
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
    statistics: StatisticsOptions | None = None,
) -> Comparison:
    """Compare runs on the same queries with paired tests, intervals and effect sizes.

    A difference of means says nothing about whether it would hold on other queries; the
    paired tests, corrected over the family of comparisons, and the intervals do.

    Parameters
    ----------
    runs : dict or list
        ``{name: run}``, or a list whose names are the file stems (``bm25.trec`` is ``bm25``);
        a run is anything :func:`citeval_irm.evaluate` reads, an
        :class:`~citeval_irm.EvalResult` already computed (then ``qrels`` may be omitted), or a
        :class:`~citeval_irm.Resolution` (generated lists resolved by
        :func:`citeval_irm.resolve`): its run's field measures are compared as any run's,
        and, when every run is a resolution, so are the rates they all have
        (``in_pool_rate``, ``existence_rate``, ``duplicate_rate``, or those ``measures``
        names), each on the queries whose lists have references in every run.
    qrels : path, Parquet, DataFrame, dict, records, Qrels or ir_datasets dataset / id, optional
        What the runs are scored against.
    measures : str, Measure or iterable, optional
        ir-measures syntax. Default: the protocol's.
    protocol : str or Protocol, optional
        A paper's protocol (``"goyal2026"``).
    baseline : str, optional
        The run every other is compared with; ``None`` compares all pairs.
    tukey : bool, optional
        Run the randomised Tukey HSD. Default: with three or more runs.
    queries : {"common", "all"}, default "common"
        Which queries are compared.
    options : EvalOptions, optional
        What every run's numbers mean, as in :func:`citeval_irm.evaluate`; a run given
        evaluated must have been made with the same.
    execution : ExecutionOptions, optional
        How the runs are evaluated, as in :func:`citeval_irm.evaluate`: with
        ``engine="dask"`` each run on a worker of the cluster at ``scheduler`` (an address
        or a ``distributed.Client``; default a local cluster), the qrels sent to every
        worker once; ``jobs`` runs at once in processes.
    statistics : StatisticsOptions, optional
        ``test``, the test behind the significance marks (``randomisation``, ``t``,
        ``wilcoxon``, ``sign`` or ``tukey``), corrected with ``correction`` (``holm``,
        ``bonferroni``, ``bh``, ``none``; not applied to ``tukey``, which controls the error
        over its pairs itself), ``alpha``, ``confidence``, the draws and ``seed``.

    Returns
    -------
    Comparison
        Each run's means, every pair's tests, intervals and effect sizes. The runs beside a
        paper's published table: :func:`citeval_irm.compare_published` over it.
        ``format(percent=..., decimals=...)`` prints it.

    Examples
    --------
    >>> import citeval_irm
    >>> runs = {
    ...     "bm25": citeval_irm.bm25_run("citeval/demo/test"),
    ...     "titles": citeval_irm.bm25_run("citeval/demo/test", fields=("title",)),
    ... }
    >>> comparison = citeval_irm.compare(runs, "citeval/demo/test", protocol="goyal2026")
    >>> tested = citeval_irm.compare(
    ...     runs, "citeval/demo/test", "RR R@10",
    ...     statistics=citeval_irm.StatisticsOptions(test="t"),
    ... )
    """
    options, execution, statistics = options_from(
        "compare",
        (options, EvalOptions),
        (execution, ExecutionOptions),
        (statistics, StatisticsOptions),
    )
    settings = compare_settings(statistics, queries, options.ties)
    tukey = boolean("tukey", tukey, optional=True)
    named = named_inputs(runs)
    if baseline is not None and baseline not in named:
        raise InputError(None, f"baseline {baseline!r} is not one of the runs: {', '.join(named)}")
    rates, measures = compared_rates(named, measures)
    qrels_table = _qrels_table(named, qrels)
    given = {name: field_result(name, item) for name, item in named.items()}
    checked = check_evaluated(given, qrels_table, protocol, options)
    results, facts = _evaluated(named, qrels_table, measures, protocol, options, execution)
    only_rates = bool(rates) and measures == []  # measures named rates only
    names = [] if only_rates else _measure_names(results, measures, protocol)
    values, population, coverage, warnings = compared_values(results, facts, names, queries)
    warnings += checked
    blocks, per_query, left_out = _blocks(named, values, population, names, rates)
    warnings += left_out
    use_tukey = (len(named) >= 3 if tukey is None else tukey) or settings.test == "tukey"
    found = family.tested(blocks, baseline, settings, use_tukey)
    warnings += found.warnings
    first = next(iter(results.values()))
    tukey_tables = [t for t in found.tukey.values() if t is not None]
    order = first.per_query.index  # the compared queries of every block, in the first's order
    comparison = Comparison(
        names=list(named),
        baseline=baseline,
        measures=names + rates,
        per_query=per_query.reindex(order[order.isin(per_query.index)]),
        pairs=found.pairs,
        tukey=pd.concat(tukey_tables, ignore_index=True) if tukey_tables else None,
        settings=found.settings,
        family=found.family,
        rates=rates,
        coverage=coverage,
        warnings=warnings + (ran := run_warnings(results)),
        protocol=first.protocol,
        qrels_source=_qrels_source(qrels_table, qrels, first),
        results=results,
    )
    dataset = dataset_id(qrels)
    if dataset is not None and names:  # how much each run leans on popular papers, if told
        _add_popularity(comparison, named, dataset, options.ties)
    issue(_not_said_before(comparison.warnings, ran, given, results, queries))
    return comparison


def _not_said_before(
    warnings: list[EvalWarning],
    ran: list[EvalWarning],
    given: dict,
    results: dict[str, EvalResult],
    queries: str,
) -> list[EvalWarning]:
    """What ``compare`` issues of its ``warnings``: a run given evaluated (or resolved) said
    its own warnings (``ran``: every run's) when it was made, so they are kept in the
    comparison's, not said again; nor, with ``queries="all"``, that its unranked queries are
    scored 0 (its ``missing_queries`` said so)."""
    said = {name for name, item in given.items() if is_evaluated(item)}
    fresh = run_warnings({name: r for name, r in results.items() if name not in said})
    restated = tuple(f"{name}: " for name in said) if queries == "all" else ()
    own = [
        w
        for w in warnings
        if not any(w is r for r in ran)
        and not (w.code == "unranked_queries" and w.message.startswith(restated))
    ]
    return own + fresh


def _evaluated(
    named: dict,
    qrels_table: Qrels | None,
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
) -> tuple[dict[str, EvalResult], dict[str, RunEvidence | None]]:
    """Each run's evaluation and evidence
    (:func:`~citeval_irm.comparison.runs.evaluate_run`), fanned out as ``execution`` asks
    (one after the other here, in processes, or on a Dask cluster, the qrels sent to every
    worker once)."""
    each = execution.for_worker()
    jobs = [(name, item, measures, protocol, options, each) for name, item in named.items()]
    done = fan_out(evaluate_run, jobs, execution, shared={"qrels_table": qrels_table})
    results = {name: result for name, (result, _) in zip(named, done)}
    facts = {name: found for name, (_, found) in zip(named, done)}
    return results, facts


def _qrels_table(named: dict, qrels) -> Qrels | None:
    """The qrels read, to evaluate the runs and to check the runs given evaluated against;
    with every run evaluated, a dataset id only names the dataset (nothing downloaded)."""
    evaluated_already = all(is_evaluated(item) for item in named.values())
    if qrels is None and not evaluated_already:
        raise InputError(None, "give qrels (a file or a dataset id) to evaluate the runs on")
    named_only = qrels is None or (evaluated_already and dataset_id(qrels) is not None)
    return None if named_only else read_qrels(qrels)


def _blocks(
    named: dict, values: np.ndarray, population: list[str], names: list[str], rates: list[str]
) -> tuple[dict, pd.DataFrame, list[EvalWarning]]:
    """The blocks tested (the field's measures on the compared ``population``, then each
    rate on the queries every run has a value of it for), their per-query values side by
    side, and the warnings counting the queries a rate leaves out."""
    runs = list(named)
    blocks: dict[str | None, tuple[np.ndarray, list[str], list[str]]] = (
        {None: (values, runs, names)} if names else {}
    )
    per_query = [per_query_frame(values, population, names, runs)]
    left_out = {}
    for rate in rates:
        rate_values, valued, left_out[rate] = valued_rate(named, rate)
        blocks[rate] = (rate_values, runs, [rate])
        per_query.append(per_query_frame(rate_values, valued, [rate], runs))
    return blocks, pd.concat(per_query, axis=1), left_out_warnings(left_out)


def _add_popularity(comparison: Comparison, named: dict, dataset: str, ties: str) -> None:
    """The comparison's popularity summary (how much each run leans on popular papers),
    or the warning that says why there is none (the scores stand without it)."""
    from .facets import popularity_summary

    try:
        comparison.popularity = popularity_summary(
            {n: _run_of(item) for n, item in named.items()},
            comparison.results,
            dataset,
            comparison.measures[0],
            ties=ties,
        )
    except CitevalError as exc:
        comparison.warnings.append(EvalWarning("no_popularity", f"no popularity summary: {exc}", 1))


def compare_settings(statistics: StatisticsOptions, queries: str, ties: str) -> CompareSettings:
    """What a comparison reports it was made with: ``statistics`` (checked when made, so a
    typo fails before any run is read), the queries compared and the tie policy."""
    check_choice("queries", queries, COMPARE_QUERY_POLICIES)
    fields = dataclasses.asdict(statistics)
    if statistics.test == "tukey":  # the HSD controls the error over its pairs itself
        fields["correction"] = "none"
    return CompareSettings(**fields, queries=queries, ties=ties)


def _run_of(item):
    """The run behind ``item`` (a resolution's resolved run), or ``None`` when only its
    evaluation is at hand."""
    if isinstance(item, Resolution):
        return item.run
    return None if is_evaluated(item) else item


def _measure_names(results: dict[str, EvalResult], measures, protocol) -> list[str]:
    """The measures to compare: as asked, else the first run's; each run must have them."""
    if isinstance(measures, str) and measures.strip() in PROTOCOLS and protocol is None:
        measures, protocol = None, measures.strip()
    if measures is not None:
        names = [str(m) for m in parse_measures(measures)]
    elif protocol is not None:
        names = [
            str(m)
            for m in (PROTOCOLS[protocol] if isinstance(protocol, str) else protocol).measures
        ]
    else:
        names = [str(m) for m in next(iter(results.values())).measures]
    for name, result in results.items():
        missing = [m for m in names if m not in result.per_query.columns]
        if missing:
            raise InputError(None, f"{name} has no values for {', '.join(missing)}")
    return names


def compared_values(
    results: dict[str, EvalResult],
    facts: dict[str, RunEvidence | None],
    measures: list[str],
    policy: str,
) -> tuple[np.ndarray, list[str], pd.DataFrame, list[EvalWarning]]:
    """The values compared (queries x runs x measures, runs in ``results``' order, every
    one a number), the queries (``policy``: ``common`` or ``all``), each run's coverage and
    the warnings: what ``compare`` and a results table test."""
    population, coverage, warnings = _population(results, facts, policy)
    values = np.stack(
        [result.per_query.loc[population, measures].to_numpy() for result in results.values()],
        axis=1,
    )
    _check_values(values, list(results), measures, population)
    return values, population, coverage, warnings


def _population(
    results: dict[str, EvalResult], facts: dict[str, RunEvidence | None], policy: str
) -> tuple[list[str], pd.DataFrame, list[EvalWarning]]:
    """The queries compared (in the first run's order), each run's coverage, the warnings."""
    warnings: list[EvalWarning] = []
    order = next(iter(results.values())).per_query.index
    evaluated = order
    for result in results.values():
        evaluated = evaluated.intersection(result.per_query.index, sort=False)
    if any(len(r.per_query) != len(evaluated) for r in results.values()):
        warnings.append(
            EvalWarning(
                "different_queries",
                "the evaluations cover different queries: compared on those they share",
                len(evaluated),
            )
        )
    keep, rows = evaluated, []
    for name, result in results.items():
        unranked, warning = _unranked(name, result, facts[name], evaluated, policy)
        warnings += [warning] if warning else []
        if policy == "common":
            keep = keep.difference(unranked, sort=False)
        rows.append(
            {
                "run": name,
                "evaluated": len(result.per_query),
                "ranked": len(evaluated) - len(unranked),
                "unranked": len(unranked),
            }
        )
    if keep.empty:
        raise InputError(None, "no query is ranked by every run: nothing to compare")
    return list(keep), pd.DataFrame(rows).set_index("run"), warnings


def _unranked(
    name: str, result: EvalResult, facts: RunEvidence | None, evaluated: pd.Index, policy: str
) -> tuple[pd.Index, EvalWarning | None]:
    """The evaluated queries a run does not rank, and the warning that counts them. A run
    given already evaluated cannot tell its unranked queries (scored 0) from the others:
    they stay in, and the warning says so."""
    if facts is None:
        count = next((w.count for w in result.warnings if w.code == "missing_queries"), 0)
        warning = EvalWarning(
            "unranked_queries_kept",
            f"{name}: given evaluated, its unranked queries (scored 0) cannot be told apart "
            "and stay in the comparison",
            count,
        )
        return evaluated[:0], warning if count else None
    unranked = evaluated.difference(facts.ranked, sort=False)
    if unranked.empty:
        return unranked, None
    fate = (
        "left out of the comparison, for every run"
        if policy == "common"
        else "scored 0 (queries='all', as trec_eval -c)"
    )
    message = f"{name}: queries it does not rank: {fate}"
    return unranked, EvalWarning("unranked_queries", message, len(unranked), examples_of(unranked))


def _check_values(
    values: np.ndarray, runs: list[str], measures: list[str], queries: list[str]
) -> None:
    """A per-query value that is not a number (NaN, infinite: reachable through a user-built
    EvalResult or frame) is an error naming where it is, never a p-value."""
    bad = np.argwhere(~np.isfinite(values))
    if len(bad):
        query, run, measure = bad[0]
        count = len(bad)
        more = f" (and {count - 1:,} more values)" if count > 1 else ""
        raise InputError(
            None,
            f"{runs[run]}: {measures[measure]} of query {queries[query]} is "
            f"{values[query, run, measure]}, not a number{more}: every compared value must be "
            "a number",
        )


def run_warnings(results: dict[str, EvalResult]) -> list[EvalWarning]:
    """Each evaluation's own warnings, named after its run (missing queries are counted by
    the comparison itself)."""
    return [
        w.of_run(name)
        for name, result in results.items()
        for w in result.warnings
        if w.code != "missing_queries"
    ]


def _qrels_source(qrels_table, qrels, first: EvalResult) -> str:
    """What the runs were evaluated against, for the header."""
    if qrels_table is not None:
        return qrels_table.source
    return str(qrels) if isinstance(qrels, (str, os.PathLike)) else first.qrels_source
