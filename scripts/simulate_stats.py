"""Seeded simulations of compare's statistics where IR data is unusual: most per-query
differences zero (90 % ties by default).

- coverage: how often the 95 % bootstrap interval (BCa, and the percentile one beside it)
  holds the true mean difference, over simulated query sets whose non-zero differences are
  drawn from a skewed distribution of known mean;
- type-I error: how often each paired test rejects at alpha = 0.05 when there is no
  difference (non-zero differences symmetric about 0).

Each rate is printed with its binomial standard error. ``tests/test_compare_stats.py`` runs
a small configuration of the same functions; the figures of the README come from::

    python scripts/simulate_stats.py --replications 4000
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from citeval_irm.comparison import stats

SKEWED_MEAN = 0.1  # the mean of a non-zero difference in the coverage simulation


def tied_differences(
    rng: np.random.Generator, queries: int, replications: int, ties: float, null: bool
) -> np.ndarray:
    """queries x replications differences, a share ``ties`` of them exactly 0; the others
    symmetric about 0 (``null``: R@k-like steps of 0.2) or skewed with mean
    :data:`SKEWED_MEAN` (an exponential shifted left)."""
    nonzero = rng.random((queries, replications)) >= ties
    if null:
        values = rng.choice([-0.6, -0.4, -0.2, 0.2, 0.4, 0.6], size=(queries, replications))
    else:
        values = rng.exponential(2 * SKEWED_MEAN, (queries, replications)) - SKEWED_MEAN
    return np.where(nonzero, values, 0.0)


def coverage(
    queries: int,
    replications: int,
    *,
    ties: float = 0.9,
    resamples: int = 2_000,
    method: str = "bca",
    seed: int = 0,
) -> tuple[float, float, int]:
    """Share of the intervals that hold the true mean, its standard error, and how many
    replications had an interval (those without variation have none)."""
    rng = np.random.default_rng(seed)
    diffs = tied_differences(rng, queries, replications, ties, null=False)
    truth = (1 - ties) * SKEWED_MEAN
    low, high = stats.bootstrap_ci(diffs, resamples, np.random.default_rng(seed + 1), 0.95, method)
    shown = ~np.isnan(low)
    covered = float(((low <= truth) & (truth <= high))[shown].mean())
    count = int(shown.sum())
    return covered, math.sqrt(covered * (1 - covered) / count), count


def type_one_error(
    queries: int,
    replications: int,
    *,
    ties: float = 0.9,
    alpha: float = 0.05,
    permutations: int = 2_000,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """Per test, the share of null replications it rejects at ``alpha`` and its standard
    error (a replication without a p counts as not rejected)."""
    rng = np.random.default_rng(seed)
    diffs = tied_differences(rng, queries, replications, ties, null=True)
    p_rand, _ = stats.randomisation_test(diffs, permutations, np.random.default_rng(seed + 1))
    rejected = {"randomisation": p_rand < alpha}
    tests = {"t": stats.paired_t, "wilcoxon": stats.wilcoxon, "sign": stats.sign_test}
    for name, test in tests.items():
        p = np.array([test(diffs[:, r]).p for r in range(replications)])
        rejected[name] = np.nan_to_num(p, nan=1.0) < alpha
    out = {}
    for name, hits in rejected.items():
        rate = float(hits.mean())
        out[name] = (rate, math.sqrt(max(rate * (1 - rate), 1e-12) / replications))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=1_000)
    parser.add_argument("--ties", type=float, default=0.9)
    parser.add_argument("--queries", type=int, nargs="+", default=[50, 100, 300, 1000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"{args.ties:.0%} ties, {args.replications:,} replications, seed {args.seed}")
    for n in args.queries:
        for method in ("bca", "percentile"):
            rate, se, count = coverage(
                n, args.replications, ties=args.ties, method=method, seed=args.seed
            )
            print(f"n={n:5d} coverage {method:10s} {rate:.3f} +- {se:.3f} ({count:,} intervals)")
        errors = type_one_error(n, args.replications, ties=args.ties, seed=args.seed)
        for name, (rate, se) in errors.items():
            print(f"n={n:5d} type-I     {name:13s} {rate:.3f} +- {se:.3f}")


if __name__ == "__main__":
    main()
