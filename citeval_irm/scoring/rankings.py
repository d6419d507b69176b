"""The one columnar form the measures read: a ranked run joined once with its qrels.

:class:`Rankings` keeps, for the queries that count, how many docs each ranking holds and
one row per *judged* retrieved doc (a "hit": a doc the qrels label for that query) with its
rank, its rank among the judged docs and its label. Unjudged docs only need counting, so a
300-deep ranking with one judged doc costs one hit row. :class:`Judgements` holds the qrels
labels of the same queries, for the denominators (relevant docs, ideal DCG).

Everything is numpy arrays indexed by the counted query's position; no Python object per
line, per (query, doc) or per (query, measure).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow.compute as pc

from ..reading.tables import (
    Qrels,
    Run,
    arrow_array,
    first_copies,
    first_rows,
    lookup,
    lookup_unique,
    numpy_of,
    position_in_segment,
    run_starts,
    segment_starts,
    take,
)
from ..reading.ties import RankOrder, rank_order, tie_groups


@dataclass(frozen=True)
class Judgements:
    """The qrels rows of the counted queries, in qrels order (first listed first)."""

    query: np.ndarray  # counted-query position of each row
    label: np.ndarray
    n_queries: int

    def relevant(self, rel: int) -> np.ndarray:
        """Number of docs labelled >= ``rel`` per query."""
        return np.bincount(self.query[self.label >= rel], minlength=self.n_queries)

    def first_relevant_row(self, rel: int) -> np.ndarray:
        """Per query, the qrels row of its first listed doc labelled >= ``rel`` (-1: none)."""
        return first_rows(self.query, np.flatnonzero(self.label >= rel), self.n_queries)


# the per-hit arrays of Rankings, kept aligned
_HIT_FIELDS = ("query", "rank", "label", "qrel_row", "score", "group_start", "group_size")


@dataclass(frozen=True)
class Rankings:
    """Ranked run x qrels for the counted queries (see the module docstring).

    Hit arrays are sorted by (query, rank). ``group_start`` and ``group_size`` describe
    the tie group (equal scores) of each hit among all docs of its ranking, and
    ``score`` lets the judged-only view find its own tie groups.
    """

    n_queries: int
    num_ret: np.ndarray
    query: np.ndarray  # per hit: counted-query position
    rank: np.ndarray  # per hit: 1-based rank in the whole ranking
    label: np.ndarray  # per hit
    qrel_row: np.ndarray  # per hit: its row in ``judgements``
    score: np.ndarray  # per hit
    group_start: np.ndarray  # per hit: rank of the first doc of its tie group
    group_size: np.ndarray  # per hit
    judgements: Judgements

    def _take_hits(self, rows: np.ndarray, **changes) -> Rankings:
        """The rankings with the hits at ``rows`` (a mask, or positions in a new order);
        ``changes`` replace fields outright."""
        taken = {name: getattr(self, name)[rows] for name in _HIT_FIELDS if name not in changes}
        return replace(self, **taken, **changes)

    def judged_only(self) -> Rankings:
        """The rankings with every doc the qrels do not judge removed (trec_eval ``-J``):
        unjudged docs, and docs with a negative label, which trec_eval reads as unjudged."""
        keep = self.label >= 0
        query, score = self.query[keep], self.score[keep]
        num_ret = np.bincount(query, minlength=self.n_queries)
        rank = position_in_segment(query) + 1
        _, continues = tie_groups(query, score)
        group_start, group_size = _groups(rank, continues)
        return self._take_hits(
            keep,
            num_ret=num_ret,
            rank=rank,
            group_start=group_start,
            group_size=group_size,
        )

    def with_ties_resolved(self, best: bool) -> Rankings:
        """The rankings with every tie group ordered best-first (highest labels at the
        group's first ranks) or worst-first (highest labels at its last ranks): the two
        orders between which every tie order's value of a monotone measure lies."""
        label_key = -self.label if best else self.label
        order = np.lexsort((label_key, self.group_start, self.query))
        group_start, group_size = self.group_start[order], self.group_size[order]
        query = self.query[order]
        first = segment_starts(query, group_start)
        counts = np.diff(np.append(first, len(order)))
        offset = position_in_segment(query, group_start)
        if best:
            rank = group_start + offset
        else:
            rank = group_start + group_size - np.repeat(counts, counts) + offset
        return self._take_hits(order, rank=rank)

    def first_copies_only(self) -> Rankings:
        """The rankings with every copy of a judged doc after its first ignored: the copies
        keep their places but no longer count (``.index``, ``set(top K)`` in a script)."""
        first = first_copies(self.query, self.qrel_row, len(self.judgements.label))
        return self if first.all() else self._take_hits(first)

    def with_unretrieved_at(self, rank: int, rel: int) -> Rankings:
        """Every relevant doc that is not retrieved added as a hit at ``rank`` (SymTax's
        rule for a missing gold paper)."""
        j = self.judgements
        found = np.zeros(len(j.label), dtype=bool)
        found[self.qrel_row] = True
        missing = np.flatnonzero(~found & (j.label >= rel))
        if not missing.size:
            return self
        n = missing.size
        query = np.concatenate((self.query, j.query[missing]))
        ranks = np.concatenate((self.rank, np.full(n, rank)))
        order = np.lexsort((ranks, query))

        def joined(mine: np.ndarray, extra: np.ndarray) -> np.ndarray:
            return np.concatenate((mine, extra))[order]

        return replace(
            self,
            query=query[order],
            rank=ranks[order],
            label=joined(self.label, j.label[missing]),
            qrel_row=joined(self.qrel_row, missing),
            score=joined(self.score, np.full(n, -np.inf)),
            group_start=joined(self.group_start, np.full(n, rank)),
            group_size=joined(self.group_size, np.ones(n, dtype=np.int64)),
        )


def _groups(rank: np.ndarray, continues: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank of the first row and size of the tie group of each row of a ranking."""
    group = np.cumsum(~continues) - 1
    first = np.flatnonzero(~continues)
    sizes = np.diff(np.append(first, len(rank)))
    return rank[first][group], sizes[group]


def _kept_rows(
    row_query: np.ndarray,
    docs: np.ndarray,
    n_docs: int,
    first_copy_only: bool,
    depth: int | None,
    exclude_doc: np.ndarray | None,
    exclude_first_copy: bool,
) -> np.ndarray:
    """Which ranked rows :func:`build_rankings` keeps: those of a counted query, less the
    recipes' departures, in this order (``first_copy_only``, ``depth``, ``exclude_doc``)."""
    keep = row_query >= 0
    if first_copy_only:
        rows = np.flatnonzero(keep)
        keep[rows[~first_copies(row_query[rows], docs[rows], n_docs)]] = False
    if depth is not None:
        rows = np.flatnonzero(keep)
        keep[rows[position_in_segment(row_query[rows]) >= depth]] = False
    if exclude_doc is not None:
        rows = np.flatnonzero(keep)
        rows = rows[docs[rows] == exclude_doc[row_query[rows]]]
        if exclude_first_copy:
            rows = rows[run_starts(row_query[rows])]
        keep[rows] = False
    return keep


def build_rankings(
    run: Run,
    qrels: Qrels,
    counted: np.ndarray,
    order: RankOrder | None = None,
    *,
    ties: str = "trec_eval",
    exclude_doc: np.ndarray | None = None,
    exclude_first_copy: bool = False,
    first_copy_only: bool = False,
    depth: int | None = None,
) -> Rankings:
    """Join ``run`` with ``qrels`` for the counted queries.

    ``counted``: positions in ``qrels.all_query_ids`` of the queries that count, in output
    order. ``order``: the run's rank order if already computed (else computed under
    ``ties``). The recipes' departures, applied in this order: ``first_copy_only`` drops
    later copies of a doc listed twice; ``depth`` cuts each ranking there; ``exclude_doc``
    gives per counted query a doc code of the run to drop from its ranking (-1: none), every
    copy of it, or only the first with ``exclude_first_copy``.

    Only the judged rows are looked at one by one: the others are counted per query.
    """
    if order is None:
        order = rank_order(run, ties)
    n = len(counted)
    position = np.full(len(qrels.all_query_ids), -1, dtype=np.int64)
    position[counted] = np.arange(n)
    run_to_qrels = lookup_unique(run.query_ids, qrels.all_query_ids)
    run_position = np.where(run_to_qrels >= 0, position[np.maximum(run_to_qrels, 0)], -1)
    row_query = run_position.astype(np.int32)[order.gather(run.query)]
    docs = order.gather(run.doc)
    scores = order.gather(run.score)
    keep = _kept_rows(
        row_query, docs, len(run.doc_ids), first_copy_only, depth, exclude_doc, exclude_first_copy
    )
    tied: np.ndarray | None = order.tied
    if not keep.all():  # rows dropped: their ties are recomputed below
        row_query, docs, scores, tied = row_query[keep], docs[keep], scores[keep], None
    del keep

    # the judgements of the counted queries, with their docs in the run's doc codes
    qrels_query = position[qrels.query]
    counted_rows = np.flatnonzero(qrels_query >= 0)
    judged_query = qrels_query[counted_rows]
    judgements = Judgements(judged_query, qrels.relevance[counted_rows], n)
    # each run doc code's doc in the qrels, where it is judged for a counted query (-1
    # otherwise): a doc the run's dictionary lists twice (a streamed chunk's) is found under
    # either code. Only the codes the kept rows use are looked up, so the few queries of a
    # chunk a cross-check explains probe their own docs, not the chunk's every one (on W1P,
    # 250,000 ids a chunk: 9 ms a ranking)
    judged_doc = qrels.doc[counted_rows]
    here = np.zeros(len(qrels.doc_ids) + 1, dtype=bool)  # the last: a doc of no judgement
    here[judged_doc] = True
    used = np.zeros(len(run.doc_ids), dtype=bool)
    used[docs] = True
    codes = np.flatnonzero(used)
    ids = run.doc_ids if len(codes) == len(run.doc_ids) else take(run.doc_ids, codes)
    run_doc = np.full(len(run.doc_ids), -1, dtype=np.int32)
    run_doc[codes] = lookup(ids, qrels.doc_ids)
    run_doc[~here[run_doc]] = -1
    hits, qrel_row = _find_hits(
        row_query, docs, run_doc, judged_query, judged_doc, len(qrels.doc_ids)
    )

    # ranks: a hit's position minus its query's first position (rows are grouped by query)
    num_ret = np.bincount(row_query, minlength=n)
    hit_query = row_query[hits].astype(np.int64)
    starts = segment_starts(row_query)
    query_start = np.zeros(n, dtype=np.int64)  # each query's first row
    query_start[row_query[starts]] = starts
    rank = hits - query_start[hit_query] + 1
    group_start, group_size = _hit_groups(row_query, scores, tied, hits, rank)
    return Rankings(
        n_queries=n,
        num_ret=num_ret,
        query=hit_query,
        rank=rank,
        label=judgements.label[qrel_row],
        qrel_row=qrel_row,
        score=scores[hits],
        group_start=group_start,
        group_size=group_size,
        judgements=judgements,
    )


_CHUNK = 1 << 22  # rows looked up at a time: bounds the temporaries of a long run


def _find_hits(row_query, docs, run_doc, judged_query, judged_doc, ndocs: int):
    """Positions of the ranked rows whose (query, doc) the qrels judge, and the row of each
    in the judgements (``judged_query``, ``judged_doc``: codes of the qrels' ``ndocs``
    docs): a hash lookup of one integer key per row, for the rows whose doc
    (``run_doc[docs]``: its qrels code, -1 for a doc judged for no counted query) may be
    judged, a chunk of rows at a time."""
    ndocs = max(ndocs, 1)
    keys = judged_query.astype(np.int64) * ndocs + judged_doc
    value_set = arrow_array(keys)
    hits, rows = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(docs), _CHUNK):
        chunk = run_doc[docs[start : start + _CHUNK]]
        candidates = np.flatnonzero(chunk >= 0)
        wanted = row_query[start + candidates].astype(np.int64) * ndocs + chunk[candidates]
        found = numpy_of(pc.index_in(arrow_array(wanted), value_set=value_set), fill=-1)
        matched = found >= 0
        hits.append(start + candidates[matched])
        rows.append(found[matched])
    return np.concatenate(hits), np.concatenate(rows)


def _hit_groups(row_query, scores, tied, hits, rank) -> tuple[np.ndarray, np.ndarray]:
    """Rank of the first doc and size of the tie group of each hit. ``tied`` (which rows are
    tied, if known) keeps this to the tied rows; a hit outside every tie is its own group."""
    if tied is None:
        tied, _ = tie_groups(row_query, scores)
    group_start, group_size = rank.copy(), np.ones(len(hits), dtype=np.int64)
    positions = np.flatnonzero(tied)
    if not positions.size or not hits.size:
        return group_start, group_size
    previous = positions[1:] - 1
    continues = np.zeros(len(positions), dtype=bool)
    continues[1:] = (
        (previous == positions[:-1])
        & (row_query[positions[1:]] == row_query[previous])
        & (scores[positions[1:]] == scores[previous])
    )
    first = np.flatnonzero(~continues)
    sizes = np.diff(np.append(first, len(positions)))
    at = np.searchsorted(positions, hits)
    inside = (at < len(positions)) & (positions[np.minimum(at, len(positions) - 1)] == hits)
    group = np.cumsum(~continues) - 1
    which = group[at[inside]]
    group_start[inside] = rank[inside] - (hits[inside] - positions[first[which]])
    group_size[inside] = sizes[which]
    return group_start, group_size
