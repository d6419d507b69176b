"""Streaming ArSyTa's 8-million-context train split: time and peak memory.

The corpus is SYNTHETIC: ``--train`` contexts (default 8,030,837, ArSyTa's published train
size) in ArSyTa's layout (``contexts_new_head.json`` with ``heading``, ``train_data.json``;
small val/test splits), written to a temporary folder and read as ``citeval/arsyta``
through ``CITEVAL_ARSYTA_DIR``. No papers file: the phases below never read it. Each phase
runs in its own process, and its peak memory is that process's ``VmHWM``:

1. ``generate``: writing the files, streamed (not part of the loader);
2. ``qrels``: iterating the train qrels (the split file, streamed);
3. ``queries``: iterating the train queries the first time, which builds the contexts
   store (all splits' contexts) on first use;
4. ``queries-again``: iterating them again, from the built store.

    python benchmarks/bench_arsyta_stream.py [--train 8030837] [--keep DIR]

Takes about 15 minutes and 7 GB of disk (files 3.7 GB, store 3.0 GB); not part of the tests.

Measured once (2 cores, 24 GB, ir_datasets 0.6.3, ijson yajl2_c; default arguments,
8,030,837 train + 2,000 val/test contexts):

- generate: 255 s, 3.68 GB written;
- qrels: the 8,030,837 train judgements in 36 s, peak RSS 119 MB (the split file streamed);
- queries, first time: 399 s, including building the 8,032,837-context store (3.0 GB),
  peak RSS 3.36 GB. The peak is ir_datasets' id index (``NumpySortedIndex.commit`` holds
  every id in a dict, then sorts and encodes them), once, while the store is built; the
  records themselves are streamed;
- queries again, from the store: 178 s (45,000 queries/s), peak RSS 412 MB.
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

ARSYTA_TRAIN = 8_030_837
SMALL_SPLIT = 1_000
_WORDS = [f"w{n}" for n in range(5000)]
_HEADINGS = ["Introduction", "Related Work", "Method", "Experiments", "Conclusion"]
PHASES = ("generate", "qrels", "queries", "queries-again")


def _paper_id(n: int) -> str:
    """Distinct new-style arXiv ids ``YYMM.NNNNN`` over 2007-2021."""
    month_index, number = n % 180, n // 180
    return f"{7 + month_index // 12:02d}{1 + month_index % 12:02d}.{number:05d}"


def generate(folder: Path, train: int, papers: int = 474_341, seed: int = 0) -> None:
    """Write the contexts file and the three split files, streamed."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    sizes = {"train": train, "val": SMALL_SPLIT, "test": SMALL_SPLIT}
    with open(folder / "contexts_new_head.json", "w", encoding="utf-8") as contexts:
        contexts.write("{")
        n = 0
        for split, size in sizes.items():
            with open(folder / f"{split}_data.json", "w", encoding="utf-8") as out:
                _write_split(rng, contexts, out, n, size, papers)
            n += size
        contexts.write("}")


def _write_split(rng: random.Random, contexts, out, first: int, size: int, papers: int) -> None:
    """One split's entries, and their contexts (numbered from ``first``)."""
    out.write("[")
    for k in range(size):
        n = first + k
        citing, cited = _paper_id(rng.randrange(papers)), _paper_id(rng.randrange(papers))
        context_id = f"{citing}_{cited}_{n}"
        text = " ".join(rng.choices(_WORDS, k=20)) + " TARGETCIT "
        record = {
            "citing_id": citing,
            "ref_id": cited,
            "masked_text": "SYNTHETIC " + text + " ".join(rng.choices(_WORDS, k=20)),
            "heading": rng.choice(_HEADINGS),
        }
        contexts.write(("," if n else "") + json.dumps(context_id) + ":" + json.dumps(record))
        entry = {"context_id": context_id, "positive_ids": [cited]}
        out.write(("," if k else "") + json.dumps(entry))
    out.write("]")


def _phase(name: str, folder: Path, home: Path, args: argparse.Namespace) -> dict:
    os.environ["CITEVAL_ARSYTA_DIR"] = str(folder)
    os.environ["IR_DATASETS_HOME"] = str(home)
    start = time.perf_counter()
    if name == "generate":
        generate(folder, args.train)
        size = sum(p.stat().st_size for p in folder.iterdir())
        return {"seconds": time.perf_counter() - start, "bytes_written": size}

    import ir_datasets

    import citeval_irm  # noqa: F401 (registers citeval/arsyta)

    train = ir_datasets.load("citeval/arsyta/train")
    if name == "qrels":
        count = sum(1 for _ in train.qrels_iter())
        return {"seconds": time.perf_counter() - start, "qrels": count}
    count = sum(1 for _ in train.queries_iter())
    result = {"seconds": time.perf_counter() - start, "queries": count}
    if name == "queries":
        store = home / "citeval" / "arsyta" / "contexts.pklz4"
        result["store_bytes"] = sum(p.stat().st_size for p in store.iterdir())
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=int, default=ARSYTA_TRAIN)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # a child: run one phase, print its result as JSON
        result = _phase(args.phase, args.work / "corpus", args.work / "home", args)
        report(result)
        return 0
    work = args.keep or Path(tempfile.mkdtemp(prefix="citeval-arsyta-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        run_phases(__file__, PHASES, work, ["--train", str(args.train)])
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
