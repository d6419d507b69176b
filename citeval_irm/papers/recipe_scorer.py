"""A run scored the way a paper's script scores it: :class:`RecipeScorer`.

A :class:`~citeval_irm.papers.recipes.Recipe` is plain data (its quirks, measures and
crashes); this module turns quirks into rankings and kernel parameters of the scoring core.
With every quirk off it computes exactly what trec_eval computes. It is apart from
:mod:`~citeval_irm.papers.recipes` so that naming the recipes (the papers' registry, the
command line's choices) imports neither numpy nor pyarrow.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.measures import Measure
from ..reading.tables import Qrels, Run, first_rows, lookup, lookup_unique, take
from ..reading.ties import RankOrder, rank_order
from ..scoring import Rankings, build_rankings, params_of, require
from .recipes import MAX_RECALL_CUTOFF, Quirks, Recipe


def first_gold_only(qrels: Qrels, min_relevance: int) -> Qrels:
    """``qrels`` with every gold label but the first listed of each query set to 0."""
    gold = np.flatnonzero(qrels.relevance >= min_relevance)
    first = first_rows(qrels.query, gold, len(qrels.all_query_ids))
    keep = np.zeros(len(qrels), dtype=bool)
    keep[first[first >= 0]] = True
    labels = np.where((qrels.relevance >= min_relevance) & ~keep, 0, qrels.relevance)
    return replace(qrels, relevance=labels)


def in_pool_only(qrels: Qrels, pool: pa.Array, min_relevance: int) -> Qrels:
    """``qrels`` with the gold papers that are not in ``pool`` (doc ids) set to 0."""
    outside = lookup_unique(qrels.doc_ids, pool)[qrels.doc] < 0
    labels = np.where((qrels.relevance >= min_relevance) & outside, 0, qrels.relevance)
    return replace(qrels, relevance=labels)


def context_id_gold(query_ids: list[str]) -> tuple[Qrels, np.ndarray]:
    """DualLCR's gold: the ``<cited>`` part of each ``<citing>_<cited>_<n>`` id, one paper
    with label 1; and which ids have no such part (the script's ``IndexError``)."""
    parts = [q.split("_") for q in query_ids]
    has = np.array([len(p) > 1 for p in parts], dtype=bool)
    queries = [q for q, ok in zip(query_ids, has) if ok]
    docs = [p[1] for p, ok in zip(parts, has) if ok]
    if not queries:
        queries, docs = [query_ids[0]], [""]  # one placeholder row: the qrels need a dictionary
        labels = [0]
    else:
        labels = [1] * len(queries)
    qrels = Qrels.from_columns(
        pa.array(queries, pa.string()),
        pa.array(docs, pa.string()),
        labels,
        "<context ids>",
        unjudged=tuple(query_ids),
    )
    return qrels, ~has


class RecipeScorer:
    """Scores one run the way a recipe does, under any set of quirks.

    ``query_ids``: the queries to score; ``papers``: the query paper of each (``None``:
    unknown); ``ties``: the order in which the recipe sees tied scores when its
    ``tie_order`` quirk is on; ``pool``: the candidate pool (doc ids), for ``gold_in_pool``.
    Rank orders and rankings are computed once per setting.
    """

    def __init__(
        self,
        run: Run,
        qrels: Qrels,
        query_ids: list[str],
        papers: list[str | None],
        ties: str = "run_order",
        pool: pa.Array | None = None,
    ):
        self.run, self.qrels, self.query_ids, self.papers = run, qrels, query_ids, papers
        self.ties, self.pool = ties, pool
        self._orders: dict[str, RankOrder] = {}
        self._rankings: dict[tuple, Rankings] = {}
        self._gold: dict[tuple, Qrels] = {}
        self._positions: dict[tuple, np.ndarray] = {}

    def restricted(self, rows: np.ndarray) -> RecipeScorer:
        """The scorer for the queries at ``rows`` only (rank orders are shared)."""
        rows = rows.tolist()
        other = RecipeScorer(
            self.run,
            self.qrels,
            [self.query_ids[i] for i in rows],
            [self.papers[i] for i in rows],
            self.ties,
            self.pool,
        )
        other._orders = self._orders
        return other

    @cached_property
    def _query_array(self) -> pa.Array:
        """``query_ids`` as one Arrow array, looked up in each gold the recipe sees."""
        return pa.array(self.query_ids, pa.string())

    def _gold_key(self, quirks: Quirks) -> tuple:
        """What makes one gold differ from another: the quirks that choose it."""
        return (quirks.gold, quirks.gold_in_pool and self.pool is not None, quirks.min_relevance)

    def _positions_in_gold(self, quirks: Quirks) -> np.ndarray:
        """Position of each of ``query_ids`` in the gold's ``all_query_ids``: found once per
        gold, as the counts and every ranking of that gold ask for it."""
        key = self._gold_key(quirks)
        if key not in self._positions:
            gold = self.gold(quirks)
            self._positions[key] = lookup_unique(self._query_array, gold.all_query_ids)
        return self._positions[key]

    def order(self, ties: str) -> RankOrder:
        if ties not in self._orders:
            self._orders[ties] = rank_order(self.run, ties)
        return self._orders[ties]

    def gold(self, quirks: Quirks) -> Qrels:
        """The judgements the recipe sees, holding every query to score."""
        key = self._gold_key(quirks)
        if key not in self._gold:
            qrels = self.qrels
            if quirks.gold == "context_id":
                qrels = context_id_gold(self.query_ids)[0]
            elif quirks.gold == "first_listed":
                qrels = first_gold_only(qrels, quirks.min_relevance)
            if key[1]:
                qrels = in_pool_only(qrels, self.pool, quirks.min_relevance)
            absent = np.flatnonzero(lookup_unique(self._query_array, qrels.all_query_ids) < 0)
            missing = tuple(self.query_ids[i] for i in absent.tolist())
            if missing:
                qrels = replace(qrels, unjudged_queries=qrels.unjudged_queries + missing)
            self._gold[key] = qrels
        return self._gold[key]

    def relevant(self, quirks: Quirks) -> np.ndarray:
        """Number of gold papers of each query, as the recipe sees them."""
        qrels = self.gold(quirks)
        counts = qrels.relevant_per_query(quirks.min_relevance)
        return counts[self._positions_in_gold(quirks)]

    def rankings(self, quirks: Quirks, rule: str, depth: int | None) -> Rankings:
        """The rankings under ``quirks`` for measures whose duplicate rule is ``rule``."""
        key = (
            quirks.tie_order,
            rule == "drop",
            depth,
            quirks.query_paper,
            quirks.gold,
            quirks.gold_in_pool,
            quirks.min_relevance,
        )
        if key not in self._rankings:
            qrels = self.gold(quirks)
            counted = self._positions_in_gold(quirks)
            exclude = None
            if quirks.query_paper != "keep":
                exclude = self._paper_codes(quirks)
            self._rankings[key] = build_rankings(
                self.run,
                qrels,
                counted,
                self.order(self.ties if quirks.tie_order else "trec_eval"),
                exclude_doc=exclude,
                exclude_first_copy=quirks.query_paper == "first_copy_unless_gold",
                first_copy_only=rule == "drop",
                depth=depth,
            )
        found = self._rankings[key]
        if rule == "first_copy":
            found = found.first_copies_only()
        if quirks.unretrieved_rank is not None:
            found = found.with_unretrieved_at(quirks.unretrieved_rank, quirks.min_relevance)
        return found

    def _paper_codes(self, quirks: Quirks) -> np.ndarray:
        """Per query, the run's doc code of its paper to remove (-1: none; with
        ``first_copy_unless_gold`` also none when the paper is one of its gold papers)."""
        run = self.run
        papers = pa.array(self.papers, pa.string())  # None: no paper
        known = pc.unique(papers.drop_null())
        # the scored query of each run row, and whether its doc is that query's paper (by
        # id: a streamed chunk's dictionary may give one doc two codes, in two queries)
        scored = lookup(run.query_ids, self._query_array)[run.query]
        paper = lookup(papers, known)
        row_doc = lookup(run.doc_ids, known)[run.doc]
        rows = np.flatnonzero(scored >= 0)
        rows = rows[(row_doc[rows] >= 0) & (row_doc[rows] == paper[scored[rows]])]
        codes = np.full(len(self.papers), -1, dtype=np.int64)
        codes[scored[rows]] = run.doc[rows]
        if quirks.query_paper == "first_copy_unless_gold":
            codes = np.where(self.paper_is_gold(quirks), -1, codes)
        return codes.astype(np.int64)

    def paper_is_gold(self, quirks: Quirks) -> list[bool]:
        """Per query, whether its own paper is one of its gold papers (as the recipe sees
        the gold)."""
        qrels = self.gold(quirks)
        gold = qrels.relevance >= quirks.min_relevance
        pairs = set(
            zip(
                take(qrels.all_query_ids, qrels.query[gold]).to_pylist(),
                take(qrels.doc_ids, qrels.doc[gold]).to_pylist(),
            )
        )
        return [(q, p) in pairs for q, p in zip(self.query_ids, self.papers)]

    def values(self, measures: list[Measure], quirks: Quirks) -> np.ndarray:
        """Per query (rows) and measure (columns), as the recipe computes them."""
        depth: int | None
        if quirks.ranking_depth == MAX_RECALL_CUTOFF:
            cutoffs = [m.params["cutoff"] for m in measures if m.NAME == "R"]
            depth = max(cutoffs) if cutoffs else None
        elif isinstance(quirks.ranking_depth, str):
            raise ValueError(
                f"ranking_depth {quirks.ranking_depth!r}: a depth, None or {MAX_RECALL_CUTOFF!r}"
            )
        else:
            depth = quirks.ranking_depth
        out = np.empty((len(self.query_ids), len(measures)))
        recipe = quirks.kernel_params()
        for column, measure in enumerate(measures):
            rankings = self.rankings(quirks, quirks.duplicates_of(measure.NAME), depth)
            out[:, column] = require(measure).kernel(rankings, params_of(measure, **recipe))
        return out

    def crashes(self, recipe: Recipe) -> dict[str, np.ndarray]:
        """For each of the recipe's crash rules, which queries would stop its script."""
        quirks = recipe.quirks
        out = {}
        for crash in recipe.crashes:
            if crash.when == "no_gold":
                out[crash.when] = self.relevant(quirks) == 0
            elif crash.when == "no_context_id":
                out[crash.when] = context_id_gold(self.query_ids)[1]
            elif crash.when == "gold_not_retrieved":
                rankings = self.rankings(replace(quirks, unretrieved_rank=None), "first_copy", None)
                hit = np.zeros(len(self.query_ids), dtype=bool)
                relevant = rankings.label >= quirks.min_relevance
                hit[rankings.query[relevant]] = True
                out[crash.when] = ~hit & (self.relevant(quirks) > 0)
        return out
