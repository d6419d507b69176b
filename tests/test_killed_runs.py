"""kill -9 at random moments of a partitioned ``convert`` and of a streamed ``eval
--report``: afterwards the output is absent or complete, never half-written, and the next
run removes what the killed ones left. Real processes (the console script) on GENERATED
runs. (``citeval import`` killed at random moments: tests/test_concurrency.py.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeval_irm.reading import io

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

CITEVAL = Path(sys.executable).with_name("citeval")
QUERIES, DOCS = 200, 300


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, Path]:
    """A run of 60,000 lines (a second or two to convert) and its qrels."""
    folder = tmp_path_factory.mktemp("big")
    with open(folder / "run.trec", "w") as run:
        for q in range(QUERIES):
            run.writelines(f"q{q} Q0 d{q}x{d} {d + 1} {1 / (d + 1):.9f} r\n" for d in range(DOCS))
    (folder / "qrels.txt").write_text("".join(f"q{q} 0 d{q}x{q % 50} 1\n" for q in range(QUERIES)))
    return folder / "run.trec", folder / "qrels.txt"


def _env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEVAL_")}
    return {**env, "IR_DATASETS_HOME": str(tmp_path / "home")}


def _kill_at_random(args: list, env: dict, cwd: Path, seed: int, trials: int = 3) -> int:
    """Run ``args`` once to time it, then ``trials`` times killed (SIGKILL) at random
    moments of that time, the first at 15 % of it; return how many were killed before they
    finished. The moments are early enough that a machine whose load drops between the
    timing run and the trials (runs up to six times faster) still kills the first one:
    with moments up to 95 % of the timing, a loaded machine let every run finish first."""
    started = time.monotonic()
    subprocess.run(args, env=env, cwd=cwd, check=True, capture_output=True, timeout=300)
    took = time.monotonic() - started
    rng, killed = random.Random(seed), 0
    for trial in range(trials):
        process = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep((0.15 if trial == 0 else rng.uniform(0.15, 0.8)) * took)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        killed += process.returncode == -signal.SIGKILL
        yield
    assert killed >= 1, "every run finished before it was killed"


def _work_left(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}.citeval-"))


def test_a_partitioned_convert_killed_at_random_moments(tmp_path: Path, big) -> None:
    run, _ = big
    parts = tmp_path / "parts"
    args = [CITEVAL, "convert", run, parts, "--partition-rows", "5000", "--force", "-q"]
    leftovers = 0
    for _ in _kill_at_random(args, _env(tmp_path), tmp_path, seed=19):
        if parts.exists():  # complete, from a run that finished: never a part of one
            assert len(io.read_run(parts, duplicates="keep_all")) == QUERIES * DOCS
        leftovers += len(_work_left(tmp_path, "parts"))
    done = subprocess.run(args, env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _work_left(tmp_path, "parts") == []  # what the killed ones left is gone
    assert len(io.read_run(parts, duplicates="keep_all")) == QUERIES * DOCS
    assert {p.name for p in tmp_path.iterdir()} - {"home"} == {"parts"}


def test_a_streamed_eval_with_a_report_killed_at_random_moments(tmp_path: Path, big) -> None:
    run, qrels = big
    report = tmp_path / "report.html"
    args = [CITEVAL, "eval", run, "--qrels", qrels, "-m", "AP P@10", "--memory", "2M"]
    args += ["--report", report, "--force", "-q"]
    for _ in _kill_at_random(args, _env(tmp_path), tmp_path, seed=22, trials=2):
        if report.exists():
            assert report.read_text().rstrip().endswith("</html>")
    done = subprocess.run(args, env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _work_left(tmp_path, "report.html") == []
    assert {p.name for p in tmp_path.iterdir()} - {"home"} == {"report.html"}
