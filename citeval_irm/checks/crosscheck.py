"""The cross-check: every number two ways, every difference explained.

For each measure, :func:`crosscheck` computes the value with trec_eval semantics (through
ir-measures, :func:`citeval_irm.evaluate`) and with a paper's recipe
(:mod:`citeval_irm.papers.recipes`), compares them query by query, and gives each difference its
causes from a closed list (:data:`CAUSES`). Causes are *detected*, not guessed: the recipe's
quirks are switched off one at a time, in a fixed order, and a quirk is a cause when
switching it off moves the value; with all of them off the recipe computes trec_eval's
number, and anything still different is reported as ``unexplained``. Differences in which
queries are averaged (missing, run-only, no relevant paper) are found by comparing the two
populations.

For queries with tied scores, the report also gives each measure's worst, expected
(uniformly random tie order) and best value, so a user sees how much of a score is luck.

The run is read in chunks of whole queries (the whole run as one chunk when it fits); each
chunk is cross-checked (:func:`check_chunk`: everything it leaves pickles, for the workers
of a Dask cluster), and the chunks are merged once (:func:`merge_checked`) into a
:class:`~.crosscheck_report.CrosscheckReport`, as from a run read whole.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa

from ..base.choices import TIE_POLICIES, check_choice
from ..base.errors import EvalWarning, InputError, examples_of, issue
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, ExecutionOptions, options_from
from ..evaluation.evaluate import (
    Part,
    Settings,
    counted_queries,
    empty_run,
    in_population_order,
    merge_parts,
    merge_warnings,
    resolve_measures,
    score_part,
)
from ..evaluation.results import EvalResult
from ..papers import PROTOCOLS, get_recipe
from ..papers.recipe_scorer import RecipeScorer
from ..papers.recipes import Quirks, Recipe, check_recipe_measures, query_paper_of
from ..reading.io import KEEP_ALL, as_dataset, drop_duplicates, read_qrels
from ..reading.sources import Read, read_in_chunks
from ..reading.tables import Qrels, Run, lookup_unique, take
from ..scoring import build_rankings, tie_range_matrix
from .crosscheck_report import CrosscheckReport

# --------------------------------------------------------------------------- the causes


TOLERANCE = 1e-9

CAUSES: dict[str, str] = {
    "tie_order": "tied scores: the recipe keeps the run's order, trec_eval puts tied docs in "
    "descending doc id order",
    "duplicate_doc": "a doc listed twice in the ranking: the recipe's script counts it its own "
    "way (once at its first copy, or every copy), trec_eval keeps the best-scored copy only",
    "ranking_depth": "the recipe cuts the list at a fixed depth (the largest Recall cut-off) "
    "before removing the query paper: MAP and MRR see only that depth",
    "query_paper_removed": "the query's own (citing) paper is in its ranking: the recipe removes "
    "it, trec_eval ranks it as a non-relevant doc",
    "query_paper_gold_removed": "the query's own paper is one of its gold papers and the recipe "
    "removes it from the ranking anyway (it stays in the gold set)",
    "label_threshold": "the recipe counts only labels at or above its threshold as gold, "
    "trec_eval every label >= 1",
    "single_gold": "several relevant papers: the recipe scores only the first listed one",
    "gold_from_context_id": "the recipe takes the gold paper from the context id "
    "(<citing>_<cited>_<n>), not from the qrels",
    "gold_outside_pool": "a gold paper outside the candidate pool: the recipe drops it from the "
    "gold set, trec_eval counts it as relevant and never retrieved",
    "first_listed_gold": "several relevant papers: the recipe's RR uses the first listed gold "
    "paper while another relevant paper ranks higher",
    "gold_not_retrieved": "the recipe's (first listed) gold paper is not retrieved, while "
    "another relevant paper is",
    "graded_labels": "graded labels: the recipe uses binary gains, trec_eval gain = label",
    "truncated_cutoff": "the recipe's reciprocal rank is truncated (MRR@N), trec_eval's is not",
    "unretrieved_rank": "a gold paper that is not retrieved is given a fixed rank by the recipe "
    "(SymTax's rank-100 rule), so it counts as a hit at large K",
    "missing_query": "a qrels query has no ranking in the run: trec_eval -c scores it 0, the "
    "recipe does not average it",
    "run_only_query": "a run query is not in the qrels: the recipe averages it, trec_eval "
    "ignores it",
    "query_without_relevant": "a query with no relevant paper: trec_eval scores it 0, the recipe "
    "does not average it",
    "unexplained": "a difference none of the causes above accounts for",
}

_QUIRK_CAUSE = {
    "tie_order": "tie_order",
    "duplicates": "duplicate_doc",
    "ranking_depth": "ranking_depth",
    "query_paper": "query_paper_removed",
    "min_relevance": "label_threshold",
    "gold": "single_gold",
    "gold_in_pool": "gold_outside_pool",
    "first_listed_gold": "first_listed_gold",
    "binary_gains": "graded_labels",
    "rr_cutoff": "truncated_cutoff",
    "unretrieved_rank": "unretrieved_rank",
}


def attribute(
    scorer: RecipeScorer, measures, quirks: Quirks, values: np.ndarray, reference: np.ndarray
) -> list[list[list[str]]]:
    """Causes of each (query, measure) of ``scorer``'s queries: the recipe's quirks are
    switched off one at a time, in attribution order; a quirk that moves the value is a
    cause. What still differs with every quirk off is ``unexplained``."""
    causes: list[list[list[str]]] = [[[] for _ in measures] for _ in range(len(values))]
    for name in quirks.active():
        lighter = quirks.without(name)
        moved_values = scorer.values(measures, lighter)
        moved = np.abs(moved_values - values) > TOLERANCE
        if moved.any():
            label = _cause_names(scorer, name, quirks)
            for row, column in zip(*np.nonzero(moved)):
                causes[row][column].append(label[row])
        quirks, values = lighter, moved_values
    for row, column in zip(*np.nonzero(np.abs(values - reference) > TOLERANCE)):
        causes[row][column].append("unexplained")
    return causes


def _cause_names(scorer: RecipeScorer, quirk: str, quirks: Quirks) -> list[str]:
    """The cause a quirk names for each query: ``first_listed_gold`` is
    ``gold_not_retrieved`` where that gold paper is not in the ranking at all; removing the
    query paper is ``query_paper_gold_removed`` where that paper is gold; the gold source
    says which source it is."""
    cause = _QUIRK_CAUSE[quirk]
    if quirk == "gold" and quirks.gold == "context_id":
        cause = "gold_from_context_id"
    if quirk not in ("first_listed_gold", "query_paper"):
        return [cause] * len(scorer.query_ids)
    if quirk == "query_paper":
        return [
            "query_paper_gold_removed" if gold else cause for gold in scorer.paper_is_gold(quirks)
        ]
    rankings = scorer.rankings(quirks, "first_copy", None)
    first = rankings.judgements.first_relevant_row(quirks.min_relevance)
    retrieved = np.zeros(len(rankings.judgements.label) + 1, dtype=bool)
    retrieved[rankings.qrel_row] = True
    return [cause if row < 0 or retrieved[row] else "gold_not_retrieved" for row in first]


def cause_table(diff_frame: pd.DataFrame) -> pd.DataFrame:
    """One row per cause found in the differences (the closed list's order): its
    description, the (query, measure) differences and queries it explains, examples."""
    columns = ["cause", "description", "differences", "queries", "examples"]
    if diff_frame.empty:
        return pd.DataFrame(columns=columns)
    exploded = diff_frame.assign(cause=diff_frame["causes"].str.split(";")).explode("cause")
    rows = []
    for cause in CAUSES:  # the closed list's order
        hit = exploded[exploded["cause"] == cause]
        if len(hit):
            queries = pd.unique(hit["query_id"])
            rows.append((cause, CAUSES[cause], len(hit), len(queries), examples_of(queries, 3)))
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- a chunk


@dataclass(frozen=True)
class Check:
    """What every chunk of a run is cross-checked with (it pickles, for Dask workers)."""

    qrels: Qrels
    measures: list[Measure]
    recipe: Recipe
    ties: str  # the order in which the recipe sees tied scores
    paper_of: Callable[[str], str | None]
    pool: pa.Array | None
    reference: Settings  # the trec_eval side: trec_eval's tie order


@dataclass
class RecipePart:
    """The recipe's side of some queries: its values, where its script would stop, and
    every (query, measure) it differs on from trec_eval, with the causes."""

    query_ids: list[str]
    values: np.ndarray
    crashes: dict[str, np.ndarray]  # per crash rule, per query
    differences: list[tuple[int, tuple]]  # (row in query_ids, a row of the differences)


@dataclass
class CheckedPart:
    """What cross-checking one chunk of whole queries leaves."""

    reference: Part  # the trec_eval side, of the chunk with duplicates dropped
    tie_ranges: tuple[np.ndarray, np.ndarray, np.ndarray]  # worst, expected, best per row
    run_warnings: list[EvalWarning]  # of the chunk as read, every copy kept
    recipe: RecipePart


def check_chunk(raw: Run, check: Check) -> CheckedPart:
    """Cross-check one chunk of whole queries (read with every copy kept): trec_eval's
    values of its counted queries and their tie ranges, and the recipe's side of the
    recipe's queries it ranks."""
    qrels = check.qrels
    deduplicated = drop_duplicates(raw)
    reference = score_part(deduplicated, qrels, check.reference)
    ranges = tie_ranges(deduplicated, qrels, reference.rows, check.measures, reference.rankings)
    if check.recipe.queries == "run":
        recipe_ids = reference.run_ids.to_pylist()
    else:  # the qrels queries it ranks, in qrels order
        in_qrels = lookup_unique(reference.run_ids, qrels.all_query_ids)
        recipe_ids = take(qrels.all_query_ids, np.sort(in_qrels[in_qrels >= 0])).to_pylist()
    reference_ids = take(qrels.all_query_ids, reference.rows).to_pylist()
    reference_row = {q: i for i, q in enumerate(reference_ids)}
    recipe = recipe_part(raw, recipe_ids, check, reference_row, reference.values)
    return CheckedPart(reference, ranges, list(raw.warnings), recipe)


def tie_ranges(run: Run, qrels: Qrels, rows: np.ndarray, measures, rankings=None):
    """The worst / expected / best value of each query at ``rows`` (positions in the
    qrels) over every order of its tied scores, from ``rankings`` when given (the
    reference's: trec_eval's tie order, those queries, no depth), else built."""
    if rankings is None:
        rankings = build_rankings(run, qrels, rows, ties="trec_eval")
    return tie_range_matrix(measures, rankings)


def recipe_part(
    run: Run,
    query_ids: list[str],
    check: Check,
    reference_row: Mapping[str, int],
    reference_values: np.ndarray,
) -> RecipePart:
    """The recipe's side of ``query_ids`` (queries ``run`` ranks, or an empty run for
    those no chunk ranks), compared with trec_eval's values (``reference_row``: a query's
    row of ``reference_values``, where trec_eval averages it)."""
    recipe, quirks, measures = check.recipe, check.recipe.quirks, check.measures
    nothing = RecipePart(
        [], np.empty((0, len(measures))), {c.when: np.zeros(0, bool) for c in recipe.crashes}, []
    )
    if not query_ids:
        return nothing
    papers = [check.paper_of(q) for q in query_ids]
    scorer = RecipeScorer(run, check.qrels, query_ids, papers, check.ties, check.pool)
    if recipe.queries == "gold_and_run":
        scorer = scorer.restricted(np.flatnonzero(scorer.relevant(quirks) > 0))
        query_ids = scorer.query_ids
        if not query_ids:
            return nothing
    values = scorer.values(measures, quirks)
    ref_of = np.array([reference_row.get(q, -1) for q in query_ids], dtype=np.int64)
    common = np.flatnonzero(ref_of >= 0)
    ref_values = reference_values[ref_of[common]]
    mine = values[common]
    differing = np.flatnonzero((np.abs(mine - ref_values) > TOLERANCE).any(axis=1))
    differences: list[tuple[int, tuple]] = []
    if differing.size:
        rows = common[differing]
        causes = attribute(
            scorer.restricted(rows), measures, quirks, mine[differing], ref_values[differing]
        )
        for i, row in enumerate(rows.tolist()):
            for column, measure in enumerate(measures):
                if causes[i][column]:
                    ref, value = ref_values[differing[i], column], mine[differing[i], column]
                    why = ";".join(causes[i][column])
                    found = (query_ids[row], str(measure), ref, value, value - ref, why)
                    differences.append((row, found))
    return RecipePart(query_ids, values, scorer.crashes(recipe), differences)


# --------------------------------------------------------------------------- merging


_DIFFERENCE_COLUMNS = ["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]


class _RecipeSide(NamedTuple):
    """The queries the recipe averages, in its script's order, with their values, crash
    flags (per crash rule) and differences from trec_eval in that order."""

    query_ids: list[str]
    values: np.ndarray
    crashes: dict[str, np.ndarray]
    differences: list[tuple]


def merge_checked(read: Read[CheckedPart], check: Check, protocol_obj) -> CrosscheckReport:
    """The report of the whole run from its chunks (in run order): trec_eval's evaluation
    merged once; the queries the recipe averages, which depend on the whole run's queries
    (those no chunk ranks scored on an empty ranking, as the script would); the
    differences, tie ranges and warnings in the order of a run read whole."""
    recipe, parts = check.recipe, read.results
    reference = merge_parts(
        [p.reference for p in parts], check.qrels, check.reference, None, read.source, read.notes
    )
    issue(reference.warnings)  # trec_eval's side, as its own evaluate() would
    reference_row = {q: i for i, q in enumerate(reference.query_ids)}
    run_set = {q for p in parts for q in p.reference.run_ids.to_pylist()}
    side = _recipe_side(parts, check, reference, reference_row, run_set, read.source)
    names = [str(m) for m in check.measures]
    diff_frame = _difference_frame(side, reference, reference_row, run_set, names)
    tie_frame, tie_means = _tie_table(parts, check, reference, read.source)
    return CrosscheckReport(
        recipe=recipe,
        protocol=protocol_obj,
        recipe_ties=check.ties,
        summary=_summary(names, reference, side.values, diff_frame, tie_means),
        differences=diff_frame,
        causes=cause_table(diff_frame),
        tie_queries=tie_frame,
        crashes=_crash_table(recipe, side.query_ids, side.crashes),
        recipe_per_query=pd.DataFrame(
            side.values, index=pd.Index(side.query_ids, name="query_id"), columns=names
        ),
        warnings=_warnings(read, check, reference, len(side.query_ids)),
        percent=protocol_obj.percent if protocol_obj is not None else recipe.percent,
        depth=_depth(reference),
    )


def _depth(reference: EvalResult) -> int | None:
    """The longest ranking the evaluation scored (``None``: not known, or nothing ranked)."""
    ranked = reference.ranked
    if ranked is None or not len(ranked.sizes):
        return None
    return int(np.max(ranked.sizes))


def _recipe_side(
    parts: list[CheckedPart],
    check: Check,
    reference: EvalResult,
    reference_row: Mapping[str, int],
    run_set: set[str],
    source: str,
) -> _RecipeSide:
    """The recipe's side of the whole run: its chunks' parts, and for a script that loops
    over the test set the qrels queries no chunk ranks, scored on an empty ranking."""
    qrels, recipe = check.qrels, check.recipe
    recipe_parts = [p.recipe for p in parts]
    if recipe.queries == "qrels":  # the test set's queries no chunk ranks: empty rankings
        unranked = [q for q in qrels.query_id_list if q not in run_set]
        nothing = empty_run(source)
        recipe_parts.append(recipe_part(nothing, unranked, check, reference_row, reference.values))
    return _recipe_in_order(recipe_parts, recipe, qrels, len(check.measures))


def _recipe_in_order(
    parts: list[RecipePart], recipe: Recipe, qrels: Qrels, width: int
) -> _RecipeSide:
    """The recipe's queries in the order its script averages them (the run's order for a
    loop over the predictions, the qrels' otherwise), with their values, crash flags and
    differences in that order."""
    query_ids = [q for p in parts for q in p.query_ids]
    if recipe.queries == "run":
        order = np.arange(len(query_ids))
    else:
        position = {q: i for i, q in enumerate(qrels.query_id_list)}
        order = np.argsort([position[q] for q in query_ids], kind="stable")
    values = np.vstack([np.empty((0, width)), *(p.values for p in parts)])[order]
    crashes = {
        c.when: np.concatenate([np.zeros(0, bool), *(p.crashes[c.when] for p in parts)])[order]
        for c in recipe.crashes
    }
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    found, first = [], 0
    for part in parts:
        found += [(rank[first + row], difference) for row, difference in part.differences]
        first += len(part.query_ids)
    found.sort(key=lambda pair: pair[0])  # stable: a query's measures stay in their order
    return _RecipeSide([query_ids[i] for i in order], values, crashes, [d for _, d in found])


def _difference_frame(
    side: _RecipeSide,
    reference: EvalResult,
    reference_row: Mapping[str, int],
    run_set: set[str],
    names: list[str],
) -> pd.DataFrame:
    """Every differing (query, measure): the recipe's, with their causes, then those of
    the queries only one side averages (trec_eval's without the recipe's: a missing query
    or one without a relevant paper; the recipe's without trec_eval's: a run-only query)."""
    differences = list(side.differences)
    scored_set = set(side.query_ids)
    for query_id, row in reference_row.items():
        if query_id not in scored_set:
            cause = "query_without_relevant" if query_id in run_set else "missing_query"
            differences += [
                (query_id, name, reference.values[row, c], math.nan, math.nan, cause)
                for c, name in enumerate(names)
            ]
    for row, query_id in enumerate(side.query_ids):
        if query_id not in reference_row:
            differences += [
                (query_id, name, math.nan, side.values[row, c], math.nan, "run_only_query")
                for c, name in enumerate(names)
            ]
    return pd.DataFrame(differences, columns=_DIFFERENCE_COLUMNS)


def _warnings(
    read: Read[CheckedPart], check: Check, reference: EvalResult, scored: int
) -> list[EvalWarning]:
    """The run's warnings as read, then trec_eval's: not its dropping of duplicates (which
    the recipe does not do), nor what reading already said (extra text, comments, sort);
    and, for a recipe that drops gold outside the pool, that no pool is known."""
    as_read = merge_warnings([*(p.run_warnings for p in read.results), read.notes])
    said = {w.code for w in as_read} | {"duplicate_docs_dropped"}
    warnings = as_read + [w for w in reference.warnings if w.code not in said]
    recipe = check.recipe
    if recipe.quirks.gold_in_pool and check.pool is None:
        warnings.append(
            EvalWarning(
                "pool_unknown",
                f"the {recipe.name} script drops gold papers outside the candidate pool; "
                "no pool is known (give pool= or a dataset), so every gold paper is kept",
                scored,
            )
        )
    return warnings


def _crash_table(
    recipe: Recipe, query_ids: list[str], crashes: dict[str, np.ndarray]
) -> pd.DataFrame:
    """One row per query on which the recipe's script would have stopped, and why."""
    columns = ["query_id", "exception", "line"]
    rows = []
    for crash in recipe.crashes:
        where = crashes[crash.when]
        rows += [(query_ids[i], crash.exception, crash.line) for i in np.flatnonzero(where)]
    return pd.DataFrame(rows, columns=columns)


def _tie_table(
    parts: list[CheckedPart], check: Check, reference: EvalResult, source: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """Per tied query and measure: the trec_eval value and its worst / expected / best
    over every order of the tied scores; and the three means over all counted queries
    (those no chunk ranks: over their empty ranking)."""
    columns = ["query_id", "measure", "trec_eval", "worst", "expected", "best"]
    qrels, measures = check.qrels, check.measures
    counted = counted_queries(qrels, check.reference.empty_queries)
    side_by_side = in_population_order(  # worst | expected | best, one block of columns each
        counted,
        qrels,
        [(part.reference.rows, np.hstack(part.tie_ranges)) for part in parts],
        3 * len(measures),
        lambda missing: np.hstack(tie_ranges(empty_run(source), qrels, missing, measures)),
    )
    worst, expected, best = np.hsplit(side_by_side, 3)
    means = np.vstack([worst.mean(axis=0), expected.mean(axis=0), best.mean(axis=0)])
    tied = reference.ties.query_ids if reference.ties else frozenset()
    rows = [i for i, q in enumerate(reference.query_ids) if q in tied]
    if not rows:
        return pd.DataFrame(columns=columns), means
    names = [str(m) for m in measures]
    out = pd.DataFrame(
        {
            "query_id": np.repeat([reference.query_ids[i] for i in rows], len(names)),
            "measure": np.tile(names, len(rows)),
            "trec_eval": reference.values[rows].ravel(),
            "worst": worst[rows].ravel(),
            "expected": expected[rows].ravel(),
            "best": best[rows].ravel(),
        }
    )
    return out, means


def _summary(names, reference, recipe_values, diff_frame, tie_means) -> pd.DataFrame:
    """One row per measure: both sides' means, their largest per-query difference, the
    queries that differ and the tie range of trec_eval's mean."""
    rows = {}
    for column, name in enumerate(names):
        mine = diff_frame[diff_frame["measure"] == name]
        both = mine["difference"].dropna()
        rows[name] = {
            "trec_eval": float(reference.aggregates[name]),
            "recipe": float(recipe_values[:, column].mean()) if len(recipe_values) else math.nan,
            "max_abs_query_difference": float(both.abs().max()) if len(both) else 0.0,
            "queries_differing": int(mine["query_id"].nunique()),
            "tie_worst": float(tie_means[0, column]),
            "tie_expected": float(tie_means[1, column]),
            "tie_best": float(tie_means[2, column]),
        }
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary.insert(2, "difference", summary["recipe"] - summary["trec_eval"])
    summary.index.name = "measure"
    return summary


# --------------------------------------------------------------------------- the verb


if TYPE_CHECKING:
    # Every form of a run, and of qrels, the one reader takes (citeval_irm.read_run, read_qrels);
    # qrels may also be an ir_datasets dataset (Any: the library ships no types).
    _Readable: TypeAlias = str | os.PathLike[str] | pd.DataFrame | Iterable[Mapping[str, Any]]
    RunInput: TypeAlias = _Readable | Mapping[str, Mapping[str, float]] | Run
    QrelsInput: TypeAlias = _Readable | Mapping[str, Mapping[str, int]] | Qrels | Any


def crosscheck(
    run: RunInput,
    qrels: QrelsInput,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    recipe: str | Recipe | None = None,
    recipe_ties: str = "run_order",
    query_papers: Mapping[str, str] | Callable[[str], str | None] | None = None,
    pool: Iterable[str] | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
) -> CrosscheckReport:
    """Score a run with trec_eval's semantics and with a paper's own script, and explain every
    per-query difference.

    A paper's evaluation script often differs from trec_eval (ties, duplicates, gold outside
    the pool); the report names the quirk behind each difference, so a published number can
    be reproduced or corrected.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        The run, in any form :func:`citeval_irm.evaluate` reads.
    qrels : path, Parquet, DataFrame, dict, records, Qrels or ir_datasets dataset / id
        What the run is scored against.
    measures : str, Measure or iterable, optional
        ir-measures syntax. Default: the protocol's, or else the recipe's own.
    protocol : str or Protocol, optional
        A paper's protocol (``"goyal2026"``); its recipe is the default ``recipe``.
    recipe : str or Recipe, optional
        The paper's script: ``goyal2026``, ``masterset2026``, ``duallcr``, ``symtax``,
        ``hatten``. Default: the protocol's own.
    recipe_ties : str, default "run_order"
        The order in which the recipe sees tied scores: ``"run_order"`` (as a paper's script
        reads its list) or ``"trec_eval"``. The trec_eval side always uses trec_eval's order.
    query_papers : mapping or callable, optional
        Query id -> its citing (query) paper. Default: the queries' ``citing_id`` when
        ``qrels`` is an ir_datasets dataset, else the ``<citing>`` part of a
        ``<citing>_<cited>_<n>`` id, else the query id itself.
    pool : iterable of str, optional
        The candidate pool, for a recipe that drops gold outside it. Default: the docs of the
        qrels' dataset; without one, gold is kept.
    options : EvalOptions, optional
        As in :func:`citeval_irm.evaluate`: ``empty_queries``; ``ties`` and ``duplicates``
        are not used (the recipe sees every copy of a doc, trec_eval the best-scored one)
        and ``max_docs`` is refused (the paper's script reads whole rankings).
    execution : ExecutionOptions, optional
        How the run is read and scored (``memory``, ``progress``, ``engine``, ...), as in
        :func:`citeval_irm.evaluate`. A run file larger than ``memory`` allows is
        cross-checked a chunk of whole queries at a time, with the same report.

    Returns
    -------
    CrosscheckReport
        Both sides' means, the queries that differ and each difference's cause.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> report = citeval_irm.crosscheck(run, "citeval/demo/test", protocol="goyal2026")
    >>> print(report.format())  # doctest: +SKIP
    """
    check_choice("recipe_ties", recipe_ties, TIE_POLICIES)
    options, execution = options_from(
        "crosscheck", (options, EvalOptions), (execution, ExecutionOptions)
    )
    if options.max_docs is not None:
        raise InputError(
            None, "a cross-check reads whole rankings, as the paper's script: no max_docs"
        )
    measure_list, protocol_obj, recipe_obj = _measures_and_recipe(measures, protocol, recipe)
    qrels_table = read_qrels(qrels)
    pool_ids = _pool_of(pool, qrels) if recipe_obj.quirks.gold_in_pool else None
    reference = replace(options, ties="trec_eval")
    check = Check(
        qrels_table,
        measure_list,
        recipe_obj,
        recipe_ties,
        _paper_lookup(query_papers, qrels),
        pool_ids,
        Settings(measure_list, reference, execution.engine, execution.verify),
    )
    read = read_in_chunks(
        run,
        functools.partial(check_chunk, check=check),
        duplicates=KEEP_ALL,
        memory=execution.memory,
        progress=execution.progress,
        dask=execution.engine == "dask",
        scheduler=execution.scheduler,
        label="citeval: cross-checking the run",
    )
    return merge_checked(read, check, protocol_obj)


def _measures_and_recipe(
    measures, protocol, recipe
) -> tuple[list[Measure], Protocol | None, Recipe]:
    """The measures, the protocol and the recipe of a cross-check: a recipe alone brings
    its own measures, a protocol its recipe; the recipe must compute every measure."""
    if (
        recipe is None
        and protocol is None
        and not (isinstance(measures, str) and measures in PROTOCOLS)
    ):
        raise InputError(None, "name a recipe (e.g. --recipe goyal2026) or a protocol")
    if recipe is not None and measures is None and protocol is None:
        measures = list(get_recipe(recipe).measures)  # a recipe alone: its own measures
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    if recipe is None:  # then a protocol is named: its paper's recipe
        recipe = protocol_obj.recipe if protocol_obj is not None else None
        if recipe is None:
            named = protocol_obj.name if protocol_obj is not None else protocol
            raise InputError(
                None, f"protocol {named!r} names no recipe to cross-check by: name one (a recipe)"
            )
    recipe_obj = get_recipe(recipe)
    check_recipe_measures(measure_list, recipe_obj)
    return measure_list, protocol_obj, recipe_obj


def _paper_lookup(query_papers, qrels) -> Callable[[str], str | None]:
    """Who the citing / query paper of a query is: the caller's mapping, else the
    ``citing_id`` of the qrels' ir_datasets queries, else read off the query id."""
    if query_papers is None:
        found = as_dataset(qrels)
        if found is not None:
            dataset: Any = found[1]  # an ir_datasets dataset (the library ships no types)
            if dataset.has_queries() and "citing_id" in dataset.queries_cls()._fields:
                from ..datasets.admissible import query_papers as dataset_query_papers

                return functools.partial(_paper_or_id, dataset_query_papers(dataset))
        return query_paper_of
    if isinstance(query_papers, Mapping):
        return query_papers.get
    return query_papers


def _paper_or_id(papers: Mapping[str, str], query_id: str) -> str | None:
    """The dataset's citing paper of a query, else the one its id names (a function, not
    a lambda, so the lookup pickles for the workers of a Dask cluster)."""
    return papers.get(query_id) or query_paper_of(query_id)


def _pool_of(pool, qrels) -> pa.Array | None:
    """The candidate pool as doc ids: the caller's, else the docs of the qrels' dataset."""
    if pool is None:
        found = as_dataset(qrels)
        data: Any = found[1] if found is not None else None  # ir_datasets ships no types
        if data is None or not data.has_docs():
            return None
        pool = (doc.doc_id for doc in data.docs_iter())
    return pa.array(list(pool), pa.string())
