"""A full disk while writing a report, a run, a conversion, a demo or an import: exit 2
with one ``citeval: error:`` line, the previous file or install intact, nothing
half-written left. The disk is a small tmpfs mounted for the test (skipped, saying why,
where mounting is not permitted); the files are GENERATED."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from datasets_fixtures import ARSYTA_FILES, write_arsyta_folder, write_hatten_folder
from hub_server import HubState, hub  # noqa: F401 (the loopback Hub fixture)

from citeval_irm.cli import main
from citeval_irm.datasets import CORPORA, PublishedCounts
from citeval_irm.datasets.arsyta import ARSYTA_HUB

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

SIZE = 4 << 20
QRELS = "".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(40) for d in range(50))
RUN = "".join(  # distinct ids and scores: a Parquet file far larger than the space left
    f"q{q} Q0 d{q}x{d} {d + 1} {1 / (d + 1 + q / 997):.12f} r\n"
    for q in range(40)
    for d in range(50)
)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs of its own (a real ENOSPC, not a simulated one)."""
    mount = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(
            "a full disk needs a small file system of its own, and mounting a tmpfs is not "
            f"permitted here ({done.stderr.strip() or done.returncode}); a loop-mounted "
            "image needs the same right"
        )
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int = 8192) -> None:
    """Take all the space of ``disk`` but ``leave`` bytes."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(disk / "filler", "ab") as handle:
        handle.write(b"\0" * max(free - leave, 0))


def _cli(capsys, *args) -> tuple[int, str]:
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err


def _clean_error(status: int, err: str, path: Path) -> None:
    errors = [line for line in err.splitlines() if line.startswith("citeval: error:")]
    assert status == 2 and len(errors) == 1, err
    assert f"cannot write {path}" in errors[0] and "No space left on device" in errors[0], err
    assert "Traceback" not in err


def _left(disk: Path) -> list[str]:
    return sorted(p.name for p in disk.iterdir())


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    return tmp_path / "run.trec", tmp_path / "qrels.txt"


def test_a_report_and_a_conversion_onto_a_full_disk(disk: Path, small, capsys) -> None:
    run, qrels = small
    report, target, parts = disk / "report.html", disk / "run.parquet", disk / "parts"
    report.write_text("the previous report")
    target.write_bytes(b"the previous conversion")
    fill(disk)
    evaluation = ["eval", run, "--qrels", qrels, "-m", "AP", "--report", report, "--force"]
    _clean_error(*_cli(capsys, *evaluation), report)
    _clean_error(*_cli(capsys, "convert", run, target, "--force"), target)
    _clean_error(*_cli(capsys, "convert", run, parts, "--partition-rows", "100"), parts)
    assert report.read_text() == "the previous report"
    assert target.read_bytes() == b"the previous conversion"
    assert _left(disk) == ["filler", "report.html", "run.parquet"]  # nothing half-written
    (disk / "filler").unlink()  # space again: the same commands work
    assert _cli(capsys, *evaluation)[0] == 0 and "<html" in report.read_text().lower()


def test_a_run_and_a_demo_onto_a_full_disk(disk: Path, demo_home, capsys) -> None:
    run = disk / "bm25.trec"
    run.write_text("the previous run\n")
    fill(disk, leave=4096)
    bm25 = ["baseline", "bm25", "--dataset", "citeval/demo/test", "-k", "50"]
    _clean_error(*_cli(capsys, *bm25, "-o", run, "--force"), run)
    report = disk / "demo.md"
    _clean_error(*_cli(capsys, "demo", "-k", "20", "--report", report), report)
    assert run.read_text() == "the previous run\n"
    assert _left(disk) == ["bm25.trec", "filler"]


NAME = "fulltextpeerread"


def test_an_import_onto_a_full_disk_keeps_the_install(
    disk: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    home = disk / "ir_datasets"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.delenv(CORPORA[NAME].env_var, raising=False)
    folders = {}
    for version, per_split in (("small", 6), ("large", 400)):
        folders[version] = tmp_path / version
        written = write_hatten_folder(folders[version], per_split=per_split)
        counts = PublishedCounts(len(written["papers"]), per_split, per_split, per_split)
        folders[version, "counts"] = counts
    monkeypatch.setitem(
        CORPORA, NAME, dataclasses.replace(CORPORA[NAME], counts=folders["small", "counts"])
    )
    assert _cli(capsys, "import", NAME, folders["small"])[0] == 0
    installs = sorted(os.listdir(home / "citeval" / f".{NAME}.installs"))
    large = sum(p.stat().st_size for p in folders["large"].iterdir())
    fill(disk, leave=large // 2)
    status, err = _cli(capsys, "import", NAME, folders["large"], "--allow-count-mismatch")
    _clean_error(status, err, home / "citeval" / NAME)
    assert sorted(os.listdir(home / "citeval" / f".{NAME}.installs")) == installs
    assert _cli(capsys, "verify", NAME)[0] == 0


@pytest.mark.parametrize("cache_on", ["the full disk", "another disk"])
def test_a_download_onto_a_full_disk(
    disk: Path,
    tmp_path: Path,
    monkeypatch,
    hub: HubState,  # noqa: F811 (the loopback Hub, selected with HF_ENDPOINT)
    capsys,
    cache_on: str,
):
    """ArSyTa from the (loopback) Hub onto a full disk, with the Hugging Face cache there
    too (``HF_HUB_CACHE`` on the disk of the ir_datasets home, the usual case: the
    transfer cannot be written) or elsewhere (the file reaches the cache, whole and
    checked, but its link and record cannot be written in the home). Either way one
    ``citeval: error:`` naming the folder, exit 2, nothing half-made; with space again
    the same command works (from the cache, when the file reached it)."""
    write_arsyta_folder(tmp_path / "served", hosted=True)
    hub.revision = ARSYTA_HUB.revision
    hub.repos[ARSYTA_HUB.repo_id] = {
        n: (tmp_path / "served" / n).read_bytes() for n in ARSYTA_FILES
    }
    home = disk / "ir_datasets"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.delenv("CITEVAL_ARSYTA_DIR", raising=False)
    cache = disk / "hf_cache" if cache_on == "the full disk" else Path(os.environ["HF_HUB_CACHE"])
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    home.mkdir()
    fill(disk, leave=4096)
    export = ["datasets", "export", "citeval/arsyta/test", "qrels"]
    status = main(export)
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("citeval: error:")]
    assert status == 2 and len(errors) == 1 and "No space left on device" in errors[0], err
    assert out == "" and "Traceback" not in err and "warnings.warn" not in err
    left = [p.name for p in home.rglob("*") if not p.is_dir() and not p.name.endswith(".lock")]
    assert left == []  # no half a file, no link without its record
    repo = cache / f"datasets--{ARSYTA_HUB.repo_id.replace('/', '--')}"
    cached = sorted(p.relative_to(repo).parts[0] for p in repo.rglob("*") if not p.is_dir())
    assert not list(cache.rglob("*.incomplete"))
    if cache_on == "the full disk":
        assert f"cannot write {repo / 'blobs'}: No space left on device" in errors[0]
        assert cached == []  # neither a blob nor a snapshot link
        # huggingface_hub's own warning, as the package's warnings are (not Python's form)
        assert "[WARNING] citeval/arsyta: test_data.json: Not enough free disk space" in err
    else:
        assert f"cannot write {home / 'citeval' / 'arsyta'}" in errors[0]
        assert cached == ["blobs", "snapshots"]  # the whole file, checked: kept for next time
    transfers = len(hub.gets())
    (disk / "filler").unlink()
    assert main(export) == 0 and len(capsys.readouterr().out.splitlines()) == 3
    assert len(hub.gets()) == transfers + (cache_on == "the full disk")
