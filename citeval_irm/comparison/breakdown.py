"""``breakdown``: where does a system win? A measure's mean per group of queries.

The queries of a dataset are grouped by a facet (:mod:`citeval_irm.comparison.facets`: citing year,
section heading, number of gold papers, venue, popularity of the gold paper in the training
split); for each group the breakdown gives its size, each run's mean of one measure with a
BCa bootstrap interval (:func:`citeval_irm.comparison.stats.bootstrap_ci`, as ``compare``) and,
with several runs, each run's difference from the baseline with compare's paired
statistics, the p-values corrected over every (group, run) tested. The values are
:func:`citeval_irm.evaluate`'s per-query values over every qrels query (a query a run does
not rank scores 0), so the group means weighted by the group sizes give the overall mean.
The result and how it prints are :mod:`.breakdown_result`'s :class:`Breakdown`.
"""

from __future__ import annotations

__all__ = ["MIN_QUERIES", "PAIR_COLUMNS", "Breakdown", "breakdown", "flagged", "popularity_section"]

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from ..base.choices import TESTS, check_choice
from ..base.errors import EvalWarning, InputError, examples_of, issue
from ..base.measures import one_measure
from ..base.options import (
    EvalOptions,
    ExecutionOptions,
    StatisticsOptions,
    display_decimals,
    display_percent,
    options_from,
)
from . import family, stats
from .breakdown_result import MIN_QUERIES, PAIR_COLUMNS, Breakdown, flagged
from .facets import FACETS, checked_bins, query_groups
from .model import CompareSettings


def popularity_section(
    comparison,
    dataset: str,
    options: EvalOptions | None = None,
    *,
    percent: bool | None = None,
    decimals: int | None = None,
):
    """The report section of a comparison's popularity summary: its lines, and the runs'
    breakdown by popularity bin with the plot (the comparison's draws and seed), in
    ``percent`` with ``decimals``."""
    from .facets import popularity_lines

    s = comparison.settings
    found = breakdown(
        comparison.results,
        dataset,
        comparison.measures[0],
        by="popularity",
        baseline=comparison.baseline,
        options=replace(options or EvalOptions(), ties=s.ties),
        statistics=StatisticsOptions(
            permutations=s.permutations, bootstrap=s.bootstrap, seed=s.seed
        ),
    )
    lines = tuple(popularity_lines(comparison.popularity))
    return found.section("popularity", lines, percent=percent, decimals=decimals)


def _valued(groups, values: np.ndarray, measure: str):
    """The queries every run has a value of ``measure`` for (a resolution's rates have none
    for a query without references), and the others counted in a warning."""
    missing = np.isnan(values).any(axis=1)
    if not missing.any():
        return groups, values, []
    left = groups.index[missing]
    warning = EvalWarning(
        "queries_without_value",
        f"queries with no value of {measure} (e.g. no references): left out of the breakdown",
        len(left),
        examples_of(left),
        "queries",
    )
    return groups[~missing], values[~missing], [warning]


def breakdown(
    runs,
    dataset: str,
    measures: str | None = None,
    *,
    by: str,
    protocol=None,
    bins: int = 3,
    baseline: str | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
    statistics: StatisticsOptions | None = None,
) -> Breakdown:
    """A measure's mean per group of a dataset's queries, grouped by a facet.

    A system better on average may be worse on the queries that matter (rare papers, recent
    years); the breakdown tests the difference within each group.

    Parameters
    ----------
    runs : run, list or dict
        One run, a list (named after their file stems) or ``{name: run}``; anything
        :func:`citeval_irm.evaluate` reads, or an :class:`~citeval_irm.EvalResult` of the
        dataset.
    dataset : str
        The ir_datasets dataset or id whose queries are grouped.
    measures : str, optional
        The one measure broken down. Default: the first of the protocol's.
    by : str
        A facet of :data:`citeval_irm.comparison.facets.FACETS` (keyword-only).
    protocol : str or Protocol, optional
        Default: the dataset's own.
    bins : int, default 3
        Popularity bins (3: tail / torso / head).
    baseline : str, optional
        The run the others are compared with. Default: the first.
    options : EvalOptions, optional
        What the runs' numbers mean, as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        How they are computed, as in :func:`citeval_irm.evaluate` (no progress bar).
    statistics : StatisticsOptions, optional
        As in :func:`citeval_irm.compare`, corrected over every (group, run) tested.

    Returns
    -------
    Breakdown
        Each group's size and each run's mean in it, with the tests against the baseline;
        ``format(percent=..., decimals=..., min_queries=...)`` prints it (groups smaller
        than ``min_queries``, default 30, flagged).

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> groups = citeval_irm.breakdown({"bm25": run}, "citeval/demo/test", "RR", by="year")
    """
    from ..reading.io import read_qrels
    from .compare import compare_settings, named_inputs
    from .compare import run_warnings as warnings_of

    options, execution, statistics = options_from(
        "breakdown",
        (options, EvalOptions),
        (execution, ExecutionOptions),
        (statistics, StatisticsOptions),
    )
    check_choice("test", statistics.test, TESTS)
    _check_facet(measures, by)
    checked_bins(bins)  # before the evaluations, not after them
    settings = compare_settings(statistics, "all", options.ties)
    found, protocol = _dataset_of(dataset, protocol)
    name = found[0]
    named = named_inputs(runs if isinstance(runs, (Mapping, list, tuple)) else [runs])
    if baseline is not None and baseline not in named:
        raise InputError(None, f"baseline {baseline!r} is not one of the runs: {', '.join(named)}")
    baseline = baseline or next(iter(named))
    if measures is None and protocol is None:
        raise InputError(None, f"{name} names no protocol: give a measure")
    results, measure = _evaluated(named, name, measures, protocol, (options, execution))
    first = next(iter(results.values()))
    groups = query_groups(found, by, read_qrels(name).frame, bins).reindex(first.per_query.index)
    values = np.stack([results[r].per_query[measure].to_numpy() for r in named], axis=1)
    groups, values, unvalued = _valued(groups, values, measure)
    names = list(named)
    rows, blocks = _group_rows(groups, values, names, measure, settings)
    tested = family.tested(blocks, baseline, settings, column="group") if len(names) > 1 else None
    issue(tested.warnings if tested else [])  # B raised for the family, as compare says
    percent = display_percent(None, first.protocol)
    return Breakdown(
        dataset=name,
        facet=by,
        measure=measure,
        runs=names,
        baseline=baseline if len(names) > 1 else None,
        groups=flagged(pd.DataFrame(rows), MIN_QUERIES),
        pairs=tested.pairs if tested else pd.DataFrame(),
        overall=pd.Series({r: results[r].aggregate[measure] for r in names}),
        percent=percent,
        decimals=display_decimals(percent, first.protocol),
        min_queries=MIN_QUERIES,
        test=settings.test,
        correction=settings.correction,
        confidence=settings.confidence,
        warnings=warnings_of(results) + unvalued + (tested.warnings if tested else []),
        settings=tested.settings if tested else settings,
        family=tested.family if tested else None,
        protocol=first.protocol,
    )


def _check_facet(measures, by: str) -> None:
    """``by`` must be a facet, and a facet given as the measure says where it goes."""
    if isinstance(measures, str) and measures in FACETS:
        raise TypeError(
            f"breakdown(runs, dataset, measures, *, by=...): {measures!r} is a facet, "
            f"give it as by={measures!r}"
        )
    if by not in FACETS:
        raise InputError(None, f"unknown facet {by!r}; choose from {', '.join(FACETS)}")


def _dataset_of(dataset, protocol) -> tuple[tuple[str, object], object]:
    """The dataset (its id and the ir_datasets dataset) and the protocol: the one given,
    else the dataset's own."""
    from ..checks.protocol import dataset_protocol
    from ..reading.io import as_dataset

    found = as_dataset(dataset)
    if found is None:
        raise InputError(None, f"breakdown needs a dataset id, not {dataset!r}")
    return found, protocol or dataset_protocol(found[1])


def _evaluated(
    named: dict, dataset: str, measure: str | None, protocol, given: tuple
) -> tuple[dict, str]:
    """Each run's evaluation on ``dataset`` (a run given evaluated as it is) and the
    measure broken down (default: the first run's first); every run must have its values
    on the same queries. ``given``: the options and the execution options."""
    from ..evaluation.evaluate import evaluate
    from .compare import is_evaluated

    values_of_all = all(
        is_evaluated(item) and measure in item.per_query.columns for item in named.values()
    )  # a value every result already has per query (a resolution's existence_rate) is
    if measure is not None and not values_of_all:  # as named; a measure: any spelling eval takes
        measure = str(one_measure(measure))
    options, execution = given
    quiet = replace(execution, progress=False)
    results = {
        run: item
        if is_evaluated(item)
        else evaluate(item, dataset, measure, protocol=protocol, options=options, execution=quiet)
        for run, item in named.items()
    }
    first = next(iter(results.values()))
    measure = measure or str(first.measures[0])
    for run, result in results.items():
        if measure not in result.per_query.columns:
            raise InputError(None, f"{run} has no values for {measure}")
        if not result.per_query.index.equals(first.per_query.index):
            raise InputError(
                None, f"{run} was evaluated on other queries than {next(iter(results))}"
            )
    return results, measure


def _group_rows(
    groups: pd.Series,
    values: np.ndarray,
    names: list[str],
    measure: str,
    settings: CompareSettings,
) -> tuple[list[dict], dict]:
    """Per group (in its facet's order, empty ones left out): its size, each run's mean and
    BCa interval (compare's bootstrap stream), and its block of values to test."""
    rows, blocks = [], {}
    bootstrap_stream = np.random.SeedSequence(settings.seed).spawn(3)[1]  # compare's stream
    for group in groups.cat.categories:
        inside = (groups == group).to_numpy()
        if not inside.any():
            continue
        chunk = values[inside]
        low, high = stats.bootstrap_ci(
            chunk, settings.bootstrap, np.random.default_rng(bootstrap_stream), settings.confidence
        )
        row = {"group": group, "queries": int(inside.sum())}
        for position, run in enumerate(names):
            row[run] = chunk[:, position].mean()
            row[f"{run} low"], row[f"{run} high"] = low[position], high[position]
            nonzero = int((chunk[:, position] != 0).sum())
            row[f"{run} few"] = bool(nonzero < stats.FEW_NONZERO and not np.isnan(low[position]))
        rows.append(row)
        blocks[group] = (chunk[:, :, None], names, [measure])
    return rows, blocks
