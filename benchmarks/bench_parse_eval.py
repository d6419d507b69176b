"""Parse and evaluate a large TREC run with citeval-irm and the usual alternatives, side by side.

Generates (numpy, fixed seed) a run of ``--queries`` x ``--depth`` lines with citation-style
ids and some tied scores, plus a qrels with one relevant doc per query, then times:

* parsing: ``citeval_irm.read_run``; ``ir_measures.read_trec_run`` into a dict-of-dicts;
  ``pandas.read_csv(sep=r"\\s+")``; ranx ``Run.from_file`` (if installed);
* evaluating ``RR R@10 nDCG@10 AP Success@10`` end to end (parse included):
  ``citeval_irm.evaluate``; ``ir_measures.calc_aggregate``; pytrec_eval on dicts parsed by
  ir-measures (also timed without the parse); ranx ``evaluate`` (if installed).

Each (tool, task) runs in its own child process (this script with ``--only TOOL:TASK``): one
untimed warm-up call on a tiny run, then ``--repeat`` timed calls. The child reports its own peak
RSS (``VmHWM``), so the numbers of one tool do not leak into another's.

    python benchmarks/bench_parse_eval.py                      # 20,000 x 300, 3 repeats
    python benchmarks/bench_parse_eval.py --queries 2000 --skip-ranx --json out.json
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from harness import package_versions, peak_rss_mb
from synthetic import acl_ids, distinct_rows, write_trec

from citeval_irm.base.options import EvalOptions

MEASURES = "RR R@10 nDCG@10 AP Success@10"
MEASURE_NAMES = ("RR", "R@10", "nDCG@10", "AP", "Success@10")
PYTREC_NAMES = {
    "recip_rank": "RR",
    "recall_10": "R@10",
    "ndcg_cut_10": "nDCG@10",
    "map": "AP",
    "success_10": "Success@10",
}
RANX_NAMES = {
    "mrr": "RR",
    "recall@10": "R@10",
    "ndcg@10": "nDCG@10",
    "map": "AP",
    "hit_rate@10": "Success@10",
}
RUN_COLUMNS = ["query_id", "iteration", "doc_id", "rank", "score", "tag"]
TOLERANCE = 1e-9
PACKAGES = (
    "citeval-irm",
    "ir-measures",
    "pytrec-eval-terrier",
    "pandas",
    "pyarrow",
    "numpy",
    "ranx",
    "numba",
)

Summary = dict[str, Any]


# --------------------------------------------------------------------------- data


@dataclass
class Dataset:
    """Paths of a generated run and qrels, and what the generator knows about them."""

    run: Path
    qrels: Path
    lines: int
    queries: int
    tied_queries: list[str]
    relevant_in_tie: list[str]
    relevant_retrieved: int
    seconds: float


def generate(
    workdir: Path,
    queries: int,
    depth: int,
    seed: int,
    tie_fraction: float = 0.05,
    hit_fraction: float = 0.9,
    name: str = "bench",
) -> Dataset:
    """Write ``{name}.run`` and ``{name}.qrels`` into ``workdir`` (vectorised, seeded).

    Scores decrease strictly within a query except for ``tie_fraction`` of the queries, which
    get one group of 2-5 equal scores that contains the relevant doc when it was retrieved.
    ``hit_fraction`` of the queries have their relevant doc in the run (rank ~ geometric).
    """
    import pyarrow as pa

    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    pool = acl_ids(rng, max(100_000, 2 * depth, queries))
    candidates = distinct_rows(rng, queries, depth, len(pool))

    # Relevant doc: the candidate at a geometric rank for hits, a doc outside the run otherwise.
    hit = rng.random(queries) < hit_fraction
    position = np.minimum(rng.geometric(0.15, size=queries) - 1, depth - 1)
    relevant = candidates[np.arange(queries), position]
    misses = np.flatnonzero(~hit)
    while misses.size:
        relevant[misses] = rng.integers(0, len(pool), size=misses.size)
        inside = (candidates[misses] == relevant[misses, None]).any(axis=1)
        misses = misses[inside]

    # Strictly decreasing 6-decimal scores (steps >= 1e-5), then one tie group per tied query.
    steps = rng.exponential(0.05, size=(queries, depth)) + 1e-5
    scores = np.round(30.0 - np.cumsum(steps, axis=1), 6)
    tied = np.flatnonzero(rng.random(queries) < tie_fraction)
    size = rng.integers(2, 6, size=tied.size)
    anchor = np.where(hit[tied], position[tied], rng.integers(0, depth, size=tied.size))
    first = np.clip(anchor - rng.integers(0, size), 0, depth - size)
    for offset in range(1, 5):
        row = offset < size
        scores[tied[row], first[row] + offset] = scores[tied[row], first[row]]
    in_tie = hit[tied] & (anchor >= first) & (anchor < first + size)

    query_ids = np.char.add(
        np.char.add(np.char.add(pool[rng.permutation(len(pool))[:queries]], "_"), pool[relevant]),
        np.char.add("_", rng.integers(0, 4, size=queries).astype(str)),
    )
    lines = queries * depth
    pool_array = pa.array(pool.tolist())
    query_array = pa.array(query_ids.tolist())
    table = pa.table(
        {
            "query_id": query_array.take(np.repeat(np.arange(queries), depth)),
            "iteration": pa.array(["Q0"]).take(np.zeros(lines, dtype=np.int64)),
            "doc_id": pool_array.take(candidates.ravel()),
            "rank": np.tile(np.arange(1, depth + 1), queries),
            "score": scores.ravel(),
            "tag": pa.array(["bench"]).take(np.zeros(lines, dtype=np.int64)),
        }
    )
    run_path, qrels_path = workdir / f"{name}.run", workdir / f"{name}.qrels"
    write_trec(table, run_path)
    qrels = pa.table(
        {
            "query_id": query_array,
            "iteration": pa.array(["0"] * queries),
            "doc_id": pool_array.take(relevant),
            "relevance": np.ones(queries, dtype=np.int64),
        }
    )
    write_trec(qrels, qrels_path)
    return Dataset(
        run=run_path,
        qrels=qrels_path,
        lines=lines,
        queries=queries,
        tied_queries=query_ids[tied].tolist(),
        relevant_in_tie=query_ids[tied[in_tie]].tolist(),
        relevant_retrieved=int(hit.sum()),
        seconds=time.perf_counter() - start,
    )


# --------------------------------------------------------------------------- tasks


def _paths(run: Path, qrels: Path) -> tuple[Path, Path]:
    return run, qrels


def _irm_run_dict(run: Path) -> dict[str, dict[str, float]]:
    """What an ir-measures user writes to hold a run: a ``{qid: {doc: score}}`` dict."""
    import ir_measures

    out: dict[str, dict[str, float]] = {}
    for doc in ir_measures.read_trec_run(str(run)):
        out.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    return out


def _irm_qrels_dict(qrels: Path) -> dict[str, dict[str, int]]:
    import ir_measures

    out: dict[str, dict[str, int]] = {}
    for qrel in ir_measures.read_trec_qrels(str(qrels)):
        out.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    return out


def citeval_parse(state: tuple[Path, Path]) -> Any:
    import citeval_irm

    return citeval_irm.read_run(state[0])


def irm_parse(state: tuple[Path, Path]) -> Any:
    return _irm_run_dict(state[0])


def pandas_parse(state: tuple[Path, Path]) -> Any:
    import pandas as pd

    return pd.read_csv(state[0], sep=r"\s+", header=None, names=RUN_COLUMNS)


def ranx_parse(state: tuple[Path, Path]) -> Any:
    from ranx import Run

    return Run.from_file(str(state[0]), kind="trec")


def citeval_evaluate(state: tuple[Path, Path]) -> Any:
    import citeval_irm

    return citeval_irm.evaluate(state[0], state[1], MEASURES)


def irm_evaluate(state: tuple[Path, Path]) -> Any:
    import ir_measures
    from ir_measures import AP, RR, R, Success, nDCG

    measures = [RR, R @ 10, nDCG @ 10, AP, Success @ 10]
    qrels = ir_measures.read_trec_qrels(str(state[1]))
    return ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(str(state[0])))


def _pytrec(qrels: dict, run: dict) -> tuple[dict, int]:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_NAMES))
    return evaluator.evaluate(run), len(qrels)


def pytrec_evaluate(state: tuple[Path, Path]) -> Any:
    return _pytrec(_irm_qrels_dict(state[1]), _irm_run_dict(state[0]))


def pytrec_preparsed_setup(run: Path, qrels: Path) -> tuple[dict, dict]:
    return _irm_qrels_dict(qrels), _irm_run_dict(run)


def pytrec_preparsed(state: tuple[dict, dict]) -> Any:
    return _pytrec(*state)


def ranx_evaluate(state: tuple[Path, Path]) -> Any:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(state[1]), kind="trec")
    run = Run.from_file(str(state[0]), kind="trec")
    return evaluate(qrels, run, list(RANX_NAMES)), run


# Summaries turn a task's output into JSON (rows, aggregate, per-query values); untimed.


def _parse_summary(rows: int, queries: int) -> Summary:
    return {"rows": int(rows), "queries": int(queries)}


def citeval_parse_summary(run: Any) -> Summary:
    return _parse_summary(len(run), run.frame["query_id"].nunique())


def dict_parse_summary(run: dict) -> Summary:
    return _parse_summary(sum(len(docs) for docs in run.values()), len(run))


def pandas_parse_summary(frame: Any) -> Summary:
    return _parse_summary(len(frame), frame["query_id"].nunique())


def ranx_parse_summary(run: Any) -> Summary:
    return _parse_summary(sum(len(docs) for docs in run.run.values()), len(run))


def citeval_eval_summary(result: Any) -> Summary:
    return {
        "aggregate": {name: float(value) for name, value in result.aggregate.items()},
        "per_query": {
            name: {str(q): float(v) for q, v in column.items()}
            for name, column in result.per_query.items()
        },
        "tied_queries": result.ties.tied_queries if result.ties else None,
    }


def irm_eval_summary(result: dict) -> Summary:
    return {"aggregate": {str(measure): float(value) for measure, value in result.items()}}


def pytrec_eval_summary(output: tuple[dict, int]) -> Summary:
    per_query_raw, counted = output
    per_query: dict[str, dict[str, float]] = {name: {} for name in PYTREC_NAMES.values()}
    for query, values in per_query_raw.items():
        for key, value in values.items():
            per_query[PYTREC_NAMES[key]][query] = float(value)
    # trec_eval -c: average over the qrels queries (all present in the run here).
    aggregate = {name: sum(values.values()) / counted for name, values in per_query.items()}
    return {"aggregate": aggregate, "per_query": per_query}


def ranx_eval_summary(output: tuple[dict, Any]) -> Summary:
    means, run = output
    return {
        "aggregate": {RANX_NAMES[key]: float(value) for key, value in means.items()},
        "per_query": {
            RANX_NAMES[key]: {str(q): float(v) for q, v in run.scores[key].items()}
            for key in RANX_NAMES
        },
    }


@dataclass(frozen=True)
class Job:
    """One (tool, task): an untimed setup, the timed call and an untimed summary."""

    tool: str
    task: str
    call: Callable[[Any], Any]
    summary: Callable[[Any], Summary]
    setup: Callable[[Path, Path], Any] = _paths
    baseline: str = "parse"
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.tool}:{self.task}"


JOBS = (
    Job("citeval", "parse", citeval_parse, citeval_parse_summary),
    Job("ir_measures", "parse", irm_parse, dict_parse_summary, note="read_trec_run -> dicts"),
    Job("pandas", "parse", pandas_parse, pandas_parse_summary, note=r"read_csv(sep='\s+')"),
    Job("ranx", "parse", ranx_parse, ranx_parse_summary, note="Run.from_file"),
    Job("citeval", "evaluate", citeval_evaluate, citeval_eval_summary, baseline="evaluate"),
    Job(
        "ir_measures",
        "evaluate",
        irm_evaluate,
        irm_eval_summary,
        baseline="evaluate",
        note="calc_aggregate(read_trec_*)",
    ),
    Job(
        "pytrec_eval",
        "evaluate",
        pytrec_evaluate,
        pytrec_eval_summary,
        baseline="evaluate",
        note="dicts from ir_measures",
    ),
    Job(
        "pytrec_eval",
        "evaluate-preparsed",
        pytrec_preparsed,
        pytrec_eval_summary,
        setup=pytrec_preparsed_setup,
        baseline="evaluate",
        note="parse untimed",
    ),
    Job("ranx", "evaluate", ranx_evaluate, ranx_eval_summary, baseline="evaluate"),
)
JOB_BY_KEY = {job.key: job for job in JOBS}


def run_child(args: argparse.Namespace) -> None:
    """``--only TOOL:TASK``: warm up on the tiny files, time ``--repeat`` calls, write JSON."""
    warnings.simplefilter("ignore")  # ranx's NumbaTypeSafetyWarning, pandas notices
    job = JOB_BY_KEY[args.only]
    start = time.perf_counter()
    warm_state = job.setup(Path(args.warm_run), Path(args.warm_qrels))
    job.summary(job.call(warm_state))
    del warm_state
    warmup = time.perf_counter() - start
    gc.collect()
    setup_rss = peak_rss_mb()
    state = job.setup(Path(args.run_file), Path(args.qrels_file))
    gc.collect()
    times, summary = [], {}
    for attempt in range(args.repeat):
        begin = time.perf_counter()
        output = job.call(state)
        times.append(time.perf_counter() - begin)
        if attempt == args.repeat - 1:
            summary = job.summary(output)
        del output
        gc.collect()
    report = {
        "times": times,
        "warmup_seconds": warmup,
        "setup_rss_mb": setup_rss,
        "peak_rss_mb": peak_rss_mb(),
        **summary,
    }
    Path(args.child_out).write_text(json.dumps(report))


# --------------------------------------------------------------------------- parent


def spawn(job: Job, data: Dataset, warm: Dataset, repeat: int, workdir: Path) -> dict[str, Any]:
    """Run one job in a child process; return its report plus wall time and peak RSS."""
    out = workdir / f"child-{job.tool}-{job.task}.json"
    log = workdir / f"child-{job.tool}-{job.task}.log"
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--only",
        job.key,
        "--run-file",
        str(data.run),
        "--qrels-file",
        str(data.qrels),
        "--warm-run",
        str(warm.run),
        "--warm-qrels",
        str(warm.qrels),
        "--repeat",
        str(repeat),
        "--child-out",
        str(out),
    ]
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with open(log, "wb") as handle:
        returncode = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - start
    report: dict[str, Any] = {
        "tool": job.tool,
        "task": job.task,
        "note": job.note,
        "child_wall_seconds": wall,
        "load_1min": [load_before, os.getloadavg()[0]],
        "returncode": returncode,
    }
    if returncode != 0 or not out.exists():
        tail = log.read_text(errors="replace").strip().splitlines()[-2:]
        report["error"] = f"exit code {returncode}: {' | '.join(tail)}"
        return report
    report.update(json.loads(out.read_text()))
    report["median_seconds"] = statistics.median(report["times"])
    return report


def compare(
    reports: dict[str, dict[str, Any]], data: Dataset, run_order: dict[str, Any] | None
) -> list[str]:
    """Agreement lines: aggregate differences vs citeval, and where per-query values differ."""
    reference = reports.get("citeval:evaluate", {})
    if "aggregate" not in reference:
        return ["citeval:evaluate failed; no agreement check"]
    tied = set(data.tied_queries)
    tie_matters = set(data.relevant_in_tie)
    lines = []
    for key in ("ir_measures:evaluate", "pytrec_eval:evaluate", "ranx:evaluate"):
        other = reports.get(key)
        if not other or "aggregate" not in other:
            continue
        diffs = {
            name: abs(other["aggregate"][name] - reference["aggregate"][name])
            for name in MEASURE_NAMES
        }
        worst = max(diffs.values())
        verdict = "agree" if worst <= TOLERANCE else "DIFFER"
        lines.append(
            f"{key:<22} max |diff| vs citeval per measure: "
            + ", ".join(f"{name} {value:.2e}" for name, value in diffs.items())
            + f"  -> {verdict} (tolerance {TOLERANCE:g})"
        )
        if "per_query" in other:
            lines += _per_query_lines(reference, other, tied, tie_matters, run_order)
    if run_order is not None:
        diffs = {
            name: abs(run_order["aggregate"][name] - reference["aggregate"][name])
            for name in MEASURE_NAMES
        }
        lines.append(
            "tie sensitivity: citeval ties='run_order' vs 'trec_eval': "
            + ", ".join(f"{name} {value:.2e}" for name, value in diffs.items())
        )
    return lines


def _differing(a: dict[str, Any], b: dict[str, Any]) -> set[str]:
    out = set()
    for name in MEASURE_NAMES:
        left, right = a["per_query"][name], b["per_query"][name]
        out |= {q for q, v in left.items() if abs(right.get(q, 0.0) - v) > TOLERANCE}
    return out


def _per_query_lines(
    reference: dict[str, Any],
    other: dict[str, Any],
    tied: set[str],
    tie_matters: set[str],
    run_order: dict[str, Any] | None,
) -> list[str]:
    differing = _differing(reference, other)
    if not differing:
        return ["    per query: identical on every query and measure"]
    line = (
        f"    per query: {len(differing)} queries differ; {len(differing & tied)} of them have "
        f"tied scores ({len(differing & tie_matters)} with the relevant doc inside a tie), "
        f"{len(differing - tied)} have none"
    )
    if run_order is not None:
        line += f"; vs citeval ties='run_order': {len(_differing(run_order, other))} differ"
    return [line]


def _run_order_summary(reports: dict[str, dict[str, Any]], data: Dataset) -> Summary | None:
    """citeval's evaluation with ``ties="run_order"`` (untimed), to show the ties' weight."""
    if "aggregate" not in reports.get("citeval:evaluate", {}):
        return None
    try:
        import citeval_irm

        result = citeval_irm.evaluate(
            data.run, data.qrels, MEASURES, options=EvalOptions(ties="run_order")
        )
    except Exception as exc:  # report and carry on: the timings are already printed
        print(f"citeval with ties='run_order' failed: {exc!r}")
        return None
    return citeval_eval_summary(result)


def _git_revision() -> str | None:
    """The commit of the repository this script lives in, ``+dirty`` if it has changes."""
    repo = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if status else "")


def _environment() -> dict[str, Any]:
    versions = package_versions(PACKAGES)
    return {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "git": _git_revision(),
        "packages": versions,
    }


def _table(rows: list[dict[str, Any]]) -> str:
    header = (
        f"{'tool':<12} {'task':<19} {'median s':>9} {'runs s':<20} {'x citeval':>9} "
        f"{'peak RSS MB':>11} {'setup RSS MB':>12}  note"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        if "error" in row:
            lines.append(f"{row['tool']:<12} {row['task']:<19} FAILED: {row['error'][:200]}")
            continue
        runs = " ".join(f"{t:.2f}" for t in row["times"])
        ratio = f"{row['ratio']:.2f}" if row.get("ratio") is not None else "-"
        note = row["note"]
        if row["tool"] == "ranx":
            note = f"{note}; warm-up {row['warmup_seconds']:.1f} s untimed".lstrip("; ")
        lines.append(
            f"{row['tool']:<12} {row['task']:<19} {row['median_seconds']:>9.2f} {runs:<20} "
            f"{ratio:>9} {row['peak_rss_mb']:>11.0f} {row['setup_rss_mb']:>12.0f}  {note}"
        )
    return "\n".join(lines)


def main_parent(args: argparse.Namespace) -> int:
    """Generate the data, run every job in a child, print the table and the agreement."""
    sys.stdout.reconfigure(line_buffering=True)
    ranx_ok = importlib.util.find_spec("ranx") is not None
    skip_ranx = args.skip_ranx or not ranx_ok
    env = _environment()
    load_start = os.getloadavg()
    print(
        f"python {env['python']} ({env['executable']}), {env['platform']}, {env['cpus']} CPUs, "
        f"load average at start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}"
    )
    print("packages: " + ", ".join(f"{k} {v}" for k, v in env["packages"].items() if v))
    print(f"repository at commit {env['git']}")
    if args.skip_ranx:
        print("ranx: skipped (--skip-ranx)")
    elif not ranx_ok:
        print("ranx: not installed in this environment, skipped")

    own_dir = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="citeval-bench-")) if own_dir else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        data = generate(workdir, args.queries, args.depth, args.seed, args.tie_fraction)
        warm = generate(workdir, 50, 30, args.seed + 1, 0.2, name="warmup")
        size_mb = data.run.stat().st_size / 1e6
        print(
            f"data: {data.lines:,} run lines ({size_mb:.0f} MB) = {data.queries:,} queries x "
            f"{args.depth}; {len(data.tied_queries)} queries with tied scores "
            f"({len(data.relevant_in_tie)} with the relevant doc in the tie); "
            f"{data.relevant_retrieved:,} relevant docs retrieved; written in "
            f"{data.seconds:.1f} s to {workdir}"
        )
        print(
            f"each (tool, task) runs in its own process: 1 untimed warm-up call on a "
            f"{warm.queries} x 30 run (for ranx it absorbs numba's JIT compile or cache load, "
            f"~34 s on an empty numba cache; see the note column), then {args.repeat} timed "
            "calls; peak RSS = the child's VmHWM\n"
        )
        reports: dict[str, dict[str, Any]] = {}
        for job in JOBS:
            if job.tool == "ranx" and skip_ranx:
                continue
            print(f"  running {job.key} ...", file=sys.stderr, flush=True)
            reports[job.key] = spawn(job, data, warm, args.repeat, workdir)
        rows = list(reports.values())
        for row in rows:
            base = reports.get(f"citeval:{JOB_BY_KEY[row['tool'] + ':' + row['task']].baseline}")
            if "median_seconds" in row and base and "median_seconds" in base:
                row["ratio"] = row["median_seconds"] / base["median_seconds"]
        print(_table(rows))
        print(
            "\nx citeval = median seconds / citeval's median for the same task (>1: slower); "
            "'evaluate' includes parsing run and qrels; evaluate-preparsed is compared with "
            "citeval's end-to-end evaluate. setup RSS = peak after imports and warm-up."
        )
        parse_rows = {r["tool"]: r.get("rows") for r in rows if r["task"] == "parse"}
        print("rows parsed: " + ", ".join(f"{tool} {n:,}" for tool, n in parse_rows.items() if n))
        agreement = compare(reports, data, _run_order_summary(reports, data))
        print("\nagreement (" + MEASURES + "):")
        print("\n".join(agreement))
        load_end = os.getloadavg()
        max_load = max([load_start[0], load_end[0]] + [max(r["load_1min"]) for r in rows])
        print(
            f"\nload average at end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; "
            f"highest 1-min load seen {max_load:.2f} on {env['cpus']} CPUs"
        )
        if max_load > 1.5:
            print(
                "note: other processes were running (this benchmark alone keeps the load near "
                "1); timings are noisier and ratios less reliable than on an idle machine"
            )
        if args.json:
            for row in rows:
                row.pop("per_query", None)
            payload = {
                "config": {
                    "queries": args.queries,
                    "depth": args.depth,
                    "repeat": args.repeat,
                    "seed": args.seed,
                    "tie_fraction": args.tie_fraction,
                    "measures": MEASURES,
                    "lines": data.lines,
                    "tied_queries": len(data.tied_queries),
                    "relevant_in_tie": len(data.relevant_in_tie),
                },
                "environment": env,
                "load_average": {"start": load_start, "end": load_end},
                "results": rows,
                "agreement": agreement,
            }
            args.json.write_text(json.dumps(payload, indent=2))
            print(f"wrote {args.json}")
    finally:
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=300, help="candidates per query")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls; median reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tie-fraction", type=float, default=0.05)
    parser.add_argument("--skip-ranx", action="store_true")
    parser.add_argument(
        "--workdir", type=Path, help="keep the generated files here (default: a temp dir)"
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    child = parser.add_argument_group("internal (child processes)")
    child.add_argument("--only", choices=sorted(JOB_BY_KEY), help=argparse.SUPPRESS)
    for name in ("--run-file", "--qrels-file", "--warm-run", "--warm-qrels", "--child-out"):
        child.add_argument(name, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.only:
        run_child(args)
        return 0
    return main_parent(args)


if __name__ == "__main__":
    sys.exit(main())
