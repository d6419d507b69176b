"""Admissible candidates: temporal bound, the explicit same-year choice, no self-citation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from datasets_fixtures import write_hatten_folder
from reference_data import acl200_split_facts

from citeval_irm.base.errors import InputError
from citeval_irm.datasets import AdmissibleCandidates, admissible_candidates, paper_year


def _real_split_candidates(split: str, *, same_year: bool):
    """Contexts with the (citing year, cited year, self-citation) of every context of the
    real split (recorded in tests/data; SYNTHETIC ids carrying those years): docs are every
    positive and citing paper, queries the contexts. Returns the candidates and the
    (query, positive) pairs."""
    pairs, citing, papers = [], {}, {}
    for row, (citing_year, cited_year, own, _, count) in enumerate(
        acl200_split_facts()["year_pairs"][split]
    ):
        for n in range(count):
            query_paper = f"Q{row}-{n}"
            cited = query_paper if own else f"D{row}-{n}"
            papers.update({query_paper: citing_year, cited: cited_year})
            pairs.append((f"{query_paper}_{cited}_0", cited))
            citing[pairs[-1][0]] = query_paper
    candidates = AdmissibleCandidates(
        papers.items(),
        ((qid, citing[qid], papers[citing[qid]]) for qid, _ in pairs),
        same_year=same_year,
    )
    return candidates, pairs


@pytest.mark.parametrize(
    ("split", "same_year", "inadmissible"),
    [
        ("test", True, 0),
        ("test", False, 343),  # the same-year citations
        ("val", True, 7),  # self-citations: never admissible
        ("train", True, 12),  # 8 self-citations and 4 citations of a later paper
    ],
)
def test_positives_of_the_real_splits(split: str, same_year: bool, inadmissible: int) -> None:
    candidates, pairs = _real_split_candidates(split, same_year=same_year)
    mask = candidates.mask([q for q, _ in pairs], [d for _, d in pairs])
    assert mask.dtype == bool and len(mask) == len(pairs)
    assert int((~mask).sum()) == inadmissible
    assert candidates.warnings == []


@pytest.fixture
def fixture_candidates(tmp_path: Path, ir_home: Path, monkeypatch):
    folder = tmp_path / "acl"
    written = write_hatten_folder(folder, per_split=10)
    monkeypatch.setenv("CITEVAL_ACL_200_DIR", str(folder))
    return written


def test_from_a_registered_dataset(fixture_candidates) -> None:
    papers = fixture_candidates["papers"]
    strict = admissible_candidates("citeval/acl-200/test", same_year=False)
    lenient = admissible_candidates("citeval/acl-200/test", same_year=True)
    query = fixture_candidates["splits"]["test"][0]["context_id"]  # P15-2138_N04-1019_0
    assert strict.max_year(query) == 2014 and lenient.max_year(query) == 2015
    years = {p: paper_year(p, "acl") for p in papers}
    assert strict.doc_ids(query) == sorted(p for p in papers if years[p] <= 2014)
    assert lenient.doc_ids(query) == sorted(p for p in papers if p != "P15-2138")
    assert "P15-2138" in papers  # the citing paper is a doc, never its own candidate
    assert not lenient.is_admissible(query, "P15-2138")
    assert lenient.is_admissible(query, "N04-1019") and lenient.is_admissible(query, "X98-9001")
    assert not lenient.is_admissible(query, "not-a-doc")
    val = admissible_candidates("citeval/acl-200/val", same_year=True)
    val_query = fixture_candidates["splits"]["val"][0]["context_id"]
    assert all(years[d] <= 2014 for d in val.doc_ids(val_query))
    assert len(val) == 10 and val.doc_count == len(papers)


def test_mask_matches_the_predicate(fixture_candidates) -> None:
    candidates = admissible_candidates("citeval/acl-200/train", same_year=False)
    queries = list(candidates.queries["query_id"])
    docs = list(fixture_candidates["papers"]) + ["unknown-doc"]
    pairs = [(q, d) for q in queries for d in docs]
    mask = candidates.mask([q for q, _ in pairs], [d for _, d in pairs])
    assert mask.tolist() == [d in set(candidates.doc_ids(q)) for q, d in pairs]
    assert mask.any() and not mask.all()


def test_same_year_is_an_explicit_choice(fixture_candidates) -> None:
    with pytest.raises(TypeError):
        admissible_candidates("citeval/acl-200/test")  # type: ignore[call-arg]
    with pytest.raises(InputError, match="same_year must be True or False"):
        AdmissibleCandidates([], [], same_year=None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown_year must be one of"):
        AdmissibleCandidates([], [], same_year=True, unknown_year="maybe")
    with pytest.raises(InputError, match="has no queries; use one of its splits: citeval/acl-200/"):
        admissible_candidates("citeval/acl-200", same_year=True)


def test_unknown_years_follow_the_policy() -> None:
    docs = [("a", None), ("b", 2001), ("c", 2010), ("q", None)]
    queries = [("q1", "q", 2005), ("q2", "q", None)]
    admit = AdmissibleCandidates(docs, queries, same_year=True, unknown_year="admit")
    exclude = AdmissibleCandidates(docs, queries, same_year=True, unknown_year="exclude")
    assert admit.doc_ids("q1") == ["a", "b"]
    assert exclude.doc_ids("q1") == ["b"]
    assert admit.doc_ids("q2") == exclude.doc_ids("q2") == ["a", "b", "c"]  # no bound
    assert admit.max_year("q2") is None
    warnings = {w.code: w for w in admit.warnings}
    assert warnings["docs_without_year"].count == 2
    assert "admitted" in warnings["docs_without_year"].message
    assert warnings["queries_without_year"].examples == ("q2",)
    assert exclude.mask(["q1", "q1", "q2"], ["a", "q", "c"]).tolist() == [False, False, True]


def test_bad_inputs_are_named() -> None:
    with pytest.raises(InputError, match="doc id 'a' occurs more than once"):
        AdmissibleCandidates([("a", 1), ("a", 2)], [], same_year=True)
    with pytest.raises(InputError, match="query id 'q' occurs more than once"):
        AdmissibleCandidates([], [("q", "c", 1), ("q", "c", 1)], same_year=True)
    candidates = AdmissibleCandidates([("a", 1)], [("q", "c", 1)], same_year=True)
    with pytest.raises(InputError, match="unknown query 'x'"):
        candidates.doc_ids("x")
    with pytest.raises(InputError, match="1 query id"):
        candidates.mask(["x"], ["a"])
    empty = AdmissibleCandidates([], [("q", "c", 1)], same_year=True)
    assert empty.mask(["q"], ["a"]).tolist() == [False]
    assert isinstance(empty.mask(["q"], ["a"]), np.ndarray)


def test_month_precision() -> None:
    docs = [("a", 2015, 2), ("b", 2015, 3), ("c", 2015, 4), ("d", 2015, None), ("q", 2014, 12)]
    queries = [("q1", "q", 2015, 3), ("q2", "x", 2015, None)]
    strict = AdmissibleCandidates(docs, queries, same_year=False, precision="month")
    # "q" (December 2014) is the citing paper; "d" has no month: admitted by default
    assert strict.doc_ids("q1") == ["a", "d"]
    assert strict.max_date("q1") == (2015, 2) and strict.max_year("q1") == 2015
    assert strict.max_date("q2") is None  # a year without a month: no bound
    same = AdmissibleCandidates(docs, queries, same_year=True, precision="month")
    assert same.doc_ids("q1") == ["a", "b", "d"]
    codes = {w.code: w for w in strict.warnings}
    assert codes["docs_without_year"].examples == ("d",)
    assert "a year and month" in codes["queries_without_year"].message
    excluded = AdmissibleCandidates(
        docs, queries, same_year=True, unknown_year="exclude", precision="month"
    )
    assert excluded.doc_ids("q1") == ["a", "b"]
    assert "c" in excluded.doc_ids("q2")  # a query without a month has no bound
    assert list(strict.mask(["q1", "q1"], ["a", "c"])) == [True, False]
    with pytest.raises(InputError, match="precision must be one of"):
        AdmissibleCandidates(docs, queries, same_year=True, precision="day")
