"""One renderer, two forms: a report's sections as a self-contained HTML page or as Markdown.

The walk over sections is shared; only how each kind of block is written differs. Both
forms embed the plots as base64 PNG (``data:`` URIs) and reference nothing outside the
file, so a report opens from disk, offline, years later, as it was written.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from .blocks import Block, Facts, Figure, Items, Section, Text
from .escaping import html_text, markdown_text

_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1a1a1a; max-width: 1100px; margin: 2em auto; padding: 0 1.2em; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #0072B2; padding-bottom: .15em;
     margin-top: 2em; }
p.summary { font-size: 1.05em; color: #333; margin-top: 0; }
nav ol { columns: 3; padding-left: 1.4em; }
div.table { overflow-x: auto; margin: .8em 0 1.2em; }
table { border-collapse: collapse; font-size: 13.5px; }
p.caption { font-weight: 600; margin: 0 0 .3em; }
th, td { border: 1px solid #c8c8c8; padding: .22em .55em; vertical-align: top; }
th { background: #eef3f8; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #f7f7f7; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1.2em; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
              font-size: 12.5px; }
figure { margin: 1em 0 1.6em; } figure img { max-width: 100%; height: auto;
  border: 1px solid #ddd; } figcaption { color: #333; font-size: 13.5px; margin-top: .3em; }
ul.items li { margin: .15em 0; }
"""


def _data_uri(block: Figure) -> str:
    return "data:image/png;base64," + base64.b64encode(block.png).decode("ascii")


def _html(block: Block) -> str:
    """One block of a report as HTML."""
    if isinstance(block, Text):
        return f"<p>{html_text(block.text)}</p>"
    if isinstance(block, Items):
        items = "".join(f"<li>{html_text(item)}</li>" for item in block.items)
        return f'<ul class="items">{items}</ul>'
    if isinstance(block, Facts):
        pairs = "".join(
            f"<dt>{html_text(label)}</dt><dd>{html_text(value)}</dd>"
            for label, value in block.pairs
        )
        return f'<dl data-key="{html_text(block.key)}">{pairs}</dl>'
    if isinstance(block, Figure):
        return (
            f'<figure data-key="{html_text(block.key)}">'
            f'<img src="{_data_uri(block)}" alt="{html_text(block.alt)}">'
            f"<figcaption>{html_text(block.caption)}</figcaption></figure>"
        )
    caption = f'<p class="caption">{html_text(block.caption)}</p>' if block.caption else ""
    head = "".join(f'<th scope="col">{html_text(h)}</th>' for h in block.headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{html_text(cell)}</td>'
            if align == "r"
            else f"<td>{html_text(cell)}</td>"
            for align, cell in zip(block.align, row)
        )
        + "</tr>"
        for row in block.rows
    )
    return (
        f'<div class="table">{caption}<table data-key="{html_text(block.key)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _markdown(block: Block) -> str:
    """One block of a report as Markdown."""
    if isinstance(block, Text):
        return markdown_text(block.text)
    if isinstance(block, Items):
        return "\n".join(f"- {markdown_text(item)}" for item in block.items)
    if isinstance(block, Facts):
        return "\n".join(f"- **{markdown_text(k)}**: {markdown_text(v)}" for k, v in block.pairs)
    if isinstance(block, Figure):
        alt, caption = markdown_text(block.alt), markdown_text(block.caption)
        return f"![{alt}]({_data_uri(block)})\n\n*{caption}*"
    rules = ["---:" if align == "r" else ":---" for align in block.align]
    lines = [[markdown_text(h) for h in block.headers], rules]
    lines += [[markdown_text(cell) for cell in row] for row in block.rows]
    text = "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    return (f"**{markdown_text(block.caption)}**\n\n" if block.caption else "") + text


def _section(section: Section, fmt: str) -> str:
    if fmt == "html":
        blocks = [_html(b) for b in section.blocks]
        return (
            f'<section id="{html_text(section.key)}">'
            f"<h2>{html_text(section.title)}</h2>\n" + "\n".join(blocks) + "</section>"
        )
    blocks = [_markdown(b) for b in section.blocks]
    return f"## {markdown_text(section.title)}\n\n" + "\n\n".join(blocks)


def render(title: str, summary: str, parts: Sequence[Section], fmt: str) -> str:
    """A whole report as ``html`` (one page, inline CSS, no script) or ``markdown``."""
    sections = [_section(s, fmt) for s in parts]
    if fmt == "markdown":
        head = f"# {markdown_text(title)}\n\n{markdown_text(summary)}"
        return "\n\n".join([head, *sections]) + "\n"
    contents = "".join(
        f'<li><a href="#{html_text(s.key)}">{html_text(s.title)}</a></li>' for s in parts
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{html_text(title)}</h1>"
        f'<p class="summary">{html_text(summary)}</p>'
        f"<nav><ol>{contents}</ol></nav></header>\n" + "\n".join(sections) + "\n</body></html>\n"
    )
