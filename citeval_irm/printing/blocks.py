"""What a report is made of: sections of blocks, independent of HTML or Markdown.

The builders (:mod:`citeval_irm.report.sections`) say *what* a report shows, once; the
renderer (:mod:`citeval_irm.printing.pages`, above this module) says how each kind of block
looks in HTML and in Markdown; :class:`~citeval_irm.printing.document.Report` (above both)
puts the sections together. So the two versions of a report always show the same tables,
numbers and plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Text:
    """A paragraph of plain text (escaped when rendered)."""

    text: str


@dataclass(frozen=True)
class Items:
    """A bulleted list of plain-text lines."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Facts:
    """Label / value pairs (a definition list): settings, versions, provenance."""

    key: str
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Table:
    """Cells already formatted as the report prints them. ``key`` names the table for
    readers of the file (an HTML ``data-key``); ``align`` has one letter per column, ``l``
    for text and ``r`` for numbers (right-aligned, so digits line up)."""

    key: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str
    caption: str | None = None


@dataclass(frozen=True)
class Figure:
    """A plot as PNG bytes, with what it shows in words (``alt``) and the plotted numbers
    (``data``), so what a plot shows can be checked against the API."""

    key: str
    png: bytes
    caption: str
    alt: str
    data: dict = field(default_factory=dict, compare=False, hash=False)


Block = Text | Items | Facts | Table | Figure


@dataclass
class Section:
    """A titled part of a report (``key`` is its anchor)."""

    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block | None) -> Section:
        """Append the blocks that are not ``None``; returns the section."""
        self.blocks.extend(b for b in blocks if b is not None)
        return self


def table(
    key: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    left: int = 1,
    align: str | None = None,
    caption: str | None = None,
) -> Table:
    """A :class:`Table` from lists (cells as strings); the first ``left`` columns are text
    and the others numbers, unless ``align`` says column by column."""
    align = align or "l" * left + "r" * (len(headers) - left)
    if len(align) != len(headers):
        raise ValueError(f"table {key}: {len(headers)} columns, alignment {align!r}")
    cells = tuple(tuple(str(c) for c in r) for r in rows)
    return Table(key, tuple(headers), cells, align, caption)
