"""Corpora hosted on the Hugging Face Hub, downloaded through huggingface_hub from a loopback
server speaking the Hub's protocol (tests/hub_server.py), selected with HF_ENDPOINT: a good
download, a gated repository (HF_TOKEN), a missing file named before any transfer, a
corrupted file caught by its sha256, an interrupted transfer resumed, a trickling transfer
stopped by the download rule, a listing that is an HTML page; a Hub that cannot be reached
said at once; and, without the loopback Hub, the Hub client offline (the tests' guard)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import ARSYTA_FILES, write_arsyta_folder
from hub_server import hub, unreachable_hub  # noqa: F401 (the fixtures)

from citeval_irm.base.downloads import ChecksumError, file_checksum, read_record
from citeval_irm.cli import main
from citeval_irm.datasets import DataNotFoundError
from citeval_irm.datasets import sources as sources_module
from citeval_irm.datasets.arsyta import ARSYTA_HUB

REPO = ARSYTA_HUB.repo_id


@pytest.fixture
def served(hub, tmp_path: Path, ir_home: Path, monkeypatch):  # noqa: F811
    """ArSyTa's five files, generated under the Hub's names, in the loopback Hub at the
    pinned revision; the licence notice not yet shown."""
    written = write_arsyta_folder(tmp_path / "served", hosted=True)
    hub.revision = ARSYTA_HUB.revision
    hub.repos[REPO] = {n: (tmp_path / "served" / n).read_bytes() for n in ARSYTA_FILES}
    hub.repos[REPO]["README.md"] = b"# a dataset card\n"
    monkeypatch.setattr(sources_module, "_NOTICES_SHOWN", set())
    return hub, written


def test_good_download_is_listed_checked_linked_and_recorded(served, ir_home: Path, capfd):
    state, written = served
    dataset = ir_datasets.load("citeval/arsyta/test")
    queries = list(dataset.queries_iter())
    assert [q.heading for q in queries] == ["Related Work", "Introduction", "Background"]
    assert "CC BY-NC-ND 4.0" in capfd.readouterr().err
    # the repository is listed at the pinned revision before any file is transferred
    first_transfer = next(i for i, (m, p, _) in enumerate(state.log) if "/resolve/" in p)
    listing = f"/api/datasets/{REPO}/tree/{ARSYTA_HUB.revision}"
    assert any(p == listing for _, p, _ in state.log[:first_transfer])
    installed = ir_home / "citeval" / "arsyta"
    for name in ("test_data.json", "contexts.json"):
        path = installed / name
        assert path.read_bytes() == state.repos[REPO][name]
        record = read_record(path)
        resolve = f"{state.endpoint}/datasets/{REPO}/resolve/{state.revision}"
        assert record["origin"] == f"{resolve}/{name}"
        body = state.repos[REPO][name]
        algorithm = "sha256" if len(body) >= state.lfs_above else "git-blob-sha1"
        assert record["published"] == f"{algorithm}:{file_checksum(path, algorithm)}"
        assert path.stat().st_nlink == 2 or path.is_symlink()  # linked to the cache, not copied
    cache = Path(os.environ["HF_HUB_CACHE"])
    assert (cache / f"datasets--{REPO.replace('/', '--')}").is_dir()
    # a second load transfers nothing
    before = len(state.gets())
    assert len(list(dataset.qrels_iter())) == 3
    assert len(state.gets()) == before


def test_gated_repository_names_hf_token(served, monkeypatch, capsys):
    state, _ = served
    state.gated.add(REPO)
    with pytest.raises(DataNotFoundError) as info:
        list(ir_datasets.load("citeval/arsyta/test").qrels_iter())
    message = " ".join([str(info.value), *info.value.details])
    assert "gated or private on the Hub, no HF_TOKEN: accept its terms, set HF_TOKEN" in str(
        info.value
    )
    assert "gated or private" in message and "HTTP 401" in message
    assert "no HF_TOKEN" in message and "set HF_TOKEN" in message
    assert state.gets() == []
    assert main(["datasets", "export", "citeval/arsyta/test", "qrels"]) == 2
    assert "HF_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("HF_TOKEN", "hf_wrong")
    with pytest.raises(DataNotFoundError, match="HF_TOKEN is set but was refused"):
        list(ir_datasets.load("citeval/arsyta/test").qrels_iter())
    monkeypatch.setenv("HF_TOKEN", state.token)
    assert len(list(ir_datasets.load("citeval/arsyta/test").qrels_iter())) == 3


def test_missing_file_is_named_before_any_transfer(served, ir_home: Path):
    state, _ = served
    del state.repos[REPO]["contexts.json"]
    with pytest.raises(DataNotFoundError) as info:
        list(ir_datasets.load("citeval/arsyta/test").qrels_iter())
    message = " ".join([str(info.value), *info.value.details])
    assert str(info.value) == (
        f"citeval/arsyta: cannot download test_data.json (contexts.json not in {REPO}); get "
        "its files, then `citeval import arsyta DIR`"
    )
    assert "contexts.json not found in" in message
    assert f"/datasets/{REPO}/tree/{ARSYTA_HUB.revision}" in message
    assert "the repository holds: README.md (17 bytes), papers.json" in message
    assert "citeval import arsyta DIR" in message
    assert state.gets() == []  # not even the small split file was fetched
    assert not (ir_home / "citeval" / "arsyta" / "test_data.json").exists()


def test_corrupted_file_is_caught_by_its_sha256(served, ir_home: Path):
    state, _ = served
    state.corrupt.add("contexts.json")
    dataset = ir_datasets.load("citeval/arsyta/test")
    with pytest.raises(ChecksumError) as info:
        list(dataset.queries_iter())
    message = str(info.value)
    true_sha = file_checksum_of(state.repos[REPO]["contexts.json"])
    assert "contexts.json" in message and f"expected sha256 {true_sha}" in message
    assert "removed from the Hugging Face cache" in message
    assert not (ir_home / "citeval" / "arsyta" / "contexts.json").exists()
    cache = Path(os.environ["HF_HUB_CACHE"])
    blobs = cache / f"datasets--{REPO.replace('/', '--')}" / "blobs"
    assert true_sha not in {p.name for p in blobs.iterdir()}
    state.corrupt.clear()  # the host fixed: the next load downloads and checks again
    assert len(list(dataset.queries_iter())) == 3


def file_checksum_of(body: bytes) -> str:
    import hashlib

    return hashlib.sha256(body).hexdigest()


@pytest.mark.slow
def test_interrupted_transfer_is_resumed(served, ir_home: Path, monkeypatch):
    state, written = served
    # huggingface_hub writes what it received in chunks of DOWNLOAD_CHUNK_SIZE (10 MiB) and
    # resumes after the last whole one: a smaller chunk makes a small file behave so
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 128)
    state.cut_once.add("papers.json")
    docs = list(ir_datasets.load("citeval/arsyta").docs_iter())
    assert len(docs) == len(written["papers"])
    transfers = [r for m, p, r in state.log if m == "GET" and p.endswith("/papers.json")]
    body = state.repos[REPO]["papers.json"]
    resumed_at = (len(body) // 2) // 128 * 128
    assert resumed_at > 0 and transfers == ["", f"bytes={resumed_at}-"]
    assert (ir_home / "citeval" / "arsyta" / "papers.json").read_bytes() == body


def test_without_the_loopback_hub_nothing_is_contacted(ir_home: Path) -> None:
    """The tests' guard (conftest): a test that forgets the ``hub`` fixture finds the Hub
    client offline, in this process and in the commands it starts, and is told so at once,
    instead of reaching huggingface.co (or waiting out retries against a dead address)."""
    with pytest.raises(DataNotFoundError) as info:
        list(ir_datasets.load("citeval/arsyta/test").qrels_iter())
    message = " ".join([str(info.value), *info.value.details])
    assert "(HF_HUB_OFFLINE is set)" in str(info.value)
    assert "offline mode is enabled" in message and "HF_HUB_OFFLINE" in message
    assert "http://127.0.0.1:9/" in message and "citeval import arsyta DIR" in message
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEVAL_")}
    command = [Path(sys.executable).with_name("citeval"), "datasets", "export"]
    done = subprocess.run(
        [*command, "citeval/arsyta/test", "qrels"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "(HF_HUB_OFFLINE is set)" in done.stderr and "Traceback" not in done.stderr
    assert [p for p in ir_home.rglob("*") if not p.is_dir()] == []


def _one_error_line(err: str) -> tuple[str, str]:
    """The ``citeval: error:`` line of a command's standard error, checked to be the only
    one, with no traceback and none of huggingface_hub's retry chatter, and what
    ``--verbose`` says under it (its details, as one line)."""
    (line,) = [e for e in err.splitlines() if e.startswith("citeval: error:")]
    assert "Traceback" not in err and "Retrying" not in err and "resume" not in err, err
    assert len(line) < 220, line
    return line, " ".join(err.split(line, 1)[1].split())


def _partial_files(ir_home: Path) -> list[Path]:
    """Files in the home, and downloads under way in the Hugging Face cache."""
    cache = Path(os.environ["HF_HUB_CACHE"])
    return [p for p in ir_home.rglob("*") if not p.is_dir()] + list(cache.rglob("*.incomplete"))


@pytest.mark.slow
def test_a_trickling_hub_fails_by_the_download_rule(served, ir_home: Path, monkeypatch, capfd):
    """A byte every 0.3 s never trips huggingface_hub's read timeout; the rule every
    download follows (a minimum rate over CITEVAL_DOWNLOAD_TIMEOUT seconds, three tries)
    stops it, and nothing of it is left."""
    state, _ = served
    state.trickle.add("papers.json")
    state.trickle_every = 0.3
    monkeypatch.setenv("CITEVAL_DOWNLOAD_TIMEOUT", "1")
    started = time.monotonic()
    assert main(["--verbose", "datasets", "export", "citeval/arsyta/test", "docs"]) == 2
    assert time.monotonic() - started < 10  # three tries of 1 s, waits of 0.2 and 0.4 s
    line, details = _one_error_line(capfd.readouterr().err)
    assert "cannot download papers.json (stalled: CITEVAL_DOWNLOAD_MIN_RATE)" in line
    assert "stalled:" in details and "under the minimum rate" in details
    assert "CITEVAL_DOWNLOAD_MIN_RATE" in details and "gave up after 3 tries" in details
    assert [p for _, p, _ in state.log if p.endswith("/papers.json")].count(
        f"/datasets/{REPO}/resolve/{state.revision}/papers.json"
    ) >= 3
    assert _partial_files(ir_home) == []


@pytest.mark.parametrize(
    ("dataset_id", "name"),
    [("citeval/arsyta/test", "arsyta"), ("citeval/masterset-coreml-v1/test/core", "masterset")],
)
def test_an_unreachable_hub_is_said_at_once_with_how_to_go_offline(
    unreachable_hub,  # noqa: F811
    ir_home: Path,
    capfd,
    dataset_id: str,
    name: str,
):
    """Online, but the Hub cannot be reached (here: every connection refused): one error
    line within a second or two, saying what to run, not 24 s of huggingface_hub's
    retries; --verbose adds why and how to skip the Hub (HF_HUB_OFFLINE=1)."""
    started = time.monotonic()
    assert main(["datasets", "export", dataset_id, "qrels"]) == 2
    assert time.monotonic() - started < 5
    line, details = _one_error_line(capfd.readouterr().err)
    assert "(cannot reach 127.0.0.1:" in line and f"`citeval import {name}" in line, line
    assert line.endswith("DIR` (any output above is incomplete) (details: --verbose)")
    assert details == ""
    assert main(["--verbose", "datasets", "export", dataset_id, "qrels"]) == 2
    line, details = _one_error_line(capfd.readouterr().err)
    assert "cannot reach the host" in details and "Connection refused" in details, details
    assert "HF_HUB_OFFLINE=1" in details and "docs/guides/datasets.md" in details
    assert _partial_files(ir_home) == []


def test_a_listing_that_is_an_html_page_is_one_clear_error(served, ir_home: Path, capfd):
    """A listing answered 200 with a page (a proxy's, a maintenance page): said, naming
    the listing and what came, not a JSONDecodeError."""
    state, _ = served
    state.listing_page = b"<!DOCTYPE html><html><body>Down for maintenance</body></html>"
    assert main(["-v", "datasets", "export", "citeval/arsyta/test", "qrels"]) == 2
    line, details = _one_error_line(capfd.readouterr().err)
    assert "(the Hub's answer is no listing)" in line
    assert f"{state.endpoint}/api/datasets/{REPO}/tree/{ARSYTA_HUB.revision}" in details
    assert "not a listing of the Hub" in details and "text/html" in details
    assert "<!DOCTYPE" in details
    assert state.gets() == [] and _partial_files(ir_home) == []
