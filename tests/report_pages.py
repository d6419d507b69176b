"""Reading a report back the way a browser or a Markdown viewer would: a real HTML parser
(the standard library's), Markdown pipe tables, and PNG headers, for the report tests."""

from __future__ import annotations

import base64
import re
import struct
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "img", "br", "hr", "link", "input", "source", "wbr", "col", "area", "base"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk; an AssertionError if it is not a PNG."""
    assert data[:8] == PNG_SIGNATURE, data[:16]
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def decode_data_uri(uri: str) -> bytes:
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix), uri[:40]
    return base64.b64decode(uri[len(prefix) :], validate=True)


@dataclass
class HtmlTable:
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


class Page(HTMLParser):
    """One report page: its sections (id -> text), tables (data-key -> cells), images,
    every URL-valued attribute, and whether every element is closed where it should be."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.sections: dict[str, list[str]] = {}
        self.section_order: list[str] = []
        self.tables: dict[str, HtmlTable] = {}
        self.images: list[dict[str, str]] = []
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.tags: set[str] = set()
        self.styles: list[str] = []
        self.definitions: dict[str, dict[str, str]] = {}
        self._section: str | None = None
        self._table: HtmlTable | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._dl: dict[str, str] | None = None
        self._term: str | None = None
        self._text: list[str] | None = None
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"unclosed at the end: {self.stack}")

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.add(tag)
        for name in ("src", "href", "action", "data", "poster", "srcset"):
            if name in attributes:
                self.urls.append((tag, name, attributes[name] or ""))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "section":
            self._section = attributes["id"]
            self.section_order.append(self._section)
            self.sections[self._section] = []
        elif tag == "table":
            self._table = self.tables.setdefault(attributes["data-key"], HtmlTable())
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(attributes)
        elif tag == "dl":
            self._dl = self.definitions.setdefault(attributes["data-key"], {})
        elif tag in ("dt", "dd", "style"):
            self._text = []

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag in ("td", "th") and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None:
            if not self._table.headers:
                self._table.headers = self._row
            else:
                self._table.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "section":
            self._section = None
        elif tag == "dt":
            self._term = "".join(self._text)
        elif tag == "dd":
            self._dl[self._term] = "".join(self._text)
        elif tag == "style":
            self.styles.append("".join(self._text))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._text is not None:
            self._text.append(data)
        if self._section is not None:
            self.sections[self._section].append(data)

    def section_text(self, key: str) -> str:
        return " ".join(" ".join(self.sections[key]).split())


_MD_ESCAPE = re.compile(r"\\(.)")


def unescape_markdown(text: str) -> str:
    return _MD_ESCAPE.sub(r"\1", text)


def markdown_tables(text: str) -> list[HtmlTable]:
    """The pipe tables of a Markdown text, cells unescaped."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("| ") and line.endswith(" |"):
            cells = re.split(r"(?<!\\)\|", line[1:-1])
            cells = [unescape_markdown(c.strip()) for c in cells]
            if current is None:
                current = HtmlTable(headers=cells)
                tables.append(current)
            elif all(set(c) <= set(":-") for c in cells):
                continue
            else:
                current.rows.append(cells)
        else:
            current = None
    return tables
