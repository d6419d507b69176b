"""Start-up (issue 42): what ``import citeval_irm`` adds to ``import ir_datasets``, and how long
``citeval --version`` and ``citeval --help`` take, beside ir_datasets' and ir-measures' own.

Whole processes (``harness.run_once``: wall time, CPU time, the process's own peak RSS,
Python's bytecode cache on, as an installed package has it), each row run once untimed (it
fills the bytecode cache), then ``--repeat`` times in interleaved rounds, so that a busy spell
of the machine hits every row:

- ``python -c pass``: the interpreter alone, the floor of every row;
- ``python -c "import ir_datasets"`` and ``python -c "import ir_datasets; import citeval_irm"``
  (``import citeval_irm`` registers the ``citeval/...`` datasets once ir_datasets is
  imported), and ``import citeval_irm`` alone;
- ``python -c "import ir_measures"`` and ``ir_measures --help``: the tool users know;
- ``citeval --version``, ``citeval --help``, ``citeval eval --help`` (the console script
  installed beside this Python, else ``python -m citeval_irm.cli``).

Targets of the issue, each MET / NOT MET: registering the datasets adds under 0.1 s to
``import ir_datasets`` (the median of the round-by-round differences, each round running
both back to back); ``citeval --version`` and ``citeval --help`` under 0.3 s (median wall
time). On a loaded machine the wall times grow with the load (printed); the CPU times
(user + system) grow less, and are printed beside them.

Each row is also run once with ``-X importtime`` (``PYTHONPROFILEIMPORTTIME``), untimed: the
note says which heavy packages it imports (numpy, pandas, pyarrow, ...), the guard
``tests/test_startup.py`` keeps out of registering the datasets and out of ``--help``.

    python benchmarks/bench_startup.py                  # 10 rounds, about a minute
    python benchmarks/bench_startup.py --repeat 20 --json benchmarks/out/startup.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from harness import Row, child_environment, floor_mb, markdown_table, package_versions, run_once

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "matplotlib", "duckdb", "dask", "pytrec_eval")
"""Packages whose import a start-up row should not pay unless it needs them."""

FLOOR = "python -c pass"
IR_DATASETS = "import ir_datasets"
REGISTERED = "import ir_datasets; import citeval_irm"
VERSION, HELP = "citeval --version", "citeval --help"
TARGETS = (
    ("registering the datasets: (ir_datasets + citeval_irm) - ir_datasets", REGISTERED, 0.1),
    (VERSION, VERSION, 0.3),
    (HELP, HELP, 0.3),
)


def console_script(name: str, module: str) -> list[str]:
    """The console script ``name`` installed beside this Python (what a user types), else
    ``python -m module``."""
    script = Path(PYTHON).with_name(name)
    return [str(script)] if script.is_file() else [PYTHON, "-m", module]


def rows() -> list[Row]:
    """The rows, in the order they run in each round and print."""
    citeval = console_script("citeval", "citeval_irm.cli")
    ir_measures = console_script("ir_measures", "ir_measures")
    code = [
        (FLOOR, "pass"),
        (IR_DATASETS, "import ir_datasets"),
        (REGISTERED, "import ir_datasets; import citeval_irm"),
        ("import citeval_irm", "import citeval_irm"),
        ("import ir_measures", "import ir_measures"),
    ]
    out = [Row(name, [PYTHON, "-c", source]) for name, source in code]
    out.append(Row("ir_measures --help", [*ir_measures, "--help"]))
    out.append(Row(VERSION, [*citeval, "--version"]))
    out.append(Row(HELP, [*citeval, "--help"]))
    out.append(Row("citeval eval --help", [*citeval, "eval", "--help"]))
    return out


IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def imports_of(argv: list[str]) -> tuple[int, list[str]]:
    """How many modules ``argv`` imports, and which of :data:`HEAVY` (with their cumulative
    import time, as ``-X importtime`` reports it, under this run's load)."""
    env = child_environment()
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    modules, heavy = 0, []
    for line in done.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if not match:
            continue
        modules += 1
        name = match.group(4)
        if name in HEAVY:
            heavy.append(f"{name} {int(match.group(2)) / 1e6:.2f} s")
    return modules, heavy


def paired_difference(row: Row, reference: Row) -> float | None:
    """The median over rounds of ``row``'s time minus ``reference``'s (each round runs both
    back to back): what ``row`` adds, less moved by the machine's drift than a difference
    of medians."""
    if not (row.ok and reference.ok):
        return None
    return statistics.median(a.seconds - b.seconds for a, b in zip(row.samples, reference.samples))


def verdict(by_name: dict[str, Row]) -> list[dict]:
    """Each target, its figure in this run (wall and CPU), met or not."""
    out = []
    for label, name, limit in TARGETS:
        row = by_name[name]
        if name == REGISTERED:
            reference = by_name[IR_DATASETS]
            wall = paired_difference(row, reference)
            cpu = statistics.median(
                a.cpu_seconds - b.cpu_seconds for a, b in zip(row.samples, reference.samples)
            )
        else:
            wall, cpu = row.median_seconds, row.median_cpu_seconds
        out.append({"target": label, "limit": limit, "wall": wall, "cpu": cpu,
                    "met": wall is not None and wall < limit})  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of each row (10)")
    parser.add_argument("--json", type=Path, help="write every sample and the targets here")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    # this checkout's package for every row, as bench_speed.py does
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent), os.environ.get("PYTHONPATH")) if p
    )
    table = rows()
    floor, load = floor_mb(), os.getloadavg()
    versions = package_versions(("citeval-irm", "ir_datasets", "ir_measures", "numpy",
                                 "pandas", "pyarrow"))  # fmt: skip
    print(f"Python {sys.version.split()[0]}; " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print(f"{os.cpu_count()} CPUs, load average at start {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; --repeat {args.repeat}")  # fmt: skip
    for row in table:
        run_once(row.argv)  # the bytecode cache filled, the files in the page cache
        modules, heavy = imports_of(row.argv)
        row.note = f"{modules} modules; " + (
            ", ".join(heavy) if heavy else "none of " + "/".join(HEAVY[:3])
        )
    highest = load[0]
    for round_ in range(args.repeat):
        print(f"  round {round_ + 1} of {args.repeat}", file=sys.stderr, flush=True)
        for row in table:
            row.add(run_once(row.argv))
        highest = max(highest, os.getloadavg()[0])
    by_name = {row.name: row for row in table}
    for row in table:
        if row.ok:
            row.note = f"CPU {row.median_cpu_seconds:.2f} s; {row.note}"
    print()
    print(markdown_table(table, (FLOOR, IR_DATASETS), floor))
    print()
    targets = verdict(by_name)
    for target in targets:
        state = "MET" if target["met"] else "NOT MET"
        wall = "-" if target["wall"] is None else f"{target['wall']:.3f} s"
        print(f"{target['target']}: {wall} (CPU {target['cpu']:.3f} s; target under "
              f"{target['limit']} s) {state}")  # fmt: skip
    print(f"highest 1-minute load average during the run: {highest:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {"versions": versions, "python": sys.version, "load_start": load,
                  "highest_load": highest, "rows": [row.to_json() for row in table],
                  "targets": targets}  # fmt: skip
        args.json.write_text(json.dumps(report, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
