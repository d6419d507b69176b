"""Sakai's randomised Tukey HSD (``citeval_irm.comparison.tukey``): time for 4, 8 and 12 runs
at 163 and 10,000 queries, 11 measures (issue 27).

The per-query values are SYNTHETIC, shaped like goyal2026's 11 measures: each run ranks each
query's gold paper at a geometric rank (a different mean per run; beyond 300: not
retrieved), and RR, R@5/10/20/50/300 and nDCG@5/10/20/50/300 are computed from that rank,
so values tie and many are zero, as in a real comparison. Each row is timed in this process
(``time.perf_counter``, the best of ``--repeat``), with ``--permutations`` shufflings
(default 10,000, compare's default) and a fixed seed.

``--against REF`` also times the implementation of a git revision (e.g. ``main``: the one
before issue 27, loaded from ``git show REF:citeval_irm/comparison/stats.py``) on the rows of
at most ``--against-max-runs`` runs and 163 queries (it takes minutes beyond), with the
ratio.

    python benchmarks/bench_tukey.py [--permutations 10000] [--repeat 1] [--against main]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from citeval_irm.comparison import tukey

CUTS = (5, 10, 20, 50, 300)


def measure_values(queries: int, runs: int, seed: int = 0) -> np.ndarray:
    """Per-query values (queries x runs x 11 measures) from a geometric gold rank per run."""
    rng = np.random.default_rng(seed)
    mean_rank = np.linspace(8.0, 40.0, runs)
    ranks = rng.geometric(1.0 / mean_rank[None, :], size=(queries, runs)).astype(float)
    found = ranks <= 300
    columns = [np.where(found, 1.0 / ranks, 0.0)]
    columns += [(ranks <= cut).astype(float) for cut in CUTS]
    columns += [np.where(ranks <= cut, 1.0 / np.log2(ranks + 1.0), 0.0) for cut in CUTS]
    return np.stack(columns, axis=2)


def load_revision(revision: str):
    """``randomised_tukey_hsd`` as it is in ``revision`` of this repository."""
    root = Path(__file__).resolve().parents[1]
    text = subprocess.run(
        ["git", "show", f"{revision}:citeval_irm/comparison/stats.py"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="bench-tukey-"))
    path = folder / "stats_at_revision.py"
    path.write_text(text.replace("from ..base.", "from citeval_irm.base."), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("stats_at_revision", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.randomised_tukey_hsd


def best_time(function, values: np.ndarray, permutations: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(values, permutations, np.random.default_rng(42))
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--runs", type=int, nargs="+", default=[4, 8, 12])
    parser.add_argument("--queries", type=int, nargs="+", default=[163, 10_000])
    parser.add_argument("--against", metavar="REF", help="also time this git revision's HSD")
    parser.add_argument("--against-max-runs", type=int, default=8)
    args = parser.parse_args(argv)
    reference = load_revision(args.against) if args.against else None
    header = "| runs | queries | measures | B | seconds |"
    header += f" {args.against} s | x |" if reference else ""
    print(header)
    print("|" + " --- |" * (header.count("|") - 1))
    for queries in args.queries:
        for runs in args.runs:
            values = measure_values(queries, runs)
            seconds = best_time(tukey.randomised_tukey_hsd, values, args.permutations, args.repeat)
            row = f"| {runs} | {queries:,} | 11 | {args.permutations:,} | {seconds:.2f} |"
            if reference is not None:
                if runs <= args.against_max_runs and queries <= 163:
                    old = best_time(reference, values, args.permutations, 1)
                    row += f" {old:.2f} | {old / seconds:.0f} |"
                else:
                    row += " - | - |"
            print(row, flush=True)


if __name__ == "__main__":
    sys.exit(main())
