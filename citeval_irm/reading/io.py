"""Reading and writing runs and qrels.

TREC files (plain or gzip) are parsed with pyarrow, column-wise: a 6-million-line run takes
a few seconds. A fast path reads files with one consistent delimiter; anything else (mixed
tabs and spaces, text after the 6th column as trec_eval allows, blank lines) goes through a
line-aware path, which is also the one that reports the line number of any bad input.
Both paths read a file by one rule (trec_eval's): a UTF-8 byte-order mark at its start is
dropped, a line whose first non-blank character is ``#`` is a comment (skipped, counted),
fields are runs of anything but ASCII whitespace; the fast path hands any file whose bytes
it could read otherwise (an empty or odd-spaced field, a comment) to the line-aware one.

Every in-memory form a user is likely to hold is accepted too: DataFrames, ``{qid: {doc:
score}}`` dicts, iterables of ir-measures / ir_datasets namedtuples.
"""

from __future__ import annotations

import contextlib
import gzip
import math
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..base.choices import DUPLICATE_POLICIES, KEEP_ALL, check_choice
from ..base.errors import ArgumentTypeError, EvalWarning, InputError, quoted
from .fields import Place, id_column, id_text, typed_values
from .tables import (
    QRELS_COLUMNS,
    RUN_COLUMNS,
    Qrels,
    Run,
    arrow_array,
    first_copies,
    has_repeated_pairs,
    numpy_of,
    take,
)

_RUN_LAYOUT = ("query_id", "iteration", "doc_id", "rank", "score", "tag")
_QRELS_LAYOUT = ("query_id", "iteration", "doc_id", "relevance")
_BLOCK_SIZE = 1 << 22  # 4 MB: both cores busy, few per-block dictionaries to unify

PathLike = str | os.PathLike


class _NeedLineNumbers(Exception):
    """The fast path found something to report and must re-read with line numbers."""


# --------------------------------------------------------------------------- file parsing


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _input_stream(path: Path) -> pa.NativeFile:
    stream = pa.OSFile(str(path), "rb")
    return pa.CompressedInputStream(stream, "gzip") if _is_gzip(path) else stream


_HEAD = 1 << 20  # bytes of text looked at for the delimiter (and for binary data)


def _first_line(path: Path) -> str:
    """The first line with data among the first MB of text (``""`` when there is none
    there). Text with a NUL byte there is an error naming its line: binary data (or
    ``/dev/zero``'s) is not read on, as trec_eval refuses a file with a NUL."""
    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rb") as handle:
        head = handle.read(_HEAD)
    nul = head.find(b"\0")
    if nul >= 0:
        line = head.count(b"\n", 0, nul) + 1
        raise InputError(str(path), "holds a NUL byte: binary data, not a text file", line)
    for line in head.decode("utf-8", errors="replace").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):  # a comment says nothing
            return line
    return ""


_ID_TYPE = pa.dictionary(pa.int32(), pa.string())
# labels are read as text, by the one label rule (Arrow's integer parser takes "0x10")
_VALUE_TYPES = {"score": pa.float64(), "relevance": pa.string()}
# trec_eval splits a line at runs of C ``isspace`` characters: these six, nothing else (a
# non-breaking space is part of an id).
_ASCII_SPACE = "[ \t\n\v\f\r]"


def _csv_options(path: Path, layout, wanted, value_column: str, block_size: int = _BLOCK_SIZE):
    """pyarrow's CSV options for a file with one delimiter (tab or space) between exactly
    ``len(layout)`` fields: ids dictionary-encoded, values typed by Arrow's parser. Shared by
    the whole-file read and the streaming one, so both parse alike."""
    delimiter = "\t" if "\t" in _first_line(path) else " "
    types = {name: _ID_TYPE for name in ("query_id", "doc_id")}
    types[value_column] = _VALUE_TYPES[value_column]
    return (
        pa_csv.ReadOptions(column_names=list(layout), block_size=block_size),
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


_BOM = b"\xef\xbb\xbf"
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


class _Screened:
    """A file object over an Arrow stream that notes whether its bytes hold anything the
    fast (one-delimiter) parse would read otherwise than trec_eval's tokenisation: another
    whitespace character, an empty field (a doubled delimiter, one at a line's start or
    end) or a comment line.

    Cheap, since every byte the fast path parses goes through it: the other whitespace
    characters and ``#`` are looked for by ``bytes.__contains__`` (``memchr``), empty fields
    by two numpy passes (the bytes that may separate, those at or below the delimiter and
    the line ends in value; then neighbouring pairs of them), the exact check looking only
    at the pairs found (none in a file with ``\\n`` line ends)."""

    def __init__(self, stream: pa.NativeFile, delimiter: str):
        self.stream, self.delimiter = stream, ord(delimiter)
        self.others = [c.encode() for c in (" ", "\t", "\v", "\f") if c != delimiter]
        self.separating = max(self.delimiter, *_LINE_ENDS)  # no separator is above it
        self.scratch = np.empty(0, dtype=bool)  # reused: no fresh pages for every block
        self.previous = 0x0A  # the byte before the first: a line start
        self.started = self.odd = self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        if not self.started:
            self.started = True
            if data.startswith(_BOM):  # pyarrow drops it too
                data = data[len(_BOM) :]
        if not data:
            self.odd = self.odd or self.previous == self.delimiter  # an empty last field
        elif not self.odd:
            self.odd = self._odd(data)
            self.previous = data[-1]
        return data

    def _odd(self, data: bytes) -> bool:
        if any(c in data for c in self.others):
            return True
        codes = np.frombuffer(data, dtype=np.uint8)
        boundary = np.array([self.previous, codes[0]], dtype=np.uint8)
        if _empty_fields(boundary, np.zeros(1, dtype=np.int64), self.delimiter):
            return True
        if b"#" in data:  # a comment line: '#' opening a line
            if self.previous in _LINE_ENDS and codes[0] == 0x23:
                return True
            before = codes[np.flatnonzero(codes[1:] == 0x23)]
            if ((before == 0x0A) | (before == 0x0D)).any():
                return True
        size = len(codes)
        if len(self.scratch) < 2 * size:
            self.scratch = np.empty(2 * size, dtype=bool)
        low = np.less_equal(codes, self.separating, out=self.scratch[:size])
        pairs = np.logical_and(low[1:], low[:-1], out=self.scratch[size : 2 * size - 1])
        return bool(pairs.any()) and _empty_fields(codes, np.flatnonzero(pairs), self.delimiter)

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


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


def _screened_input(stream: pa.NativeFile, path: Path) -> tuple[pa.NativeFile, _Screened]:
    screen = _Screened(stream, "\t" if "\t" in _first_line(path) else " ")
    return pa.PythonFile(screen, mode="r"), screen


def _read_fast(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...], value_column: str):
    """Columns of a file with one delimiter (tab or space) between exactly ``len(layout)``
    fields per line, ids dictionary-encoded and values typed by Arrow's parser; raises
    :class:`_NeedLineNumbers` for anything else, or for anything to report."""
    read, parse, convert = _csv_options(path, layout, wanted, value_column)
    stream, screen = _screened_input(_input_stream(path), path)
    try:
        table = pa_csv.read_csv(
            stream, read_options=read, parse_options=parse, convert_options=convert
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise _NeedLineNumbers from exc
    if screen.odd:
        raise _NeedLineNumbers
    columns: dict[str, object] = {
        name: table[name].unify_dictionaries().combine_chunks() for name in ("query_id", "doc_id")
    }
    columns[value_column] = _fast_values(table[value_column], value_column)
    del table
    # the parser's blocks are freed now; hand their memory back before scoring allocates
    pa.default_memory_pool().release_unused()
    return columns, None, LineCounts()


def _fast_values(values, value_column: str) -> np.ndarray:
    """Scores or labels of a fast parse, by the one rule; :class:`_NeedLineNumbers` for a
    value the line-aware path must report (with its line)."""
    try:
        return typed_values(values, value_column, Place("<fast>"))
    except InputError:
        raise _NeedLineNumbers from None


def fast_batches(
    path: Path, layout, wanted, value_column: str, block_size: int, raw: pa.NativeFile
):
    """The fast parse of ``path`` one block at a time: record batches of ``wanted`` (ids
    dictionary-encoded per batch), each checked as :func:`_read_fast` checks a whole file;
    raises :class:`_NeedLineNumbers` at the first block that needs the line-aware path.
    ``raw`` is the open file, so a caller can follow how far it has been read."""
    read, parse, convert = _csv_options(path, layout, wanted, value_column, block_size)
    stream = pa.CompressedInputStream(raw, "gzip") if _is_gzip(path) else raw
    stream, screen = _screened_input(stream, path)
    reader = None
    try:
        reader = pa_csv.open_csv(
            stream, read_options=read, parse_options=parse, convert_options=convert
        )
        for batch in reader:
            if screen.odd:  # in this block or one read ahead: line-aware from here
                raise _NeedLineNumbers
            _fast_values(batch.column(value_column), value_column)
            yield batch, LineCounts()
        if screen.odd:
            raise _NeedLineNumbers
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise _NeedLineNumbers from exc
    finally:
        # The reader parses ahead on threads of its own: stop them before the file is
        # closed, or one still reading when the process exits aborts it (a cut gzip).
        if reader is not None:
            with contextlib.suppress(pa.ArrowException, OSError):
                reader.close()


def line_batches(
    path: Path, layout, wanted, value_column: str, block_size: int, raw: pa.NativeFile
):
    """The line-aware parse of ``path`` one block at a time: record batches of ``wanted``
    (values typed) plus each row's 1-based ``line``, and the block's :class:`LineCounts`;
    lines and errors as :func:`_read_lines` has them. A block ends
    at its last line end (a ``\r`` that ends a block waits for the next: ``\r\n`` is one
    line end)."""
    allow_extra = value_column == "score"
    stream = pa.CompressedInputStream(raw, "gzip") if _is_gzip(path) else raw
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
    with _input_stream(path) as stream:
        data = stream.read()
    lines, line_numbers, _, comments = _lines_of(path, data, 1)
    return lines, line_numbers, comments


def _lines_of(path: Path, data: bytes, first_line: int):
    """:func:`_file_lines` of some of a file's bytes (whole lines) whose first line is line
    ``first_line``; also how many line ends they hold and how many comment lines (first
    non-blank character ``#``, as trec_eval's run reader has them) were skipped."""
    if first_line == 1 and data.startswith(_BOM):
        data = data[len(_BOM) :]
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


def _read_lines(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...], allow_extra: bool):
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
    """:func:`_read_lines` on some of a file's lines (non-blank, trimmed) and their numbers."""
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
    if width == len(_RUN_LAYOUT) and found == len(_QRELS_LAYOUT):
        return "; 4 columns: this looks like qrels (give it as the qrels, not the run)"
    if width == len(_QRELS_LAYOUT) and found > width:
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


def _parse_file(path: PathLike, layout, wanted, value_column: str, allow_extra: bool):
    """Parse a TREC-style file into id columns and a validated numeric column.

    Returns ``(columns, line_numbers or None, LineCounts)``. Errors name the line.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file")
    if path.is_dir():
        raise InputError(str(path), "is a folder, expected a file")
    try:
        try:
            columns, line_numbers, counts = _read_fast(path, layout, wanted, value_column)
        except _NeedLineNumbers:
            columns, line_numbers, counts = _read_lines(path, layout, wanted, allow_extra)
            place = Place(str(path), line_numbers)
            columns[value_column] = typed_values(columns[value_column], value_column, place)
    except (OSError, EOFError, gzip.BadGzipFile, pa.ArrowInvalid) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(path), f"cannot be read: {exc}") from None
    if not len(columns[value_column]):
        raise InputError(str(path), "is empty: no lines to read")
    return columns, line_numbers, counts


# --------------------------------------------------------------------------- Parquet

_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
PARQUET_BATCH_ROWS = 1 << 20
PARQUET_WRITE = {"write_page_checksum": True}  # so a damaged page is found when read


_NOT_FILES = {
    stat.S_IFIFO: "a pipe (FIFO), which can be read only once, and a run or qrels file is "
    "opened more than once (its size, its first bytes, then its rows): write it to a file "
    "first (a .gz file is read as it is, no need to decompress it)",
    stat.S_IFCHR: "a character device, not a file",
    stat.S_IFBLK: "a block device, not a file",
    stat.S_IFSOCK: "a socket, not a file",
}


def check_file_kind(path: Path) -> None:
    """An :class:`InputError` for a path that is neither a regular file nor a folder (a
    FIFO, ``/dev/zero``, a socket), found without opening it: reading one would hang or
    never end. A path that does not exist is left to the reader to report."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    problem = _NOT_FILES.get(stat.S_IFMT(mode))
    if problem is not None:
        raise InputError(str(path), f"is {problem}")


def is_parquet(source) -> bool:
    """Whether ``source`` names Parquet: a ``.parquet`` file, a folder (a dataset of Parquet
    files), a URL of either (``s3://...``), or a file that starts with Parquet's magic."""
    text = os.fspath(source)
    if "://" in text:
        return True
    path = Path(text)
    check_file_kind(path)
    if path.suffix.lower() in _PARQUET_SUFFIXES or path.is_dir():
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PAR1"
    except OSError:
        return False


def parquet_files(source) -> tuple[object, list[str]]:
    """The filesystem and the Parquet files (sorted by path) of a file, a folder or a URL
    (any filesystem pyarrow or fsspec knows: ``s3://``, ``gs://``, ``memory://`` ...)."""
    import pyarrow.fs as pa_fs

    text = os.fspath(source)
    if "://" in text:
        filesystem, root = _url_filesystem(text)
    else:
        filesystem, root = pa_fs.LocalFileSystem(), str(Path(text).absolute())
    try:
        info = filesystem.get_file_info(root)
        if info.type == pa_fs.FileType.NotFound:
            raise InputError(text, "no such file or folder")
        if info.type == pa_fs.FileType.File:
            return filesystem, [root]
        found = filesystem.get_file_info(pa_fs.FileSelector(root, recursive=True))
    except OSError as exc:  # a host that does not answer, a bucket without access
        raise InputError(text, f"cannot be read: {exc}") from None
    prefix = len(root.rstrip("/")) + 1
    files = sorted(
        f.path
        for f in found
        if f.type == pa_fs.FileType.File
        # hidden and _ names, in the folder or above a file in it, are not data: Spark's
        # _temporary/, a killed conversion's work folder (pyarrow.dataset's rule)
        and not any(part.startswith(("_", ".")) for part in f.path[prefix:].split("/"))
        and (Path(f.path).suffix.lower() in _PARQUET_SUFFIXES or not Path(f.path).suffix)
    )
    if not files:
        raise InputError(text, "is a folder with no Parquet file in it")
    return filesystem, files


def _url_filesystem(text: str):
    """The filesystem and path of a URL: pyarrow's own (``s3://``, ``gs://``, ``hdfs://``,
    ``file://``), else fsspec's; an unknown scheme, or one whose package is not installed
    (``http://`` needs aiohttp), is an :class:`InputError` saying so."""
    import pyarrow.fs as pa_fs

    try:
        return pa_fs.FileSystem.from_uri(text)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        pass
    scheme = text.split("://", 1)[0]
    try:
        import fsspec

        fs, root = fsspec.core.url_to_fs(text)
    except ImportError as exc:  # fsspec knows the scheme; its package is missing
        raise InputError(text, f"reading {scheme}:// URLs needs more packages: {exc}") from None
    except OSError as exc:  # e.g. ftp:// connects at once
        raise InputError(text, f"cannot be read: {exc}") from None
    except ValueError:
        raise InputError(
            text,
            f"unknown URL scheme {scheme!r}: give a file or folder path, or a URL pyarrow or "
            "fsspec reads (s3://, gs://, hdfs://, http://, ...)",
        ) from None
    return pa_fs.PyFileSystem(pa_fs.FSSpecHandler(fs)), root


def parquet_batches(
    source,
    value_column: str,
    batch_rows: int = PARQUET_BATCH_ROWS,
    only: list[str] | None = None,
    threads: bool = True,
):
    """Record batches ``query_id, doc_id, <value_column>`` of a Parquet file or dataset, in
    file and row order, under any accepted column name (PyTerrier's ``qid, docno`` too);
    ids become strings, values float scores or integer labels. A missing column, a null,
    an empty id or a value that is not a finite number (an integer label) is an error
    naming the file and the row. ``only``: these of its files (a worker's share);
    ``threads=False``: columns decoded on this thread (a read within a memory limit:
    pyarrow's decoding threads each keep memory of their own, 50-100 MB in all)."""
    filesystem, files = parquet_files(source)
    files = files if only is None else only
    wanted = ("query_id", "doc_id", value_column)
    for name in files:
        shown = name if "://" not in os.fspath(source) else os.fspath(source)
        handle = _parquet_file(filesystem, name, shown)
        try:
            columns = handle.schema_arrow.names
            found = {c: next((n for n in COLUMN_NAMES[c] if n in columns), None) for c in wanted}
            # string ids stored as dictionaries read as such: no re-encoding after (one
            # stored plain would be read into a dictionary growing over the whole file)
            textual = [
                found[c]
                for c in ("query_id", "doc_id")
                if found[c] is not None
                and pa.types.is_string(handle.schema_arrow.field(found[c]).type)
                and _stored_as_dictionary(handle.metadata, columns.index(found[c]))
            ]
            if textual:
                handle = _parquet_file(filesystem, name, shown, read_dictionary=textual)
        except (OSError, pa.ArrowInvalid) as exc:
            raise InputError(shown, f"cannot be read as Parquet: {exc}") from None
        missing = [c for c in wanted if found[c] is None]
        if missing:
            accepted = ", ".join(" or ".join(COLUMN_NAMES[c]) for c in wanted)
            raise InputError(
                shown, f"missing column(s) {missing} (accepted names: {accepted}); found {columns}"
            )
        # a run sorted out of core keeps the line numbers of the file it came from
        lines = ["line"] if "line" in columns and value_column == "score" else []
        first_row = 1
        names = [*(found[c] for c in wanted), *lines]
        batches = handle.iter_batches(batch_size=batch_rows, columns=names, use_threads=threads)
        while True:
            try:
                batch = next(batches, None)
            except (OSError, pa.ArrowException) as exc:  # a damaged page, a cut file
                raise InputError(shown, f"cannot be read as Parquet: {exc}") from None
            if batch is None:
                break
            arrays = [
                _parquet_ids(batch.column(0), shown, first_row, "query_id"),
                _parquet_ids(batch.column(1), shown, first_row, "doc_id"),
                _parquet_values(batch.column(2), shown, first_row, value_column),
                *(batch.column(3) for _ in lines),
            ]
            first_row += batch.num_rows
            yield pa.RecordBatch.from_arrays(arrays, [*wanted, *lines]), LineCounts()


def _parquet_file(filesystem, name: str, shown: str, **options):
    """A Parquet file opened for reading a batch at a time: column chunks read through a
    buffer (a file of one huge row group is not read a whole column at a time), the page
    checksums verified where the writer stored them (``citeval convert`` does), any
    failure an InputError naming the file."""
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(
            filesystem.open_input_file(name),
            buffer_size=1 << 20,
            pre_buffer=False,  # pyarrow's default reads each column chunk whole, ahead
            page_checksum_verification=True,
            **options,
        )
    except (OSError, pa.ArrowException) as exc:
        raise InputError(shown, f"cannot be read as Parquet: {exc}") from None


def _stored_as_dictionary(metadata, column: int) -> bool:
    """Whether every row group stores ``column`` with a dictionary page and its data pages
    all as dictionary indices. A writer whose dictionary grew past its limit (pyarrow's
    1 MB, DuckDB's) falls back to plain pages for the rest of the chunk; read as a
    dictionary, that column's dictionary would grow with the file, in every batch (400 MB
    for 3 M rows of 40-character ids under a 50 MB limit). Indices take at most 4 bytes a
    value, so a chunk whose data pages are larger than that holds plain pages."""
    for group in range(metadata.num_row_groups):
        chunk = metadata.row_group(group).column(column)
        if not chunk.has_dictionary_page:
            return False
        dictionary = max(chunk.data_page_offset - (chunk.dictionary_page_offset or 0), 0)
        if chunk.total_uncompressed_size - dictionary > 4 * chunk.num_values + (2 << 20):
            return False
    return True


def _first_true(mask) -> int | None:
    hits = np.flatnonzero(numpy_of(mask, fill=True))
    return int(hits[0]) if hits.size else None


def _parquet_ids(values: pa.Array, source: str, first_row: int, name: str) -> pa.Array:
    """Ids as strings (a dictionary array of them kept as it is, unless its dictionary is
    larger than the batch); a null or empty id is an error naming its row."""
    if pa.types.is_dictionary(values.type) and len(values.dictionary) > max(len(values), 1024):
        # a dictionary that grows over the file (its writer fell back from dictionary
        # pages, as DuckDB's does) comes whole with every batch: memory and unifying
        # time would grow with the file; encoded afresh it costs what the batch is
        values = pc.dictionary_encode(values.dictionary_decode())
    if pa.types.is_dictionary(values.type) and pa.types.is_string(values.type.value_type):
        empty = pc.equal(pc.binary_length(values.dictionary), 0)
        bad_code = np.flatnonzero(numpy_of(empty, fill=True))
        missing = pc.is_null(values.indices)
        if bad_code.size:
            codes = arrow_array(bad_code.astype(str(values.indices.type)))
            missing = pc.or_kleene(missing, pc.is_in(values.indices, value_set=codes))
        bad = _first_true(missing)
        if bad is not None:
            raise InputError(source, f"row {first_row + bad}: missing or empty {name}")
        return values
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_floating(values.type) or pa.types.is_boolean(values.type):
        # as an in-memory column is read: one id rule (2.0 is '2', a boolean an error)
        texts = [
            None if v is None else id_text(v, source, name, first_row + i)
            for i, v in enumerate(values.to_pylist())
        ]
        values = pa.array(texts, pa.string())
    elif not pa.types.is_string(values.type):
        try:
            values = values.cast(pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise InputError(source, f"column {name}: {values.type} cannot be ids") from None
    bad = _first_true(pc.or_kleene(pc.is_null(values), pc.equal(pc.binary_length(values), 0)))
    if bad is not None:
        raise InputError(source, f"row {first_row + bad}: missing or empty {name}")
    return values


def _parquet_values(values: pa.Array, source: str, first_row: int, value_column: str):
    """A batch's scores or labels by the one rule of every form; errors name the row."""
    place = Place(source, first=first_row, rows=True)
    return arrow_array(typed_values(values, value_column, place))


def _read_parquet(source, value_column: str, duplicates: str, only: list[str] | None = None):
    """A run or qrels from Parquet (``only`` some of its files), with the duplicate policy
    of its kind."""
    batches = [batch for batch, _ in parquet_batches(source, value_column, only=only)]
    if not batches or not sum(b.num_rows for b in batches):
        raise InputError(os.fspath(source), "is empty: no rows")
    table = pa.Table.from_batches(batches)
    cls = Run if value_column == "score" else Qrels
    result = cls.from_columns(
        table["query_id"], table["doc_id"], numpy_of(table[value_column]), os.fspath(source)
    )
    del table, batches
    kind = "score" if value_column == "score" else "judgement"
    checked, warnings = _check_duplicates(result, duplicates, kind)
    if value_column == "score":
        checked.warnings = list(checked.warnings) + warnings
    return checked


def repeated_rows(table: Run | Qrels) -> np.ndarray:
    """Positions (ascending) of rows whose (query, doc) appeared on an earlier row."""
    return np.flatnonzero(~first_copies(table.query, table.doc, len(table.doc_ids)))


def _check_duplicates(table, policy: str, kind: str, locate=None):
    """Apply a duplicate policy to a table whose (query, doc) pairs must be unique.

    ``"error"`` raises, naming the line of the first repeat (``locate()`` re-reads a file
    for its line numbers only when needed); ``"keep_best"`` keeps the best-scored copy (the
    first among equal scores) and returns a counted warning; ``KEEP_ALL`` keeps every copy.
    """
    check_choice("duplicates", policy, DUPLICATE_POLICIES + (KEEP_ALL,))
    if not has_repeated_pairs(table.query, table.doc, len(table.doc_ids)):
        return table, []
    rows = repeated_rows(table)
    queries = take(table.query_ids, table.query[rows[:5]]).to_pylist()
    docs = take(table.doc_ids, table.doc[rows[:5]]).to_pylist()
    examples = tuple(f"{q}/{d}" for q, d in zip(queries, docs))
    if policy == KEEP_ALL:
        message = "duplicate (query, doc) rows in the run: kept, as a list-based script sees them"
        return table, [EvalWarning("duplicate_docs_kept", message, len(rows), examples)]
    if policy == "error":
        row = int(rows[0])
        line_numbers = locate() if locate is not None else None
        line = int(line_numbers[row]) if line_numbers is not None else row + 1
        hint = (
            "; pass duplicates='keep_best' (CLI: --duplicates keep_best) to keep the "
            "best-scored copy"
            if kind == "score"
            else ""
        )
        raise InputError(
            table.source,
            f"duplicate {kind} for query {quoted(queries[0])} and doc {quoted(docs[0])} "
            f"({len(rows)} repeated rows in all){hint}",
            line,
        )
    by_score = np.lexsort((np.arange(len(table)), -table.score))  # best first, then line order
    best = first_copies(table.query[by_score], table.doc[by_score], len(table.doc_ids))
    kept = table.take(np.sort(by_score[best]))
    message = (
        "duplicate (query, doc) rows in the run: kept the best-scored copy, dropped the others"
    )
    return kept, [EvalWarning("duplicate_docs_dropped", message, len(rows), examples)]


def drop_duplicates(run: Run) -> Run:
    """``run`` with each repeated (query, doc) reduced to its best-scored copy (counted)."""
    return as_run(run, duplicates="keep_best")


def _read_unique(path: Path, layout: tuple[str, ...], value_column: str, duplicates: str):
    """Parse a run (``value_column="score"``) or qrels file and apply the duplicate policy.

    Runs may carry text after their 6th column (as trec_eval allows), qrels may not. Line
    numbers for a duplicate are re-read only when one is found. The table's warnings count
    the comment lines, the lines with extra text and what the duplicate policy dropped.
    """
    allow_extra = value_column == "score"
    kind = "score" if allow_extra else "judgement"
    wanted = ("query_id", "doc_id", value_column)
    columns, line_numbers, counts = _parse_file(path, layout, wanted, value_column, allow_extra)
    cls = Run if allow_extra else Qrels
    table = cls.from_columns(
        columns["query_id"], columns["doc_id"], columns[value_column], str(path)
    )

    def locate():
        if line_numbers is not None:
            return line_numbers
        return _read_lines(path, layout, ("query_id",), allow_extra)[1]

    table, warnings = _check_duplicates(table, duplicates, kind, locate)
    table.warnings = warnings + counts.warnings("run" if allow_extra else "qrels")
    return table


# --------------------------------------------------------------------------- public readers


def read_run(source, *, duplicates: str = "error") -> Run:
    """Read a run from a TREC file (plain or gzip), Parquet (a file, a folder of files or a
    URL; columns ``query_id, doc_id, score`` or PyTerrier's ``qid, docno, score``) or any
    in-memory form (see :func:`as_run`).

    ``duplicates="error"`` (the default, like trec_eval) rejects a repeated (query, doc);
    ``"keep_best"`` keeps its best-scored copy and counts the dropped rows in
    ``Run.warnings``.
    """
    if not isinstance(source, (str, os.PathLike)):
        return as_run(source, duplicates=duplicates)
    if is_parquet(source):
        return _read_parquet(source, "score", duplicates)
    return _read_unique(Path(source), _RUN_LAYOUT, "score", duplicates)


def read_qrels(source) -> Qrels:
    """Read qrels from a TREC qrels file (``qid iter docid rel``, plain or gzip), Parquet
    (``query_id, doc_id, relevance`` or ``qid, docno, label``), an ir_datasets dataset or
    id, or any in-memory form (see :func:`as_qrels`).

    A repeated (query, doc) is an error: which of two labels is meant cannot be guessed.
    """
    if not isinstance(source, (str, os.PathLike)):
        return as_qrels(source)
    dataset = as_dataset(source)
    if dataset is not None:
        return _qrels_from_dataset(*dataset)
    if is_parquet(source):
        return _read_parquet(source, "relevance", "error")
    return _read_unique(Path(source), _QRELS_LAYOUT, "relevance", "error")


# --------------------------------------------------------------------------- in-memory forms

# Column names accepted for each canonical column, in order of preference: ir-measures'
# and ir_datasets' own, then PyTerrier's.
COLUMN_NAMES = {
    "query_id": ("query_id", "qid"),
    "doc_id": ("doc_id", "docno"),
    "score": ("score",),
    "relevance": ("relevance", "label"),
}


def _columns_from_mapping(data: Mapping, value_column: str) -> dict[str, list]:
    queries, docs, values = [], [], []
    for query_id, ranking in data.items():
        if not isinstance(ranking, Mapping):
            raise InputError(
                "<dict>", f"query {quoted(query_id)}: expected a {{doc_id: {value_column}}} mapping"
            )
        queries.extend([query_id] * len(ranking))
        docs.extend(ranking)
        values.extend(ranking.values())
    return {"query_id": queries, "doc_id": docs, value_column: values}


def _columns_from_records(records: Iterable, value_column: str) -> dict[str, list]:
    queries, docs, values = [], [], []
    for record in records:
        try:
            query, doc, value = record.query_id, record.doc_id, getattr(record, value_column)
        except AttributeError:
            raise InputError(
                "<records>",
                f"expected records with query_id, doc_id and {value_column}, got {quoted(record)}",
            ) from None
        queries.append(query)
        docs.append(doc)
        values.append(value)
    return {"query_id": queries, "doc_id": docs, value_column: values}


def _columns_from_frame(frame, source: str, value_column: str) -> dict[str, object]:
    """The canonical columns of a user's DataFrame, under any accepted column name."""
    if frame.columns.duplicated().any():
        repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        raise InputError(source, f"repeated column name(s) {repeated}")
    wanted = ("query_id", "doc_id", value_column)
    found = {c: next((n for n in COLUMN_NAMES[c] if n in frame.columns), None) for c in wanted}
    missing = [c for c in wanted if found[c] is None]
    if missing:
        accepted = ", ".join(" or ".join(COLUMN_NAMES[c]) for c in wanted)
        raise InputError(
            source,
            f"missing column(s) {missing} (accepted names: {accepted}); "
            f"found {[str(c) for c in frame.columns]}",
        )
    columns = {c: frame[found[c]].to_numpy(dtype=object) for c in wanted[:2]}
    values = frame[found[value_column]]  # numbers of a numpy dtype as they are; others as objects
    numeric = isinstance(values.dtype, np.dtype) and values.dtype.kind in "iuf"
    columns[value_column] = values.to_numpy() if numeric else values.to_numpy(dtype=object)
    return columns


def _is_frame(obj) -> bool:
    """A pandas DataFrame (checked without importing pandas: a user with one has it)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def _coerce_columns(obj, value_column: str) -> tuple[dict[str, object], str]:
    if _is_frame(obj):
        if obj.empty:
            raise InputError("<DataFrame>", "is empty: no rows")
        return _columns_from_frame(obj, "<DataFrame>", value_column), "<DataFrame>"
    if isinstance(obj, Mapping):
        return _columns_from_mapping(obj, value_column), "<dict>"
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        return _columns_from_records(obj, value_column), "<records>"
    kind = "run" if value_column == "score" else "qrels"
    raise ArgumentTypeError(
        None,
        f"{kind}: cannot read {'a run' if kind == 'run' else kind} from "
        f"{type(obj).__name__}: give a file path, a "
        f"DataFrame, a {{query_id: {{doc_id: {value_column}}}}} dict or records"
        + (", or an ir_datasets dataset or id" if kind == "qrels" else ""),
    )


def _table_from(obj, value_column: str, cls, **extra):
    columns, source = _coerce_columns(obj, value_column)
    if not len(columns["query_id"]) and not extra.get("unjudged"):
        raise InputError(source, "is empty: no rows")
    return cls.from_columns(
        id_column(columns["query_id"], source, "query_id"),
        id_column(columns["doc_id"], source, "doc_id"),
        typed_values(columns[value_column], value_column, Place(source)),
        source,
        **extra,
    )


def as_run(obj, *, duplicates: str = "error") -> Run:
    """A :class:`Run` from a path, a Run, a DataFrame (``query_id, doc_id, score``, or
    PyTerrier's ``qid, docno, score``), a ``{qid: {doc: score}}`` dict, or an iterable of
    records with those fields (ir-measures ``ScoredDoc``, ir_datasets scoreddocs). The
    duplicate policy applies to a Run too (one read with every copy kept, say)."""
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj, duplicates=duplicates)
    if isinstance(obj, Run):
        if duplicates == KEEP_ALL:
            return obj
        run, earlier = obj, [w for w in obj.warnings if w.code != "duplicate_docs_kept"]
    else:
        run, earlier = _table_from(obj, "score", Run), []
    checked, warnings = _check_duplicates(run, duplicates, "score")
    if checked is run and run is obj:
        return obj
    if checked is run:
        checked.warnings = list(run.warnings) + warnings
    else:  # a new table: the copy dropped rows
        checked.warnings = earlier + warnings
    return checked


def as_qrels(obj) -> Qrels:
    """A :class:`Qrels` from a path, a Qrels, an ir_datasets dataset or id, a DataFrame
    (``query_id, doc_id, relevance``, or PyTerrier's ``qid, docno, label``), a
    ``{qid: {doc: rel}}`` dict (an empty inner dict is a query with no relevant doc), or an
    iterable of records (ir-measures / ir_datasets ``Qrel``)."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj)
    dataset = as_dataset(obj)
    if dataset is not None:
        return _qrels_from_dataset(*dataset)
    unjudged: tuple[str, ...] = ()
    if isinstance(obj, Mapping):
        unjudged = tuple(str(q) for q, ranking in obj.items() if not ranking)
        if unjudged and not any(obj.values()):
            raise InputError("<dict>", "has no judged document at all")
    return _checked_qrels(_table_from(obj, "relevance", Qrels, unjudged=unjudged))


def _checked_qrels(qrels: Qrels) -> Qrels:
    return _check_duplicates(qrels, "error", "judgement")[0]


def as_dataset(obj) -> tuple[str, object] | None:
    """``(name, dataset)`` when ``obj`` is an ir_datasets dataset, or a registered dataset id
    that is not also the path of an existing file; otherwise ``None``. An id of a registered
    family that is not registered (``citeval/acl200/test``) is an
    :class:`~citeval_irm.base.errors.UnknownDatasetError` that names the close matches."""
    if isinstance(obj, str):
        if Path(obj).exists() or "/" not in obj:
            return None
        from ..datasets.registry import find_dataset

        return find_dataset(obj)  # an unknown id of a known family: close matches named
    if hasattr(obj, "qrels_iter") and hasattr(obj, "has_qrels"):
        dataset_id = getattr(obj, "dataset_id", None)
        return (dataset_id() if callable(dataset_id) else "<dataset>"), obj
    return None


def _qrels_from_dataset(name: str, dataset) -> Qrels:
    from ..datasets.registry import missing_parts

    problem = missing_parts(name, dataset, ("qrels",))
    if problem:
        raise InputError(name, problem)
    columns = _columns_from_records(dataset.qrels_iter(), "relevance")
    if not columns["query_id"]:
        raise InputError(f"ir_datasets:{name}", "is empty: no rows")
    source = f"ir_datasets:{name}"
    qrels = Qrels.from_columns(
        id_column(columns["query_id"], source, "query_id"),
        id_column(columns["doc_id"], source, "doc_id"),
        typed_values(columns["relevance"], "relevance", Place(source)),
        source,
    )
    return _checked_qrels(qrels)


# --------------------------------------------------------------------------- writing


def write_run(run, path: PathLike, *, tag: str = "citeval") -> Path:
    """Write a run as a TREC run file (``qid Q0 docid rank score tag``), ranked by score
    (ties in trec_eval order), with ranks from 1. A ``.gz`` suffix writes gzip. The file
    appears only once complete (see :func:`citeval_irm.base.outputs.atomic_output`)."""
    from ..base.outputs import atomic_output
    from .ties import rank_run

    run = as_run(run)
    _check_writable_ids(run, tag)
    ranked, _ = rank_run(run, "trec_eval", rewrite_scores=False)
    rank = ranked.rank_in_query()
    scores = [_format_score(v) for v in ranked.score.tolist()]
    lines = [
        f"{q} Q0 {d} {r} {s} {tag}\n"
        for q, d, r, s in zip(
            ranked.query_strings().to_pylist(),
            ranked.doc_strings().to_pylist(),
            rank.tolist(),
            scores,
        )
    ]
    path = Path(path)
    text = "".join(lines)
    opener = gzip.open if path.suffix == ".gz" else open
    with atomic_output(path) as temporary, opener(temporary, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _check_writable_ids(run: Run, tag: str) -> None:
    """An error naming the first id (or the tag) a TREC file cannot hold as it is: one
    with whitespace in it (it would be read back as other fields), a query id starting
    with ``#`` (read back as a comment line)."""
    for name, ids in (("query_id", run.query_ids), ("doc_id", run.doc_ids), ("tag", [tag])):
        ids = pa.array(ids, pa.string())
        bad = pc.match_substring_regex(ids, _ASCII_SPACE)
        if name == "query_id":
            bad = pc.or_(bad, pc.starts_with(ids, "#"))
        where = _first_true(bad)
        if where is not None:
            raise InputError(
                run.source,
                f"{name} {quoted(ids[where].as_py())} cannot be written to a TREC file: it holds "
                "whitespace or starts with '#', so it would be read back as other fields "
                "(write the run as Parquet instead)",
            )


def _format_score(value: float) -> str:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


__all__ = [
    "DUPLICATE_POLICIES",
    "QRELS_COLUMNS",
    "RUN_COLUMNS",
    "as_dataset",
    "as_qrels",
    "as_run",
    "drop_duplicates",
    "read_qrels",
    "read_run",
    "write_run",
]
