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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .errors import EvalWarning, examples_of
from .tables import Run, lookup, take

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
    run: Run, measures: Iterable, queries: Sequence[str] | pa.Array | None = None
) -> list[ShortRankings]:
    """For each cut-off of ``measures`` that some ranked query falls short of, which queries
    and how deep they are. ``queries``: only these count (e.g. the queries an evaluation
    averages; an Arrow array keeps pyarrow from importing pandas, as it does to convert a
    list); queries the run does not rank at all are not short, they are missing."""
    by_cutoff = cutoffs(measures)
    if not by_cutoff or not len(run.query_ids):
        return []
    lengths = np.bincount(run.query, minlength=len(run.query_ids))
    ranked = lengths > 0
    if queries is not None:
        wanted = queries if isinstance(queries, pa.Array) else pa.array(queries, pa.string())
        ranked &= lookup(run.query_ids, wanted) >= 0
    out = []
    for cutoff, names in by_cutoff.items():
        short = np.flatnonzero(ranked & (lengths < cutoff))
        if short.size:
            ids = take(run.query_ids, short).to_pylist()
            out.append(ShortRankings(cutoff, names, ids, lengths[short]))
    return out


def short_ranking_warnings(
    run: Run, measures: Iterable, queries: Sequence[str] | pa.Array | None = None
) -> list[EvalWarning]:
    """One counted warning per cut-off that some query's ranking is shorter than."""
    return [found.warning() for found in short_rankings(run, measures, queries)]
