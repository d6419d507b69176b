"""The causes of a difference between a paper's recipe and trec_eval: the closed list
(:data:`CAUSES`), their detection and their count.

A cause is *detected*, not guessed: the recipe's quirks are switched off one at a time, in
a fixed order, and a quirk is a cause of a (query, measure) difference when switching it off
moves the value (:func:`attribute`); with all of them off the recipe computes trec_eval's
number, and anything still different is ``unexplained``. The causes of the queries the two
sides average differently (missing, run-only, no relevant paper) are found by comparing the
two populations (:mod:`citeval_irm.checks.crosscheck_merge`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base.errors import examples_of
from ..papers.recipe_scorer import RecipeScorer
from ..papers.recipes import Quirks

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
