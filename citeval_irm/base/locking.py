"""Exclusive sections across processes: one file lock per thing that is written.

Several processes may load the same dataset for the first time at once (a job array, a
notebook beside a script). Whatever is built or installed (a docstore, a download, an
import) is therefore written by one process at a time, under a lock file beside it, and the
others wait, then find it done. The locks are ``flock`` locks (through ``filelock``): the
kernel releases them when a process dies, so a killed build never blocks the next one.

The lock file is removed by its holder before it releases the lock, whether the work
succeeded or failed, so nothing is left beside what was (or failed to be) written. This is
safe because only a holder removes it: a process that was waiting on the removed file finds,
once it gets the lock, that the file has no name any more (filelock checks the link count
after ``flock``) and locks the file of the name anew.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import CitevalError

if TYPE_CHECKING:
    import filelock


class LockError(CitevalError):
    """A lock file cannot be created (a read-only folder, say): nothing can be written there."""


@contextmanager
def exclusive(lock_file: str | os.PathLike, what: str) -> Iterator[None]:
    """Hold the lock ``lock_file`` while the block runs, waiting for another process that
    holds it (logged, naming ``what``). Re-entrant within a process; the outermost hold
    removes the lock file before it releases it (see the module docstring)."""
    import filelock  # not at import: registering the datasets locks nothing
    import ir_datasets

    lock_file = Path(lock_file)
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(lock_file, is_singleton=True)
        try:
            lock.acquire(timeout=0)
        except filelock.Timeout:
            ir_datasets.log.easy("citeval_irm").info(f"waiting for another process that is {what}")
            lock.acquire()
    except OSError as exc:
        raise LockError(
            f"cannot lock {lock_file} for {what}: {exc.strerror or exc}. Its folder must be "
            "writable (set IR_DATASETS_HOME to a writable folder)"
        ) from None
    try:
        yield
    finally:
        if lock.lock_counter == 1 and _native(lock):
            with contextlib.suppress(OSError):  # gone already, or a read-only folder
                lock_file.unlink()
        lock.release()


def _native(lock: filelock.FileLock) -> bool:
    """Whether ``lock`` is an ``flock`` lock, not filelock's soft fallback (on a file system
    without ``flock``), whose lock *is* the file's existence and which removes the file as
    it releases: only the pid of a soft lock's marker can be read."""
    try:
        lock.pid  # noqa: B018 (a soft lock's marker; AttributeError for a native lock)
    except AttributeError:
        return True
    return False
