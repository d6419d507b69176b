"""Large runs (issue 16): streaming, Parquet and the Dask engine, side by side in one run.

Workloads, generated with numpy from fixed seeds (SYNTHETIC ids and scores):

- W1, as in ``bench_scoring.py``: 20,000 queries x 300 candidates (6 M lines), ``goyal2026``;
  also as a partitioned Parquet dataset (``citeval convert --partition-rows``);
- B100: 50,000 queries x 2,000 candidates (100 M lines, about 6 GB of text), written in
  blocks of 1,000 queries (W1's generator at depth 2,000, block ``b``'s query ids prefixed
  ``Bb-``), ``goyal2026``.

Every row is a whole process (``harness.run_once``: wall time and the process's own peak
RSS). The rows: ``citeval eval`` in memory and streamed (``--memory``) on W1, the
ir_measures CLI on W1 (the memory reference), the Parquet dataset in one process, on a
local cluster the command starts itself, and on an existing cluster (``dask scheduler`` and
``dask worker`` started here, 2 workers x 1 thread, reached with ``--scheduler``); B100
streamed. Per-query values of every citeval row on W1 are compared with the in-memory
row's (exact), B100 streamed with B100 in memory when ``--big-in-memory`` is given.

    python benchmarks/bench_streaming.py --big-queries 2000 --repeat 1     # a quick run
    python benchmarks/bench_streaming.py --json benchmarks/out/streaming.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from bench_scoring import W1, _tool, ensure_workload, generate, run_rows
from harness import Row, floor_mb, markdown_table, run_once

HERE = Path(__file__).resolve().parent
B100 = replace(W1, name="B100", queries=50_000, depth=2_000, rank_p=0.02, seed=100)
BLOCK = 1_000  # queries generated at a time


def write_big(queries: int, folder: Path) -> dict:
    """B100 (``queries`` queries) into ``folder``, a block of queries at a time."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    from bench_scoring import _constant, _six_decimals, _strings

    folder.mkdir(parents=True, exist_ok=True)
    options = pa_csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    stats = {"lines": 0, "queries": 0}
    with (
        pa.OSFile(str(folder / "run.trec"), "wb") as run_file,
        pa.OSFile(str(folder / "qrels.txt"), "wb") as qrels_file,
    ):
        for block in range((queries + BLOCK - 1) // BLOCK):
            count = min(BLOCK, queries - block * BLOCK)
            run, qrels, _ = generate(replace(B100, seed=B100.seed + block), count)
            ids, index = run["query"]
            ids = np.char.add(f"B{block}-", ids.astype(str))
            lines = len(index)
            table = pa.table(
                {
                    "query_id": _strings(ids, index),
                    "iteration": _constant("Q0", lines),
                    "doc_id": _strings(*run["doc"]),
                    "rank": run["rank"],
                    "score": _six_decimals(run["score"]),
                    "tag": _constant("citeval-bench", lines),
                }
            )
            pa_csv.write_csv(table, run_file, write_options=options)
            judged = len(qrels["doc"][1])
            relevant = pa.table(
                {
                    "query_id": _strings(ids, qrels["query"][1]),
                    "iteration": _constant("0", judged),
                    "doc_id": _strings(*qrels["doc"]),
                    "relevance": np.ones(judged, dtype=np.int64),
                }
            )
            pa_csv.write_csv(relevant, qrels_file, write_options=options)
            stats["lines"] += lines
            stats["queries"] += count
    stats["run_bytes"] = (folder / "run.trec").stat().st_size
    return stats


def ensure_big(queries: int, work: Path) -> tuple[Path, dict]:
    folder = work / f"B100-{queries}q"
    manifest = folder / "manifest.json"
    params = {"workload": str(B100), "queries": queries, "block": BLOCK}
    if manifest.exists():
        known = json.loads(manifest.read_text())
        run = folder / "run.trec"
        same = known["params"] == params and run.exists()
        if same and run.stat().st_size == known["stats"]["run_bytes"]:
            return folder, {**known["stats"], "reused": True}
    stats = write_big(queries, folder)
    manifest.write_text(json.dumps({"params": params, "stats": stats}, indent=2))
    return folder, {**stats, "reused": False}


class ExistingCluster:
    """``dask scheduler`` and two ``dask worker`` processes (1 thread each), as a user with
    a cluster has them; stopped on exit."""

    def __init__(self, folder: Path):
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen] = []

    def __enter__(self) -> str:
        from distributed import Client

        self.file.unlink(missing_ok=True)
        dask = _tool("dask")
        logs = open(self.file.with_suffix(".log"), "w")  # noqa: SIM115 (closed with the processes)
        self.logs = logs
        self.processes.append(
            subprocess.Popen(
                [
                    dask,
                    "scheduler",
                    "--scheduler-file",
                    str(self.file),
                    "--port",
                    "0",
                    "--dashboard-address",
                    ":0",
                    "--host",
                    "127.0.0.1",
                ],
                stdout=logs,
                stderr=logs,
            )
        )
        for _ in range(600):
            if self.file.exists():
                break
            time.sleep(0.1)
        self.processes.append(
            subprocess.Popen(
                [
                    dask,
                    "worker",
                    "--scheduler-file",
                    str(self.file),
                    "--nworkers",
                    "2",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                stdout=logs,
                stderr=logs,
            )
        )
        with Client(scheduler_file=str(self.file), timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
            return client.scheduler.address

    def __exit__(self, *exc) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        self.logs.close()


def per_query(row: Row, folder: Path) -> dict:
    """The row's per-query values (JSON), run untimed once more."""
    out = folder / "rows" / (row.name.replace(" ", "_").replace("/", "") + ".json")
    sample = run_once([*row.argv, "--format", "json", "--per-query", "--quiet"], out)
    if sample.returncode:
        raise RuntimeError(f"{row.name} failed")
    result = json.loads(out.read_text())
    return {"per_query": result["per_query"], "aggregate": result["aggregate"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per W1 row (median shown)")
    parser.add_argument("--big-queries", type=int, default=B100.queries, help="B100's queries")
    parser.add_argument("--big-memory", default="1G", help="--memory of the B100 streamed row")
    parser.add_argument("--w1-memory", default="100M", help="--memory of the W1 streamed row")
    parser.add_argument("--big-in-memory", action="store_true", help="also B100 in memory")
    parser.add_argument("--keep", action="store_true", help="keep B100's files (6 GB)")
    parser.add_argument("--work", type=Path, default=HERE / "out", help="generated files")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    citeval, floor = _tool("citeval"), floor_mb()
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")

    w1, w1_stats = ensure_workload(W1, W1.queries, args.work)
    run, qrels = w1 / "run.trec", w1 / "qrels.txt"
    parts = w1 / "parts"
    if not parts.exists():
        subprocess.run(
            [citeval, "convert", str(run), str(parts), "--partition-rows", "1000000"], check=True
        )
    files = [str(qrels), "--protocol", "goyal2026"]
    measures = " ".join(["RR", *(f"{m}@{k}" for m in ("R", "nDCG") for k in (5, 10, 20, 50, 300))])
    in_memory = Row("W1 in memory", [citeval, "eval", str(run), "--qrels", *files])
    streamed = Row(
        "W1 streamed",
        [*in_memory.argv, "--memory", args.w1_memory],
        note=f"--memory {args.w1_memory}",
    )
    irm = Row("W1 ir_measures CLI", [_tool("ir_measures"), str(qrels), str(run), measures])
    parquet = Row(
        "W1 Parquet, 1 process", [citeval, "eval", str(parts), "--qrels", *files], note="6 files"
    )
    local = Row(
        "W1 Parquet, dask (own LocalCluster)",
        [*parquet.argv, "--engine", "dask"],
        note="cluster start-up included",
    )
    rows = [in_memory, streamed, irm, parquet, local]
    print(f"## W1: {w1_stats['lines']:,} lines ({w1_stats['run_bytes'] / 2**20:,.0f} MB)\n")
    with tempfile.TemporaryDirectory() as scratch, ExistingCluster(Path(scratch)) as address:
        existing = Row(
            "W1 Parquet, dask (existing cluster)",
            [*parquet.argv, "--engine", "dask", "--scheduler", address],
            note="2 workers x 1 thread, started before",
        )
        rows.append(existing)
        highest = run_rows(rows, args.repeat, w1)
        reference = per_query(in_memory, w1)
        agreement = {}
        for row in (streamed, parquet, local, existing):
            agreement[row.name] = per_query(row, w1) == reference
    print(markdown_table(rows, [in_memory.name, irm.name], floor))
    print(f"\nhighest 1-minute load average during W1: {highest:.2f}")
    print(
        "per-query values identical to W1 in memory: "
        + ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in agreement.items())
    )

    big, big_stats = ensure_big(args.big_queries, args.work)
    print(
        f"\n## B100: {big_stats['lines']:,} lines ({big_stats['run_bytes'] / 2**30:,.2f} GB)"
        + (" [files reused]" if big_stats["reused"] else "")
        + "\n"
    )
    big_files = [
        str(big / "run.trec"),
        "--qrels",
        str(big / "qrels.txt"),
        "--protocol",
        "goyal2026",
    ]
    from citeval_irm.reading.streaming import plan_reading

    streams = plan_reading(big / "run.trec", args.big_memory).stream
    note = f"--memory {args.big_memory}" + (
        "" if streams else ": fits, so read whole (NOT streamed)"
    )
    big_rows = [
        Row("B100 streamed", [citeval, "eval", *big_files, "--memory", args.big_memory], note=note)
    ]
    if args.big_in_memory:
        big_rows.append(Row("B100 in memory", [citeval, "eval", *big_files]))
    big_highest = run_rows(big_rows, 1, big)
    big_agree = None
    if args.big_in_memory:
        big_agree = per_query(big_rows[0], big) == per_query(big_rows[1], big)
    print(markdown_table(big_rows, [], floor))
    print(f"\nhighest 1-minute load average during B100: {big_highest:.2f}")
    if big_agree is not None:
        print(f"B100 streamed identical to B100 in memory: {'yes' if big_agree else 'NO'}")

    per_line = {
        r.name: r.median_seconds / n
        for r, n in ((in_memory, w1_stats["lines"]), (big_rows[0], big_stats["lines"]))
        if r.ok
    }
    targets = []
    if big_rows[0].ok:
        targets.append(
            (
                "B100 streamed: peak RSS < 1.5 GB",
                f"{big_rows[0].peak_rss_mb:,.0f} MB",
                big_rows[0].peak_rss_mb < 1536,
            )
        )
    if len(per_line) == 2:
        ratio = per_line["B100 streamed"] / per_line["W1 in memory"]
        targets.append(
            (
                "B100 streamed: time per line within 1.5x of W1 in memory",
                f"{per_line['B100 streamed'] * 1e9:.0f} ns vs "
                f"{per_line['W1 in memory'] * 1e9:.0f} ns = {ratio:.2f}x",
                ratio <= 1.5,
            )
        )
    if streamed.ok and irm.ok:
        ratio = streamed.peak_rss_mb / irm.peak_rss_mb
        targets.append(
            (
                "W1 streamed: peak RSS <= 1/4 of the ir_measures CLI's",
                f"{streamed.peak_rss_mb:,.0f} / {irm.peak_rss_mb:,.0f} MB = {ratio:.2f}",
                ratio <= 0.25,
            )
        )
    for row in (local, existing):
        if row.ok and parquet.ok:
            targets.append(
                (
                    f"{row.name} vs 1 process (overhead, stated)",
                    f"{row.median_seconds:.2f} s vs {parquet.median_seconds:.2f} s = "
                    f"{row.median_seconds / parquet.median_seconds:.2f}x",
                    None,
                )
            )
    print("\n| target | figure | verdict |\n| --- | --- | --- |")
    for text, figure, met in targets:
        verdict = "stated" if met is None else ("MET" if met else "NOT MET")
        print(f"| {text} | {figure} | {verdict} |")
    if args.json:
        report = {
            "w1": {"data": w1_stats, "rows": [r.to_json() for r in rows], "agreement": agreement},
            "b100": {
                "data": big_stats,
                "rows": [r.to_json() for r in big_rows],
                "agreement": big_agree,
            },
            "targets": [{"target": t, "figure": f, "met": m} for t, f, m in targets],
            "load": {"start": load, "w1_highest": highest, "b100_highest": big_highest},
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str))
    if not args.keep:
        for name in ("run.trec", "qrels.txt", "manifest.json"):
            (big / name).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
