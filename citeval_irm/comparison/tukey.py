"""Sakai's randomised Tukey HSD (after Carterette 2012), vectorised over permutations and
measures.

The values of the systems are shuffled within each query, the statistic is the range
(largest minus smallest system mean); a pair's p-value is the share of shufflings (the
observed one counted: ``(b + 1) / (B + 1)``) whose range reaches the pair's observed
difference, which controls the family-wise error over all pairs of systems. When there are
at most ``B`` shufflings of the queries that vary, every one is enumerated and p is exact.

How it is computed. A query whose systems all score the same on every measure is left out
(any shuffling leaves it as it is; its sums are added back). Each shuffling is, for every
query, the system each slot takes (:func:`_random_slots`); the slots' sums over the queries,
for every measure at once, are one sparse product per batch of shufflings (a row per
(slot, shuffling) with a 1 at each query's chosen value, times the values as a
(query x system) x measure matrix), so the work is B x queries x systems x measures
additions in compiled code, with no Python loop over queries, shufflings or measures. The
ranges of all shufflings are kept (B x measures numbers) and each pair's count read from
them sorted.

The draws. Shuffling ``b`` of query ``q`` (the queries that vary, in order) takes the
uniform numbers ``u = rng.random((B, queries, d))[b, q]``, ``d = max(k - 8, 0) + 1`` for
``k`` systems: the first ``h = min(k, 8)`` slots take order ``floor(u[0] * h!)`` of the
lexicographic table of the h! orders, the others their own system; then for ``i = 8`` up
to ``k - 1`` slot ``i`` is swapped with slot ``floor(u[i - 7] * (i + 1))`` (Fisher-Yates
upwards). Slot ``s`` of the shuffled query holds the value of the system in it. Every order
is equally likely (up to the 2**-53 granularity of a double), and the numbers drawn do not
depend on the batching: ``tests/compare_reference.py`` redraws them with plain loops and
gets the same p-values.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from functools import cache

import numpy as np
from scipy import sparse

from ..base.errors import InputError

BATCH_ELEMENTS = 1 << 22
"""Index entries built per batch of shufflings (4 M: a few tens of MB)."""

TABLE_SYSTEMS = 8
"""Systems up to which a row's order is looked up in the table of their k! orders (8! =
40,320); beyond, Fisher-Yates swaps place the other slots first."""


def randomised_tukey_hsd(
    values: np.ndarray, permutations: int, rng: np.random.Generator, *, exact: bool | None = None
) -> tuple[np.ndarray, bool]:
    """Sakai's randomised Tukey HSD over ``values`` (queries x systems x measures).

    Returns p-values (systems x systems x measures, symmetric, diagonal 1) and whether they
    are exact: ``exact=None`` enumerates every within-query shuffling when there are at most
    ``permutations`` of them; ``True`` always enumerates (at most 8 systems), ``False``
    always samples.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 2:
        values = values[:, :, None]
    n, k, measures = values.shape
    if k < 2:
        raise InputError(None, "the randomised Tukey HSD needs at least two systems")
    if permutations < 1:
        raise InputError(None, f"permutations must be at least 1, not {permutations}")
    means = values.mean(axis=0)  # systems x measures
    observed = np.abs(means[:, None, :] - means[None, :, :])  # k x k x measures
    varies = (values != values[:, :1, :]).any(axis=(1, 2))
    varying = values[varies]
    orders = math.factorial(k)
    shufflings = orders ** len(varying)  # a Python int: no overflow
    if exact is None:
        exact = k <= TABLE_SYSTEMS and shufflings <= permutations
    if exact and k > TABLE_SYSTEMS:
        raise InputError(None, f"exact Tukey HSD needs at most {TABLE_SYSTEMS} systems")
    draws = shufflings if exact else permutations
    fixed = values[~varies].sum(axis=0)  # the same for every system: kept for the rounding
    flat = varying.reshape(len(varying) * k, measures)  # row q * k + t: system t of query q
    spreads = np.empty((draws, measures))
    done = 0
    for slots in _slot_batches(len(varying), k, draws, rng, exact):
        sums = _slot_sums(slots, flat) + fixed[None]  # batch x systems x measures
        spreads[done : done + len(sums)] = (sums.max(axis=1) - sums.min(axis=1)) / n
        done += len(sums)
    gamma = 1e-11 * np.maximum(np.abs(values).sum(axis=(0, 1)), 1.0) / n
    reached = np.empty_like(observed)
    for m in range(measures):  # how many ranges reach each pair's difference
        ordered = np.sort(spreads[:, m])
        reached[:, :, m] = draws - np.searchsorted(ordered, observed[:, :, m] - gamma[m], "left")
    p = reached / shufflings if exact else (reached + 1) / (permutations + 1)
    p[np.arange(k), np.arange(k)] = 1.0
    return p, bool(exact)


@cache
def _orders(k: int) -> np.ndarray:
    """The k! orders of k systems, lexicographic, as columns (k x k!)."""
    return np.array(list(itertools.permutations(range(k))), dtype=np.int8).T.copy()


def _slot_batches(
    n: int, k: int, draws: int, rng: np.random.Generator, exact: bool
) -> Iterator[np.ndarray]:
    """The shufflings in batches: for each, the system each slot takes in each query
    (systems x batch x queries): ``draws`` random ones, or with ``exact`` every
    combination of the queries' orders (code ``c``: query ``q`` takes order
    ``c // k!**q % k!``)."""
    size = max(1, BATCH_ELEMENTS // max(n * k, 1))
    table = _orders(k) if exact else np.empty((k, 0), dtype=np.int8)  # random: no table
    for start in range(0, draws, size):
        count = min(size, draws - start)
        if not exact:
            yield _random_slots(rng, k, count, n)
            continue
        rest = np.arange(start, start + count, dtype=np.int64)
        choice = np.empty((count, n), dtype=np.intp)
        for q in range(n):  # the code's digits in base k!
            rest, choice[:, q] = np.divmod(rest, table.shape[1])
        yield table[:, choice]


def _random_slots(rng: np.random.Generator, k: int, count: int, n: int) -> np.ndarray:
    """``count`` uniform random shufflings of ``n`` queries' ``k`` systems (systems x count
    x queries), drawn as the module's docstring says."""
    head = min(k, TABLE_SYSTEMS)
    uniform = rng.random((count, n, k - head + 1)).reshape(count * n, -1)
    table = _orders(head)
    slots = np.empty((k, count * n), dtype=np.int8 if k < 128 else np.intp)
    slots[:head] = table[:, _below(uniform[:, 0], table.shape[1])]
    slots[head:] = np.arange(head, k)[:, None]
    flat = slots.reshape(-1)
    cells = np.arange(count * n, dtype=np.intp)
    for step, i in enumerate(range(head, k), 1):
        where = _below(uniform[:, step], i + 1) * (count * n) + cells  # slot j of each row
        taken = flat[where]
        flat[where] = slots[i]
        slots[i] = taken
    return slots.reshape(k, count, n)


def _below(uniform: np.ndarray, bound: int) -> np.ndarray:
    """Whole numbers 0 ... bound - 1 from uniform numbers in [0, 1)."""
    return np.minimum((uniform * bound).astype(np.intp), bound - 1)


def _slot_sums(slots: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Each slot's sum over the queries, per shuffling and measure (batch x systems x
    measures): one sparse product, a row per (slot, shuffling) with a 1 at column
    ``q * k + slots[slot, b, q]`` of every query."""
    k, count, n = slots.shape
    if n == 0:
        return np.zeros((count, k, flat.shape[1]))
    index = np.int32 if n * k < 2**31 and k * count * n < 2**31 else np.int64
    columns = (slots + (np.arange(n, dtype=index) * k)[None, None, :]).astype(index).ravel()
    picks = sparse.csr_matrix(
        (np.ones(len(columns)), columns, np.arange(0, len(columns) + 1, n, dtype=index)),
        shape=(k * count, n * k),
    )
    return (picks @ flat).reshape(k, count, -1).transpose(1, 0, 2)
