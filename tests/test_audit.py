"""``citeval audit`` / ``citeval_irm.audit``: unreachable gold (the citing paper itself, outside
the pool, later), the recall ceiling at the protocol's cut-offs, duplicate papers, queries
without reachable gold; on GENERATED corpora with known answers and on the real ACL-200
split files."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from datasets_fixtures import citing_id_of, write_hatten_files, write_masterset_folder
from reference_data import acl200_split_facts, acl200_split_file

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
    result = citeval_irm.audit("citeval/acl-200", protocol="goyal2026")
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
    result = citeval_irm.audit("citeval/masterset-coreml-v1/test", protocol="masterset2026")
    baseline = result["baseline"]  # Q1: P1 and OUT1 (outside); Q2: P5
    assert baseline.unreachable == {"self": 0, "outside_pool": 1, "later": 0}
    assert baseline.ceiling["R"] == pytest.approx((1 / 2 + 1) / 2)
    assert baseline.queries == 3 and baseline.qrels == 3
    assert set(baseline.ceiling) == {"R@10", "R@50", "R@100", "R@500", "R"}
    train = citeval_irm.audit("citeval/masterset-coreml-v1/train/baseline", protocol=None)
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


def _recorded(dataset_id: str, key: str) -> str:
    from citeval_irm.datasets.catalogue import COLLECTIONS
    from citeval_irm.datasets.registry import documentation_file

    source = next(c for c in COLLECTIONS if c.dataset_id == dataset_id)
    return " ".join(documentation_file(source.documentation).get_key(dataset_id)[key].split())


def _recorded_ceilings(dataset_id: str) -> dict[bool, dict[str, float]]:
    """The YAML's audit_ceiling figures: {same_year: {split: percent}}."""
    text = _recorded(dataset_id, "audit_ceiling")
    found = {}
    for policy, train, val, test in re.findall(
        r"(admitted|not admitted) train ([\d.]+) %, val ([\d.]+) %, test ([\d.]+) %", text
    ):
        found[policy == "admitted"] = {
            "train": float(train),
            "val": float(val),
            "test": float(test),
        }
    assert set(found) == {True, False}, text
    return found


def _acl200_from_year_pairs(split: str, same_year: bool):
    """The audit of an ACL-200 split rebuilt from the vendored record of its split file's
    (citing year, cited year, self-citation) counts (tests/data/acl-200/split-files.json,
    checked against the real files by tests/test_datasets_splits.py)."""
    queries, qrels, dates = [], [], {}
    for citing_year, cited_year, own, positives, contexts in acl200_split_facts()["year_pairs"][
        split
    ]:
        assert positives == 1
        for n in range(contexts):
            query = f"{split}-{citing_year}-{cited_year}-{own}-{n}"
            citing, cited = f"C{query}", f"C{query}" if own else f"D{query}"
            queries.append((query, citing, (citing_year, 0)))
            qrels.append((query, cited, 1))
            dates[cited] = (cited_year, 0)
    return audit_split(split, queries, qrels, paper_dates=dates, cutoffs=(5, 10, 20, 50, 300),
                       same_year=same_year)  # fmt: skip


@pytest.mark.parametrize("same_year", [True, False])
def test_the_recorded_acl200_ceilings_are_the_split_files(same_year: bool) -> None:
    """hatten.yaml's audit figures for ACL-200 (shown by `citeval datasets list`), measured
    again on the real split files' record under both year policies, and its split sizes."""
    recorded = _recorded_ceilings("citeval/acl-200")[same_year]
    files = acl200_split_facts()["files"]
    for split, percent in recorded.items():
        result = _acl200_from_year_pairs(split, same_year)
        assert result.queries == files[f"{split}.json"]["contexts"]
        assert len(set(result.ceiling.values())) == 1  # one gold per context
        assert round(100 * result.ceiling["R@10"], 2) == percent, (split, result)
    text = _recorded("citeval/acl-200", "download_size")
    for name, facts in files.items():
        assert f"{name} {facts['size']:,}" in text
    assert f"{sum(f['size'] for f in files.values()) / 1e6:.1f} MB" in text


@pytest.mark.parametrize("same_year", [True, False])
def test_the_recorded_demo_ceilings_are_its_audit(demo_home, same_year: bool) -> None:
    recorded = _recorded_ceilings("citeval/demo")[same_year]
    result = citeval_irm.audit("citeval/demo", protocol="goyal2026", same_year=same_year)
    assert {s.split: round(100 * s.ceiling["R@10"], 2) for s in result.splits} == recorded


# --------------------------------------------------------------------------- beside the scores


@pytest.mark.slow
def test_validate_shows_the_audits_ceiling(generated, tmp_path, capsys) -> None:
    """The generated test split: gold 1 of 3 reachable (itself, later): validate's ceiling
    is the audit's, printed beside the result, the eval --dataset line, and the report."""
    run = tmp_path / "run.trec"
    run.write_text("".join(f"P15-1000_{d}_{n} Q0 A10-1000 1 1.0 x\n"
                           for n, (_, d) in enumerate(TEST)), encoding="utf-8")  # fmt: skip
    report = citeval_irm.validate(run, "citeval/acl-200/test", protocol="goyal2026")
    audited = citeval_irm.audit("citeval/acl-200/test", protocol="goyal2026")["test"].ceiling
    assert report.ceiling == pytest.approx(audited)
    line = "recall ceiling under this protocol (gold it makes unreachable): "
    expected = line + "R@5, R@10, R@20, R@50, R@300 <= 33.33 %"
    assert expected in str(report) and report.summary().endswith(expected)
    assert json.loads(report.format("json"))["recall_ceiling"]["R@10"] == pytest.approx(1 / 3)
    page = tmp_path / "report.md"
    args = ["eval", str(run), "--dataset", "citeval/acl-200/test", "-m", "RR R@10"]
    assert main([*args, "--report", str(page)]) == 0
    out, err = capsys.readouterr()
    assert line + "R@10 <= 33.33 %" in out + err
    markdown = page.read_text(encoding="utf-8").replace("\\<", "<")  # Markdown's escape
    assert f"run: {expected}" in markdown
    assert main(["validate", str(run), "--dataset", "citeval/acl-200/test"]) == 0
    assert expected in capsys.readouterr().out


def test_no_ceiling_line_at_100_percent_and_one_note_per_dataset_in_table(
    demo_home, tmp_path, capsys
) -> None:
    """The demo: every gold paper reachable with same-year papers admitted (no line); 94.48 %
    of the test split's without (a footnote of the table, once for its dataset)."""
    run = citeval_irm.write_run(citeval_irm.bm25_run("citeval/demo/test", 20), tmp_path / "a.trec")
    admitted = citeval_irm.validate(run, "citeval/demo/test")
    assert admitted.ceiling["R@20"] == 1.0 and admitted.ceiling_line() is None
    assert "recall ceiling" not in str(admitted) + admitted.summary()
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(
        f"system,dataset,run\na,citeval/demo/test,{run}\nb,citeval/demo/test,{run}\n",
        encoding="utf-8",
    )
    args = ["table", str(manifest), "-m", "RR R@10", "--no-same-year", "-q"]
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    note = "citeval/demo/test: recall ceiling under this protocol (gold it makes unreachable): "
    assert out.count(note + "R@10 <= 94.48 %") == 1
