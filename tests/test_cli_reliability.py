"""The command line when things go wrong: Ctrl-C, bad output paths, bad files met half-way,
a read-only ir_datasets home. Real processes (the console script) where signals or users
are involved; the files are the shipped demo corpus or GENERATED ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from datasets_fixtures import ARSYTA_FILES, write_arsyta_folder, write_generated_corpus
from hub_server import HubState, hub  # noqa: F401 (the loopback Hub fixture)

from citeval_irm.cli import EXIT_INTERRUPTED, main
from citeval_irm.datasets.arsyta import ARSYTA_HUB

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

CITEVAL = Path(sys.executable).with_name("citeval")


def _environment(home: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEVAL_")}
    return {**env, "IR_DATASETS_HOME": str(home), **extra}


def test_ctrl_c_during_an_export_exits_130(tmp_path: Path, ir_home: Path) -> None:
    """The export blocks on a full pipe (nobody reads it) when Ctrl-C comes; ir_datasets'
    export would swallow the KeyboardInterrupt and exit 0."""
    process = subprocess.Popen(
        [CITEVAL, "datasets", "export", "citeval/demo", "docs"],
        env=_environment(ir_home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout.readline()  # it has started writing
    time.sleep(2)  # and filled the pipe
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == EXIT_INTERRUPTED == 130
    assert b"citeval: interrupted" in err


def test_ctrl_c_during_a_download_exits_130_and_leaves_nothing(
    tmp_path: Path,
    ir_home: Path,
    hub: HubState,  # noqa: F811 (the loopback Hub, selected with HF_ENDPOINT)
) -> None:
    """Ctrl-C while huggingface_hub is receiving a file (trickled by the loopback Hub): exit
    130 and nothing half-made, neither in the ir_datasets home (no file, no record) nor in
    the Hugging Face cache (huggingface_hub 1.x downloads to a file of its own process and
    removes it when interrupted: no partial blob, no snapshot link; its lock files stay);
    the next run downloads the file whole."""
    write_arsyta_folder(tmp_path / "served", hosted=True)
    hub.revision = ARSYTA_HUB.revision
    hub.repos[ARSYTA_HUB.repo_id] = {
        n: (tmp_path / "served" / n).read_bytes() for n in ARSYTA_FILES
    }
    hub.trickle.update(ARSYTA_FILES)
    export = [CITEVAL, "datasets", "export", "citeval/arsyta/test", "qrels"]
    process = subprocess.Popen(
        export, env=_environment(ir_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    cache = Path(os.environ["HF_HUB_CACHE"])
    deadline = time.monotonic() + 60
    # huggingface_hub's partial file (it writes received bytes in 10 MiB chunks: empty so
    # far), and the transfer under way
    while not (list(cache.rglob("*.incomplete")) and hub.gets()):
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out) == (130, b""), err
    assert b"citeval: interrupted" in err and b"Traceback" not in err
    in_home = [p for p in ir_home.rglob("*") if not p.is_dir() and p.suffix != ".lock"]
    assert in_home == []
    left = [p.relative_to(cache) for p in cache.rglob("*") if not p.is_dir()]
    # the cache's own marker and huggingface_hub's lock files, nothing of the file
    kept = [p for p in left if p != Path("CACHEDIR.TAG") and p.parts[0] != ".locks"]
    assert left and kept == [], left
    hub.trickle.clear()
    again = subprocess.run(export, env=_environment(ir_home), capture_output=True, timeout=120)
    assert again.returncode == 0 and len(again.stdout.splitlines()) == 3, again.stderr
    assert (ir_home / "citeval" / "arsyta" / "test_data.json").read_bytes() == hub.repos[
        ARSYTA_HUB.repo_id
    ]["test_data.json"]


def test_export_of_a_truncated_file_prints_nothing(
    tmp_path: Path,
    ir_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    """A split file cut short is found before the first line is printed, not after."""
    folder = tmp_path / "arsyta"
    written = write_arsyta_folder(folder)
    text = json.dumps(written["splits"]["test"])
    (folder / "test_data.json").write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(folder))
    code = main(["datasets", "export", "citeval/arsyta/test", "qrels"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert f"{folder / 'test_data.json'}: invalid JSON after record" in err


def test_bm25_to_a_folder_fails_before_ranking(tmp_path: Path, ir_home: Path, capsys) -> None:
    started = time.monotonic()
    code = main(["baseline", "bm25", "--dataset", "citeval/demo/test", "-o", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"citeval: error: {tmp_path}: is a folder: give the name of the file to write" in err
    assert time.monotonic() - started < 5 and "BM25" not in err
    assert not (ir_home / "citeval" / "demo").exists()  # nothing was indexed or built
    missing = tmp_path / "no" / "run.trec"
    assert main(["baseline", "bm25", "--dataset", "citeval/demo/test", "-o", str(missing)]) == 2
    assert f"there is no folder {missing.parent}" in capsys.readouterr().err


def test_an_interrupted_bm25_run_leaves_no_run_file(
    tmp_path: Path,
    ir_home: Path,
) -> None:
    corpus = tmp_path / "corpus"
    write_generated_corpus(corpus, papers=100_000, per_split=50)
    out = tmp_path / "runs" / "bm25.trec"
    out.parent.mkdir()
    env = _environment(ir_home, CITEVAL_REFSEER_DIR=str(corpus))
    process = subprocess.Popen(
        [CITEVAL, "baseline", "bm25", "--dataset", "citeval/refseer/test", "-o", str(out)],
        env=env,
        stderr=subprocess.PIPE,
    )
    home = ir_home / "citeval" / "refseer"
    deadline = time.monotonic() + 120
    while not list(home.glob(".in-place/*.json")):  # the folder passed its checks: indexing
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.02)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and b"citeval: interrupted" in err
    assert list(out.parent.iterdir()) == []  # neither the run nor a part of it
    assert not list(home.glob(".*.building-*"))


def _read_only(folder: Path) -> bool:
    """Make ``folder`` read-only, for root too (the immutable attribute); whether it is."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    else:
        folder.chmod(0o555)
    return not os.access(folder, os.W_OK)


def _writable_again(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True, check=False)
    folder.chmod(0o755)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX users")
def test_a_read_only_home_breaks_only_what_needs_the_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "run.trec").write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d2 1\n")
    if not _read_only(home):
        _writable_again(home)
        pytest.skip("cannot make a folder read-only here")
    try:
        scratch = tmp_path / "tmp"  # where ir_datasets' import gets its scratch home
        scratch.mkdir()
        env = {**_environment(home), "TMPDIR": str(scratch)}

        def citeval(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                [CITEVAL, *args], env=env, capture_output=True, text=True, cwd=tmp_path
            )

        result = citeval("eval", "run.trec", "--qrels", "qrels.txt", "-m", "RR")
        assert result.returncode == 0 and "RR  0.5000" in result.stdout, result.stderr
        result = citeval("protocols")
        assert result.returncode == 0, result.stderr
        result = citeval("datasets", "export", "citeval/demo/test", "qrels")  # no store needed
        assert result.returncode == 0 and len(result.stdout.splitlines()) == 163, result.stderr
        result = citeval("baseline", "bm25", "--dataset", "citeval/demo/test", "-o", "x.trec")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert f"cannot lock {home}" in result.stderr and "writable" in result.stderr
        assert not (tmp_path / "x.trec").exists()
        assert list(scratch.iterdir()) == []  # each process removed its scratch home
    finally:
        _writable_again(home)
