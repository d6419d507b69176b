"""BM25 baseline benchmark on a generated corpus of RefSeer's size (625,000 papers).

The corpus is SYNTHETIC: pseudo-words drawn from a Zipf-like distribution over 200,000 words
(the most frequent one in about half of the abstracts, as "model" or "method" would be
after stopword removal), 100 words per paper, written in the HAtten layout with arXiv-style
ids (so papers have years, 2007-2021) and read as ``citeval/arxiv`` through
``CITEVAL_ARXIV_DIR``, i.e. through the real loader. Each of the ``--queries`` test contexts
(default 2,000) borrows 5 words of its cited paper and adds 35 others; citing papers are
from 2015 on, so the temporal protocol removes part of the corpus.

Phases, each in its own process so that peak memory belongs to it alone:

1. ``generate``: writing the corpus (not part of the baseline);
2. ``bm25``: what ``citeval baseline bm25`` does, step by step with
   :class:`citeval_irm.papers.baseline.BM25Index`: read and tokenize the papers, build the bm25s
   index, read the queries, rank them (k = 300) without and with the temporal protocol, and
   :func:`citeval_irm.validate` the temporal run.

    python benchmarks/bench_bm25.py [--papers 625000] [--queries 2000] [--keep DIR]

Takes about 5 minutes, 0.5 GB of disk and 3 GB of memory; not part of the test suite.

Measured once (2 cores, bm25s 0.3.16 numpy backend; default arguments): generate 28 s;
index 624,957 papers 192 s (read and tokenize 106 s, bm25s index 86 s), peak RSS 3.0 GB;
ranking k = 300: 132 queries/s, 125 queries/s under the temporal protocol; validate the
600,000-line run 6.5 s. Details in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import peak_rss_mb
from phases import report, run_phases

REFSEER_PAPERS = 624_957
VOCABULARY = 200_000
WORDS_PER_PAPER = 100
_CHUNK = 10_000
_FIRST_CITING_YEAR = 2015


def _paper_id(n: int) -> str:
    """Distinct arXiv-style ids ``YYMM.NNNNN`` spread over 2007-2021 (180 months)."""
    month_index, number = n % 180, n // 180
    return f"{7 + month_index // 12:02d}{1 + month_index % 12:02d}.{number:05d}"


def _year(n: int) -> int:
    return 2007 + (n % 180) // 12


def _vocabulary() -> tuple[np.ndarray, np.ndarray]:
    """Pseudo-words and their probabilities, p(rank) ~ 1 / (rank + 20)."""
    words = np.array([f"w{n:x}z" for n in range(VOCABULARY)], dtype=object)
    weights = 1.0 / (np.arange(VOCABULARY) + 20.0)
    return words, weights / weights.sum()


def generate(folder: Path, papers: int, queries: int, seed: int = 0) -> None:
    """Write the corpus, a chunk of papers at a time (never all texts in memory)."""
    rng = np.random.default_rng(seed)
    words, probabilities = _vocabulary()
    citing = [n for n in rng.permutation(papers).tolist() if _year(n) >= _FIRST_CITING_YEAR]
    citing = citing[:queries]
    cited = {c: int(rng.integers(papers)) for c in citing}
    while any(_year(d) >= _year(c) for c, d in cited.items()):  # an earlier paper each
        cited = {
            c: d if _year(d) < _year(c) else int(rng.integers(papers)) for c, d in cited.items()
        }
    wanted = set(cited.values())
    borrowed: dict[int, list[str]] = {}
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "papers.json", "w", encoding="utf-8") as out:
        out.write("{")
        for start in range(0, papers, _CHUNK):
            count = min(_CHUNK, papers - start)
            drawn = words[rng.choice(VOCABULARY, size=(count, WORDS_PER_PAPER), p=probabilities)]
            for offset, row in enumerate(drawn.tolist()):
                n = start + offset
                if n in wanted:
                    borrowed[n] = row
                record = {"title": " ".join(row[:10]), "abstract": " ".join(row[10:])}
                out.write(("," if n else "") + json.dumps(_paper_id(n)) + ":" + json.dumps(record))
        out.write("}")
    contexts, entries = {}, []
    for number, (c, d) in enumerate(cited.items()):
        own = rng.choice(borrowed[d], size=5).tolist()
        other = words[rng.choice(VOCABULARY, size=35, p=probabilities)].tolist()
        text = " ".join(own[:3] + other[:17]) + " TARGETCIT " + " ".join(own[3:] + other[17:])
        context_id = f"{_paper_id(c)}_{_paper_id(d)}_{number}"
        contexts[context_id] = {
            "masked_text": f"SYNTHETIC {text}",
            "context_id": context_id,
            "citing_id": _paper_id(c),
            "refid": _paper_id(d),
        }
        entries.append({"context_id": context_id, "positive_ids": [_paper_id(d)]})
    (folder / "contexts.json").write_text(json.dumps(contexts), encoding="utf-8")
    (folder / "test.json").write_text(json.dumps(entries), encoding="utf-8")
    for split in ("train", "val"):
        (folder / f"{split}.json").write_text("[]", encoding="utf-8")


def _bm25_phase(k: int) -> dict:
    import ir_datasets

    import citeval_irm
    from citeval_irm.datasets import AdmissibleCandidates
    from citeval_irm.papers.baseline import BM25Index, QueryInfo

    figures: dict[str, float | int] = {"rss_after_imports_mb": peak_rss_mb()}
    dataset = ir_datasets.load("citeval/arxiv/test")
    index = BM25Index()
    timed: dict[str, float] = {}
    bm25s_index = index.retriever.index

    def timed_index(*args, **kwargs):
        start = time.perf_counter()
        bm25s_index(*args, **kwargs)
        timed["bm25s"] = time.perf_counter() - start

    index.retriever.index = timed_index
    start = time.perf_counter()
    index.build(((d.doc_id, d.default_text(), d.year) for d in dataset.docs_iter()), progress=False)
    total = time.perf_counter() - start
    figures.update(
        docs=len(index),
        index_seconds=total,
        read_and_tokenize_seconds=total - timed["bm25s"],
        bm25s_index_seconds=timed["bm25s"],
        peak_rss_after_index_mb=peak_rss_mb(),
    )
    start = time.perf_counter()
    queries = [
        QueryInfo(q.query_id, q.default_text(), q.citing_id, q.year) for q in dataset.queries_iter()
    ]
    figures.update(queries=len(queries), read_queries_seconds=time.perf_counter() - start)

    start = time.perf_counter()
    plain = index.rank(queries, k, progress=False)
    seconds = time.perf_counter() - start
    figures.update(rank_seconds=seconds, queries_per_second=len(queries) / seconds)

    start = time.perf_counter()
    allowed = AdmissibleCandidates(
        zip(index.doc_ids.tolist(), index.doc_years),
        ((q.query_id, q.paper, q.year) for q in queries),
        same_year=True,
    )
    figures["admissible_build_seconds"] = time.perf_counter() - start
    start = time.perf_counter()
    temporal = index.rank(queries, k, admissible=allowed, progress=False)
    seconds = time.perf_counter() - start
    figures.update(
        temporal_rank_seconds=seconds, temporal_queries_per_second=len(queries) / seconds
    )
    assert len(plain) == len(temporal) == len(queries) * k

    run = citeval_irm.read_run(temporal)
    start = time.perf_counter()
    report = citeval_irm.validate(run, dataset, same_year=True)
    figures["validate_seconds_incl_reading_dataset"] = time.perf_counter() - start
    assert report.passed
    loose = citeval_irm.validate(citeval_irm.read_run(plain), dataset, same_year=True)
    figures["plain_run_later_papers"] = loose.count("later_paper")
    result = citeval_irm.evaluate(run, dataset, "RR R@10 R@300")
    figures.update({f"temporal_{m}": float(v) for m, v in result.aggregate.items()})
    return figures


def _phase(name: str, work: Path, args: argparse.Namespace) -> dict:
    os.environ["CITEVAL_ARXIV_DIR"] = str(work / "corpus")
    os.environ["IR_DATASETS_HOME"] = str(work / "ir_home")
    if name == "generate":
        start = time.perf_counter()
        generate(work / "corpus", args.papers, args.queries)
        size = sum(p.stat().st_size for p in (work / "corpus").iterdir())
        return {"seconds": time.perf_counter() - start, "bytes_written": size}
    if name == "bm25":
        return _bm25_phase(args.k)
    raise ValueError(name)


PHASES = ("generate", "bm25")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=REFSEER_PAPERS)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("-k", type=int, default=300)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # a child process: one phase, its figures as JSON on the last line
        result = _phase(args.phase, args.work, args)
        report(result)
        return 0

    work = args.keep or Path(tempfile.mkdtemp(prefix="citeval-bench-bm25-"))
    print(
        f"SYNTHETIC corpus: {args.papers:,} papers, {args.queries:,} queries, k={args.k}, in {work}"
    )
    try:
        extra = ["--papers", str(args.papers), "--queries", str(args.queries), "-k", str(args.k)]
        out = run_phases(__file__, PHASES, work, extra)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
