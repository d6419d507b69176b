"""`--unknown-year` reaches what it governs, in `citeval validate` and `citeval baseline
bm25` (a one-line break in its plumbing fails here): on a corpus whose ids carry no year
(ACL-style ids read as FullTextPeerRead, whose years come from arXiv ids only)."""

from __future__ import annotations

import pytest
from datasets_fixtures import write_hatten_folder

from citeval_irm.cli import main

DATASET = "citeval/fulltextpeerread/test"


@pytest.fixture
def undated(tmp_path, monkeypatch):
    write_hatten_folder(tmp_path / "corpus")
    monkeypatch.setenv("CITEVAL_FULLTEXTPEERREAD_DIR", str(tmp_path / "corpus"))
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.mark.parametrize("policy", ["admit", "exclude"])
def test_unknown_year_reaches_the_baseline_and_the_validation(undated, capsys, policy):
    run = undated / f"{policy}.trec"
    policy_args = ["--unknown-year", policy]
    base = ["baseline", "bm25", "--dataset", DATASET, "-k", "5", "-o", str(run), "--quiet"]
    assert main([*base, *policy_args]) == 0
    said = {"admit": "admitted for every query", "exclude": "excluded for every query"}[policy]
    assert f"docs without a year ({said})" in capsys.readouterr().err
    validate = ["validate", str(run), "--dataset", DATASET, "-m", "R@5", "--quiet"]
    assert main([*validate, *policy_args]) == 0
    assert f"docs without a year ({said})" in capsys.readouterr().out
