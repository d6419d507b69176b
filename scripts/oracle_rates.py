"""How often ``validate``'s ``gold_always_present`` check flags honest runs, and how often it
catches runs with the gold inserted: the figures of the README, from::

    python scripts/oracle_rates.py --draws 2000

Three tables:

- exact false-positive rates of the rule (:func:`citeval_irm.checks.protocol.oracle_verdict`)
  for an honest first stage that misses the gold of a share ``miss`` of the rankings it is
  judged on (those covering at most half of their admissible pool), for ``n`` such rankings:
  the binomial probability of every miss count the rule flags;
- honest BM25 runs of the demo corpus (``citeval/demo/test``, 163 queries, an admissible
  pool of 404 papers each), over the whole text and over titles alone, cut at every depth
  from 1 doc to the whole pool, each checked by :func:`citeval_irm.validate` itself;
- runs with the gold inserted, as an oracle first stage does (BM25's top ``depth - 1`` with
  every gold paper not in it appended below), into a random 95 %, 97 %, 99 % or all of the
  rankings, at depths 10 to 200 (a quarter of a percent to half of the pool): the share of
  ``draws`` random choices of those rankings that the rule flags.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy.stats import binom

import citeval_irm
from citeval_irm.checks.protocol import ORACLE_MAX_COVERAGE, oracle_verdict

DEMO = "citeval/demo/test"


def flagged_counts(rankings: int) -> np.ndarray:
    """The miss counts the rule flags among ``rankings`` rankings (a prefix 0..k)."""
    counts = np.arange(rankings + 1)
    return counts[[oracle_verdict(rankings, int(m)).flagged for m in counts]]


def false_positive_rate(rankings: int, miss: float) -> float:
    """The exact probability that an honest first stage missing a share ``miss`` of its
    gold is flagged on ``rankings`` rankings."""
    flagged = flagged_counts(rankings)
    return float(binom.cdf(flagged.max(), rankings, miss)) if len(flagged) else 0.0


def gold_ranks(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.Series:
    """Each query's best gold rank in ``run`` (rank order as given), inf where none."""
    ranked = run.assign(rank=run.groupby("query_id", sort=False).cumcount() + 1)
    gold = qrels[qrels["relevance"] > 0][["query_id", "doc_id"]]
    best = ranked.merge(gold, on=["query_id", "doc_id"]).groupby("query_id")["rank"].min()
    queries = gold["query_id"].drop_duplicates()
    return best.reindex(queries).fillna(np.inf)


def detection_rate(
    best: pd.Series, depth: int, share: float, draws: int, rng: np.random.Generator
) -> float:
    """The share of ``draws`` random insertions into ``share`` of the rankings (each cut at
    ``depth``) that the rule flags: a ranking with the insertion holds its gold; another
    holds it when BM25's own top ``depth`` does."""
    hits = (best <= depth).to_numpy()
    n = len(hits)
    inserted = int(round(share * n))
    flagged = 0
    for _ in range(draws):
        chosen = np.zeros(n, dtype=bool)
        chosen[rng.choice(n, inserted, replace=False)] = True
        missed = int((~(hits | chosen)).sum())
        flagged += oracle_verdict(n, missed).flagged
    return flagged / draws


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    misses = [0.005, 0.01, 0.02, 0.03, 0.05, 0.10]
    print("False-positive rate (exact) for an honest first stage missing a share of its gold")
    print("| rankings judged | " + " | ".join(f"misses {m:.1%}" for m in misses) + " |")
    print("|---:|" + "---:|" * len(misses))
    for n in (30, 90, 163, 1_000, 9_585, 124_189):
        rates = " | ".join(f"{false_positive_rate(n, m):.3f}" for m in misses)
        print(f"| {n:,} | {rates} |")

    qrels = citeval_irm.read_qrels(DEMO).frame
    pool = 404
    runs = {
        "BM25 (title + abstract)": citeval_irm.bm25_run(DEMO, pool).frame,
        "BM25 (titles)": citeval_irm.bm25_run(DEMO, pool, fields=("title",)).frame,
    }
    depths = [1, 5, 10, 25, 50, 100, 150, 200, 250, 300, 350, 400, 403, 404]
    print("\nHonest runs of the demo (163 queries, pool 404): flagged by validate?")
    print("| run | " + " | ".join(str(d) for d in depths) + " |")
    print("|---|" + "---|" * len(depths))
    for name, run in runs.items():
        cells = []
        for depth in depths:
            cut = run.groupby("query_id", sort=False).head(depth)
            report = citeval_irm.validate(cut, DEMO, measures=["RR"])
            flagged = any(w.code == "gold_always_present" for w in report.warnings)
            missed = int((gold_ranks(run, qrels) > depth).sum())
            cells.append(f"{'FLAGGED' if flagged else 'no'} ({missed} missed)")
        print(f"| {name} | " + " | ".join(cells) + " |")

    best = gold_ranks(runs["BM25 (title + abstract)"], qrels)
    shares = (0.95, 0.97, 0.99, 1.0)
    print(f"\nDetection rate, gold inserted into BM25's top depth - 1 ({args.draws} draws)")
    print("| depth (share of pool) | " + " | ".join(f"{s:.0%} inserted" for s in shares) + " |")
    print("|---|" + "---:|" * len(shares))
    for depth in (10, 25, 50, 100, 150, 200):
        assert depth / pool <= ORACLE_MAX_COVERAGE
        rates = " | ".join(f"{detection_rate(best, depth, s, args.draws, rng):.2f}" for s in shares)
        print(f"| {depth} ({depth / pool:.1%}) | {rates} |")


if __name__ == "__main__":
    main()
