"""One chunk of whole queries cross-checked (:func:`check_chunk`): trec_eval's side with
its tie ranges, and the recipe's side with the causes of every difference.

A run is read in chunks of whole queries (the whole run as one chunk when it fits); what a
chunk leaves (:class:`CheckedPart`) is merged once over the whole run by
:mod:`citeval_irm.checks.crosscheck_merge`. Everything here pickles, for the workers of a
Dask cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..base.errors import EvalWarning
from ..base.measures import Measure
from ..evaluation.evaluate import Part, Settings, score_part
from ..papers.recipe_scorer import RecipeScorer
from ..papers.recipes import Recipe
from ..reading.io import drop_duplicates
from ..reading.tables import Qrels, Run, lookup_unique, take
from ..scoring import build_rankings, tie_range_matrix
from .crosscheck_causes import TOLERANCE, attribute


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
