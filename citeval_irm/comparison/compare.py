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

from ..base.choices import COMPARE_QUERY_POLICIES, MAX_AUTO_PERMUTATIONS, check_choice
from ..base.errors import CitevalError, EvalWarning, InputError, examples_of, issue, silenced
from ..base.measures import parse_measures
from ..base.options import EvalOptions, StatisticsOptions, options_from
from ..checks.protocol import ValidationReport, validate
from ..evaluation.evaluate import evaluate
from ..evaluation.results import EvalResult
from ..papers import PROTOCOLS
from ..reading.io import read_qrels
from ..reading.tables import Qrels
from . import stats
from .model import CompareSettings, Comparison

"""The paired tests every comparison computes."""

_TEST_FUNCTIONS = {"t": stats.paired_t, "wilcoxon": stats.wilcoxon, "sign": stats.sign_test}


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
    ``bm25``); a run is anything :func:`citeval_irm.evaluate` reads, or an
    :class:`~citeval_irm.EvalResult` already computed (then ``qrels`` may be omitted).
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
    named = named_inputs(runs)
    if baseline is not None and baseline not in named:
        raise InputError(None, f"baseline {baseline!r} is not one of the runs: {', '.join(named)}")
    evaluated_already = all(is_evaluated(item) for item in named.values())
    if qrels is None and not evaluated_already:
        raise InputError(None, "give qrels (a file or a dataset id) to evaluate the runs on")
    qrels_table = None if evaluated_already else read_qrels(qrels)
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
    names = _measure_names(results, measures, protocol)
    population, coverage, warnings = _population(results, facts, queries)
    values = np.stack(
        [results[name].per_query.loc[population, names].to_numpy() for name in named], axis=1
    )  # queries x runs x measures
    _check_values(values, list(named), names, population)
    settings, raised = _permutations_for(values, _pairs(list(named), baseline), settings)
    warnings += raised
    use_tukey = (len(named) >= 3 if tukey is None else tukey) or settings.test == "tukey"
    pairs, tukey_table = paired_statistics(
        values, list(named), names, baseline, settings, use_tukey
    )
    first = next(iter(results.values()))
    comparison = Comparison(
        names=list(named),
        baseline=baseline,
        measures=names,
        per_query=pd.DataFrame(
            values.transpose(0, 2, 1).reshape(len(population), -1),
            index=pd.Index(population, name="query_id"),
            columns=pd.MultiIndex.from_product([names, list(named)], names=["measure", "run"]),
        ),
        pairs=pairs,
        tukey=tukey_table,
        settings=settings,
        coverage=coverage,
        warnings=warnings + run_warnings(results),
        protocol=first.protocol,
        qrels_source=_qrels_source(qrels_table, qrels, first),
        results=results,
        display=options,
    )
    if dataset is not None:  # how much each run leans on popular papers, if it can be told
        from .facets import popularity_summary

        try:
            comparison.popularity = popularity_summary(
                {n: None if is_evaluated(item) else item for n, item in named.items()},
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
    if is_evaluated(item):
        policy = getattr(getattr(item, "ties", None), "policy", None)
        if policy is not None and policy != options.ties:
            raise InputError(
                None,
                f"{name} was evaluated with ties={policy!r}, the comparison uses "
                f"ties={options.ties!r}: every run must be evaluated the same way",
            )
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


def _pairs(names: list[str], baseline: str | None) -> list[tuple[int, int]]:
    """(reference, system) positions: each run against the baseline, else every pair."""
    if baseline is not None:
        base = names.index(baseline)
        return [(base, other) for other in range(len(names)) if other != base]
    return [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]


def paired_statistics(
    values: np.ndarray,
    names: list[str],
    measures: list[str],
    baseline: str | None,
    settings: CompareSettings,
    use_tukey: bool,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The pairs table (one row per measure and pair) and the Tukey HSD table."""
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(settings.seed).spawn(3)]
    pairs = _pairs(names, baseline)
    keys = [(m, a, b) for m in range(len(measures)) for a, b in pairs]
    tukey_p = None
    tukey_table = None
    single = len(values) < 2  # one query: nothing to infer, whatever the test
    if use_tukey and len(names) >= 2:
        tukey_p, exact = stats.randomised_tukey_hsd(values, settings.permutations, streams[2])
        if single:
            tukey_p[:] = np.nan
        tukey_table = _tukey_table(values, names, measures, tukey_p, exact)
    if not keys:
        return pd.DataFrame(columns=_PAIR_COLUMNS), tukey_table
    diffs = np.stack([values[:, b, m] - values[:, a, m] for m, a, b in keys], axis=1)
    p_rand, exact = stats.randomisation_test(diffs, settings.permutations, streams[0])
    low, high = stats.bootstrap_ci(diffs, settings.bootstrap, streams[1], settings.confidence)
    rows = []
    for column, (m, a, b) in enumerate(keys):
        d = diffs[:, column]
        reason = stats.degenerate(d)
        mean = d.mean()
        row = {
            "measure": measures[m],
            "baseline": names[a],
            "system": names[b],
            "baseline_mean": values[:, a, m].mean(),
            "system_mean": values[:, b, m].mean(),
            "diff": mean,
            "ci_low": low[column],
            "ci_high": high[column],
            "effect_size": stats.effect_size(d),
            "wins": int((d > 0).sum()),
            "ties": int((d == 0).sum()),
            "losses": int((d < 0).sum()),
            "p_randomisation": np.nan if single else p_rand[column],
            "randomisation_exact": bool(exact[column]),
        }
        directions = {"randomisation": _sign(mean), "tukey": _sign(mean)}
        for name, function in _TEST_FUNCTIONS.items():
            outcome = function(d)
            row[f"p_{name}"] = outcome.p
            directions[name] = outcome.direction
            if name == "wilcoxon":
                row["wilcoxon_method"] = outcome.method
        if tukey_p is not None:
            row["p_tukey"] = tukey_p[a, b, m]
        row["direction"] = directions[settings.test]
        row["unavailable"] = _unavailable(row, reason, settings.test)
        rows.append(row)
    table = pd.DataFrame(rows)
    primary = table[f"p_{settings.test}"].to_numpy(dtype=np.float64)
    table["p_adj"] = _adjusted(primary, settings.correction)
    table["significant"] = (table["p_adj"] < settings.alpha) & (table["direction"] != 0)
    return table, tukey_table


def _sign(value: float) -> int:
    return int(np.sign(value))


def _unavailable(row: dict, reason: str | None, test: str) -> str | None:
    """What the row cannot show and why (``None``: everything is there)."""
    missing = [label for label, column in _INFERENCE_COLUMNS if np.isnan(row.get(column, 0.0))]
    if not missing:
        return None
    if reason is None:
        reason = "the bootstrap gives no interval (zero width, or BCa undefined)"
    return f"{', '.join(missing)}: {reason}"


_INFERENCE_COLUMNS = [
    ("p(rand)", "p_randomisation"), ("p(t)", "p_t"), ("p(wsr)", "p_wilcoxon"),
    ("p(sign)", "p_sign"), ("p(tukey)", "p_tukey"), ("d_z", "effect_size"), ("CI", "ci_low"),
]  # fmt: skip


def _adjusted(p: np.ndarray, correction: str) -> np.ndarray:
    """The corrected p-values of a family; a test without a p (NaN) is not in the family
    and has no adjusted p."""
    out = np.full(len(p), np.nan)
    available = ~np.isnan(p)
    out[available] = stats.adjust(p[available], correction)
    return out


def _permutations_for(
    values: np.ndarray, pairs: list[tuple[int, int]], settings: CompareSettings
) -> tuple[CompareSettings, list[EvalWarning]]:
    """B raised to what the family needs (:func:`stats.permutations_needed`), within
    :data:`MAX_AUTO_PERMUTATIONS`; above that bound B stays and a warning gives the
    number needed. Only a Monte Carlo primary test has the floor: the randomisation test
    sampled for at least one pair (an enumerated one is exact), or the Tukey HSD."""
    if settings.test not in ("randomisation", "tukey") or len(values) < 2 or not pairs:
        return settings, []
    family = 1
    if settings.test == "randomisation":
        first, second = (np.array(side) for side in zip(*pairs))
        nonzero = (values[:, first, :] != values[:, second, :]).sum(axis=0).max()
        if 2 ** int(nonzero) <= settings.permutations:  # every pair enumerated: exact
            return settings, []
        family = len(pairs) * values.shape[2] if settings.correction != "none" else 1
    needed = stats.permutations_needed(family, settings.alpha)
    if needed <= settings.permutations:
        return settings, []
    floor = family / (settings.permutations + 1)
    if settings.test == "tukey":
        why = f"{settings.permutations:,} permutations put the smallest Tukey HSD p at {floor:.3g}"
    else:
        why = (
            f"{settings.permutations:,} permutations put the smallest {settings.correction}-"
            f"adjusted p of {family:,} tests at {family:,} / (B + 1) = {floor:.3g}"
        )
    if needed > MAX_AUTO_PERMUTATIONS:
        message = (
            f"{why}, above alpha / 2: no clear difference can come out significant; "
            f"B = {needed:,} is needed (more than the {MAX_AUTO_PERMUTATIONS:,} citeval "
            "raises B to by itself: pass permutations=, or compare fewer pairs or measures)"
        )
        return settings, [EvalWarning("permutations_too_few", message, needed)]
    message = f"{why}, above alpha / 2: raised to B = {needed:,}"
    raised = dataclasses.replace(
        settings, permutations=needed, permutations_requested=settings.permutations
    )
    return raised, [EvalWarning("permutations_raised", message, needed)]


_PAIR_COLUMNS = [
    "measure", "baseline", "system", "baseline_mean", "system_mean", "diff", "ci_low", "ci_high",
    "effect_size", "wins", "ties", "losses", "p_randomisation", "randomisation_exact", "p_t",
    "p_wilcoxon", "p_sign", "wilcoxon_method", "direction", "unavailable", "p_adj", "significant",
]  # fmt: skip


def _tukey_table(
    values: np.ndarray, names: list[str], measures: list[str], p: np.ndarray, exact: bool
) -> pd.DataFrame:
    """One row per measure and pair of runs (b minus a, for every a before b)."""
    means = values.mean(axis=0)
    rows = [
        {
            "measure": measure,
            "system_a": names[a],
            "system_b": names[b],
            "diff": means[b, m] - means[a, m],
            "p_tukey": p[a, b, m],
            "exact": exact,
        }
        for m, measure in enumerate(measures)
        for a in range(len(names))
        for b in range(a + 1, len(names))
    ]
    return pd.DataFrame(rows)


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
