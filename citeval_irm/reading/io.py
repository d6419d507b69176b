"""Reading and writing runs and qrels: the one reader's public names.

TREC files (plain or gzip) are parsed with pyarrow, column-wise: a 6-million-line run takes
a few seconds. A fast path (:mod:`citeval_irm.reading.trec_fast`) reads files with one
consistent delimiter; anything else (mixed tabs and spaces, text after the 6th column as
trec_eval allows, blank lines) goes through a line-aware path
(:mod:`citeval_irm.reading.trec_lines`), which is also the one that reports the line number
of any bad input. Both paths read a file by one rule (trec_eval's): a UTF-8 byte-order mark at
its start is dropped, a line whose first non-blank character is ``#`` is a comment (skipped,
counted), fields are runs of anything but ASCII whitespace; the fast path hands any file
whose bytes it could read otherwise (an empty or odd-spaced field, a comment) to the
line-aware one.

Parquet (:mod:`citeval_irm.reading.parquet`) and every in-memory form a user is likely to
hold (:mod:`citeval_irm.reading.forms`: DataFrames, ``{qid: {doc: score}}`` dicts, iterables
of ir-measures / ir_datasets namedtuples) are read by the same rule of each field;
:mod:`citeval_irm.reading.readers` dispatches, :mod:`citeval_irm.reading.duplicates` applies
the duplicate policy, :mod:`citeval_irm.reading.writing` writes a TREC run.
"""

from __future__ import annotations

from ..base.choices import DUPLICATE_POLICIES, KEEP_ALL
from .duplicates import repeated_rows
from .forms import COLUMN_NAMES, as_dataset
from .parquet import PARQUET_WRITE, is_parquet, parquet_files
from .readers import as_qrels, as_run, drop_duplicates, read_qrels, read_run
from .tables import QRELS_COLUMNS, RUN_COLUMNS
from .writing import write_run

__all__ = [
    "COLUMN_NAMES",
    "DUPLICATE_POLICIES",
    "KEEP_ALL",
    "PARQUET_WRITE",
    "QRELS_COLUMNS",
    "RUN_COLUMNS",
    "as_dataset",
    "as_qrels",
    "as_run",
    "drop_duplicates",
    "is_parquet",
    "parquet_files",
    "read_qrels",
    "read_run",
    "repeated_rows",
    "write_run",
]
