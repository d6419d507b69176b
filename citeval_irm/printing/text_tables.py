"""Plain-text, Markdown and LaTeX tables from rows of cells, for the comparison reports.

The reports build their rows once (strings, already formatted) and render them in any of the
three forms, so a terminal table, a Markdown table and a LaTeX table never disagree.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence

from .escaping import markdown_text, plain_text

WIDTH = 100
"""The widest line of text the package prints for a terminal (the tables, the legends)."""
NARROWEST = 40
"""The narrowest width it wraps to, however narrow the terminal says it is."""


def text_width() -> int:
    """The width terminal text is wrapped to: :data:`WIDTH`, or the terminal's width when
    it is narrower (``COLUMNS`` first, as :func:`shutil.get_terminal_size` reads it), never
    below :data:`NARROWEST`. Output that goes to a file or a pipe is not a terminal: it is
    wrapped at :data:`WIDTH` whatever terminal the command was started from, so the same
    command writes the same file."""
    if not os.environ.get("COLUMNS", "").strip().isdigit():
        stdout = sys.stdout
        if stdout is None or not getattr(stdout, "isatty", lambda: False)():
            return WIDTH
    columns = shutil.get_terminal_size((WIDTH, 24)).columns
    return max(NARROWEST, min(WIDTH, columns))


def render(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    fmt: str = "table",
    *,
    left: int = 1,
    indent: str = "  ",
    width: int | None = None,
) -> str:
    """``rows`` under ``headers`` as an aligned text table (``fmt="table"``) or a Markdown
    pipe table (``"markdown"``); the first ``left`` columns are left-aligned, the rest right
    (numbers). Every cell is text, escaped for the format.

    A text table wider than ``width`` (default :func:`text_width`) is printed as pandas
    prints a wide frame: its columns in consecutive blocks, each as wide as fits, each
    block repeating the ``left`` columns that name its rows, a blank line between blocks;
    a block that starts inside a group of columns (a header left blank after the group's
    name, as ``citeval table``'s datasets) repeats the group's name."""
    if fmt == "markdown":
        rules = [":---" if i < left else "---:" for i in range(len(headers))]
        cells = [[markdown_text(c) for c in line] for line in [headers, *rows]]
        lines = [cells[0], rules, *cells[1:]]
        return "".join("| " + " | ".join(line) + " |\n" for line in lines)
    headers = [plain_text(h) for h in headers]
    rows = [[plain_text(c) for c in row] for row in rows]
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def block(columns: Sequence[int]) -> str:
        heads = list(headers)
        first = columns[left] if len(columns) > left else None
        if first is not None and first > left and not heads[first]:  # inside a column group
            named = [h for h in headers[left:first] if h]
            heads[first] = named[-1] if named else ""
        sizes = {i: max(widths[i], len(heads[i])) for i in columns}

        def line(cells: Sequence[str]) -> str:
            parts = [
                f"{cells[i]:<{sizes[i]}}" if i < left else f"{cells[i]:>{sizes[i]}}"
                for i in columns
            ]
            return (indent + "  ".join(parts)).rstrip() + "\n"

        return "".join(line(cells) for cells in [heads, *rows])

    blocks = _column_blocks(widths, left, (width or text_width()) - len(indent))
    return "\n".join(block(columns) for columns in blocks)


def _column_blocks(widths: Sequence[int], left: int, room: int) -> list[list[int]]:
    """The columns of a text table in as few blocks of at most ``room`` characters as hold
    them (columns two apart), each block starting with the ``left`` key columns, the
    columns shared out so that the widest block is as narrow as it can be (the compare
    table's differences in one block, its p-values in the other); a column wider than a
    block has room for is a block of its own."""
    keys = list(range(min(left, len(widths))))
    key_width = sum(widths[i] for i in keys) + 2 * max(len(keys) - 1, 0)
    values = list(range(len(keys), len(widths)))

    def span(first: int, end: int) -> int:  # a block of values[first:end], its keys too
        return key_width + sum(2 + widths[values[i]] for i in range(first, end))

    count, size = 1, key_width  # how many blocks the greedy packing needs
    for i in range(len(values)):
        if size > key_width and size + 2 + widths[values[i]] > room:
            count, size = count + 1, key_width
        size += 2 + widths[values[i]]
    # the split of values into `count` contiguous blocks whose widest is narrowest
    best: dict[tuple[int, int], tuple[int, list[int]]] = {}

    def split(first: int, blocks: int) -> tuple[int, list[int]]:
        if blocks == 1:
            return span(first, len(values)), []
        if (first, blocks) not in best:
            best[first, blocks] = min(
                (
                    max(span(first, end), split(end, blocks - 1)[0]),
                    [end, *split(end, blocks - 1)[1]],
                )
                for end in range(first + 1, len(values) - blocks + 2)
            )
        return best[first, blocks]

    count = min(count, max(len(values), 1))
    ends = [*split(0, count)[1], len(values)] if values else [0]
    starts = [0, *ends[:-1]]
    return [keys + values[a:b] for a, b in zip(starts, ends)]


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


def wrap(line: str, bullet: str = "", fmt: str = "table") -> str:
    """A heading, legend or note line (text, escaped for the format): for a terminal wrapped
    at :func:`text_width` and continued indented; a Markdown paragraph or bullet stays one
    line."""
    if fmt == "markdown":
        return bullet + markdown_text(line)
    return textwrap.fill(
        plain_text(line),
        text_width(),
        initial_indent=bullet,
        subsequent_indent=bullet + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def number(value: float | None, decimals: int, *, sign: bool = False) -> str:
    """A value as a table prints it: ``decimals`` places, never ``-0.00``, ``-`` when
    missing; ``sign``: with its + or -."""
    if value is None or math.isnan(value):
        return "-"
    if round(value, decimals) == 0:
        return f"{0.0:.{decimals}f}"
    return f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"
