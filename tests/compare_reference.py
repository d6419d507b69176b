"""Test helpers for `compare`: direct (brute-force) statistics to check the vectorised ones
against, and TREC runs with a known difference."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from citeval_irm import write_run


def enumerated_sign_flip_p(d) -> float:
    """Two-sided randomisation p over every one of the 2**n sign vectors, by brute force."""
    d = list(d)
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


def enumerated_tukey_p(values: np.ndarray) -> np.ndarray:
    """Randomised Tukey HSD p over every within-row order, by brute force (queries x systems)."""
    n, k = values.shape
    observed = np.abs(values.mean(0)[:, None] - values.mean(0)[None, :])
    orders = list(itertools.permutations(range(k)))
    hits = np.zeros((k, k))
    total = 0
    for choice in itertools.product(orders, repeat=n):
        shuffled = np.array([values[i, list(order)] for i, order in enumerate(choice)])
        means = shuffled.mean(0)
        hits += (means.max() - means.min()) >= observed - 1e-12
        total += 1
    return hits / total


def direct_tukey_p(values: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """The randomised Tukey HSD written plainly: shuffle each row, take the range, count."""
    rng = np.random.default_rng(seed)
    n, k = values.shape
    observed = np.abs(values.mean(0)[:, None] - values.mean(0)[None, :])
    hits = np.zeros((k, k))
    for _ in range(permutations):
        shuffled = np.array([row[rng.permutation(k)] for row in values])
        means = shuffled.mean(0)
        hits += (means.max() - means.min()) >= observed - 1e-12
    return (hits + 1) / (permutations + 1)


def flat(text: str) -> str:
    """Text with its line wrapping undone (legends and notes wrap at 100 characters)."""
    return " ".join(text.split())


QUERIES = 400
DEPTH = 100


def _ranking(query: str, gold: list[str], gold_ranks: list[int], rng) -> pd.DataFrame:
    """``DEPTH`` docs for a query with its gold docs at the given ranks (beyond DEPTH: not
    retrieved), the rest random non-relevant docs, scores strictly decreasing."""
    docs = [f"d{i:05d}" for i in rng.choice(50_000, size=DEPTH + 5, replace=False)]
    docs = [doc for doc in docs if doc not in gold][:DEPTH]
    for doc, rank in sorted(zip(gold, gold_ranks), key=lambda pair: pair[1]):
        if rank <= DEPTH:
            docs.insert(rank - 1, doc)
    docs = docs[:DEPTH]
    return pd.DataFrame(
        {"query_id": query, "doc_id": docs, "score": np.arange(DEPTH, 0, -1, dtype=float)}
    )


def planted_runs(folder: Path, seed: int = 7) -> dict[str, Path]:
    """Qrels and three runs over 400 queries (1 or 2 gold papers each): ``base``; ``better``,
    the same rankings with every gold paper three times closer to the top (clearly better);
    ``null``, gold ranks drawn afresh from base's distribution (equal up to noise)."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"base": [], "better": [], "null": []}
    for q in range(QUERIES):
        query = f"P15-{1000 + q}_N0{q % 10}-1{q:03d}_0"
        gold = [f"g{q:04d}a"] + ([f"g{q:04d}b"] if rng.random() < 0.3 else [])
        qrels += [(query, "0", doc, 1) for doc in gold]
        base = list(rng.geometric(0.08, size=len(gold)))
        ranks = {
            "base": base,
            "better": [max(1, -(-r // 3)) for r in base],
            "null": list(rng.geometric(0.08, size=len(gold))),
        }
        for name, gold_ranks in ranks.items():
            runs[name].append(_ranking(query, gold, _unique(gold_ranks), rng))
    paths = {"qrels": folder / "qrels.txt"}
    paths["qrels"].write_text("".join(f"{q} {i} {d} {r}\n" for q, i, d, r in qrels))
    for name, frames in runs.items():
        paths[name] = write_run(
            pd.concat(frames, ignore_index=True), folder / f"{name}.trec", tag=name
        )
    return paths


def _unique(ranks: list[int]) -> list[int]:
    """Distinct ranks for a query's gold docs (a tie moves the second one down)."""
    out: list[int] = []
    for rank in ranks:
        while rank in out:
            rank += 1
        out.append(rank)
    return out


def enumerated_signed_rank_p(d) -> float:
    """Two-sided Wilcoxon p by brute force: zeros dropped, mid-ranks of the magnitudes, every
    one of the 2**m sign assignments of the m non-zero differences."""
    nonzero = [x for x in d if x != 0]
    magnitudes = sorted(abs(x) for x in nonzero)
    ranks = [
        sum(i + 1 for i, y in enumerate(magnitudes) if y == abs(x))
        / sum(1 for y in magnitudes if y == abs(x))
        for x in nonzero
    ]
    centre = sum(ranks) / 2
    observed = abs(sum(r for r, x in zip(ranks, nonzero) if x > 0) - centre)
    hits = sum(
        abs(sum(r for r, s in zip(ranks, signs) if s) - centre) >= observed - 1e-9
        for signs in itertools.product((True, False), repeat=len(ranks))
    )
    return hits / 2 ** len(ranks)


def drawn_tukey_p(values: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """The randomised Tukey HSD with the draws ``citeval_irm.comparison.tukey`` documents,
    written with plain loops (one shuffling, one query at a time): the same seed gives the
    same p-values (queries x systems x measures in, systems x systems x measures out)."""
    n, k, measures = values.shape
    head = min(k, 8)
    table = list(itertools.permutations(range(head)))
    varying = [q for q in range(n) if (values[q] != values[q, :1]).any()]
    uniform = np.random.default_rng(seed).random((permutations, len(varying), k - head + 1))
    means = values.mean(0)
    observed = np.abs(means[:, None, :] - means[None, :, :])
    hits = np.zeros((k, k, measures))
    for b in range(permutations):
        shuffled = values.copy()
        for position, q in enumerate(varying):
            u = uniform[b, position]
            slots = list(table[min(int(u[0] * len(table)), len(table) - 1)])
            slots += list(range(head, k))
            for i in range(head, k):
                j = min(int(u[i - head + 1] * (i + 1)), i)
                slots[i], slots[j] = slots[j], slots[i]
            shuffled[q] = values[q, slots]
        shuffled_means = shuffled.mean(0)
        spread = shuffled_means.max(0) - shuffled_means.min(0)
        hits += spread[None, None, :] >= observed - 1e-12
    return (hits + 1) / (permutations + 1)
