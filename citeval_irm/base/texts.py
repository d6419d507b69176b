"""Reading the text files a user writes (a manifest, generated lists, a catalogue, a
published table): UTF-8 line by line (:func:`text_lines`), CSV records (:class:`CsvRows`,
the one way the package reads a CSV file) and JSON values (:func:`json_value`,
:func:`json_lines`, the one way it reads JSON, a key given twice refused). Every problem
is an :class:`InputError` naming the file and the line (and the column, for a byte that
is not UTF-8), never a traceback, and nothing is dropped or glued together silently."""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import InputError

_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each line of a UTF-8 file (a byte-order mark at its start
    dropped): a byte that is not UTF-8 is an error naming the line and the column, text in
    another encoding with its byte-order mark (UTF-16) says so; read line by line, so a file
    of any size is never held whole."""
    source = str(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if number == 1:
                for bom, name in _BOMS:
                    if raw.startswith(bom):
                        raise InputError(
                            source,
                            f"is {name} text (it starts with a {name} "
                            "byte-order mark): save it as UTF-8",
                        )
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                column = len(raw[: exc.start].decode("utf-8", "replace")) + 1
                raise InputError(
                    source,
                    f"is not UTF-8 text: byte 0x{raw[exc.start]:02x} at column {column} cannot "
                    "start a character there (Latin-1 or Windows-1252 text?): save it as UTF-8",
                    number,
                ) from None


# --------------------------------------------------------------------------- CSV


def csv_records(
    path: Path, delimiter: str | None = None, *, skip: Callable[[str], bool] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """``(line it starts on, fields)`` of each record of a CSV (or TSV) file, blank lines
    left out; ``delimiter`` ``None``: a tab in the first line makes it TSV; ``skip``: lines
    that are no records (a manifest's ``#`` comments), left out before parsing.

    Read strictly (a quote closed before the field's end is an error, not a field glued
    together); a quoted field that runs over lines and holds lines with the delimiter is an
    unclosed quote that swallows the rows after it, an error named by the line it opens on;
    a field longer than the :mod:`csv` module's limit (131,072 characters) is an error
    naming the limit, as any field the module refuses."""
    source = str(path)
    lines = text_lines(path)
    read = [0]  # the last line the csv module took

    def texts(first: Iterable[tuple[int, str]]) -> Iterator[str]:
        for number, text in first:
            read[0] = number
            if skip is None or not skip(text):
                yield text

    first = next(lines, None)
    if first is None:
        return
    if delimiter is None:
        delimiter = "\t" if "\t" in first[1] else ","

    def numbered() -> Iterator[tuple[int, str]]:
        yield first
        yield from lines

    reader = csv.reader(texts(numbered()), delimiter=delimiter, strict=True)
    end = 0
    while True:
        start = end + 1
        try:
            fields = next(reader, None)
        except csv.Error as exc:
            problem = f"not CSV: {exc}" + (
                ""
                if read[0] <= start
                else (
                    f" on line {read[0]}: the row that starts here runs on to it: is a quote left "
                    "open?"
                )
            )
            raise InputError(source, problem, start) from None
        if fields is None:
            return
        start, end = _first_line(start, read[0], fields), read[0]
        if not fields:
            continue  # a blank line
        if end > start and any(delimiter in part for f in fields for part in f.splitlines()[1:]):
            raise InputError(
                source,
                f"a quoted field runs from line {start} to line {end} and "
                "holds lines with the delimiter: an unclosed quote swallows the "
                "rows after it",
                start,
            )
        yield start, fields


def _first_line(start: int, end: int, fields: list[str]) -> int:
    """The line a record starts on: ``start`` unless skipped lines came before it (then the
    line its own lines begin on: ``end`` less the line ends inside its fields)."""
    inside = sum(f.count("\n") for f in fields)
    return max(start, end - inside)


class CsvRows:
    """The rows of a CSV (or TSV) file with a header, as :func:`csv_records` reads them:
    ``header`` (its names, each through ``names``), ``header_line``; iterated, ``(line,
    {name: field})`` per row. A header naming a column twice, a ``required`` column
    missing and a row of another number of fields than the header are errors naming the
    line (a short row's missing field would be read as an empty one). A file without a
    header has ``header`` ``None`` and no rows."""

    def __init__(
        self,
        path: Path,
        required: tuple[str, ...] = (),
        *,
        delimiter: str | None = None,
        skip: Callable[[str], bool] | None = None,
        names: Callable[[str], str] | None = None,
    ):
        self.source = str(path)
        self._records = csv_records(Path(path), delimiter, skip=skip)
        first = next(self._records, None)
        self.header: list[str] | None = None
        self.header_line: int | None = None
        if first is None:
            return
        self.header_line, header = first
        self.header = [names(c) for c in header] if names else header
        repeated = sorted({c for c in self.header if self.header.count(c) > 1})
        if repeated:
            raise InputError(
                self.source,
                f"the header names {', '.join(repeated)} more than once",
                self.header_line,
            )
        missing = [c for c in required if c not in self.header]
        if missing:
            raise InputError(
                self.source, f"no column {', '.join(missing)} in the header", self.header_line
            )

    def __iter__(self) -> Iterator[tuple[int, dict[str, str]]]:
        if self.header is None:
            return
        width = len(self.header)
        for line, fields in self._records:
            if len(fields) != width:
                problem = (
                    "more fields than the header"
                    if len(fields) > width
                    else (f"{len(fields)} fields, the header has {width}")
                )
                raise InputError(self.source, problem, line)
            yield line, dict(zip(self.header, fields))


# --------------------------------------------------------------------------- JSON


def _one_value_a_key(source: str, line: int | None, what: str | None):
    """The ``object_pairs_hook`` that refuses a key given twice in one object: JSON's
    readers keep the last silently (a second ``"references"`` would replace a list, a
    second ``"citing_id"`` another paper)."""

    def pairs(items: list[tuple[str, object]]) -> dict:
        found = dict(items)
        if len(found) < len(items):
            raise InputError(source, _twice((k for k, _ in items), what), line)
        return found

    return pairs


def _twice(keys: Iterable[str], what: str | None = None) -> str:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            break
        seen.add(key)
    said = f"{what} gives key {key!r} twice" if what else f"key {key!r} is given twice"
    return f"{said} in one object: which one is meant cannot be told"


def json_value(text: str | bytes, source: str, line: int | None = None, *, what=None):
    """The JSON value of ``text`` (read from ``source``, at ``line``; ``what``: the value's
    name, when it is one field of a record, such as ``'references'``), every object a
    :class:`dict` with its keys unique; not JSON, a key given twice or nesting too deep for
    the reader is an error naming the source, the line and, for bad JSON, the column."""
    try:
        return json.loads(text, object_pairs_hook=_one_value_a_key(source, line, what))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}" if line is None else f"column {exc.colno}"
        said = f"{what} is not valid JSON" if what else "not JSON"
        raise InputError(source, f"{said}: {exc.msg} ({where})", line) from None
    except RecursionError:
        said = f"{what} is JSON" if what else "not JSON this reader can take:"
        raise InputError(source, f"{said} nested too deeply", line) from None


def json_file(path: Path):
    """The JSON value of a whole file (see :func:`json_value`), read as UTF-8."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(source, "no such file") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            source,
            f"is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot start "
            "a character there: save it as UTF-8",
            line,
        ) from None
    return json_value(text, source)


def json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` of each non-blank line of a JSONL file (see
    :func:`json_value`); a line that is no object is an error naming it."""
    source = str(path)
    for number, line in text_lines(path):
        if not line.strip():
            continue
        record = json_value(line, source, number)
        if not isinstance(record, dict):
            raise InputError(source, "a line is a JSON object", number)
        yield number, record


class UniqueKeys(dict):
    """The object of a streamed JSON file (ijson's ``map_type``) that notes a key given
    twice rather than keep the last value silently: :func:`repeated_key` finds the note.
    It raises nothing itself: ijson's C parser would turn an exception there into a
    ``SystemError``."""

    __slots__ = ("repeated",)

    def __setitem__(self, key, value) -> None:  # called for every key: kept lean
        if key in self:
            self.repeated = key
        dict.__setitem__(self, key, value)


def repeated_key(value) -> str | None:
    """Why a streamed value (an item, or a ``(key, value)`` pair of an object) cannot be
    read: a key given twice in one of its objects, as :class:`UniqueKeys` noted it; or
    ``None``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, UniqueKeys):
            if hasattr(item, "repeated"):
                return _twice([item.repeated, item.repeated])
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None
