"""``citeval trec_eval`` against the trec_eval 10.0 binary, side by side, on one input.

Generates (numpy, fixed seed) a W1-sized run, ``--queries`` x ``--depth`` lines (20,000 x
300: 6 million) of ACL-style ids with tied scores, and qrels of ``--judged`` docs per query
with labels -1 to 3 (about half of them retrieved), then runs each command line under both
tools as whole processes (``harness.run_once``: wall time, peak RSS), ``--repeat`` times:

* the default measures (``-m official``), ``all`` rows only;
* ``-m all_trec``, ``all`` rows only;
* ``-q -m all_trec``: every query's lines too (~4.8 million lines).

Each pair's outputs are compared byte for byte and the table says whether they are
identical. The binary is ``$TREC_EVAL`` or ``trec_eval`` on PATH (trec_eval 10.0,
https://github.com/usnistgov/trec_eval, tag v10.0, built by ``make``); without it only
citeval's rows are timed.

    TREC_EVAL=/path/to/trec_eval python benchmarks/bench_trec_eval.py
    python benchmarks/bench_trec_eval.py --queries 2000 --repeat 1 --json out.json
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))
from harness import Row, floor_mb, markdown_table, measure, package_versions  # noqa: E402
from synthetic import acl_ids, distinct_rows, write_trec  # noqa: E402

COMMANDS = {
    "default": [],
    "all_trec": ["-m", "all_trec"],
    "all_trec -q": ["-q", "-m", "all_trec"],
}


def make_inputs(folder: Path, queries: int, depth: int, judged: int, seed: int) -> tuple:
    """The run and the qrels files (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    pool = acl_ids(rng, max(50_000, depth * 10))
    query_ids = np.char.add("Q", np.arange(queries).astype(str))
    ranked = distinct_rows(rng, queries, depth, len(pool))
    scores = np.sort(np.round(rng.random((queries, depth)) * 200) / 10, axis=1)[:, ::-1]
    run = pa.table({
        "query": np.repeat(query_ids, depth),
        "q0": np.full(queries * depth, "Q0"),
        "doc": pool[ranked.ravel()],
        "rank": np.tile(np.arange(1, depth + 1), queries),
        "score": scores.ravel(),
        "tag": np.full(queries * depth, "synthetic"),
    })  # fmt: skip
    # half of the judged docs from the ranking, half from elsewhere in the pool
    inside = ranked[:, rng.permutation(depth)[: judged // 2]]
    outside = distinct_rows(rng, queries, judged - judged // 2, len(pool))
    docs = np.concatenate([inside, outside], axis=1)
    keep = np.ones_like(docs, dtype=bool)
    for row in range(queries):  # a doc both inside and outside: once
        _, first = np.unique(docs[row], return_index=True)
        keep[row] = np.isin(np.arange(docs.shape[1]), first)
    labels = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=docs.shape)
    labels[:, 0] = np.maximum(labels[:, 0], 1)  # every query has a relevant doc
    qrels = pa.table({
        "query": np.repeat(query_ids, docs.shape[1])[keep.ravel()],
        "iter": np.zeros(int(keep.sum()), dtype=np.int64),
        "doc": pool[docs.ravel()][keep.ravel()],
        "label": labels.ravel()[keep.ravel()],
    })  # fmt: skip
    write_trec(run, folder / "run.trec")
    write_trec(qrels, folder / "qrels.txt")
    return folder / "qrels.txt", folder / "run.trec"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=300)
    parser.add_argument("--judged", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    citeval = [sys.executable, "-m", "citeval_irm.cli", "trec_eval"]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench_trec_eval_") as tmp:
        folder = Path(tmp)
        qrels, run = make_inputs(folder, args.queries, args.depth, args.judged, args.seed)
        with open(run, "rb") as handle:
            lines = sum(1 for _ in handle)
        for label, flags in COMMANDS.items():
            outputs = {}
            for tool, argv in (("trec_eval", [binary]), ("citeval trec_eval", citeval)):
                if tool == "trec_eval" and binary is None:
                    rows.append(Row(f"{tool} {label}", status="no binary ($TREC_EVAL)"))
                    continue
                out = folder / f"{tool.replace(' ', '_')}.{label.replace(' ', '_')}.out"
                err = out.with_suffix(".err")
                row = Row(f"{tool} {label}", [*argv, *flags, str(qrels), str(run)])
                rows.append(measure(row, args.repeat, out, err))
                outputs[tool] = out
            if len(outputs) == 2 and all(r.ok for r in rows[-2:]):
                same = filecmp.cmp(*outputs.values(), shallow=False)
                rows[-1].note = "output identical" if same else "OUTPUT DIFFERS"
        floor = floor_mb()
    print(f"# citeval trec_eval vs trec_eval 10.0: {args.queries:,} queries x {args.depth} docs "
          f"({lines:,} run lines), {args.judged} judged docs a query; median of {args.repeat}; "
          f"{platform.platform()}, {os.cpu_count()} cpus\n")  # fmt: skip
    print(markdown_table(rows, [r.name for r in rows if r.name.startswith("trec_eval ")][:1],
                         floor))  # fmt: skip
    print()
    for label in COMMANDS:
        pair = [r for r in rows if r.name.endswith(f" {label}") and r.ok]
        if len(pair) == 2:
            print(f"- {label}: citeval / trec_eval = "
                  f"{pair[1].median_seconds / pair[0].median_seconds:.2f}")  # fmt: skip
    if args.json:
        report = {
            "args": {k: str(v) for k, v in vars(args).items()},
            "binary": binary,
            "versions": package_versions(["citeval-irm", "numpy", "pyarrow"]),
            "rows": [r.to_json() for r in rows],
        }
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if all(r.ok or r.status.startswith("no binary") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
