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
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..base.choices import COMPARE_QUERY_POLICIES, check_choice
from ..base.errors import CitevalError, EvalWarning, InputError, examples_of, issue, silenced
from ..base.measures import parse_measures
from ..base.options import EvalOptions, StatisticsOptions, options_from
from ..checks.protocol import ValidationReport, validate
from ..evaluation.evaluate import evaluate
from ..evaluation.results import EvalResult
from ..papers import PROTOCOLS
from ..reading.io import read_qrels
from ..reading.tables import Qrels
from ..resolving.result import Resolution
from . import family
from .model import CompareSettings, Comparison
from .resolutions import compared_rates, field_result, per_query_frame, valued_rate


def compare(
    runs,
    qrels=None,
    measures=None,
    *,
    protocol=None,
    baseline: str | None = None,
    tukey: bool | None = None,
    queries: str = "common",
    published=False,
    paper=None,
    stage: str = "end-to-end",
    same_year: bool = True,
    options: EvalOptions | None = None,
    statistics: StatisticsOptions | None = None,
    **keywords,
) -> Comparison:
    """Compare runs on the same queries with paired tests, intervals and effect sizes.

    ``runs``: ``{name: run}``, or a list whose names are the file stems (``bm25.trec`` is
    ``bm25``); a run is anything :func:`citeval_irm.evaluate` reads, an
    :class:`~citeval_irm.EvalResult` already computed (then ``qrels`` may be omitted), or a
    :class:`~citeval_irm.Resolution` (generated reference lists resolved by
    :func:`citeval_irm.resolve`): its run's field measures are compared as any run's, and,
    when every run is a resolution, so are the rates they all have (``in_pool_rate``,
    ``existence_rate``, ``duplicate_rate``; or those ``measures`` names), each on the queries
    whose lists have references in every run (the others left out of that rate's tests and
    counted in a warning).
    ``baseline``: the run every other is compared with; ``None`` compares all pairs.
    ``statistics`` (:class:`~citeval_irm.base.options.StatisticsOptions`, or its fields as
    keywords): ``test``, the test behind the significance marks (``randomisation``, ``t``,
    ``wilcoxon``, ``sign`` or ``tukey``), corrected with ``correction`` (``holm``,
    ``bonferroni``, ``bh``, ``none``; not applied to ``tukey``, which controls the error
    over its pairs itself). ``tukey``: run the Tukey HSD (default: with three or more runs).
    ``published``: also put the runs beside the shipped published results of ``paper``
    (default the protocol's) for the dataset ``qrels`` names, or for the table dataset
    given as a string (e.g. ``"ACL-200"``), checked for like for like (each run validated
    with :func:`citeval_irm.validate`, ``same_year`` as there); a table of your own, a CSV
    path or a DataFrame with the shipped columns, as ``published`` or ``paper`` (labelled
    "given by the user"; the shipped figures are labelled as transcribed, not verified). ``options``
    (:class:`~citeval_irm.base.options.EvalOptions`, or its fields as keywords): how every run
    is evaluated, as in :func:`citeval_irm.evaluate`; with ``engine="dask"`` each run is
    evaluated (and validated) on a worker of the cluster at ``scheduler`` (an address or a
    ``distributed.Client``; default a local cluster), the qrels sent to every worker once;
    ``percent`` / ``decimals``: how the comparison prints.
    """
    options, statistics = options_from(
        "compare", keywords, (options, EvalOptions), (statistics, StatisticsOptions)
    )
    settings = compare_settings(statistics, queries, options.ties)
    if tukey is not None and not isinstance(tukey, (bool, np.bool_)):
        raise TypeError(f"tukey must be True, False or None, not {tukey!r}")
    named = named_inputs(runs)
    if baseline is not None and baseline not in named:
        raise InputError(None, f"baseline {baseline!r} is not one of the runs: {', '.join(named)}")
    rates, measures = compared_rates(named, measures)
    evaluated_already = all(is_evaluated(item) for item in named.values())
    if qrels is None and not evaluated_already:
        raise InputError(None, "give qrels (a file or a dataset id) to evaluate the runs on")
    # qrels are read to evaluate the runs, and to check the runs given evaluated against;
    # with every run evaluated, a dataset id only names the dataset (nothing downloaded)
    named_only = qrels is None or (evaluated_already and _dataset_id(qrels) is not None)
    qrels_table = None if named_only else read_qrels(qrels)
    checked = check_evaluated(
        {name: field_result(name, item) for name, item in named.items()}, qrels_table, protocol,
        options,
    )  # fmt: skip
    per_run = replace(options, engine="citeval" if options.engine == "dask" else options.engine,
                      scheduler=None, progress=False)  # fmt: skip
    dataset = _dataset_id(qrels)
    from ..checks.published import is_table_source

    if is_table_source(published):  # a table of the user's own
        paper, published = published, True
    validate_on = dataset if published else None
    recipe = None
    if validate_on is not None:
        from ..checks.published import scoring_recipe

        recipe = scoring_recipe(paper, protocol)
    jobs = {
        name: (name, item, qrels_table, measures, protocol, per_run, validate_on, same_year, recipe)
        for name, item in named.items()
    }
    if options.engine == "dask":
        done = _on_cluster(jobs, options.scheduler)
    else:  # one run in memory at a time: only its facts are kept
        done = {name: evaluate_run(*job) for name, job in jobs.items()}
    results = {name: result for name, (result, _) in done.items()}
    facts = {name: found for name, (_, found) in done.items()}
    only_rates = bool(rates) and measures == []  # measures named rates only
    names = [] if only_rates else _measure_names(results, measures, protocol)
    values, population, coverage, warnings = compared_values(results, facts, names, queries)
    warnings += checked
    blocks = {None: (values, list(named), names)} if names else {}
    per_query = [per_query_frame(values, population, names, list(named))]
    for rate in rates:
        rate_values, valued, left_out = valued_rate(named, rate)
        blocks[rate] = (rate_values, list(named), [rate])
        per_query.append(per_query_frame(rate_values, valued, [rate], list(named)))
        warnings += left_out
    use_tukey = (len(named) >= 3 if tukey is None else tukey) or settings.test == "tukey"
    found = family.tested(blocks, baseline, settings, use_tukey)
    warnings += found.warnings
    first = next(iter(results.values()))
    tukey_tables = [t for t in found.tukey.values() if t is not None]
    order = first.per_query.index  # the compared queries of every block, in the first's order
    joined = pd.concat(per_query, axis=1)
    comparison = Comparison(
        names=list(named),
        baseline=baseline,
        measures=names + rates,
        per_query=joined.reindex(order[order.isin(joined.index)]),
        pairs=found.pairs,
        tukey=pd.concat(tukey_tables, ignore_index=True) if tukey_tables else None,
        settings=found.settings,
        family=found.family,
        rates=rates,
        coverage=coverage,
        warnings=warnings + run_warnings(results),
        protocol=first.protocol,
        qrels_source=_qrels_source(qrels_table, qrels, first),
        results=results,
        display=options,
    )
    if dataset is not None and names:  # how much each run leans on popular papers, if told
        from .facets import popularity_summary

        try:
            comparison.popularity = popularity_summary(
                {n: _run_of(item) for n, item in named.items()},
                results,
                dataset,
                names[0],
                ties=options.ties,
            )
        except CitevalError as exc:  # the scores stand without it: say why it is missing
            comparison.warnings.append(
                EvalWarning("no_popularity", f"no popularity summary: {exc}", 1)
            )
    if published:
        from ..checks.published import beside_published

        comparison.published = beside_published(
            results,
            facts,
            dataset,
            protocol=first.protocol,
            paper=paper,
            published_dataset=published if isinstance(published, str) else None,
            stage=stage,
            measures=names,
        )
    issue(comparison.warnings)
    return comparison


@dataclass(frozen=True)
class RunFacts:
    """What a comparison keeps of a run once it is evaluated (the run itself may be
    millions of rows): the queries it ranks, its shortest ranking and, for a comparison with
    published results, its validation against the dataset (or why there is none) and, when
    the published table was scored by the paper's own script, the means of that script
    beside trec_eval's on this run (:func:`citeval_irm.crosscheck`'s summary: ``trec_eval``,
    ``recipe`` and ``difference`` by measure), or why there are none."""

    ranked: pd.Index
    shortest: int
    validation: ValidationReport | None = None
    unvalidated: str | None = None
    scoring: pd.DataFrame | None = None
    unscored: str | None = None

    @classmethod
    def of(
        cls,
        result: EvalResult,
        run,
        dataset: str | None,
        same_year: bool,
        memory=None,
        recipe: str | None = None,
    ) -> RunFacts:
        """The facts of ``run`` from its evaluation ``result``; the run validated with
        :func:`citeval_irm.validate` when ``dataset`` is given, and cross-checked with
        ``recipe`` (the paper's script) there."""
        validation, unvalidated = None, None
        scoring, unscored = None, None
        if dataset is not None:
            try:
                validation = validate(run, dataset, same_year=same_year, memory=memory)
            except CitevalError as exc:
                unvalidated = f"cannot validate: {exc}"
            if recipe is not None:
                scoring, unscored = scored_by_script(run, dataset, recipe)
        ranked = result.ranked
        return cls(
            pd.Index(ranked.query_ids),
            int(ranked.sizes.min()),
            validation,
            unvalidated,
            scoring,
            unscored,
        )


def scored_by_script(run, dataset: str, recipe: str) -> tuple[pd.DataFrame | None, str | None]:
    """The means of ``recipe`` (a paper's script) beside trec_eval's on ``run`` (the
    cross-check's summary), or why there are none: what a published table's scoring check
    reads."""
    from ..checks.crosscheck import crosscheck

    try:
        summary = crosscheck(run, dataset, recipe=recipe).summary
    except CitevalError as exc:
        return None, f"cannot cross-check with the paper's script: {exc}"
    return summary[["trec_eval", "recipe", "difference"]], None


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


def is_evaluated(item) -> bool:
    """Whether ``item`` is an evaluation already made (an EvalResult or alike: per-query
    values and their aggregate), not a run to evaluate."""
    return not isinstance(item, pd.DataFrame) and all(
        hasattr(item, attribute) for attribute in ("per_query", "aggregate", "measures")
    )


RUN_FILE_SUFFIXES = (".gz", ".bz2", ".trec", ".run", ".txt", ".tsv", ".parquet", ".pq")


def run_name(source) -> str | None:
    """The one name of a run made from its source: ``bm25`` for ``runs/bm25.trec.gz``,
    ``bm25.parquet`` or the folder ``bm25.parquet/``; ``None`` for ``<DataFrame>`` and the
    like."""
    text = str(source)
    if text.startswith("<") or not text:
        return None
    name = Path(text.rstrip("/")).name
    while (suffix := Path(name).suffix.lower()) in RUN_FILE_SUFFIXES and name != suffix:
        name = name[: -len(suffix)]
    return name or None


def named_inputs(runs) -> dict[str, object]:
    """Runs by name: the dict's keys, or file stems (``run1``, ``run2`` ... otherwise)."""
    if isinstance(runs, Mapping):
        named = {str(name): item for name, item in runs.items()}
    else:
        if isinstance(runs, (str, os.PathLike, pd.DataFrame)) or is_evaluated(runs):
            runs = [runs]
        named = {}
        for position, item in enumerate(runs, 1):
            if is_evaluated(item):
                stem = run_name(item.run_source)
            elif isinstance(item, (str, os.PathLike)):
                stem = run_name(item)
            else:
                stem = run_name(getattr(item, "source", ""))
            name = stem or f"run{position}"
            if name in named:
                raise InputError(
                    None, f"two runs are named {name!r}: pass {{name: run}} to tell them apart"
                )
            named[name] = item
    if not named:
        raise InputError(None, "give at least one run to compare")
    return named


SCORING_OPTIONS = ("ties", "max_docs", "empty_queries")
"""The options that change a run's per-query values (besides the qrels and the protocol)."""


def check_evaluated(
    named: dict, qrels_table: Qrels | None, protocol, options: EvalOptions
) -> list[EvalWarning]:
    """Every run given evaluated already must have been made as the comparison makes the
    others: on the same judgements (its qrels fingerprint against ``qrels_table``'s, or
    against the other evaluated runs' when no qrels are given), with the same protocol and
    the same :data:`SCORING_OPTIONS`; an error names both otherwise. A result that keeps
    no record of them (one built by hand) cannot be checked: a warning says so."""
    from ..evaluation.fingerprint import qrels_fingerprint

    wanted = protocol if protocol is None or isinstance(protocol, str) else protocol.name
    reference = (qrels_fingerprint(qrels_table), qrels_table.source) if qrels_table else None
    first: tuple[str, str, str] | None = None
    unchecked = []
    for name, item in (pair for pair in named.items() if is_evaluated(pair[1])):
        made = getattr(item, "options", None)
        for option in SCORING_OPTIONS:
            theirs = getattr(made, option) if made is not None else None
            if option == "ties":
                theirs = getattr(getattr(item, "ties", None), "policy", None) or theirs
            if (made is not None or option == "ties") and theirs is not None:
                ours = getattr(options, option)
                if theirs != ours:
                    raise InputError(
                        None,
                        f"{name} was evaluated with {option}={theirs!r}, the comparison uses "
                        f"{option}={ours!r}: every run must be evaluated the same way",
                    )
        own = getattr(getattr(item, "protocol", None), "name", None)
        if wanted is not None and own is not None and own != wanted:
            raise InputError(
                None,
                f"{name} was evaluated with protocol {own}, the comparison uses {wanted}: "
                "every run must be evaluated the same way",
            )
        print_ = getattr(item, "qrels_fingerprint", None)
        source = getattr(item, "qrels_source", "<qrels>")
        if print_ is None:
            unchecked.append(name)
        elif reference is not None and print_ != reference[0]:
            raise InputError(
                None,
                f"{name} was evaluated on other judgements ({source}) than the comparison's "
                f"qrels ({reference[1]}): evaluate every run on the same qrels",
            )
        elif reference is None and first is not None and print_ != first[1]:
            raise InputError(
                None,
                f"{name} was evaluated on other judgements ({source}) than {first[0]} "
                f"({first[2]}): evaluate every run on the same qrels",
            )
        if print_ is not None and first is None:
            first = (name, print_, source)
    if not unchecked or (reference is None and first is None):  # nothing to check against
        return []
    against = f"against {reference[1]}" if reference else "against the others"
    message = (
        f"given evaluated without a record of their qrels (built by hand?): not checked "
        f"{against}: {', '.join(unchecked)}"
    )
    return [EvalWarning("unchecked_qrels", message, len(unchecked))]


def evaluate_run(
    name: str,
    item,
    qrels_table: Qrels | None,
    measures,
    protocol,
    options: EvalOptions,
    validate_on: str | None,
    same_year: bool,
    recipe: str | None = None,
) -> tuple[EvalResult, RunFacts | None]:
    """One run's evaluation and facts (none when it came evaluated already): in this
    process, or as a task on a Dask worker."""
    if isinstance(item, Resolution):  # its run is at hand: its facts are known
        result = field_result(name, item)
        return result, RunFacts.of(result, item.run, validate_on, same_year, options.memory,
                                   recipe)  # fmt: skip
    if is_evaluated(item):  # checked by check_evaluated
        return item, None
    with silenced():  # the comparison issues its warnings once, in the caller's process
        result = evaluate(item, qrels_table, measures, protocol=protocol, options=options)
    facts = RunFacts.of(result, item, validate_on, same_year, options.memory, recipe)
    return result, facts


def _on_cluster(jobs: dict[str, tuple], scheduler) -> dict[str, tuple]:
    """:func:`evaluate_run` of every run on the workers of a Dask cluster."""
    from ..reading.daskengine import dask_client

    with dask_client(scheduler) as client:
        qrels = next(iter(jobs.values()))[2]
        shared = client.scatter(qrels, broadcast=True, hash=False) if qrels is not None else None
        futures = {
            name: client.submit(evaluate_run, *job[:2], shared, *job[3:], pure=False)
            for name, job in jobs.items()
        }
        return dict(zip(futures, client.gather(list(futures.values()))))


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
    facts: dict[str, RunFacts | None],
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
    results: dict[str, EvalResult], facts: dict[str, RunFacts | None], policy: str
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
    name: str, result: EvalResult, facts: RunFacts | None, evaluated: pd.Index, policy: str
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


def _dataset_id(qrels) -> str | None:
    """The ir_datasets id the qrels came from, when they did."""
    if isinstance(qrels, str) and not Path(qrels).exists():
        import ir_datasets

        if qrels in ir_datasets.registry:
            return qrels
    return None
