"""The line-aware parse of a TREC file: trec_eval's tokenisation line by line, columnar.

Reads any whitespace-separated file (mixed tabs and spaces, text after the 6th column, blank
and comment lines) with the 1-based number of each row's line, so that every error names its
line; the reader of a TREC file (:mod:`citeval_irm.reading.readers`) tries the fast parse
(:mod:`citeval_irm.reading.trec_fast`) first and falls back to this one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.errors import InputError, quoted
from .fields import Place, typed_values
from .tables import arrow_array, numpy_of, take
from .trec_fast import (
    BOM,
    QRELS_LAYOUT,
    RUN_LAYOUT,
    LineCounts,
    input_stream,
    is_gzip,
)


def line_batches(
    path: Path, layout, wanted, value_column: str, block_size: int, raw: pa.NativeFile
):
    """The line-aware parse of ``path`` one block at a time: record batches of ``wanted``
    (values typed) plus each row's 1-based ``line``, and the block's :class:`LineCounts`;
    lines and errors as :func:`read_lines` has them. A block ends
    at its last line end (a ``\r`` that ends a block waits for the next: ``\r\n`` is one
    line end)."""
    allow_extra = value_column == "score"
    stream = pa.CompressedInputStream(raw, "gzip") if is_gzip(path) else raw
    first_line, carry = 1, b""
    while True:
        block = stream.read(block_size)
        data = carry + block
        if block:
            end = max(data.rfind(b"\n"), data.rfind(b"\r"))
            if end == len(data) - 1 and data[end:] == b"\r":
                end = max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end))
            if end < 0:
                carry = data
                continue
            data, carry = data[: end + 1], data[end + 1 :]
        lines, line_numbers, count, comments = _lines_of(path, data, first_line)
        first_line += count
        columns, line_numbers, extra = _line_columns(
            path, lines, line_numbers, layout, wanted, value_column, allow_extra
        )
        names = [*wanted, "line"]
        arrays = [
            *(arrow_array(columns[n]) if n == value_column else columns[n] for n in wanted),
            arrow_array(line_numbers.astype(np.int64)),
        ]
        yield pa.RecordBatch.from_arrays(arrays, names), LineCounts(comments, extra)
        if not block:
            return


def _file_lines(path: Path) -> tuple[pa.Array, np.ndarray, int]:
    """Every non-blank, non-comment line of a file as Arrow strings, trimmed, with its
    1-based number; and how many comment lines were skipped.

    Lines end at ``\n``, ``\r\n`` or a lone ``\r``, as in the fast path (Arrow's CSV
    reader), so both read a file the same way. A line that is not UTF-8 is an error naming it.
    A UTF-8 byte-order mark opening the file is not part of its first line.
    """
    with input_stream(path) as stream:
        data = stream.read()
    lines, line_numbers, _, comments = _lines_of(path, data, 1)
    return lines, line_numbers, comments


def _lines_of(path: Path, data: bytes, first_line: int):
    """:func:`_file_lines` of some of a file's bytes (whole lines) whose first line is line
    ``first_line``; also how many line ends they hold and how many comment lines (first
    non-blank character ``#``, as trec_eval's run reader has them) were skipped."""
    if first_line == 1 and data.startswith(BOM):
        data = data[len(BOM) :]
    chunks = pc.split_pattern_regex(pa.array([data], pa.large_binary()), r"\r\n|\n|\r")
    lines = chunks.flatten()
    ends = len(lines) - 1
    try:
        lines = lines.cast(pa.large_string())
    except pa.ArrowInvalid:
        for number, line in enumerate(lines.to_pylist(), start=first_line):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(str(path), f"is not UTF-8 text: {exc.reason}", number) from None
        raise
    lines = pc.ascii_trim_whitespace(lines)
    text = _lengths(lines) > 0
    comment = numpy_of(pc.starts_with(lines, "#"))
    keep = np.flatnonzero(text & ~comment)
    return take(lines, keep), keep + first_line, ends, int(comment.sum())


def read_lines(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...], allow_extra: bool):
    """Columns of any whitespace-separated file, with the 1-based line number of each row.

    Fields are separated by runs of ASCII whitespace (space, tab, \\v, \\f, \\r), as trec_eval
    splits them (C ``isspace``): a non-breaking space is part of a field. Blank lines are
    skipped; a line with too few fields (or, unless ``allow_extra``, too many) is an error
    naming its line. Also the file's :class:`LineCounts`.
    """
    lines, line_numbers, comments = _file_lines(path)
    columns, line_numbers, extra = _split_fields(
        path, lines, line_numbers, layout, wanted, allow_extra
    )
    return columns, line_numbers, LineCounts(comments, extra)


def _split_fields(path: Path, lines: pa.Array, line_numbers, layout, wanted, allow_extra: bool):
    """:func:`read_lines` on some of a file's lines (non-blank, trimmed) and their numbers."""
    width = len(layout)
    parts = pc.ascii_split_whitespace(lines, max_splits=width)
    offsets = numpy_of(parts.offsets)
    counts = np.diff(offsets)
    short = np.flatnonzero(counts < width)
    if short.size:
        row = short[0]
        found = int(counts[row])
        raise InputError(
            str(path),
            f"expected {width} whitespace-separated columns ({' '.join(layout)}), "
            f"found {found}: {quoted(lines[row].as_py())}{_shape_hint(width, found)}",
            int(line_numbers[row]),
        )
    extra = np.flatnonzero(counts > width)
    if extra.size and not allow_extra:
        row = extra[0]
        raise InputError(
            str(path),
            f"expected {width} whitespace-separated columns ({' '.join(layout)}), "
            f"found more: {quoted(lines[row].as_py())}{_shape_hint(width, int(counts[row]))}",
            int(line_numbers[row]),
        )
    values = parts.values
    starts = offsets[:-1]
    columns = {name: take(values, starts + layout.index(name)).cast(pa.string()) for name in wanted}
    return columns, line_numbers, int(extra.size)


def _shape_hint(width: int, found: int) -> str:
    """The likely mistake behind a line of ``found`` fields where ``width`` were expected:
    qrels given as the run, or a run given as the qrels."""
    if width == len(RUN_LAYOUT) and found == len(QRELS_LAYOUT):
        return "; 4 columns: this looks like qrels (give it as the qrels, not the run)"
    if width == len(QRELS_LAYOUT) and found > width:
        return "; this looks like a run (give it as the run, not the qrels)"
    return ""


def _line_columns(path: Path, lines, line_numbers, layout, wanted, value_column, allow_extra):
    """:func:`_split_fields`, then the value column typed (or an error naming the line)."""
    columns, line_numbers, extra = _split_fields(
        path, lines, line_numbers, layout, wanted, allow_extra
    )
    place = Place(str(path), line_numbers)
    columns[value_column] = typed_values(columns[value_column], value_column, place)
    return columns, line_numbers, extra


def _lengths(strings: pa.Array) -> np.ndarray:
    """Length in bytes of each string of an Arrow string array."""
    return numpy_of(pc.binary_length(strings))
