"""What every result object of the package shares: one ``format``, ``str``, JSON.

A report declares the formats it prints (``FORMATS``), renders each but JSON in ``_render``
(its text escaped by :mod:`citeval_irm.printing.escaping`), and describes itself in ``to_dict``;
``format`` checks the name, JSON comes from ``to_dict`` through the one JSON writer
(strictly valid), and ``str(report)`` is the table, so results print well in a terminal
and a notebook alike (ranx's objects do the same). ``repr(report)`` is one short line in
scipy's style (``EvalResult(run='bm25.trec', queries=163, RR=0.3003, ...)``): the few facts
the class's ``_summary`` names, cut at :data:`REPR_LIMIT` characters.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base.errors import EvalWarning, InputError
from .escaping import json_dumps, plain_text

REPR_LIMIT = 300  # the most characters a result's repr takes


class Shown(str):
    """A value a short repr shows as it is (``9 of 11``), not quoted."""


def short_repr(name: str, facts: dict[str, object], limit: int = REPR_LIMIT) -> str:
    """``name(key=value, ...)`` in one line of at most ``limit`` characters: strings quoted,
    floats to four decimals, lists of them in brackets; the facts that do not fit are
    replaced by ``...``."""
    shown = [f"{key}={_shown(value)}" for key, value in facts.items()]
    text = f"{name}({', '.join(shown)})"
    while len(text) > limit and shown:
        shown.pop()
        text = f"{name}({', '.join([*shown, '...'])})"
    return text


def file_name(source: str) -> str:
    """A run's or qrels' source as a short repr names it: a path by its file name
    (``/data/runs/bm25.trec`` is ``bm25.trec``); a URL, an id or ``<run>`` as it is."""
    if "://" in source or source.startswith("<") or ":" in source.split("/", 1)[0]:
        return source
    return source.rstrip("/").rsplit("/", 1)[-1] or source


def warning_line(warning: EvalWarning) -> str:
    """The one line a warning takes on a terminal: ``warning:``, then its
    :meth:`~citeval_irm.base.errors.EvalWarning.terminal_line`, escaped (no newline).

    Parameters
    ----------
    warning : EvalWarning
        The warning.

    Returns
    -------
    str
        The line, what a result's ``warnings_text`` and the command line both print.
    """
    return f"warning: {plain_text(warning.terminal_line())}"


def _shown(value) -> str:
    if isinstance(value, Shown):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, str):
        return repr(" ".join(value.split()))
    return repr(value)


class Printable(ABC):
    """Base of the result objects: ``format(fmt, **options)``, ``str``, ``to_dict``."""

    FORMATS: ClassVar[tuple[str, ...]] = ("table", "json")
    _TAKES: ClassVar[_Takes]  # the keywords its formats take, read once per class

    def format(self, fmt: str = "table", **options: Any) -> str:
        """The result printed as ``fmt``.

        Parameters
        ----------
        fmt : str, default "table"
            One of the class's :attr:`FORMATS` (``table``, ``json``, and per class
            ``markdown``, ``latex``, ``csv``, ``trec_eval``, ...).
        **options
            The format's own keywords (``percent``, ``decimals``, ``per_query``, ...): the
            keyword-only parameters of the class's ``_render`` (JSON: ``_json``); one it
            does not take is a ``TypeError`` at the call, naming those it takes.

        Returns
        -------
        str
            The text; ``str(result)`` is ``format("table")``, JSON is strictly valid.

        Examples
        --------
        >>> import citeval_irm
        >>> result = citeval_irm.evaluate({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, "RR")
        >>> text = result.format("json")
        """
        if fmt not in self.FORMATS:
            raise InputError(None, f"unknown format {fmt!r}; choose from {', '.join(self.FORMATS)}")
        takes = type(self)._TAKES
        if takes.every is not None:
            unknown = [name for name in options if name not in takes.every]
            if unknown:
                taken = (
                    f"it takes {', '.join(takes.every)}" if takes.every else "it takes no keywords"
                )
                raise TypeError(
                    f"{type(self).__name__}.format() got an unexpected keyword argument "
                    f"{unknown[0]!r}; {taken}"
                )
        # one format's keyword that does not change another (``decimals`` for JSON, which
        # holds every value in full) is accepted by all of them, so one set of keywords
        # prints a result in each of its formats
        names = takes.json if fmt == "json" else takes.render
        if names is not None:
            options = {name: value for name, value in options.items() if name in names}
        if fmt == "json":
            return json_dumps(self._json(**options), indent=2) + "\n"
        return self._render(fmt, **options)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Read once per class which keywords its formats take (:class:`_Takes`), not at
        every ``format`` call."""
        super().__init_subclass__(**kwargs)
        cls._TAKES = _Takes.of(cls)

    def __str__(self) -> str:
        return self.format("table")

    def __repr__(self) -> str:
        return short_repr(type(self).__name__, self._summary())

    def _repr_html_(self) -> str:
        """What a notebook shows: the main table (:meth:`to_frame`) as HTML, not the line."""
        return self.to_frame().to_html()

    def _summary(self) -> dict[str, object]:
        """What ``repr`` shows, most telling first (it is cut at :data:`REPR_LIMIT`)."""
        return {}

    def _json(self) -> dict:
        """What ``format("json")`` prints: :meth:`to_dict`; a class whose JSON takes
        keywords adds them, keyword-only."""
        return self.to_dict()

    @abstractmethod
    def to_frame(self):
        """The result's main table as a pandas DataFrame, the same meaning on every result:
        one row per query where the result holds values per query (``EvalResult``:
        then the aggregate row ``"all"``; ``Comparison``; ``Resolution``), else one row per
        what it reports (a measure, a check, a group, a cell, a published figure, a
        split). The other tables are the result's attributes."""

    @abstractmethod
    def to_dict(self) -> dict:
        """Everything the report holds, as JSON-ready values."""

    @abstractmethod
    def _render(self, fmt: str) -> str:
        """The report in one of its formats other than JSON; a class whose formats take
        keywords (``percent``, ``decimals``, ...) adds them, keyword-only, each visible."""


@dataclass(frozen=True)
class _Takes:
    """The keywords a :class:`Printable` class's formats take besides ``fmt``: ``render``
    (its ``_render``'s), ``json`` (its ``_json``'s) and ``every`` (both, ``_render``'s
    first), each ``None`` where the method takes any (a ``**options``). ``format`` raises a
    ``TypeError`` at its call for a keyword none of them takes (a misspelt ``pct=True``),
    naming those they take, rather than an error inside ``_render`` or, worse, a keyword
    silently dropped."""

    render: tuple[str, ...] | None
    json: tuple[str, ...] | None
    every: tuple[str, ...] | None

    @classmethod
    def of(cls, printable: type[Printable]) -> _Takes:
        render, json = _keywords(printable._render), _keywords(printable._json)
        every = None if render is None or json is None else tuple(dict.fromkeys(render + json))
        return cls(render, json, every)


def _keywords(method: Any) -> tuple[str, ...] | None:
    """The keywords the method ``method`` (a class's function) takes besides ``self`` and
    ``fmt`` (``None``: any, a ``**options``)."""
    parameters = list(inspect.signature(method).parameters.values())[1:]  # not self
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return tuple(p.name for p in parameters if p.name != "fmt" and p.kind is not p.VAR_POSITIONAL)
