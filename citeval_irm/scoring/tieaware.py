"""How much of a score is luck: a measure's range over every order of the tied scores.

For a query whose run has tied scores, any order of the tied docs is as justified as
trec_eval's (doc id descending). :func:`tie_ranges` gives, per measure, the worst and best
value over all those orders and the expected value under a uniformly random order, for one
ranked list; the formulas themselves (the closed forms of McSherry and Najork, ECIR 2008)
live in the measure table of :mod:`citeval_irm.scoring`, which the cross-check uses for
whole runs at once. Semantics are trec_eval's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.measures import Measure, parse_measures
from ..reading.tables import Qrels, Run
from . import build_rankings, tie_range_matrix


@dataclass(frozen=True)
class TieRange:
    """A measure's worst, expected (random tie order) and best value for one query."""

    worst: float
    expected: float
    best: float


def tie_ranges(
    scores: Sequence[float],
    docs: Sequence[str],
    labels: Mapping[str, int],
    measures,
) -> dict[str, TieRange]:
    """Worst, expected and best value of each measure over the orders of tied scores.

    ``docs`` ranked by ``scores`` descending (unique docs); ``labels`` the query's qrels.
    """
    measure_list: list[Measure] = parse_measures(measures)
    run = Run.from_columns(["q"] * len(docs), list(docs), np.asarray(scores, dtype=float))
    judged = list(labels.items()) or [("", 0)]
    qrels = Qrels.from_columns(
        ["q"] * len(judged), [d for d, _ in judged], [label for _, label in judged]
    )
    rankings = build_rankings(run, qrels, np.array([0]), ties="trec_eval")
    worst, expected, best = tie_range_matrix(measure_list, rankings)
    return {
        str(m): TieRange(float(worst[0, i]), float(expected[0, i]), float(best[0, i]))
        for i, m in enumerate(measure_list)
    }
