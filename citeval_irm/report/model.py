"""What a report is made of: sections of blocks, independent of HTML or Markdown.

The builders (:mod:`citeval_irm.report.build`) say *what* a report shows, once; the renderer
(:mod:`citeval_irm.report.render`) says how each kind of block looks in HTML and in Markdown.
So the two versions of a report always show the same tables, numbers and plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


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


@dataclass
class Report:
    """A report: a title, a one-line summary and its sections, rendered by :meth:`to_html`
    or :meth:`to_markdown`, or written by :meth:`write` (format from the file suffix)."""

    title: str
    summary: str
    sections: list[Section]

    def section(self, key: str) -> Section:
        for section in self.sections:
            if section.key == key:
                return section
        raise KeyError(f"no section {key!r}; sections: {[s.key for s in self.sections]}")

    def tables(self) -> dict[str, Table]:
        return {b.key: b for s in self.sections for b in s.blocks if isinstance(b, Table)}

    def figures(self) -> dict[str, Figure]:
        return {b.key: b for s in self.sections for b in s.blocks if isinstance(b, Figure)}

    def to_html(self) -> str:
        from .render import render

        return render(self, "html")

    def to_markdown(self) -> str:
        from .render import render

        return render(self, "markdown")

    def write(self, path: str | Path) -> Path:
        """Write the report to ``path``: ``.html`` / ``.htm`` for HTML, ``.md`` for
        Markdown; written beside it and renamed into place, so never half-written."""
        from ..outputs import atomic_output, report_format

        fmt = report_format(path)
        text = self.to_html() if fmt == "html" else self.to_markdown()
        with atomic_output(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
        return Path(path)


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
