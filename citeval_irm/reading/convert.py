"""Runs and qrels as Parquet, and runs put in query order out of core.

``citeval convert RUN.trec RUN.parquet`` writes a run as Parquet (``query_id, doc_id,
score``): one file, or for a large run a folder of files that each hold whole queries (one
row group each), which is what the streaming reader and the Dask engine read fastest and
what a cluster can split between workers without cutting a query. The run is read in
chunks, so converting takes bounded memory too.

A run not grouped by query is first put in query order out of core
(:func:`citeval_irm.reading.outofcore.sort_by_query`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from ..base.errors import InputError, deprecated
from ..base.options import ExecutionOptions, boolean
from .parquet import PARQUET_WRITE
from .readers import read_qrels
from .tables import Qrels, Run, arrow_array

DEFAULT_PARTITION_ROWS = 4_000_000


@dataclass(frozen=True)
class Converted:
    """What :func:`convert` wrote."""

    path: Path
    rows: int
    queries: int
    files: int

    def text(self) -> str:
        where = f"{self.files} files in {self.path}/" if self.files > 1 else str(self.path)
        return f"citeval: wrote {self.rows:,} rows of {self.queries:,} queries to {where}\n"


def _table(table: Run | Qrels) -> pa.Table:
    """The canonical columns of a run or qrels, ids as Parquet stores them best (strings,
    which its writer dictionary-encodes)."""
    return pa.table(
        {
            "query_id": table.query_strings(),
            "doc_id": table.doc_strings(),
            table._VALUE: arrow_array(table.values()),
        }
    )


def write_parts(chunks: Iterable[Run], folder: Path, partition_rows: int) -> tuple[int, int, int]:
    """Write runs of whole queries into ``folder`` as ``part-00000.parquet``, ...: a file
    gets whole chunks until it holds ``partition_rows`` rows. Returns rows, queries, files."""
    import pyarrow.parquet as pq

    rows = queries = files = 0
    writer, in_file = None, 0
    try:
        for chunk in chunks:
            if writer is None or in_file >= partition_rows:
                if writer is not None:
                    writer.close()
                table = _table(chunk)
                writer = pq.ParquetWriter(
                    folder / f"part-{files:05d}.parquet", table.schema, **PARQUET_WRITE
                )
                files, in_file = files + 1, 0
            else:
                table = _table(chunk)
            writer.write_table(table, row_group_size=max(len(table), 1))
            rows, in_file = rows + len(table), in_file + len(table)
            queries += chunk.num_queries
    finally:
        if writer is not None:
            writer.close()
    return rows, queries, files


def convert(
    source,
    target,
    *,
    kind: str = "run",
    partition_rows: int | None = None,
    force: bool = False,
    execution: ExecutionOptions | None = None,
    memory: int | str | None = None,
) -> Converted:
    """Write a run (or qrels) as Parquet, the form read fastest and on a Dask cluster.

    Every row is kept as it is (duplicates too); the target appears only once complete.

    Parameters
    ----------
    source : path, Parquet, DataFrame, dict, records, Run or Qrels
        The run or qrels to read.
    target : str or PathLike
        The file or folder written.
    kind : {"run", "qrels"}, default "run"
        What ``source`` is.
    partition_rows : int, optional
        Write a folder of files of about ``partition_rows`` rows of whole queries each.
    force : bool, default False
        Replace an existing file (``citeval convert --force``); a folder is replaced only if
        it holds nothing but the parts of an earlier conversion (see
        :func:`citeval_irm.base.outputs.check_folder_output`). Both are checked before any
        work: without ``force`` an existing target is an error, never overwritten.
    execution : ExecutionOptions, optional
        How the conversion runs; only ``memory`` applies here: what reading may take, so a
        run larger than it allows goes to a folder of files (see
        :func:`citeval_irm.reading.streaming.plan_reading`).
    memory : int or str, optional
        Deprecated: ``execution=ExecutionOptions(memory=...)``, the one way every verb
        takes it.

    Returns
    -------
    Converted
        The path written, its rows, queries and files.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> path = citeval_irm.write_run(run, "bm25.trec")
    >>> written = citeval_irm.convert("bm25.trec", "bm25.parquet")
    """
    import pyarrow.parquet as pq

    from ..base.outputs import atomic_output, check_folder_output, check_output

    force = bool(boolean("force", force))
    if memory is not None:
        deprecated("convert(memory=...)", "convert(execution=ExecutionOptions(memory=...))")
        execution = replace(execution or ExecutionOptions(), memory=memory)
    memory = (execution or ExecutionOptions()).memory
    if kind not in ("run", "qrels"):
        raise InputError(None, f"kind must be run or qrels, not {kind!r}")
    whole = isinstance(partition_rows, int) and not isinstance(partition_rows, bool)
    if partition_rows is not None and (not whole or partition_rows < 1):
        raise InputError(
            None, f"partition rows must be a whole number, 1 or more, not {partition_rows!r}"
        )
    if kind == "qrels" and partition_rows is not None:
        raise InputError(None, "qrels are written as one file: partition rows are for runs")
    target = Path(target)
    if kind == "qrels":
        check_output(target, force=force)
        qrels = read_qrels(source)
        with atomic_output(target) as temporary:
            pq.write_table(_table(qrels), temporary, **PARQUET_WRITE)
        return Converted(target, len(qrels), len(qrels.all_query_ids), 1)
    from .streaming import plan_reading

    plan = plan_reading(source, memory, large_streams=False)  # one file while it fits
    if not plan.stream and partition_rows is None:
        from ..base.choices import KEEP_ALL
        from .readers import read_run

        check_output(target, force=force)
        run = read_run(source, duplicates=KEEP_ALL)
        with atomic_output(target) as temporary:
            pq.write_table(_table(run), temporary, **PARQUET_WRITE)
        return Converted(target, len(run), run.num_queries, 1)
    check_folder_output(target, force=force)
    return _convert_partitioned(source, target, plan, partition_rows or DEFAULT_PARTITION_ROWS)


def _convert_partitioned(source, target: Path, plan, rows: int) -> Converted:
    """The folder of parts, written in a work folder beside ``target`` and moved into
    place once complete (:func:`~citeval_irm.base.outputs.atomic_folder_output`)."""
    from ..base.outputs import atomic_folder_output
    from .chunks import over_whole_queries

    chunk_rows = min(plan.chunk_rows or rows, rows)
    with atomic_folder_output(target) as staging:

        def write(chunks) -> tuple[int, int, int]:
            for old in staging.iterdir():  # parts of an attempt on the file as it was
                old.unlink()
            return write_parts(chunks, staging, rows)

        counts, _ = over_whole_queries(source, chunk_rows, plan, "keep_all", write)
    return Converted(target, *counts)
