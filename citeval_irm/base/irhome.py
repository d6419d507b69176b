"""Importing ir_datasets when ``IR_DATASETS_HOME`` cannot be written.

ir_datasets creates folders in its home while it is imported (``aol-ia/``, ``aquaint/``,
...), so with a read-only home (a shared, pre-built cache) ``import ir_datasets`` fails
with a ``PermissionError``, and with it every citeval command, even those that never touch
a dataset store (``citeval eval RUN --qrels FILE``). Importing this module first imports
ir_datasets with a scratch home for those folders, then puts the real home back: our
datasets read ``home_path()`` at use time, so they still find their files there, and only a
command that must write a store fails, with a message saying so.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
from pathlib import Path


def _writable(home: Path) -> bool:
    """Whether folders can be made in ``home`` (or, if it does not exist, where it would be)."""
    while not home.exists() and home != home.parent:
        home = home.parent
    return os.access(home, os.W_OK)


def checked_home() -> Path:
    """The ir_datasets home, ``$IR_DATASETS_HOME`` (default ``~/.ir_datasets``), if it can
    be one: set to nothing it would be the current folder (ir_datasets reads it as ``.``),
    and a file cannot hold datasets; both are an :class:`InputError` saying what to do,
    before anything is written."""
    from .errors import InputError

    configured = os.environ.get("IR_DATASETS_HOME")
    if configured is not None and not configured.strip():
        raise InputError(
            None,
            "IR_DATASETS_HOME is set but empty (ir_datasets would put its files in the "
            "current folder): set it to a folder, or unset it for ~/.ir_datasets",
        )
    home = Path(configured).expanduser() if configured else Path.home() / ".ir_datasets"
    if home.exists() and not home.is_dir():
        raise InputError(
            None,
            f"IR_DATASETS_HOME is {home}, which is a file, not a folder: set it to a folder "
            "(it is made if it does not exist), or unset it for ~/.ir_datasets",
        )
    return home


def import_ir_datasets() -> None:
    """Import ir_datasets so that a read-only home does not break the import."""
    if "ir_datasets" in sys.modules:
        return
    configured = os.environ.get("IR_DATASETS_HOME")
    home = checked_home()
    if _writable(home):
        import ir_datasets  # noqa: F401

        return
    from .outputs import scratch_folder

    scratch = str(scratch_folder("ir_datasets-import"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # leave no folder behind
    os.environ["IR_DATASETS_HOME"] = scratch
    try:
        import ir_datasets  # noqa: F401, F811
    finally:
        if configured is None:
            del os.environ["IR_DATASETS_HOME"]
        else:
            os.environ["IR_DATASETS_HOME"] = configured


import_ir_datasets()
