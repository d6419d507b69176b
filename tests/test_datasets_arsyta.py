"""ArSyTa through the full loader: both layouts (the Hub's file names and the SymTax code's),
its fields, month-precision dates, facets a release lacks, import."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import (
    ARSYTA_CONTEXTS,
    ARSYTA_FILES,
    SPLITS,
    arsyta_context_id,
    write_arsyta_folder,
)

import citeval_irm
from citeval_irm.base.downloads import read_record
from citeval_irm.base.errors import InputError
from citeval_irm.cli import main
from citeval_irm.datasets import (
    CORPORA,
    ArsytaDoc,
    ArsytaQuery,
    PublishedCounts,
    admissible_candidates,
    import_dataset,
)
from citeval_irm.datasets import sources as sources_module
from citeval_irm.datasets.formats import hatten

ARSYTA = "citeval/arsyta"
REVISION = "a7bdfcadf220960fb0fde144bdb2ddfaf3233b13"


@pytest.fixture
def arsyta_folder(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch):
    """The fixture corpus, read in place through CITEVAL_ARSYTA_DIR."""
    folder = tmp_path / "arsyta"
    written = write_arsyta_folder(folder)
    monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(folder))
    return folder, written


@pytest.fixture
def fresh_notices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget which licence notices this process has shown."""
    monkeypatch.setattr(sources_module, "_NOTICES_SHOWN", set())


def test_docs_have_month_and_categories(arsyta_folder, ir_home: Path) -> None:
    _, written = arsyta_folder
    dataset = ir_datasets.load(ARSYTA)
    assert dataset.docs_cls() is ArsytaDoc
    docs = {doc.doc_id: doc for doc in dataset.docs_iter()}
    assert list(docs) == list(written["papers"])
    assert docs["1503.01234"] == ArsytaDoc(
        "1503.01234",
        "Synthetic title 1503.01234",
        "Synthetic abstract of 1503.01234.",
        2015,
        3,
        ("cs.CL", "cs.LG"),
    )
    old_style = dataset.docs_store().get("hep-th/9901001")
    assert (old_style.year, old_style.month, old_style.categories) == (1999, 1, ("hep-th",))
    assert old_style.default_text() == "Synthetic title hep-th/9901001 Synthetic abstract of " + (
        "hep-th/9901001."
    )
    assert (ir_home / "citeval" / "arsyta" / "docs.pklz4").is_dir()


def test_queries_keep_heading_and_month(arsyta_folder) -> None:
    for split in SPLITS:
        dataset = ir_datasets.load(f"{ARSYTA}/{split}")
        assert dataset.queries_cls() is ArsytaQuery
        queries = list(dataset.queries_iter())
        expected = [c for c in ARSYTA_CONTEXTS if c[0] == split]
        assert [q.query_id for q in queries] == [arsyta_context_id(c[1], c[2]) for c in expected]
        for query, (_, citing, _, heading) in zip(queries, expected):
            assert query.heading == heading and query.citing_id == citing
            assert (query.year, query.month) == (2000 + int(citing[:2]), int(citing[2:4]))
            assert query.left_context + "TARGETCIT" + query.right_context == query.text
        qrels = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
        assert qrels == [(arsyta_context_id(c[1], c[2]), c[2], 1) for c in expected]


def _read_positions(path: Path) -> list[int]:
    """Where this process's open handles on ``path`` are (Linux ``/proc``): a streamed
    file is open part-way through, a loaded one is closed or at its end."""
    positions = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                info = Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines()
                positions.append(int(info[0].split()[1]))
        except OSError:
            continue
    return positions


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs Linux /proc")
def test_train_split_is_streamed(arsyta_folder, monkeypatch) -> None:
    """The split file is read entry by entry (queries in batches of context look-ups): when
    the first judgement and query come, the reader is part-way through a 3 MB split file
    (json.load would have read all of it first)."""
    folder, written = arsyta_folder
    contexts, entries = written["contexts"], []
    template = next(iter(contexts.values()))
    for n in range(40_000):
        context_id = f"1503.01234_1411.00001_{n + 10}"
        contexts[context_id] = template
        entries.append({"context_id": context_id, "positive_ids": ["1411.00001"]})
    (folder / "contexts_new_head.json").write_text(json.dumps(contexts), encoding="utf-8")
    (folder / "train_data.json").write_text(json.dumps(entries), encoding="utf-8")
    counts = dataclasses.replace(CORPORA["arsyta"].counts, train=len(entries))
    monkeypatch.setitem(CORPORA, "arsyta", dataclasses.replace(CORPORA["arsyta"], counts=counts))
    split = (folder / "train_data.json").resolve()
    size = split.stat().st_size
    dataset = ir_datasets.load(f"{ARSYTA}/train")
    qrels = dataset.qrels_iter()
    assert next(qrels).query_id == entries[0]["context_id"]
    assert [0 < at < size / 2 for at in _read_positions(split)] == [True]
    monkeypatch.setattr(hatten, "_LOOKUP_BATCH", 2)  # 5,000 look-ups per batch otherwise
    queries = dataset.queries_iter()
    assert next(queries).query_id == entries[0]["context_id"]
    assert sorted(0 < at < size / 2 for at in _read_positions(split)) == [True, True]
    assert sum(1 for _ in queries) == len(entries) - 1


def test_month_precision_admissible_candidates(arsyta_folder) -> None:
    # 1801.44444 cites 1801.33333: the same month. 1801.33333 cites 1705.22222 and 1703.11111.
    same_month = arsyta_context_id("1801.44444", "1801.33333")
    monthly = admissible_candidates(f"{ARSYTA}/test", same_year=False, precision="month")
    assert monthly.max_date(same_month) == (2017, 12)
    assert not monthly.is_admissible(same_month, "1801.33333")  # same month: excluded
    assert monthly.is_admissible(same_month, "1705.22222")
    assert not monthly.is_admissible(same_month, "1801.44444")  # never the citing paper
    lenient = admissible_candidates(f"{ARSYTA}/test", same_year=True, precision="month")
    assert lenient.is_admissible(same_month, "1801.33333")
    # at year precision the same-year paper is out too, but so is nothing else here
    yearly = admissible_candidates(f"{ARSYTA}/test", same_year=False)
    assert yearly.max_year(same_month) == 2017
    assert set(monthly.doc_ids(same_month)) == set(yearly.doc_ids(same_month))
    # 1503.05678 cites 1503.01234 (same month) in train
    train = admissible_candidates(f"{ARSYTA}/train", same_year=False, precision="month")
    query = arsyta_context_id("1503.05678", "1503.01234")
    assert "1503.01234" not in train.doc_ids(query) and "1411.00001" in train.doc_ids(query)


def test_evaluate_and_documentation(arsyta_folder) -> None:
    entries = [c for c in ARSYTA_CONTEXTS if c[0] == "test"]
    run = {arsyta_context_id(c[1], c[2]): {c[2]: 0.5, "1411.00001": 0.9} for c in entries}
    result = citeval_irm.evaluate(run, f"{ARSYTA}/test", "RR R@1 R@2")
    assert result.aggregate["RR"] == pytest.approx(0.5)
    assert result.aggregate["R@1"] == 0 and result.aggregate["R@2"] == 1
    dataset = ir_datasets.load(f"{ARSYTA}/test")
    meta = dataset.metadata()
    assert meta["docs"]["count"] == 474_341 and meta["queries"]["count"] == 124_189
    assert ir_datasets.load(f"{ARSYTA}/train").queries_count() == 8_030_837
    doc = dataset.documentation()
    assert doc["pretty_name"] == "ArSyTa"
    assert "CC BY-NC-ND 4.0" in doc["licence"] and REVISION in doc["data_access"]
    assert "heading" in doc["queries"] and doc["split"].startswith("Test split")


# --------------------------------------------------------------------------- hosting
# (the downloads themselves: tests/test_datasets_hub.py, against a loopback Hub)


def test_default_urls_are_the_pinned_revision(monkeypatch) -> None:
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    corpus = CORPORA["arsyta"]
    assert corpus.url("test_data.json") == (
        f"https://huggingface.co/datasets/goyalkaraniit/ArSyTa/resolve/{REVISION}/test_data.json"
    )
    assert corpus.file_names() == ARSYTA_FILES
    assert corpus.checksums == {}  # none published: downloads are recorded instead


# --------------------------------------------------------------------------- import


def test_import_folder_shows_licence_and_loads(
    tmp_path: Path,
    ir_home: Path,
    monkeypatch,
    capsys,
) -> None:
    folder = tmp_path / "by-hand"
    written = write_arsyta_folder(folder)
    assert main(["import", "arsyta", str(folder)]) == 2
    assert "not the published ArSyTa: papers 8 (published 474,341)" in capsys.readouterr().err
    counts = PublishedCounts(len(written["papers"]), 3, 2, 3)
    monkeypatch.setitem(CORPORA, "arsyta", dataclasses.replace(CORPORA["arsyta"], counts=counts))
    assert main(["import", "arsyta", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "papers: 8 (published 8)" in out and "licence: ArSyTa" in out
    installed = ir_home / "citeval" / "arsyta"
    assert all((installed / name).is_file() for name in ARSYTA_FILES)
    assert read_record(installed / "papers.json")["origin"] == str(
        (folder / "papers_cat.json").resolve()
    )
    dataset = ir_datasets.load(f"{ARSYTA}/val")
    assert [q.heading for q in dataset.queries_iter()] == ["Introduction", "Experiments"]


def test_import_rejects_bad_categories_and_counts_missing_heading(
    tmp_path: Path,
    ir_home: Path,
) -> None:
    folder = tmp_path / "by-hand"
    written = write_arsyta_folder(folder)
    contexts = written["contexts"]
    first = next(iter(contexts))
    del contexts[first]["heading"]
    (folder / "contexts_new_head.json").write_text(json.dumps(contexts), encoding="utf-8")
    report = import_dataset("arsyta", folder, allow_count_mismatch=True)
    warnings = {w.code: w for w in report.warnings}
    assert warnings["context_no_heading"].examples == (first,)
    assert warnings["count_mismatch"].count == 4  # papers and the three splits
    papers = written["papers"]
    papers["1503.01234"]["categories"] = "cs.CL"
    (folder / "papers_cat.json").write_text(json.dumps(papers), encoding="utf-8")
    with pytest.raises(InputError, match=r"paper '1503\.01234'\): 'categories' must be a list"):
        import_dataset("arsyta", folder, allow_count_mismatch=True)


def test_hosted_names_without_heading_or_categories_say_the_facets_are_unavailable(
    tmp_path: Path, ir_home: Path, monkeypatch, capfd
) -> None:
    folder = tmp_path / "hosted"
    write_arsyta_folder(folder, hosted=True, heading=False, categories=False)
    monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(folder))
    queries = list(ir_datasets.load(f"{ARSYTA}/test").queries_iter())
    docs = list(ir_datasets.load(ARSYTA).docs_iter())
    assert {q.heading for q in queries} == {""} and {d.categories for d in docs} == {()}
    err = capfd.readouterr().err
    assert "contexts.json carries no 'heading' field in any of its 8 records" in err
    assert "the heading facet is unavailable" in err
    assert "papers.json carries no 'categories' field in any of its 8 records" in err
    monkeypatch.delenv("CITEVAL_ARSYTA_DIR")
    report = import_dataset("arsyta", folder, allow_count_mismatch=True)
    warnings = {w.code: w for w in report.warnings}
    assert warnings["facet_unavailable"].examples == ("heading", "categories")


def test_both_layouts_read_the_same(tmp_path: Path, ir_home: Path, monkeypatch) -> None:
    hosted, symtax = tmp_path / "hosted", tmp_path / "symtax"
    write_arsyta_folder(hosted, hosted=True)
    write_arsyta_folder(symtax)
    read = {}
    for folder in (hosted, symtax):
        monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(folder))
        dataset = ir_datasets.load(f"{ARSYTA}/test")
        read[folder.name] = (list(dataset.queries_iter()), list(dataset.qrels_iter()))
    assert read["hosted"] == read["symtax"] and len(read["hosted"][0]) == 3
