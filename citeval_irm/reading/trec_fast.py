"""The fast parse of a TREC file: pyarrow's CSV reader, column-wise, on both cores.

A file with one consistent delimiter (tab or space) between exactly the layout's fields is
parsed by pyarrow (query ids dictionary-encoded, doc ids as text, values typed) a segment
of whole lines at a time, each segment's bytes screened first for anything trec_eval's
tokenisation would read otherwise (another whitespace character, an empty field, a comment
line). Anything the fast parse cannot vouch for, or has to report
with its line, raises :class:`NeedLineNumbers`: the line-aware parse
(:mod:`citeval_irm.reading.trec_lines`) reads the file then.
"""

from __future__ import annotations

import gzip
import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from ..base.errors import EvalWarning, InputError
from .fields import Place, all_finite, typed_values
from .tables import numpy_of

RUN_LAYOUT = ("query_id", "iteration", "doc_id", "rank", "score", "tag")
QRELS_LAYOUT = ("query_id", "iteration", "doc_id", "relevance")
_BLOCK_SIZE = 1 << 22  # 4 MB: both cores busy, few per-block dictionaries to unify

PathLike = str | os.PathLike


class NeedLineNumbers(Exception):
    """The fast path found something to report and must re-read with line numbers."""


# --------------------------------------------------------------------------- file parsing


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def input_stream(path: Path) -> pa.NativeFile:
    stream = pa.OSFile(str(path), "rb")
    return pa.CompressedInputStream(stream, "gzip") if is_gzip(path) else stream


_HEAD = 1 << 20  # bytes of text looked at for the delimiter (and for binary data)


def _first_line(path: Path) -> str:
    """The first line with data among the first MB of text (``""`` when there is none
    there). Text with a NUL byte there is an error naming its line: binary data (or
    ``/dev/zero``'s) is not read on, as trec_eval refuses a file with a NUL."""
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as handle:
        head = handle.read(_HEAD)
    nul = head.find(b"\0")
    if nul >= 0:
        line = head.count(b"\n", 0, nul) + 1
        raise InputError(str(path), "holds a NUL byte: binary data, not a text file", line)
    # the first 64 KB first: nearly always a line with data is there, and splitting 1 MB
    # into lines took a few ms of every read (its last, perhaps cut, line is left out)
    if len(head) > _PREFIX:
        found = _data_line(head[:_PREFIX].decode("utf-8", errors="replace").splitlines()[:-1])
        if found:
            return found
    return _data_line(head.decode("utf-8", errors="replace").splitlines())


_PREFIX = 1 << 16


def _data_line(lines: list[str]) -> str:
    """The first of ``lines`` with data (``""`` when none has): a comment says nothing."""
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            return line
    return ""


_ID_TYPE = pa.dictionary(pa.int32(), pa.string())
# labels are read as text, by the one label rule (Arrow's integer parser takes "0x10")
_VALUE_TYPES = {"score": pa.float64(), "relevance": pa.string()}
# trec_eval splits a line at runs of C ``isspace`` characters: these six, nothing else (a
# non-breaking space is part of an id).


def _csv_options(path: Path, layout, wanted, value_column: str, block_size: int):
    """pyarrow's CSV options for a file with one delimiter (tab or space) between exactly
    ``len(layout)`` fields: query ids dictionary-encoded, doc ids as text, values typed by
    Arrow's parser."""
    delimiter = "\t" if "\t" in _first_line(path) else " "
    # query ids repeat in runs of rows: a block's dictionary of them is small. Doc ids are
    # read as text and coded once per chunk (``tables.encode``, ``tables.RunningCodes`` when
    # streamed): coding them per block too would hash each one twice (a fifth of the parse).
    types = {"query_id": _ID_TYPE, "doc_id": pa.string()}
    types[value_column] = _VALUE_TYPES[value_column]
    # blocks below 64 KB (only tests ask for them, to cut lines at every byte) are parsed on
    # one thread: pyarrow 15's threaded reader deadlocked on 5-byte blocks, called from the
    # parse thread (seen in the lowest-floors CI; same values either way)
    threads = block_size >= _THREADED_BLOCK
    return (
        pa_csv.ReadOptions(column_names=list(layout), block_size=block_size, use_threads=threads),
        pa_csv.ParseOptions(
            delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
        ),
        pa_csv.ConvertOptions(
            column_types=types,
            include_columns=list(wanted),
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


_THREADED_BLOCK = 1 << 16
BOM = b"\xef\xbb\xbf"
_LINE_ENDS = (0x0A, 0x0D)


@dataclass
class LineCounts:
    """Lines of a file that are read but give no row as they stand: comments (skipped) and
    run lines with text after the 6th column (its rest ignored), as trec_eval does."""

    comments: int = 0
    extra_text: int = 0

    def __add__(self, other: LineCounts) -> LineCounts:
        return LineCounts(self.comments + other.comments, self.extra_text + other.extra_text)

    def warnings(self, kind: str) -> list[EvalWarning]:
        """The counted warnings of a ``"run"`` or ``"qrels"`` file."""
        out = []
        if self.extra_text:
            message = "run lines with text after the 6th column (ignored, as trec_eval does)"
            out.append(EvalWarning("run_extra_text", message, self.extra_text))
        if self.comments:
            message = f"{kind} lines starting with '#' (comments, skipped as trec_eval does)"
            out.append(EvalWarning(f"{kind}_comment_lines", message, self.comments))
        return out


class _Screen:
    """Notes whether the bytes of a file, handed over in order, hold anything the fast
    (one-delimiter) parse would read otherwise than trec_eval's tokenisation: another
    whitespace character, an empty field (a doubled delimiter, one at a line's start or
    end) or a comment line.

    Cheap, since every byte the fast path parses goes through it: the other whitespace
    characters and ``#`` are looked for by ``bytes.__contains__`` (``memchr``), empty fields
    by two numpy passes (the larger byte of each neighbouring pair, then its minimum: a
    pair of bytes that may both separate, those at or below the delimiter and the line ends
    in value, has its larger one there too), the exact check looking only at the pairs
    found (none in a file with ``\\n`` line ends)."""

    def __init__(self, delimiter: str):
        self.delimiter = ord(delimiter)
        self.others = [c.encode() for c in (" ", "\t", "\v", "\f") if c != delimiter]
        self.separating = max(self.delimiter, *_LINE_ENDS)  # no separator is above it
        self.scratch = np.empty(0, dtype=np.uint8)  # reused: no fresh pages for every block
        self.previous = 0x0A  # the byte before the first: a line start
        self.odd = False

    def see(self, data: bytes | bytearray, start: int, end: int) -> bool:
        """Screen the next bytes of the file, ``data[start:end]`` (none at its end); whether
        anything so far is odd."""
        if end <= start:
            self.odd = self.odd or self.previous == self.delimiter  # an empty last field
            return self.odd
        if self.odd:
            return True
        previous, self.previous = self.previous, data[end - 1]
        for other in self.others:  # another whitespace character
            if data.find(other, start, end) >= 0:
                self.odd = True
                return True
        codes = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
        boundary = np.array([previous, codes[0]], dtype=np.uint8)
        if _empty_fields(boundary, np.zeros(1, dtype=np.int64), self.delimiter):
            self.odd = True
            return True
        if data.find(b"#", start, end) >= 0:  # a comment line: '#' opening a line
            before = codes[np.flatnonzero(codes[1:] == 0x23)]
            opening = previous in _LINE_ENDS and codes[0] == 0x23
            if opening or ((before == 0x0A) | (before == 0x0D)).any():
                self.odd = True
                return True
        size = len(codes)
        if size < 2:
            return False
        if len(self.scratch) < size:
            self.scratch = np.empty(size, dtype=np.uint8)
        # the larger byte of each neighbouring pair: at or below the separating bytes only
        # where both may separate
        larger = np.maximum(codes[1:], codes[:-1], out=self.scratch[: size - 1])
        if larger.min() > self.separating:
            return False
        self.odd = _empty_fields(codes, np.flatnonzero(larger <= self.separating), self.delimiter)
        return self.odd


def _empty_fields(codes: np.ndarray, at: np.ndarray, delimiter: int) -> bool:
    """Whether any byte of ``codes`` at ``at`` and the one after it bound an empty field: two
    delimiters, or a delimiter and a line end either way (two line ends are ``\\r\\n`` or
    a blank line, which both readers skip)."""
    first, second = codes[at], codes[at + 1]
    first_ends = (first == 0x0A) | (first == 0x0D)
    second_ends = (second == 0x0A) | (second == 0x0D)
    first_delimits, second_delimits = first == delimiter, second == delimiter
    return bool(
        ((first_delimits & (second_delimits | second_ends)) | (first_ends & second_delimits)).any()
    )


def read_fast(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...], value_column: str):
    """Columns of a file with one delimiter (tab or space) between exactly ``len(layout)``
    fields per line, query ids dictionary-encoded, doc ids as text and values typed by
    Arrow's parser; raises :class:`NeedLineNumbers` for anything else, or for anything to
    report. The whole file through :func:`fast_batches`: one fast parse, whole or streamed."""
    batches = []
    with pa.OSFile(os.fspath(path), "rb") as raw:
        for batch, _ in fast_batches(path, layout, wanted, value_column, _BLOCK_SIZE, raw):
            batches.append(batch)
    if not batches:  # nothing but blank lines: the line-aware parse says what it is
        raise NeedLineNumbers
    table = pa.Table.from_batches(batches)
    del batches
    columns: dict[str, object] = {
        "query_id": table["query_id"].unify_dictionaries().combine_chunks(),
        "doc_id": table["doc_id"].combine_chunks(),
    }
    try:  # by the one rule; a value to report goes to the line-aware path (with its line)
        columns[value_column] = typed_values(table[value_column], value_column, Place("<fast>"))
    except InputError:
        raise NeedLineNumbers from None
    del table
    # the parser's blocks are freed now; hand their memory back before scoring allocates
    pa.default_memory_pool().release_unused()
    return columns, None, LineCounts()


SEGMENT_BLOCKS = 8  # blocks parsed by one read_csv call, on both cores
# Segments parsed ahead of the one handed out: the parse goes on while a chunk is coded and
# checked (with one, both cores were busy only part of the time). Measured side by side on
# W1 (`citeval eval`, chunks of 2**18 rows): 1 -> 3 about 10% less time, 2 and 3 the same,
# 6 no faster and 30 MB more; so two: three buffers, two parsed segments waiting.
SEGMENTS_AHEAD = 2


def fast_batches(
    path: Path, layout, wanted, value_column: str, block_size: int, raw: pa.NativeFile
):
    """The fast parse of ``path`` a segment at a time: record batches of ``wanted`` (query
    ids dictionary-encoded per batch, doc ids as text), each segment screened before any of
    its batches is handed out and each batch's values checked by the one rule; raises
    :class:`NeedLineNumbers` at the first segment that needs the line-aware path. ``raw`` is
    the open file, so a caller can follow how far it has been read.

    A segment is ``SEGMENT_BLOCKS`` blocks of whole lines, parsed by pyarrow's whole-table
    reader (its blocks on every core) while the batches of the segment before are handed
    out: pyarrow's streaming reader parses one block at a time, on one core."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    read, parse, convert = _csv_options(path, layout, wanted, value_column, block_size)
    stream = pa.CompressedInputStream(raw, "gzip") if is_gzip(path) else raw

    def parsed(segment: memoryview) -> pa.Table:
        try:
            return pa_csv.read_csv(
                pa.BufferReader(pa.py_buffer(segment)),
                read_options=read,
                parse_options=parse,
                convert_options=convert,
            )
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise NeedLineNumbers from exc

    # the text's size when the file is a plain regular one: the first buffer is sized to it
    known = None
    if stream is raw and stat.S_ISREG((status := os.stat(path)).st_mode):
        known = max(status.st_size - raw.tell(), 0)
    screen = _Screen(parse.delimiter)
    pieces = _segments(stream, block_size * SEGMENT_BLOCKS, screen, SEGMENTS_AHEAD + 1, known)
    first, last = next(pieces, (None, True))
    if first is None:
        return
    if last:  # the whole text in one piece: no thread to start
        for _ in pieces:  # the end's own check
            pass
        yield from _checked_batches(parsed(first), value_column)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="citeval-parse") as pool:
        ahead: deque = deque()
        try:  # the first piece parsed at once, while the next ones are read
            for segment, _ in itertools.chain(((first, last),), pieces):
                ahead.append(pool.submit(parsed, segment))
                if len(ahead) > SEGMENTS_AHEAD:
                    yield from _checked_batches(ahead.popleft().result(), value_column)
            while ahead:
                yield from _checked_batches(ahead.popleft().result(), value_column)
        finally:
            for future in ahead:
                future.cancel()


_FIRST_PIECE = 1 << 16  # bytes of the first piece at the most, when the size is not known


def _segments(
    stream: pa.NativeFile, size: int, screen: _Screen, buffers: int, known: int | None
) -> Iterator[tuple[memoryview, bool]]:
    """The text of ``stream`` in pieces of whole lines of about ``size`` bytes (the last may
    end without a line end), each with whether it is the text's last, each screened before
    it is handed out: :class:`NeedLineNumbers` for one the fast parse cannot vouch for, or
    one that opens with a byte-order mark after the file's start (pyarrow would drop it,
    trec_eval keeps it).

    The pieces are views of ``buffers`` buffers used in turn (no copy of the text but the
    part line carried to the next piece): :func:`fast_batches` asks for piece
    ``i + buffers``, which is written over piece ``i``, only once the parse of piece ``i``
    (which copies what it keeps) has ended. The buffers start small and double up to
    ``size`` as the text goes on, so a small file is not read into (and Python does not
    zero) megabytes of buffer; when the size of the text is ``known`` (a plain file) the
    first one is sized to it, so a file of a few MB is one piece and a large one starts
    with whole pieces (doubling from 64 KB, a W1 run gave its first chunk after eight small
    parses)."""
    turns: list[bytearray | None] = [None] * buffers
    carry, turn, first = b"", 0, True
    capacity = min(_FIRST_PIECE if known is None else known + 1, size)  # + 1: the end is seen
    while True:
        if len(carry) > capacity // 2:  # a line longer than half a piece: room
            capacity = 2 * len(carry)
        buffer = turns[turn % buffers]
        if buffer is None or len(buffer) < capacity:
            buffer = turns[turn % buffers] = bytearray(capacity)
        capacity = min(2 * capacity, max(size, capacity))
        buffer[: len(carry)] = carry
        filled = _fill(stream, buffer, len(carry))
        start = 0
        if first:
            first = False
            if buffer.startswith(BOM, 0, filled):  # pyarrow drops it too
                start = len(BOM)
        if buffer.startswith(BOM, start, filled):  # pyarrow would drop it; trec_eval keeps it
            raise NeedLineNumbers
        at_end = filled < len(buffer)
        if at_end:
            cut = filled
        else:
            end = buffer.rfind(b"\n", start, filled)
            if end < 0:
                end = buffer.rfind(b"\r", start, filled)
            if end < 0:  # no line end in a full buffer: a longer line
                carry, turn = bytes(buffer[start:filled]), turn + 1
                continue
            cut = end + 1
        if screen.see(buffer, start, cut):
            raise NeedLineNumbers
        if cut > start:
            yield memoryview(buffer)[start:cut], at_end
        if at_end:
            if screen.see(b"", 0, 0):
                raise NeedLineNumbers
            return
        carry, turn = bytes(buffer[cut:filled]), turn + 1


def _fill(stream: pa.NativeFile, buffer: bytearray, start: int) -> int:
    """Read ``stream`` into ``buffer`` from ``start`` until it is full or the stream ends;
    the bytes it holds now."""
    view = memoryview(buffer)
    while start < len(buffer):
        got = stream.readinto(view[start:])
        if not got:
            break
        start += got
    return start


def _checked_batches(table: pa.Table, value_column: str):
    """The record batches of a parsed segment, each with its values checked by the one
    rule (:class:`NeedLineNumbers` for a value to report with its line)."""
    for batch in table.to_batches():
        values = batch.column(value_column)
        # float scores without a null, all finite: nothing in them needs reporting, found by
        # one sum over them in place
        plain = values.type == pa.float64() and not values.null_count
        if not (plain and all_finite(numpy_of(values))):
            try:  # by the one rule: a value to report goes to the line-aware path
                typed_values(values, value_column, Place("<fast>"))
            except InputError:
                raise NeedLineNumbers from None
        yield batch, LineCounts()
