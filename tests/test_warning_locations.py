"""Warnings are issued once per public call, at the caller's line, never from inside the
package: evaluate, the ir-measures provider, compare and make_report."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path

import ir_measures
import pytest
from ir_measures import RR
from test_streaming import citation_run

import citeval_irm
from citeval_irm import EvalWarning
from citeval_irm.report import make_report

HERE = str(Path(__file__).resolve())


def issued(call) -> list[warnings.WarningMessage]:
    """The EvalWarnings ``call()`` issues (every one, no deduplication by the filters)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, EvalWarning)]


@pytest.fixture
def files(tmp_path):
    return citation_run(tmp_path, queries=30, depth=20)


def assert_at_this_file(caught) -> None:
    assert caught
    assert {str(Path(w.filename).resolve()) for w in caught} == {HERE}


def test_evaluate_warns_at_the_callers_line(files):
    run, qrels = files
    caught = issued(lambda: citeval_irm.evaluate(run, qrels, "RR R@100"))
    assert_at_this_file(caught)
    codes = Counter(w.message.code for w in caught)
    assert set(codes) >= {"tied_scores", "run_only_queries", "short_ranking"}
    assert max(codes.values()) == 1


def test_the_provider_warns_at_the_callers_line_not_in_ir_measures(files):
    run, qrels = files
    qrels_rows = list(ir_measures.read_trec_qrels(str(qrels)))
    run_rows = list(ir_measures.read_trec_run(str(run)))
    caught = issued(lambda: ir_measures.citeval.calc_aggregate([RR], qrels_rows, run_rows))
    assert_at_this_file(caught)


def test_compare_warns_once_per_run_named_after_it(files, tmp_path):
    run, qrels = files
    other = tmp_path / "other.trec"
    other.write_text(run.read_text())
    caught = issued(lambda: citeval_irm.compare({"a": run, "b": other}, qrels, "RR"))
    assert_at_this_file(caught)
    ties = [str(w.message) for w in caught if w.message.code == "tied_scores"]
    assert len(ties) == 2 and ties[0].startswith("a: ") and ties[1].startswith("b: ")


def test_make_report_issues_each_runs_warning_once(files, tmp_path):
    run, qrels = files
    other = tmp_path / "other.trec"
    other.write_text(run.read_text())
    caught = issued(lambda: make_report({"a": run, "b": other}, qrels, measures="RR R@10"))
    assert_at_this_file(caught)
    counted = Counter(str(w.message) for w in caught)
    assert max(counted.values()) == 1
    assert sum(w.message.code == "tied_scores" for w in caught) == 2
