"""Generate the small example run and qrels shipped in ``examples/``.

The data is synthetic: ACL-Anthology-style ids and a ranking shaped like a citation
recommender's (the cited paper usually near the top, sometimes missing, scores rounded to
two decimals so that some are tied). It exists so that the README's first command has
something to evaluate on a fresh machine; it is not a benchmark.

    python scripts/make_example.py  # rewrites examples/run.trec and examples/qrels.txt
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 2026
NUM_CONTEXTS = 40
NUM_PAPERS = 400
DEPTH = 100
VENUES = ("P", "N", "D", "E", "W", "C", "J", "Q")


def paper_ids(rng: np.random.Generator, count: int) -> list[str]:
    ids: set[str] = set()
    while len(ids) < count:
        venue = VENUES[rng.integers(len(VENUES))]
        year = rng.integers(5, 16)
        ids.add(f"{venue}{year:02d}-{rng.integers(1001, 1200)}")
    return sorted(ids)


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def main(out: Path = EXAMPLES) -> None:
    rng = np.random.default_rng(SEED)
    papers = paper_ids(rng, NUM_PAPERS)
    citing = [p for p in papers if p[1:3] == "15"]
    cited_pool = [p for p in papers if p[1:3] != "15"]
    run_lines, qrels_lines = [], []
    for n in range(NUM_CONTEXTS):
        source = citing[n % len(citing)]
        gold = list(rng.choice(cited_pool, size=2 if n % 10 == 0 else 1, replace=False))
        context = f"{source}_{gold[0]}_{n}"
        qrels_lines += [f"{context} 0 {doc} 1\n" for doc in gold]
        others = [p for p in cited_pool if p not in gold]
        ranking = list(rng.choice(others, size=DEPTH, replace=False))
        for doc in gold:
            if rng.random() < 0.9:  # the cited paper is retrieved nine times in ten
                rank = int(min(rng.geometric(0.15) - 1, DEPTH - 1))
                ranking.insert(rank, doc)
        ranking = ranking[:DEPTH]
        scores = np.round(np.sort(rng.uniform(0, 30, size=DEPTH))[::-1], 1)
        run_lines += [
            f"{context} Q0 {doc} {rank + 1} {score:.1f} bm25-example\n"
            for rank, (doc, score) in enumerate(zip(ranking, scores))
        ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.trec").write_text("".join(run_lines))
    (out / "qrels.txt").write_text("".join(qrels_lines))


if __name__ == "__main__":
    main()
