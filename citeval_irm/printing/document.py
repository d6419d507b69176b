"""A whole report: its title, summary and sections, rendered or written in one call.

It sits above the blocks (:mod:`.blocks`) and the renderer (:mod:`.pages`), which knows
the blocks but not this class, so neither imports the other in a circle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..base.errors import InputError
from ..base.outputs import atomic_output, report_format
from .blocks import Facts, Figure, Section, Table, Text
from .pages import render
from .printable import short_repr


@dataclass(repr=False)
class Report:
    """A report: a title, a one-line summary and its sections, rendered by :meth:`to_html`
    or :meth:`to_markdown`, or written by :meth:`write` (format from the file suffix).

    ``title`` and ``command`` (the way to repeat the report, shown in its setup facts, or
    else as its last section) may be set on it after it is made; :meth:`shown` gives it
    with values in another unit or with other decimals.
    """

    title: str
    summary: str
    sections: list[Section]
    command: str | None = None
    remake: Callable[..., Report] | None = field(default=None, compare=False)

    def shown(self, *, percent: bool | None = None, decimals: int | None = None) -> Report:
        """The same report with values in percent (or fractions) and with ``decimals``
        (default: the protocol's unit, :func:`~citeval_irm.base.options.display_decimals`);
        its title and command kept.

        Parameters
        ----------
        percent : bool, optional
            Values in percent (fractions only: counts stay counts).
        decimals : int, optional
            Decimals of the values shown.

        Returns
        -------
        Report
            Itself when nothing is asked; else the report made again from what was
            computed (:func:`citeval_irm.make_report`'s), nothing computed twice.
        """
        if percent is None and decimals is None:
            return self
        if self.remake is None:
            raise InputError(None, "this report shows its values as it was made")
        return replace(self.remake(percent, decimals), title=self.title, command=self.command)

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
        return render(self.title, self.summary, self._with_command(), "html")

    def to_markdown(self) -> str:
        return render(self.title, self.summary, self._with_command(), "markdown")

    def _with_command(self) -> list[Section]:
        """The sections with the command: first of the setup facts, else a last section."""
        if not self.command:
            return self.sections
        command = ("command", self.command)
        for i, section in enumerate(self.sections):
            facts = [b for b in section.blocks if isinstance(b, Facts)]
            if section.key == "setup" and facts:
                first = facts[0]
                blocks = [
                    replace(b, pairs=(command, *b.pairs)) if b is first else b
                    for b in section.blocks
                ]
                return [
                    *self.sections[:i],
                    replace(section, blocks=blocks),
                    *self.sections[i + 1 :],
                ]
        return [*self.sections, Section("command", "Command").add(Text(self.command))]

    def write(self, path: str | Path) -> Path:
        """Write the report to ``path``: ``.html`` / ``.htm`` for HTML, ``.md`` for
        Markdown; written beside it and renamed into place, so never half-written."""
        fmt = report_format(path)
        text = self.to_html() if fmt == "html" else self.to_markdown()
        with atomic_output(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
        return Path(path)
