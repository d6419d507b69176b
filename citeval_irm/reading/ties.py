"""One tie policy, applied once, before any measure sees the run.

Tools order tied scores differently: trec_eval (and so pytrec_eval and ir-measures' default
provider) sorts by score, then by doc id in *descending* string order, ignoring the rank
column; ir-measures' msmarco provider sorts doc ids ascending; ranx has no defined order;
list-based recipes keep the input order. :func:`rank_order` picks one order, explicitly;
:func:`rank_run` applies it and can rewrite the scores into strictly decreasing values
(``n, n-1, ..., 1`` per query), so any other tool afterwards computes the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.choices import TIE_POLICIES, check_choice
from ..base.errors import EvalWarning, examples_of
from .tables import Run, arrow_array, numpy_of, position_in_segment, segment_starts, take


@dataclass(frozen=True)
class TieReport:
    """How many queries (and docs) had tied scores, which order broke the ties, and which
    of the ties the run lists in another order than trec_eval's (``contested``: the only
    ties the order of which a tool can disagree on; ``examples`` are theirs).

    Ties a run already lists in trec_eval's order (doc id descending, as the package's BM25
    baseline writes them) are scored the same by trec_eval, pytrec_eval, ir-measures'
    default provider, a list-based recipe and either tie policy: nothing to act on, so no
    warning; how much any order of the tied docs could move a measure is the tie range
    (``crosscheck``, the report), not this warning.
    """

    policy: str
    tied_docs: int
    examples: tuple[str, ...] = ()
    query_ids: frozenset[str] = field(default_factory=frozenset, repr=False)
    contested_docs: int = 0
    contested_ids: frozenset[str] = field(default_factory=frozenset, repr=False)

    @property
    def tied_queries(self) -> int:
        return len(self.query_ids)

    def warning(self) -> EvalWarning | None:
        """The ``tied_scores`` warning, counting the contested ties only (none: ``None``)."""
        if not self.contested_ids:
            return None
        if self.policy == "trec_eval":
            order = "doc id, descending (trec_eval), not as listed"
        else:
            order = "input order (run_order), not by doc id as trec_eval"
        return EvalWarning(
            "tied_scores",
            f"tied scores broken by {order}: {self.contested_docs:,} docs",
            len(self.contested_ids),
            self.examples,
            unit="queries",
        )


def tie_groups(query: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a ranked run: which rows share their score with a neighbour in the same query
    (``tied``), and which rows continue the tie group of the row before (``continues``)."""
    continues = np.zeros(len(query), dtype=bool)
    continues[1:] = (query[1:] == query[:-1]) & (score[1:] == score[:-1])
    tied = continues.copy()
    tied[:-1] |= continues[1:]
    return tied, continues


@dataclass(frozen=True)
class RankOrder:
    """A run's rows in rank order: each query's rows together (queries in first-appearance
    order), by score descending, tied scores in the policy's order.

    ``positions``: the row positions in that order, or ``None`` when the rows already are
    (no copy of a run that is already ranked); with ``max_docs``, the positions of the rows
    kept only. ``tied``: per ranked row, whether it shares its score with a neighbour of
    the same query (before the cut: a doc kept in place of a tied one dropped is tied).
    ``contested``: per ranked row, whether its group of tied docs is listed in the run in
    another order than trec_eval's (doc id descending): the ties tools order differently.
    """

    positions: np.ndarray | None
    tied: np.ndarray
    policy: str
    contested: np.ndarray | None = None

    def gather(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per row of the run) in rank order."""
        return values if self.positions is None else values[self.positions]


def _positions(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)


def rank_order(run: Run, ties: str = "trec_eval", max_docs: int | None = None) -> RankOrder:
    """The rank order of ``run`` under the tie policy ``ties``; with ``max_docs``, only the
    first ``max_docs`` rows of each ranking in that order (trec_eval's ``-M``, which cuts
    after its sort by score then doc id): every measure, count and tie then sees only those.

    A run already grouped by query and sorted by score (what nearly every system writes)
    is only checked, not sorted; then only the tied rows are reordered.
    """
    check_choice("ties", ties, TIE_POLICIES)
    query, score = run.query, run.score
    same_query = query[1:] == query[:-1]
    starts = np.flatnonzero(~same_query) + 1
    grouped = bool(np.all(query[starts] > query[starts - 1]))  # each query in one block
    order: np.ndarray | None = None
    if not (grouped and not np.any((score[1:] > score[:-1]) & same_query)):
        # Arrow's sort is stable: tied rows keep their input order
        table = pa.Table.from_arrays([arrow_array(query), arrow_array(score)], ["query", "score"])
        keys = [("query", "ascending"), ("score", "descending")]
        order = numpy_of(pc.sort_indices(table, sort_keys=keys)).astype(np.int64)
    ranked = RankOrder(order, np.zeros(0, dtype=bool), ties)
    tied, continues = tie_groups(ranked.gather(query), ranked.gather(score))
    contested = np.zeros(len(query), dtype=bool)
    if tied.any():
        positions = np.flatnonzero(tied)
        group = np.cumsum(~continues[positions])
        rows = positions if order is None else order[positions]
        # the tied rows in input order (Arrow's sort is stable); a group is contested where
        # a doc id is listed before a larger one: not trec_eval's order (doc id descending,
        # bytewise as its strcmp), found in one pass, sorted only then
        docs = take(run.doc_ids, run.doc[rows])
        rising = numpy_of(pc.less(docs[:-1], docs[1:])) & continues[positions][1:]
        moved = np.zeros(int(group[-1]) + 1, dtype=bool)
        moved[group[1:][rising]] = True
        contested[positions] = moved[group]
        if ties == "trec_eval" and rising.any():
            inner = numpy_of(
                pc.sort_indices(
                    pa.Table.from_arrays([arrow_array(group), docs], ["group", "doc"]),
                    sort_keys=[("group", "ascending"), ("doc", "descending")],
                )
            )
            order = _positions(len(query)) if order is None else order
            order[positions] = order[positions][inner]
    if max_docs is not None:
        keep = position_in_segment(RankOrder(order, tied, ties).gather(query)) < max_docs
        if not keep.all():
            order = (_positions(len(query)) if order is None else order)[keep]
            tied, contested = tied[keep], contested[keep]
    return RankOrder(order, tied, ties, contested)


def tie_report(run: Run, order: RankOrder) -> TieReport:
    """What ``order`` found of ``run``'s ties: every tied query and doc, and the contested
    ones (:class:`TieReport`)."""
    tied_ids = _query_ids_where(run, order, order.tied)
    contested = order.tied if order.contested is None else order.contested
    contested_ids = _query_ids_where(run, order, contested)
    return TieReport(
        order.policy,
        int(order.tied.sum()),
        examples_of(contested_ids),
        frozenset(tied_ids),
        int(contested.sum()),
        frozenset(contested_ids),
    )


def _query_ids_where(run: Run, order: RankOrder, ranked_rows: np.ndarray) -> list[str]:
    """The ids of the queries of the ranked rows where ``ranked_rows`` is true, ascending by
    code (np.unique would import numpy.ma: 15-60 ms)."""
    found = np.zeros(len(run.query_ids), dtype=bool)
    found[order.gather(run.query)[ranked_rows]] = True
    return take(run.query_ids, np.flatnonzero(found)).to_pylist()


def rank_run(
    run: Run,
    ties: str = "trec_eval",
    *,
    rewrite_scores: bool = True,
    order: RankOrder | None = None,
) -> tuple[Run, TieReport]:
    """Sort ``run`` per query in the order ``ties`` defines and (by default) replace its
    scores by strictly decreasing ones, so any evaluator reproduces exactly that order.

    ``ties="trec_eval"``: score descending, then doc id descending (bytewise), as trec_eval.
    ``ties="run_order"``: score descending, then the order of the rows in the input (line
    order of a file, insertion order of a dict). ``order``: the run's rank order, when
    already computed (with its ``max_docs`` cut, say).
    """
    if order is None:
        order = rank_order(run, ties)
    report = tie_report(run, order)
    ranked = run if order.positions is None else run.take(order.positions)
    if rewrite_scores:
        starts = segment_starts(ranked.query)
        sizes = np.diff(np.append(starts, len(ranked)))
        rank = ranked.rank_in_query()
        scores = (np.repeat(sizes, sizes) - rank + 1).astype(np.float64)
        ranked = replace(ranked, score=scores, warnings=list(ranked.warnings))
    return ranked, report
