"""``citeval import NAME DIR`` on a good folder and on broken ones."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import write_hatten_folder

from citeval_irm.base.downloads import ChecksumError
from citeval_irm.base.errors import InputError
from citeval_irm.cli import main
from citeval_irm.datasets import CORPORA, PublishedCounts, import_dataset, validate_folder
from citeval_irm.datasets.importing import OWNED

NAME = "fulltextpeerread"
PER_SPLIT = 6


@pytest.fixture
def folder(importable_folder):
    """A good HAtten folder, imported as FullTextPeerRead (``importable_folder``)."""
    return importable_folder


def test_import_good_folder(folder, ir_home: Path, capsys) -> None:
    path, written = folder
    assert main(["import", NAME, str(path)]) == 0
    out = capsys.readouterr().out
    assert f"citeval/{NAME}: {path} installed into {ir_home / 'citeval' / NAME}" in out
    assert f"papers: {len(written['papers'])} (published {len(written['papers'])})" in out
    # the fixture's ids are ACL ids, not arXiv ids: every year unknown, and said so
    assert "papers whose id gives no publication year" in out
    installed = ir_home / "citeval" / NAME
    files = ["contexts.json", "papers.json", "train.json", "val.json", "test.json"]
    # each installed file has its record (size, sha256, origin) beside it, and the install
    # its marker (the package made it: only such folders are ever removed)
    assert sorted(p.name for p in installed.iterdir()) == sorted(
        files + [f"{name}.download.json" for name in files] + [OWNED]
    )
    dataset = ir_datasets.load(f"citeval/{NAME}/test")
    assert [q.query_id for q in dataset.queries_iter()] == [
        e["context_id"] for e in written["splits"]["test"]
    ]
    assert dataset.docs_store().get("N04-1019").year is None


def test_import_symlink_and_report(folder, ir_home: Path) -> None:
    path, written = folder
    report = import_dataset(NAME, path, symlink=True)
    assert (ir_home / "citeval" / NAME / "papers.json").resolve() == (path / "papers.json")
    assert report.counts == {
        "papers": len(written["papers"]),
        "contexts": 3 * PER_SPLIT,
        "train": PER_SPLIT,
        "val": PER_SPLIT,
        "test": PER_SPLIT,
    }
    codes = {w.code: w.count for w in report.warnings}
    assert codes == {"paper_no_year": len(written["papers"]), "context_no_year": 3 * PER_SPLIT}


def test_count_mismatch(folder, capsys, monkeypatch) -> None:
    path, written = folder
    counts = PublishedCounts(len(written["papers"]), PER_SPLIT, PER_SPLIT, PER_SPLIT + 1)
    monkeypatch.setitem(CORPORA, NAME, dataclasses.replace(CORPORA[NAME], counts=counts))
    assert main(["import", NAME, str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        f"not the published FullTextPeerRead: test {PER_SPLIT} (published {PER_SPLIT + 1})." in err
    )
    assert "--allow-count-mismatch" in err
    report = validate_folder(NAME, path, allow_count_mismatch=True)
    assert [w.code for w in report.warnings if w.code == "count_mismatch"] == ["count_mismatch"]
    assert report.target is None


def test_missing_file(folder, capsys) -> None:
    path, _ = folder
    (path / "contexts.json").unlink()
    assert main(["import", NAME, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: missing contexts.json: a FullTextPeerRead folder holds" in err
    with pytest.raises(InputError, match="no such folder"):
        import_dataset(NAME, path / "nope")


def test_bad_json(folder) -> None:
    path, written = folder
    (path / "val.json").write_text(json.dumps(written["splits"]["val"])[:-3], "utf-8")
    with pytest.raises(InputError, match=rf"val\.json: invalid JSON after record {PER_SPLIT - 1}"):
        import_dataset(NAME, path)
    (path / "val.json").write_text('{"context_id": "a"}', "utf-8")
    with pytest.raises(InputError, match=r"val\.json: expected a JSON array"):
        import_dataset(NAME, path)


def test_unknown_split_ids(folder, ir_home: Path) -> None:
    path, written = folder
    entries = written["splits"]["train"]
    bad = entries + [{"context_id": "P12-0000_D10-1120_9", "positive_ids": ["D10-1120"]}]
    (path / "train.json").write_text(json.dumps(bad), "utf-8")
    with pytest.raises(InputError) as info:
        import_dataset(NAME, path)
    assert str(info.value) == (
        f"{path / 'train.json'}: record {PER_SPLIT + 1} (context 'P12-0000_D10-1120_9'): "
        "not in contexts.json"
    )
    first = entries[0]["context_id"]
    bad = [{"context_id": first, "positive_ids": ["Z99-9999"]}]
    (path / "train.json").write_text(json.dumps(bad), "utf-8")
    with pytest.raises(InputError, match=r"record 1 .*positive 'Z99-9999' not in papers\.json"):
        import_dataset(NAME, path)
    (path / "train.json").write_text(json.dumps(entries + entries[:1]), "utf-8")
    with pytest.raises(InputError, match="occurs twice in this split"):
        import_dataset(NAME, path)
    assert not (ir_home / "citeval" / NAME).exists()  # nothing installed on failure


def test_repeated_key(folder) -> None:
    path, written = folder
    text = json.dumps(written["papers"])
    (path / "papers.json").write_text(text[:-1] + ', "N04-1019": {"title": "t"}}', "utf-8")
    count = len(written["papers"]) + 1
    with pytest.raises(InputError, match=rf"record {count}: the key 'N04-1019' occurs twice"):
        import_dataset(NAME, path)


def test_tolerated_oddities_are_counted(folder) -> None:
    path, written = folder
    contexts = written["contexts"]
    odd = next(iter(contexts))
    contexts[odd]["masked_text"] = "no marker here"
    (path / "contexts.json").write_text(json.dumps(contexts), "utf-8")
    papers = written["papers"]
    del papers["X98-9001"]["abstract"]
    (path / "papers.json").write_text(json.dumps(papers), "utf-8")
    report = validate_folder(NAME, path)
    warnings = {w.code: w for w in report.warnings}
    assert warnings["context_no_marker"].count == 1
    assert warnings["context_no_marker"].examples == (odd,)
    assert warnings["paper_no_abstract"].examples == ("X98-9001",)


def test_acl200_import_checks_pinned_checksums(tmp_path: Path, ir_home: Path) -> None:
    path = tmp_path / "acl"
    write_hatten_folder(path, per_split=3)
    with pytest.raises(ChecksumError) as info:
        import_dataset("acl-200", path)
    message = str(info.value)
    assert "52aa0fe63f33144df69183d105105d09" in message  # the pinned train.json md5
    assert "train.json" in message and "CITEVAL_ACL_200_DIR" in message


def test_unknown_dataset_name(tmp_path: Path, capsys) -> None:
    from citeval_irm.datasets.catalogue import COLLECTIONS

    assert main(["import", "cora", str(tmp_path)]) == 2
    importable = [c.name for c in COLLECTIONS if c.packaged is None]  # not the shipped demo
    assert importable and len(importable) < len(COLLECTIONS)
    known = f"unknown dataset 'cora' (known: {', '.join(importable)})"
    assert known in capsys.readouterr().err


def test_the_shipped_demo_is_not_imported(tmp_path: Path, capsys) -> None:
    assert main(["import", "demo", str(tmp_path)]) == 2
    assert "'demo' ships inside citeval-irm: there is nothing to import" in capsys.readouterr().err


def test_symlink_import_of_the_install_itself_is_refused(folder, ir_home: Path, capsys) -> None:
    """`citeval import NAME <its own install folder> --symlink` would replace each file by
    a link to itself: refused, and the installed files stay as they were."""
    path, written = folder
    assert main(["import", NAME, str(path)]) == 0
    installed = ir_home / "citeval" / NAME
    capsys.readouterr()
    assert main(["import", NAME, str(installed), "--symlink"]) == 2
    err = capsys.readouterr().err
    assert "is citeval's own installed copy" in err and "--symlink would link it" in err
    assert main(["verify", NAME]) == 0
    assert "papers.json: ok" in capsys.readouterr().out
    # copying from the install itself is safe: a new install, then the switch
    assert main(["import", NAME, str(installed)]) == 0
    assert main(["verify", NAME]) == 0
    dataset = ir_datasets.load(f"citeval/{NAME}")
    assert dataset.docs_store().count() == len(written["papers"])
    # a symlinked install links to the user's files, and importing it again keeps them
    assert main(["import", NAME, str(path), "--symlink"]) == 0
    assert main(["import", NAME, str(installed), "--symlink"]) == 0
    assert (installed / "papers.json").resolve() == path / "papers.json"
    assert json.loads((path / "papers.json").read_text()) == written["papers"]
