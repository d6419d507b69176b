"""A data row with a non-finite score (issue 41, item 16): ``q1 Q0 d1 1 inf t`` on line 1 is
a row, not a header: ``citeval eval`` says scores must be finite there and where such a run
is read (``citeval trec_eval``), never "remove the header line". A real header keeps its
advice. The files are GENERATED."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeval_irm.cli import main


@pytest.mark.parametrize("score", ["inf", "-inf", "nan", "Infinity", "-NaN", "1e999"])
@pytest.mark.parametrize("line", [1, 2])
def test_a_non_finite_score_is_no_header(tmp_path: Path, capsys, score: str, line: int) -> None:
    rows = ["q1 Q0 d2 2 1.0 t\n"]
    rows.insert(line - 1, f"q1 Q0 d1 1 {score} t\n")
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("".join(rows))
    qrels.write_text("q1 0 d1 1\n")
    assert main(["eval", str(run), "--qrels", str(qrels), "-m", "RR"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: {run}:{line}: score '{score}' is not")
    assert "header line" not in err and "a score must be a finite number here" in err
    assert "citeval trec_eval" in err and err.count("\n") == 1


def test_a_header_keeps_its_advice_and_a_label_its_reading(tmp_path: Path, capsys) -> None:
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("qid Q0 docno rank score tag\nq1 Q0 d1 1 1.0 t\n")
    qrels.write_text("q1 0 d1 1\n")
    assert main(["eval", str(run), "--qrels", str(qrels), "-m", "RR"]) == 2
    assert "this looks like a header line: remove it" in capsys.readouterr().err
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    qrels.write_text("q1 0 d1 inf\n")
    assert main(["eval", str(run), "--qrels", str(qrels), "-m", "RR"]) == 2
    err = capsys.readouterr().err
    assert "relevance label 'inf' is not a whole number (trec_eval 10.0 would read it as 0" in err
    assert "header line" not in err
