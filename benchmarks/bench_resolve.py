"""Resolving ArSyTa-sized generated reference lists: time and peak memory.

The corpus and the lists are GENERATED (no real titles): ``--papers`` titles (default
474,341, ArSyTa's published paper count) of 4-12 words drawn from a Zipf-distributed
vocabulary of 30,000 made-up words (so blocking meets common and rare words, as in real
titles), and ``--queries`` lists (default 124,189, ArSyTa's test contexts) of ``--per-list``
references (default 20): 45 % a corpus title as it is or in other case and punctuation, 10 %
misspelt (two character edits), 5 % cut short with ``...``, 5 % an arXiv-style id, 35 %
invented from the same vocabulary. The phases, timed one after the other in one process:

1. ``index``: :class:`~citeval_irm.resolving.index.TitleIndex` over the titles (ids,
   normalised titles, the word postings);
2. ``resolve``: every reference decided by :class:`~citeval_irm.resolving.resolve.Resolver`
   (:func:`~citeval_irm.resolving.resolve.resolve_lists`: identifiers, exact titles, then
   the blocked fuzzy search for what is left);
3. ``run``: the run's rows (the matched, first-named papers) as a
   :class:`~citeval_irm.Run`.

Peak memory is the whole process's: run it under ``/usr/bin/time -v``.

    /usr/bin/time -v python benchmarks/bench_resolve.py [--papers 474341] [--queries 124189]

Measured (2 cores shared with other work, load average about 3; Python 3.11, RapidFuzz
3.14.6; default arguments), ``/usr/bin/time -v``: generate 98 s; index 11 s; resolve
2,483,780 references in 161 s wall (15,425 references/s; the process got 67 % of a core:
184 s of user time for the whole run): 123,999 by id, 1,117,764 exact, 361,561 fuzzy, 2,366
ambiguous, 878,090 unmatched; run 1.4 s (1,603,296 rows); peak RSS 1.78 GB (the generated
lists held as Python objects included). The same benchmark before the change below resolved
in 304 s wall at 54 % of a core (238 s of user time in all), the same decisions; the run
measured before that (ids beyond the 100,000th paper not arXiv-shaped, a bug of this
generator since fixed) had 28,345 by id and 973,744 unmatched. On 12,000 of these lists
(240,000 references), resolution took 15.2 s of CPU before an ASCII title was normalised by
one translation and identifiers were looked for only in texts with a digit, 12.2 s after,
the decisions the same; under cProfile, the blocked fuzzy search (candidates and
RapidFuzz's cdist) is about 40 % of it, normalising titles and reading identifiers most of
the rest.
"""

from __future__ import annotations

import argparse
import random
import string
import time

import numpy as np


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 11))))
    return sorted(words)


def make_titles(count: int, words: list[str], rng: np.random.Generator) -> list[str]:
    """``count`` distinct titles of Zipf-drawn words."""
    ranks = (rng.zipf(1.15, size=count * 12) - 1) % len(words)  # the tail wrapped, not piled
    lengths = rng.integers(4, 13, size=count)
    titles, seen, at = [], set(), 0
    for length in lengths:
        title = " ".join(words[r] for r in ranks[at : at + length])
        at += length
        if title not in seen:
            seen.add(title)
            titles.append(title[0].upper() + title[1:])
    while len(titles) < count:  # a collision is rare; fill with fresh draws
        title = " ".join(words[r] for r in rng.integers(0, len(words), size=8))
        if title not in seen:
            seen.add(title)
            titles.append(title)
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
                references.append(" ".join(rng.choice(words[:5000]) for _ in range(size)))
        lists[f"q{q}"] = references
    return lists


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=474_341)
    parser.add_argument("--queries", type=int, default=124_189)
    parser.add_argument("--per-list", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from citeval_irm.reading.tables import Run
    from citeval_irm.resolving.generated import read_generated
    from citeval_irm.resolving.index import TitleIndex
    from citeval_irm.resolving.resolve import Resolver, resolve_lists

    started = time.perf_counter()
    words = vocabulary(30_000, random.Random(args.seed))
    titles = make_titles(args.papers, words, np.random.default_rng(args.seed))
    ids = [f"{15 + n // 100_000:02d}{1 + n % 12:02d}.{n % 100_000:05d}" for n in range(args.papers)]
    lists = read_generated(make_lists(args.queries, args.per_list, ids, titles, words, args.seed))
    references = sum(len(v) for v in lists.lists.values())
    print(f"generate: {time.perf_counter() - started:.1f} s ({args.papers:,} titles, "
          f"{args.queries:,} lists, {references:,} references)", flush=True)  # fmt: skip

    started = time.perf_counter()
    index = TitleIndex(ids, titles, [2000 + n % 20 for n in range(args.papers)])
    print(f"index: {time.perf_counter() - started:.1f} s", flush=True)

    started = time.perf_counter()
    decisions = resolve_lists(lists.lists, Resolver(index))
    took = time.perf_counter() - started
    kinds = {
        k: decisions["how"].count(k) for k in ("id", "exact", "fuzzy", "ambiguous", "unmatched")
    }
    print(f"resolve: {took:.1f} s ({references / took:,.0f} references/s): {kinds}", flush=True)

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


if __name__ == "__main__":
    main()
