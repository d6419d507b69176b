"""Progress bars and log messages: shown for long work only, labelled, silenced on request.

A terminal is for results. Every bar of this package (downloads, store builds, BM25
indexing and ranking) goes through :func:`bar`, which names what it counts and appears only
once the work has taken :data:`DELAY` seconds, so the demo and other short jobs never show
one; :func:`set_quiet` (``citeval --quiet``) turns them off. ir_datasets' own messages that
say nothing a user can act on ("Opening ... with direct file access" on every store opened,
"No fields supplied" on every export) are dropped by :func:`quiet_ir_datasets_chatter`.
Kept light: imported by the command line before any command runs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

DELAY = 1.0
"""Seconds of work before a bar appears."""

LOGGERS = ("ir_datasets", "citeval_irm")
"""The loggers of ir_datasets and of this package's dataset code (``[INFO] ...`` lines)."""

_CHATTER = ("with direct file access", "No fields supplied. Using all fields")
_state = {"quiet": False}


def set_quiet(quiet: bool) -> None:
    """No progress bars, and no INFO messages (warnings and errors only), when ``quiet``."""
    _state["quiet"] = bool(quiet)
    for name in LOGGERS:
        if quiet:
            logging.getLogger(name).addFilter(_drop_info)
        else:
            logging.getLogger(name).removeFilter(_drop_info)


def is_quiet() -> bool:
    return _state["quiet"]


def bar(
    iterable: Iterable | None = None, *, desc: str, unit: str, enabled: bool | None = True, **kwargs
):
    """A tqdm bar labelled ``desc`` counting ``unit``s, shown after :data:`DELAY` seconds
    (``enabled=None``: only on a terminal; ``False`` or quiet: never)."""
    from tqdm import tqdm  # text bars, in a notebook too (tqdm.auto wants ipywidgets)

    disable = True if is_quiet() or enabled is False else (None if enabled is None else False)
    return tqdm(iterable, desc=desc, unit=unit, disable=disable, delay=DELAY, **kwargs)


def _drop_info(record: logging.LogRecord) -> bool:
    return record.levelno > logging.INFO


def _drop_chatter(record: logging.LogRecord) -> bool:
    return not (
        record.levelno <= logging.INFO and any(text in str(record.msg) for text in _CHATTER)
    )


def quiet_ir_datasets_chatter() -> None:
    """Drop ir_datasets' INFO messages that only narrate (once per process)."""
    logger = logging.getLogger("ir_datasets")
    if _drop_chatter not in logger.filters:
        logger.addFilter(_drop_chatter)
