"""A loopback server speaking the Hugging Face Hub's protocol, for the download tests.

It answers what ``huggingface_hub`` asks (read in its source, ``hf_api.list_repo_tree``,
``file_download.get_hf_file_metadata`` and ``http_get``):

- ``GET /api/datasets/{repo}/tree/{revision}[/{folder}]``: the listing, JSON entries
  ``{"type": "file", "path", "size", "oid"}`` with ``"lfs": {"oid": sha256, "size",
  "pointerSize"}`` for LFS files (every file of ``lfs_above`` bytes or more);
- ``HEAD`` and ``GET /datasets/{repo}/resolve/{revision}/{path}``: ``X-Repo-Commit``,
  ``ETag`` (the git blob id, or for LFS the sha256 with ``X-Linked-Etag`` and
  ``X-Linked-Size``), ``Content-Length``, and ``Range`` requests answered ``206`` with
  ``Content-Range``;
- errors as the Hub gives them: ``401`` with ``X-Error-Code: GatedRepo`` for a gated
  repository without the token, ``404`` with ``X-Error-Code: EntryNotFound``.

Misbehaviour on request: ``corrupt`` (paths whose bytes are served with one byte changed,
the listing still publishing the true checksum), ``cut_once`` (paths whose first GET stops
halfway, closing the connection), ``trickle`` (paths whose body is sent a byte every
``trickle_every`` seconds, 50 ms unless set, for at most 20 s, so that a transfer is under
way long enough to be interrupted, or is too slow), ``listing_page`` (the listing answered
``200`` with this HTML page, as a proxy's or a maintenance page is). Every request is logged
(method, path, Range header). The server binds 127.0.0.1 and is selected with
``HF_ENDPOINT``; no other host is contacted. ``unreachable_hub``: the client online, pointed
at a loopback port nothing listens on (every connection refused).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote, urlsplit

import pytest
from datasets_fixtures import loopback_server, trickle

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def git_blob_id(body: bytes) -> str:
    return hashlib.sha1(f"blob {len(body)}\0".encode() + body).hexdigest()


@dataclass
class HubState:
    endpoint: str = ""
    repos: dict[str, dict[str, bytes]] = field(default_factory=dict)
    revision: str = COMMIT
    gated: set[str] = field(default_factory=set)
    token: str = "hf_test_token"
    corrupt: set[str] = field(default_factory=set)
    cut_once: set[str] = field(default_factory=set)
    trickle: set[str] = field(default_factory=set)
    trickle_every: float = 0.05
    listing_page: bytes | None = None
    lfs_above: int = 64
    log: list[tuple[str, str, str]] = field(default_factory=list)

    def gets(self) -> list[str]:
        """The paths of file transfers (GET on resolve), in order."""
        return [path for method, path, _ in self.log if method == "GET" and "/resolve/" in path]


def _handler(state: HubState):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _head(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()

        def _send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
            self._head(status, headers)
            if body and self.command != "HEAD":
                self.wfile.write(body)

        def _error(self, status: int, code: str, message: str) -> None:
            body = json.dumps({"error": message}).encode()
            headers = {"X-Error-Code": code, "X-Error-Message": message}
            headers.update({"Content-Type": "application/json", "Content-Length": str(len(body))})
            self._send(status, headers, body)

        def _allowed(self, repo: str) -> bool:
            if repo not in state.gated:
                return True
            return self.headers.get("Authorization") == f"Bearer {state.token}"

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve()

        def do_GET(self) -> None:  # noqa: N802
            self._serve()

        def _serve(self) -> None:
            path = unquote(urlsplit(self.path).path)
            state.log.append((self.command, path, self.headers.get("Range") or ""))
            if path.startswith("/api/datasets/"):
                return self._tree(path[len("/api/datasets/") :])
            if path.startswith("/datasets/"):
                return self._resolve(path[len("/datasets/") :])
            return self._error(404, "NotFound", "no such route")

        def _repo_of(self, rest: str, marker: str) -> tuple[str | None, str, str]:
            for repo in state.repos:
                prefix = f"{repo}/{marker}/"
                if rest.startswith(prefix):
                    revision, _, tail = rest[len(prefix) :].partition("/")
                    return repo, revision, tail
            return None, "", ""

        def _open_repo(self, rest: str, marker: str) -> tuple[str | None, str, str]:
            """The repository, revision and path of a request, or ``None`` for the repository
            once the Hub's error (not found, gated) is sent."""
            repo, revision, tail = self._repo_of(rest, marker)
            if repo is None:
                self._error(404, "RepoNotFound", "Repository not found")
            elif not self._allowed(repo):
                self._error(401, "GatedRepo", "Access to this dataset is restricted")
                repo = None
            return repo, revision, tail

        def _tree(self, rest: str) -> None:
            repo, revision, folder = self._open_repo(rest, "tree")
            if repo is None:
                return None
            if revision not in (state.revision, "main"):
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
            if state.listing_page is not None:
                page = state.listing_page
                headers = {"Content-Type": "text/html", "Content-Length": str(len(page))}
                return self._send(200, headers, page)
            entries = []
            prefix = f"{folder.strip('/')}/" if folder else ""
            for name, body in sorted(state.repos[repo].items()):
                if not name.startswith(prefix) or "/" in name[len(prefix) :]:
                    continue
                entry = {"type": "file", "oid": git_blob_id(body), "size": len(body), "path": name}
                if len(body) >= state.lfs_above:
                    sha = hashlib.sha256(body).hexdigest()
                    entry["lfs"] = {"oid": sha, "size": len(body), "pointerSize": 134}
                entries.append(entry)
            body = json.dumps(entries).encode()
            headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
            self._send(200, headers, body)

        def _resolve(self, rest: str) -> None:
            repo, revision, name = self._open_repo(rest, "resolve")
            if repo is None:
                return None
            body = state.repos[repo].get(name)
            if body is None:
                return self._error(404, "EntryNotFound", f"{name} does not exist")
            true_body = body
            if name in state.corrupt:
                body = body[:-2] + bytes([body[-2] ^ 0x01]) + body[-1:]
            headers = {"X-Repo-Commit": state.revision, "Accept-Ranges": "bytes"}
            if len(true_body) >= state.lfs_above:
                sha = hashlib.sha256(true_body).hexdigest()
                headers.update({"ETag": f'"{sha}"', "X-Linked-Etag": f'"{sha}"'})
                headers["X-Linked-Size"] = str(len(true_body))
            else:
                headers["ETag"] = f'"{git_blob_id(true_body)}"'
            start = 0
            ranged = self.headers.get("Range")
            if ranged and self.command == "GET":
                start = int(ranged.removeprefix("bytes=").split("-")[0])
                headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
            part = body[start:]
            headers["Content-Length"] = str(len(part))
            if self.command == "GET" and name in state.cut_once and not ranged:
                state.cut_once.discard(name)
                self._head(200, headers)
                self.wfile.write(part[: len(part) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            status = 206 if ranged and self.command == "GET" else 200
            if self.command == "GET" and name in state.trickle:
                return self._trickle(status, headers, part)
            self._send(status, headers, part)

        def _trickle(self, status: int, headers: dict[str, str], body: bytes) -> None:
            """``body`` a byte every ``trickle_every`` seconds, for at most 20 s (then the
            connection is closed); stops when the client goes away."""
            self._head(status, headers)
            self.close_connection = True
            trickle(self.wfile, body, every=state.trickle_every)

    return Handler


@pytest.fixture
def hub(tmp_path, monkeypatch) -> Iterator[HubState]:
    """A loopback Hub on a free port, selected with ``HF_ENDPOINT``; its cache in a
    temporary folder (``HF_HUB_CACHE``), no token, progress bars off."""
    state = HubState()
    with loopback_server(_handler(state)) as state.endpoint:
        yield from _hub_environment(state, tmp_path, monkeypatch)


@pytest.fixture
def unreachable_hub(tmp_path, monkeypatch) -> Iterator[HubState]:
    """The Hub client online but pointed at a loopback port nothing listens on (the
    discard port): every connection is refused at once, as for a user offline."""
    yield from _hub_environment(HubState("http://127.0.0.1:9"), tmp_path, monkeypatch)


def _hub_environment(state: HubState, tmp_path, monkeypatch) -> Iterator[HubState]:
    """The Hub client pointed at the loopback server, online (the tests' guard, in
    conftest, keeps it offline otherwise), with nothing of the user's."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_ENDPOINT", state.endpoint)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf_cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path / "no_token"))
    from citeval_irm.datasets import hub as hub_module

    hub_module._LISTINGS.clear()
    try:
        yield state
    finally:
        hub_module._LISTINGS.clear()
