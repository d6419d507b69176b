"""Output details a reader trips over: counts that say what they count, run names without
file extensions, recipes and help as prose, aligned means, validation of unknown queries."""

from __future__ import annotations

import re

import pytest
from compare_reference import planted_runs

import citeval_irm
from citeval_irm import EvalWarning
from citeval_irm.cli import main


def test_validate_checks_the_docs_of_unknown_queries_too(demo_home, tmp_path) -> None:
    """A run for another dataset: every doc is unknown, whichever query ranks it."""
    run = tmp_path / "other.trec"
    lines = [f"X{q}_Y{q}_0 Q0 Z{q}-{d} {d + 1} {10 - d} sys" for q in range(3) for d in range(4)]
    known = next(iter(__import__("ir_datasets").load("citeval/demo/test").queries_iter()))
    lines.append(f"{known.query_id} Q0 Z9-9 1 1.0 sys")  # a known query, an unknown doc
    run.write_text("\n".join(lines) + "\n")
    report = citeval_irm.validate(run, "citeval/demo/test")
    checks = report.checks.set_index("check")
    assert checks.loc["unknown_doc", "pairs"] == 13
    assert checks.loc["unknown_doc", "queries"] == 4
    assert checks.loc["unknown_query", "queries"] == 3
    assert "unknown_doc (13 pairs in 4 queries), unknown_query (3 queries)" in report.summary()


def test_warning_counts_say_what_they_count() -> None:
    assert str(EvalWarning("x", "rows ignored", 12_345)) == "rows ignored (12,345)"
    named = EvalWarning("tied_scores", "queries with tied scores", 885, ("q1",), unit="queries")
    assert str(named) == "queries with tied scores (885 queries): q1, ..."
    assert str(named.of_run("bm25")).startswith("bm25: queries with tied scores (885 queries)")


def test_the_tie_warning_counts_queries_and_docs(tmp_path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 s\nq1 Q0 d2 2 1.0 s\nq2 Q0 d1 1 2.0 s\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    with pytest.warns(EvalWarning) as caught:
        citeval_irm.evaluate(run, qrels, "RR")
    (tie,) = [str(w.message) for w in caught if w.message.code == "tied_scores"]
    assert tie == (
        "tied scores broken by doc id, descending (trec_eval), not as listed: 2 docs (1 queries): "
        "q1"
    )
    # ties the run lists in trec_eval's order already: every tool scores them alike, no warning
    run.write_text("q1 Q0 d2 1 1.0 s\nq1 Q0 d1 2 1.0 s\nq2 Q0 d1 1 2.0 s\n")
    result = citeval_irm.evaluate(run, qrels, "RR")
    assert "tied_scores" not in {w.code for w in result.warnings}
    assert result.ties.tied_docs == 2 and result.ties.contested_docs == 0  # still counted


@pytest.mark.slow
def test_parquet_runs_are_named_without_their_extension(tmp_path) -> None:
    planted = planted_runs(tmp_path)
    citeval_irm.convert(planted["base"], tmp_path / "base.parquet")  # one file
    citeval_irm.convert(planted["better"], tmp_path / "better.parquet", partition_rows=500)
    comparison = citeval_irm.compare(
        [tmp_path / "base.parquet", f"{tmp_path / 'better.parquet'}/"], planted["qrels"], "RR"
    )
    assert comparison.names == ["base", "better"]


@pytest.mark.slow
def test_means_line_up_whether_or_not_a_letter_follows(tmp_path, capsys) -> None:
    planted = planted_runs(tmp_path)
    runs = [str(planted[name]) for name in ("base", "better")]
    # better is significantly better on RR (a letter), the same on NumQ (none)
    assert main(["compare", *runs, "--qrels", str(planted["qrels"]), "-m", "RR NumQ"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  measure"))
    table = lines[first : first + 3]  # the headers and the two measures
    assert re.search(r"\d [a-c]+\b", "".join(table[1:]))  # some mean has a letter
    assert any(re.search(r"\d\s{3,}\d", line) for line in table[1:])  # and some has none
    for column in range(2):
        starts = {
            match.start()
            for line in table[1:]
            for i, match in enumerate(re.finditer(r"\d+\.\d+", line))
            if i == column
        }
        assert len(starts) == 1, table


def test_recipes_print_quirks_as_prose(capsys) -> None:
    assert main(["recipes"]) == 0
    quirks = [line for line in capsys.readouterr().out.splitlines() if "quirks:" in line]
    assert quirks and not any("(" in line or "'" in line for line in quirks)
    assert any("duplicates=RR first_copy, R first_copy" in line for line in quirks)


def test_help_describes_the_whole_demo(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    demo = text.split(" demo ", 1)[1].split(" compare ", 1)[0]
    assert "comparison" in demo and "report" in demo
