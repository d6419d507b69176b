"""Every control and format character a name or an id can hold, in every text output
(issue 41, items 14 and 15): a right-to-left override (U+202E) or isolate (U+2066) makes a
terminal show the rest of its line reversed, numbers included, and ESC starts a terminal
command; each is printed as its escape (``\\u202e``), by the one escaper, in tables,
Markdown, LaTeX, the reports and the loaders' log lines. The inputs are GENERATED."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from datasets_fixtures import write_hatten_folder

from citeval_irm.cli import main
from citeval_irm.printing.escaping import (
    html_text,
    latex_comment,
    latex_text,
    markdown_text,
    plain_text,
    plot_text,
    visible,
)

RLO, LRI, ESC = "\u202e", "\u2066", "\x1b"
LIVE = {"Cc", "Cf", "Zl", "Zp"}


def live(text: str) -> list[str]:
    """The characters of ``text`` a terminal would obey (line ends of the output aside)."""
    return [c for c in text if unicodedata.category(c) in LIVE and c != "\n"]


def every_live_character() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1)
                   if unicodedata.category(chr(c)) in LIVE)  # fmt: skip


def test_every_text_format_escapes_every_control_and_format_character() -> None:
    hostile = "a" + every_live_character() + "z 12.5"
    for escape in (plain_text, markdown_text, latex_text, html_text, plot_text, latex_comment):
        shown = escape(hostile)
        assert not live(shown), (escape.__name__, live(shown)[:5])
    assert visible(f"x{RLO}y{LRI}1{ESC}[2J\U000e0001") == "x\\u202ey\\u20661\\x1b[2J\\U000e0001"
    assert visible("é ü\u00a0日本 ok") == "é ü\u00a0日本 ok"  # printable text as it is


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """Qrels and two runs whose query ids and file (run) names hold U+202E and U+2066."""
    (tmp_path / "qrels").write_text(f"q{RLO}1 0 d1 1\nq{RLO}1 0 d2 0\nq{LRI}2 0 d1 1\n")
    (tmp_path / f"run{RLO}a").write_text(
        f"q{RLO}1 Q0 d1 1 2.0 t\nq{RLO}1 Q0 d2 2 1.0 t\nq{LRI}2 Q0 d1 1 1 t\n"
    )
    (tmp_path / f"run{LRI}b").write_text(
        f"q{RLO}1 Q0 d2 1 2.0 t\nq{RLO}1 Q0 d1 2 1.0 t\nq{LRI}2 Q0 d1 1 1 t\n"
    )
    return tmp_path


def _cli(capsys, *args) -> str:
    assert main([str(a) for a in args]) == 0
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_eval_and_compare_print_no_bidirectional_control(hostile: Path, capsys) -> None:
    runs = [hostile / f"run{RLO}a", hostile / f"run{LRI}b"]
    qrels = ["--qrels", hostile / "qrels", "-m", "RR P@1"]
    out = _cli(capsys, "eval", runs[0], *qrels, "--per-query")
    assert "q\\u202e1" in out and not live(out)
    for fmt in ("table", "markdown", "latex"):
        out = _cli(capsys, "compare", *runs, *qrels, "--format", fmt, "-q",
                   "--permutations", "100", "--bootstrap", "100")  # fmt: skip
        assert "\\u202e" in out or "u202e" in out, fmt
        assert not live(out), (fmt, live(out))


@pytest.mark.slow
def test_resolve_prints_and_reports_no_bidirectional_control(
    demo_home: Path, tmp_path: Path, capsys
) -> None:
    examples = Path(__file__).resolve().parents[1] / "examples" / "generated.jsonl"
    records = [json.loads(line) for line in examples.read_text().splitlines()[:3]]
    records[0]["references"].append(f"An invented {RLO}title{LRI} 12")
    records.append({"query_id": f"unknown{RLO}query", "references": [f"x{RLO}y"]})
    generated = tmp_path / f"generated{RLO}.jsonl"
    generated.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = tmp_path / f"o{RLO}.trec"
    base = ["resolve", generated, "--dataset", "citeval/demo/test", "-o", run, "--force"]
    for fmt in ("table", "markdown"):
        out = _cli(capsys, *base, "--format", fmt)
        assert not live(out), (fmt, live(out))
    for suffix in (".md", ".txt"):
        report = tmp_path / f"report{RLO}{suffix}"
        out = _cli(capsys, *base, "--report", report, "-q")
        assert not live(out), (suffix, live(out))
        text = report.read_text(encoding="utf-8")
        assert not live(text), (suffix, live(text))


def test_a_paper_id_with_terminal_commands_is_escaped_in_audit_and_log_lines(
    tmp_path: Path, ir_home: Path
) -> None:
    """A paper id holding ESC [2J (clear the screen) and U+202E, with no year and the title
    of another paper: the loader's WARNING line (shown with -q too) and audit's duplicate
    titles line print its escapes."""
    folder = tmp_path / "acl-200"
    write_hatten_folder(folder)
    papers = json.loads((folder / "papers.json").read_text())
    evil = f"X{ESC}[2J{RLO}evil"
    papers[evil] = {"title": papers["X98-9001"]["title"], "abstract": "Synthetic."}
    (folder / "papers.json").write_text(json.dumps(papers))
    done = subprocess.run(
        [sys.executable, "-m", "citeval_irm.cli", "audit", "citeval/acl-200", "-q"],
        capture_output=True,
        text=True,
        env={**os.environ, "CITEVAL_ACL_200_DIR": str(folder)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "X\\x1b[2J\\u202eevil" in done.stdout and "duplicate titles" in done.stdout
    assert "[WARNING]" in done.stderr and "X\\x1b[2J\\u202eevil" in done.stderr
    assert not live(done.stdout) and not live(done.stderr), (live(done.stdout), done.stderr)


def test_a_usage_error_quotes_the_argument_escaped(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "run", "--qrels", "q", "-m", "RR", f"{ESC}[2J{RLO}"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: \\x1b[2J\\u202e" in err and not live(err)
