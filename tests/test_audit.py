"""``citeval audit`` / ``citeval_irm.audit``: unreachable gold (the citing paper itself, outside
the pool, later), the recall ceiling at the protocol's cut-offs, duplicate papers, queries
without reachable gold; on GENERATED corpora with known answers and on the real ACL-200
split files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from datasets_fixtures import citing_id_of, write_hatten_files, write_masterset_folder
from reference_data import acl200_split_file

import citeval_irm
from citeval_irm.checks.audit import audit_split, normalised_title
from citeval_irm.cli import main
from citeval_irm.datasets import acl_anthology_date

# GENERATED: the citing paper P15-1000 (2015) and its gold: an earlier paper (reachable),
# itself, a later one (2016); D15-4000 repeats A10-1000's title (a duplicate).
PAPERS = {
    "A10-1000": "Parsing with Graphs",
    "B12-2000": "Another Paper",
    "P15-1000": "The Citing Paper",
    "W16-5000": "From the Future",
    "D15-4000": "parsing  with GRAPHS!",
    "P14-7000": "A val paper",
    "P13-8000": "A train paper",
}
TEST = [("P15-1000", "A10-1000"), ("P15-1000", "P15-1000"), ("P15-1000", "W16-5000")]


def _write(folder: Path) -> None:
    splits = {"test": TEST, "val": [("P14-7000", "B12-2000")], "train": [("P13-8000", "A10-1000")]}
    contexts, entries = {}, {}
    for split, pairs in splits.items():
        entries[split] = []
        for n, (citing, cited) in enumerate(pairs):
            cid = f"{citing}_{cited}_{n}"
            contexts[cid] = {"masked_text": "x TARGETCIT y", "citing_id": citing, "refid": cited}
            entries[split].append({"context_id": cid, "positive_ids": [cited]})
    papers = {pid: {"title": t, "abstract": ""} for pid, t in PAPERS.items()}
    write_hatten_files(folder, papers, contexts, entries)


@pytest.fixture
def generated(tmp_path: Path, ir_home: Path, monkeypatch):
    folder = tmp_path / "generated"
    folder.mkdir()
    _write(folder)
    monkeypatch.setenv("CITEVAL_ACL_200_DIR", str(folder))
    return folder


def test_known_unreachable_gold_and_ceiling(generated) -> None:
    result = citeval_irm.audit("citeval/acl-200", "goyal2026")
    test = result["test"]
    assert (test.queries, test.qrels) == (3, 3)
    assert test.unreachable == {"self": 1, "outside_pool": 0, "later": 1}
    assert test.queries_without_reachable_gold == 2
    assert test.ceiling == {
        "R@5": pytest.approx(1 / 3), "R@10": pytest.approx(1 / 3), "R@20": pytest.approx(1 / 3),
        "R@50": pytest.approx(1 / 3), "R@300": pytest.approx(1 / 3), "R": pytest.approx(1 / 3),
    }  # fmt: skip
    assert result["val"].ceiling["R"] == 1.0 and result["train"].unreachable["later"] == 0
    assert result.duplicates == [("A10-1000", "D15-4000")]
    # same year not admitted: nothing changes here (the gold of 2015 is the citing paper)
    strict = citeval_irm.audit("citeval/acl-200/test", same_year=False)
    assert [s.split for s in strict.splits] == ["test"]
    assert strict["test"].unreachable == {"self": 1, "outside_pool": 0, "later": 1}
    # one line, scipy style; a frame; the table
    line = str(result)
    assert "\n" not in line and line.startswith("DatasetAudit(dataset='citeval/acl-200'")
    assert "SplitAudit(split='test', queries=3, qrels=3, unreachable_gold=2" in line
    frame = result.to_frame()
    assert frame.loc["test", "unreachable_later"] == 1
    assert frame.loc["test", "ceiling_R@10"] == pytest.approx(1 / 3)
    table = result.format("table")
    assert "33.33%" in table and "duplicate titles: 1 groups (e.g. A10-1000 = D15-4000)" in table
    assert json.loads(result.format("json"))["splits"][2]["unreachable"]["self"] == 1


def test_cli(generated, capsys) -> None:
    assert main(["audit", "citeval/acl-200", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["protocol"] == "goyal2026"
    assert main(["audit", "citeval/acl-200/tset"]) == 2
    assert "citeval/acl-200/test" in capsys.readouterr().err


def test_outside_the_pool_on_masterset(tmp_path: Path, ir_home: Path, monkeypatch) -> None:
    write_masterset_folder(tmp_path / "ms")
    monkeypatch.setenv("CITEVAL_MASTERSET_COREML_V1_DIR", str(tmp_path / "ms"))
    result = citeval_irm.audit("citeval/masterset-coreml-v1/test", "masterset2026")
    baseline = result["baseline"]  # Q1: P1 and OUT1 (outside); Q2: P5
    assert baseline.unreachable == {"self": 0, "outside_pool": 1, "later": 0}
    assert baseline.ceiling["R"] == pytest.approx((1 / 2 + 1) / 2)
    assert baseline.queries == 3 and baseline.qrels == 3
    assert set(baseline.ceiling) == {"R@10", "R@50", "R@100", "R@500", "R"}
    train = citeval_irm.audit("citeval/masterset-coreml-v1/train/baseline", None)
    assert train["baseline"].unreachable["self"] == 1  # P7 cites itself


def test_audit_split_without_papers_and_at_a_cutoff() -> None:
    queries = [("q1", "c1", (2015, 0)), ("q2", "c2", None)]
    qrels = [("q1", f"d{i}", 1) for i in range(4)] + [("q1", "x", 0), ("q2", "c2", 1)]
    result = audit_split("s", queries, qrels, cutoffs=(2,))
    assert result.unreachable == {"self": 1, "outside_pool": None, "later": None}
    assert result.ceiling["R@2"] == pytest.approx((2 / 4 + 0) / 2)
    assert result.ceiling["R"] == pytest.approx(0.5)
    assert normalised_title("  Deep-Learning: A Survey! ") == "deep learning a survey"
    empty = audit_split("s", queries, [])
    assert math.isnan(empty.ceiling["R"]) and empty.queries_without_reachable_gold == 0


FACTS = [("train", 8, 4), ("val", 7, 0), ("test", 0, 0)]  # the hatten.yaml facts


@pytest.mark.parametrize(("split", "own", "later"), FACTS)
def test_real_acl200_split_files(split: str, own: int, later: int) -> None:
    """The README's facts of the real split files: contexts citing the citing paper itself
    (train 8, val 7) and a later paper (train 4), found by the audit's rules."""
    entries = json.loads(acl200_split_file(split).read_text(encoding="utf-8"))

    def key(paper_id: str):
        date = acl_anthology_date(paper_id)
        return None if date is None else (date.year, 0)

    queries, qrels, dates = [], [], {}
    for entry in entries:
        (cited,) = entry["positive_ids"]
        citing = citing_id_of(entry["context_id"], cited)
        queries.append((entry["context_id"], citing, key(citing)))
        qrels.append((entry["context_id"], cited, 1))
        dates[cited] = key(cited)
    result = audit_split(split, queries, qrels, paper_dates=dates, cutoffs=(5, 300))
    assert result.unreachable == {"self": own, "outside_pool": None, "later": later}
    assert result.queries == result.qrels == len(entries)
    expected = 1 - (own + later) / len(entries)
    assert result.ceiling["R@5"] == pytest.approx(expected) == result.ceiling["R"]
    assert result.queries_without_reachable_gold == own + later
