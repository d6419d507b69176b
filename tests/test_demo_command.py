"""``citeval demo``: the README's first command, on a fresh ir_datasets home, no download."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.cli.demo import DEMO_DATASET, run_demo

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out


def test_run_demo_strings_the_public_functions_together(ir_home, tmp_path) -> None:
    report = run_demo(output=tmp_path / "run.trec")
    assert report.dataset == DEMO_DATASET == "citeval/demo/test"
    assert len(report.run) == 163 * 300 and report.validation.passed
    again = citeval_irm.evaluate(tmp_path / "run.trec", DEMO_DATASET, protocol="goyal2026")
    assert again.aggregate.round(10).equals(report.evaluation.aggregate.round(10))
    assert report.crosscheck.unexplained == 0
    assert report.evaluation.protocol.name == "goyal2026"


def test_demo_prints_the_tables(ir_home, capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)  # where its report goes
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("citeval demo on citeval/demo/test: citeval demo (generated). ")
    assert "NOT real" in out
    for heading in ("1. run: BM25", "2. evaluation", "3. protocol validation", "4. cross-check"):
        assert f"\n{heading}" in out
    assert "temporal protocol, same-year papers admitted" in out
    assert "protocol goyal2026" in out and "  nDCG@300 " in out
    assert "result: the run obeys the protocol" in out
    assert "unexplained differences: 0" in out
    first_step = "  citeval baseline bm25 --dataset citeval/demo/test -k 300 -o bm25.trec --force\n"
    assert first_step in out
    assert "\n5. comparison with BM25 over titles only\n" in out
    assert "s (start-up and the report not counted).\nThe same steps one by one:\n" in out
    assert (  # the comparison step writes the report where the demo wrote it
        "--baseline bm25 --report demo-report.html --force\n" in out
    )
    report_line, done = _last_two(out)
    assert report_line == (
        f"report (scores, checks and plots in one page): {tmp_path}/demo-report.html"
    )
    assert done.startswith("done in ") and done.endswith(" s (the whole command)")
    assert _widest(out) <= 100, _wide_lines(out)  # a terminal of 100 columns, or a file


def _last_two(out: str) -> list[str]:
    """The last two things the demo says (the report's path may be on a line of its own)."""
    *_, report, done = out.replace("page):\n  ", "page): ").splitlines()
    return [report, done]


def _widest(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def _wide_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > 100]


def test_demo_reads_on_an_80_column_terminal(ir_home, capsys, monkeypatch) -> None:
    """COLUMNS=80: headings, legends and warnings wrapped at 80, the comparison's pairs
    table in two blocks of columns (differences, then p-values), each under 80; the steps
    continued with a backslash, still one command each for a shell."""
    import shlex

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["demo", "--no-report"]) == 0
    out, err = capsys.readouterr()
    assert _widest(out) <= 80 and _widest(err) <= 80, out
    pairs = out.split("  measure   pair ")[1:]
    assert len(pairs) == 2 and "d_z" in pairs[0] and "p(rand)" in pairs[1]
    assert "p(rand)" not in pairs[0] and "d_z" not in pairs[1]
    steps = out.split("The same steps one by one:\n")[1].split("\nand ")[0]
    commands = [shlex.split(line) for line in steps.replace(" \\\n", " ").splitlines()]
    assert len(commands) == 6 and all(c[0] == "citeval" for c in commands)
    assert commands[-1][-2:] == ["--baseline", "bm25"]


def test_demo_without_the_temporal_rule_shows_the_violations(ir_home, capsys) -> None:
    assert main(["demo", "--no-temporal", "-k", "50", "--no-report"]) == 0
    out = capsys.readouterr().out
    assert "NOT temporal: later papers ranked" in out
    assert "result: VIOLATIONS (later_paper, short_ranking)" in out  # 50 deep, R@300 asked
    assert (
        "warning: every ranking is shorter than the cut-off 300 of R@300 nDCG@300 (found 50 docs)"
        in out
    )


def _warnings(text: str) -> list[str]:
    """The warning lines of ``text``, each whole (the demo wraps a long one, continuing it
    indented)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("warning: "):
            out.append(line)
        elif out and out[-1] is not None and line.startswith("  ") and not line.startswith("   "):
            out[-1] += " " + line.strip()
        else:
            out.append(None)
    return [line for line in out if line is not None]


def _steps(out: str) -> list[str]:
    """The demo's steps, one command a line (a long one is continued with a backslash)."""
    steps = out.split("The same steps one by one:\n")[1].replace(" \\\n      ", " ")
    return steps.splitlines()[:6]


def test_the_footer_and_warnings_are_those_of_the_steps(
    ir_home, tmp_path, capsys, monkeypatch
) -> None:
    """The footer prints the options used, and running its steps gives the same warnings as
    the demo printed (the tie warning included)."""
    monkeypatch.chdir(tmp_path)  # where its report goes
    run = tmp_path / "run.trec"
    args = ["demo", "-k", "100", "--no-temporal", "--no-same-year", "-o", str(run)]
    assert main(args) == 0
    out = capsys.readouterr().out
    steps = _steps(out)
    assert steps == [
        f"  citeval baseline bm25 --dataset citeval/demo/test -k 100 --no-temporal "
        f"--no-same-year -o {run} --force",
        f"  citeval eval {run} --dataset citeval/demo/test --protocol goyal2026 --no-same-year",
        f"  citeval validate {run} --dataset citeval/demo/test --protocol goyal2026 --no-same-year",
        f"  citeval crosscheck {run} --dataset citeval/demo/test --protocol goyal2026",
        "  citeval baseline bm25 --dataset citeval/demo/test -k 100 --no-temporal --no-same-year "
        "--fields title -o titles.trec --force",
        f"  citeval compare {run} titles.trec --dataset citeval/demo/test --protocol goyal2026 "
        "--no-same-year --baseline run --report demo-report.html --force",
    ]
    head = out.split("3. protocol validation")[0]
    shown = _warnings(head)
    # BM25's ties, listed in trec_eval's order: said once, where the run is made
    assert not any("tied" in w for w in shown)
    assert "tie on their score, listed in" in " ".join(head.split())
    assert any("shorter than the cut-off 300" in w for w in shown)
    rerun = tmp_path / "rerun.trec"
    assert main(steps[0].split()[1:-2] + [str(rerun)]) == 0
    assert rerun.read_text() == run.read_text()
    capsys.readouterr()
    assert main(steps[1].split()[1:]) == 0
    evaluated = capsys.readouterr()
    assert _warnings(evaluated.err) == shown
    assert evaluated.out.startswith("validation against citeval/demo/test: VIOLATIONS: later_paper")


def test_the_steps_run_where_the_demo_ran_and_again(ir_home, tmp_path, capsys, monkeypatch):
    """Each printed step runs as printed in the demo's folder, twice: the demo's own files
    (its report) and the steps' outputs of the first round do not stop the second (they
    stopped the last step with 'demo-report.html: exists'). The run is named bm25, as in the
    demo's report."""
    import shlex

    monkeypatch.chdir(tmp_path)
    assert main(["demo", "-k", "50", "-q"]) == 0
    steps = _steps(capsys.readouterr().out)
    assert steps[0].endswith("-o bm25.trec --force") and "--baseline bm25" in steps[-1]
    capsys.readouterr()
    for _ in range(2):
        for step in steps:
            assert main([*shlex.split(step)[1:], "-q"]) == 0, step
            # each says a thing once: a line or two (the 50-deep run's short rankings, the
            # ties where the run is made, where the report went), none twice
            err = capsys.readouterr().err.splitlines()
            assert len(err) <= 3 and len(set(err)) == len(err), (step, err)
            assert not any("[tied_scores]" in line for line in err), step


def test_console_script_on_a_fresh_home(tmp_path) -> None:
    """As a new user runs it: the installed script, an empty ir_datasets home."""
    script = Path(sys.executable).parent / "citeval"
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "home")}
    env.pop("CITEVAL_DEMO_DIR", None)
    done = subprocess.run(
        [str(script), "demo"], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "2. evaluation" in done.stdout and "result: the run obeys the protocol" in done.stdout
    assert (tmp_path / "demo-report.html").stat().st_size > 100_000  # with its plots
    assert "[INFO]" not in done.stderr  # ir_datasets' store messages are kept quiet
    said = done.stderr.splitlines()
    assert len(said) <= 5 and len(set(said)) == len(said), said  # short, nothing twice
