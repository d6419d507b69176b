"""Plain-text, Markdown and LaTeX tables from rows of cells, for the comparison reports.

The reports build their rows once (strings, already formatted) and render them in any of the
three forms, so a terminal table, a Markdown table and a LaTeX table never disagree.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from .escaping import markdown_text, plain_text


def render(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    fmt: str = "table",
    *,
    left: int = 1,
    indent: str = "  ",
) -> str:
    """``rows`` under ``headers`` as an aligned text table (``fmt="table"``) or a Markdown
    pipe table (``"markdown"``); the first ``left`` columns are left-aligned, the rest right
    (numbers). Every cell is text, escaped for the format."""
    if fmt == "markdown":
        rules = [":---" if i < left else "---:" for i in range(len(headers))]
        cells = [[markdown_text(c) for c in line] for line in [headers, *rows]]
        lines = [cells[0], rules, *cells[1:]]
        return "".join("| " + " | ".join(line) + " |\n" for line in lines)
    headers = [plain_text(h) for h in headers]
    rows = [[plain_text(c) for c in row] for row in rows]
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            f"{cell:<{w}}" if i < left else f"{cell:>{w}}"
            for i, (cell, w) in enumerate(zip(cells, widths))
        ]
        return (indent + "  ".join(parts)).rstrip() + "\n"

    return "".join(line(cells) for cells in [headers, *rows])


def latex_tabular(
    headers: Sequence[str], rows: Sequence[Sequence[str] | None], *, left: int = 1
) -> str:
    """A booktabs ``tabular`` (toprule, midrule, bottomrule) of cells that are already LaTeX;
    a row that is ``None`` is a ``\\midrule`` between groups."""
    spec = "l" * left + "r" * (len(headers) - left)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(headers) + " \\\\"]
    lines.append("\\midrule")
    for cells in rows:
        lines.append("\\midrule" if cells is None else " & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def blocks(parts: Sequence[str], fmt: str) -> str:
    """The parts of a text report (lines, tables, bullets) one after another: in Markdown
    with a blank line between blocks (a line right after a table would be read as one more
    of its rows, a table right after another as its rows), list items kept together."""
    parts = [part.rstrip("\n") for part in parts]
    if fmt != "markdown":
        return "\n".join(parts) + "\n"
    out = parts[:1]
    for before, part in zip(parts, parts[1:]):
        items = before.startswith("- ") and part.startswith("- ")
        out += ["\n" if items else "\n\n", part]
    return "".join(out) + "\n"


def wrap(line: str, bullet: str, fmt: str) -> str:
    """A legend or note line (text, escaped for the format): for a terminal wrapped at 100
    characters and continued indented; a Markdown paragraph or bullet stays one line."""
    if fmt == "markdown":
        return bullet + markdown_text(line)
    return textwrap.fill(
        plain_text(line), 100, initial_indent=bullet, subsequent_indent=bullet + "  "
    )


def number(value: float | None, decimals: int, *, sign: bool = False) -> str:
    """A value as a table prints it: ``decimals`` places, never ``-0.00``, ``-`` when
    missing; ``sign``: with its + or -."""
    if value is None or math.isnan(value):
        return "-"
    if round(value, decimals) == 0:
        return f"{0.0:.{decimals}f}"
    return f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"
