"""A run put in query order out of core, so it can be read in chunks of whole queries.

A run whose queries are not each in one block of lines cannot be cut into whole queries as
it is read. :func:`sort_by_query` puts it in order out of core: the rows (with their line
numbers) go to a Parquet file as they are parsed, then DuckDB sorts that file within a
memory limit, spilling to disk, queries in the order they first appear and each query's rows
in file order, so ties in run order and the warnings' examples stay as they were. Part of
the layer that reads runs: it knows nothing of evaluation.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..base.errors import InputError
from .parquet import is_parquet, parquet_batches
from .tables import arrow_array
from .trec_fast import RUN_LAYOUT, LineCounts
from .trec_lines import line_batches


def sort_by_query(source, workdir: Path, memory: int, reason=None) -> tuple[Path, LineCounts]:
    """A copy of the run ``source`` in ``workdir`` (Parquet, with each row's line) in which
    every query is one block: queries in first-appearance order, rows in file order; and
    the :class:`~citeval_irm.reading.trec_fast.LineCounts` of reading it (the copy holds rows
    only, so the warnings they make are carried beside it). DuckDB sorts it within ``memory`` bytes
    on one thread, spilling to ``workdir``; a memory limit it still cannot keep is an
    :class:`InputError` saying what to do."""
    reason = getattr(reason, "problem", reason)  # the source is named once, by the error
    try:
        import duckdb
    except ImportError:
        raise InputError(
            os.fspath(source),
            f"{reason}; sorting it out of core needs DuckDB (pip install 'citeval-irm[large]'); "
            "or group it yourself (`sort -s -k1,1 RUN`), or give --memory enough to read it "
            "whole",
        ) from None
    unsorted, grouped = workdir / "rows.parquet", workdir / "grouped.parquet"
    read = _write_rows(source, unsorted)
    limit = max(memory >> 20, 64)
    connection = duckdb.connect(config={"memory_limit": f"{limit}MB", "threads": 1})
    try:
        connection.execute(f"SET temp_directory = '{_sql_text(workdir / 'spill')}'")
        connection.execute("SET preserve_insertion_order = false")
        rows = f"read_parquet('{_sql_text(unsorted)}')"
        connection.execute(
            f"COPY (SELECT r.query_id, r.doc_id, r.score, r.line FROM {rows} AS r "
            f"JOIN (SELECT query_id, min(line) AS first FROM {rows} GROUP BY query_id) AS f "
            "USING (query_id) ORDER BY f.first, r.line) "
            f"TO '{_sql_text(grouped)}' (FORMAT parquet, ROW_GROUP_SIZE {_SORTED_ROW_GROUP})"
        )
    except duckdb.OutOfMemoryException:
        raise InputError(
            os.fspath(source),
            f"{reason}; DuckDB could not sort it within {limit} MB even spilling to disk: "
            "give --memory more, or group it yourself (`sort -s -k1,1 RUN`)",
        ) from None
    finally:
        connection.close()
    unsorted.unlink()
    return grouped, read


def _write_rows(source, unsorted: Path) -> LineCounts:
    """The rows of the run ``source`` (with their line numbers) written to the Parquet file
    ``unsorted`` as they are parsed; what reading skipped."""
    import pyarrow.parquet as pq

    if is_parquet(source):
        parsed = (
            (_with_lines(batch, first), counts)
            for (batch, counts), first in _numbered(parquet_batches(source, "score"))
        )
    else:
        raw = pa.OSFile(os.fspath(source), "rb")
        wanted = ("query_id", "doc_id", "score")
        parsed = line_batches(Path(source), RUN_LAYOUT, wanted, "score", 1 << 22, raw)
    writer, read = None, LineCounts()
    try:
        for batch, counts in parsed:
            read += counts
            if writer is None:
                writer = pq.ParquetWriter(unsorted, batch.schema)
            writer.write_batch(batch)
    finally:
        if writer is not None:
            writer.close()
    return read


# DuckDB buffers a row group whole before writing it: its default size keeps the sort
# within a 64 MB limit (a 1M-row group did not)
_SORTED_ROW_GROUP = 122_880


def _numbered(batches):
    first = 1
    for batch, counts in batches:
        yield (batch, counts), first
        first += batch.num_rows


def _with_lines(batch: pa.RecordBatch, first: int) -> pa.RecordBatch:
    lines = arrow_array(np.arange(first, first + batch.num_rows, dtype=np.int64))
    return batch.append_column("line", lines)


def _sql_text(path: Path) -> str:
    return os.fspath(path).replace("'", "''")
