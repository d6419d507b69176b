"""trec_eval 10.0's code for the measures pytrec_eval cannot check, one query at a time.

pytrec_eval runs trec_eval 9.x's C code: it has no ``rbp``, ``rbp_resid`` nor ``unj``,
its ``iprec_at_recall`` and ``11pt_avg`` find the cut-off as 9.x did (``level x R + 0.9``
truncated; 10.0 rounds it, ``lround``), it keeps a ``gm_`` measure's per-query values as
logarithms, and it cannot be given gains (``ndcg.1=3,2=9``) nor negative coefficients
(``utility.2,-1,0,0``). For these the table's rows declare a
:class:`~citeval_irm.scoring.table.Derived` reference: the functions here, each a line by
line transcription of trec_eval 10.0's ``m_<name>.c`` (usnistgov/trec_eval, tag v10.0) on
the dict-of-dicts form, written apart from the vectorised kernels they check
(:mod:`.trec_kernels`). Each takes ``(measure, trec_values, ranking, labels)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

NOT_IN_POOL = -1  # trec_eval's RELVALUE_NONPOOL: a retrieved doc the qrels do not list
JUDGED_NEGATIVE = -2  # its RELVALUE_UNJUDGED: a doc the qrels list with a label below 0


def ranked_labels(measure, ranking: Mapping[str, float], labels: Mapping[str, int]) -> list:
    """The labels of the ranked docs in trec_eval's order (score, then doc id, both
    descending) as ``form_res_rels.c`` gives them: a doc the qrels do not list -1, one
    they label below 0 -2; ``judged_only``: judged docs only."""
    order = sorted(ranking, key=lambda doc: (ranking[doc], doc), reverse=True)
    out = [
        (JUDGED_NEGATIVE if labels[doc] < 0 else labels[doc]) if doc in labels else NOT_IN_POOL
        for doc in order
    ]
    return [v for v in out if v >= 0] if measure.params.get("judged_only") else out


def c_lround(x: float) -> int:
    """C's ``lround``: halves away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _interpolated(measure, ranking, labels, levels) -> list[float]:
    """m_iprec_at_recall.c / m_11pt_avg.c (10.0): the precision interpolated at each
    recall level, the levels' cut-offs ``lround(level x R)`` relevant docs."""
    rel = measure.params.get("rel", 1)
    ranked = ranked_labels(measure, ranking, labels)
    num_ret = len(ranked)
    if num_ret == 0:  # trec_eval: 0 / 0; citeval scores an empty ranking 0
        return [0.0] * len(levels)
    num_rel = sum(v >= rel for v in labels.values())
    rel_ret = sum(v >= rel for v in ranked)
    cutoffs = [c_lround(level * num_rel) for level in levels]
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > rel_ret:
        current -= 1
    int_precis = rel_ret / num_ret
    rel_so_far = rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if ranked[i - 1] >= rel:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


def iprec_at_recall(measure, trec, ranking, labels) -> float:
    return _interpolated(measure, ranking, labels, (measure.params["recall"],))[0]


def eleven_point_average(measure, trec, ranking, labels) -> float:
    levels = measure.params.get("recalls", measure.SUPPORTED_PARAMS["recalls"].default)
    return sum(_interpolated(measure, ranking, labels, levels)) / len(levels)


def _gains(measure, labels) -> dict[int, float]:
    """gain_init.c's gains: each level 0 .. the highest judged label its own gain, the
    levels ``gains`` names theirs; ``dcg='exp-log2'``: 2^gain - 1 of each, the pairs
    ``-m ndcg.1=1,2=3,3=7`` gives trec_eval."""
    top = max((v for v in labels.values() if v >= 0), default=-1)
    found = {level: float(level) for level in range(top + 1)}
    found.update(measure.params.get("gains") or {})
    if measure.params.get("dcg") == "exp-log2":
        found = {level: 2.0**gain - 1 for level, gain in found.items()}
    return found


def _discounted(measure, ranking, labels) -> tuple[float, float]:
    """m_ndcg.c / m_ndcg_cut.c with the measure's gains: the ranking's DCG and the ideal DCG
    (the judged docs' positive gains, largest first), both to the cut-off when there is one."""
    gains = _gains(measure, labels)
    cutoff = measure.params.get("cutoff")
    ranked = ranked_labels(measure, ranking, labels)[:cutoff]
    ideal = sorted((gains.get(v, 0.0) for v in labels.values() if v >= 0), reverse=True)
    ideal = [g for g in ideal if g > 0][:cutoff]
    dcg = 0.0
    for i, label in enumerate(ranked):
        if gains.get(label, 0.0) != 0:
            dcg += gains.get(label, 0.0) / math.log2(i + 2)
    best = 0.0
    for i, gain in enumerate(ideal):
        best += gain / math.log2(i + 2)
    return dcg, best


def ndcg(measure, trec, ranking, labels) -> float:
    """m_ndcg.c / m_ndcg_cut.c: DCG over the ideal DCG, 0 when the ideal is 0."""
    dcg, best = _discounted(measure, ranking, labels)
    return dcg / best if best > 0 else 0.0


def dcg(measure, trec, ranking, labels) -> float:
    """m_ndcg.c's ``dcg``: the ranking's DCG."""
    return _discounted(measure, ranking, labels)[0]


def ideal_dcg(measure, trec, ranking, labels) -> float:
    """m_ndcg.c's ``ideal_dcg``: the ideal DCG."""
    return _discounted(measure, ranking, labels)[1]


def yaap(measure, trec, ranking, labels) -> float:
    """m_yaap.c: log((1 + S) / (1 + R - S)), S the sum over the relevant docs retrieved of
    their number among them over their rank."""
    rel = measure.params.get("rel", 1)
    total, found = 0.0, 0
    for i, label in enumerate(ranked_labels(measure, ranking, labels)):
        if label >= rel:
            found += 1
            total += found / (i + 1)
    relevant = sum(v >= max(rel, 0) for v in labels.values())
    return math.log((1.0 + total) / (1.0 + relevant - total))


def rbp(measure, trec, ranking, labels) -> float:
    """m_rbp.c: the gains scaled into [0, 1] when one is outside it, then (1 - p) x the
    sum of gain x p^i."""
    p = float(measure.params.get("p", 0.9))
    gains = _gains(measure, labels)
    low, high = min(gains.values(), default=0.0), max(gains.values(), default=0.0)
    if low < 0 or high > 1:
        gains = {level: (g - low) / (high - low) for level, g in gains.items()}
    total, weight = 0.0, 1.0
    for label in ranked_labels(measure, ranking, labels):
        gain = gains.get(label, 0.0)
        if gain != 0:
            total += gain * weight
        weight *= p
    return (1.0 - p) * total


def rbp_residual(measure, trec, ranking, labels) -> float:
    """m_rbp_resid.c: p^n + (1 - p) x the sum of p^i over the unjudged docs, when any."""
    p = float(measure.params.get("p", 0.9))
    unjudged, total, weight = 0, 0.0, 1.0
    for label in ranked_labels(measure, ranking, labels):
        if label < 0:
            unjudged += 1
            total += weight
        weight *= p
    return weight + (1 - p) * total if unjudged else 0.0


def unjudged(measure, trec, ranking, labels) -> float:
    """m_unjudged.c: the docs without a judgement among the first k, over k."""
    cutoff = measure.params["cutoff"]
    ranked = ranked_labels(measure, ranking, labels)
    return sum(v < 0 for v in ranked[:cutoff]) / cutoff


def utility(measure, trec, ranking, labels) -> float:
    """m_utility.c: a x rel_ret + b x nonrel_ret + c x rel_nonret + d x nonrel_nonret."""
    a, b, c, d = measure.params.get("coefficients", (1.0, -1.0, 0.0, 0.0))
    level = measure.params.get("rel", 1)
    ranked = ranked_labels(measure, ranking, labels)
    ret, rel_ret = len(ranked), sum(v >= level for v in ranked)
    rel = sum(v >= level for v in labels.values())
    docs = measure.params.get("docs", 0)
    nonrel_nonret = docs + rel_ret - ret - rel
    return a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret) + d * nonrel_nonret


def same_as(name: str):
    """The reference that is trec_eval's value of ``name`` (``gm_map``: ``map`` per query,
    the geometric mean taken over queries)."""

    def value(measure, trec, ranking, labels) -> float:
        return trec.get(name, 0.0)

    value.__doc__ = f"trec_eval's {name} of the query."
    return value
