"""Corpora hosted on the Hugging Face Hub (ArSyTa, MasterSet), fetched with ``huggingface_hub``.

The Hub's own client does the transfer: ``HF_TOKEN`` (or a ``hf auth login``) for gated
or private datasets, ``HF_ENDPOINT`` for a mirror, its cache (``HF_HUB_CACHE``, default
``~/.cache/huggingface/hub``) and its retries, which resume an interrupted transfer with an
HTTP ``Range`` request. What this module adds:

1. the repository is listed at the pinned revision first (``list_repo_tree``), and a file
   the corpus needs that is not there is an error naming what *is* there, before anything
   large is transferred;
2. every file is checked against what the Hub publishes for it in that listing: the sha256
   of an LFS file, the git blob id of a small one; a mismatch is a
   :class:`~citeval_irm.base.downloads.ChecksumError` and the bad copy is removed from the
   cache when this call put it there;
3. the checked file is linked into the corpus's folder of the ir_datasets home (a hard
   link, or a symbolic link across file systems: never a second copy) with a record of
   where it came from and the checksum it passed, which later loads check it against.

Every request this module makes through huggingface_hub follows the rule every download
of the package follows (:class:`~citeval_irm.base.downloads.Limits`: a minimum rate over
``CITEVAL_DOWNLOAD_TIMEOUT`` seconds, a few tries, a deadline), applied to the bytes as
they arrive (:func:`_paced`), since huggingface_hub's own read timeout never trips on a
server that trickles a byte every few seconds. A host that cannot be reached is said at
once, with how to stay offline (``HF_HUB_OFFLINE=1``), instead of after huggingface_hub's
retries; an answer that is not the Hub's (an HTML page from a proxy) is named as such.

Hosts whose repository the authors' own pages or code do not name are marked
``verified=False``: every listing and error says so.
"""

from __future__ import annotations

from ..base import irhome  # noqa: F401 (first: ir_datasets with a read-only home)

# isort: split
import contextlib
import contextvars
import functools
import os
import threading
import urllib.parse
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import ir_datasets

from ..base.downloads import (
    Checksum,
    ChecksumError,
    DownloadError,
    Limits,
    Transfer,
    Unreachable,
    file_checksum,
    write_record,
)
from ..base.errors import CitevalError
from ..base.outputs import WRITE_ERRNOS, output_error, work_path

_logger = ir_datasets.log.easy("citeval_irm")  # see citeval_irm.base.progress


class HubError(CitevalError):
    """The Hub could not give a corpus's files (gated, missing, offline); says what to do.
    ``reason`` is the few words of it an error line has room for (``cannot reach
    huggingface.co``), ``None`` when the message itself is short enough."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class HubRepo:
    """A dataset repository of the Hub at a pinned ``revision`` (a commit id), the corpus's
    files under ``folder`` in it. ``verified`` is ``False`` when no page or code of the
    authors names this repository (said wherever it is shown); ``evidence`` says what does."""

    repo_id: str
    revision: str
    folder: str = ""
    verified: bool = True
    evidence: str = ""

    def path_of(self, name: str) -> str:
        """The file's path in the repository."""
        return f"{self.folder.strip('/')}/{name}" if self.folder else name

    def page(self) -> str:
        """The repository's page at the pinned revision (under ``HF_ENDPOINT`` if set)."""
        where = f"/tree/{self.revision}/{self.folder}" if self.folder else f"/tree/{self.revision}"
        return f"{endpoint()}/datasets/{self.repo_id}{where}"

    def url(self, name: str) -> str:
        """Where the Hub serves ``name`` at the pinned revision."""
        return f"{endpoint()}/datasets/{self.repo_id}/resolve/{self.revision}/{self.path_of(name)}"

    def label(self) -> str:
        """``repo@revision``, with ``(host not verified)`` when it is not."""
        mark = "" if self.verified else " (host not verified)"
        return f"{HUB}/datasets/{self.repo_id}@{self.revision[:12]}{mark}"


class RemoteFile(NamedTuple):
    """One file of a listing: its path, size and the checksum the Hub publishes for it."""

    path: str
    size: int
    checksum: Checksum
    lfs: bool


HUB = "https://huggingface.co"


def endpoint() -> str:
    """The Hub's address: ``HF_ENDPOINT`` read now (huggingface_hub reads it once, at its
    import), else the Hub itself."""
    return (os.environ.get("HF_ENDPOINT") or HUB).rstrip("/")


def _cache_dir() -> str | None:
    """``HF_HUB_CACHE`` (or ``HF_HOME/hub``) read now; ``None``: huggingface_hub's default."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return None


def _blobs(repo: HubRepo) -> Path:
    """The folder of the Hugging Face cache where huggingface_hub writes ``repo``'s files."""
    from huggingface_hub import constants
    from huggingface_hub.file_download import repo_folder_name

    cache = _cache_dir() or constants.HF_HUB_CACHE
    return Path(cache, repo_folder_name(repo_id=repo.repo_id, repo_type="dataset"), "blobs")


def _hub_problem(repo: HubRepo, exc: Exception, doing: str) -> HubError:
    """A clear :class:`HubError` for what huggingface_hub raised while ``doing``, or the
    download rule stopped (a host out of reach, a stalled transfer)."""
    from huggingface_hub import errors

    where = f"{repo.page()}{'' if repo.verified else ' (host not verified)'}"
    if isinstance(exc, Unreachable):
        return HubError(
            f"{where}: {doing} failed: {exc}. Offline? Set HF_HUB_OFFLINE=1 to use only what "
            "is on this machine, without trying the Hub",
            f"cannot reach {urllib.parse.urlsplit(endpoint()).netloc}",
        )
    if isinstance(exc, DownloadError):  # stalled, or past the deadline: says which
        return HubError(f"{where}: {doing} failed: {exc}", "stalled: CITEVAL_DOWNLOAD_MIN_RATE")
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, errors.GatedRepoError) or status in (401, 403):
        token = "HF_TOKEN is set but was refused" if os.environ.get("HF_TOKEN") else "no HF_TOKEN"
        return HubError(
            f"{where}: the dataset is gated or private (HTTP {status}; {token}) while {doing}. "
            "Accept its terms on its page with your Hugging Face account, then set HF_TOKEN "
            "to an access token of that account (or run `hf auth login`).",
            f"gated or private on the Hub, {token}: accept its terms, set HF_TOKEN",
        )
    if isinstance(exc, errors.RevisionNotFoundError):
        return HubError(
            f"{where}: revision {repo.revision} not found while {doing}", "revision not found"
        )
    if isinstance(exc, errors.RepositoryNotFoundError):
        return HubError(
            f"{where}: repository {repo.repo_id} not found while {doing} (or private: set "
            "HF_TOKEN if you have access)",
            "repository not found, or private: HF_TOKEN",
        )
    if isinstance(exc, errors.OfflineModeIsEnabled):
        return HubError(f"{where}: {doing} failed: {exc}", "HF_HUB_OFFLINE is set")
    return HubError(f"{where}: {doing} failed: {type(exc).__name__}: {exc}", type(exc).__name__)


# --------------------------------------------------------------------------- the download rule


class HubTransfer(Transfer):
    """A :class:`~citeval_irm.base.downloads.Transfer` made through huggingface_hub's
    client; ``answered`` is the address and content type of the Hub's last answer, to name
    an answer huggingface_hub could not read (a proxy's HTML page)."""

    def __init__(self, what: str):
        super().__init__(what, Limits.configured())
        self.answered = ("", "")


_ACTIVE: contextvars.ContextVar[HubTransfer | None] = contextvars.ContextVar(
    "citeval_hub_transfer", default=None
)
_PACING = threading.Lock()


@contextlib.contextmanager
def _paced(transfer: HubTransfer) -> Iterator[None]:
    """Within the block, every request huggingface_hub's shared client sends from this
    context follows ``transfer``'s rule (see :func:`_paced_send`); the client's other users
    (other threads, the user's own calls) are left as they are."""
    from huggingface_hub import get_session

    with _PACING:  # huggingface_hub makes its client anew after some errors: checked each time
        client = get_session()
        if not getattr(client.send, _PACED, False):
            # huggingface_hub's own client paced: its send replaced on the instance
            client.send = _paced_send(client.send)  # type: ignore[method-assign]
    token = _ACTIVE.set(transfer)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


_PACED = "citeval_paced"
"""The attribute that marks a client's send as paced already (the client is made anew
after some errors, and checked each time)."""


def _paced_send(send):
    """``send`` (an ``httpx2.Client``'s) made to follow the rule of the transfer active in
    the calling context, when there is one: the stall timeout as every timeout (connect,
    read), a connection that cannot be made an
    :class:`~citeval_irm.base.downloads.Unreachable` (not one of the errors
    huggingface_hub retries for half a minute), every body counted against the minimum
    rate as its bytes arrive (a :class:`~citeval_irm.base.downloads.Pace`). A file stored
    with Xet is fetched over plain HTTP (its ``X-Xet-Hash`` removed from the answer, as if
    hf_xet were not installed): hf_xet's transfers bypass the client, so the rule could not
    see them."""
    import httpx2
    from huggingface_hub import constants

    def paced_send(request, *, stream: bool = False, **options):
        transfer = _ACTIVE.get()
        if transfer is None:
            return send(request, stream=stream, **options)
        timeouts = dict.fromkeys(("connect", "read", "write", "pool"), transfer.timeout)
        request.extensions = {**request.extensions, "timeout": timeouts}
        try:
            response = send(request, stream=True, **options)
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
            raise transfer.unreachable(f"{type(exc).__name__}: {exc}") from None
        except httpx2.TimeoutException:
            raise transfer.timed_out(f"waiting for {request.url}") from None
        response.headers.pop(constants.HUGGINGFACE_HEADER_X_XET_HASH, None)
        transfer.answered = (str(response.url), response.headers.get("Content-Type", ""))
        stream_class = _paced_stream_class()
        response.stream = stream_class(response.stream, transfer, str(request.url))
        if not stream:  # read here, as httpx2's own send does, through the paced stream
            try:
                response.read()
            except BaseException:
                response.close()
                raise
        return response

    setattr(paced_send, _PACED, True)
    return paced_send


@functools.cache
def _paced_stream_class() -> type:
    """The ``httpx2.SyncByteStream`` that counts a body's bytes against the rule (a class
    made on first use: httpx2 is imported only when the Hub is used)."""
    import httpx2

    class PacedStream(httpx2.SyncByteStream):
        def __init__(self, inner, transfer: HubTransfer, url: str):
            self._inner, self._transfer, self._url = inner, transfer, url

        def __iter__(self) -> Iterator[bytes]:
            pace = self._transfer.pace()
            try:
                for chunk in self._inner:
                    pace.count(len(chunk))
                    yield chunk
            except httpx2.TimeoutException:
                raise self._transfer.timed_out(f"receiving {self._url}") from None

        def close(self) -> None:
            self._inner.close()

    return PacedStream


def _not_a_listing(transfer: HubTransfer, exc: Exception) -> str:
    """Why an answer is not a listing of the Hub: where it came from, its content type and
    how it starts (a proxy's login page, a maintenance page)."""
    url, content_type = transfer.answered
    start = getattr(exc, "doc", "")[:60]
    shown = f", starting {start!r}" if start else f" ({type(exc).__name__}: {exc})"
    return (
        f"{url} answered with something that is not a listing of the Hub "
        f"(Content-Type {content_type or 'not given'}{shown}): is HF_ENDPOINT a Hub, or is a "
        "proxy or a maintenance page answering in its place?"
    )


_LISTINGS: dict[tuple[str, str, str, str], dict[str, RemoteFile]] = {}


def list_repository(repo: HubRepo) -> dict[str, RemoteFile]:
    """The files of ``repo.folder`` at the pinned revision, by path, with the checksum the
    Hub publishes for each (kept for the process). The listing follows the download rule
    (see :func:`_paced`); an answer that is not a listing (an HTML page, say) is a
    :class:`HubError` naming it."""
    key = (endpoint(), repo.repo_id, repo.revision, repo.folder)
    if key in _LISTINGS:
        return _LISTINGS[key]
    import httpx2
    from huggingface_hub import HfApi, errors
    from huggingface_hub.hf_api import RepoFile

    api = HfApi(endpoint=endpoint())
    transfer = HubTransfer(endpoint())
    try:
        with _paced(transfer):
            entries = transfer.run(
                lambda: list(
                    api.list_repo_tree(
                        repo.repo_id,
                        repo.folder or None,
                        revision=repo.revision,
                        repo_type="dataset",
                    )
                )
            )
    except (errors.HfHubHTTPError, httpx2.HTTPError, OSError, DownloadError) as exc:
        raise _hub_problem(repo, exc, "listing the repository") from None
    except (ValueError, TypeError, KeyError) as exc:  # JSON, but not the Hub's entries
        raise HubError(
            f"{repo.page()}: {_not_a_listing(transfer, exc)}", "the Hub's answer is no listing"
        ) from None
    files = {}
    for entry in entries:
        if not isinstance(entry, RepoFile):
            continue
        if entry.lfs is not None:
            checksum, lfs = Checksum("sha256", entry.lfs.sha256), True
        else:
            checksum, lfs = Checksum("git-blob-sha1", entry.blob_id), False
        files[entry.path] = RemoteFile(entry.path, entry.size, checksum, lfs)
    _LISTINGS[key] = files
    return files


def _size(size: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:,} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return str(size)


def expected_files(dataset_id: str, names: tuple[str, ...], repo: HubRepo) -> dict[str, RemoteFile]:
    """Every file of a corpus (``names``) in the listing, by its name in the corpus; one
    that is missing is a :class:`HubError` naming it and listing what is there (before any
    file is transferred)."""
    listing = list_repository(repo)
    missing = [n for n in names if repo.path_of(n) not in listing]
    if missing:
        there = ", ".join(f"{p} ({_size(f.size)})" for p, f in sorted(listing.items())) or "nothing"
        host = "" if repo.verified else " (host not verified)"
        raise HubError(
            f"{dataset_id}: {', '.join(missing)} not found in {repo.page()}{host}; "
            f"the repository holds: {there}",
            f"{', '.join(missing)} not in {repo.repo_id}",
        )
    return {n: listing[repo.path_of(n)] for n in names}


def _link(blob: Path, dest: Path) -> None:
    """Put ``blob`` at ``dest`` without copying it: a hard link, else a symbolic link."""
    work = work_path(dest)
    try:
        os.link(blob, work)
    except OSError:
        os.symlink(blob.resolve(), work)
    try:
        os.replace(work, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(work)


def _download(dataset_id: str, repo: HubRepo, name: str) -> Path:
    """``name`` from ``repo`` into the Hugging Face cache with huggingface_hub; its path
    there, under the download rule (tried again after a stall, see :func:`_paced`). What
    huggingface_hub warns of (e.g. not enough free space) is logged as the package's
    warnings are, naming the corpus; what it raises is a :class:`HubError`, or
    an :class:`~citeval_irm.base.outputs.OutputError` naming the cache's folder when the
    cache cannot be written (a full disk)."""
    import httpx2
    from huggingface_hub import errors, hf_hub_download

    def attempt() -> str:
        return hf_hub_download(
            repo.repo_id,
            repo.path_of(name),
            repo_type="dataset",
            revision=repo.revision,
            endpoint=endpoint(),
            cache_dir=_cache_dir(),
        )

    transfer = HubTransfer(repo.url(name))
    problems = (errors.HfHubHTTPError, errors.LocalEntryNotFoundError, httpx2.HTTPError)
    with warnings.catch_warnings(record=True) as warned, _paced(transfer):
        warnings.simplefilter("always")
        try:
            return Path(transfer.run(attempt))  # a stalled try is removed by huggingface_hub
        except (*problems, DownloadError) as exc:
            raise _hub_problem(repo, exc, f"downloading {repo.path_of(name)}") from None
        except OSError as exc:  # a full disk, a read-only cache: named, with what to do
            if exc.errno not in WRITE_ERRNOS:  # an answer that is not the Hub's, a cut file
                raise _hub_problem(repo, exc, f"downloading {repo.path_of(name)}") from None
            raise output_error(exc.filename or _blobs(repo), exc) from None
        finally:
            for warning in warned:
                _logger.warn(f"{dataset_id}: {name}: {warning.message}")


def fetch_from_hub(
    dataset_id: str, names: tuple[str, ...], repo: HubRepo, name: str, dest: Path
) -> Path:
    """Download ``name`` (one of the corpus's ``names``, all checked to be listed first)
    from ``repo`` with huggingface_hub, check it against the published checksum, link it to
    ``dest`` and record it; return ``dest``."""
    from huggingface_hub import try_to_load_from_cache

    remote = expected_files(dataset_id, names, repo)[name]
    cached = try_to_load_from_cache(
        repo.repo_id, repo.path_of(name), _cache_dir(), repo.revision, repo_type="dataset"
    )
    had_it = isinstance(cached, str)
    got = _download(dataset_id, repo, name)
    actual = file_checksum(got, remote.checksum.algorithm)
    if actual != remote.checksum.value:
        note = "; the downloaded copy was removed from the Hugging Face cache"
        if had_it:
            note = f"; the copy in the Hugging Face cache ({got}) is damaged: delete it"
        else:
            blob = got.resolve()
            got.unlink(missing_ok=True)
            blob.unlink(missing_ok=True)
        raise ChecksumError(
            f"{dataset_id}: {name} (from {repo.url(name)})",
            remote.checksum.algorithm,
            remote.checksum.value,
            actual,
            note,
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    _link(got.resolve(), dest)
    try:
        write_record(dest, repo.url(name), remote.checksum)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return dest


__all__ = [
    "HubError",
    "HubRepo",
    "HubTransfer",
    "RemoteFile",
    "endpoint",
    "expected_files",
    "fetch_from_hub",
    "list_repository",
]
