"""Runs and qrels held in memory: DataFrames, ``{qid: {doc: value}}`` dicts, records, and
ir_datasets datasets, read by the one rule of each field (:mod:`citeval_irm.reading.fields`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import ArgumentTypeError, InputError, quoted
from .fields import Place, id_column, typed_values
from .tables import Qrels

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
    queries: list = []
    docs: list = []
    values: list = []
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


def _columns_from_frame(frame, source: str, value_column: str) -> dict[str, Any]:
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


def table_from(obj, value_column: str, cls, *, source: str | None = None, **extra):
    """A ``cls`` (:class:`~.tables.Run` or :class:`~.tables.Qrels`) from a DataFrame (checked
    without importing pandas: a user with one has it), a dict or records, each field by its
    one rule (:mod:`.fields`); ``source`` names it in errors (default: its form,
    ``<dict>``)."""
    pandas = sys.modules.get("pandas")
    columns: dict[str, Any]
    if pandas is not None and isinstance(obj, pandas.DataFrame):
        source = source or "<DataFrame>"
        if obj.empty:
            raise InputError(source, "is empty: no rows")
        columns = _columns_from_frame(obj, source, value_column)
    elif isinstance(obj, Mapping):
        columns, source = _columns_from_mapping(obj, value_column), source or "<dict>"
    elif isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        columns, source = _columns_from_records(obj, value_column), source or "<records>"
    else:
        kind = "run" if value_column == "score" else "qrels"
        raise ArgumentTypeError(
            None,
            f"{kind}: cannot read {'a run' if kind == 'run' else kind} from "
            f"{type(obj).__name__}: give a file path, a "
            f"DataFrame, a {{query_id: {{doc_id: {value_column}}}}} dict or records"
            + (", or an ir_datasets dataset or id" if kind == "qrels" else ""),
        )
    if not len(columns["query_id"]) and not extra.get("unjudged"):
        raise InputError(source, "is empty: no rows")
    return cls.from_columns(
        id_column(columns["query_id"], source, "query_id"),
        id_column(columns["doc_id"], source, "doc_id"),
        typed_values(columns[value_column], value_column, Place(source)),
        source,
        **extra,
    )


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


def qrels_from_dataset(name: str, dataset) -> Qrels:
    from ..datasets.registry import missing_parts

    problem = missing_parts(name, dataset, ("qrels",))
    if problem:
        raise InputError(name, problem)
    return table_from(dataset.qrels_iter(), "relevance", Qrels, source=f"ir_datasets:{name}")
