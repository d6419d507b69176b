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
    and how many docs each has (``lengths``, in ``query_ids`` order); ``ranked``: how many
    ranked queries were looked at (all of them short: the run is shallower by design)."""

    cutoff: int
    measures: tuple[str, ...]
    query_ids: list[str]
    lengths: np.ndarray
    ranked: int = 0

    def found(self) -> str:
        """The depths found, for a message: ``100 docs`` or ``42 to 299 docs``."""
        low, high = int(self.lengths.min()), int(self.lengths.max())
        return f"{low} docs" if low == high else f"{low} to {high} docs"

    @property
    def every(self) -> bool:
        """Whether every ranked query looked at is this short."""
        return len(self.query_ids) == self.ranked

    def warning(self) -> EvalWarning:
        return short_ranking_warning([self])


def short_rankings(
    ranked: Run | RankedQueries, measures: Iterable, queries: Iterable[str] | None = None
) -> list[ShortRankings]:
    """For each cut-off of ``measures`` that some ranked query falls short of, which queries
    and how deep they are. ``ranked``: a whole run, or what a streamed or distributed read
    kept of it (query ids and ranking lengths); ``queries``: only these count (e.g. the
    queries an evaluation averages); queries the run does not rank at all are not short,
    they are missing."""
    # the measures of each cut-off (``{300: ("R@300", "nDCG@300")}``), deepest last
    by_cutoff: dict[int, tuple[str, ...]] = {}
    for measure in measures:
        cutoff = measure.params.get("cutoff")
        if cutoff is not None:
            by_cutoff[int(cutoff)] = (*by_cutoff.get(int(cutoff), ()), str(measure))
    by_cutoff = dict(sorted(by_cutoff.items()))
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
            out.append(ShortRankings(cutoff, names, ids, lengths[short], int(counted.sum())))
    return out


def compact(names: list[str]) -> str:
    """Measure names with their family written once: ``R@5/10/300 nDCG@10`` for ``R@5 R@10
    nDCG@10 R@300`` (the families in order of appearance, the cut-offs in the order given)."""
    families: dict[str, list[str]] = {}
    for name in names:
        family, at, cutoff = name.rpartition("@")
        families.setdefault(family + at or name, []).extend([cutoff] if at else [])
    return " ".join(family + "/".join(cutoffs) for family, cutoffs in families.items())


def short_ranking_warning(found: list[ShortRankings]) -> EvalWarning:
    """One warning for every cut-off some rankings are shorter than: a condition said once,
    however many cut-offs it touches (10-item generated lists evaluated at R@20 ... R@300
    are one line, not five; a run shallower than its measures by design says so once).

    Its count is the queries shorter than the deepest of the cut-offs (every short query
    is), its examples theirs; the message names the measures affected, the depths found
    and, where a shallower cut-off has fewer short queries, how many fall short of each.

    Parameters
    ----------
    found : list of ShortRankings
        What :func:`short_rankings` found, shallowest cut-off first (not empty).

    Returns
    -------
    EvalWarning
        The ``short_ranking`` warning.
    """
    first, deepest = found[0], found[-1]
    if len(found) == 1:
        cut = f"the cut-off {first.cutoff} of {' '.join(first.measures)}"
    else:
        cut = f"the cut-offs of {compact([name for short in found for name in short.measures])}"
    detail = deepest.found()
    if len(first.query_ids) != len(deepest.query_ids):
        steps = []
        for short in found:
            if len(short.query_ids) == len(deepest.query_ids):
                every = "all " if short.every else ""
                steps.append(f"{every}{len(short.query_ids):,} from the cut-off {short.cutoff} on")
                break
            steps.append(f"{len(short.query_ids):,} shorter than {short.cutoff}")
        detail += "; " + ", ".join(steps)
    head = "every ranking is shorter than" if first.every else "rankings shorter than"
    return EvalWarning(
        CODE,
        f"{head} {cut} (found {detail}): those values count only the docs ranked",
        len(deepest.query_ids),
        examples_of(deepest.query_ids),
        unit="queries",
    )
