"""The one place where text meets an output format: run names, ids and file names made
inert in every format the package writes.

Text a user controls (run names, query and doc ids, file names, paper references) lands in
terminal tables, CSV, Markdown, LaTeX, HTML, JSON and trec_eval lines. Each format has one
function here for a text cell (and, where the format has them, for comment lines), and the
result objects and renderers call nothing else, so a new format or a new result cannot
forget a rule:

- every text format: control and format characters (Unicode categories Cc and Cf:
  newline, carriage return, tab, escape, the bidirectional controls such as U+202E, zero
  width joiners) and the line and paragraph separators are shown as their Python escapes
  (``\\n``, ``\\u202e``), so a name can never start a new line, block, heading or LaTeX
  line, move a terminal's cursor, nor reverse the rest of its line, numbers included;
- CSV (:func:`csv_text`): the :mod:`csv` module quotes; a text cell starting with ``=``
  ``+`` ``-`` ``@``, tab or carriage return gets a leading ``'`` (OWASP's CSV-injection
  rule, what spreadsheet-safe writers do), a number never; floats keep full precision;
- Markdown (:func:`markdown_text`): inline markup and HTML backslash-escaped, block
  markers at the start too; prose with its web addresses as links (:func:`markdown_prose`),
  a code span (:func:`markdown_code`) and a fenced block (:func:`markdown_code_block`) whose
  fence no backtick inside can close;
- LaTeX (:func:`latex_text`, :func:`latex_comment`): every special character in its
  text-mode form;
- plots (:func:`plot_text`): no mathtext, no hidden legend entry;
- HTML (:func:`html_text`): :func:`html.escape`, quotes included (safe in attributes);
- JSON (:func:`json_dumps`): strictly valid, non-finite numbers as ``null`` with the
  reason;
- trec_eval lines (:func:`trec_field`): a field with white space cannot be written.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import math
import re
import unicodedata
from collections.abc import Sequence

from ..base.errors import InputError

# What is shown as its escape: the controls (Cc: C0, DEL, C1), which can end a line or
# drive a terminal, the format characters (Cf: the bidirectional overrides and isolates,
# which reorder what follows them on the line, zero-width characters, tags) and the line /
# paragraph separators (Zl, Zp), which end a line in some readers (a JavaScript string).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Every character that may be one of them: printable ASCII never is. Which one is, is asked
# of unicodedata, so a Unicode version adding a format character needs no change here.
_MAYBE_CONTROL = re.compile("[^\x20-\x7e]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")

# CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones with an
# inline meaning (emphasis, code, links and images, autolinks and HTML, entities, GFM
# tables, strikethrough, math), escaped wherever they are. ( ) and ! mean something only
# after or before a bracket, and every bracket is escaped.
# An underscore inside a word (p_adj, trec_eval) cannot open or close emphasis: left as is.
_MARKDOWN_INLINE = re.compile(r"([\\`*\[\]<>|&~$]|(?<![^\W_])_|_(?![^\W_]))")
# At the start of a block: headings, quotes, lists, rules, setext underlines, fences.
_MARKDOWN_BLOCK = re.compile(r"^( *)([#>+=-]|\d+[.)])")

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "[": "{[}",  # a row starting with [ would be the optional argument of the \\ before it
    "]": "{]}",
}
_LATEX_SPECIAL = re.compile("[" + re.escape("".join(_LATEX)) + "]")


def visible(text: str) -> str:
    """``text`` with every control or format character (Unicode categories Cc, Cf) and
    every line or paragraph separator shown as its Python escape (``\\n``, ``\\x1b``,
    ``\\u202e``, ``\\U000e0001``): one line, in the order it is written, whatever it holds.

    A terminal obeys more than line ends: ESC starts a command, and a right-to-left
    override (U+202E) or isolate (U+2066) makes it show the rest of the line reversed,
    the numbers of a table included. Every text format calls this first, so none can
    forget one of them."""
    text = str(text)
    if text.isprintable():  # no Cc, Cf, Zl or Zp (nor any other non-printable): as it is
        return text
    return _MAYBE_CONTROL.sub(_escaped, text)


def _escaped(match: re.Match) -> str:
    """A character as its Python escape if :func:`visible` escapes it, else itself."""
    char = match.group()
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible_log_record(record) -> bool:
    """A :mod:`logging` filter: the record's message as :func:`visible` shows it (a paper
    id in a loader's ``[WARNING]`` line can hold ESC or U+202E too); never drops one."""
    message = record.getMessage()
    shown = visible(message)
    if shown != message:
        record.msg, record.args = shown, ()
    return True


def escape_log_lines() -> None:
    """Make the log lines of ir_datasets and of this package's dataset code
    (:data:`~citeval_irm.base.progress.LOGGERS`, written to standard error whatever
    ``--quiet`` says for their warnings) pass through :func:`visible_log_record` (once)."""
    import logging

    from ..base.progress import LOGGERS

    for name in LOGGERS:
        logger = logging.getLogger(name)
        if visible_log_record not in logger.filters:
            logger.addFilter(visible_log_record)


def is_number(text: str) -> bool:
    """Whether ``text`` is a number as written (``-0.5``, ``1e-3``, ``inf``): a
    spreadsheet reads it as a number, never as a formula."""
    return _NUMBER.fullmatch(text) is not None


# --------------------------------------------------------------------------- per format


class Markup(str):
    """Text the package itself wrote in a format's markup (a bold best value), never a
    user's name: the text functions of that format pass it through as it is."""


def plain_text(text: str) -> str:
    """A cell or line of a terminal table: one line, no terminal control sequence."""
    return visible(text)


def markdown_text(text: str) -> str:
    """Text as Markdown shows it literally (a paragraph, a list item or a table cell):
    inline markup escaped, a block marker at its start escaped, one line."""
    if isinstance(text, Markup):
        return text
    text = visible(text)
    if is_number(text) and not text.endswith("."):  # "1." would be a list item
        return text
    text = _MARKDOWN_INLINE.sub(r"\\\1", text)
    text = _MARKDOWN_BLOCK.sub(lambda m: m.group(1) + _escape_marker(m.group(2)), text)
    # leading spaces as entities: four of them would start a code block
    stripped = text.lstrip(" ")
    return "&#32;" * (len(text) - len(stripped)) + stripped


# A web address in prose: http(s) only (never javascript: or data:), up to white space or a
# character that cannot end one unquoted; a full stop, comma, colon, semicolon or closing
# bracket after it ends the sentence, not the address; "@" too, which the package writes
# after a repository's address for its revision (huggingface.co/datasets/x/y@a7bdfcad).
_URL = re.compile(r"https?://[^\s<>\"'`|\\()\[\]{}@]+")
_URL_TAIL = ".,;:!?"


def markdown_prose(text: str) -> str:
    """Prose as Markdown shows it literally (as :func:`markdown_text`), except that each
    ``http(s)://`` address becomes a link to itself and each `` `...` `` span a code span:
    the package's own documentation (a dataset's YAML, ``citeval datasets list``) writes
    addresses bare and commands between backticks."""
    text = visible(text)
    parts, start = [], 0
    for match in re.finditer(r"`([^`]+)`|" + _URL.pattern, text):
        code, end = match.group(1), match.end()
        if code is None:  # an address: its trailing punctuation belongs to the sentence
            while end > match.start() and text[end - 1] in _URL_TAIL:
                end -= 1
        if start < match.start():
            parts.append(markdown_text(text[start : match.start()]))
        if code is not None:
            parts.append(markdown_code(code))
        else:
            url = text[match.start() : end]
            parts.append(f"[{markdown_text(url)}]({url})")
        start = end
    if start < len(text):
        parts.append(markdown_text(text[start:]))
    return Markup("".join(parts))


def markdown_code(text: str) -> str:
    """``text`` as one Markdown code span: shown as it is (``<``, ``|`` and ``*`` included,
    control characters as :func:`visible` shows them), between backtick fences longer than
    any run of backticks inside it."""
    text = visible(text)
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def markdown_code_block(text: str, language: str = "") -> str:
    """``text`` as a fenced Markdown code block (each line as :func:`visible` shows it),
    fenced by more backticks than any line holds, so no line inside can close it.
    ``language`` (``python``, ``bash``, ``bibtex``): a word, for the highlighter."""
    if not re.fullmatch(r"[A-Za-z0-9_+-]*", language):
        raise ValueError(f"not a language name: {language!r}")
    lines = [visible(line) for line in str(text).splitlines()]
    longest = max((len(r) for line in lines for r in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markup("\n".join([fence + language, *lines, fence]))


def _escape_marker(marker: str) -> str:
    """``#`` -> ``\\#``; ``1.`` -> ``1\\.``: the punctuation that makes it a marker."""
    return marker[:-1] + "\\" + marker[-1]


def latex_text(text: str) -> str:
    """Text as LaTeX typesets it literally (text mode): every special character in its
    text-mode form, one line."""
    return _LATEX_SPECIAL.sub(lambda m: _LATEX[m.group()], visible(text))


def latex_comment(text: str) -> str:
    """A ``%`` comment line of ``text``: everything after ``%`` is ignored to the end of
    the line, so only a line end could make it live, and there is none."""
    return "% " + visible(text) + "\n"


def latex_label(kind: str, *parts: object) -> str:
    """A label unique to a table's content (``tab:citeval-compare-1a2b3c4d``): two tables
    of one paper never share one; the same table keeps its label when printed again."""
    digest = hashlib.sha1("\x00".join(map(str, parts)).encode("utf-8")).hexdigest()[:8]
    return f"tab:citeval-{kind}-{digest}"


def plot_text(text: str) -> str:
    """Text in a matplotlib label or title: one line, every ``$`` escaped (an even number
    would be typeset as math, and bad math stops the plot), and no leading ``_`` (a legend
    skips such labels)."""
    shown = visible(text).replace("$", r"\$")
    return " " + shown if shown.startswith("_") else shown


def html_text(text: str) -> str:
    """Text in HTML, in an element or a quoted attribute value."""
    return html.escape(visible(text), quote=True)


def text(value: str, fmt: str) -> str:
    """``value`` escaped for ``fmt`` (``table``, ``markdown``, ``latex``, ``html``)."""
    try:
        return _TEXT[fmt](value)
    except KeyError:
        raise ValueError(f"no text escaping for format {fmt!r}") from None


_TEXT = {"table": plain_text, "markdown": markdown_text, "latex": latex_text, "html": html_text}


# --------------------------------------------------------------------------- CSV


def csv_cell(value) -> str | float | int:
    """One CSV cell: a float with full precision (``repr``; empty for NaN, as pandas
    writes it), a text that a spreadsheet would run as a formula with a leading ``'``."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) or hasattr(value, "dtype"):
        value = value.item() if hasattr(value, "item") else value
        if isinstance(value, float):
            return "" if math.isnan(value) else repr(value)
    if isinstance(value, int):
        return value
    if value is None or type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing
        return ""
    cell = str(value)
    if cell.startswith(_CSV_FORMULA) and not is_number(cell):
        return "'" + cell
    return cell


def csv_column(values) -> list:
    """One column of cells, as :func:`csv_cell` makes each: floats (a numpy array or a
    list) at full precision in one pass, a repeated id neutralised once."""
    if getattr(values, "dtype", None) is not None and values.dtype.kind == "f":
        return ["" if v != v else repr(v) for v in values.tolist()]  # v != v: NaN
    seen: dict = {}
    out = []
    for value in values.tolist() if hasattr(values, "tolist") else values:
        key = (type(value), value) if isinstance(value, (str, int, float)) else None
        if key is None:
            out.append(csv_cell(value))
            continue
        cell = seen.get(key)
        if cell is None:
            cell = seen[key] = csv_cell(value)
        out.append(cell)
    return out


def csv_text(header: Sequence[str], columns: Sequence) -> str:
    """A CSV table (RFC 4180 quoting by :mod:`csv`, ``\\n`` line ends) of ``columns``
    (equally long sequences or arrays) under ``header``, every cell as :func:`csv_cell`
    makes it."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(h) for h in header])
    writer.writerows(zip(*(csv_column(c) for c in columns)))
    return buffer.getvalue()


def csv_frame(frame) -> str:
    """A DataFrame as :func:`csv_text` (its columns, no index)."""
    series = [frame.iloc[:, i] for i in range(frame.shape[1])]
    columns = [  # an integer column with a missing value stays integers, not floats
        s.to_numpy() if s.dtype.kind == "f" else s.to_numpy(dtype=object) for s in series
    ]
    return csv_text([str(c) for c in frame.columns], columns)


# --------------------------------------------------------------------------- JSON

NOT_FINITE = "not_finite"
"""The key of a JSON payload that says why a value is ``null``: JSON Pointer -> reason."""


def json_ready(payload: dict) -> dict:
    """``payload`` with numpy values as Python ones and each non-finite number as
    ``None``, its reason under :data:`NOT_FINITE` (JSON Pointer -> ``"+inf"``, ...)."""
    reasons: dict[str, str] = {}
    clean = _finite(payload, "", reasons)
    if reasons:
        clean[NOT_FINITE] = reasons
    return clean


def finite_values(value):
    """``value`` with numpy values as Python ones and each non-finite number as ``None``
    (what strict JSON can hold), without saying where: :func:`json_ready` says it."""
    return _finite(value, "", {})


def _finite(value, pointer: str, reasons: dict[str, str]):
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        value = value.tolist()
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        reasons[pointer] = (
            "not a number (no value)" if math.isnan(value) else ("+inf" if value > 0 else "-inf")
        )
        return None
    if isinstance(value, dict):
        return {
            str(k): _finite(v, f"{pointer}/{_pointer_token(str(k))}", reasons)
            for k, v in value.items()
        }
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    if isinstance(value, (list, tuple)):
        return [_finite(v, f"{pointer}/{i}", reasons) for i, v in enumerate(value)]
    return value


def _pointer_token(key: str) -> str:
    """A key as a JSON Pointer (RFC 6901) token."""
    return key.replace("~", "~0").replace("/", "~1")


def json_dumps(payload: dict, **options) -> str:
    """The one JSON writer: strictly valid JSON (no ``NaN`` / ``Infinity``), see
    :func:`json_ready`; ``options`` as :func:`json.dumps` takes them. The C encoder
    writes it; only a payload with a non-finite number is walked to say where and why."""
    try:
        return json.dumps(payload, allow_nan=False, default=_json_default, **options)
    except ValueError:  # a non-finite number somewhere
        return json.dumps(json_ready(payload), allow_nan=False, default=_json_default, **options)


def _json_default(value):
    """numpy values and sets as JSON holds them (json calls this for nothing else)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# --------------------------------------------------------------------------- trec_eval


def trec_field(value: str, what: str) -> str:
    """An id as a field of a white-space separated TREC line; one with white space (or
    none at all) would be read back as other fields, so it cannot be written."""
    if not value or any(c.isspace() for c in value):
        raise InputError(
            None,
            f"{what} {visible(value)!r} has white space (or is empty): a TREC line cannot "
            "hold it; use --format csv or json",
        )
    return value
