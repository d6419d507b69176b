"""Every warning has a code and a class: a terminal line short enough to read, each line
once per command, silenced by ``--quiet-warning CODE`` on the command line or a
:mod:`warnings` filter on its class in Python."""

from __future__ import annotations

import ast
import pickle
import warnings
from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.base.choices import WARNING_CODES
from citeval_irm.base.errors import EvalWarning, TiedScoresWarning, warning_class
from citeval_irm.cli import main

PACKAGE = Path(citeval_irm.__file__).parent


def codes_made_by_the_package() -> set[str]:
    """The codes of every EvalWarning(...) the package makes with a literal code, and the
    two it makes from a file's kind (``{kind}_comment_lines``) or a module constant."""
    found = {"run_comment_lines", "qrels_comment_lines", "short_ranking"}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node, "func", None)
            name = getattr(called, "id", getattr(called, "attr", None))
            literal = isinstance(node, ast.Call) and node.args and name == "EvalWarning"
            if literal and isinstance(node.args[0], ast.Constant):
                found.add(node.args[0].value)
    return found


def test_every_code_the_package_warns_with_is_listed():
    assert codes_made_by_the_package() <= set(WARNING_CODES)


def test_each_code_has_its_class_and_survives_pickling():
    tie = EvalWarning("tied_scores", "tied scores", 3, ("q1",), unit="queries")
    assert type(tie) is TiedScoresWarning is warning_class("tied_scores")
    other = EvalWarning("missing_queries", "qrels queries the run does not rank", 2)
    assert type(other).__name__ == "MissingQueriesWarning" and isinstance(other, EvalWarning)
    assert not isinstance(other, TiedScoresWarning)
    again = pickle.loads(pickle.dumps(tie))
    assert again == tie and type(again) is TiedScoresWarning


def test_a_filter_on_the_class_silences_that_kind_alone(tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 2 1.0 x\nq3 Q0 d1 1 1.0 x\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", TiedScoresWarning)
        result = citeval_irm.evaluate(run, qrels, "RR")
    codes = {w.message.code for w in caught}
    assert "tied_scores" in {w.code for w in result.warnings}  # the result keeps it
    assert "tied_scores" not in codes and {"missing_queries", "run_only_queries"} <= codes


@pytest.fixture
def demo_run(demo_home, tmp_path):
    """The demo's BM25 run with each ranking's lines reversed: its ties listed out of
    trec_eval's order (the baseline lists them in it, which needs no warning)."""
    path = tmp_path / "bm25.trec"
    assert main(["baseline", "bm25", "--dataset", "citeval/demo/test", "-o", str(path), "-q"]) == 0
    path.write_text("".join(reversed(path.read_text().splitlines(keepends=True))))
    return path


def test_the_tie_warning_is_one_short_line_once_and_can_be_silenced(demo_run, capsys):
    capsys.readouterr()
    args = ["compare", f"a={demo_run}", f"b={demo_run}", "--dataset", "citeval/demo/test"]
    assert main([*args, "-m", "RR", "-q", "--permutations", "100", "--bootstrap", "100"]) == 0
    ties = [line for line in capsys.readouterr().err.splitlines() if "[tied_scores]" in line]
    assert len(ties) == 2 and all(len(line) <= 120 for line in ties)  # one per run, no ids
    assert "C15-" not in "".join(ties)
    evaluated = ["eval", str(demo_run), "--dataset", "citeval/demo/test", "-m", "RR", "-q"]
    assert main(evaluated) == 0
    assert capsys.readouterr().err.count("[tied_scores]") == 1
    assert main([*evaluated, "--quiet-warning", "tied_scores"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_an_unknown_code_names_the_close_one(demo_run, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(demo_run), "--qrels", str(demo_run), "-m", "RR",
              "--quiet-warning", "tied_score"])  # fmt: skip
    assert exit_.value.code == 2
    assert "unknown warning code 'tied_score'; did you mean tied_scores" in capsys.readouterr().err


def test_an_unknown_citeval_id_names_the_close_ones_from_ir_datasets_itself():
    import ir_datasets

    with pytest.raises(KeyError) as found:  # ir_datasets' own error type for an unknown id
        ir_datasets.load("citeval/acl200/test")
    assert "did you mean citeval/acl-200/test" in str(found.value)
    assert found.value.__cause__ is None and found.value.__context__ is None


def test_a_missing_corpus_says_what_to_do_on_one_line(tmp_path, monkeypatch, capsys):
    """The first error a user meets without the files: real words, no literal backslash-n,
    the command to run in backticks."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CITEVAL_REFSEER_DIR", raising=False)
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    assert main(["eval", str(run), "--dataset", "citeval/refseer/test", "-m", "RR", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and err.count("\n") == 1 and "\\n" not in err
    assert "`citeval import refseer DIR`" in err
