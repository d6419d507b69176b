"""Docstore benchmark on a generated arXiv-sized corpus (1,661,201 papers).

The corpus is SYNTHETIC: random words in the HAtten layout (papers.json, contexts.json,
train/val/test.json), written to a temporary folder and read as ``citeval/arxiv`` through
``CITEVAL_ARXIV_DIR``. It measures, each phase in its own process so that peak memory
(``VmHWM``, ``harness.peak_rss_mb``) belongs to that phase alone:

1. ``generate``: writing the corpus (not part of the loader);
2. ``build``: the first load, i.e. streaming papers.json into the docstore;
3. ``lookup``: mean time of single ``docs_store().get(id)`` calls and of one ``get_many``
   for random ids, in a fresh process (cold open of the store);
4. ``queries``: iterating the test split's queries (contexts store built on first use);
5. ``admissible``: building :func:`admissible_candidates` for the test split.

    python benchmarks/bench_docstore.py [--papers 1661201] [--lookups 10000] [--keep DIR]

Takes a few minutes and about 3.5 GB of disk; not part of the test suite.

Measured once (2 cores, 24 GB, ir_datasets 0.6.3, ijson yajl2_c; default arguments):

- generate: 76 s, papers.json etc. 1.72 GB;
- build (first load): 50 s for 1,661,201 papers, store 1.54 GB, peak RSS 635 MB (mostly
  ir_datasets' id index, which sorts all ids in memory once while building);
- lookup (fresh process): open + first get 11 ms; mean ``get`` 241 us; ``get_many`` of the
  10,000 random ids 212 ms (21 us per id); peak RSS 159 MB;
- queries: 20,000 test queries, including building the 200,000-context store, 5.1 s;
- admissible: ``admissible_candidates`` over all 1.66 M docs 56 s (one read of the
  docstore), peak RSS 402 MB; ``doc_ids`` of one query 92 ms (553,739 ids).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from phases import report, run_phases

ARXIV_PAPERS = 1_661_201
_WORDS = [f"w{n}" for n in range(5000)]


def _paper_id(n: int) -> str:
    """Distinct new-style arXiv ids ``YYMM.NNNNN`` spread over 2007-2021 (180 months)."""
    month_index, number = n % 180, n // 180
    return f"{7 + month_index // 12:02d}{1 + month_index % 12:02d}.{number:05d}"


def generate(folder: Path, papers: int, contexts: int, seed: int = 0) -> None:
    """Write a synthetic HAtten-layout corpus, streaming (never the whole corpus in memory)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "papers.json", "w", encoding="utf-8") as out:
        out.write("{")
        for n in range(papers):
            title = " ".join(rng.choices(_WORDS, k=10))
            abstract = " ".join(rng.choices(_WORDS, k=150))  # about 1 KB, like a real abstract
            record = {"title": f"SYNTHETIC {title}", "abstract": abstract}
            out.write(("," if n else "") + json.dumps(_paper_id(n)) + ":" + json.dumps(record))
        out.write("}")
    entries = {split: [] for split in ("train", "val", "test")}
    with open(folder / "contexts.json", "w", encoding="utf-8") as out:
        out.write("{")
        for n in range(contexts):
            citing, cited = _paper_id(rng.randrange(papers)), _paper_id(rng.randrange(papers))
            context_id = f"{citing}_{cited}_{n}"
            text = (
                " ".join(rng.choices(_WORDS, k=20))
                + " TARGETCIT "
                + " ".join(rng.choices(_WORDS, k=20))
            )
            record = {
                "masked_text": f"SYNTHETIC {text}",
                "context_id": context_id,
                "citing_id": citing,
                "refid": cited,
            }
            out.write(("," if n else "") + json.dumps(context_id) + ":" + json.dumps(record))
            split = "train" if n % 10 < 8 else ("val" if n % 10 == 8 else "test")
            entries[split].append({"context_id": context_id, "positive_ids": [cited]})
        out.write("}")
    for split, items in entries.items():
        (folder / f"{split}.json").write_text(json.dumps(items), encoding="utf-8")


def _phase(name: str, folder: Path, home: Path, args: argparse.Namespace) -> dict:
    os.environ["CITEVAL_ARXIV_DIR"] = str(folder)
    os.environ["IR_DATASETS_HOME"] = str(home)
    if name == "generate":
        start = time.perf_counter()
        generate(folder, args.papers, args.contexts)
        size = sum(p.stat().st_size for p in folder.iterdir())
        return {"seconds": time.perf_counter() - start, "bytes_written": size}

    import ir_datasets

    import citeval_irm  # noqa: F401 (registers citeval/arxiv)

    if name == "build":
        store = ir_datasets.load("citeval/arxiv").docs_store()
        start = time.perf_counter()
        store.build()
        seconds = time.perf_counter() - start
        size = sum(p.stat().st_size for p in Path(store.path).iterdir())
        return {"seconds": seconds, "docs": store.count(), "store_bytes": size}
    if name == "lookup":
        rng = random.Random(1)
        ids = [_paper_id(rng.randrange(args.papers)) for _ in range(args.lookups)]
        start = time.perf_counter()
        store = ir_datasets.load("citeval/arxiv").docs_store()
        first = store.get(ids[0])
        first_seconds = time.perf_counter() - start
        start = time.perf_counter()
        for doc_id in ids:
            assert store.get(doc_id).doc_id == doc_id
        single = (time.perf_counter() - start) / len(ids)
        start = time.perf_counter()
        many = store.get_many(ids)
        batch = time.perf_counter() - start
        assert len(many) == len(set(ids)) and first.year is not None
        return {
            "open_and_first_get_ms": first_seconds * 1000,
            "mean_get_us": single * 1e6,
            "get_many_all_ms": batch * 1000,
            "lookups": len(ids),
        }
    if name == "queries":
        start = time.perf_counter()
        count = sum(1 for _ in ir_datasets.load("citeval/arxiv/test").queries_iter())
        return {"seconds_incl_contexts_store_build": time.perf_counter() - start, "queries": count}
    if name == "admissible":
        from citeval_irm.datasets import admissible_candidates

        start = time.perf_counter()
        candidates = admissible_candidates("citeval/arxiv/test", same_year=True)
        seconds = time.perf_counter() - start
        query = candidates.queries["query_id"].iloc[0]
        start = time.perf_counter()
        admissible = len(candidates.doc_ids(query))
        return {
            "seconds": seconds,
            "doc_ids_one_query_ms": (time.perf_counter() - start) * 1000,
            "admissible_for_first_query": admissible,
        }
    raise ValueError(name)


PHASES = ("generate", "build", "lookup", "queries", "admissible")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=ARXIV_PAPERS)
    parser.add_argument("--contexts", type=int, default=200_000)
    parser.add_argument("--lookups", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # a child process: run one phase, print its figures as JSON
        result = _phase(args.phase, args.work / "corpus", args.work / "ir_home", args)
        report(result)
        return 0

    work = args.keep or Path(tempfile.mkdtemp(prefix="citeval-bench-"))
    print(f"synthetic corpus: {args.papers:,} papers, {args.contexts:,} contexts in {work}")
    try:
        extra = ["--papers", str(args.papers), "--contexts", str(args.contexts)]
        run_phases(__file__, PHASES, work, [*extra, "--lookups", str(args.lookups)])
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
