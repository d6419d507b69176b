"""A store is stamped with its source's content, not its path: identical files (the demo of
two installs sharing one ir_datasets home, a copy read in place) share one store; a file
with other content rebuilds it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import ir_datasets
import pytest

import citeval_irm  # noqa: F401 (registers the datasets)
from citeval_irm.datasets.stores import STAMP

PACKAGED = Path(citeval_irm.__file__).parent / "datasets" / "demo"


def store_build(home: Path) -> tuple[int, int]:
    """The demo docs store's records file as built: (inode, modification time)."""
    ir_datasets.load("citeval/demo").docs_store().get("N00-1328")  # built if needed
    stat = (home / "citeval" / "demo" / "docs.pklz4" / "bin").stat()
    return stat.st_ino, stat.st_mtime_ns


def test_identical_sources_at_other_paths_share_one_store(ir_home, tmp_path, monkeypatch, capfd):
    first = store_build(ir_home)  # from the package itself
    for name in ("install-a", "install-b"):  # the same files elsewhere
        copy = tmp_path / name
        shutil.copytree(PACKAGED, copy)
        monkeypatch.setenv("CITEVAL_DEMO_DIR", str(copy))
        assert store_build(ir_home) == first
    stamp = json.loads((ir_home / "citeval" / "demo" / "docs.pklz4" / STAMP).read_text())
    assert set(stamp["source"]) == {"size", "sha256"}
    seen = {Path(v["path"]).parent.name for v in stamp["seen"]}
    assert {"install-a", "install-b", "demo"} <= seen
    assert "rebuilding" not in capfd.readouterr().err
    monkeypatch.delenv("CITEVAL_DEMO_DIR")
    assert store_build(ir_home) == first  # back to the package: still the same store


def test_a_source_with_other_content_rebuilds_the_store(ir_home, tmp_path, monkeypatch, capfd):
    first = store_build(ir_home)
    copy = tmp_path / "changed"
    shutil.copytree(PACKAGED, copy)
    papers = json.loads((copy / "papers.json").read_text(encoding="utf-8"))
    key = next(iter(papers))
    papers[key]["title"] = "A changed title"
    (copy / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    monkeypatch.setenv("CITEVAL_DEMO_DIR", str(copy))
    assert store_build(ir_home) != first
    assert ir_datasets.load("citeval/demo").docs_store().get(key).title == "A changed title"
    assert "built from another version" in capfd.readouterr().err


@pytest.fixture(autouse=True)
def _no_demo_folder(monkeypatch):
    monkeypatch.delenv("CITEVAL_DEMO_DIR", raising=False)
