"""Reading speed (issue 20, item 6): ``citeval eval`` against the bare parse it cannot beat.

One run, whole processes side by side (``harness.run_once``: wall time, the process's own
peak RSS), on W1 of ``bench_scoring.py`` (20,000 queries x 300 candidates = 6 M lines,
ACL-style ids) and on the same generator at 100,000 queries (30 M lines):

- ``citeval eval RUN --qrels QRELS -m "RR R@10 nDCG@10"`` (the console script's entry);
- the bare parse: ``pyarrow.csv.read_csv`` of the three columns query_id, doc_id, score
  (space delimited, typed, nothing else): the floor of any reader of the file;
- the ``ir_measures`` CLI with the same measures (its pytrec_eval provider; run once);
- ``trec_eval -c`` with the same measures;
- ``citeval crosscheck`` with the goyal2026 recipe;
- ``citeval eval`` of the 30 M-line run with default options (streamed by default).

Per-query values of citeval eval are compared with ``trec_eval -q`` (4 decimals). The
table's ``x REF`` columns are the median over REF's median, within this one run.

    python benchmarks/bench_pipeline.py --work /work/bench-data/pipeline
    python benchmarks/bench_pipeline.py --work /tmp/pipeline --scale 0.05 --big-scale 0.05
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench_scoring import (
    W1,
    Measures,
    _tool,
    ensure_workload,
    find_trec_eval,
    pipeline_arguments,
    run_rows,
    trec_eval_agreement,
)
from harness import Row, floor_mb, markdown_table

HERE = Path(__file__).resolve().parent
CHILDREN = HERE / "scoring_children.py"
MEASURES = Measures(
    irm=["RR", "R@10", "nDCG@10"],
    trec=["recip_rank", "recall_10", "ndcg_cut_10"],
    trec_args=["recip_rank", "recall.10", "ndcg_cut.10"],
    ranx=[],
)
CITEVAL = [sys.executable, "-c", "from citeval_irm.cli import run; run()"]  # the console script
EVAL, PARSE, IRM, TREC_EVAL = "citeval eval", "bare 3-column parse", "ir_measures CLI", "trec_eval"
CROSSCHECK = "citeval crosscheck --recipe goyal2026"
REFERENCES = (PARSE, EVAL, IRM, TREC_EVAL)


def rows_for(run: Path, qrels: Path, trec_eval: str | None) -> list[Row]:
    """The rows repeated in rounds: every quick one."""
    measures = " ".join(MEASURES.irm)
    files = [str(run), "--qrels", str(qrels), "-m", measures]
    rows = [
        Row(EVAL, [*CITEVAL, "eval", *files]),
        Row(PARSE, [sys.executable, str(CHILDREN), "pyarrow3", str(run)], note="read_csv"),
    ]
    if trec_eval:
        trec = [a for name in MEASURES.trec_args for a in ("-m", name)]
        rows.append(Row(TREC_EVAL, [trec_eval, "-c", *trec, str(qrels), str(run)], note="-c"))
    else:
        rows.append(Row(TREC_EVAL, status="absent (--trec-eval, $TREC_EVAL)"))
    recipe = ["--recipe", "goyal2026"]
    rows.append(Row(CROSSCHECK, [*CITEVAL, "crosscheck", *files, *recipe]))
    return rows


def main(argv: list[str] | None = None) -> int:
    args = pipeline_arguments(__doc__, 3, argv)
    trec_eval = find_trec_eval(args.trec_eval)
    folder, stats = ensure_workload(W1, max(1, round(W1.queries * args.scale)), args.work)
    big, big_stats = ensure_workload(W1, max(1, round(W1.queries * args.big_scale)), args.work)
    run, qrels = folder / "run.trec", folder / "qrels.txt"
    big_files = (big / "run.trec", big / "qrels.txt")
    floor, load = floor_mb(), os.getloadavg()
    print(
        f"{stats['lines']:,} lines ({stats['run_bytes'] / 2**20:,.0f} MB) and "
        f"{big_stats['lines']:,} lines ({big_stats['run_bytes'] / 2**20:,.0f} MB); "
        f"{os.cpu_count()} CPUs, load average at start {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}; trec_eval {trec_eval or 'absent'}; --repeat {args.repeat}\n"
    )
    rows = rows_for(run, qrels, trec_eval)
    highest = run_rows(rows, args.repeat, folder)
    sys.path.insert(0, str(HERE.parent))
    from citeval_irm.reading.streaming import plan_reading

    streamed = ", ".join(
        f"{name}: {'streamed' if plan_reading(path).stream else 'read whole'} by default"
        for name, path in (("this run", big_files[0]), (EVAL, run))
    )
    big_name = f"citeval eval, {big_stats['lines']:,} lines (default options)"
    big_argv = [*CITEVAL, "eval", str(big_files[0]), "--qrels", str(big_files[1])]
    once = [
        Row(IRM, [_tool("ir_measures"), str(qrels), str(run), " ".join(MEASURES.irm)]),
        Row(big_name, [*big_argv, "-m", " ".join(MEASURES.irm)], note=streamed),
    ]
    highest = max(highest, run_rows(once, 1, folder))
    rows[1:1] = once[:1]
    rows.append(once[1])
    print(markdown_table(rows, REFERENCES, floor))
    by_name = {row.name: row for row in rows}
    if by_name[TREC_EVAL].argv:
        agreement = trec_eval_agreement(
            by_name[EVAL].argv, by_name[TREC_EVAL].argv, folder / "rows", MEASURES
        )
        print("\n" + agreement)
    eval_row, parse_row = by_name[EVAL], by_name[PARSE]
    if eval_row.ok and parse_row.ok:
        print(
            f"citeval eval / bare parse: {eval_row.median_seconds / parse_row.median_seconds:.2f}x"
            f" (target 1.5x); highest 1-minute load average: {highest:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
