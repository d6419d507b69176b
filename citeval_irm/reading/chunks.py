"""A run file read in chunks of whole queries, with bounded memory.

Per-query values depend only on that query's rows and judgements, so a run scored a chunk
of whole queries at a time, the per-query rows concatenated, gives exactly the in-memory
result. :func:`iter_run_chunks` reads a TREC file (plain or gzip: segments of whole lines,
:func:`~citeval_irm.reading.trec_fast.fast_batches`) or Parquet (pyarrow's batch reader) a
block at a time, cuts at the last query boundary once a chunk holds enough
rows, and carries the rest of that query into the next chunk. Each chunk is a
:class:`~citeval_irm.reading.tables.Run` that has had the duplicate policy applied; duplicates are
within a query, so a check per chunk is exact.

A run whose queries are not each in one block of lines (a query that comes back after
another) cannot be cut into whole queries as it is read: :class:`NotGrouped` says where.
TREC files start on the fast parse; at the first block that needs the line-aware one (mixed
tabs and spaces, text after the 6th column, a bad value) reading goes on line-aware from
the first row not yet handed out, and a repeated (query, doc) found without line numbers is
re-read the same way, so every error names its line, as on the in-memory path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pyarrow as pa

from ..base.errors import EvalWarning, InputError, quoted
from .duplicates import check_duplicates
from .parquet import is_parquet, parquet_batches
from .tables import Run, RunningCodes, encode, numpy_of, take
from .trec_fast import RUN_LAYOUT, LineCounts, NeedLineNumbers, fast_batches
from .trec_lines import line_batches

_WANTED = ("query_id", "doc_id", "score")
T = TypeVar("T")
MIN_BLOCK = 1 << 16  # a block must hold at least a whole line


class NotGrouped(InputError):
    """The run's rows of one query are not all in one block: it cannot be streamed as it
    is (sort it by query, or evaluate it in memory)."""

    def __init__(self, source: str, query_id: str, row: int):
        self.query_id = query_id
        super().__init__(
            source,
            f"the run is not grouped by query: query {quoted(query_id)} comes back at row {row:,} "
            "(blank lines not counted), after rows of other queries",
        )


def _changes(ids: pa.Array) -> np.ndarray:
    """Positions ``i >= 1`` where ``ids[i] != ids[i - 1]``."""
    if pa.types.is_dictionary(ids.type):
        codes = numpy_of(ids.indices)
        return np.flatnonzero(codes[1:] != codes[:-1]) + 1
    import pyarrow.compute as pc

    if len(ids) < 2:
        return np.zeros(0, dtype=np.int64)
    differ = pc.not_equal(ids.slice(1), ids.slice(0, len(ids) - 1))
    return np.flatnonzero(numpy_of(differ)) + 1


def _last_boundary(batches: list[pa.RecordBatch]) -> tuple[int, int] | None:
    """(batch, row) where the last query of ``batches`` starts, ``None`` if they hold one
    query only."""
    for index in range(len(batches) - 1, -1, -1):
        ids = batches[index].column("query_id")
        inside = _changes(ids)
        if inside.size:
            return index, int(inside[-1])
        if index and ids[0].as_py() != batches[index - 1].column("query_id")[-1].as_py():
            return index, 0
    return None


def _readable(batches: Iterator[T], path) -> Iterator[T]:
    """``batches``, a failure to read the file (a cut or damaged gzip stream, trailing
    bytes that are not gzip) an :class:`InputError` naming it, as on the in-memory path."""
    while True:
        try:
            batch = next(batches, None)
        except (OSError, EOFError, pa.ArrowInvalid) as exc:
            raise InputError(os.fspath(path), f"cannot be read: {exc}") from None
        if batch is None:
            return
        yield batch


class _Source:
    """The batches of one file, fast or line-aware, from a given row on."""

    def __init__(self, path, block_size: int, on_bytes: Callable[[int], None] | None):
        self.path, self.block_size, self.on_bytes = path, block_size, on_bytes
        self.parquet = is_parquet(path)
        self.line_aware = False

    def batches(self, skip: int) -> Iterator[tuple[pa.RecordBatch, LineCounts]]:
        """Record batches (and their :class:`LineCounts`) after the first ``skip`` rows."""
        if self.parquet:
            rows = max(self.block_size // 64, 1024)
            produced = parquet_batches(self.path, "score", rows, threads=False)
            raw = None
        else:
            raw = pa.OSFile(os.fspath(self.path), "rb")
            read = line_batches if self.line_aware else fast_batches
            produced = read(Path(self.path), RUN_LAYOUT, _WANTED, "score", self.block_size, raw)
        try:
            for batch, counts in _readable(produced, self.path):
                if raw is not None and self.on_bytes is not None:
                    self.on_bytes(raw.tell())
                if skip >= batch.num_rows:
                    skip -= batch.num_rows
                    continue
                if skip:
                    batch, skip = batch.slice(skip), 0
                yield batch, counts
        finally:
            if raw is not None:
                raw.close()


def iter_run_chunks(
    source,
    rows: int,
    *,
    duplicates: str = "error",
    block_size: int | None = None,
    on_bytes: Callable[[int], None] | None = None,
    name: str | None = None,
) -> Iterator[Run]:
    """The run at ``source`` (a TREC file or Parquet) as :class:`Run` chunks of whole
    queries, about ``rows`` rows each (a chunk holds at least one whole query, however
    long), in file order; each with the duplicate policy applied and its counted warnings.

    ``block_size``: bytes parsed at a time (default: what ``rows`` rows take, within
    bounds). ``on_bytes(n)`` is told how far into the file reading has got. ``name``: the
    file messages name (default ``source``). Raises :class:`NotGrouped` when a query comes
    back after another one.
    """
    if not Path(os.fspath(source)).exists() and "://" not in os.fspath(source):
        raise InputError(os.fspath(source), "no such file")
    block = block_size or max(MIN_BLOCK, min(rows * 64, 1 << 22))
    reader = _Source(source, block, on_bytes)
    make = _Chunks(name or os.fspath(source), duplicates, reader.parquet)
    handed_out = 0  # rows of the file in the chunks handed out so far
    while True:
        pending: list[pa.RecordBatch] = []
        pending_rows, counts = 0, LineCounts()
        try:
            for batch, batch_counts in reader.batches(handed_out):
                pending.append(batch)
                pending_rows += batch.num_rows
                counts += batch_counts
                if pending_rows < rows:
                    continue
                cut = _last_boundary(pending)
                if cut is None:
                    continue
                index, row = cut
                head = [*pending[:index], pending[index].slice(0, row)]
                tail = [pending[index].slice(row), *pending[index + 1 :]]
                chunk = make.chunk(head, handed_out, counts)
                handed_out += chunk.rows
                del head
                # the batches of this chunk are freed: give their memory back now, not
                # when the allocator gets to it (mimalloc keeps freed pages a while, which
                # overshot a 50 MB limit by 60 MB)
                pa.default_memory_pool().release_unused()
                yield chunk.run
                pending, pending_rows = tail, sum(b.num_rows for b in tail)
                counts = LineCounts()
            if pending_rows:
                chunk = make.chunk(pending, handed_out, counts)
                handed_out += chunk.rows
                yield chunk.run
            if not handed_out:
                raise InputError(make.source, "is empty: no lines to read")
            return
        except NeedLineNumbers:
            if reader.line_aware or reader.parquet:
                raise
            reader.line_aware = True  # go on from the first row not handed out yet


class _Chunk:
    def __init__(self, run: Run, rows: int):
        self.run, self.rows = run, rows


class _Chunks:
    """Makes the chunks of one stream, with what they share: the queries of the chunks
    made so far (a query must not come back) and the pool their doc ids are coded against
    (:class:`~citeval_irm.reading.tables.RunningCodes`)."""

    def __init__(self, source: str, duplicates: str, parquet: bool):
        self.source, self.duplicates, self.parquet = source, duplicates, parquet
        self.seen: set[str] = set()
        self.docs = RunningCodes()

    def chunk(self, batches: list[pa.RecordBatch], first_row: int, counts: LineCounts) -> _Chunk:
        """One chunk's Run: grouping checked (against the queries of earlier chunks too),
        the duplicate policy applied, comment lines and lines with extra text counted."""
        table = pa.Table.from_batches(batches)
        query, query_ids = encode(table["query_id"])
        doc, doc_ids = self.docs.encode(table["doc_id"], query)
        scores = np.asarray(numpy_of(table["score"]), dtype=np.float64)
        run = Run(query, query_ids, doc, doc_ids, scores, self.source)
        lines = numpy_of(table["line"]) if "line" in table.column_names else None
        del table
        ids = _check_grouped(run, self.source, first_row, self.seen)

        def locate():
            if lines is not None:
                return lines
            if self.parquet:  # rows are numbered as the whole-file read numbers them
                return np.arange(first_row + 1, first_row + 1 + len(run))
            raise NeedLineNumbers  # re-read this chunk line-aware, for the line number

        run, warnings = check_duplicates(run, self.duplicates, "score", locate)
        run.warnings = list(run.warnings) + warnings + counts.warnings("run")
        self.seen.update(ids)  # only now: a chunk re-read line-aware is checked again
        rows = len(lines) if lines is not None else sum(b.num_rows for b in batches)
        return _Chunk(run, rows)


def _check_grouped(run: Run, source: str, first_row: int, seen: set[str]) -> list[str]:
    """Each query of ``run`` in one block of rows, and none in an earlier chunk: its
    query ids, in order."""
    query = run.query
    starts = np.flatnonzero(query[1:] != query[:-1]) + 1
    back = np.flatnonzero(query[starts] < query[starts - 1])  # codes: first-appearance order
    if back.size:
        row = int(starts[back[0]])
        raise NotGrouped(source, run.query_ids[int(query[row])].as_py(), first_row + row + 1)
    # the dictionary of a cut block may name queries of the next chunk: only those present
    firsts = np.concatenate(([0], starts)) if len(query) else starts
    ids = take(run.query_ids, query[firsts]).to_pylist()
    for first, query_id in zip(firsts.tolist(), ids):
        if query_id in seen:
            raise NotGrouped(source, query_id, first_row + first + 1)
    return ids


def over_whole_queries(
    source, rows: int, plan, duplicates: str, consume: Callable[[Iterator[Run]], T], on_bytes=None
) -> tuple[T, list[EvalWarning]]:
    """``consume(chunks)`` over the whole-query chunks of the run file ``source``; a file
    found not grouped by query is sorted out of core (DuckDB, within ``plan.budget``, see
    :func:`citeval_irm.reading.outofcore.sort_by_query`) and consumed again from the start. Returns
    what ``consume`` returned and, if the file was sorted, the warnings of reading it (the
    sorted copy holds rows only) and one saying it was sorted."""
    block = plan.block_size or None
    try:
        chunks = iter_run_chunks(
            source, rows, duplicates=duplicates, block_size=block, on_bytes=on_bytes
        )
        return consume(chunks), []
    except NotGrouped as exc:
        cause = exc
    from ..base.outputs import temporary_folder
    from .outofcore import sort_by_query

    with temporary_folder("sort") as workdir:
        grouped, counts = sort_by_query(source, workdir, plan.budget, reason=cause)
        chunks = iter_run_chunks(
            grouped, rows, duplicates=duplicates, block_size=block, name=os.fspath(source)
        )
        note = EvalWarning(
            "run_sorted",
            "run not grouped by query (a query comes back after others): sorted out of core "
            "by DuckDB before scoring, queries in first-appearance order",
            1,
            (cause.query_id,),
        )
        return consume(chunks), [*counts.warnings("run"), note]
