"""Standard output closed (``>&-``) or full (``> /dev/full``), and the files a command wrote
before it failed (issue 41, items 7 and 10): one ``citeval: error:`` line naming standard
output and what reached it, exit 2, never a traceback; an error part way names the files
written in full and those not written. The commands run as processes (``python -m
citeval_irm.cli``), as a shell runs them; the inputs are GENERATED."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeval_irm.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEVICE_FULL = Path("/dev/full")


def citeval(*args, closed: bool = False, full: bool = False, cwd: Path | None = None):
    """``citeval ARGS`` as a process, its standard output closed or ``/dev/full``."""
    stdout = open(DEVICE_FULL, "w") if full else None  # noqa: SIM115 (closed below)
    try:
        return subprocess.run(
            [sys.executable, "-m", "citeval_irm.cli", *map(str, args)],
            stdout=stdout if full else (None if closed else subprocess.PIPE),
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            preexec_fn=(lambda: os.close(1)) if closed else None,
            timeout=300,
        )
    finally:
        if stdout is not None:
            stdout.close()


def one_error(done, *words: str) -> str:
    """The one ``citeval: error:`` line of ``done`` (exit 2, no traceback), holding ``words``."""
    errors = [line for line in done.stderr.splitlines() if line.startswith("citeval: error:")]
    assert done.returncode == 2 and len(errors) == 1, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


@pytest.fixture
def small(tmp_path: Path) -> Path:
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n")
    return tmp_path


COMMANDS = {
    "eval": ["eval", "run", "--qrels", "qrels", "-m", "RR"],
    "trec_eval": ["trec_eval", "qrels", "run"],
    "trec_eval -h": ["trec_eval", "-h"],
    "--help": ["--help"],
    "eval --help": ["eval", "--help"],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_closed_standard_output_is_one_error(small: Path, command: str) -> None:
    done = citeval(*COMMANDS[command], closed=True, cwd=small)
    one_error(done, "cannot write standard output", "closed", "nothing reached it")


@pytest.mark.slow
@pytest.mark.skipif(not DEVICE_FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", COMMANDS)
def test_full_standard_output_is_one_error(small: Path, command: str) -> None:
    done = citeval(*COMMANDS[command], full=True, cwd=small)
    one_error(done, "cannot write standard output", "No space left on device", "incomplete")


def test_audit_with_standard_output_closed(demo_home: Path) -> None:
    done = citeval("audit", "citeval/demo/test", "-q", closed=True)
    one_error(done, "cannot write standard output", "closed")


@pytest.mark.slow
@pytest.mark.skipif(not DEVICE_FULL.exists(), reason="no /dev/full on this system")
def test_resolve_says_what_it_wrote_before_standard_output_failed(
    demo_home: Path, tmp_path: Path
) -> None:
    """The run is written, then the table fails: the run is named as written in full,
    the report as not written; the run is complete."""
    run, report = tmp_path / "o.trec", tmp_path / "report.md"
    args = ["resolve", EXAMPLES / "generated.jsonl", "--dataset", "citeval/demo/test", "-q"]
    done = citeval(*args, "-o", run, "--report", report, full=True)
    line = one_error(done, "cannot write standard output", "No space left on device")
    assert f"{run} was written in full" in line and f"{report} was not written" in line
    assert "nothing was written" not in line
    whole = tmp_path / "whole.trec"  # the same run written with standard output working
    assert citeval(*args, "-o", whole).returncode == 0
    assert run.read_bytes() == whole.read_bytes() and not report.exists()
    # closed: the same account
    run.unlink()
    done = citeval(*args, "-o", run, "--report", report, closed=True)
    line = one_error(done, "cannot write standard output", "closed")
    assert f"{run} was written in full" in line and f"{report} was not written" in line


def test_a_broken_pipe_is_no_error(small: Path) -> None:
    """``citeval eval ... | head -0``: the reader stopped early; exit 0, nothing said."""
    command = f"{sys.executable} -m citeval_irm.cli eval run --qrels qrels -m RR | head -c 0"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], cwd=small, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_record_of_a_command_names_what_was_and_was_not_written(tmp_path, capsys) -> None:
    """What an error part way adds: the files written in full, then those checked but not
    written; nothing when nothing was written (the error says what of its own target is
    left); nothing kept outside a command."""
    from citeval_irm.base import outputs

    run, later = tmp_path / "o.trec", tmp_path / "later.txt"
    with outputs.recorded_outputs() as record:
        outputs.check_output(run)
        outputs.check_output(later)
        assert record.said() == ""
        with outputs.atomic_output(run) as temporary:
            temporary.write_text("q Q0 d 1 1 t\n")
        assert record.said() == f"; {run} was written in full; {later} was not written"
    with outputs.atomic_output(tmp_path / "x.trec") as temporary:
        temporary.write_text("")
    assert not outputs._RECORDS
    assert main(["eval", str(tmp_path / "missing"), "--qrels", str(run), "-m", "RR"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "written in full" not in err


def test_closed_standard_error_sends_nothing_to_standard_output(small: Path) -> None:
    """``2>&-``: the error cannot be said, but it does not land among the results."""
    command = ["eval", "missing", "--qrels", "qrels", "-m", "RR"]
    done = subprocess.run(
        [sys.executable, "-m", "citeval_irm.cli", *command],
        cwd=small,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(2),
    )
    assert done.returncode == 2 and done.stdout == ""
