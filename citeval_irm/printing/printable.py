"""What every result object of the package shares: one ``format``, ``str``, JSON.

A report declares the formats it prints (``FORMATS``), renders each but JSON in ``_render``
(its text escaped by :mod:`citeval_irm.printing.escaping`), and describes itself in ``to_dict``;
``format`` checks the name, JSON comes from ``to_dict`` through the one JSON writer
(strictly valid), and ``str(report)`` is the table, so results print well in a terminal
and a notebook alike (ranx's objects do the same).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from ..base.errors import InputError
from .escaping import json_dumps


class Printable(ABC):
    """Base of the result objects: ``format(fmt, **options)``, ``str``, ``to_dict``."""

    FORMATS: ClassVar[tuple[str, ...]] = ("table", "json")

    def format(self, fmt: str = "table", **options) -> str:
        """The report as ``fmt`` (one of :attr:`FORMATS`); options are the format's."""
        if fmt not in self.FORMATS:
            raise InputError(None, f"unknown format {fmt!r}; choose from {', '.join(self.FORMATS)}")
        if fmt == "json":
            payload = self._json(**options)
            return json_dumps(payload, indent=2) + "\n"
        return self._render(fmt, **options)

    def __str__(self) -> str:
        return self.format("table")

    def _json(self, **options) -> dict:
        """What ``format("json")`` prints: :meth:`to_dict`, unless the options change it."""
        return self.to_dict()

    @abstractmethod
    def to_dict(self) -> dict:
        """Everything the report holds, as JSON-ready values."""

    @abstractmethod
    def _render(self, fmt: str, **options) -> str:
        """The report in one of its formats other than JSON."""
