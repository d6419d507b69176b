"""``citeval table`` for 3 systems x 2 datasets, and ``citeval breakdown``: time and peak memory.

The corpora are SYNTHETIC, in the HAtten layout, read as ``citeval/acl-200`` and
``citeval/refseer`` through ``CITEVAL_ACL_200_DIR`` / ``CITEVAL_REFSEER_DIR``: ``--papers``
papers of 2000-2014 (ACL-style ids, so they have years), ``--queries`` test contexts citing
them from 2015 papers and as many training contexts (a Zipf-like popularity, so the
popularity bins differ). Each of three systems ranks ``--depth`` earlier papers per query,
the gold at a rank drawn per system (better systems rank it higher, some queries miss it),
every run admissible (validation passes). Rows (each a whole process, under
``harness.run_once``; peak RSS is the largest single process, a worker included):

- ``table``: ``citeval table MANIFEST --baseline s1 --jobs J`` (6 runs validated,
  evaluated with goyal2026's 11 measures, 2 x 2 x 11 paired tests with 10,000 permutations
  and bootstrap resamples each, corrected over the table);
- ``breakdown``: ``citeval breakdown RUN --dataset citeval/acl-200/test --by popularity``.

    python benchmarks/bench_table.py [--queries 20000] [--depth 300] [--jobs 2] [--keep DIR]

The stores are built once before the timed rows (``warm-up``). Takes a few minutes and
about 2 GB of disk; not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))
from harness import Row, floor_mb, markdown_table, measure, package_versions  # noqa: E402
from synthetic import distinct_rows, write_trec  # noqa: E402

DATASETS = {"citeval/acl-200": "CITEVAL_ACL_200_DIR", "citeval/refseer": "CITEVAL_REFSEER_DIR"}
SYSTEMS = {"s1": 40.0, "s2": 25.0, "s3": 60.0}  # mean rank of the gold (exponential)


def write_corpus(folder: Path, rng: np.random.Generator, papers: int, queries: int) -> dict:
    """papers.json, contexts.json and the three splits; returns the ids for the runs."""
    folder.mkdir(parents=True, exist_ok=True)
    cited = np.array([f"W{i % 15:02d}-{1000 + i // 15}" for i in range(papers)])  # 2000-2014
    weights = 1.0 / np.arange(1, papers + 1)  # Zipf-like: a few papers cited a lot
    weights /= weights.sum()
    splits, contexts = {}, {}
    for split, count, year in (("train", queries, 14), ("val", 100, 14), ("test", queries, 15)):
        targets = rng.choice(papers, size=count, p=weights)
        entries = []
        for n, target in enumerate(targets):
            citing = f"{'P' if split == 'test' else 'N'}{year}-{n % 9000 + 1000}"
            context_id = f"{citing}_{cited[target]}_{n}"
            contexts[context_id] = {
                "masked_text": f"synthetic {split} context {n} TARGETCIT",
                "context_id": context_id,
                "citing_id": citing,
                "refid": str(cited[target]),
            }
            entries.append({"context_id": context_id, "positive_ids": [str(cited[target])]})
        splits[split] = entries
    ids = set(cited.tolist()) | {c["citing_id"] for c in contexts.values()}
    papers_json = {p: {"title": f"synthetic {p}", "abstract": "synthetic"} for p in sorted(ids)}
    (folder / "papers.json").write_text(json.dumps(papers_json), encoding="utf-8")
    (folder / "contexts.json").write_text(json.dumps(contexts), encoding="utf-8")
    for split, entries in splits.items():
        (folder / f"{split}.json").write_text(json.dumps(entries), encoding="utf-8")
    test = splits["test"]
    position = {paper: i for i, paper in enumerate(cited.tolist())}
    gold = np.array([position[e["positive_ids"][0]] for e in test])
    return {"cited": cited, "queries": [e["context_id"] for e in test], "gold": gold}


def write_run(path: Path, corpus: dict, rng: np.random.Generator, depth: int, mean: float) -> None:
    """``depth`` distinct earlier papers per query, the gold at an exponential rank of mean
    ``mean`` (beyond ``depth``: not retrieved)."""
    n, papers = len(corpus["queries"]), len(corpus["cited"])
    docs = distinct_rows(rng, n, depth, papers)
    rank = np.minimum(rng.exponential(mean, size=n).astype(int), depth)
    for row in np.flatnonzero(rank < depth):
        gold = corpus["gold"][row]
        docs[row][docs[row] == gold] = docs[row][rank[row]]  # no repeat of the gold
        docs[row][rank[row]] = gold
    table = pa.table(
        {
            "query": np.repeat(np.array(corpus["queries"]), depth),
            "q0": np.full(n * depth, "Q0"),
            "doc": corpus["cited"][docs.ravel()],
            "rank": np.tile(np.arange(1, depth + 1), n),
            "score": np.tile(np.arange(depth, 0, -1, dtype=np.float64), n),
            "tag": np.full(n * depth, "synthetic"),
        }
    )
    write_trec(table, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="citeval-bench-table-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(23)
    env = {**os.environ, "IR_DATASETS_HOME": str(work / "home")}
    lines = ["system,dataset,run"]
    for dataset, variable in DATASETS.items():
        folder = work / dataset.split("/")[1]
        env[variable] = str(folder)
        corpus = write_corpus(folder, rng, args.papers, args.queries)
        for system, mean in SYSTEMS.items():
            run = work / "runs" / f"{system}-{folder.name}.trec"
            run.parent.mkdir(exist_ok=True)
            write_run(run, corpus, rng, args.depth, mean)
            lines.append(f"{system},{dataset}/test,runs/{run.name}")
    manifest = work / "manifest.csv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    warm = "import ir_datasets, citeval_irm\n" + "".join(
        f"d = ir_datasets.load('{d}/{s}'); list(d.queries_iter()); list(d.qrels_iter()); "
        f"list(d.docs_iter())\n"
        for d in DATASETS
        for s in ("test", "train")
    )
    os.environ.update(env)
    warm_row = measure(Row("warm-up (stores)", [sys.executable, "-c", warm]), 1)
    citeval = [sys.executable, "-m", "citeval_irm.cli"]
    first_run = work / "runs" / "s1-acl-200.trec"
    rows = [
        Row(
            "table",
            [*citeval, "table", str(manifest), "--baseline", "s1", "--jobs", str(args.jobs), "-q"],
        ),  # fmt: skip
        Row(
            "breakdown",
            [
                *citeval,
                "breakdown",
                str(first_run),
                "--dataset",
                "citeval/acl-200/test",
                "--by",
                "popularity",
                "-q",
            ],
        ),  # fmt: skip
    ]
    for row in rows:
        measure(row, 1, stdout=work / f"{row.name}.out", stderr=work / f"{row.name}.err")
    print(
        f"{len(SYSTEMS)} systems x {len(DATASETS)} datasets of {args.queries:,} queries x "
        f"{args.depth}; --jobs {args.jobs}; {package_versions(['citeval-irm', 'numpy'])}"
    )
    print(markdown_table([warm_row, *rows], [], floor_mb()))
    for row in rows:
        print(f"\n{row.name} output:\n" + (work / f"{row.name}.out").read_text()[:3000])
    if args.keep is None:
        shutil.rmtree(work)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
