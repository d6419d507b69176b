"""Downloading data files over plain HTTP: progress, atomic writes, checksums, records.

Corpora on the Hugging Face Hub are fetched by ``huggingface_hub``
(:mod:`citeval_irm.datasets.hub`); :func:`download` serves what no library does, the GitHub
raw files of ACL-200. A dataset file is only useful if it is the file the benchmark was
published with, so a download is checked against an md5, a sha256 or a git blob id (what
GitHub shows for a file, ``sha1("blob <size>\\0" + content)``). Bytes go to a temporary file
beside the target and are renamed into place only once complete and verified: a failed,
truncated or mismatching transfer never leaves a file that a later run would trust.

How long a download may take is one rule for every download, here and on the Hub
(:class:`Limits`, applied by a :class:`Transfer` and, per body received, its :class:`Pace`):
a minimum rate over a sliding window, so a trickling server fails where a per-read timeout
never trips, a few tries, an overall deadline; set with ``CITEVAL_DOWNLOAD_TIMEOUT`` and
``CITEVAL_DOWNLOAD_MIN_RATE``.

Every file a corpus reads from the ir_datasets home has a record beside it
(``NAME.download.json``: where it came from, its size, sha256 and a fingerprint, and the
published checksum it passed), written here after a download, by the Hub module or by
``citeval import``; later loads check the file against it (:func:`verify_record`): a file
that changed after it was fetched is an error, not a silently different benchmark.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from .contents import content_problem
from .errors import CitevalError, InputError
from .locking import exclusive
from .outputs import (
    WRITE_ERRNOS,
    OutputError,
    move_into_place,
    output_error,
    remove_orphans,
    work_path,
    write_atomically,
)

ALGORITHMS = ("md5", "sha256", "git-blob-sha1")
_HEX_LENGTH = {"md5": 32, "sha256": 64, "git-blob-sha1": 40}
_CHUNK = 1 << 20
_USER_AGENT = "citeval-irm (+https://pypi.org/project/citeval-irm/)"
T = TypeVar("T")


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
_RECORD_FIELDS = {"file": str, "origin": str, "sha256": str, "size": int, "mtime_ns": int}
_FINGERPRINT_BLOCKS = 16
_FINGERPRINT_BLOCK = 1 << 16


class RecordError(CitevalError):
    """A record (``NAME.download.json``) that cannot be read: not the absence of a record,
    which would let a changed file through unchecked."""


def record_path(path: str | os.PathLike) -> Path:
    """Where the record of ``path`` is kept: ``NAME.download.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + RECORD_SUFFIX)


def fingerprint(path: str | os.PathLike) -> str:
    """A fast sha256 over a file's size and 16 blocks of 64 KiB spread over it (its first
    and last included): reads about 1 MiB whatever the size, so it can run on every load."""
    path = Path(path)
    size = path.stat().st_size
    hasher = hashlib.sha256(str(size).encode())
    last = max(size - _FINGERPRINT_BLOCK, 0)
    with open(path, "rb") as handle:
        for block in range(_FINGERPRINT_BLOCKS):
            handle.seek(last * block // (_FINGERPRINT_BLOCKS - 1))
            hasher.update(handle.read(_FINGERPRINT_BLOCK))
    return hasher.hexdigest()


def _stat(path: Path) -> dict:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_json(path: Path, value: dict) -> None:
    write_atomically(path, json.dumps(value, indent=1) + "\n")


def write_record(path: str | os.PathLike, origin: str, published: Checksum | None = None) -> dict:
    """Record the size, sha256 and fingerprint of a file, where it came from (a URL or a
    folder) and the ``published`` checksum it passed, if any, in :func:`record_path`;
    return the record."""
    path = Path(path)
    record = {
        "file": path.name,
        "origin": origin,
        "sha256": file_checksum(path, "sha256"),
        "fingerprint": fingerprint(path),
        "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **_stat(path),
    }
    if published is not None:
        record["published"] = str(published)
    _write_json(record_path(path), record)
    return record


def read_record(path: str | os.PathLike) -> dict | None:
    """The record of ``path``, or ``None`` if it has none; a record that exists but cannot
    be read or lacks a field is a :class:`RecordError` naming it."""
    where = record_path(path)
    try:
        record = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RecordError(f"{where}: unreadable record ({exc}); {_refetch(path)}") from None
    bad = [
        key
        for key, kind in _RECORD_FIELDS.items()
        if not isinstance(record, dict) or not isinstance(record.get(key), kind)
    ]
    if bad:
        raise RecordError(f"{where}: the record lacks {', '.join(bad)}; {_refetch(path)}")
    return record


def _refetch(path: str | os.PathLike) -> str:
    path = Path(path)
    return (
        f"delete {path.name} and {record_path(path).name} (in {path.parent}) to download "
        "the file again, or install it again with `citeval import`"
    )


def verify_record(path: str | os.PathLike, *, full: bool = False) -> dict | None:
    """Check ``path`` against its record and return the record (``None`` if it has none).

    Always its size and fingerprint; the whole sha256 too when ``full``, when its
    modification time changed, or for a record made before fingerprints. A mismatch is a
    :class:`ChecksumError` naming the file, the record and both values.
    """
    path = Path(path)
    record = read_record(path)
    if record is None:
        return None
    stat = _stat(path)
    changed = f"{path} (changed since it was recorded from {record['origin']}; {_refetch(path)})"
    same_size = stat["size"] == record["size"]
    quick = fingerprint(path) if same_size else None
    same_quick = record.get("fingerprint") == quick and stat["mtime_ns"] == record["mtime_ns"]
    if same_size and same_quick and not full:
        return record
    actual = file_checksum(path, "sha256")  # also after a cheap mismatch: for the message
    if actual != record["sha256"]:
        sizes = "" if same_size else f" (size {stat['size']:,}, recorded {record['size']:,})"
        raise ChecksumError(changed, "sha256", record["sha256"], actual, sizes)
    if not same_quick:  # touched, same content (or a record made before fingerprints)
        record = {**record, **stat, "fingerprint": quick}
        with contextlib.suppress(OSError):  # a read-only home keeps the old record
            _write_json(record_path(path), record)
    return record


class _Retryable(DownloadError):
    """A failure worth another try: server error, dropped connection, truncation, stall."""


class Unreachable(DownloadError):
    """The host could not be reached at all (connection refused, a name that does not
    resolve, no route, no answer to the connection): not retried, since a host that is
    not there is not there a few seconds later either, and a user offline should hear so at
    once rather than after a minute of retries."""


TIMEOUT_ENV = "CITEVAL_DOWNLOAD_TIMEOUT"
MIN_RATE_ENV = "CITEVAL_DOWNLOAD_MIN_RATE"
STALL_BYTES = 16 * 1024
DEFAULT_TIMEOUT = 10.0
DEFAULT_MIN_RATE = STALL_BYTES / DEFAULT_TIMEOUT  # 16 KiB in 10 s: about 1.6 KB/s


@dataclass(frozen=True)
class Limits:
    """The one rule every download follows, over plain HTTP (:func:`download`) and from
    the Hugging Face Hub (:mod:`citeval_irm.datasets.hub`).

    A try stalls when, over any ``stall_timeout`` seconds of a body, it receives less than
    ``min_rate`` bytes a second (``min_rate * stall_timeout`` bytes: 16 KiB in 10 s by
    default), or nothing at all for ``stall_timeout`` seconds (which is also the time
    allowed to connect): a dead server and a trickling one both fail, where a per-read
    timeout alone never trips on a byte every few seconds. A stalled try is retried, up to
    ``tries`` tries, waiting ``retry_wait`` seconds before the second, twice that before
    the third; ``deadline`` bounds the whole download, every try included. A host that
    cannot be reached is not retried (:class:`Unreachable`).
    """

    stall_timeout: float = DEFAULT_TIMEOUT
    min_rate: float = DEFAULT_MIN_RATE
    deadline: float = 6 * 3600.0
    tries: int = 3
    retry_wait: float = DEFAULT_TIMEOUT / 5

    @classmethod
    def configured(
        cls,
        *,
        stall_timeout: float | None = None,
        min_rate: float | None = None,
        retry_wait: float | None = None,
        **given,
    ) -> Limits:
        """The limits with ``stall_timeout`` and ``min_rate`` read from
        :data:`TIMEOUT_ENV` and :data:`MIN_RATE_ENV` where not given (else the defaults);
        ``retry_wait`` defaults to a fifth of the stall timeout (2 s), so that a short
        timeout set for a slow test or a quick failure shortens the waits with it. A value
        that is not a number (or not positive, for the timeout) is an
        :class:`~citeval_irm.base.errors.InputError` naming the variable."""
        if stall_timeout is None:
            stall_timeout = _setting(
                TIMEOUT_ENV, DEFAULT_TIMEOUT, "a number of seconds", positive=True
            )
        if min_rate is None:
            min_rate = _setting(MIN_RATE_ENV, DEFAULT_MIN_RATE, "a number of bytes a second")
        wait = stall_timeout / 5 if retry_wait is None else retry_wait
        return cls(stall_timeout, min_rate, retry_wait=wait, **given)


def _setting(name: str, default: float, what: str, *, positive: bool = False) -> float:
    """A number from the environment variable ``name`` (``default`` when unset or empty):
    finite and not negative, or greater than 0 when ``positive``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        bound = "greater than 0" if positive else "0 or more"
        raise InputError(name, f"{text!r} is not {what} ({bound}); unset it for the default")
    return value


class Transfer:
    """One download under :class:`Limits`: its tries (:meth:`run`) and its deadline, and a
    :class:`Pace` for each body received (:meth:`pace`). ``what`` names it in errors."""

    def __init__(self, what: str, limits: Limits):
        self.what = what
        self.limits = limits
        self.ends = time.monotonic() + limits.deadline

    def run(self, attempt: Callable[[], T]) -> T:
        """``attempt()``, tried again after a stall, a dropped connection or a server
        error, up to ``limits.tries`` tries (waiting ``retry_wait`` seconds, doubled each
        time, never past the deadline); the last failure is a :class:`DownloadError`
        saying how many tries were made."""
        wait, tried = self.limits.retry_wait, 0
        while True:
            tried += 1
            try:
                return attempt()
            except _Retryable as exc:
                if tried >= self.limits.tries or time.monotonic() + wait > self.ends:
                    raise DownloadError(
                        f"{exc} (gave up after {tried} tries)", exc.status
                    ) from None
                time.sleep(wait)
                wait *= 2

    def pace(self) -> Pace:
        """The rule for one body, from now: count its bytes with :meth:`Pace.count`."""
        return Pace(self)

    @property
    def timeout(self) -> float:
        """The seconds allowed to connect and between two reads: the stall timeout."""
        return self.limits.stall_timeout

    def timed_out(self, doing: str) -> DownloadError:
        """The error of a read that waited the whole stall timeout for nothing (retried)."""
        return _Retryable(
            f"{self.what}: nothing received for {self.limits.stall_timeout:g} s while "
            f"{doing} (timed out; {TIMEOUT_ENV}={self.limits.stall_timeout:g})"
        )

    def unreachable(self, reason: object) -> Unreachable:
        """The error of a host that cannot be reached (not retried)."""
        return Unreachable(f"{self.what}: cannot reach the host: {reason}")


class Pace:
    """The minimum rate of :class:`Limits` over one body: :meth:`count` is told of every
    chunk as it arrives, and raises when the body is too slow or the download's deadline
    has passed."""

    def __init__(self, transfer: Transfer):
        self._transfer = transfer
        self.received = 0
        self._window_start, self._window_bytes = time.monotonic(), 0

    def count(self, size: int) -> None:
        """Count ``size`` bytes just received. Past the deadline a :class:`DownloadError`;
        under the minimum rate over the last ``stall_timeout`` seconds a stall (retried)."""
        limits = self._transfer.limits
        self.received += size
        self._window_bytes += size
        now = time.monotonic()
        if now > self._transfer.ends:
            raise DownloadError(
                f"{self._transfer.what}: not finished within the deadline of "
                f"{limits.deadline:g} s ({self.received:,} bytes received)"
            )
        if self._window_bytes >= limits.min_rate * limits.stall_timeout:
            self._window_start, self._window_bytes = now, 0
        elif now - self._window_start > limits.stall_timeout:
            raise _Retryable(
                f"{self._transfer.what}: stalled: {self._window_bytes:,} bytes in the last "
                f"{now - self._window_start:.0f} s, under the minimum rate of "
                f"{limits.min_rate:,.0f} bytes/s ({MIN_RATE_ENV}; over {TIMEOUT_ENV}="
                f"{limits.stall_timeout:g} s)"
            )


_ENCODINGS = ("", "identity", "gzip", "x-gzip")


def _decoder(response, url: str):
    """A function turning the body's bytes into the file's: the identity, or gzip
    decompression for a server that compresses unasked. Other encodings are an error."""
    encoding = (response.headers.get("Content-Encoding") or "").strip().lower()
    if encoding not in _ENCODINGS:
        raise DownloadError(f"{url}: unsupported Content-Encoding {encoding!r}")
    if "gzip" not in encoding:
        return lambda chunk, final=False: chunk
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def decode(chunk: bytes, final: bool = False) -> bytes:
        try:
            data = inflater.decompress(chunk)
            if final:
                data += inflater.flush()
                if not inflater.eof:
                    raise _Retryable(f"{url}: truncated transfer: the gzip stream is cut short")
            return data
        except zlib.error as exc:
            raise DownloadError(f"{url}: a body sent as gzip is not valid gzip: {exc}") from None

    return decode


def _fetch_once(url: str, handle, desc: str, progress: bool | None, transfer: Transfer) -> int:
    """Stream ``url`` into ``handle`` (truncated first); return the byte count. The bar
    (``progress=None``: only on a terminal) counts bytes."""
    import http.client  # the network stack (ssl, email) only when something is fetched
    import urllib.error
    import urllib.request

    from .progress import bar as progress_bar

    handle.seek(0)
    handle.truncate()
    request = urllib.request.Request(
        url, headers={"User-Agent": _USER_AGENT, "Accept-Encoding": "identity"}
    )
    try:
        with urllib.request.urlopen(request, timeout=transfer.timeout) as response:
            if response.status != 200:
                raise DownloadError(f"{url}: HTTP {response.status} {response.reason}: no file")
            decode = _decoder(response, url)
            length = response.headers.get("Content-Length")
            total = int(length) if length is not None and length.isdigit() else None
            with progress_bar(
                desc=desc,
                unit="B",
                enabled=progress,
                total=total,
                unit_scale=True,
                unit_divisor=1024,
            ) as bar:
                received = _stream(response, decode, handle, bar, transfer.pace())
    except urllib.error.HTTPError as exc:
        problem = f"{url}: HTTP {exc.code} {exc.reason}"
        if exc.code >= 500 or exc.code == 429:
            raise _Retryable(problem, exc.code) from None
        raise DownloadError(problem, exc.code) from None
    except urllib.error.URLError as exc:  # no connection made: refused, no such name, ...
        raise transfer.unreachable(f"{type(exc.reason).__name__}: {exc.reason}") from None
    except (OSError, http.client.HTTPException) as exc:
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:  # our side: a full disk
            raise
        # read timeouts, dropped connections, IncompleteRead
        raise _Retryable(f"{url}: {type(exc).__name__}: {exc}") from None
    if total is not None and received != total:
        raise _Retryable(f"{url}: truncated transfer: got {received} of {total} bytes")
    return received


def _stream(response, decode, handle, bar, pace: Pace) -> int:
    """Copy the body of ``response`` into ``handle`` (through ``decode``), counting its
    bytes on ``bar`` and against ``pace`` (too slow, or past the deadline, raises); return
    the bytes received."""
    while chunk := response.read1(_CHUNK):
        handle.write(decode(chunk))
        bar.update(len(chunk))
        pace.count(len(chunk))
    handle.write(decode(b"", final=True))
    return pace.received


def _existing(dest: Path, checksum: Checksum | None, record: bool) -> bool:
    """Whether ``dest`` is already the wanted file (a stale or damaged copy is not)."""
    if not dest.exists():
        return False
    if checksum is None:
        if record:
            verify_record(dest)
        return True
    try:
        verify_file(dest, checksum, name=str(dest))
    except ChecksumError:
        return False  # fetch it again
    return True


def download(
    url: str,
    dest: str | os.PathLike,
    checksum: Checksum | None = None,
    *,
    desc: str | None = None,
    progress: bool | None = None,
    tries: int = 3,
    retry_wait: float | None = None,
    stall_timeout: float | None = None,
    min_rate: float | None = None,
    deadline: float = 6 * 3600.0,
    record: bool = False,
) -> Path:
    """Fetch ``url`` to ``dest`` atomically and verify it; return ``dest``.

    An existing ``dest`` that passes the checksum is kept without a request (one that fails
    it is fetched again). One process at a time downloads a given ``dest`` (a lock file
    beside it); the others wait and then find it there. The transfer follows the rule of
    :class:`Limits` (``stall_timeout`` and ``min_rate`` default to
    ``CITEVAL_DOWNLOAD_TIMEOUT`` and ``CITEVAL_DOWNLOAD_MIN_RATE``, else 10 s and 16 KiB in
    10 s; ``retry_wait`` to a fifth of the timeout): a dead or trickling server fails
    within 3 x 10 s + 2 s + 4 s by default, server errors (5xx), dropped connections,
    truncated and stalled transfers are tried ``tries`` times, a host that cannot be
    reached and other HTTP errors (404, 403) fail at once; ``deadline`` bounds the whole
    download. The body must pass :func:`content_problem` for ``dest``'s format.
    Raises :class:`DownloadError` or :class:`ChecksumError`; on any failure (or Ctrl-C) no
    file is left at ``dest`` nor beside it, and the ``.part`` files of killed downloads
    are removed. ``progress=None`` shows a bar only on a terminal. ``record=True`` writes
    a :func:`write_record` after the download (with the published checksum, if any) and
    checks an existing ``dest`` against its record instead of re-fetching.
    """
    dest = Path(dest)
    name = desc or dest.name
    if _existing(dest, checksum, record):
        return dest
    limits = Limits.configured(
        stall_timeout=stall_timeout,
        min_rate=min_rate,
        retry_wait=retry_wait,
        tries=tries,
        deadline=deadline,
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(dest.with_name(f".{dest.name}.lock"), f"downloading {dest}"):
        remove_orphans(dest)  # the .part files of killed downloads
        if _existing(dest, checksum, record):  # another process fetched it meanwhile
            return dest
        _fetch_verified(url, dest, checksum, name, progress, Transfer(url, limits))
        if record:
            try:
                write_record(dest, url, checksum)
            except BaseException:  # a file without its record cannot be trusted: none
                dest.unlink(missing_ok=True)
                raise
    return dest


def _fetch_verified(url, dest: Path, checksum, name, progress, transfer: Transfer) -> None:
    """Fetch into a ``.part`` file beside ``dest`` (the tries of ``transfer``) and rename
    it into place once it passed the content check and the checksum; remove it on any
    failure."""
    part = work_path(dest, ".part")
    try:
        with open(part, "xb") as handle:
            transfer.run(lambda: _fetch_once(url, handle, name, progress, transfer))
        problem = content_problem(part, dest.name)
        if problem is not None:
            raise DownloadError(f"{url}: {problem}; nothing was saved to {dest}")
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
        move_into_place(part, dest)
    except OSError as exc:
        if exc.errno in WRITE_ERRNOS and not isinstance(exc, OutputError):
            raise output_error(dest, exc) from None
        raise
    finally:
        if os.path.exists(part):
            os.remove(part)


__all__ = [
    "ALGORITHMS",
    "Checksum",
    "ChecksumError",
    "DownloadError",
    "Limits",
    "MIN_RATE_ENV",
    "Pace",
    "RecordError",
    "TIMEOUT_ENV",
    "Transfer",
    "Unreachable",
    "content_problem",
    "download",
    "file_checksum",
    "fingerprint",
    "read_record",
    "record_path",
    "verify_file",
    "verify_record",
    "write_record",
]
