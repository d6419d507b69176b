"""A whole report: its title, summary and sections, rendered or written in one call.

It sits above the blocks (:mod:`.model`) and the renderer (:mod:`.render`), which knows
the blocks but not this class, so neither imports the other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..base.outputs import atomic_output, report_format
from .blocks import Figure, Section, Table, Text
from .pages import render
from .printable import short_repr


@dataclass(repr=False)
class Report:
    """A report: a title, a one-line summary and its sections, rendered by :meth:`to_html`
    or :meth:`to_markdown`, or written by :meth:`write` (format from the file suffix)."""

    title: str
    summary: str
    sections: list[Section]

    def __repr__(self) -> str:
        facts = {"title": self.title, "sections": [s.key for s in self.sections]}
        return short_repr("Report", {**facts, "figures": len(self.figures())})

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
        return render(self.title, self.summary, self.sections, "html")

    def to_markdown(self) -> str:
        return render(self.title, self.summary, self.sections, "markdown")

    def write(self, path: str | Path) -> Path:
        """Write the report to ``path``: ``.html`` / ``.htm`` for HTML, ``.md`` for
        Markdown; written beside it and renamed into place, so never half-written."""
        fmt = report_format(path)
        text = self.to_html() if fmt == "html" else self.to_markdown()
        with atomic_output(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
        return Path(path)


def command_report(
    title: str, summary: str, sections: list[Section], command: str | None
) -> Report:
    """A result's own report (a table, a breakdown): its sections, then the command that
    made it, the way to repeat it."""
    if command:
        sections = [*sections, Section("command", "Command").add(Text(command))]
    return Report(title, summary, sections)
