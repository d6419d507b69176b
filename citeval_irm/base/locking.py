"""Exclusive sections across processes: one file lock per thing that is written.

Several processes may load the same dataset for the first time at once (a job array, a
notebook beside a script). Whatever is built or installed (a docstore, a download, an
import) is therefore written by one process at a time, under a lock file beside it, and the
others wait, then find it done. The locks are ``flock`` locks (through ``filelock``): the
kernel releases them when a process dies, so a killed build never blocks the next one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from .errors import CitevalError


class LockError(CitevalError):
    """A lock file cannot be created (a read-only folder, say): nothing can be written there."""


@contextmanager
def exclusive(lock_file: str | os.PathLike, what: str) -> Iterator[None]:
    """Hold the lock ``lock_file`` while the block runs, waiting for another process that
    holds it (logged, naming ``what``). Re-entrant within a process."""
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
        lock.release()
