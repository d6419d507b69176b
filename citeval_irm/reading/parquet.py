"""Runs and qrels stored as Parquet: a file, a folder of files, or a URL.

Batches of ``query_id, doc_id, <value>`` under any accepted column name, ids and values by
the one rule of every form (:mod:`citeval_irm.reading.fields`), errors naming the file and
the row; and the check that a path is a file that can be read more than once.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.errors import InputError
from .duplicates import check_duplicates
from .fields import Place, id_text, typed_values
from .forms import COLUMN_NAMES
from .tables import Qrels, Run, arrow_array, first_true, numpy_of
from .trec_fast import LineCounts

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


def parquet_files(source) -> tuple[Any, list[str]]:
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
        bad = first_true(missing)
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
    bad = first_true(pc.or_kleene(pc.is_null(values), pc.equal(pc.binary_length(values), 0)))
    if bad is not None:
        raise InputError(source, f"row {first_row + bad}: missing or empty {name}")
    return values


def _parquet_values(values: pa.Array, source: str, first_row: int, value_column: str):
    """A batch's scores or labels by the one rule of every form; errors name the row."""
    place = Place(source, first=first_row, rows=True)
    return arrow_array(typed_values(values, value_column, place))


def read_parquet(source, value_column: str, duplicates: str, only: list[str] | None = None):
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
    checked, warnings = check_duplicates(result, duplicates, kind)
    if value_column == "score":
        checked.warnings = list(checked.warnings) + warnings
    return checked
