"""Shared test helpers for the dataset and download tests (not a conftest, on purpose).

- ``http_files``: a loopback HTTP server (127.0.0.1, a thread) serving in-memory files, with
  paths that misbehave on request: ``/truncated/NAME`` (announces more bytes than it sends),
  ``/status/500/NAME`` (server error), ``/flaky/NAME`` (a 500 on the first request only).
  No test ever contacts another host.
- ``shared_data``: the real reference data beside the repository (``../shared/data``);
  skipped when absent locally, a failure when ``CI`` is set.
- ``write_hatten_folder``: a small corpus in the exact HAtten layout for a sample of real
  ACL-200 context ids, with synthetic text (labelled as such).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from reference_data import SHARED_DATA, require

SPLITS = ("train", "val", "test")


@dataclass
class FileServer:
    """What the loopback server serves, and the paths it was asked for."""

    base_url: str
    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    failed_once: set[str] = field(default_factory=set)


def _handler(server_state: FileServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            path = self.path.lstrip("/")
            server_state.requests.append(path)
            if path.startswith("status/500/"):
                self.send_error(500, "Internal Server Error")
                return
            if path.startswith("flaky/"):
                path = path[len("flaky/") :]
                if path not in server_state.failed_once:
                    server_state.failed_once.add(path)
                    self.send_error(500, "Internal Server Error")
                    return
            truncated = path.startswith("truncated/")
            if truncated:
                path = path[len("truncated/") :]
            body = server_state.files.get(path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body) + (1000 if truncated else 0)))
            self.end_headers()
            self.wfile.write(body)
            if truncated:
                self.close_connection = True

    return Handler


@pytest.fixture
def http_files() -> Iterator[FileServer]:
    """A loopback HTTP server on a free port, stopped after the test."""
    state = FileServer(base_url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def ir_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ir_datasets home (and temp folder) for one test; no user folder set."""
    home = tmp_path / "ir_datasets_home"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.setenv("IR_DATASETS_TMP", str(tmp_path / "ir_datasets_tmp"))
    for name in ("ACL_200", "FULLTEXTPEERREAD", "REFSEER", "ARXIV", "DEMO"):
        monkeypatch.delenv(f"CITEVAL_{name}_DIR", raising=False)
    monkeypatch.delenv("CITEVAL_ACL_200_BASE_URL", raising=False)
    return home


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One ir_datasets home for a whole test module, so the citeval/demo stores are built
    once per module (the demo's files come from the package)."""
    home = tmp_path_factory.mktemp("ir_datasets_home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(home))
        patch.delenv("CITEVAL_DEMO_DIR", raising=False)
        yield home


def shared_data(*parts: str) -> Path:
    """A path under ``../shared/data``; skip if it is absent, but fail under CI."""
    return require(SHARED_DATA.joinpath(*parts))


def load_real_split(split: str) -> list[dict]:
    """The official ACL-200 split file (HAtten ``data/custom``), parsed."""
    with open(shared_data("acl-200", "hatten-splits", f"{split}.json"), encoding="utf-8") as f:
        return json.load(f)


def citing_id_of(context_id: str, cited_id: str) -> str:
    """The citing paper of a ``<citing>_<cited>_<n>`` context id."""
    head, _, _ = context_id.rpartition("_")
    suffix = f"_{cited_id}"
    assert head.endswith(suffix), (context_id, cited_id)
    return head[: -len(suffix)]


def write_hatten_folder(folder: Path, per_split: int = 20) -> dict:
    """Write a HAtten-layout corpus for the first ``per_split`` real contexts of each
    ACL-200 split: the split files keep the real entries; ``contexts.json`` and
    ``papers.json`` hold SYNTHETIC text (the real ones are not in the repository), for the
    cited and citing papers plus two papers nobody cites. Returns what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    splits = {s: load_real_split(s)[:per_split] for s in SPLITS}
    contexts: dict[str, dict] = {}
    paper_ids: list[str] = []
    for split, entries in splits.items():
        for n, entry in enumerate(entries):
            context_id = entry["context_id"]
            cited = entry["positive_ids"][0]
            citing = citing_id_of(context_id, cited)
            field_name = "ref_id" if n % 5 == 4 else "refid"  # both spellings occur
            contexts[context_id] = {
                "masked_text": f"synthetic {split} context {n} before TARGETCIT ; OTHERCIT after",
                "context_id": context_id,
                "citing_id": citing,
                field_name: cited,
            }
            paper_ids.extend(p for p in (cited, citing) if p not in paper_ids)
    paper_ids.extend(["X98-9001", "W13-9002"])  # never cited: still candidates
    papers = {
        pid: {"title": f"Synthetic title {pid}", "abstract": f"Synthetic abstract of {pid}."}
        for pid in paper_ids
    }
    papers["X98-9001"]["venue"] = "an extra key, ignored by the loader"
    (folder / "contexts.json").write_text(json.dumps(contexts), encoding="utf-8")
    (folder / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    for split, entries in splits.items():
        (folder / f"{split}.json").write_text(json.dumps(entries), encoding="utf-8")
    return {"splits": splits, "contexts": contexts, "papers": papers}
