"""Files a command writes: checked before the work starts, and never left half-written.

A BM25 run over a big corpus takes minutes; an output path that cannot be written (a
folder, a missing or read-only folder) should fail before them, not after. And a run file
cut short by Ctrl-C or a full disk looks like a complete run with fewer queries, so the
file is written beside its target and renamed into place only once complete.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .choices import REPORT_SUFFIXES
from .errors import InputError


def check_output(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`Path`, if a file can be written there; else an
    :class:`InputError` naming it and the problem."""
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder: give the name of the file to write")
    parent = path.parent
    if not parent.is_dir():
        raise InputError(str(path), f"cannot be written: there is no folder {parent}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(str(path), "cannot be written: permission denied")
    return path


def report_format(path: str | os.PathLike) -> str:
    """``html`` or ``markdown``, from a report path's suffix (``.html``, ``.htm``, ``.md``);
    an error for any other, so a typo fails before the work, not after it."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_SUFFIXES:
        raise InputError(str(path), "a report is written as .html (or .htm) or .md: name it so")
    check_output(path)
    return REPORT_SUFFIXES[suffix]


@contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, so ``.gz`` still means gzip) to write
    to; renamed to ``path`` when the block ends normally, removed otherwise. The path is
    checked first (:func:`check_output`): for the files a user asked for."""
    with replaced_atomically(check_output(path)) as temporary:
        yield temporary


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
    """The one atomic write: a temporary file beside ``path``, renamed onto it when the
    block ends normally, removed otherwise."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, 0o644)  # mkstemp makes it owner-only
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


_HOST = re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:40] or "host"


@contextmanager
def temporary_folder(name: str) -> Iterator[Path]:
    """A new folder in the system's temporary folder for work of this process only
    (DuckDB's sort and its spill files), removed when the block ends. It is named
    ``NAME-HOST-PID-TOKEN``, so the folders a killed process left are found and removed
    here first (those of live processes, or of other machines sharing TMPDIR, never)."""
    root = Path(tempfile.gettempdir())
    for entry in root.glob(f"{name}-{_HOST}-*"):
        found = re.fullmatch(rf"{re.escape(name)}-{_HOST}-(\d+)-[0-9a-f]{{8}}", entry.name)
        if found and entry.is_dir() and not entry.is_symlink() and _gone(int(found.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
    folder = root / f"{name}-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir(mode=0o700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this machine (one of another user's runs)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
