"""validate's gold_always_present check (oracle insertion of the gold paper), on the demo."""

from __future__ import annotations

import pytest
from datasets_fixtures import gold_inserted

import citeval_irm
from citeval_irm.checks.protocol import ORACLE_MIN_QUERIES
from citeval_irm.cli import EXIT_STRICT_FAILURE, main

DEMO = "citeval/demo/test"


@pytest.fixture(scope="module")
def runs(demo_home, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oracle_runs")
    bm25 = citeval_irm.bm25_run(DEMO, 300, show_progress=False)
    qrels = citeval_irm.read_qrels(DEMO).frame
    inserted = gold_inserted(bm25.frame, qrels, 300)
    whole_pool = citeval_irm.bm25_run(DEMO, 10_000, show_progress=False)
    return {
        "bm25": citeval_irm.write_run(bm25, folder / "bm25.trec"),
        "inserted": citeval_irm.write_run(inserted, folder / "inserted.trec"),
        "pool": citeval_irm.write_run(whole_pool, folder / "pool.trec"),
        "qrels": qrels,
    }


def codes(report) -> list[str]:
    return [w.code for w in report.warnings]


def test_a_first_stage_that_misses_gold_is_not_flagged(runs):
    report = citeval_irm.validate(runs["bm25"], DEMO)
    assert "gold_always_present" not in codes(report) and report.passed


def test_the_gold_inserted_run_is_a_warning_with_counts_and_strict_a_violation(runs):
    report = citeval_irm.validate(runs["inserted"], DEMO)
    warning = next(w for w in report.warnings if w.code == "gold_always_present")
    with_gold = runs["qrels"].loc[runs["qrels"]["relevance"] > 0, "query_id"].nunique()
    assert warning.count == with_gold >= ORACLE_MIN_QUERIES
    assert report.count("gold_always_present") == 0  # a warning, not a violation
    assert "warning: gold_always_present (163 queries)" in report.summary()
    strict = citeval_irm.validate(runs["inserted"], DEMO, strict=True)
    assert strict.count("gold_always_present") == warning.count and not strict.passed


def test_rankings_of_the_whole_pool_hold_the_gold_by_construction(runs):
    """A ranking of every admissible candidate cannot miss an admissible gold paper: not
    evidence of insertion, so not counted."""
    report = citeval_irm.validate(runs["pool"], DEMO)
    assert "gold_always_present" not in codes(report)


def test_the_check_through_the_cli(runs, capsys):
    assert main(["validate", str(runs["inserted"]), "--dataset", DEMO, "-q"]) == 0
    out = capsys.readouterr().out
    assert "warning: a gold paper is ranked for all 163 queries" in " ".join(out.split())
    code = main(["validate", str(runs["inserted"]), "--dataset", DEMO, "--strict", "-q"])
    assert code == EXIT_STRICT_FAILURE
    assert "gold_always_present)\n" in capsys.readouterr().out.split("result: VIOLATIONS")[1]
