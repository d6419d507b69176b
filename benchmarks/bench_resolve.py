"""Resolving ArSyTa-sized generated reference lists: time and peak memory (issue 40).

No real catalogue of ArSyTa's size is at hand, so the corpus is GENERATED from real title
words: ``--papers`` titles (default 474,341, ArSyTa's published paper count) of 4-12 words
drawn by their frequency in the real ML titles of ``--titles`` (default
``../shared/data/titles``: 11,519 records; made-up words of a Zipf vocabulary of 30,000 when
the folder is absent, and the output says which), and ``--queries`` lists (default 124,189,
ArSyTa's test contexts) of ``--per-list`` references (default 20): 45 % a corpus title as it
is or in other case and punctuation, 10 % misspelt (two character edits), 5 % cut short
with ``...``, 5 % an arXiv-style id, 35 % invented from the same words (the 5,000 most
frequent). The phases, timed one after the other in one process:

1. ``index``: :class:`~citeval_irm.resolving.index.TitleIndex` over the titles (ids,
   normalised titles and parts, the word postings);
2. ``resolve``: each distinct reference decided once by
   :class:`~citeval_irm.resolving.resolve.Resolver`
   (:func:`~citeval_irm.resolving.resolve.resolve_lists` in ``--jobs`` processes forked
   from this one: identifiers, exact titles, the blocked fuzzy search, title parts,
   abbreviations, near misses);
3. ``run``: the run's rows (the matched, first-named papers) as a
   :class:`~citeval_irm.Run`.

Memory: this process's peak (``VmHWM``, the lists, the index and the decisions held) and,
of the forked workers, the largest peak resident size (pages shared with this process
included) and the largest private memory (``Private_Clean + Private_Dirty`` of
``/proc/self/smaps_rollup`` at the end of each share of work: what a worker adds); the
whole run's memory is at most this process's peak plus the workers' private memory.

    python benchmarks/bench_resolve.py [--papers 474341] [--queries 124189] [--jobs 2]

Measured (this 2-core machine, otherwise idle; Python 3.11, RapidFuzz 3.14.6; default
arguments, ``--titles`` at the real titles), four runs one after the other: resolve
2,483,780 references (1,928,228 distinct, each decided once) in 57.0, 59.1, 51.7 and 53.3 s
wall with 2 processes (93.7 to 105.3 s of CPU in the workers, 5.1 to 6.0 s here), index 7 s;
1,118,391 exact, 124,233 by id, 363,954 fuzzy, 505 ambiguous, 842 near misses, 875,855
unmatched; memory 1,291 to 1,302 MB here and 177 to 180 MB private in each worker (1,647 to
1,659 MB in all). The code before, in turn with those runs: 57.9, 57.3 and 59.1 s (101.5 to
105.0 s in the workers, 6.8 to 7.2 s here), 1,793 to 1,850 MB in all; before issue 40:
210.8 s in one process, 1,765 MB. Figures vary by a tenth from run to run on this machine;
the resolve guide has the history and what was tried.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import shutil
import string
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from harness import peak_rss_mb

TITLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "titles"


def real_words(folder: Path) -> tuple[list[str], np.ndarray] | None:
    """The words of the real titles in ``folder`` and their frequencies, most frequent
    first; ``None`` without the folder."""
    counts: Counter = Counter()
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                counts.update(re.findall(r"[a-z][a-z0-9'-]*", json.loads(line)["title"].lower()))
    if not counts:
        return None
    ranked = counts.most_common()
    weights = np.array([n for _, n in ranked], dtype=np.float64)
    return [w for w, _ in ranked], weights / weights.sum()


def made_up_words(size: int, rng: random.Random) -> tuple[list[str], np.ndarray]:
    """``size`` made-up words and Zipf weights (the fallback without real titles)."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 11))))
    weights = 1.0 / np.arange(1, size + 1) ** 1.15
    return sorted(words), weights / weights.sum()


def make_titles(count: int, words: list[str], weights: np.ndarray,
                rng: np.random.Generator) -> list[str]:  # fmt: skip
    """``count`` distinct titles of words drawn by their weights."""
    drawn = rng.choice(len(words), size=count * 12, p=weights)
    lengths = rng.integers(4, 13, size=count)
    titles, seen, at = [], set(), 0
    for length in lengths:
        title = " ".join(words[r] for r in drawn[at : at + length])
        at += length
        if title not in seen:
            seen.add(title)
            titles.append(title[0].upper() + title[1:])
    while len(titles) < count:  # a collision: fresh draws
        title = " ".join(words[r] for r in rng.choice(len(words), size=8, p=weights))
        if title not in seen:
            seen.add(title)
            titles.append(title[0].upper() + title[1:])
    return titles


def misspell(title: str, rng: random.Random) -> str:
    chars = list(title)
    for _ in range(2):
        at = rng.randrange(len(chars))
        chars[at] = rng.choice(string.ascii_lowercase)
    return "".join(chars)


def make_lists(queries: int, per_list: int, ids: list[str], titles: list[str],
               words: list[str], seed: int) -> dict[str, list]:  # fmt: skip
    rng = random.Random(seed)
    frequent = words[:5000]
    lists = {}
    for q in range(queries):
        references = []
        for _ in range(per_list):
            draw = rng.random()
            paper = rng.randrange(len(titles))
            if draw < 0.45:
                title = titles[paper]
                references.append(title.upper() + "." if draw < 0.1 else title)
            elif draw < 0.55:
                references.append(misspell(titles[paper], rng))
            elif draw < 0.60:
                references.append(titles[paper][: max(20, len(titles[paper]) * 2 // 3)] + "...")
            elif draw < 0.65:
                references.append({"arxiv": ids[paper] + "v2"})
            else:
                size = rng.randint(4, 12)
                references.append(" ".join(rng.choice(frequent) for _ in range(size)))
        lists[f"q{q}"] = references
    return lists


def resident_mb() -> float:
    """This process's resident memory now (``VmRSS``), in MB."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def private_mb() -> float:
    """This process's private memory (``Private_Clean + Private_Dirty``), in MB."""
    total = 0
    try:
        with open("/proc/self/smaps_rollup") as handle:
            for line in handle:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1])
    except OSError:
        return float("nan")
    return total / 1024


MEASURED: dict = {}
"""The worker's own share function and the folder its memory is noted in."""


def measured(span):
    """A worker's share of the lists, and what the worker holds at its end, noted."""
    out = MEASURED["share"](span)  # the queries sent
    note = MEASURED["notes"] / f"{os.getpid()}.txt"
    held = float(note.read_text()) if note.exists() else 0.0
    note.write_text(str(max(held, private_mb())))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=474_341)
    parser.add_argument("--queries", type=int, default=124_189)
    parser.add_argument("--per-list", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--titles", type=Path, default=TITLES)
    args = parser.parse_args()

    from citeval_irm.reading.tables import Run
    from citeval_irm.resolving import resolve as resolving
    from citeval_irm.resolving.generated import read_generated
    from citeval_irm.resolving.index import TitleIndex

    started = time.perf_counter()
    found = real_words(args.titles) if args.titles.is_dir() else None
    words, weights = found or made_up_words(30_000, random.Random(args.seed))
    source = (f"{len(words):,} real title words of {args.titles}" if found else
              f"{len(words):,} made-up words (no folder {args.titles})")  # fmt: skip
    titles = make_titles(args.papers, words, weights, np.random.default_rng(args.seed))
    ids = [f"{15 + n // 100_000:02d}{1 + n % 12:02d}.{n % 100_000:05d}" for n in range(args.papers)]
    raw = make_lists(args.queries, args.per_list, ids, titles, words, args.seed)
    lists = read_generated(raw)
    del raw
    references = sum(len(v) for v in lists.lists.values())
    print(f"generate: {time.perf_counter() - started:.1f} s ({args.papers:,} titles from "
          f"{source}; {args.queries:,} lists, {references:,} references; {resident_mb():,.0f} "
          "MB resident)", flush=True)  # fmt: skip

    started = time.perf_counter()
    index = TitleIndex(ids, titles, [2000 + n % 20 for n in range(args.papers)])
    print(f"index: {time.perf_counter() - started:.1f} s ({resident_mb():,.0f} MB resident)",
          flush=True)  # fmt: skip

    share = getattr(resolving, "_decide_span", None)  # none in a version before issue 40
    notes = Path(tempfile.mkdtemp(prefix="bench-resolve-"))
    MEASURED.update(share=share, notes=notes)
    started, cpu = time.perf_counter(), time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if share is None:  # that version resolved in one process
        decisions = resolving.resolve_lists(lists.lists, resolving.Resolver(index))
    else:
        resolving._decide_span = measured
        try:
            decisions = resolving.resolve_lists(lists.lists, resolving.Resolver(index),
                                                jobs=args.jobs)  # fmt: skip
        finally:
            resolving._decide_span = share
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    kinds = Counter(decisions["how"])
    processes = f"{args.jobs} processes" if share is not None else "1 process (no jobs)"
    print(f"resolve: {took:.1f} s wall ({references / took:,.0f} references/s, {processes}; "
          f"CPU {time.process_time() - cpu:.1f} s here, {worker_cpu:.1f} s in the workers): "
          f"{dict(kinds)}", flush=True)  # fmt: skip
    private = [float(p.read_text()) for p in notes.glob("*.txt")]
    shutil.rmtree(notes)

    started = time.perf_counter()
    keep = [n for n, (how, dup) in enumerate(zip(decisions["how"], decisions["duplicate"]))
            if how in ("id", "exact", "fuzzy") and not dup]  # fmt: skip
    run = Run.from_columns(
        np.array([decisions["query_id"][n] for n in keep], dtype=object),
        np.array([decisions["doc_id"][n] for n in keep], dtype=object),
        -np.array([decisions["position"][n] for n in keep], dtype=np.float64),
        "resolved",
    )
    print(f"run: {time.perf_counter() - started:.1f} s ({len(run):,} rows)", flush=True)
    largest, own = after.ru_maxrss / 1024, peak_rss_mb()
    extra = sum(private)
    print(f"memory: this process's peak {own:,.0f} MB; the workers' largest peak {largest:,.0f} "
          f"MB (pages shared with this process included), their private memory "
          f"{', '.join(f'{p:,.0f}' for p in private) or '-'} MB: at most {own + extra:,.0f} MB "
          "in all", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
