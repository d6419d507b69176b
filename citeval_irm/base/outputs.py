"""Files a command writes: checked before the work starts, never left half-written, never
put over what the user owns.

A BM25 run over a big corpus takes minutes; an output path that cannot be written (a
folder, a missing or read-only folder, an existing file without ``--force``) should fail
before them, not after. And a run file cut short by Ctrl-C or a full disk looks like a
complete run with fewer queries, so the file is written beside its target and renamed into
place only once complete. Everything written there in the meantime (a file, a folder of
Parquet parts, a download's ``.part``) has a name made by :func:`work_path` that says which
process on which machine made it, so the next run removes what a killed one left
(:func:`remove_orphans`) and no reader takes it for data (it is hidden: ``.`` first).

Files are created as any other program's are, with the user's umask; a file replaced keeps
the permissions it had. A write that fails (a full disk, a quota, a read-only file system)
is an :class:`OutputError` naming the file, with the previous file intact.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypedDict

from .choices import REPORT_SUFFIXES
from .errors import CitevalError, InputError

FORCE_HELP = "replace an existing output (without it, an existing file is an error)"
"""The ``--force`` help of every command that writes: one overwrite rule, said once."""

WORK_MARK = ".citeval-"
"""What every work-in-progress name holds (see :func:`work_path`)."""
_HOST = re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:40] or "host"


class _GuardState(TypedDict):
    """What a guarded stream and the streams made from it share: whether anything was
    written, and the first failure."""

    used: bool
    failed: OutputError | None


class OutputError(CitevalError, OSError):
    """A file could not be written (a full disk, a quota, a read-only file system, no
    permission): nothing was left half-written and a file it replaced is as it was. An
    ``OSError`` too, so callers that tolerate an unwritable home still do."""

    def __str__(self) -> str:  # the message, not OSError's "[Errno 28] ..." form
        return str(self.args[0])


def output_error(path: str | os.PathLike, exc: OSError, left: str | None = None) -> OutputError:
    """The :class:`OutputError` of ``exc`` raised while writing ``path``, saying what to do
    for the usual causes and what is left of ``path``: ``left`` (standard output:
    ``"nothing reached it"``), else what an atomic write leaves (a file there as it was, or
    none)."""
    reason = exc.strerror or str(exc)
    advice = {
        errno.ENOSPC: "free some space or write elsewhere",
        errno.EDQUOT: "the disk quota is used up: free some space or write elsewhere",
        errno.EROFS: "the file system is read-only: write elsewhere",
        errno.EACCES: "permission denied: write elsewhere",
        errno.EPERM: "not permitted: write elsewhere",
        errno.EFBIG: "the file is larger than this file system or limit allows",
        errno.EBADF: "it is closed: send it to a file or to /dev/null",
    }.get(exc.errno or 0)
    hint = f" ({advice})" if advice else ""
    name = os.fspath(path)
    if left is None:
        left = _left_of(name)
    error = OutputError(f"cannot write {name}: {reason}{hint}; {left}")
    error.errno, error.filename = exc.errno, name
    return error


def _left_of(name: str) -> str:
    """What a failed atomic write leaves at ``name``: what was there before, or nothing."""
    if os.path.isdir(name):
        return "nothing was left half-written there"
    return "the file there is as it was" if os.path.lexists(name) else "it was not written"


# --------------------------------------------------------------------------- what a command wrote


class OutputRecord:
    """The outputs of one command, so that an error part way says exactly what is there:
    the files it checked before its work (:func:`check_output`: it means to write them)
    and those written in full (renamed into place), each once, in order."""

    def __init__(self) -> None:
        self.planned: list[str] = []
        self.written: list[str] = []

    def said(self) -> str:
        """``"; run.trec was written in full; report.md was not written"``: what the
        command wrote before it stopped, and what it meant to write but did not; empty
        when it wrote nothing (its error says what of its own target is left)."""
        if not self.written:
            return ""
        missing = [p for p in self.planned if p not in self.written]
        text = f"; {_names(self.written)} written in full"
        return text + (f"; {_names(missing)} not written" if missing else "")


def _names(paths: list[str]) -> str:
    return f"{paths[0]} was" if len(paths) == 1 else f"{', '.join(paths)} were"


_RECORDS: list[OutputRecord] = []  # the commands under way in this process, innermost last


@contextmanager
def recorded_outputs() -> Iterator[OutputRecord]:
    """Record, for the length of a block (a command of the command line), the outputs
    checked and written; outside one, nothing is kept (a long Python session writes
    any number of files)."""
    record = OutputRecord()
    _RECORDS.append(record)
    try:
        yield record
    finally:
        _RECORDS.remove(record)


def _note(kind: str, path: str | os.PathLike) -> None:
    """``path`` planned or written, in the record of the command under way (if any)."""
    if _RECORDS:
        paths = getattr(_RECORDS[-1], kind)
        name = os.fspath(path)
        if name not in paths:
            paths.append(name)


# --------------------------------------------------------------------------- standard output


class GuardedStream:
    """Standard output as a command writes to it: a failed write (a full disk, ``>&-``
    closed it: ``sys.stdout`` is then ``None``) is an :class:`OutputError` saying what is
    there (closed: nothing; else an incomplete output, since a part may have been written
    before the failure), not an ``OSError`` of no file or an ``AttributeError``.
    A broken pipe (``| head``) stays a :class:`BrokenPipeError`: a reader that stops early
    is no error. The first failure is kept: a caller that swallows it (argparse's help
    does) meets it again at the next write or flush."""

    def __init__(self, stream, *, name: str = "standard output", parent=None):
        self._stream = stream
        self._name = name
        self._state: _GuardState = (
            parent._state if parent is not None else {"used": False, "failed": None}
        )

    def _guarded(self, method: str, *args):
        """The stream's ``method`` called with ``args``, a failure made an OutputError."""
        failed = self._state["failed"]
        if failed is not None:
            raise failed
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            result = getattr(self._stream, method)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:  # closed: certainly nothing there; else a part may be
            closed = exc.errno == errno.EBADF and not self._state["used"]
            left = "nothing reached it" if closed else "what it shows is incomplete"
            failure = output_error(self._name, exc, left)
            self._state["failed"] = failure
            raise failure from None
        return result

    @property
    def failure(self) -> OutputError | None:
        """The first failed write or flush, if any (raised to whoever wrote)."""
        return self._state["failed"]

    def write(self, data):
        written = self._guarded("write", data)
        self._state["used"] = self._state["used"] or bool(data)
        return written

    def flush(self) -> None:
        if self._stream is None and self._state["failed"] is None:
            return  # closed, and nothing was written to it
        self._guarded("flush")

    @property
    def buffer(self):
        """The binary stream beneath (trec_eval's lines are written as bytes), guarded as
        this one; none when standard output is closed."""
        if self._stream is None or not hasattr(self._stream, "buffer"):
            raise AttributeError("buffer")
        return GuardedStream(self._stream.buffer, name=self._name, parent=self)

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def __getattr__(self, name: str):  # encoding, reconfigure, fileno, ...
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def _hold_descriptor(fd: int) -> None:
    """``/dev/null`` on descriptor ``fd`` if it is closed (``>&-``): else the next file
    opened takes it, and a process started later (a worker) writes its output into it."""
    try:
        os.fstat(fd)
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


@contextmanager
def guarded_stdout() -> Iterator[GuardedStream]:
    """``sys.stdout`` as a :class:`GuardedStream` for the length of a block (a command of
    the command line), as it was after it; a closed standard error written to nowhere."""
    import sys

    stdout, stderr = sys.stdout, sys.stderr
    if stdout is None:
        _hold_descriptor(1)
    if stderr is None:  # closed: its lines go nowhere, not to standard output (print's
        _hold_descriptor(2)  # fallback for a file of None), where they would mix with results
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    guarded = GuardedStream(stdout)
    sys.stdout = guarded
    try:
        yield guarded
    finally:
        if sys.stdout is guarded:
            sys.stdout = stdout
        if stderr is None:
            sys.stderr.close()
            sys.stderr = stderr


# --------------------------------------------------------------------------- work in progress


def work_path(target: str | os.PathLike, suffix: str = "") -> Path:
    """A new hidden name beside ``target`` for work towards it (a file or a folder):
    ``.NAME.citeval-HOST-PID-TOKEN<suffix>``, so that :func:`remove_orphans` can tell a
    killed process's leftovers from a live one's."""
    target = Path(target)
    token = os.urandom(4).hex()  # secrets.token_hex(4), without importing secrets
    return target.with_name(f".{target.name}{WORK_MARK}{_HOST}-{os.getpid()}-{token}{suffix}")


def _orphan(name: str, prefix: str) -> bool:
    """Whether ``name`` (beginning with ``prefix``) is work of a process of this machine
    that is gone; another machine's (a shared file system) is never touched."""
    match = re.match(r"([A-Za-z0-9]*)-(\d+)-[0-9a-f]{8}", name[len(prefix) :])
    if match is None or match.group(1) != _HOST:
        return False
    pid = int(match.group(2))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def remove_orphans(target: str | os.PathLike) -> int:
    """Remove what killed processes left beside ``target`` (see :func:`work_path`); return
    how many. Only names of that form are ever removed, so nothing else is touched."""
    target = Path(target)
    prefix = f".{target.name}{WORK_MARK}"
    removed = 0
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return 0
    for entry in entries:
        if entry.name.startswith(prefix) and _orphan(entry.name, prefix):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
    return removed


def scratch_folder(kind: str) -> Path:
    """A new private folder in the temporary folder (``TMPDIR``) for ``kind`` of work
    (``sort``, ``ir_datasets-import``), named by :func:`work_path`; the ones killed
    processes left for the same kind are removed first. The caller removes it when done."""
    import tempfile

    anchor = Path(tempfile.gettempdir()) / f"citeval-{kind}"
    remove_orphans(anchor)
    folder = work_path(anchor)
    folder.mkdir(mode=0o700)
    return folder


def _umask() -> int:
    """The process's umask (read, not changed, where the system says it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_mode(target: str | os.PathLike, *, folder: bool = False) -> int:
    """The permissions for what replaces ``target``: the ones it has, else the user's
    default (0666 or, for a folder, 0777, less the umask), as ``open()`` would give."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return (0o777 if folder else 0o666) & ~_umask()


def move_into_place(work: Path, target: Path) -> None:
    """Rename the finished ``work`` (a file or a folder) onto ``target`` with ``target``'s
    permissions (or the user's default). A folder it replaces (checked to be replaceable:
    :func:`check_folder_output`) is renamed aside first, then removed."""
    folder = work.is_dir()
    os.chmod(work, new_mode(target, folder=folder))
    retired = None
    if folder and target.is_dir() and any(target.iterdir()):
        retired = work_path(target)
        os.rename(target, retired)
    os.replace(work, target)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})
"""OSErrors that mean "this cannot be written here", whatever was being written."""


# --------------------------------------------------------------------------- checks


def check_output(path: str | os.PathLike, *, force: bool = True) -> Path:
    """``path`` as a :class:`Path`, if a file can be written there; else an
    :class:`InputError` naming it and the problem. An existing file is replaced only with
    ``force`` (the commands' ``--force``; Python's writers replace, as pandas' do); a
    folder never is."""
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder: give the name of the file to write")
    if (path.exists() or path.is_symlink()) and not force:
        raise InputError(
            str(path), "exists: give --force to replace it, or another name to keep it"
        )
    _check_folder_of(path)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(str(path), "cannot be written: permission denied")
    _note("planned", path)
    return path


def _check_folder_of(path: Path) -> None:
    parent = path.parent
    if not parent.is_dir():
        raise InputError(str(path), f"cannot be written: there is no folder {parent}")
    if not os.access(parent, os.W_OK):
        raise InputError(str(path), "cannot be written: permission denied")


PART_NAME = re.compile(r"part-\d{5}\.parquet")
"""The files of a partitioned Parquet run that :func:`citeval_irm.reading.convert.convert`
writes."""


def check_folder_output(path: str | os.PathLike, *, force: bool = True) -> Path:
    """``path`` as a :class:`Path`, if a folder of Parquet parts can be put there: nothing
    there, an empty folder, or (with ``force``) a folder of parts written before and
    nothing else. A file, or a folder holding anything else, is an error: it is the
    user's."""
    path = Path(path)
    if path.is_symlink():
        raise InputError(str(path), "is a link: give a new path (what it points to stays)")
    if path.exists() and not path.is_dir():
        raise InputError(
            str(path), "is a file: a partitioned run is written as a folder: give a new path"
        )
    if path.is_dir():
        entries = [entry.name for entry in path.iterdir()]
        if entries and not all(PART_NAME.fullmatch(name) for name in entries):
            raise InputError(
                str(path), "is a folder that holds other files: give a new or empty folder"
            )
        if entries and not force:
            raise InputError(
                str(path), "exists: give --force to replace it, or another name to keep it"
            )
    _check_folder_of(path)
    _note("planned", path)
    return path


def report_format(path: str | os.PathLike, *, force: bool = True) -> str:
    """``html`` or ``markdown``, from a report path's suffix (``.html``, ``.htm``, ``.md``);
    an error for any other, so a typo fails before the work, not after it."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_SUFFIXES:
        raise InputError(str(path), "a report is written as .html (or .htm) or .md: name it so")
    check_output(path, force=force)
    return REPORT_SUFFIXES[suffix]


# --------------------------------------------------------------------------- writing


@contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, so ``.gz`` still means gzip) to write
    to; renamed to ``path`` when the block ends normally, removed otherwise. The path is
    checked first (:func:`check_output`): for the files a user asked for."""
    with replaced_atomically(check_output(path)) as temporary:
        yield temporary
    _note("written", path)


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees a part of it (records, memos,
    copies the package makes for itself: an OSError, e.g. a read-only folder, is the
    caller's to handle)."""
    with replaced_atomically(path) as temporary:
        if isinstance(data, str):
            temporary.write_text(data, encoding="utf-8")
        else:
            temporary.write_bytes(data)


@contextmanager
def replaced_atomically(path: Path) -> Iterator[Path]:
    """The one atomic write: a temporary file beside ``path`` (:func:`work_path`), renamed
    onto it (:func:`move_into_place`) when the block ends normally, removed otherwise. An
    OSError while writing it (a full disk) is an :class:`OutputError` naming ``path``."""
    path = Path(path)
    remove_orphans(path)
    temporary = work_path(path, path.suffix)
    try:
        try:
            temporary.touch(exist_ok=False)
            yield temporary
            move_into_place(temporary, path)
        except CitevalError:  # said already (a dataset file missing is an OSError too)
            raise
        except OSError as exc:
            raise output_error(path, exc) from None
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def atomic_folder_output(path: str | os.PathLike) -> Iterator[Path]:
    """A work folder beside ``path`` (the work folders of killed processes removed first)
    to write a folder of files in; moved onto ``path`` when the block ends normally, removed
    however it ends. ``path`` is checked first (:func:`check_folder_output`); a failed
    write (:data:`WRITE_ERRNOS`) is an :class:`OutputError` naming ``path`` (another
    OSError, a source that vanished, is the reader's)."""
    path = check_folder_output(path)
    remove_orphans(path)
    staging = work_path(path)
    try:
        try:
            staging.mkdir()
            yield staging
            move_into_place(staging, path)
        except CitevalError:
            raise
        except OSError as exc:
            if exc.errno in WRITE_ERRNOS:
                raise output_error(path, exc) from None
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _note("written", path)


@contextmanager
def temporary_folder(kind: str) -> Iterator[Path]:
    """:func:`scratch_folder` for the length of a block (DuckDB's sort and its spill
    files), removed when the block ends, however it ends."""
    folder = scratch_folder(kind)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
