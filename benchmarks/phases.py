"""Running a benchmark's phases, each in its own child process.

A phase runs as ``SCRIPT --phase NAME --work DIR ...`` and prints its figures as JSON on its
last line of output (``report``, which adds the phase's peak RSS); the parent prints them one
line per phase. A phase in its own process has its own peak memory, and imports or caches of
one phase cannot speed up another.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness import peak_rss_mb


def run_phases(script: str, phases: tuple[str, ...], work: Path, extra: list[str]) -> dict:
    """Run each phase of ``script`` in a child process; return ``{phase: figures}``.

    A failing phase prints its standard error and exits with its status."""
    out: dict[str, dict] = {}
    for phase in phases:
        command = [sys.executable, script, "--phase", phase, "--work", str(work), *extra]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.stderr.write(done.stderr)
            raise SystemExit(done.returncode)
        out[phase] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{phase:>10}: " + ", ".join(f"{k}={fmt(v)}" for k, v in out[phase].items()))
    return out


def report(figures: dict) -> None:
    """In a phase's process: print ``figures`` with its peak RSS (``peak_rss_mb``) as JSON."""
    print(json.dumps({**figures, "peak_rss_mb": peak_rss_mb()}))


def fmt(value) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"
