"""citeval/demo: the generated benchmark shipped in the package, read by the HAtten loader."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import ir_datasets
import pytest

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.datasets import (
    CORPORA,
    CitationDoc,
    CitationQuery,
    admissible_candidates,
    demo_corpus,
    paper_year,
)
from citeval_irm.datasets.formats.hatten import HattenDocs, corpus_file

REPO = Path(__file__).resolve().parents[1]
DEMO = "citeval/demo"
SPLIT_YEARS = {"train": set(range(2009, 2014)), "val": {2014}, "test": {2015}}


def load_make_demo():
    """scripts/make_demo.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("make_demo", REPO / "scripts" / "make_demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def make_demo():
    return load_make_demo()


def packaged(name: str) -> dict | list:
    return json.loads(corpus_file(CORPORA["demo"], name).read_text(encoding="utf-8"))


def test_files_come_from_the_package_and_regenerate_identically(make_demo, ir_home) -> None:
    corpus = CORPORA["demo"]
    path = corpus_file(corpus, "papers.json")
    assert path.parent == Path(citeval_irm.__file__).parent / "datasets" / "demo"
    assert not (ir_home / "citeval" / "demo" / "papers.json").exists()  # nothing copied
    for target, text in make_demo.outputs().items():
        assert target.read_text(encoding="utf-8") == text, f"{target} is stale: make_demo.py"
    assert make_demo.main(["--check"]) == 0


def test_make_demo_fails_when_the_published_counts_differ(make_demo, monkeypatch) -> None:
    counts = dataclasses.replace(demo_corpus.DEMO.counts, val=1)
    monkeypatch.setattr(demo_corpus, "DEMO", dataclasses.replace(demo_corpus.DEMO, counts=counts))
    assert make_demo.count_problems(make_demo.build()) == [
        "val: generated 155, demo_corpus.py says 1"
    ]
    assert make_demo.main(["--check"]) == 1


def test_counts_match_metadata_and_published_counts(ir_home) -> None:
    counts = CORPORA["demo"].counts
    assert len(packaged("papers.json")) == counts.docs == 420
    contexts = packaged("contexts.json")
    assert len(contexts) == counts.train + counts.val + counts.test
    for split in ("train", "val", "test"):
        dataset = ir_datasets.load(f"{DEMO}/{split}")
        assert dataset.metadata()["queries"]["count"] == counts.split(split)
        assert dataset.queries_count() == counts.split(split)
        assert dataset.docs_count() == counts.docs
    assert 900 <= len(contexts) <= 1100


def test_documentation_says_it_is_generated() -> None:
    doc = ir_datasets.load(f"{DEMO}/test").documentation()
    assert doc["pretty_name"] == "citeval demo (generated)"
    assert "NOT real data" in doc["desc"] and "GENERATED" in doc["source"]
    assert "420 papers and 966 citation contexts" in doc["desc"]
    assert "make_demo.py" in doc["source"] and doc["split"].startswith("Test split")
    assert "goyal2026" in doc["official_measures"]
    # the real corpora keep their own documentation
    assert "HAtten" in ir_datasets.load("citeval/acl-200").documentation()["source"]


def test_records_through_the_loader(ir_home) -> None:
    dataset = ir_datasets.load(f"{DEMO}/test")
    queries = list(dataset.queries_iter())
    papers = packaged("papers.json")
    assert len(queries) == 163 and all(isinstance(q, CitationQuery) for q in queries)
    first = queries[0]
    assert first.text.count("TARGETCIT") == 1 and first.year == 2015
    assert first.left_context + "TARGETCIT" + first.right_context == first.text
    store = dataset.docs_store()
    citing = store.get(first.citing_id)
    assert isinstance(citing, CitationDoc) and citing.year == 2015
    assert citing.title == papers[first.citing_id]["title"]
    assert citing.default_text() == f"{citing.title} {citing.abstract}"
    qrels = list(dataset.qrels_iter())
    assert [q.query_id for q in qrels] == [q.query_id for q in queries]
    assert all(q.relevance == 1 for q in qrels)
    assert (ir_home / "citeval" / "demo" / "docs.pklz4").exists()  # stores in the home


def test_temporal_split_and_year_facts() -> None:
    contexts = packaged("contexts.json")
    years = {pid: paper_year(pid, "acl") for pid in packaged("papers.json")}
    assert None not in years.values()
    assert min(years.values()) == 2000 and max(years.values()) == 2016
    citing_years = set()
    for split, allowed in SPLIT_YEARS.items():
        entries = packaged(f"{split}.json")
        for entry in entries:
            context = contexts[entry["context_id"]]
            citing, cited = context["citing_id"], context["refid"]
            assert entry["positive_ids"] == [cited]
            assert entry["context_id"].startswith(f"{citing}_{cited}_")
            assert years[citing] in allowed
            assert years[cited] <= years[citing] and cited != citing
            citing_years.add(years[citing])
    assert 2016 not in citing_years  # 2016 papers are candidates only
    same_year = sum(years[c["refid"]] == years[c["citing_id"]] for c in contexts.values()) / len(
        contexts
    )
    assert 0.01 < same_year < 0.1
    markers = Counter(c["masked_text"].count("TARGETCIT") for c in contexts.values())
    assert markers == {1: len(contexts)}
    assert any("OTHERCIT" in c["masked_text"] for c in contexts.values())


def test_admissible_candidates_on_the_demo(ir_home) -> None:
    allowed = admissible_candidates(f"{DEMO}/test", same_year=True)
    query = next(iter(ir_datasets.load(f"{DEMO}/test").queries_iter()))
    docs = allowed.doc_ids(query.query_id)
    assert query.citing_id not in docs
    assert all(paper_year(d, "acl") <= 2015 for d in docs)
    assert len(docs) == 420 - 15 - 1  # not the 2016 papers, not the citing paper
    assert allowed.warnings == []
    mask = allowed.admissible_docs(query.query_id)  # over every doc, in doc id order
    positions = allowed.doc_positions([*docs, query.citing_id, "no-such-paper"])
    assert mask.sum() == len(docs) and mask[positions[: len(docs)]].all()
    assert not mask[positions[-2]] and positions[-1] == -1
    assert allowed.mask([query.query_id] * 2, [docs[0], query.citing_id]).tolist() == [True, False]


def test_env_folder_overrides_the_package(tmp_path, ir_home, monkeypatch) -> None:
    folder = tmp_path / "mydemo"
    folder.mkdir()
    for name in ("papers.json", "contexts.json", "train.json", "val.json", "test.json"):
        (folder / name).write_bytes(corpus_file(CORPORA["demo"], name).read_bytes())
    papers = packaged("papers.json")
    paper_id = next(iter(papers))
    papers[paper_id]["title"] = "A changed title"
    (folder / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    monkeypatch.setenv("CITEVAL_DEMO_DIR", str(folder))
    assert ir_datasets.load(DEMO).docs_store().get(paper_id).title == "A changed title"


def test_missing_packaged_file_is_a_clear_error(monkeypatch, ir_home) -> None:
    broken = dataclasses.replace(CORPORA["demo"], packaged="no-such-folder")
    with pytest.raises(citeval_irm.datasets.DataNotFoundError, match="reinstall citeval-irm"):
        list(HattenDocs(broken).docs_iter())


def test_cli_export(ir_home, capsys) -> None:
    assert main(["datasets", "export", f"{DEMO}/test", "qrels"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 163 and lines[0].endswith(" 1")
    assert main(["datasets", "lookup", DEMO, "J16-1722", "--format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out)["year"] == 2016
