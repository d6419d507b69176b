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
from datasets_fixtures import write_arsyta_folder, write_hatten_folder

from citeval_irm.cli import main
from citeval_irm.datasets import CORPORA, PublishedCounts

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


def test_a_download_onto_a_full_disk(disk: Path, tmp_path: Path, monkeypatch, http_files, capsys):
    folder = tmp_path / "served"
    write_arsyta_folder(folder)
    for path in folder.iterdir():
        http_files.files[path.name] = path.read_bytes()
    home = disk / "ir_datasets"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.setenv("CITEVAL_ARSYTA_BASE_URL", http_files.base_url)
    monkeypatch.delenv("CITEVAL_ARSYTA_DIR", raising=False)
    home.mkdir()
    fill(disk, leave=4096)
    status = main(["datasets", "export", "citeval/arsyta/test", "qrels"])
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("citeval: error:")]
    assert status == 2 and len(errors) == 1 and "No space left on device" in errors[0], err
    assert out == "" and "Traceback" not in err
    left = [p.name for p in home.rglob("*") if p.is_file() and not p.name.endswith(".lock")]
    assert left == []  # no .part, no half a file, no file without its record
