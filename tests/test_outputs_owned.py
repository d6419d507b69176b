"""Nothing the user owns is deleted or overwritten: the overwrite rule (``--force``) of every
command that writes, the user's umask and a replaced file's permissions, the leftovers of
killed runs (named, found and removed; never read as data), ``citeval import`` next to a
user's own link or folder, and arguments and environments that are an error before any
work. Through the CLI (in-process) on small GENERATED files."""

from __future__ import annotations

import dataclasses
import os
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from datasets_fixtures import write_hatten_folder

from citeval_irm.base.downloads import write_record
from citeval_irm.base.outputs import remove_orphans, work_path
from citeval_irm.cli import build_parser, main
from citeval_irm.datasets import CORPORA, PublishedCounts
from citeval_irm.reading import io

QRELS = "".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(6) for d in range(8))
RUN = "".join(f"q{q} Q0 d{d} {d + 1} {10 - d} r\n" for q in range(6) for d in range(8))


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    return tmp_path / "run.trec", tmp_path / "qrels.txt"


def _cli(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _orphan_of(target: Path, pid: int, folder: bool) -> Path:
    """A leftover named as a process ``pid`` of this machine would have named it."""
    live = work_path(target)
    name = live.name.replace(f"-{os.getpid()}-", f"-{pid}-")
    orphan = live.with_name(name)
    if folder:
        orphan.mkdir()
        (orphan / "part-00000.parquet").write_bytes(b"PAR1 half a file")
    else:
        orphan.write_bytes(b"half a file")
    return orphan


# --------------------------------------------------------------------------- overwrite rule


def test_every_writing_command_refuses_an_existing_output_without_force(files, capsys) -> None:
    run, qrels = files
    report = run.with_name("report.html")
    report.write_text("my own notes")
    status, _, err = _cli(capsys, "eval", run, "--qrels", qrels, "-m", "AP", "--report", report)
    assert status == 2 and "exists: give --force to replace it" in err
    assert report.read_text() == "my own notes"
    status, out, _ = _cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "AP", "--report", report, "--force"
    )
    assert status == 0 and "AP" in out and "<html" in report.read_text().lower()
    named = [f"a={run}", f"b={run}"]
    status, _, err = _cli(
        capsys, "compare", *named, "--qrels", qrels, "-m", "AP", "--report", report
    )
    assert status == 2 and "exists: give --force" in err
    for command in (["demo", "--report", report], ["demo", "--no-report", "-o", report]):
        status, _, err = _cli(capsys, *command)
        assert status == 2 and "exists: give --force" in err  # before the ranking
    bm25 = ["baseline", "bm25", "--dataset", "citeval/demo/test", "-o", report]
    status, _, err = _cli(capsys, *bm25)
    assert status == 2 and "exists: give --force" in err
    assert "<html" in report.read_text().lower()


def test_every_writing_command_says_the_rule_in_its_help() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    writers = ["eval", "crosscheck", "compare", "demo", "convert"]
    for name in writers:
        assert "--force" in commands[name].format_help(), name
    baseline = commands["baseline"]._subparsers._group_actions[0].choices["bm25"]
    assert "--force" in baseline.format_help()
    assert "-q, --quiet" in commands["convert"].format_help()


def test_convert_one_rule_for_files_and_folders(files, capsys) -> None:
    run, _ = files
    target = run.with_name("run.parquet")
    assert _cli(capsys, "convert", run, target, "-q")[0] == 0
    before = target.read_bytes()
    status, _, err = _cli(capsys, "convert", run, target)
    assert status == 2 and "exists: give --force" in err and target.read_bytes() == before
    # --partition-rows onto an existing file: refused before any work, --force or not
    for force in ([], ["--force"]):
        status, _, err = _cli(capsys, "convert", run, target, "--partition-rows", "10", *force)
        assert status == 2 and "is a file: a partitioned run is written as a folder" in err
    assert target.read_bytes() == before
    assert sorted(p.name for p in run.parent.iterdir()) == ["qrels.txt", "run.parquet", "run.trec"]
    # a folder of parts: replaced with --force only; a folder holding anything else never
    parts = run.with_name("parts")
    assert _cli(capsys, "convert", run, parts, "--partition-rows", "1")[0] == 0
    first = len(list(parts.iterdir()))
    status, _, err = _cli(capsys, "convert", run, parts, "--partition-rows", "1")
    assert status == 2 and "exists: give --force" in err
    assert _cli(capsys, "convert", run, parts, "--partition-rows", "1000", "--force")[0] == 0
    # replaced as a whole: no part of the earlier conversion is left to be read
    assert len(list(parts.iterdir())) < first
    assert len(io.read_run(parts, duplicates="keep_all")) == len(RUN.splitlines())
    (parts / "notes.txt").write_text("mine")
    status, _, err = _cli(capsys, "convert", run, parts, "--partition-rows", "20", "--force")
    assert status == 2 and "holds other files" in err
    assert (parts / "notes.txt").read_text() == "mine"


# --------------------------------------------------------------------------- permissions


@pytest.mark.slow
@pytest.mark.parametrize("umask", [0o077, 0o002])
def test_files_respect_the_umask_and_replacing_keeps_permissions(files, capsys, umask) -> None:
    run, qrels = files
    previous = os.umask(umask)
    try:
        target, parts = run.with_name("run.parquet"), run.with_name("parts")
        report = run.with_name("report.md")
        assert _cli(capsys, "convert", run, target)[0] == 0
        assert _cli(capsys, "convert", run, parts, "--partition-rows", "10")[0] == 0
        assert _cli(capsys, "eval", run, "--qrels", qrels, "-m", "AP", "--report", report)[0] == 0
        for path in (target, report, *parts.iterdir()):
            assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
        assert stat.S_IMODE(parts.stat().st_mode) == 0o777 & ~umask
        os.chmod(target, 0o640)
        os.chmod(report, 0o604)
        assert _cli(capsys, "convert", run, target, "--force")[0] == 0
        io.write_run(io.read_run(run), report.with_suffix(".trec"))
        assert (
            _cli(capsys, "eval", run, "--qrels", qrels, "-m", "P@5", "--report", report, "--force")[
                0
            ]
            == 0
        )
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        assert stat.S_IMODE(report.stat().st_mode) == 0o604
        assert "P@5" in report.read_text()
        assert stat.S_IMODE(report.with_suffix(".trec").stat().st_mode) == 0o666 & ~umask
    finally:
        os.umask(previous)


# --------------------------------------------------------------------------- leftovers


def test_leftovers_of_killed_processes_are_removed_and_never_read(files, capsys) -> None:
    run, qrels = files
    parts = run.with_name("parts")
    dead = _dead_pid()
    orphan_folder = _orphan_of(parts, dead, folder=True)
    live_folder = _orphan_of(parts, os.getppid(), folder=True)  # a live process's work
    mine = run.with_name(".parts.notes")  # a hidden file of the user's, beside it
    mine.write_text("mine")
    assert _cli(capsys, "convert", run, parts, "--partition-rows", "10")[0] == 0
    assert not orphan_folder.exists() and live_folder.exists() and mine.read_text() == "mine"
    report = run.with_name("report.html")
    orphan_file = _orphan_of(report, dead, folder=False)
    assert _cli(capsys, "eval", run, "--qrels", qrels, "-m", "AP", "--report", report)[0] == 0
    assert not orphan_file.exists()
    # a folder read as a Parquet run skips hidden folders (a conversion's work in progress)
    # and _ ones (Spark's _temporary/): only the finished parts are data
    hidden = parts / ".half.citeval-x-1-00000000"
    hidden.mkdir()
    pq.write_table(pq.read_table(parts / "part-00000.parquet"), hidden / "part-00000.parquet")
    (parts / "_temporary").mkdir()
    pq.write_table(pq.read_table(parts / "part-00000.parquet"), parts / "_temporary" / "p.parquet")
    assert len(io.read_run(parts, duplicates="keep_all")) == len(io.read_run(run))
    assert remove_orphans(parts) == 0  # not work of this machine's form: never touched
    assert hidden.exists()


# --------------------------------------------------------------------------- import

NAME = "fulltextpeerread"
PER_SPLIT = 6


@pytest.fixture
def download(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A good HAtten folder the user downloaded, plus an unrelated file of theirs."""
    path = tmp_path / "Downloads" / "FTPR"
    written = write_hatten_folder(path, per_split=PER_SPLIT)
    counts = PublishedCounts(len(written["papers"]), PER_SPLIT, PER_SPLIT, PER_SPLIT)
    monkeypatch.setitem(CORPORA, NAME, dataclasses.replace(CORPORA[NAME], counts=counts))
    (path / "thesis.tex").write_text("years of work")
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_import_never_removes_a_users_link_or_folder(download, ir_home, capsys) -> None:
    before = _tree(download)
    home = ir_home / "citeval" / NAME
    home.parent.mkdir(parents=True)
    home.symlink_to(download)  # the user pointed the install path at their folder
    for source in (download, home):  # importing from the linked folder, or through the link
        status, _, err = _cli(capsys, "import", NAME, source)
        assert status == 2 and "is a link to" in err and "did not make" in err
        assert "CITEVAL_FULLTEXTPEERREAD_DIR" in err
        assert home.is_symlink() and _tree(download) == before
    home.unlink()
    home.mkdir()  # a plain folder of the user's, with their files
    (home / "papers.json").write_bytes((download / "papers.json").read_bytes())
    (home / "my-notes.txt").write_text("mine")
    (home / ".hidden-notes").write_text("mine too")
    status, _, err = _cli(capsys, "import", NAME, download)
    assert status == 2
    assert "files citeval did not put there (.hidden-notes, my-notes.txt, papers.json)" in err
    assert sorted(p.name for p in home.iterdir()) == [
        ".hidden-notes",
        "my-notes.txt",
        "papers.json",
    ]
    # the package's own downloads (recorded) are its own: replaced by the import
    (home / "my-notes.txt").unlink()
    (home / ".hidden-notes").unlink()
    write_record(home / "papers.json", "https://example.org/papers.json")
    assert _cli(capsys, "import", NAME, download)[0] == 0
    assert home.is_symlink() and (home / "test.json").is_file()
    assert _tree(download) == before
    # and a link into the package's installs whose target lost its marker is not its own
    (home.resolve() / ".citeval-install").unlink()
    (home.resolve() / "thesis.tex").write_text("someone's")
    status, _, err = _cli(capsys, "import", NAME, download)
    assert status == 2 and "did not make" in err


# --------------------------------------------------------------------------- arguments


def test_bad_arguments_and_environments_fail_before_any_work(
    files, capsys, monkeypatch, tmp_path
) -> None:
    run, qrels = files
    target = tmp_path / "out.parquet"
    for rows in ("0", "-5"):
        status, _, err = _cli(capsys, "convert", run, target, "--partition-rows", rows)
        assert status == 2 and f"whole number, 1 or more, not {rows}" in err
    status, _, err = _cli(capsys, "convert", qrels, target, "--qrels", "--partition-rows", "5")
    assert status == 2 and "partition rows are for runs" in err
    named = [f"a={run}", f"b={run}"]
    status, _, err = _cli(capsys, "compare", *named, "--qrels", qrels, "-m", "AP", "--seed", "-1")
    assert status == 2 and "the seed must be a whole number, 0 or more, not -1" in err
    status, _, err = _cli(
        capsys, "eval", "nosuch://bucket/run.parquet", "--qrels", qrels, "-m", "AP"
    )
    assert status == 2 and "unknown URL scheme 'nosuch'" in err
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        status, _, err = _cli(
            capsys, "eval", "http://127.0.0.1:9/r.parquet", "--qrels", qrels, "-m", "AP"
        )
        assert status == 2 and "reading http:// URLs needs more packages" in err
    for home, said in ((str(qrels), "which is a file, not a folder"), ("", "set but empty")):
        monkeypatch.setenv("IR_DATASETS_HOME", home)
        status, _, err = _cli(capsys, "validate", run, "--dataset", "citeval/demo/test")
        assert status == 2 and said in err and "IR_DATASETS_HOME" in err
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt", "run.trec"]
