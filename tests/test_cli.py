"""The citeval command line, through main() and through the installed console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeval_irm.cli import main

RUN = (
    "c1 Q0 P15-1001 1 0.9 t\nc1 Q0 N12-1047 2 0.8 t\n"
    "c2 Q0 N12-1047 1 0.9 t\nc2 Q0 P15-1001 2 0.9 t\n"
    "zz Q0 a 1 1 t\n"
)
QRELS = "c1 0 P15-1001 1\nc2 0 N12-1047 1\n"


@pytest.fixture
def files(write):
    return write("run.trec", RUN), write("qrels.txt", QRELS)


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_table_with_warnings_on_stderr(capsys, files):
    run, qrels = files
    code, out, err = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "MRR HR@1")
    assert code == 0
    # c2 has a tie: trec_eval order puts P15-1001 (descending doc id) first
    assert "  RR         0.7500\n" in out and "  Success@1  0.5000\n" in out
    assert "warning: run queries absent from the qrels: ignored (1): zz" in err
    assert "warning: tied scores broken by doc id, descending (trec_eval)" in err


def test_eval_ties_run_order_and_percent(capsys, files):
    run, qrels = files
    code, out, _ = run_cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--ties", "run_order", "--percent"
    )
    assert code == 0 and "  RR  100.00\n" in out  # c2's tie as listed: N12-1047 first


def test_eval_protocol_per_query_csv(capsys, files):
    run, qrels = files
    code, out, _ = run_cli(
        capsys,
        "eval",
        run,
        "--qrels",
        qrels,
        "--protocol",
        "goyal2026",
        "--per-query",
        "--format",
        "csv",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "query_id,measure,value"
    assert "c2,RR,50.0" in lines and "all,RR,75.0" in lines  # goyal2026 is in percent
    assert len(lines) == 1 + 3 * 11


def test_eval_json(capsys, files):
    run, qrels = files
    code, out, _ = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "json")
    payload = json.loads(out)
    assert code == 0 and payload["aggregate"] == {"RR": 0.75}
    assert [w["code"] for w in payload["warnings"]] == ["run_only_queries", "tied_scores"]


def test_bad_input_exits_2_naming_file_and_line(capsys, write, files):
    _, qrels = files
    bad = write("bad.trec", "c1 Q0 a 1 0.5 t\nc1 Q0 b 2 oops t\n")
    code, out, err = run_cli(capsys, "eval", bad, "--qrels", qrels, "-m", "RR")
    assert code == 2 and out == ""
    assert err == f"citeval: error: {bad}:2: score 'oops' is not a finite number\n"


def test_other_errors_exit_2(capsys, files):
    run, qrels = files
    assert run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "Nope")[0] == 2
    code, _, err = run_cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "trec_eval", "--percent"
    )
    assert code == 2 and "drop --percent" in err
    code, _, err = run_cli(capsys, "eval", run, "--dataset", "no/such/dataset", "-m", "RR")
    assert code == 2 and "no/such/dataset" in err


def test_duplicates_option(capsys, write, files):
    _, qrels = files
    dup = write("dup.trec", "c1 Q0 P15-1001 1 0.1 t\nc1 Q0 P15-1001 2 0.9 t\n")
    code, _, err = run_cli(capsys, "eval", dup, "--qrels", qrels, "-m", "RR")
    assert code == 2 and f"{dup}:2: duplicate score" in err
    code, out, err = run_cli(
        capsys, "eval", dup, "--qrels", qrels, "-m", "RR", "--duplicates", "keep_best"
    )
    assert code == 0 and "kept the best-scored copy" in err


def test_protocols_command(capsys):
    code, out, _ = run_cli(capsys, "protocols")
    assert code == 0 and "goyal2026" in out and "Success@20" in out


def test_console_script_is_installed(files):
    """The ``citeval`` script that ``pip install`` puts beside the interpreter."""
    script = Path(sys.executable).parent / "citeval"
    assert script.exists(), f"{script} missing: is the package installed in this environment?"
    run, qrels = files
    done = subprocess.run(
        [str(script), "eval", str(run), "--qrels", str(qrels), "-m", "RR", "--format", "trec_eval"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "recip_rank            \tall\t0.7500\n"


def test_module_entry_point(files):
    run, qrels = files
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "citeval_irm.cli",
            "eval",
            str(run),
            "--qrels",
            str(qrels),
            "-m",
            "RR",
            "--format",
            "trec_eval",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.endswith("0.7500\n")
