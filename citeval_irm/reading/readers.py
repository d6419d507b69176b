"""The one reader: ``read_run`` and ``read_qrels``.

A path goes to the TREC parse (:mod:`citeval_irm.reading.trec_lines`, fast path first) or to
Parquet (:mod:`citeval_irm.reading.parquet`), an ir_datasets id or dataset and any in-memory
form to :mod:`citeval_irm.reading.forms`; every one then meets the duplicate policy
(:mod:`citeval_irm.reading.duplicates`). ``as_run`` and ``as_qrels``, the same readers
under other names, are kept for one release and warn (``DeprecationWarning``).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa

from ..base.choices import KEEP_ALL
from ..base.errors import InputError, deprecated
from .duplicates import check_duplicates
from .fields import Place, typed_values
from .forms import as_dataset, qrels_from_dataset, table_from
from .parquet import is_parquet, read_parquet
from .tables import Qrels, Run
from .trec_fast import QRELS_LAYOUT, RUN_LAYOUT, NeedLineNumbers, read_fast
from .trec_lines import read_lines


def drop_duplicates(run: Run) -> Run:
    """``run`` with each repeated (query, doc) reduced to its best-scored copy (counted)."""
    return read_run(run, duplicates="keep_best")


def _read_unique(path: Path, layout: tuple[str, ...], value_column: str, duplicates: str):
    """Parse a run (``value_column="score"``) or qrels file and apply the duplicate policy.

    The fast parse first, the line-aware one for anything it leaves (errors name the line).
    Runs may carry text after their 6th column (as trec_eval allows), qrels may not. Line
    numbers for a duplicate are re-read only when one is found. The table's warnings count
    the comment lines, the lines with extra text and what the duplicate policy dropped.
    """
    allow_extra = value_column == "score"
    kind = "score" if allow_extra else "judgement"
    wanted = ("query_id", "doc_id", value_column)
    if not path.exists():
        raise InputError(str(path), "no such file")
    if path.is_dir():
        raise InputError(str(path), "is a folder, expected a file")
    try:
        try:
            columns, line_numbers, counts = read_fast(path, layout, wanted, value_column)
        except NeedLineNumbers:
            columns, line_numbers, counts = read_lines(path, layout, wanted, allow_extra)
            place = Place(str(path), line_numbers)
            columns[value_column] = typed_values(columns[value_column], value_column, place)
    except (OSError, EOFError, gzip.BadGzipFile, pa.ArrowInvalid) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(path), f"cannot be read: {exc}") from None
    if not len(columns[value_column]):
        raise InputError(str(path), "is empty: no lines to read")
    cls = Run if allow_extra else Qrels
    table = cls.from_columns(
        columns["query_id"], columns["doc_id"], columns[value_column], str(path)
    )

    def locate():
        if line_numbers is not None:
            return line_numbers
        return read_lines(path, layout, ("query_id",), allow_extra)[1]

    table, warnings = check_duplicates(table, duplicates, kind, locate)
    table.warnings = warnings + counts.warnings("run" if allow_extra else "qrels")
    return table


# --------------------------------------------------------------------------- public readers


def read_run(source, *, duplicates: str = "error") -> Run:
    """Read a run from a file or any in-memory form.

    Parameters
    ----------
    source : path, Parquet, Run, DataFrame, dict or records
        A TREC file (plain or gzip), Parquet (a file, a folder of files or a URL; columns
        ``query_id, doc_id, score`` or PyTerrier's ``qid, docno, score``), a Run, a DataFrame
        (``query_id, doc_id, score``, or PyTerrier's ``qid, docno, score``), a
        ``{qid: {doc: score}}`` dict, or an iterable of records with those fields
        (ir-measures ``ScoredDoc``, ir_datasets scoreddocs).
    duplicates : {"error", "keep_best"}, default "error"
        ``"error"`` (like trec_eval) rejects a repeated (query, doc) with the file and line;
        ``"keep_best"`` keeps its best-scored copy and counts the dropped rows in
        ``Run.warnings``. It applies to a Run too (one read with every copy kept, say).

    Returns
    -------
    Run
        The columnar run (``source`` itself when it is a Run that needs nothing done).

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.read_run({"q1": {"d1": 2.0, "d2": 1.0}})
    >>> run
    Run(source='<dict>', queries=1, rows=2)
    """
    if isinstance(source, (str, os.PathLike)):
        if is_parquet(source):
            return read_parquet(source, "score", duplicates)
        return _read_unique(Path(source), RUN_LAYOUT, "score", duplicates)
    if isinstance(source, Run):
        if duplicates == KEEP_ALL:
            return source
        run, earlier = source, [w for w in source.warnings if w.code != "duplicate_docs_kept"]
    else:
        run, earlier = table_from(source, "score", Run), []
    checked, warnings = check_duplicates(run, duplicates, "score")
    if checked is run and run is source:
        return source
    if checked is run:
        checked.warnings = list(run.warnings) + warnings
    else:  # a new table: the copy dropped rows
        checked.warnings = earlier + warnings
    return checked


def read_qrels(source) -> Qrels:
    """Read qrels from a file, an ir_datasets dataset or any in-memory form.

    Parameters
    ----------
    source : path, Parquet, Qrels, ir_datasets dataset / id, DataFrame, dict or records
        A TREC qrels file (``qid iter docid rel``, plain or gzip), Parquet (``query_id,
        doc_id, relevance`` or ``qid, docno, label``), a Qrels, an ir_datasets dataset or id,
        a DataFrame (``query_id, doc_id, relevance``, or PyTerrier's ``qid, docno, label``),
        a ``{qid: {doc: rel}}`` dict (an empty inner dict is a query with no relevant doc),
        or an iterable of records (ir-measures / ir_datasets ``Qrel``). A repeated
        (query, doc) is an error: which of two labels is meant cannot be guessed.

    Returns
    -------
    Qrels
        ``source`` itself when it is a Qrels, else ``source`` read into columns.

    Examples
    --------
    >>> import citeval_irm
    >>> qrels = citeval_irm.read_qrels({"q1": {"d1": 1}, "q2": {}})
    >>> demo = citeval_irm.read_qrels("citeval/demo/test")
    """
    if isinstance(source, Qrels):
        return source
    dataset = as_dataset(source)
    if dataset is not None:
        qrels = qrels_from_dataset(*dataset)
    elif isinstance(source, (str, os.PathLike)):
        if is_parquet(source):
            return read_parquet(source, "relevance", "error")
        return _read_unique(Path(source), QRELS_LAYOUT, "relevance", "error")
    else:
        unjudged: tuple[str, ...] = ()
        if isinstance(source, Mapping):
            unjudged = tuple(str(q) for q, ranking in source.items() if not ranking)
            if unjudged and not any(source.values()):
                raise InputError("<dict>", "has no judged document at all")
        qrels = table_from(source, "relevance", Qrels, unjudged=unjudged)
    return check_duplicates(qrels, "error", "judgement")[0]


# ---------------------------------------------------------------- deprecated (one release)


def as_run(obj, *, duplicates: str = "error") -> Run:
    """Deprecated: use :func:`read_run` (``obj`` is its ``source``)."""
    deprecated("citeval_irm.as_run", "citeval_irm.read_run (the same reader)")
    return read_run(obj, duplicates=duplicates)


def as_qrels(obj) -> Qrels:
    """Deprecated: use :func:`read_qrels` (``obj`` is its ``source``)."""
    deprecated("citeval_irm.as_qrels", "citeval_irm.read_qrels (the same reader)")
    return read_qrels(obj)


# PEP 702's mark of a deprecated function (what typing.deprecated sets), read by the API
# reference and its tests: the two keep their old spellings one release, undocumented
as_run.__deprecated__ = "use read_run"  # type: ignore[attr-defined]
as_qrels.__deprecated__ = "use read_qrels"  # type: ignore[attr-defined]
