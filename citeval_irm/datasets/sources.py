"""Where a corpus's files come from: a user's folder, the ir_datasets home, or a download.

Every citeval corpus (the HAtten-format ones, ArSyTa, MasterSet) finds its files the same way:

1. the folder named by ``CITEVAL_<NAME>_DIR``, if set (read in place, never downloaded);
2. for a corpus shipped inside this package (the generated demo), the package itself;
3. the ir_datasets home, ``$IR_DATASETS_HOME/citeval/<name>/`` (where ``citeval import``
   installs a folder and where downloads go);
4. a download: from the Hugging Face Hub for a corpus hosted there (``hub``, through
   ``huggingface_hub``: see :mod:`.hub`, checked against the sha256 or git blob id the Hub
   publishes), else from ``base_url`` (GitHub raw files; replaceable with
   ``CITEVAL_<NAME>_BASE_URL``) against a published checksum. Either way a record of the
   file (size and sha256) is kept beside it, so that a later change to it is detected.

A corpus whose licence restricts use shows its notice once per process, before its first
download, as ir_datasets does for data usage agreements. A file that cannot be had is a
:class:`DataNotFoundError` that says which file, from where, and what to do instead. A
folder's files, pinned checksums and counts are checked the same way for ``citeval import``
and for a folder read in place (:func:`validate_corpus_folder`; the format reads the records).
"""

from __future__ import annotations

from ..base import irhome  # noqa: F401 (first: ir_datasets with a read-only home)

# isort: split
import contextlib
import hashlib
import json
import os
import urllib.parse
from dataclasses import KW_ONLY, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal, overload

import ir_datasets

from ..base.downloads import (
    Checksum,
    ChecksumError,
    DownloadError,
    Unreachable,
    download,
    fingerprint,
    read_record,
    record_path,
    verify_file,
    verify_record,
    write_record,
)
from ..base.errors import CitevalError, EvalWarning, InputError, with_details
from ..base.outputs import write_atomically
from .hub import HubError, HubRepo, fetch_from_hub

NAMESPACE = "citeval"

_logger = ir_datasets.log.easy("citeval_irm")  # see citeval_irm.base.progress
_NOTICES_SHOWN: set[str] = set()


class DataNotFoundError(CitevalError, FileNotFoundError):
    """A dataset file is not on this machine and cannot be downloaded; the message says
    what to download and where to put it."""


@dataclass(frozen=True)
class CorpusSource:
    """Where one corpus's files come from, and what to tell a user who lacks them.

    ``hub`` is the Hugging Face repository (pinned) of a corpus hosted there; ``base_url``
    is set when the files are downloaded over plain HTTP (``base_url/<file name>``);
    ``checksums`` pins the published ones; every download is recorded
    (see :func:`citeval_irm.base.downloads.write_record`). ``licence_notice`` is shown before the
    first download. ``manual_download`` says where to get the files by hand
    (``{pretty_name}`` is filled in). ``packaged`` names the folder of this package that
    holds the files of a shipped corpus (the demo); ``documentation`` is the YAML file
    (beside this module) that documents the corpus.
    """

    name: str
    pretty_name: str
    _: KW_ONLY
    hub: HubRepo | None = None
    base_url: str | None = None
    checksums: dict[str, Checksum] = field(default_factory=dict)
    licence_notice: str | None = None
    manual_download: str = "Get the {pretty_name} files by hand."
    packaged: str | None = None
    documentation: str = "hatten.yaml"
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def dataset_id(self) -> str:
        return f"{NAMESPACE}/{self.name}"

    @property
    def env_var(self) -> str:
        """Environment variable naming a folder that holds this corpus's files."""
        return f"CITEVAL_{self._env_name}_DIR"

    @property
    def base_url_env(self) -> str:
        """Environment variable that replaces ``base_url`` (mirrors, offline tests)."""
        return f"CITEVAL_{self._env_name}_BASE_URL"

    @property
    def _env_name(self) -> str:
        return self.name.upper().replace("-", "_").replace(".", "_")

    def file_names(self) -> tuple[str, ...]:
        """The files that make up the corpus."""
        raise NotImplementedError

    def in_folder(self, folder: Path, name: str) -> Path:
        """The path of the corpus file ``name`` in a user's ``folder``: under its own name,
        else under its alias if that is there (the own name when neither is)."""
        path = folder / name
        alias = self.aliases.get(name)
        if not path.is_file() and alias is not None and (folder / alias).is_file():
            return folder / alias
        return path

    def components(self) -> dict[str, tuple]:
        """The ir_datasets components of every dataset of the corpus, by dataset id (the
        format's; the registry wraps them with documentation and metadata)."""
        raise NotImplementedError

    def published_metadata(self) -> dict[str, dict]:
        """ir_datasets metadata (the published counts) of every dataset of the corpus, by
        dataset id: the source of ``metadata.json`` (``scripts/make_metadata.py``)."""
        raise NotImplementedError

    def read_folder(self, folder: Path) -> ImportReport:
        """Read every record of a folder of the corpus's files with the loader's own
        parsers and count it: the format's half of ``citeval import`` (an
        :class:`ImportReport`; files and counts are checked by
        :func:`validate_corpus_folder`)."""
        raise NotImplementedError

    def home(self) -> Path:
        """Where this corpus's files and stores live in the ir_datasets home."""
        irhome.checked_home()  # not a file, not empty: said before anything is written
        return Path(ir_datasets.util.home_path()) / NAMESPACE / self.name

    def url(self, file_name: str) -> str | None:
        """Where ``file_name`` is downloaded from, or ``None`` for a hand-installed corpus."""
        if self.hub is not None:
            return self.hub.url(file_name)
        base = os.environ.get(self.base_url_env) or self.base_url
        return None if base is None else f"{base.rstrip('/')}/{file_name}"

    def instructions(self, missing: Path, reason: str | None = None) -> str:
        """What a user must do to make the corpus available by hand."""
        because = f" ({reason})" if reason else ""
        return (
            f"{self.dataset_id}: {missing} is missing{because}. "
            + self.manual_download.format(pretty_name=self.pretty_name)
            + f" Put its files ({', '.join(self.file_names())}) in one folder DIR, then either "
            f"run `citeval import {self.name} DIR` (it checks the files and installs them into "
            f"{self.home()}), or set {self.env_var}=DIR to read them where they are."
        )

    def not_here(
        self, missing: Path, failure: str | None = None, cause: str | None = None
    ) -> DataNotFoundError:
        """The error of a corpus file that is not on this machine: one line saying what to
        run (``citeval import NAME DIR`` once the files are in a folder), with ``failure``,
        why a download failed, in a few words; the details (``cause``: the download's own
        error, with its address; where the files come from, where they go, the variable that
        reads them in place; the guide) are its notes (``citeval --verbose``)."""
        if cause is None and self.url(missing.name) is None:
            what = "not installed: get its files by hand, then"
        elif cause is None:  # not tried (``citeval verify``)
            what = (
                f"{missing.name} not downloaded yet (any use downloads it), or get its files, then"
            )
        else:
            because = f" ({failure})" if failure else ""
            what = f"cannot download {missing.name}{because}; get its files, then"
        line = f"{self.dataset_id}: {what} `citeval import {self.name} DIR`"
        return with_details(
            DataNotFoundError(line),
            self.instructions(missing, cause),
            "Offline and by-hand installs: docs/guides/datasets.md, Offline or by hand.",
        )


# --------------------------------------------------------------------------- checking a folder


COUNT_MISMATCH = "counts that differ from the published ones (imported anyway)"


@dataclass
class ImportReport:
    """What a folder holds and what was tolerated; ``target`` is where it was installed
    (``None`` after a check only). ``published_counts`` holds the published figure of each
    count that has one."""

    corpus: CorpusSource
    folder: Path
    counts: dict[str, int]
    published_counts: dict[str, int] = field(default_factory=dict)
    warnings: list[EvalWarning] = field(default_factory=list)
    target: Path | None = None

    def published(self, what: str) -> int | None:
        return self.published_counts.get(what)

    def differences(self) -> list[str]:
        """Each count that differs from its published figure, for people."""
        return [
            f"{what} {count:,} (published {self.published(what):,})"
            for what, count in self.counts.items()
            if self.published(what) is not None and count != self.published(what)
        ]

    def text(self) -> str:
        """A summary for people: counts against the published ones, warnings, licence."""
        action = f"installed into {self.target}" if self.target else "checked"
        lines = [f"{self.corpus.dataset_id}: {self.folder} {action}"]
        for what, count in self.counts.items():
            published = self.published(what)
            figure = "" if published is None else f" (published {published:,})"
            lines.append(f"  {what}: {count:,}{figure}")
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        if self.corpus.licence_notice:
            lines.append(f"  licence: {self.corpus.licence_notice}")
        return "\n".join(lines) + "\n"


def check_files(corpus: CorpusSource, folder: Path, *, in_place: bool = False) -> list:
    """Fail unless ``folder`` holds every file of the corpus, with its pinned checksum;
    ``in_place`` (a folder read through ``CITEVAL_<NAME>_DIR``, which may hold any version)
    turns a checksum mismatch into the returned warnings."""
    if not folder.is_dir():
        raise InputError(str(folder), "no such folder")
    files = corpus.file_names()
    missing = [name for name in files if not corpus.in_folder(folder, name).is_file()]
    if missing:
        named = [f"{n} (or {corpus.aliases[n]})" if n in corpus.aliases else n for n in files]
        raise InputError(
            str(folder),
            f"missing {', '.join(missing)}: a {corpus.pretty_name} folder holds {', '.join(named)}",
        )
    unpinned = []
    for name, checksum in corpus.checksums.items():
        try:
            verify_file(
                folder / name,
                checksum,
                name=f"{folder / name} (not the pinned {corpus.pretty_name} release; "
                f"set {corpus.env_var} to use this folder unverified)",
            )
        except ChecksumError:
            if not in_place:
                raise
            unpinned.append(name)
    if not unpinned:
        return []
    message = f"files that are not the pinned {corpus.pretty_name} release (read unverified)"
    return [EvalWarning("not_pinned", message, len(unpinned), tuple(unpinned))]


def validate_corpus_folder(
    corpus: CorpusSource,
    folder: Path,
    *,
    allow_count_mismatch: bool = False,
    in_place: bool = False,
) -> ImportReport:
    """The checks of :func:`.importing.validate_folder` for one corpus: the same for ``citeval
    import`` and for a folder read in place (``in_place``: counts and pinned checksums
    that differ are warnings, since such a folder may hold any version)."""
    unpinned = check_files(corpus, folder, in_place=in_place)
    report = corpus.read_folder(folder)
    report.warnings.extend(unpinned)
    differ = report.differences()
    if differ and not (allow_count_mismatch or in_place):
        raise InputError(
            str(folder),
            f"not the published {report.corpus.pretty_name}: {'; '.join(differ)}. "
            "Pass --allow-count-mismatch (in Python, the allow_count_mismatch argument) to "
            "import it anyway",
        )
    if differ:
        report.warnings.append(
            EvalWarning("count_mismatch", COUNT_MISMATCH, len(differ), tuple(differ))
        )
    return report


def download_failure(url: str, exc: DownloadError) -> str:
    """Why a download failed, in the few words of an error line: the host out of reach, or
    the HTTP status it answered, or that the transfer failed (the details say how)."""
    host = urllib.parse.urlsplit(url).netloc
    if isinstance(exc, Unreachable):
        return f"cannot reach {host}"
    if exc.status is not None:
        return f"{host} answered HTTP {exc.status}"
    return f"the transfer from {host} failed"


def show_licence_notice(source: CorpusSource) -> None:
    """Log the corpus's licence notice, once per process (ir_datasets shows data usage
    agreements the same way, before the first download), as a warning: ``--quiet`` keeps
    it."""
    if source.licence_notice and source.name not in _NOTICES_SHOWN:
        _NOTICES_SHOWN.add(source.name)
        _logger.warn(f"{source.dataset_id}: {source.licence_notice}")


@overload
def corpus_file(source: CorpusSource, name: str, *, fetch: Literal[True] = True) -> Path: ...
@overload
def corpus_file(source: CorpusSource, name: str, *, fetch: bool) -> Path | None: ...
def corpus_file(source: CorpusSource, name: str, *, fetch: bool = True) -> Path | None:
    """The local path of one of the corpus's files, checked.

    Looked up in the folder named by ``source.env_var`` if set, else in the package (a
    shipped corpus), else in the ir_datasets home; a downloadable corpus is fetched there
    (verified and recorded) when missing. Whatever is found is checked before it is used
    (see :func:`verify_corpus_file`). With ``fetch=False`` returns ``None`` instead of
    downloading or raising, and checks nothing (nothing is read).
    """
    folder = os.environ.get(source.env_var)
    if folder:
        path = source.in_folder(Path(folder).expanduser(), name)
        if path.is_file():
            if fetch:
                check_folder(source, path.parent)
            return path
        if not fetch:
            return None
        raise DataNotFoundError(
            f"{path}: no such file ({source.env_var} is set to {folder!r}, which must hold "
            f"{', '.join(source.file_names())})"
        )
    if source.packaged is not None:
        return packaged_file(source, name)
    path = source.home() / name
    if path.is_file():
        if fetch:
            verify_installed(source, name, path)
        return path
    if not fetch:
        return None
    url = source.url(name)
    if url is None:
        raise source.not_here(path)
    show_licence_notice(source)
    if source.hub is not None:
        try:
            return fetch_from_hub(source.dataset_id, source.file_names(), source.hub, name, path)
        except HubError as exc:
            raise source.not_here(path, exc.reason, str(exc)) from None
    checksum = source.checksums.get(name)
    try:
        download(url, path, checksum, desc=f"{source.dataset_id} {name}", record=True)
    except ChecksumError:  # the server sent another file: that is not "missing"
        raise
    except DownloadError as exc:  # not there, not public, or offline: say what to do instead
        cause = f"could not download {name}: {exc}"  # the message names the address
        raise source.not_here(path, download_failure(url, exc), cause) from None
    if checksum is None:
        record = read_record(path) or {}
        _logger.info(
            f"{source.dataset_id}: {name}: no checksum is published; recorded its size "
            f"({record.get('size')} bytes) and sha256 ({record.get('sha256')}) in "
            f"{record_path(path)}, against which later loads check it"
        )
    return path


def verify_installed(source: CorpusSource, name: str, path: Path, *, full: bool = False) -> dict:
    """Check a file of the ir_datasets home against its record (size and fingerprint;
    the whole sha256 when ``full``) and return the record. A file without one is checked
    against its published checksum (then recorded); with neither it cannot be trusted."""
    checksum = source.checksums.get(name)
    record = verify_record(path, full=full)
    if record is not None and (checksum is None or record.get("published") == str(checksum)):
        return record
    if checksum is None:
        raise DataNotFoundError(
            f"{path}: no record of where this file came from ({record_path(path).name} is "
            f"missing), so it cannot be checked. Delete it to download it again, or install "
            f"the corpus with `citeval import {source.name} FOLDER`"
        )
    verify_file(path, checksum, name=f"{path} (not the published {source.pretty_name} file)")
    try:
        return write_record(path, f"{path} (matched the published {checksum.algorithm})", checksum)
    except OSError:  # a read-only home: checked in full again next time
        return {"file": name, "published": str(checksum)}


def verify_corpus_file(source: CorpusSource, name: str, *, full: bool = False) -> None:
    """Check one file of the corpus where it is read from: a file of the ir_datasets home
    against its record or published checksum (see :func:`verify_installed`), a folder read
    in place with the checks of ``citeval import`` (see :func:`check_folder`); a shipped
    corpus is the package's own. ``full`` hashes files of the home whole and re-checks a
    folder read in place."""
    folder = os.environ.get(source.env_var)
    if folder:
        check_folder(source, Path(folder).expanduser(), force=full)
    elif source.packaged is None:
        path = source.home() / name
        if not path.is_file():
            raise source.not_here(path)
        verify_installed(source, name, path, full=full)


def check_corpus(source: CorpusSource) -> None:
    """The checks of a load (:func:`verify_corpus_file`, not in full) on every file of the
    corpus that is on this machine, at once: before a command starts printing records."""
    for name in source.file_names():
        if corpus_file(source, name, fetch=False) is not None:
            verify_corpus_file(source, name)


# --------------------------------------------------------------------------- in place

_CHECKED_FOLDERS: set[tuple[str, str]] = set()


def _folder_stamps(source: CorpusSource, folder: Path) -> dict[str, dict]:
    """Size, modification time and fingerprint of each of the corpus's files in ``folder``."""
    stamps = {}
    for name in source.file_names():
        path = source.in_folder(folder, name)
        if not path.is_file():
            raise DataNotFoundError(
                f"{path}: no such file ({source.env_var} names {folder}, which must hold "
                f"{', '.join(source.file_names())})"
            )
        stat = path.stat()
        stamps[name] = {
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "fingerprint": fingerprint(path),
        }
    return stamps


def check_folder(source: CorpusSource, folder: Path, *, force: bool = False) -> None:
    """Check a folder read in place (``CITEVAL_<NAME>_DIR``) with exactly the checks of
    ``citeval import`` (every file, record, id and split entry), once per version of its
    files: the result is kept for the process and, where the home is writable, in
    ``<home>/.in-place/`` (so a big corpus is read once, not by every process). Published
    counts and checksums that differ are logged, not errors: a folder read in place may be
    any version of the corpus."""
    folder = folder.resolve()
    stamps = json.dumps(_folder_stamps(source, folder), sort_keys=True)
    key = (str(folder), stamps)
    if key in _CHECKED_FOLDERS and not force:
        return
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
    memo, known = None, None
    with contextlib.suppress(OSError, ValueError):  # no memo (yet), or no home at all
        memo = source.home() / ".in-place" / f"{digest}.json"
        known = json.loads(memo.read_text(encoding="utf-8"))
    if force or known != {"folder": str(folder), "stamps": stamps}:
        report = validate_corpus_folder(source, folder, in_place=True)
        for warning in report.warnings:
            _logger.warn(f"{source.dataset_id}: {folder}: {warning}")
        if memo is not None:
            with contextlib.suppress(OSError):  # a read-only home: checked again next time
                memo.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(memo, json.dumps({"folder": str(folder), "stamps": stamps}))
    _CHECKED_FOLDERS.add(key)


def packaged_file(corpus: CorpusSource, name: str) -> Path:
    """A file shipped inside this package (``corpus.packaged``), as a path on disk: the file
    itself in a normal install, else a copy made once in the ir_datasets home."""
    if corpus.packaged is None:
        raise ValueError(f"{corpus.dataset_id}: no files ship in the package")
    resource = resources.files(__package__).joinpath(corpus.packaged).joinpath(name)
    if not resource.is_file():
        raise DataNotFoundError(
            f"{corpus.dataset_id}: {name} is missing from the installed package "
            f"({resource}); reinstall citeval-irm"
        )
    if isinstance(resource, Path):
        return resource
    path = corpus.home() / name  # e.g. a zipped install: the loader needs a real file
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, resource.read_bytes())
    return path
