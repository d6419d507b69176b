"""The full ir_datasets loader on a HAtten-layout fixture shaped like ACL-200.

The split entries are SYNTHETIC, with ACL Anthology-style ids and the real splits' citing
years (20 per split); contexts.json and papers.json hold synthetic text for exactly those
ids (see ``write_hatten_folder``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import SPLITS, write_hatten_folder

import citeval_irm
from citeval_irm.base.downloads import Checksum, ChecksumError, RecordError, file_checksum
from citeval_irm.base.errors import InputError
from citeval_irm.cli import main
from citeval_irm.datasets import (
    CORPORA,
    DATASET_IDS,
    CitationDoc,
    CitationQuery,
    DataNotFoundError,
)

ACL = "citeval/acl-200"


@pytest.fixture
def acl_folder(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch):
    """The fixture corpus, read through CITEVAL_ACL_200_DIR."""
    folder = tmp_path / "acl-200"
    written = write_hatten_folder(folder)
    monkeypatch.setenv("CITEVAL_ACL_200_DIR", str(folder))
    return folder, written


def test_all_ids_registered() -> None:
    """Every dataset each corpus of the catalogue declares is registered (and no other),
    in ir_datasets, with its published counts in metadata.json; a HAtten-layout corpus
    has its train / val / test splits beside the whole corpus."""
    from citeval_irm.datasets.catalogue import COLLECTIONS, CORPORA, published_metadata

    expected = {i for corpus in COLLECTIONS for i in corpus.components()}
    assert set(published_metadata()) == expected
    for corpus in CORPORA.values():
        split_ids = {f"{corpus.dataset_id}{s}" for s in ("", "/train", "/val", "/test")}
        assert split_ids <= expected, corpus.name
    assert set(DATASET_IDS) == expected
    assert expected <= set(ir_datasets.registry)
    corpus = ir_datasets.load("citeval/arxiv")
    assert corpus.has_docs() and not corpus.has_queries() and not corpus.has_qrels()
    split = ir_datasets.load("citeval/arxiv/test")
    assert split.has_docs() and split.has_queries() and split.has_qrels()


def test_docs_iter_and_docstore(acl_folder, ir_home: Path) -> None:
    _, written = acl_folder
    dataset = ir_datasets.load(ACL)
    docs = list(dataset.docs_iter())
    assert [d.doc_id for d in docs] == list(written["papers"])
    assert docs[0] == CitationDoc(
        docs[0].doc_id,
        f"Synthetic title {docs[0].doc_id}",
        f"Synthetic abstract of {docs[0].doc_id}.",
        docs[0].year,
    )
    by_id = {d.doc_id: d for d in docs}
    assert by_id["N04-1019"].year == 2004 and by_id["X98-9001"].year == 1998
    assert (
        by_id["N04-1019"].default_text()
        == "Synthetic title N04-1019 Synthetic abstract of N04-1019."
    )

    store = dataset.docs_store()
    assert store.get("N04-1019") == by_id["N04-1019"]
    assert set(store.get_many(["N04-1019", "W13-9002", "nope"])) == {"N04-1019", "W13-9002"}
    with pytest.raises(KeyError):
        store.get("nope")
    assert (ir_home / "citeval" / "acl-200" / "docs.pklz4" / "bin").is_file()
    assert dataset.docs_count() == len(docs)  # the built store's count, not the published one
    assert list(dataset.docs_iter()[1:3]) == docs[1:3]  # from the store, sliceable


def test_queries_follow_the_split_file(acl_folder) -> None:
    _, written = acl_folder
    for split in SPLITS:
        dataset = ir_datasets.load(f"{ACL}/{split}")
        assert dataset.queries_cls() is CitationQuery
        queries = list(dataset.queries_iter())
        assert [q.query_id for q in queries] == [e["context_id"] for e in written["splits"][split]]
        for query in queries:
            context = written["contexts"][query.query_id]
            assert query.text == context["masked_text"]
            assert query.left_context + "TARGETCIT" + query.right_context == query.text
            assert query.citing_id == context["citing_id"]
            assert query.year == 2000 + int(query.citing_id[1:3])


def test_qrels_from_positive_ids(acl_folder) -> None:
    _, written = acl_folder
    dataset = ir_datasets.load(f"{ACL}/test")
    qrels = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
    expected = [(e["context_id"], e["positive_ids"][0], 1) for e in written["splits"]["test"]]
    assert qrels == expected
    table = citeval_irm.read_qrels(f"{ACL}/test").frame
    assert len(table) == 20 and set(table["relevance"]) == {1}


def test_evaluate_a_run_on_the_dataset(acl_folder) -> None:
    _, written = acl_folder
    entries = written["splits"]["test"]
    # the positive first for even contexts, second (behind an unrelated paper) for odd ones
    run = {
        e["context_id"]: {e["positive_ids"][0]: 1.0 if n % 2 == 0 else 0.5, "X98-9001": 0.7}
        for n, e in enumerate(entries)
    }
    result = citeval_irm.evaluate(run, f"{ACL}/test", "RR R@1")
    assert result.aggregate["RR"] == pytest.approx(0.75)
    assert result.aggregate["R@1"] == pytest.approx(0.5)


def test_crosscheck_on_the_dataset_knows_the_citing_paper(acl_folder) -> None:
    """The citing paper (the dataset's citing_id) ranked first: the HAtten recipe removes
    it, trec_eval ranks it; the cross-check names the cause and can be told otherwise."""
    _, written = acl_folder
    entries = written["splits"]["test"][:4]
    dataset = ir_datasets.load(f"{ACL}/test")
    citing = {q.query_id: q.citing_id for q in dataset.queries_iter()}
    run = {
        e["context_id"]: {citing[e["context_id"]]: 2.0, e["positive_ids"][0]: 1.0} for e in entries
    }
    report = citeval_irm.crosscheck(run, f"{ACL}/test", "R@1", recipe="hatten")
    # HAtten loops over the test set, as trec_eval -c: the queries without a ranking score
    # 0 both ways, so the only cause is the removed citing paper
    assert report.causes["cause"].tolist() == ["query_paper_removed"]
    assert report.causes.set_index("cause").loc["query_paper_removed", "queries"] == 4
    elsewhere = {q: "somebody-else" for q in citing}
    report = citeval_irm.crosscheck(
        run, f"{ACL}/test", "R@1", recipe="hatten", query_papers=elsewhere
    )
    assert report.causes.empty and report.differences.empty


def test_metadata_and_documentation() -> None:
    dataset = ir_datasets.load(f"{ACL}/test")
    assert dataset.metadata()["docs"] == {"count": 19_776}
    assert dataset.metadata()["queries"] == {"count": 9_585}
    assert dataset.qrels_metadata()["count"] == 9_585
    arxiv = ir_datasets.load("citeval/arxiv")
    assert arxiv.docs_metadata() == {"count": 1_661_201}
    for name, corpus in CORPORA.items():
        meta = ir_datasets.load(f"citeval/{name}/train").metadata()
        assert meta["docs"]["count"] == corpus.counts.docs
        assert meta["queries"]["count"] == corpus.counts.train
    doc = dataset.documentation()
    assert doc["pretty_name"] == "ACL-200"
    assert "goyal2026" in doc["official_measures"]
    assert "no licence" in doc["licence"] and "343" in doc["years"]
    assert doc["split"].startswith("Test split")
    assert "None" in ir_datasets.load("citeval/refseer").documentation()["years"]


def test_counts_without_data_come_from_metadata(ir_home: Path, monkeypatch) -> None:
    monkeypatch.setenv("CITEVAL_ACL_200_BASE_URL", "http://127.0.0.1:9/")  # would refuse
    assert ir_datasets.load(ACL).docs_count() == 19_776
    assert not (ir_home / "citeval" / "acl-200").exists() or not any(
        (ir_home / "citeval" / "acl-200").iterdir()
    )


def test_store_is_rebuilt_when_papers_change(acl_folder) -> None:
    folder, written = acl_folder
    dataset = ir_datasets.load(ACL)
    assert dataset.docs_store().get("N04-1019").title == "Synthetic title N04-1019"
    papers = written["papers"]
    papers["N04-1019"]["title"] = "Changed title, and a different length"
    (folder / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    assert dataset.docs_store().get("N04-1019").title == "Changed title, and a different length"


def test_cli_export_and_lookup(acl_folder, capsys) -> None:
    _, written = acl_folder
    assert main(["datasets", "export", f"{ACL}/test", "qrels"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = [f"{e['context_id']} 0 {e['positive_ids'][0]} 1" for e in written["splits"]["test"]]
    assert lines == expected
    assert main(["datasets", "export", f"{ACL}/val", "queries", "--format", "jsonl"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["query_id"] == written["splits"]["val"][0]["context_id"]
    assert first["year"] == 2014 and "TARGETCIT" in first["text"]
    assert main(["datasets", "lookup", ACL, "N04-1019", "--format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out)["year"] == 2004
    assert main(["datasets"]) == 1  # ir_datasets' own usage error


def test_hand_installed_corpus_says_what_to_do(ir_home: Path, capsys) -> None:
    with pytest.raises(DataNotFoundError) as info:
        list(ir_datasets.load("citeval/refseer/test").queries_iter())
    assert str(info.value) == (
        "citeval/refseer: not installed: get its files by hand, then `citeval import refseer DIR`"
    )
    message = " ".join([str(info.value), *info.value.details])
    for needle in (
        "drive.google.com/drive/folders/1QwQuJsBOGEESFTgl-7wWbqcig7vJNlQ2",
        "citeval import refseer",
        "CITEVAL_REFSEER_DIR",
        str(ir_home / "citeval" / "refseer"),
    ):
        assert needle in message
    assert main(["datasets", "export", "citeval/arxiv", "docs"]) == 2
    assert "citeval import arxiv" in capsys.readouterr().err


def test_env_folder_missing_a_file(acl_folder) -> None:
    folder, _ = acl_folder
    (folder / "val.json").unlink()
    with pytest.raises(DataNotFoundError, match="CITEVAL_ACL_200_DIR") as info:
        list(ir_datasets.load(f"{ACL}/val").qrels_iter())
    assert str(folder / "val.json") in str(info.value)


def _rewrite(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_broken_files_name_file_record_and_problem(acl_folder) -> None:
    folder, written = acl_folder
    contexts = folder / "contexts.json"
    _rewrite(contexts, json.dumps(written["contexts"])[:-300])
    with pytest.raises(InputError, match=r"contexts\.json: invalid JSON after record \d+"):
        list(ir_datasets.load(f"{ACL}/test").queries_iter())

    first = next(iter(written["contexts"]))
    broken = dict(written["contexts"])
    broken[first] = {**broken[first], "context_id": "something-else"}
    _rewrite(contexts, json.dumps(broken))
    with pytest.raises(InputError, match=rf"record 1 \(context '{first}'\): its 'context_id'"):
        list(ir_datasets.load(f"{ACL}/train").queries_iter())

    papers = dict(written["papers"])
    papers["N04-1019"] = ["not", "an", "object"]
    _rewrite(folder / "papers.json", json.dumps(papers))
    with pytest.raises(InputError, match=r"papers\.json: record \d+ \(paper 'N04-1019'\): exp"):
        list(ir_datasets.load(ACL).docs_iter())
    _rewrite(folder / "papers.json", json.dumps(list(papers)))
    with pytest.raises(InputError, match=r"expected a JSON object"):
        list(ir_datasets.load(ACL).docs_iter())


def test_split_entry_not_in_contexts(acl_folder) -> None:
    folder, written = acl_folder
    entries = written["splits"]["test"] + [
        {"context_id": "P15-0000_N04-1019_0", "positive_ids": ["N04-1019"]}
    ]
    _rewrite(folder / "test.json", json.dumps(entries))
    with pytest.raises(InputError) as info:
        list(ir_datasets.load(f"{ACL}/test").queries_iter())
    # the checks of `citeval import`, for a folder read in place too
    assert str(info.value) == (
        f"{folder / 'test.json'}: record 21 (context 'P15-0000_N04-1019_0'): not in contexts.json"
    )
    _rewrite(folder / "test.json", json.dumps([{"context_id": "x", "positive_ids": "N04-1019"}]))
    with pytest.raises(InputError, match="record 1 .*'positive_ids' must be a list"):
        list(ir_datasets.load(f"{ACL}/test").qrels_iter())


# --------------------------------------------------------------------------- ACL-200 download


def _serve_acl(http_files, tmp_path: Path, monkeypatch) -> dict:
    """Serve the fixture corpus as the ACL-200 files, each file's checksum pinned for this
    test as the real ones are (md5 for the splits, git blob ids for contexts and papers)."""
    folder = tmp_path / "served"
    written = write_hatten_folder(folder)
    acl = CORPORA["acl-200"]
    for split in SPLITS:
        md5 = file_checksum(folder / f"{split}.json", "md5")
        monkeypatch.setitem(acl.checksums, f"{split}.json", Checksum("md5", md5))
    for name in ("contexts.json", "papers.json"):
        blob = file_checksum(folder / name, "git-blob-sha1")
        monkeypatch.setitem(acl.checksums, name, Checksum("git-blob-sha1", blob))
    for path in folder.iterdir():
        http_files.files[f"acl/{path.name}"] = path.read_bytes()
    monkeypatch.setenv("CITEVAL_ACL_200_BASE_URL", http_files.base_url + "acl")
    return {"folder": folder, **written}


def test_acl200_downloads_and_verifies(http_files, tmp_path, ir_home, monkeypatch) -> None:
    served = _serve_acl(http_files, tmp_path, monkeypatch)
    dataset = ir_datasets.load(f"{ACL}/val")
    qrels = list(dataset.qrels_iter())
    assert len(qrels) == len(served["splits"]["val"])  # downloaded and md5-checked
    assert http_files.requests == ["acl/val.json"]
    assert dataset.docs_store().get("N04-1019").year == 2004
    assert sorted(http_files.requests) == ["acl/papers.json", "acl/val.json"]
    installed = ir_home / "citeval" / "acl-200"
    assert (installed / "val.json").is_file() and (installed / "papers.json").is_file()
    queries = list(dataset.queries_iter())
    assert [q.query_id for q in queries] == [e["context_id"] for e in served["splits"]["val"]]
    # a split entry whose context is not in contexts.json: a clear error
    http_files.files["acl/test.json"] = json.dumps(
        [
            *served["splits"]["test"],
            {"context_id": "P15-0001_N04-1019_9", "positive_ids": ["N04-1019"]},
        ]
    ).encode()
    md5 = hashlib.md5(http_files.files["acl/test.json"]).hexdigest()
    monkeypatch.setitem(CORPORA["acl-200"].checksums, "test.json", Checksum("md5", md5))
    with pytest.raises(InputError, match="is not in"):
        list(ir_datasets.load(f"{ACL}/test").queries_iter())


def test_acl200_checksum_mismatch_is_an_error(http_files, tmp_path, ir_home, monkeypatch) -> None:
    _serve_acl(http_files, tmp_path, monkeypatch)
    pinned = "df9142d01c105f7d5ef51e9d5eee0dcd57cde507"  # the real papers.json blob id
    monkeypatch.setitem(
        CORPORA["acl-200"].checksums, "papers.json", Checksum("git-blob-sha1", pinned)
    )
    with pytest.raises(ChecksumError) as info:
        list(ir_datasets.load(ACL).docs_iter())
    message = str(info.value)
    assert "papers.json" in message and pinned in message
    assert file_checksum(tmp_path / "served" / "papers.json", "git-blob-sha1") in message
    folder = ir_home / "citeval" / "acl-200"
    assert not folder.exists() or not any(
        p.name.endswith(".part") or p.name == "papers.json" for p in folder.iterdir()
    )


@pytest.mark.parametrize("served", ["missing", "a server error"])
def test_a_failed_download_leaves_nothing_behind(
    http_files, ir_home: Path, monkeypatch, capsys, served: str
) -> None:
    """A download that fails (a 404, a 500 after its retries) is one error line, and no
    file of it is left in the home: no part file, no record, no lock file."""
    monkeypatch.setenv("CITEVAL_DOWNLOAD_TIMEOUT", "1")  # the retries' waits short
    base = "acl" if served == "missing" else "status/500/acl"
    monkeypatch.setenv("CITEVAL_ACL_200_BASE_URL", http_files.base_url + base)
    assert main(["datasets", "export", f"{ACL}/test", "qrels"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and "cannot download test.json" in err
    folder = ir_home / "citeval" / "acl-200"
    assert [p.name for p in folder.rglob("*") if not p.is_dir()] == []


def test_tolerated_oddities_are_logged(acl_folder, capfd) -> None:
    folder, written = acl_folder
    contexts = written["contexts"]
    odd = written["splits"]["train"][0]["context_id"]
    contexts[odd]["masked_text"] = "no marker in this synthetic context"
    _rewrite(folder / "contexts.json", json.dumps(contexts))
    query = next(iter(ir_datasets.load(f"{ACL}/train").queries_iter()))
    assert (query.left_context, query.right_context) == (query.text, "")
    err = capfd.readouterr().err
    assert (
        "contexts without TARGETCIT (left_context is the whole text, right_context empty)"
        f" (1): {odd}" in err
    )


def test_acl200_files_are_checked_on_every_load_and_by_verify(
    http_files,
    tmp_path,
    ir_home,
    monkeypatch,
    capsys,
) -> None:
    """A file with a published checksum, edited after its download (size and modification
    time kept), is an error at the next load, not a silently different benchmark."""
    served = _serve_acl(http_files, tmp_path, monkeypatch)
    dataset = ir_datasets.load(f"{ACL}/val")
    count = len(served["splits"]["val"])
    assert len(list(dataset.qrels_iter())) == count
    assert main(["verify", "acl-200"]) == 0
    out = capsys.readouterr().out
    md5 = CORPORA["acl-200"].checksums["val.json"].value
    assert "val.json: ok, " in out and f"md5:{md5}" in out
    assert "contexts.json: not downloaded yet" in out
    path = ir_home / "citeval" / "acl-200" / "val.json"
    original, stat = path.read_bytes(), path.stat()
    middle = len(original) // 2
    edited = original[:middle] + (b"9" if original[middle : middle + 1] != b"9" else b"8")
    path.write_bytes(edited + original[middle + 1 :])
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(ChecksumError, match=r"val\.json \(changed since it was recorded from"):
        list(ir_datasets.load(f"{ACL}/val").qrels_iter())
    assert main(["verify", "acl-200"]) == 2
    assert "val.json (changed since it was recorded" in capsys.readouterr().err
    path.write_bytes(original)
    (path.parent / "val.json.download.json").write_text("{", encoding="utf-8")  # damaged
    with pytest.raises(RecordError, match=r"val\.json\.download\.json: unreadable record"):
        list(ir_datasets.load(f"{ACL}/val").qrels_iter())
    (path.parent / "val.json.download.json").unlink()  # none: the published md5 decides
    assert len(list(ir_datasets.load(f"{ACL}/val").qrels_iter())) == count


def test_a_folder_read_in_place_gets_the_checks_of_import(acl_folder) -> None:
    """A repeated key in papers.json: the import rejects it, and so does every load of a
    folder read in place (no store with one record fewer than the file)."""
    folder, written = acl_folder
    text = json.dumps(written["papers"])
    _rewrite(folder / "papers.json", text[:-1] + ', "N04-1019": {"title": "t", "abstract": ""}}')
    count = len(written["papers"]) + 1
    problem = rf"papers\.json: record {count}: the key 'N04-1019' occurs twice"
    dataset = ir_datasets.load(ACL)
    with pytest.raises(InputError, match=problem):
        dataset.docs_store().count()
    with pytest.raises(InputError, match=problem):
        list(dataset.docs_iter())
    with pytest.raises(InputError, match=problem):
        citeval_irm.datasets.validate_folder("fulltextpeerread", folder)
