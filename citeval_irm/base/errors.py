"""Errors and counted warnings.

Bad input raises :class:`InputError`, which names the source, the line (or row) and the
problem, so a user can open the file at that line. Anything the package ignores or alters
on purpose is recorded as an :class:`EvalWarning` with a count, never dropped silently.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import warnings as python_warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import TypeVar


class CitevalError(Exception):
    """Base class of every error this package raises on purpose.

    Its message is what a user reads first: one line, what went wrong and what to run.
    What only some need (the addresses tried, the underlying exception, every way out) is
    in its details (:func:`with_details`): PEP 678 notes, which Python 3.11+ prints under
    the message of a traceback, and ``citeval --verbose`` under its error line.
    """

    @property
    def details(self) -> list[str]:
        """The error's details, one paragraph an item (its ``__notes__``)."""
        return list(getattr(self, "__notes__", None) or ())


_E = TypeVar("_E", bound=BaseException)


def with_details(error: _E, *details: str) -> _E:
    """``error`` with ``details`` added to its PEP 678 notes (``add_note``, written so as to
    work on Python 3.10 too); returned, to be raised."""
    # Typeshed declares __notes__ from Python 3.11 on (PEP 678); 3.10 is the floor.
    error.__notes__ = [*(getattr(error, "__notes__", None) or ()), *details]  # type: ignore[attr-defined]
    return error


class InputError(CitevalError, ValueError):
    """A run, qrels or argument that cannot be evaluated as given.

    ``source`` is a file path or a description such as ``"<DataFrame>"``; ``line`` is the
    1-based line number in a file (or row number for in-memory input), when one applies.
    """

    def __init__(self, source: str | None, problem: str, line: int | None = None):
        self.source = source
        self.line = line
        self.problem = problem
        where = source or ""
        if line is not None:
            where = f"{where}:{line}" if source else f"line {line}"
        super().__init__(f"{where}: {problem}" if where else problem)


class ArgumentTypeError(InputError, TypeError):
    """An argument of a public function of the wrong type (``evaluate(run, qrels, 123)``):
    a :class:`TypeError` naming the argument, and an :class:`InputError` (the command line
    says it as any bad input)."""


class UnknownDatasetError(InputError, KeyError):
    """A dataset id that is not registered; the message lists the close matches. A
    ``KeyError`` too, as ir_datasets and PyTerrier raise for an unknown name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DatasetNameError(InputError, LookupError):
    """An unknown name given to PyTerrier's ``pt.get_dataset("citeval:...")``; the message
    lists the close matches. A ``LookupError`` but not a ``KeyError``: PyTerrier's loader
    replaces a provider's ``KeyError`` with its own, which does not name them."""


@dataclass(eq=True, unsafe_hash=True)
class EvalWarning(UserWarning):
    """Something the evaluation ignored or altered, counted.

    ``code`` is a stable machine-readable name (e.g. ``"run_only_queries"``); ``examples``
    holds up to a few of the affected ids. A real :class:`Warning`: :func:`evaluate` issues
    each one through :mod:`warnings` too, so ``warnings.simplefilter("error", EvalWarning)``
    turns them into errors and ``"ignore"`` silences them; results keep them in ``.warnings``.
    Each code has its own subclass (:func:`warning_class`), so one kind can be silenced
    alone: ``warnings.simplefilter("ignore", warning_class("tied_scores"))``.
    """

    def __new__(cls, code: str, *args, **keywords):
        return super().__new__(warning_class(code) if cls is EvalWarning else cls)

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = field(default_factory=tuple)
    unit: str = ""  # what ``count`` counts, where the message leaves it open ("queries")

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __reduce__(self):  # an exception pickles its args; a warning travels to Dask workers
        # rebuilt through EvalWarning, which finds the code's class again
        return (EvalWarning, (self.code, self.message, self.count, self.examples, self.unit))

    def __str__(self) -> str:
        text = f"{self.message} ({self.count:,}{' ' + self.unit if self.unit else ''})"
        if self.examples:
            more = ", ..." if self.count > len(self.examples) else ""
            text += ": " + ", ".join(self.examples) + more
        return text

    terminal_examples = 3
    """How many example ids a terminal line shows (:meth:`terminal_line`)."""

    def terminal_line(self) -> str:
        """The warning as one line for a terminal: its message, count and a few examples,
        then its code, by which ``--quiet-warning`` silences it."""
        text = f"{self.message} ({self.count:,}{' ' + self.unit if self.unit else ''})"
        shown = self.examples[: self.terminal_examples]
        if shown:
            text += ": " + ", ".join(shown) + (", ..." if self.count > len(shown) else "")
        return f"{text} [{self.code}]"

    def of_run(self, name: str) -> EvalWarning:
        """This warning named after the run it is about (in a comparison or a report)."""
        return replace(self, message=f"{name}: {self.message}")

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "count": self.count,
            "examples": list(self.examples),
        }


_WARNING_CLASSES: dict[str, type[EvalWarning]] = {}


def warning_class(code: str) -> type[EvalWarning]:
    """The :class:`EvalWarning` subclass of one warning code (``"tied_scores"`` ->
    ``TiedScoresWarning``): every warning of that code is an instance of it, whichever
    module made it, so a :mod:`warnings` filter on it silences that kind alone.

    Parameters
    ----------
    code : str
        A warning code, as in ``EvalWarning.code`` and ``citeval ... --quiet-warning CODE``.

    Returns
    -------
    type
        The subclass, made once per code.

    Examples
    --------
    >>> import warnings
    >>> warnings.simplefilter("ignore", warning_class("tied_scores"))
    >>> warning_class("tied_scores").__name__
    'TiedScoresWarning'
    """
    found = _WARNING_CLASSES.get(code)
    if found is None:
        name = "".join(part.capitalize() for part in code.split("_")) + "Warning"
        found = type(name, (EvalWarning,), {"__module__": __name__, "__doc__": f"``{code}``"})
        _WARNING_CLASSES[code] = found
    return found


class TiedScoresWarning(EvalWarning):
    """``tied_scores``: tied scores in a run, broken by the tie policy. Nearly every run of a
    lexical model has them, so a terminal line names no example query (results keep them):
    the warning one most often silences."""

    terminal_examples = 0


_WARNING_CLASSES["tied_scores"] = TiedScoresWarning


QUOTE_LIMIT = 200  # characters of the user's text an error message quotes


def quoted(value, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of a value from the input (a string's as a plain ``str``, numpy's too), cut to
    about ``limit`` characters with how long it was, so an error about a 2 MB line stays one
    readable line."""
    if isinstance(value, str):
        value = str(value)  # numpy's str_ reprs as np.str_('...')
        if len(value) > limit:
            return f"{value[:limit]!r}... ({len(value):,} characters)"
        return repr(value)
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def examples_of(ids, limit: int = 5) -> tuple[str, ...]:
    """The first ``limit`` ids, as strings, for a warning or error message."""
    out = []
    for value in ids:
        out.append(str(value))
        if len(out) >= limit:
            break
    return tuple(out)


# Frames of these packages are not the caller's: ir-measures' provider machinery calls ours.
_INTERNAL = ("citeval_irm", "ir_measures")
_ISSUING = contextvars.ContextVar("citeval_irm_issuing", default=True)


def deprecated(old: str, new: str) -> None:
    """The one warning of a name kept one release under its old spelling: a
    ``DeprecationWarning`` naming the new one, pointed at the line that used the old (the
    caller of the deprecated function or method that calls this)."""
    python_warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=3,
    )


def caller_stacklevel() -> int:
    """The ``stacklevel`` (counted from the function calling this one) of the first frame
    outside citeval-irm, so a warning points at the user's line, not into the package."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level


def issue(warnings: Iterable[EvalWarning]) -> None:
    """Issue ``warnings`` through :mod:`warnings` at the caller's location: the one way the
    package warns, once per public call (nothing inside :func:`silenced`)."""
    if not _ISSUING.get():
        return
    level = caller_stacklevel()
    for warning in warnings:
        python_warnings.warn(warning, stacklevel=level)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Public functions called by the package itself issue nothing: the outer call reports
    the warnings of what it returns (once, e.g. not again on a Dask worker)."""
    token = _ISSUING.set(False)
    try:
        yield
    finally:
        _ISSUING.reset(token)
