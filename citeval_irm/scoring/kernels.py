"""Vectorised kernels: one function per measure family, over all queries at once.

Each kernel takes :class:`~citeval_irm.scoring.rankings.Rankings` and :class:`Params` and
returns one value per counted query. Semantics are trec_eval's (relevant: label >= ``rel``;
nDCG gain = label, negative labels gain 0, ideal DCG from every judged doc; AP and recall
divide by every relevant doc); the recipe parameters (``binary_gains``,
``first_listed_gold``, ``rr_cutoff``) are the papers' departures from it, off by default.

Each family also has its expected value over a uniformly random order of tied scores, by
the closed forms of McSherry and Najork (ECIR 2008): in a tie group of ``n`` docs holding
``r`` relevant ones (total gain ``G``), each position is relevant with probability ``r / n``
and carries expected gain ``G / n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..base.errors import InputError
from ..reading.tables import position_in_segment, run_starts
from .rankings import Rankings


@dataclass(frozen=True)
class Params:
    """What a kernel is asked to compute: the measure's parameters, then the recipes'."""

    cutoff: int | None = None
    rel: int = 1
    judged_only: bool = False
    rel_given: bool = True  # NumRet: False counts every retrieved doc
    binary_gains: bool = False  # nDCG gain 1 for every doc labelled >= rel
    first_listed_gold: bool = False  # RR from the first listed relevant doc only
    rr_cutoff: int | None = None  # RR counts only at rank <= rr_cutoff
    other: tuple = ()  # the family's other parameters, (name, value) pairs

    def get(self, name: str, default=None):
        """The family's parameter ``name`` (a dict given as its (key, value) pairs)."""
        return dict(self.other).get(name, default)


def _view(rk: Rankings, p: Params) -> Rankings:
    return rk.judged_only() if p.judged_only else rk


def _per_query(rk: Rankings, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Sum (or count) over the hits selected by ``mask``, per query."""
    w = None if weights is None else weights[mask]
    return np.bincount(rk.query[mask], weights=w, minlength=rk.n_queries).astype(np.float64)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _depth(p: Params) -> float:
    return np.inf if p.cutoff is None else p.cutoff


def _relevant_hits(rk: Rankings, p: Params) -> np.ndarray:
    return rk.label >= p.rel


# --------------------------------------------------------------------------- kernels


def reciprocal_rank(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    mask = _relevant_hits(rk, p)
    if p.first_listed_gold:
        mask &= rk.qrel_row == rk.judgements.first_relevant_row(p.rel)[rk.query]
    limit = min(_depth(p), np.inf if p.rr_cutoff is None else p.rr_cutoff)
    rows = np.flatnonzero(mask)
    first = rows[run_starts(rk.query[rows])]
    out = np.zeros(rk.n_queries)
    ranks = rk.rank[first]
    inside = ranks <= limit
    out[rk.query[first][inside]] = 1.0 / ranks[inside]
    return out


def hits_at(rk: Rankings, p: Params, depth: np.ndarray | float) -> np.ndarray:
    """Number of relevant hits at rank <= depth (a number or one per query)."""
    limit = depth[rk.query] if isinstance(depth, np.ndarray) else depth
    return _per_query(rk, _relevant_hits(rk, p) & (rk.rank <= limit))


def _counting_family(count):
    """P@K, R@K and R-precision from one way of counting the relevant docs above a depth:
    the hits themselves, or their expectation over the orders of tied scores."""

    def precision(rk: Rankings, p: Params) -> np.ndarray:
        return count(_view(rk, p), p, p.cutoff) / p.cutoff

    def recall(rk: Rankings, p: Params) -> np.ndarray:
        rk = _view(rk, p)
        return _ratio(count(rk, p, _depth(p)), rk.judgements.relevant(p.rel))

    def r_precision(rk: Rankings, p: Params) -> np.ndarray:
        rk = _view(rk, p)
        relevant = rk.judgements.relevant(p.rel)
        return _ratio(count(rk, p, relevant), relevant)

    return precision, recall, r_precision


precision, recall, r_precision = _counting_family(hits_at)


def success(rk: Rankings, p: Params) -> np.ndarray:
    return (hits_at(_view(rk, p), p, _depth(p)) > 0).astype(np.float64)


def average_precision(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    mask = _relevant_hits(rk, p)
    rows = np.flatnonzero(mask)
    query = rk.query[rows]
    nth = position_in_segment(query) + 1  # the i-th relevant hit of its query
    ranks = rk.rank[rows]
    inside = ranks <= _depth(p)
    total = np.bincount(query[inside], weights=nth[inside] / ranks[inside], minlength=rk.n_queries)
    return _ratio(total, rk.judgements.relevant(p.rel))


EXP_GAIN_LIMIT = 1000  # 2^1000: millions of docs at that gain still sum to a finite double


NOT_IN_POOL, JUDGED_NEGATIVE = -1, -2  # trec_eval's RELVALUE_NONPOOL, RELVALUE_UNJUDGED


def gains(label: np.ndarray, p: Params) -> np.ndarray:
    """The gain of each label: the label itself (negative: 0), or the family's ``gains``
    (level: gain; trec_eval's ``ndcg.1=3,2=9``) for the levels it names; a doc labelled
    below 0 is trec_eval's level -2 ("in the pool, unjudged": ``ndcg.-2=1`` gives it a
    gain), a retrieved doc the qrels do not list its level -1 (:func:`dcg` adds those);
    with ``dcg='exp-log2'`` (Burges et al.'s nDCG, gdeval's), 2^g - 1 of that g
    (``ndcg.1=1,2=3,3=7``: a negative label still gains 0)."""
    if p.binary_gains:
        return (label >= p.rel).astype(np.float64)
    out = np.maximum(label, 0).astype(np.float64)
    given = dict(p.get("gains") or ())
    for level, gain in given.items():
        if level >= 0:
            out[label == level] = gain
    if JUDGED_NEGATIVE in given:
        out[label < 0] = given[JUDGED_NEGATIVE]
    if p.get("dcg") != "exp-log2":
        return out
    if len(out) and out.max() > EXP_GAIN_LIMIT:
        raise InputError(
            None,
            f"nDCG(dcg='exp-log2'): a gain of 2^{out.max():g} - 1 is beyond what a double "
            f"holds in a sum; exponential gains take labels (or gains) up to {EXP_GAIN_LIMIT}",
        )
    return np.exp2(out) - 1


def ideal_dcg(rk: Rankings, p: Params) -> np.ndarray:
    """The best DCG any ranking of the judged docs reaches, cut at the measure's depth."""
    j = rk.judgements
    gain = np.where(j.label >= 0, gains(j.label, p), 0.0)  # the levels trec_eval counts
    positive = gain > 0
    query, gain = j.query[positive], gain[positive]
    order = np.lexsort((-gain, query))
    query, gain = query[order], gain[order]
    position = position_in_segment(query) + 1
    inside = position <= _depth(p)
    discounted = gain[inside] / np.log2(position[inside] + 1)
    return np.bincount(query[inside], weights=discounted, minlength=rk.n_queries)


def dcg(rk: Rankings, p: Params) -> np.ndarray:
    """The ranking's discounted cumulative gain, cut at the measure's depth (trec_eval's
    ``dcg``: its ``results_dcg``, summed in rank order)."""
    rk = _view(rk, p)
    inside = rk.rank <= _depth(p)
    total = _per_query(rk, inside, gains(rk.label, p) / np.log2(rk.rank + 1))
    outside = dict(p.get("gains") or ()).get(NOT_IN_POOL)
    if outside:
        total += outside * _discounts_outside_pool(rk, p, inside)
    return total


def _discounts_outside_pool(rk: Rankings, p: Params, inside: np.ndarray) -> np.ndarray:
    """Per query, the sum of 1 / log2(rank + 1) over the retrieved docs the qrels do not
    list, to the measure's depth: every rank's discount, less the listed docs' (the hits
    ``inside`` the depth)."""
    depth = rk.num_ret.astype(np.int64)
    if p.cutoff is not None:
        depth = np.minimum(depth, int(p.cutoff))
    longest = int(depth.max()) if len(depth) else 0
    every = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, longest + 2)))))
    return every[depth] - _per_query(rk, inside, 1.0 / np.log2(rk.rank + 1))


def ndcg(rk: Rankings, p: Params) -> np.ndarray:
    return _ratio(dcg(rk, p), ideal_dcg(_view(rk, p), p))


def num_ret(rk: Rankings, p: Params) -> np.ndarray:
    if not p.rel_given:
        return rk.num_ret.astype(np.float64)
    return _per_query(rk, _relevant_hits(rk, p))


def num_rel(rk: Rankings, p: Params) -> np.ndarray:
    return rk.judgements.relevant(p.rel).astype(np.float64)


def num_q(rk: Rankings, p: Params) -> np.ndarray:
    return np.ones(rk.n_queries)


def _judged_kernel(count):
    """Judged@K from a way of counting hits above a depth: ir-measures' judgement rate,
    the judged docs among the top min(K, retrieved), 0 for an empty ranking. A doc is
    judged when its label is >= 0: trec_eval reads a negative label as unjudged (``-J``,
    ``unj_K``), so the count is that of label >= 0, as with ``-l 0``."""

    def judged(rk: Rankings, p: Params) -> np.ndarray:
        depth = _depth(p)
        return _ratio(count(rk, replace(p, rel=0), depth), np.minimum(rk.num_ret, depth))

    return judged


judged = _judged_kernel(hits_at)


# --------------------------------------------------------------------------- expected values


@dataclass(frozen=True)
class _Groups:
    """Per tie group holding a hit: its query, first rank, size, relevant docs and gain."""

    query: np.ndarray
    start: np.ndarray
    size: np.ndarray
    relevant: np.ndarray
    gain: np.ndarray
    relevant_before: np.ndarray  # relevant docs in earlier groups of the same query


def _tie_groups(rk: Rankings, p: Params) -> _Groups:
    relevant = (rk.label >= p.rel).astype(np.int64)
    new = run_starts(rk.query, rk.group_start)
    group = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    query = rk.query[first]
    rel = np.bincount(group, weights=relevant, minlength=len(first)).astype(np.int64)
    gain = np.bincount(group, weights=gains(rk.label, p), minlength=len(first))
    cumulative = np.cumsum(rel) - rel
    query_start = np.flatnonzero(run_starts(query))
    sizes = np.diff(np.append(query_start, len(query)))
    before = cumulative - np.repeat(cumulative[query_start], sizes)
    return _Groups(query, rk.group_start[first], rk.group_size[first], rel, gain, before)


def _overlap(g: _Groups, depth) -> np.ndarray:
    """How many positions of each group lie at rank <= depth."""
    end = g.start + g.size - 1
    return np.clip(np.minimum(end, depth) - g.start + 1, 0, None)


def _expected_hits(rk: Rankings, p: Params, depth) -> np.ndarray:
    g = _tie_groups(rk, p)
    limit = depth if np.isscalar(depth) else depth[g.query]
    share = g.relevant / g.size * _overlap(g, limit)
    return np.bincount(g.query, weights=share, minlength=rk.n_queries)


expected_precision, expected_recall, expected_r_precision = _counting_family(_expected_hits)
expected_judged = _judged_kernel(_expected_hits)


def _first_relevant_groups(g: _Groups) -> np.ndarray:
    rows = np.flatnonzero(g.relevant > 0)
    return rows[run_starts(g.query[rows])]


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k) of integers 0 <= k <= n, from a table of log(i!) (``math.lgamma``, as
    exact as scipy's ``gammaln``) up to the largest n: tie groups are at most a ranking
    long, and scipy's import alone took a cross-check a quarter of a second."""
    n, k = np.asarray(n, dtype=np.int64), np.asarray(k, dtype=np.int64)
    if n.size and ((k < 0).any() or (k > n).any()):
        raise ValueError("log C(n, k) needs 0 <= k <= n")
    top = int(n.max(initial=0))
    log_factorial = np.array([math.lgamma(i + 1) for i in range(top + 1)])
    return log_factorial[n] - log_factorial[k] - log_factorial[n - k]


def expected_success(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    g = _tie_groups(rk, p)
    first = _first_relevant_groups(g)
    n, r = g.size[first], g.relevant[first]
    shown = _overlap(g, _depth(p))[first]
    # P(no relevant doc among the first `shown` positions) = C(n - r, shown) / C(n, shown)
    none = np.where(
        n - r >= shown, np.exp(_log_comb(n - r, np.minimum(shown, n - r)) - _log_comb(n, shown)), 0
    )
    out = np.zeros(rk.n_queries)
    out[g.query[first]] = np.where(shown > 0, 1.0 - none, 0.0)
    return out


def expected_reciprocal_rank(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    g = _tie_groups(rk, p)
    first = _first_relevant_groups(g)
    n, r, start = g.size[first], g.relevant[first], g.start[first]
    # the first relevant doc at the group's j-th position, j = 1 .. n - r + 1, with
    # probability C(n - j, r - 1) / C(n, r)
    count = n - r + 1
    group = np.repeat(np.arange(len(first)), count)
    j = np.arange(1, count.sum() + 1) - np.repeat(np.cumsum(count) - count, count)
    nn, rr = n[group], r[group]
    probability = np.exp(_log_comb(nn - j, rr - 1) - _log_comb(nn, rr))
    rank = start[group] + j - 1
    limit = min(_depth(p), np.inf if p.rr_cutoff is None else p.rr_cutoff)
    weight = np.where(rank <= limit, probability / rank, 0.0)
    out = np.zeros(rk.n_queries)
    out[g.query[first]] = np.bincount(group, weights=weight, minlength=len(first))
    return out


def _group_positions(g: _Groups, rows: np.ndarray):
    """Every position of the groups ``rows``: (group, offset from its start, rank)."""
    size = g.size[rows]
    group = np.repeat(rows, size)
    offset = np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)
    return group, offset, g.start[group] + offset


def expected_average_precision(rk: Rankings, p: Params) -> np.ndarray:
    rk = _view(rk, p)
    g = _tie_groups(rk, p)
    group, offset, rank = _group_positions(g, np.flatnonzero(g.relevant > 0))
    n, r = g.size[group], g.relevant[group]
    share = np.where(n > 1, (r - 1) / np.maximum(n - 1, 1), 0.0)
    value = r / n * (g.relevant_before[group] + 1 + offset * share) / rank
    value = np.where(rank <= _depth(p), value, 0.0)
    total = np.bincount(g.query[group], weights=value, minlength=rk.n_queries)
    return _ratio(total, rk.judgements.relevant(p.rel))


def expected_ndcg(rk: Rankings, p: Params) -> np.ndarray:
    if NOT_IN_POOL in dict(p.get("gains") or ()):
        raise InputError(
            None,
            "nDCG with a gain for the docs not in the qrels (level -1) "
            "has no expected value over tie orders here; use the "
            "trec_eval tie policy",
        )
    rk = _view(rk, p)
    g = _tie_groups(rk, p)
    group, _, rank = _group_positions(g, np.flatnonzero(g.gain > 0))
    value = np.where(rank <= _depth(p), g.gain[group] / g.size[group] / np.log2(rank + 1), 0.0)
    dcg = np.bincount(g.query[group], weights=value, minlength=rk.n_queries)
    return _ratio(dcg, ideal_dcg(rk, p))
