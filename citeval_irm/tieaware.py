"""How much of a score is luck: measures over every order of the tied scores.

For a query whose run has tied scores, any order of the tied docs is as justified as
trec_eval's (doc id descending). This module gives, per measure, the worst and best value
over all those orders and the expected value under a uniformly random order, with the
closed forms of McSherry and Najork ("Computing Information Retrieval Performance Measures
Efficiently in the Presence of Tied Scores", ECIR 2008): every measure here is a sum over
positions, and in a tie group of ``n`` docs holding ``r`` relevant ones (total gain ``G``)
each position is relevant with probability ``r / n`` and carries expected gain ``G / n``.

Semantics are trec_eval's: relevant means label >= 1, nDCG gain is the label.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .measures import Measure
from .recipes import TREC_EVAL, score_ranking


@dataclass(frozen=True)
class TieRange:
    """A measure's worst, expected (random tie order) and best value for one query."""

    worst: float
    expected: float
    best: float


@dataclass(frozen=True)
class _Group:
    start: int  # 1-based rank of the group's first position
    size: int
    relevant: int
    gain: float
    relevant_before: int

    @property
    def end(self) -> int:
        return self.start + self.size - 1

    def overlap(self, depth: float) -> int:
        return max(0, min(self.end, depth) - self.start + 1) if depth >= self.start else 0


def _groups(scores: Sequence[float], docs: Sequence[str], labels: Mapping[str, int]):
    groups: list[_Group] = []
    before = 0
    i = 0
    while i < len(docs):
        j = i
        while j < len(docs) and scores[j] == scores[i]:
            j += 1
        members = [labels.get(doc, 0) for doc in docs[i:j]]
        relevant = sum(1 for label in members if label >= 1)
        gain = float(sum(label for label in members if label >= 1))
        groups.append(_Group(i + 1, j - i, relevant, gain, before))
        before += relevant
        i = j
    return groups


def _expected(measure: Measure, groups: list[_Group], labels: Mapping[str, int]) -> float:
    total_relevant = sum(1 for label in labels.values() if label >= 1)
    if total_relevant == 0:
        return 0.0
    name, cutoff = measure.NAME, measure.params.get("cutoff")
    depth = math.inf if cutoff is None else cutoff
    if name in ("R", "P"):
        hits = sum(g.relevant / g.size * g.overlap(depth) for g in groups)
        return hits / (total_relevant if name == "R" else cutoff)
    first = next((g for g in groups if g.relevant), None)
    if name == "Success":
        if first is None or first.start > depth:
            return 0.0
        shown = first.overlap(depth)
        return 1.0 - math.comb(first.size - first.relevant, shown) / math.comb(first.size, shown)
    if name == "RR":
        if first is None:
            return 0.0
        n, r = first.size, first.relevant
        total = 0.0
        for j in range(1, n - r + 2):  # the first relevant doc at the group's j-th position
            rank = first.start + j - 1
            if rank <= depth:
                total += math.comb(n - j, r - 1) / math.comb(n, r) / rank
        return total
    if name == "AP":
        total = 0.0
        for g in groups:
            if not g.relevant:
                continue
            share = (g.relevant - 1) / (g.size - 1) if g.size > 1 else 0.0
            for offset in range(g.size):
                rank = g.start + offset
                total += g.relevant / g.size * (g.relevant_before + 1 + offset * share) / rank
        return total / total_relevant
    # nDCG
    dcg = sum(
        g.gain
        / g.size
        * sum(1 / math.log2(rank + 1) for rank in range(g.start, g.start + g.overlap(depth)))
        for g in groups
        if g.gain
    )
    ideal_gains = sorted((float(v) for v in labels.values() if v >= 1), reverse=True)
    ideal_depth = len(ideal_gains) if cutoff is None else min(len(ideal_gains), cutoff)
    ideal = sum(v / math.log2(i + 2) for i, v in enumerate(ideal_gains[:ideal_depth]))
    return dcg / ideal


def tie_ranges(
    scores: Sequence[float],
    docs: Sequence[str],
    labels: Mapping[str, int],
    measures: Sequence[Measure],
) -> dict[str, TieRange]:
    """Worst, expected and best value of each measure over the orders of tied scores.

    ``docs`` ranked by ``scores`` descending (unique docs); ``labels`` the query's qrels.
    """
    judged = list(labels.items())
    groups = _groups(scores, docs, labels)

    def ordered(best: bool) -> list[str]:
        """Within each tie group, the highest gains first (best) or last (worst)."""
        ranking: list[str] = []
        for g in groups:
            members = docs[g.start - 1 : g.end]
            ranking += sorted(members, key=lambda d: max(labels.get(d, 0), 0), reverse=best)
        return ranking

    best = score_ranking(ordered(True), judged, measures, TREC_EVAL)
    worst = score_ranking(ordered(False), judged, measures, TREC_EVAL)
    return {
        str(m): TieRange(worst[str(m)], _expected(m, groups, labels), best[str(m)])
        for m in measures
    }
