"""Downloading data files: progress, atomic writes, checksums.

A dataset file is only useful if it is the file the benchmark was published with, so every
download can be checked against an md5, a sha256 or a git blob id (what GitHub shows for a
file, ``sha1("blob <size>\\0" + content)``). Bytes go to a temporary file beside the target
and are renamed into place only once complete and verified: a failed, truncated or
mismatching transfer never leaves a file that a later run would trust.

Some corpora publish no checksum at all (ArSyTa and MasterSet on Hugging Face). For those,
``download(..., record=True)`` writes a small record beside the file (``NAME.download.json``:
where it came from, its size and sha256), and later loads check the file against it: a
file that changed after it was fetched is an error, not a silently different benchmark.

Generic on purpose: the HAtten loaders and the Hugging Face loaders use the same function.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .errors import CitevalError

ALGORITHMS = ("md5", "sha256", "git-blob-sha1")
_HEX_LENGTH = {"md5": 32, "sha256": 64, "git-blob-sha1": 40}
_CHUNK = 1 << 20
_USER_AGENT = "citeval-irm (+https://pypi.org/project/citeval-irm/)"


class DownloadError(CitevalError):
    """A file could not be fetched (network error, HTTP error, truncated transfer);
    ``status`` is the HTTP status when the server answered with an error."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class ChecksumError(DownloadError):
    """A file's content is not the published one. Names the file and both checksums."""

    def __init__(self, name: str, algorithm: str, expected: str, actual: str, note: str = ""):
        self.name = name
        self.algorithm = algorithm
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{name}: checksum mismatch: expected {algorithm} {expected}, got {actual}{note}"
        )


@dataclass(frozen=True)
class Checksum:
    """An expected checksum: ``algorithm`` is one of :data:`ALGORITHMS`, ``value`` hex."""

    algorithm: str
    value: str

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown checksum algorithm {self.algorithm!r}: use {ALGORITHMS}")
        value = self.value.lower()
        if len(value) != _HEX_LENGTH[self.algorithm] or not all(
            c in "0123456789abcdef" for c in value
        ):
            raise ValueError(f"{self.value!r} is not a {self.algorithm} hex digest")
        object.__setattr__(self, "value", value)

    def __str__(self) -> str:
        return f"{self.algorithm}:{self.value}"


def file_checksum(path: str | os.PathLike, algorithm: str) -> str:
    """The hex checksum of a file under ``algorithm`` (read in 1 MiB chunks)."""
    path = Path(path)
    if algorithm == "git-blob-sha1":
        hasher = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    elif algorithm in ALGORITHMS:
        hasher = hashlib.new(algorithm)
    else:
        raise ValueError(f"unknown checksum algorithm {algorithm!r}: use {ALGORITHMS}")
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def verify_file(path: str | os.PathLike, expected: Checksum, *, name: str | None = None) -> None:
    """Raise :class:`ChecksumError` (naming ``name`` or the path, and both checksums) unless
    the file has the ``expected`` checksum."""
    actual = file_checksum(path, expected.algorithm)
    if actual != expected.value:
        raise ChecksumError(name or str(path), expected.algorithm, expected.value, actual)


RECORD_SUFFIX = ".download.json"


def record_path(path: str | os.PathLike) -> Path:
    """Where the record of ``path`` is kept: ``NAME.download.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + RECORD_SUFFIX)


def _stat(path: Path) -> dict:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_json(path: Path, value: dict) -> None:
    part = path.with_name(f".{path.name}.part")
    part.write_text(json.dumps(value, indent=1) + "\n", encoding="utf-8")
    os.replace(part, path)


def write_record(path: str | os.PathLike, origin: str) -> dict:
    """Record the size and sha256 of a file that has no published checksum, and where it
    came from (a URL or a folder), in :func:`record_path`; return the record."""
    path = Path(path)
    record = {
        "file": path.name,
        "origin": origin,
        "sha256": file_checksum(path, "sha256"),
        "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **_stat(path),
    }
    _write_json(record_path(path), record)
    return record


def read_record(path: str | os.PathLike) -> dict | None:
    """The record of ``path``, or ``None`` if it has none (or an unreadable one)."""
    try:
        record = json.loads(record_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "sha256" in record else None


def verify_record(path: str | os.PathLike) -> None:
    """Raise :class:`ChecksumError` if ``path`` is not the file its record describes; a file
    without a record passes. The sha256 is recomputed only when size or mtime changed."""
    path = Path(path)
    record = read_record(path)
    if record is None:
        return
    stat = _stat(path)
    if stat == {"size": record.get("size"), "mtime_ns": record.get("mtime_ns")}:
        return
    actual = file_checksum(path, "sha256")
    if actual != record["sha256"]:
        raise ChecksumError(
            f"{path} (changed since it was recorded from {record.get('origin')}; delete it "
            f"and {record_path(path).name} to fetch it again)",
            "sha256",
            record["sha256"],
            actual,
        )
    _write_json(record_path(path), {**record, **stat})  # touched, same content


def _progress_bar(total: int | None, desc: str, enabled: bool | None):
    from tqdm import tqdm

    # disable=None lets tqdm hide the bar when stderr is not a terminal (logs, CI).
    return tqdm(
        total=total,
        desc=desc,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        disable=None if enabled is None else not enabled,
    )


class _Retryable(DownloadError):
    """A failure worth another try: server error, dropped connection, truncation."""


def _fetch_once(
    url: str, handle, desc: str, progress: bool | None, timeout: float, headers: Mapping
) -> int:
    """Stream ``url`` into ``handle`` (truncated first); return the byte count."""
    handle.seek(0)
    handle.truncate()
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT, **headers})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length is not None and length.isdigit() else None
            received = 0
            with _progress_bar(total, desc, progress) as bar:
                while chunk := response.read(_CHUNK):
                    handle.write(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
    except urllib.error.HTTPError as exc:
        problem = f"{url}: HTTP {exc.code} {exc.reason}"
        if exc.code >= 500 or exc.code == 429:
            raise _Retryable(problem, exc.code) from None
        raise DownloadError(problem, exc.code) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        # timeouts, refused or dropped connections, IncompleteRead
        reason = getattr(exc, "reason", exc)
        raise _Retryable(f"{url}: {type(exc).__name__}: {reason}") from None
    if total is not None and received != total:
        raise _Retryable(f"{url}: truncated transfer: got {received} of {total} bytes")
    return received


def download(
    url: str,
    dest: str | os.PathLike,
    checksum: Checksum | None = None,
    *,
    desc: str | None = None,
    progress: bool | None = None,
    tries: int = 3,
    retry_wait: float = 2.0,
    timeout: float = 60.0,
    headers: Mapping[str, str] | None = None,
    record: bool = False,
) -> Path:
    """Fetch ``url`` to ``dest`` atomically and verify it; return ``dest``.

    An existing ``dest`` that passes the checksum is kept without a request (one that fails
    it is fetched again). Server errors (5xx), dropped connections and truncated transfers
    are retried ``tries`` times, waiting ``retry_wait`` seconds, doubled each time; other
    HTTP errors (404, 403) fail at once. Raises :class:`DownloadError` or
    :class:`ChecksumError`; on any failure no file is left at ``dest`` nor beside it.
    ``progress=None`` shows a bar only on a terminal. ``record=True`` (for files without a
    published checksum) writes a :func:`write_record` after the download and checks an
    existing ``dest`` against its record (:func:`verify_record`) instead of re-fetching.
    """
    dest = Path(dest)
    name = desc or dest.name
    if dest.exists():
        if checksum is None:
            if record:
                verify_record(dest)
            return dest
        try:
            verify_file(dest, checksum, name=str(dest))
            return dest
        except ChecksumError:
            pass  # a stale or damaged copy: fetch it again
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            wait = retry_wait
            for attempt in range(1, max(tries, 1) + 1):
                try:
                    _fetch_once(url, handle, name, progress, timeout, headers or {})
                    break
                except _Retryable as exc:
                    if attempt >= tries:
                        raise DownloadError(
                            f"{exc} (gave up after {attempt} tries)", exc.status
                        ) from None
                    time.sleep(wait)
                    wait *= 2
        if checksum is not None:
            actual = file_checksum(part, checksum.algorithm)
            if actual != checksum.value:
                raise ChecksumError(
                    f"{dest} (from {url})",
                    checksum.algorithm,
                    checksum.value,
                    actual,
                    "; the downloaded file was removed",
                )
        os.chmod(part, 0o644)  # mkstemp makes it owner-only
        os.replace(part, dest)
    finally:
        if os.path.exists(part):
            os.remove(part)
    if record and checksum is None:
        write_record(dest, url)
    return dest


__all__ = [
    "ALGORITHMS",
    "Checksum",
    "ChecksumError",
    "DownloadError",
    "download",
    "file_checksum",
    "read_record",
    "record_path",
    "verify_file",
    "verify_record",
    "write_record",
]
