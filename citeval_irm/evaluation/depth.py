"""Rankings shorter than a measure's cut-off: found once, reported everywhere.

A run ranked 100 deep and evaluated at R@300 gets a number, and it is R@100: nothing past
rank 100 was ranked, so the cut-off promises more than the value measures (a 50-deep run
shows R@300 equal to R@50). :func:`short_rankings` finds, per cut-off, the queries whose
ranking is shorter than it, from one ``np.bincount`` of the run's query codes. It is the
one check behind the counted ``short_ranking`` warning of :func:`~citeval_irm.evaluate`
(and so of ``eval``, ``crosscheck``, ``compare`` and the demo) and behind the
``short_ranking`` check of :func:`~citeval_irm.validate`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..base.errors import EvalWarning, examples_of
from ..reading.tables import Run
from .results import RankedQueries

CODE = "short_ranking"


@dataclass(frozen=True)
class ShortRankings:
    """The queries whose ranking is shorter than ``cutoff`` (the cut-off of ``measures``)
    and how many docs each has (``lengths``, in ``query_ids`` order)."""

    cutoff: int
    measures: tuple[str, ...]
    query_ids: list[str]
    lengths: np.ndarray

    def found(self) -> str:
        """The depths found, for a message: ``100 docs`` or ``42 to 299 docs``."""
        low, high = int(self.lengths.min()), int(self.lengths.max())
        return f"{low} docs" if low == high else f"{low} to {high} docs"

    def warning(self) -> EvalWarning:
        return EvalWarning(
            CODE,
            f"rankings shorter than the cut-off {self.cutoff} of {' '.join(self.measures)} "
            f"(found {self.found()}): those values count only the docs ranked",
            len(self.query_ids),
            examples_of(self.query_ids),
            unit="queries",
        )


def cutoffs(measures: Iterable) -> dict[int, tuple[str, ...]]:
    """The measures of each cut-off (``{300: ("R@300", "nDCG@300")}``), deepest last."""
    by_cutoff: dict[int, list[str]] = {}
    for measure in measures:
        cutoff = measure.params.get("cutoff")
        if cutoff is not None:
            by_cutoff.setdefault(int(cutoff), []).append(str(measure))
    return {k: tuple(by_cutoff[k]) for k in sorted(by_cutoff)}


def short_rankings(
    ranked: Run | RankedQueries, measures: Iterable, queries: Iterable[str] | None = None
) -> list[ShortRankings]:
    """For each cut-off of ``measures`` that some ranked query falls short of, which queries
    and how deep they are. ``ranked``: a whole run, or what a streamed or distributed read
    kept of it (query ids and ranking lengths); ``queries``: only these count (e.g. the
    queries an evaluation averages); queries the run does not rank at all are not short,
    they are missing."""
    by_cutoff = cutoffs(measures)
    if isinstance(ranked, Run):
        ranked = RankedQueries.of(ranked)
    if not by_cutoff or not len(ranked.query_ids):
        return []
    lengths = np.asarray(ranked.sizes)
    if queries is None:
        counted = np.ones(len(lengths), dtype=bool)
    else:
        wanted = set(queries.to_pylist() if isinstance(queries, pa.Array) else queries)
        counted = np.fromiter((q in wanted for q in ranked.query_ids), bool, len(lengths))
    out = []
    for cutoff, names in by_cutoff.items():
        short = np.flatnonzero(counted & (lengths < cutoff))
        if short.size:
            ids = [ranked.query_ids[i] for i in short.tolist()]
            out.append(ShortRankings(cutoff, names, ids, lengths[short]))
    return out


def short_ranking_warnings(
    ranked: Run | RankedQueries, measures: Iterable, queries: Iterable[str] | None = None
) -> list[EvalWarning]:
    """One counted warning per cut-off that some query's ranking is shorter than."""
    return [found.warning() for found in short_rankings(ranked, measures, queries)]
