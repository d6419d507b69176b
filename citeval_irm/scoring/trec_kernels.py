"""Kernels of the measures trec_eval 10.0 computes beyond the common ones.

Each follows trec_eval 10.0's C code (``m_<name>.c`` of usnistgov/trec_eval, tag v10.0),
vectorised over all queries: a retrieved doc the qrels do not list is "not in the pool"
(trec_eval's -1), a doc listed with a negative label is "in the pool, unjudged" (-2);
relevant is a label >= ``rel``; ``R`` counts the judged docs labelled >= ``rel``. Sums run
in trec_eval's order (rank order within a query), so the values are trec_eval's to the
last bit wherever the C code adds in that order.
"""

from __future__ import annotations

import numpy as np

from ..base.errors import InputError
from ..reading.tables import position_in_segment
from .kernels import Params, _per_query, _ratio, _view, average_precision, gains, hits_at
from .rankings import Rankings

_EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


def segment_cumsum(values: np.ndarray, query: np.ndarray, n: int) -> np.ndarray:
    """The running sum of ``values`` within each query (rows grouped by query), added in
    row order as a C loop adds (no subtraction of totals)."""
    out = np.empty(len(values))
    position = position_in_segment(query) if len(query) else np.zeros(0, dtype=np.int64)
    order = np.argsort(position, kind="stable")
    bounds = np.searchsorted(position[order], np.arange(position.max() + 2 if len(query) else 1))
    running = np.zeros(n)
    for k in range(len(bounds) - 1):
        rows = order[bounds[k] : bounds[k + 1]]
        running[query[rows]] += values[rows]
        out[rows] = running[query[rows]]
    return out


def lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest whole number, halves away from zero."""
    whole = np.trunc(x)
    return (whole + np.sign(x) * (np.abs(x - whole) >= 0.5)).astype(np.int64)


def _relevant(rk: Rankings, p: Params) -> np.ndarray:
    return rk.label >= p.rel


def _num_rel(rk: Rankings, p: Params) -> np.ndarray:
    return rk.judgements.relevant(max(p.rel, 0))


def _judged_nonrel(label: np.ndarray, rel: int) -> np.ndarray:
    return (label >= 0) & (label < rel)


def _before(mask: np.ndarray, rk: Rankings) -> np.ndarray:
    """Per hit: how many hits of its query before it have ``mask``."""
    counts = segment_cumsum(mask.astype(np.float64), rk.query, rk.n_queries)
    return (counts - mask).astype(np.int64)


# --------------------------------------------------------------------------- judged-doc ones


def bpref(rk: Rankings, p: Params) -> np.ndarray:
    relevant = _relevant(rk, p)
    nonrel_before = _before(_judged_nonrel(rk.label, p.rel), rk)
    r = _num_rel(rk, p)
    j = rk.judgements
    num_nonrel = np.bincount(j.query[_judged_nonrel(j.label, p.rel)], minlength=rk.n_queries)
    q = rk.query[relevant]
    nb = nonrel_before[relevant]
    denominator = np.minimum(num_nonrel, r)[q].astype(np.float64)
    share = np.minimum(nb, r[q]) / np.where(denominator > 0, denominator, 1.0)
    term = np.where(nb > 0, 1.0 - share, 1.0)
    return _ratio(np.bincount(q, weights=term, minlength=rk.n_queries), r)


def inferred_ap(rk: Rankings, p: Params) -> np.ndarray:
    relevant = _relevant(rk, p)
    nonrel = _before(_judged_nonrel(rk.label, p.rel), rk)[relevant]
    pool = _before(rk.label < 0, rk)[relevant]
    rel_so_far = _before(relevant, rk)[relevant] + 1
    fj = (rk.rank[relevant] - 1).astype(np.float64)
    safe = np.where(fj > 0, fj, 1.0)
    r1 = rel_so_far - 1
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r1 + nonrel + pool) / safe) * (
        (r1 + _EPSILON) / (r1 + nonrel + 2 * _EPSILON)
    )
    term = np.where(fj == 0, 1.0, term)
    total = np.bincount(rk.query[relevant], weights=term, minlength=rk.n_queries)
    return _ratio(total, _num_rel(rk, p))


def num_nonrel_judged_ret(rk: Rankings, p: Params) -> np.ndarray:
    return _per_query(rk, _judged_nonrel(rk.label, p.rel))


def _required_cutoff(p: Params) -> int:
    """The cut-off of a family that cannot go without one (``relative_P@k``,
    ``Unjudged@k``: ir-measures' ``required=True``)."""
    if p.cutoff is None:
        raise InputError(None, "this measure needs a cut-off (name@k)")
    return p.cutoff


def unjudged(rk: Rankings, p: Params) -> np.ndarray:
    """trec_eval's unj_k: docs in the top k without a judgement (label >= 0), over k."""
    cutoff = _required_cutoff(p)
    judged = _per_query(rk, (rk.label >= 0) & (rk.rank <= cutoff))
    return (np.minimum(rk.num_ret, cutoff) - judged) / cutoff


# --------------------------------------------------------------------------- relevant-doc ones


def geometric_ap(rk: Rankings, p: Params) -> np.ndarray:
    """AP per query; its aggregate is the geometric mean (``GeometricAgg``)."""
    return average_precision(rk, p)


def _relevant_precisions(rk: Rankings, p: Params):
    """Per relevant hit (rank order): its query, its number k among them, k / rank."""
    rk = _view(rk, p)
    rows = np.flatnonzero(_relevant(rk, p))
    query = rk.query[rows]
    k = position_in_segment(query) + 1
    return rk, query, k, k / rk.rank[rows]


def _interpolated(rk: Rankings, p: Params, recalls) -> list[np.ndarray]:
    """trec_eval 10.0's interpolated precision at each recall level: the cut-off is
    lround(level x R) relevant docs; the value the best precision at or after the rank
    where that many are retrieved (0 when fewer are)."""
    rk, query, k, precision = _relevant_precisions(rk, p)
    r = _num_rel(rk, p)
    retrieved = np.bincount(query, minlength=rk.n_queries)
    out = []
    for level in recalls:
        cut = lround(np.float64(level) * r)
        best = np.zeros(rk.n_queries)
        inside = k >= np.maximum(cut[query], 1)
        np.maximum.at(best, query[inside], precision[inside])
        out.append(np.where(cut <= retrieved, best, 0.0))
    return out


def yaap(rk: Rankings, p: Params) -> np.ndarray:
    """m_yaap.c: log((1 + S) / (1 + R - S)), S the sum over the relevant docs retrieved of
    their number among them over their rank."""
    rk, query, _, precision = _relevant_precisions(rk, p)
    total = np.bincount(query, weights=precision, minlength=rk.n_queries)
    return np.log((1.0 + total) / (1.0 + _num_rel(rk, p) - total))


def interpolated_precision(rk: Rankings, p: Params) -> np.ndarray:
    return _interpolated(rk, p, (p.get("recall"),))[0]


def interpolated_average(rk: Rankings, p: Params) -> np.ndarray:
    """m_11pt_avg.c: the levels in the order given, as its walk takes them. It walks the
    ranking from the bottom up with a pointer from the last level down: levels whose
    cut-off exceeds the relevant docs retrieved are skipped (0) while none was taken yet;
    a level is taken when its cut-off is reached (at most the cut-off taken before it, and
    at least 1); once one cannot be (a cut-off of 0, or above the one before: levels not
    ascending), it and every level before it get the best precision of the whole ranking.
    With ascending levels this is the mean of the interpolated precisions."""
    recalls = p.get("recalls", tuple(i / 10 for i in range(11)))
    per_level = _interpolated(rk, p, (*recalls, 0.0))
    best_anywhere = per_level.pop()
    view = _view(rk, p)
    r = _num_rel(view, p)
    retrieved = _per_query(view, _relevant(view, p))
    total = np.zeros(rk.n_queries)
    started = np.zeros(rk.n_queries, dtype=bool)
    blocked = np.zeros(rk.n_queries, dtype=bool)
    reached = retrieved.astype(np.int64)
    for level, values in zip(reversed(recalls), reversed(per_level)):
        cut = lround(np.float64(level) * r)
        skipped = ~started & (cut > retrieved)
        started |= ~skipped
        blocked |= ~skipped & ((cut < 1) | (cut > reached))
        taken = ~skipped & ~blocked
        total += np.where(taken, values, np.where(skipped, 0.0, best_anywhere))
        reached = np.where(taken, cut, reached)
    return total / len(recalls)


def r_precision_mult(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    cut = (np.float64(p.get("mult")) * _num_rel(rk, p) + 0.9).astype(np.int64)
    return _ratio(hits_at(rk, p, cut.astype(np.float64)), cut.astype(np.float64))


def relative_precision(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    cutoff = _required_cutoff(p)
    r = _num_rel(rk, p)
    return _ratio(hits_at(rk, p, cutoff), np.minimum(cutoff, r).astype(np.float64))


def binary_g(rk: Rankings, p: Params) -> np.ndarray:
    rk, query, k, _ = _relevant_precisions(rk, p)
    rank = rk.rank[np.flatnonzero(_relevant(rk, p))]
    total = np.bincount(query, weights=1.0 / np.log2(2.0 + rank - k), minlength=rk.n_queries)
    return _ratio(total, _num_rel(rk, p))


def utility(rk: Rankings, p: Params) -> np.ndarray:
    a, b, c, d = p.get("coefficients", (1.0, -1.0, 0.0, 0.0))
    rel_ret = _per_query(rk, _relevant(rk, p)).astype(np.int64)
    ret, r = rk.num_ret.astype(np.int64), _num_rel(rk, p).astype(np.int64)
    docs = int(p.get("docs", 0))
    return a * rel_ret + b * (ret - rel_ret) + c * (r - rel_ret) + d * (docs + rel_ret - ret - r)


# --------------------------------------------------------------------------- set ones


def _set_counts(rk: Rankings, p: Params):
    rk = _view(rk, p)
    rel_ret = _per_query(rk, _relevant(rk, p))
    return rel_ret, rk.num_ret.astype(np.float64), _num_rel(rk, p).astype(np.float64)


def set_precision(rk: Rankings, p: Params) -> np.ndarray:
    rel_ret, ret, r = _set_counts(rk, p)
    if p.get("relative"):
        return np.where((ret > 0) & (r > 0), _ratio(rel_ret, np.minimum(ret, r)), 0.0)
    return _ratio(rel_ret, ret)


def set_recall(rk: Rankings, p: Params) -> np.ndarray:
    rel_ret, _, r = _set_counts(rk, p)
    return _ratio(rel_ret, r)


def set_ap(rk: Rankings, p: Params) -> np.ndarray:
    rel_ret, ret, r = _set_counts(rk, p)
    return _ratio(rel_ret * rel_ret, ret * r)


def set_f(rk: Rankings, p: Params) -> np.ndarray:
    rel_ret, ret, r = _set_counts(rk, p)
    x = float(p.get("beta", 1.0))
    precision, recall = _ratio(rel_ret, ret), _ratio(rel_ret, r)
    return np.where(rel_ret > 0, _ratio((x + 1.0) * precision * recall, x * precision + recall), 0)


# --------------------------------------------------------------------------- gain ones


def _ideal(rk: Rankings, p: Params):
    """The ideal ranking's positive gains, per query in ideal order: (query, position from
    0, gain), and the number of them per query."""
    j = rk.judgements
    gain = np.where(j.label >= 0, gains(j.label, p), 0.0)
    keep = gain > 0
    query, gain = j.query[keep], gain[keep]
    order = np.lexsort((-gain, query))
    query, gain = query[order], gain[order]
    return query, position_in_segment(query), gain, np.bincount(query, minlength=rk.n_queries)


def _hit_gains(rk: Rankings, p: Params) -> np.ndarray:
    return np.where(rk.label >= 0, gains(rk.label, p), 0.0)


def _at_positions(query, position, values, n, wanted_query, wanted_position):
    """``values`` (per (query, position), running sums) looked up at other positions; a
    position past a query's last gives its last value, one before its first 0."""
    out = np.zeros(len(wanted_query))
    if not len(query):
        return out
    counts = np.bincount(query, minlength=n)
    starts = np.cumsum(counts) - counts
    last = np.minimum(wanted_position, counts[wanted_query] - 1)
    ok = last >= 0
    out[ok] = values[starts[wanted_query[ok]] + last[ok]]
    return out


def g_measure(rk: Rankings, p: Params) -> np.ndarray:
    """trec_eval's G: each retrieved gain over log2(2 + cost so far - gain so far), the cost
    of a position the ideal gain there (at least 1), over the ideal's total gain."""
    iq, ipos, igain, count = _ideal(rk, p)
    n = rk.n_queries
    cost = segment_cumsum(np.maximum(igain, 1.0), iq, n)
    gain = _hit_gains(rk, p)
    got = segment_cumsum(gain, rk.query, n)
    position = rk.rank - 1
    sum_cost = _at_positions(iq, ipos, cost, n, rk.query, position)
    sum_cost = sum_cost + np.maximum(position - count[rk.query] + 1, 0)
    term = np.where(gain != 0, gain / np.log2(2 + sum_cost - got), 0.0)
    total_ideal = np.bincount(iq, weights=igain, minlength=n)
    return _ratio(np.bincount(rk.query, weights=term, minlength=n), total_ideal)


def _dcg_parts(rk: Rankings, p: Params):
    n = rk.n_queries
    iq, ipos, igain, count = _ideal(rk, p)
    ideal = segment_cumsum(igain / np.log2(ipos + 2.0), iq, n)
    gain = _hit_gains(rk, p)
    dcg = segment_cumsum(np.where(gain != 0, gain / np.log2(rk.rank + 1.0), 0.0), rk.query, n)
    return (iq, ipos, igain, count, ideal), gain, dcg


def ndcg_rel(rk: Rankings, p: Params) -> np.ndarray:
    (iq, ipos, _, count, ideal), gain, dcg = _dcg_parts(rk, p)
    n = rk.n_queries
    positive = gain > 0
    q = rk.query[positive]
    ideal_here = _at_positions(iq, ipos, ideal, n, q, rk.rank[positive] - 1)
    total = np.bincount(q, weights=dcg[positive] / ideal_here, minlength=n)
    rel_ret = np.bincount(q, minlength=n)
    ideal_all = _at_positions(iq, ipos, ideal, n, np.arange(n), count - 1)
    dcg_all = _at_positions(
        rk.query, position_in_segment(rk.query), dcg, n, np.arange(n), np.full(n, 1 << 62)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        total = total + (count - rel_ret) * dcg_all / ideal_all
    return np.where(total > 0, total / np.maximum(count, 1), 0.0)


def r_ndcg(rk: Rankings, p: Params) -> np.ndarray:
    """trec_eval's Rndcg: nDCG averaged over the ideal ranking's changes of gain (and its
    end), plus the whole ranking when it runs two or more docs past the ideal."""
    (iq, ipos, igain, count, ideal), gain, dcg = _dcg_parts(rk, p)
    n = rk.n_queries
    # a change of gain at ideal position b (1 <= b <= count): ideal[b] != ideal[b - 1]
    nxt = np.append(igain[1:], 0.0)
    nxt[np.append(ipos[1:] == 0, True)] = 0.0
    boundary = nxt != igain  # after this ideal position
    bq, bpos = iq[boundary], ipos[boundary] + 1  # positions < bpos in the prefix
    key = (rk.query.astype(np.int64) << 32) + rk.rank
    where = np.searchsorted(key, (bq.astype(np.int64) << 32) + bpos, side="right") - 1
    ok = (
        (where >= 0) & (rk.query[np.maximum(where, 0)] == bq)
        if len(key)
        else np.zeros(len(bq), dtype=bool)
    )
    results = np.zeros(len(bq))
    results[ok] = dcg[where[ok]]
    ideal_b = ideal[boundary]
    total = np.bincount(bq, weights=results / ideal_b, minlength=n)
    changes = np.bincount(bq, minlength=n).astype(np.float64)
    dcg_all = _at_positions(
        rk.query, position_in_segment(rk.query), dcg, n, np.arange(n), np.full(n, 1 << 62)
    )
    ideal_all = _at_positions(iq, ipos, ideal, n, np.arange(n), count - 1)
    extra = (rk.num_ret >= count + 2) & (ideal_all > 0)
    total = total + np.where(extra, dcg_all / np.where(ideal_all > 0, ideal_all, 1.0), 0.0)
    changes = changes + extra
    with np.errstate(invalid="ignore", divide="ignore"):
        value = total / changes
    return np.where(_num_rel(rk, p) > 0, value, 0.0)


def _rbp_gains(rk: Rankings, p: Params) -> np.ndarray:
    """trec_eval's rbp gains: the levels' gains scaled into [0, 1] by (g - min) / (max -
    min) when one is outside it (min and max over the levels 0 .. the query's highest)."""
    gain = _hit_gains(rk, p)
    mapping = dict(p.get("gains") or ())
    if not mapping:
        j = rk.judgements
        top = np.full(rk.n_queries, -1)
        np.maximum.at(top, j.query, j.label)
        high = np.maximum(top[rk.query], 0).astype(np.float64)
        return np.where(high > 1, gain / np.where(high > 0, high, 1.0), gain)
    j = rk.judgements
    top = np.full(rk.n_queries, -1)
    np.maximum.at(top, j.query, j.label)
    out = gain.copy()
    for q in np.unique(rk.query):
        levels = {level: float(level) for level in range(int(top[q]) + 1)}
        levels.update(mapping)
        low, high = min(levels.values()), max(levels.values())
        rows = rk.query == q
        if low < 0 or high > 1:
            with np.errstate(invalid="ignore", divide="ignore"):  # one gain: 0 / 0, as in C
                span = np.float64(high - low)
                scaled = {lv: np.float64(g - low) / span for lv, g in levels.items()}
            out[rows] = [scaled.get(int(lb), 0.0) for lb in rk.label[rows]]
    return out


def _powers(p_value: float, n: int) -> np.ndarray:
    """p^0 .. p^n by repeated multiplication, as trec_eval's loop makes them."""
    return np.concatenate(([1.0], np.cumprod(np.full(n, p_value))))


def rbp(rk: Rankings, p: Params) -> np.ndarray:
    persistence = float(p.get("p", 0.9))
    gain = _rbp_gains(rk, p)
    weight = _powers(persistence, int(rk.rank.max()) if len(rk.rank) else 0)
    term = np.where(gain != 0, gain * weight[rk.rank - 1], 0.0)
    return (1.0 - persistence) * np.bincount(rk.query, weights=term, minlength=rk.n_queries)


def rbp_residual(rk: Rankings, p: Params) -> np.ndarray:
    persistence = float(p.get("p", 0.9))
    longest = int(rk.num_ret.max()) if len(rk.num_ret) else 0
    weight = _powers(persistence, longest)
    every = np.concatenate(([0.0], np.cumsum(weight[:-1])))  # sum of p^i, i < n
    judged = rk.label >= 0
    judged_weight = np.bincount(
        rk.query[judged], weights=weight[rk.rank[judged] - 1], minlength=rk.n_queries
    )
    unjudged_count = rk.num_ret - np.bincount(rk.query[judged], minlength=rk.n_queries)
    value = weight[rk.num_ret] + (1 - persistence) * (every[rk.num_ret] - judged_weight)
    return np.where(unjudged_count > 0, value, 0.0)


# --------------------------------------------------------------------------- relstring


def relstrings(rk: Rankings, length: int) -> list[str]:
    """trec_eval's relstring per query: the labels of the first ``length`` docs, ``-`` for
    a doc not in the qrels, ``.`` for a negative label, ``>`` above 9."""
    width = np.minimum(rk.num_ret, max(length, 0))
    out = [bytearray(b"-" * int(w)) for w in width]
    inside = rk.rank <= width[rk.query]
    for q, r, label in zip(rk.query[inside], rk.rank[inside], rk.label[inside], strict=True):
        out[q][r - 1] = ord(">") if label > 9 else ord(".") if label < 0 else 48 + int(label)
    return [s.decode() for s in out]
