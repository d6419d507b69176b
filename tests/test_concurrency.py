"""Several processes at once, and processes killed half-way: real processes (subprocess) on a
small GENERATED corpus (see ``write_generated_corpus``), never threads or mocks.

- first loads of a dataset by several processes on a fresh home build each store once;
- a store damaged by an older citeval-irm (every record twice) is detected and rebuilt;
- two ``citeval import`` at once, and one killed at any moment, leave one complete install.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import write_generated_corpus

from citeval_irm.datasets import CORPORA, PublishedCounts, import_dataset
from citeval_irm.datasets.stores import SourceStampedStore

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

NAME = "fulltextpeerread"
DATASET = f"citeval/{NAME}"

LOADER = """
import json, os, sys, time
import ir_datasets, citeval_irm
while not os.path.exists(sys.argv[1]):  # start together
    time.sleep(0.005)
dataset = ir_datasets.load(sys.argv[2])
paper = dataset.docs_store().get(sys.argv[3])
queries = sum(1 for _ in dataset.queries_iter())
print(json.dumps({"count": dataset.docs_count(), "title": paper.title, "queries": queries}))
"""


def _environment(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEVAL_")}
    env.update(extra)
    return env


def _run_together(script: str, args: list[list[str]], env: dict, tmp_path: Path) -> list:
    """Start one process per argument list, let them go at the same moment, wait for all."""
    go = tmp_path / "go"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(go), *a],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in args
    ]
    time.sleep(3)  # each imports ir_datasets first
    go.touch()
    return [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in processes]


def test_concurrent_first_loads_build_each_store_once(tmp_path: Path, ir_home: Path) -> None:
    folder = tmp_path / "corpus"
    written = write_generated_corpus(folder)
    env = _environment(IR_DATASETS_HOME=str(ir_home), CITEVAL_FULLTEXTPEERREAD_DIR=str(folder))
    some_id = list(written["papers"])[1234]
    results = _run_together(LOADER, [[f"{DATASET}/test", some_id]] * 4, env, tmp_path)
    for status, out, err in results:
        assert status == 0, err
        assert json.loads(out) == {
            "count": len(written["papers"]),
            "title": written["papers"][some_id]["title"],
            "queries": len(written["splits"]["test"]),
        }
    # and a later process finds sound stores, built once (nothing left of the builds, not
    # even their lock files)
    status, out, err = _run_together(LOADER, [[f"{DATASET}/val", some_id]], env, tmp_path)[0]
    assert status == 0 and json.loads(out)["count"] == len(written["papers"]), err
    home = ir_home / "citeval" / NAME
    assert sorted(p.name for p in home.iterdir() if not p.name.startswith(".in-place")) == [
        "contexts.pklz4",
        "docs.pklz4",
    ]


def test_a_store_with_every_record_twice_is_rebuilt(
    tmp_path: Path,
    ir_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd,
) -> None:
    """What concurrent builds of ir_datasets' own store left behind (each doc appended by
    every process): the store's files disagree with its stamp, so it is rebuilt."""
    folder = tmp_path / "corpus"
    written = write_generated_corpus(folder, papers=300, per_split=20)
    monkeypatch.setenv("CITEVAL_FULLTEXTPEERREAD_DIR", str(folder))
    store = ir_datasets.load(DATASET).docs_store()
    assert store.count() == 300
    with store.lookup.transaction() as append:  # ir_datasets' own writer, as a racing build
        for doc in ir_datasets.load(DATASET).docs_iter():
            append.add(doc)
    store.lookup.close()
    damaged = ir_datasets.load(DATASET).docs_store()
    assert isinstance(damaged, SourceStampedStore)
    assert damaged.problem().startswith("damaged: its files hold")
    assert damaged.count() == 300 and damaged.problem() is None
    assert damaged.get(list(written["papers"])[7]).title == "Generated title 7"
    assert "rebuilding" in capfd.readouterr().err


IMPORTER = """
import os, sys, time
from citeval_irm.cli import main
while not os.path.exists(sys.argv[1]):  # start together
    time.sleep(0.005)
sys.exit(main(["import", "fulltextpeerread", sys.argv[2], "--allow-count-mismatch"]))
"""


def _digests(folder: Path) -> dict[str, str]:
    names = CORPORA[NAME].file_names()
    return {n: hashlib.sha256((folder / n).read_bytes()).hexdigest() for n in names}


@pytest.fixture
def two_versions(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch):
    """Two different GENERATED versions of the corpus, with counts published for neither."""
    folders = {}
    for version, papers in (("a", 20_000), ("b", 20_001)):
        folders[version] = tmp_path / version
        write_generated_corpus(folders[version], papers=papers, per_split=50)
    counts = PublishedCounts(20_000, 50, 50, 50)
    monkeypatch.setitem(CORPORA, NAME, dataclasses.replace(CORPORA[NAME], counts=counts))
    return folders


def _installed_version(ir_root: Path, folders: dict[str, Path]) -> str:
    """Which version the install holds, all of it; fails on a mix."""
    home = ir_root / "citeval" / NAME
    installed = _digests(home)
    versions = [v for v, folder in folders.items() if _digests(folder) == installed]
    assert len(versions) == 1, f"a mixed install: {installed}"
    for name in CORPORA[NAME].file_names():  # and each file's record says so
        record = json.loads((home / f"{name}.download.json").read_text())
        assert record["sha256"] == installed[name]
    return versions[0]


def test_two_imports_at_once_install_one_version_whole(
    tmp_path: Path,
    ir_home: Path,
    two_versions,
) -> None:
    env = _environment(IR_DATASETS_HOME=str(ir_home))
    args = [[str(two_versions["a"])], [str(two_versions["b"])]]
    for status, _, err in _run_together(IMPORTER, args, env, tmp_path):
        assert status == 0, err
    assert _installed_version(ir_home, two_versions) in ("a", "b")
    assert os.listdir(ir_home / "citeval" / f".{NAME}.installs") == [
        os.path.basename(os.readlink(ir_home / "citeval" / NAME))
    ]


def test_an_import_killed_at_any_moment_leaves_the_old_install(
    tmp_path: Path,
    ir_home: Path,
    two_versions,
) -> None:
    import_dataset(NAME, two_versions["a"])
    env = _environment(IR_DATASETS_HOME=str(ir_home))
    installs = ir_home / "citeval" / f".{NAME}.installs"
    killed_while_copying = 0
    for delay in (0.0, 0.001, 0.003):  # after the new install was started
        seen = set(os.listdir(installs))
        process = subprocess.Popen(
            [sys.executable, "-c", IMPORTER, str(tmp_path), str(two_versions["b"])],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while not set(os.listdir(installs)) - seen and process.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.0005)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        if process.returncode != -signal.SIGKILL:  # finished first: start from "a" again
            assert process.returncode == 0
            import_dataset(NAME, two_versions["a"])
            continue
        killed_while_copying += 1
        assert _installed_version(ir_home, two_versions) == "a"
    assert killed_while_copying >= 1
    assert len(os.listdir(installs)) >= 2  # what the killed imports left ...
    import_dataset(NAME, two_versions["b"], allow_count_mismatch=True)
    assert _installed_version(ir_home, two_versions) == "b"
    assert len(os.listdir(installs)) == 1  # ... is gone after the next one
    assert ir_datasets.load(f"{DATASET}/test").docs_store().count() == 20_001
