"""Reading at the speed of the parse (issue 32): ``citeval eval`` against the bare parse, the
ir_measures CLI, ranx and trec_eval, side by side in one run.

Whole processes (``harness.run_once``: wall time, the process's own peak RSS, Python's
bytecode cache on), the quick rows run once untimed (a warm-up), then ``--repeat`` times in
interleaved rounds, on W1 of ``bench_scoring.py`` (20,000 queries x 300 candidates = 6 M
lines, ACL-style ids, goyal2026's 11 measures):

- the floor: ``pyarrow.csv.read_csv`` of query_id, doc_id (dictionary-encoded) and score
  (float), nothing else;
- ``citeval eval RUN --qrels QRELS --protocol goyal2026 --format trec_eval`` (default
  options: a run file of more than ``STREAM_ABOVE`` is streamed);
- the ``ir_measures`` CLI (its pytrec_eval provider), ranx (``from_file`` + ``evaluate``)
  when installed, the ``trec_eval`` binary (``-c``) when found (``--trec-eval``,
  ``$TREC_EVAL``), each with the same measures;
- ``citeval crosscheck --recipe goyal2026`` (target: under 1.5x ``citeval eval``);
- the streamed path: ``citeval eval`` of the same generator at ``--big-scale`` (100,000
  queries, 30 M lines, streamed by default) against the floor's parse of that file;
- W1P (``bench_scoring.py``): W1 over a pool of 200,000 docs with ties in about 900 queries,
  ``citeval eval`` against the floor's parse of that file, ``--repeat`` rounds (issue 43:
  at most 1.5x there too).

The targets are ratios within this one run (the machine's speed drifts): citeval eval at
most 1.5x the floor, at least 6x faster than the ir_measures CLI. Per-query values of
citeval eval are compared with ``trec_eval -q`` (4 decimals) when trec_eval is there.

    python benchmarks/bench_speed.py --work /tmp/speed
    python benchmarks/bench_speed.py --work /tmp/speed --scale 0.05 --big-scale 0.1 --repeat 1
"""

from __future__ import annotations

import os
import statistics
import sys
from importlib import util
from pathlib import Path

import bench_scoring as scoring
from bench_scoring import W1, WORKLOADS, Measures
from harness import Row, floor_mb, markdown_table

CHILDREN = scoring.CHILDREN
HERE = CHILDREN.parent
CITEVAL = [sys.executable, "-c", "from citeval_irm.cli import run; run()"]  # the console script
FLOOR, EVAL, IRM, RANX, TREC_EVAL = (
    "bare 3-column parse (ids as dictionaries)",
    "citeval eval --protocol goyal2026 --format trec_eval",
    "ir_measures CLI",
    "ranx",
    "trec_eval -c",
)
CROSSCHECK = "citeval crosscheck --recipe goyal2026"
BIG_FLOOR, BIG_EVAL = "bare parse, big run", "citeval eval, big run (streamed)"
POOL_FLOOR, POOL_EVAL = "bare parse, W1P", "citeval eval, W1P (200,000-doc pool, ties)"
REFERENCES = (FLOOR, EVAL, IRM)


def quick_rows(run: Path, qrels: Path, m: Measures, trec_eval: str | None) -> list[Row]:
    """The rows repeated in rounds."""
    files = [str(run), "--qrels", str(qrels)]
    rows = [
        Row(FLOOR, [sys.executable, str(CHILDREN), "pyarrow3dict", str(run)], note="read_csv"),
        Row(EVAL, [*CITEVAL, "eval", *files, "--protocol", "goyal2026", "--format", "trec_eval"]),
        Row(CROSSCHECK, [*CITEVAL, "crosscheck", *files, "--recipe", "goyal2026"]),
    ]
    if util.find_spec("ranx"):
        argv = [sys.executable, str(CHILDREN), "ranx", str(run), str(qrels), *m.ranx]
        rows.append(Row(RANX, argv, note="from_file + evaluate"))
    else:
        rows.append(Row(RANX, status="not installed (pip install ranx)"))
    if trec_eval:
        trec = [a for name in m.trec_args for a in ("-m", name)]
        rows.append(Row(TREC_EVAL, [trec_eval, "-c", *trec, str(qrels), str(run)]))
    else:
        rows.append(Row(TREC_EVAL, status="absent (--trec-eval, $TREC_EVAL)"))
    return rows


def verdict(rows: list[Row]) -> list[str]:
    """Each target of the issue, its ratio in this run, met or not."""
    by_name = {row.name: row for row in rows}

    def over(a: str, b: str) -> float | None:
        x, y = by_name.get(a), by_name.get(b)
        return x.median_seconds / y.median_seconds if x and y and x.ok and y.ok else None

    def paired(a: str, b: str) -> str:
        """The median of the ratios round by round (each round runs both once, back to
        back), which the machine's drift between rounds moves less than a ratio of medians."""
        x, y = by_name.get(a), by_name.get(b)
        if not (x and y and x.ok and y.ok) or min(len(x.samples), len(y.samples)) < 2:
            return ""
        ratios = [p.seconds / q.seconds for p, q in zip(x.samples, y.samples)]
        return f"; round by round {statistics.median(ratios):.2f}x (median of {len(ratios)})"

    targets = [
        ("citeval eval / floor", EVAL, FLOOR, "at most 1.5x", lambda v: v <= 1.5),
        ("ir_measures CLI / citeval eval", IRM, EVAL, "at least 6x", lambda v: v >= 6),
        ("crosscheck / citeval eval", CROSSCHECK, EVAL, "under 1.5x", lambda v: v < 1.5),
        ("big run: citeval eval / its floor", BIG_EVAL, BIG_FLOOR, "(reported)", None),
        (
            "W1P: citeval eval / its floor",
            POOL_EVAL,
            POOL_FLOOR,
            "at most 1.5x",
            lambda v: v <= 1.5,
        ),
        ("ranx / citeval eval", RANX, EVAL, "(reported)", None),
        ("trec_eval / citeval eval", TREC_EVAL, EVAL, "(reported)", None),
    ]
    lines = []
    for name, a, b, goal, met in targets:
        value = over(a, b)
        if value is None:
            continue
        state = "" if met is None else (" MET" if met(value) else " NOT MET")
        lines.append(f"{name}: {value:.2f}x (target {goal}){state}{paired(a, b)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = scoring.pipeline_arguments(__doc__, 5, argv)
    sys.path.insert(0, str(HERE.parent))
    m = Measures.of("goyal2026")
    trec_eval = scoring.find_trec_eval(args.trec_eval)
    folder, stats = scoring.ensure_workload(W1, max(1, round(W1.queries * args.scale)), args.work)
    run, qrels = folder / "run.trec", folder / "qrels.txt"
    floor, load = floor_mb(), os.getloadavg()
    print(
        f"W1: {stats['lines']:,} lines ({stats['run_bytes'] / 2**20:,.0f} MB); "
        f"{os.cpu_count()} CPUs, load average at start {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}; trec_eval {trec_eval or 'absent'}; --repeat {args.repeat}"
    )
    rows = quick_rows(run, qrels, m, trec_eval)
    highest = scoring.run_rows(rows, args.repeat, folder, warmup=True)
    once = [Row(IRM, [scoring._tool("ir_measures"), str(qrels), str(run), " ".join(m.irm)])]
    if args.big_scale:
        big, big_stats = scoring.ensure_workload(
            W1, max(1, round(W1.queries * args.big_scale)), args.work
        )
        big_run, big_qrels = big / "run.trec", big / "qrels.txt"
        print(f"big run: {big_stats['lines']:,} lines ({big_stats['run_bytes'] / 2**20:,.0f} MB)")
        big_eval = [*CITEVAL, "eval", str(big_run), "--qrels", str(big_qrels)]
        once += [
            Row(BIG_FLOOR, [sys.executable, str(CHILDREN), "pyarrow3dict", str(big_run)]),
            Row(BIG_EVAL, [*big_eval, "--protocol", "goyal2026", "--format", "trec_eval"]),
        ]
    highest = max(highest, scoring.run_rows(once, 1, folder))
    queries = max(1, round(W1.queries * args.scale))
    pool_folder, pool_stats = scoring.ensure_workload(WORKLOADS["W1P"], queries, args.work)
    pool_run, pool_qrels = pool_folder / "run.trec", pool_folder / "qrels.txt"
    print(f"W1P: {pool_stats['lines']:,} lines, {pool_stats['tied_queries']:,} tied queries")
    pool_rows = [
        Row(POOL_FLOOR, [sys.executable, str(CHILDREN), "pyarrow3dict", str(pool_run)]),
        Row(
            POOL_EVAL,
            [
                *CITEVAL,
                "eval",
                str(pool_run),
                "--qrels",
                str(pool_qrels),
                "--protocol",
                "goyal2026",
                "--format",
                "trec_eval",
            ],
        ),
    ]
    highest = max(highest, scoring.run_rows(pool_rows, args.repeat, pool_folder, warmup=True))
    rows[2:2] = once[:1]
    rows += once[1:] + pool_rows
    print()
    print(markdown_table(rows, REFERENCES, floor))
    print()
    for line in verdict(rows):
        print(line)
    by_name = {row.name: row for row in rows}
    if by_name[TREC_EVAL].argv:
        eval_argv = [*CITEVAL, "eval", str(run), "--qrels", str(qrels), "--protocol", "goyal2026"]
        print(scoring.trec_eval_agreement(eval_argv, by_name[TREC_EVAL].argv, folder / "rows", m))
    print(f"highest 1-minute load average during the run: {highest:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
