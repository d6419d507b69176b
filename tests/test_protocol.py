"""Protocol validation: one crafted violation of each kind, year policies, formats, CLI."""

from __future__ import annotations

import json

import ir_datasets
import pandas as pd
import pytest

import citeval_irm
from citeval_irm import validate
from citeval_irm.base.errors import InputError
from citeval_irm.checks.protocol import CHECKS
from citeval_irm.cli import EXIT_STRICT_FAILURE, main
from citeval_irm.datasets import CitationDoc, CitationQuery

TEST = "citeval/demo/test"
pytestmark = pytest.mark.usefixtures("demo_home")
LATER = "J16-1722"  # a 2016 paper of the demo corpus


@pytest.fixture(scope="module")
def first_query(demo_home) -> CitationQuery:
    return next(iter(ir_datasets.load(TEST).queries_iter()))


def paper_of_year(year: int, but: str = "") -> str:
    return next(
        d.doc_id
        for d in ir_datasets.load("citeval/demo").docs_iter()
        if d.year == year and d.doc_id != but
    )


def crafted_run(query: CitationQuery) -> pd.DataFrame:
    """One query's ranking with one violation of each pair check, and an unknown query."""
    old, later, same = paper_of_year(2009), LATER, paper_of_year(2015, but=query.citing_id)
    rows = [
        (query.query_id, old, 9.0),  # admissible
        (query.query_id, later, 8.0),  # published after the 2015 query paper
        (query.query_id, query.citing_id, 7.0),  # the citing paper itself
        (query.query_id, "X99-9999", 6.0),  # not a doc of the dataset
        (query.query_id, old, 5.0),  # listed again
        (query.query_id, same, 4.0),  # same year as the query paper
        ("not-a-query", old, 1.0),
    ]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def test_each_check_counts_its_violation(first_query) -> None:
    report = validate(crafted_run(first_query), TEST, same_year=True)
    assert not report.passed
    assert report.num_queries == 163 and report.num_docs == 420 and report.run_rows == 7
    counts = {check: report.count(check) for check in CHECKS}
    assert counts == {
        "later_paper": 1,
        "query_paper": 1,
        "unknown_doc": 1,
        "duplicate_doc": 1,
        "unknown_query": 1,
        "missing_query": 162,
        "short_ranking": 1,  # 6 docs, and the dataset's protocol (goyal2026) cuts at 300
        "gold_always_present": 0,  # one query: too few to tell (oracle_verdict)
    }
    pairs = report.violations.set_index("check")
    assert pairs.loc["later_paper", "doc_id"] == LATER
    assert pairs.loc["query_paper", "doc_id"] == first_query.citing_id
    assert pairs.loc["unknown_doc", "doc_id"] == "X99-9999"
    assert pairs.loc["duplicate_doc", "score"] == 5.0
    assert pairs.loc["unknown_query", "query_id"] == "not-a-query"
    table = report.per_query()
    assert table.loc[first_query.query_id].to_dict() == {
        "later_paper": 1,
        "query_paper": 1,
        "unknown_doc": 1,
        "duplicate_doc": 1,
        "unknown_query": 0,
        "missing_query": 0,
        "short_ranking": 1,
    }
    assert table.loc["not-a-query", "unknown_query"] == 1


def test_same_year_is_an_explicit_choice(first_query) -> None:
    strict = validate(crafted_run(first_query), TEST, same_year=False)
    later = strict.violations[strict.violations["check"] == "later_paper"]
    assert sorted(later["doc_id"]) == sorted([LATER, paper_of_year(2015, first_query.citing_id)])
    assert "year or later (same-year papers not admitted)" in strict.format()
    with pytest.raises(InputError, match="same_year must be True or False"):
        validate(crafted_run(first_query), TEST, same_year=None)
    default = validate(crafted_run(first_query), TEST)  # the CLI's default: same year admitted
    assert default.same_year and default.violations.equals(
        validate(crafted_run(first_query), TEST, same_year=True).violations
    )


def test_a_clean_run_passes(first_query) -> None:
    queries = list(ir_datasets.load(TEST).queries_iter())
    run = {q.query_id: {paper_of_year(2009): 1.0, paper_of_year(2002): 0.5} for q in queries}
    report = validate(run, TEST, same_year=True, measures="RR R@1 nDCG@2")
    assert report.passed and report.violations.empty and report.per_query().empty
    assert report.depth == 2
    assert "result: the run obeys the protocol" in report.format()
    assert json.loads(report.format("json"))["passed"] is True
    assert report.summary() == (
        f"validation against {TEST}: passed (8 checks, same-year papers admitted)"
    )


def test_rankings_shorter_than_the_deepest_cutoff(first_query) -> None:
    """short_ranking: the one depth check of evaluate's warning, as a validation check; the
    depth is the measures', else the protocol's, else the dataset's own protocol's."""
    queries = [q.query_id for q in ir_datasets.load(TEST).queries_iter()]
    docs = [d.doc_id for d in ir_datasets.load("citeval/demo").docs_iter() if d.year <= 2010]
    deep = {q: {d: 1.0 / (n + 1) for n, d in enumerate(docs[:20])} for q in queries}
    deep[queries[0]] = dict(list(deep[queries[0]].items())[:5])  # one ranking only 5 deep
    fine = validate(deep, TEST, measures="RR R@5")
    assert fine.passed and fine.depth == 5
    short = validate(deep, TEST, measures="RR R@5 R@10")
    assert short.count("short_ranking") == 1 and short.depth == 10
    assert short.per_query().loc[queries[0], "short_ranking"] == 1
    assert "ranking shorter than 10 docs, the deepest cut-off (R@10): found 5 docs" in str(short)
    assert short.summary() == (
        f"validation against {TEST}: VIOLATIONS: short_ranking (1 query) (details: citeval "
        "validate)"
    )
    by_dataset = validate(deep, TEST)  # the demo's own protocol: goyal2026, R@300
    assert by_dataset.depth == 300 and by_dataset.count("short_ranking") == 163
    assert "(R@300 nDCG@300): found 5 to 20 docs" in str(by_dataset)
    assert validate(deep, TEST, protocol="masterset2026").depth == 500
    # the same check behind evaluate's warning: one line for every cut-off it touches
    result = citeval_irm.evaluate(deep, TEST, "RR R@5 R@10 nDCG@10 P@20")
    found = [str(w) for w in result.warnings if w.code == "short_ranking"]
    assert found == [
        "rankings shorter than the cut-offs of R@10 nDCG@10 P@20 (found 5 docs): "
        f"those values count only the docs ranked (1 queries): {queries[0]}"
    ]
    # where a shallower cut-off has fewer short queries, how many fall short of each
    deep[queries[1]] = dict(list(deep[queries[1]].items())[:15])
    result = citeval_irm.evaluate(deep, TEST, "R@10 P@20")
    found = [str(w) for w in result.warnings if w.code == "short_ranking"]
    assert found == [
        "rankings shorter than the cut-offs of R@10 P@20 (found 5 to 15 docs; 1 "
        "shorter than 10, 2 from the cut-off 20 on): those values count only the docs ranked "
        f"(2 queries): {queries[0]}, {queries[1]}"
    ]
    # a run shallower than its measures by design (every ranking short): said so, once
    result = citeval_irm.evaluate(deep, TEST, "R@50 R@300")
    found = [str(w) for w in result.warnings if w.code == "short_ranking"]
    assert len(found) == 1 and found[0].startswith(
        "every ranking is shorter than the cut-offs of R@50/300 (found 5 to 20 docs)"
    )


class UndatedDataset:
    """A minimal ir_datasets-like dataset with one undated doc."""

    def dataset_id(self) -> str:
        return "tiny"

    def has_docs(self) -> bool:
        return True

    def has_queries(self) -> bool:
        return True

    def has_qrels(self) -> bool:
        return False

    def qrels_iter(self):
        return iter(())

    def docs_cls(self):
        return CitationDoc

    def queries_cls(self):
        return CitationQuery

    def docs_iter(self):
        yield CitationDoc("old", "", "", 2001)
        yield CitationDoc("undated", "", "", None)

    def queries_iter(self):
        yield CitationQuery("q", "text", "text", "", "paper", 2010)


def test_undated_docs_follow_unknown_year() -> None:
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["old", "undated"], "score": [2, 1]})
    admitted = validate(run, UndatedDataset(), same_year=True)
    assert admitted.dataset == "tiny" and admitted.count("later_paper") == 0
    assert [w.code for w in admitted.warnings] == ["docs_without_year"]
    assert "warning: docs without a year (admitted for every query) (1): undated" in str(admitted)
    excluded = validate(run, UndatedDataset(), same_year=True, unknown_year="exclude")
    assert excluded.count("later_paper") == 1 and "or undated" in str(excluded)


def test_a_dataset_without_queries_is_an_error() -> None:
    with pytest.raises(InputError, match="has no queries; use one of its splits: citeval/demo/"):
        validate({"q": {"a": 1.0}}, "citeval/demo", same_year=True)


def test_cli(first_query, tmp_path, capsys) -> None:
    path = tmp_path / "run.trec"
    frame = crafted_run(first_query)
    path.write_text(
        "".join(f"{q} Q0 {d} {n} {s} t\n" for n, (q, d, s) in enumerate(frame.values, 1))
    )
    assert main(["validate", str(path), "--dataset", TEST]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"validation: run {path} against {TEST}") and "VIOLATIONS" in out
    assert main(["validate", str(path), "--dataset", TEST, "--strict"]) == EXIT_STRICT_FAILURE
    assert "breaks the protocol" in capsys.readouterr().err
    code = main(["validate", str(path), "--dataset", TEST, "--no-same-year", "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["same_year"] is False
    assert {c["check"]: c["pairs"] for c in payload["checks"]}["later_paper"] == 2
