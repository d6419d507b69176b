"""Reading and writing runs and qrels.

TREC files (plain or gzip) are parsed with pyarrow, column-wise: a 6-million-line run takes
a few seconds. A fast path reads files with one consistent delimiter; anything else (mixed
tabs and spaces, text after the 6th column as trec_eval allows, blank lines) goes through a
line-aware path, which is also the one that reports the line number of any bad input.

Every in-memory form a user is likely to hold is accepted too: DataFrames, ``{qid: {doc:
score}}`` dicts, iterables of ir-measures / ir_datasets namedtuples.
"""

from __future__ import annotations

import gzip
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .errors import EvalWarning, InputError, examples_of
from .tables import QRELS_COLUMNS, RUN_COLUMNS, Qrels, Run

DUPLICATE_POLICIES = ("error", "keep_best")
# Only for list-based recipes (the cross-check): every copy stays, as a paper's script sees it.
KEEP_ALL = "keep_all"

_RUN_LAYOUT = ("query_id", "iteration", "doc_id", "rank", "score", "tag")
_QRELS_LAYOUT = ("query_id", "iteration", "doc_id", "relevance")
_FLOAT_PATTERN = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_INT_PATTERN = r"^[+-]?[0-9]+$"
_BLOCK_SIZE = 1 << 24

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


def _first_line(path: Path) -> str:
    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                return line
    return ""


def _read_fast(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...]):
    """Columns of a file with one delimiter (tab or space) and exactly ``len(layout)``
    fields per line; raises :class:`_NeedLineNumbers` for anything else."""
    delimiter = "\t" if "\t" in _first_line(path) else " "
    try:
        table = pa_csv.read_csv(
            _input_stream(path),
            read_options=pa_csv.ReadOptions(column_names=list(layout), block_size=_BLOCK_SIZE),
            parse_options=pa_csv.ParseOptions(
                delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={name: pa.string() for name in layout}, include_columns=list(wanted)
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise _NeedLineNumbers from exc
    columns = {name: pc.utf8_trim_whitespace(table[name].combine_chunks()) for name in wanted}
    for name in ("query_id", "doc_id"):
        if name in columns and pc.any(pc.equal(columns[name], "")).as_py():
            raise _NeedLineNumbers
    return columns, None, 0


def _read_lines(path: Path, layout: tuple[str, ...], wanted: tuple[str, ...], allow_extra: bool):
    """Columns of any whitespace-separated file, with the 1-based line number of each row.

    Blank lines are skipped; a line with too few fields (or, unless ``allow_extra``, too
    many) is an error naming its line.
    """
    try:
        table = pa_csv.read_csv(
            _input_stream(path),
            read_options=pa_csv.ReadOptions(column_names=["line"], block_size=_BLOCK_SIZE),
            parse_options=pa_csv.ParseOptions(
                delimiter="\x1f", quote_char=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pa_csv.ConvertOptions(column_types={"line": pa.string()}),
        )
    except pa.ArrowInvalid as exc:
        raise InputError(str(path), f"cannot be read as a text table: {exc}") from None
    lines = pc.utf8_trim_whitespace(table["line"].combine_chunks())
    lines = pc.fill_null(lines, "")
    keep = np.flatnonzero(pc.not_equal(lines, "").to_numpy(zero_copy_only=False))
    line_numbers = keep + 1
    lines = lines.take(pa.array(keep))
    width = len(layout)
    parts = pc.ascii_split_whitespace(lines, max_splits=width)
    offsets = parts.offsets.to_numpy()
    counts = np.diff(offsets)
    short = np.flatnonzero(counts < width)
    if short.size:
        row = short[0]
        raise InputError(
            str(path),
            f"expected {width} whitespace-separated columns ({' '.join(layout)}), "
            f"found {counts[row]}: {lines[row].as_py()!r}",
            int(line_numbers[row]),
        )
    extra = np.flatnonzero(counts > width)
    if extra.size and not allow_extra:
        row = extra[0]
        raise InputError(
            str(path),
            f"expected {width} whitespace-separated columns ({' '.join(layout)}), "
            f"found more: {lines[row].as_py()!r}",
            int(line_numbers[row]),
        )
    values = parts.values
    starts = offsets[:-1]
    columns = {name: values.take(pa.array(starts + layout.index(name))) for name in wanted}
    return columns, line_numbers, int(extra.size)


def _first_invalid(column: pa.Array, pattern: str) -> int | None:
    ok = pc.match_substring_regex(column, pattern).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


def _parse_file(path: PathLike, layout, wanted, value_column: str, allow_extra: bool):
    """Parse a TREC-style file into ids and a validated numeric column.

    Returns ``(frame, line_numbers or None, lines_with_extra_text)``. Errors name the line.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file")
    if path.is_dir():
        raise InputError(str(path), "is a folder, expected a file")
    try:
        try:
            columns, line_numbers, extra = _read_fast(path, layout, wanted)
            frame = _typed_frame(path, columns, line_numbers, value_column)
        except _NeedLineNumbers:
            columns, line_numbers, extra = _read_lines(path, layout, wanted, allow_extra)
            frame = _typed_frame(path, columns, line_numbers, value_column)
    except (OSError, EOFError, gzip.BadGzipFile, pa.ArrowInvalid) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(path), f"cannot be read: {exc}") from None
    if frame.empty:
        raise InputError(str(path), "is empty: no lines to read")
    return frame, line_numbers, extra


def _typed_frame(path: Path, columns, line_numbers, value_column: str) -> pd.DataFrame:
    raw = columns[value_column]
    is_score = value_column == "score"
    pattern = _FLOAT_PATTERN if is_score else _INT_PATTERN
    bad = _first_invalid(raw, pattern)
    if bad is not None:
        if line_numbers is None:
            raise _NeedLineNumbers
        value = raw[bad].as_py()
        kind = "score" if is_score else "relevance label"
        expected = "a finite number" if is_score else "an integer"
        raise InputError(str(path), f"{kind} {value!r} is not {expected}", int(line_numbers[bad]))
    if is_score:
        values = pc.cast(raw, pa.float64()).to_numpy(zero_copy_only=False)
        nonfinite = np.flatnonzero(~np.isfinite(values))
        if nonfinite.size:
            if line_numbers is None:
                raise _NeedLineNumbers
            row = nonfinite[0]
            raise InputError(
                str(path), f"score {raw[row].as_py()!r} is not finite", int(line_numbers[row])
            )
    else:
        values = pc.cast(raw, pa.int64()).to_numpy(zero_copy_only=False)
    return pd.DataFrame(
        {
            "query_id": pd.array(columns["query_id"], dtype="str"),
            "doc_id": pd.array(columns["doc_id"], dtype="str"),
            value_column: values,
        }
    )


def repeated_rows(frame: pd.DataFrame) -> np.ndarray:
    """Positions (ascending) of rows whose (query_id, doc_id) appeared on an earlier row.

    A stable Arrow sort by (query, doc) puts repeats next to each other, first occurrence
    first; far faster than hashing millions of string pairs.
    """
    if len(frame) < 2:
        return np.empty(0, dtype=np.int64)
    codes = pd.factorize(frame["query_id"], sort=False)[0]
    docs = pa.array(frame["doc_id"])
    order = pc.sort_indices(
        pa.table({"query": codes, "doc": docs}),
        sort_keys=[("query", "ascending"), ("doc", "ascending")],
    )
    sorted_docs = docs.take(order)
    order = order.to_numpy()
    same = (codes[order][1:] == codes[order][:-1]) & pc.equal(
        sorted_docs[1:], sorted_docs[:-1]
    ).to_numpy(zero_copy_only=False)
    return np.sort(order[1:][same])


def _check_duplicates(
    frame: pd.DataFrame, source: str, policy: str, kind: str, locate=None
) -> tuple[pd.DataFrame, list[EvalWarning]]:
    """Apply a duplicate policy to a table whose (query_id, doc_id) pairs must be unique.

    ``"error"`` raises, naming the line of the first repeat (``locate()`` re-reads a file
    for its line numbers only when needed); ``"keep_best"`` keeps the best-scored copy (the
    first among equal scores) and returns a counted warning; ``KEEP_ALL`` keeps every copy.
    """
    if policy not in DUPLICATE_POLICIES + (KEEP_ALL,):
        raise InputError(None, f"duplicates must be one of {DUPLICATE_POLICIES}, not {policy!r}")
    rows = repeated_rows(frame)
    if not rows.size:
        return frame, []
    repeated = frame.iloc[rows]
    examples = examples_of(f"{q}/{d}" for q, d in zip(repeated["query_id"], repeated["doc_id"]))
    if policy == KEEP_ALL:
        message = "duplicate (query, doc) rows in the run: kept, as a list-based script sees them"
        return frame, [EvalWarning("duplicate_docs_kept", message, len(rows), examples)]
    if policy == "error":
        row = int(rows[0])
        line_numbers = locate() if locate is not None else None
        line = int(line_numbers[row]) if line_numbers is not None else row + 1
        query, doc = frame["query_id"].iat[row], frame["doc_id"].iat[row]
        hint = (
            "; pass duplicates='keep_best' (CLI: --duplicates keep_best) to keep the "
            "best-scored copy"
            if kind == "score"
            else ""
        )
        raise InputError(
            source,
            f"duplicate {kind} for query {query!r} and doc {doc!r} "
            f"({len(rows)} repeated rows in all){hint}",
            line,
        )
    order = np.lexsort((np.arange(len(frame)), -frame["score"].to_numpy()))
    best = frame.iloc[order].drop_duplicates(subset=["query_id", "doc_id"], keep="first")
    kept = frame.iloc[np.sort(best.index.to_numpy())].reset_index(drop=True)
    message = (
        "duplicate (query, doc) rows in the run: kept the best-scored copy, dropped the others"
    )
    return kept, [EvalWarning("duplicate_docs_dropped", message, len(rows), examples)]


def drop_duplicates(run: Run) -> Run:
    """``run`` with each repeated (query, doc) reduced to its best-scored copy (counted)."""
    frame, warnings = _check_duplicates(run.frame, run.source, "keep_best", "score")
    return Run(frame, run.source, list(run.warnings) + warnings)


def _read_unique(path: Path, layout: tuple[str, ...], value_column: str, duplicates: str):
    """Parse a run (``value_column="score"``) or qrels file and apply the duplicate policy.

    Runs may carry text after their 6th column (as trec_eval allows), qrels may not. Line
    numbers for a duplicate are re-read only when one is found. Returns the frame, the
    warnings and the number of lines with extra text.
    """
    allow_extra = value_column == "score"
    kind = "score" if allow_extra else "judgement"
    wanted = ("query_id", "doc_id", value_column)
    frame, line_numbers, extra = _parse_file(path, layout, wanted, value_column, allow_extra)

    def locate():
        if line_numbers is not None:
            return line_numbers
        return _read_lines(path, layout, ("query_id",), allow_extra)[1]

    frame, warnings = _check_duplicates(frame, str(path), duplicates, kind, locate)
    return frame, warnings, extra


# --------------------------------------------------------------------------- public readers


def read_run(source, *, duplicates: str = "error") -> Run:
    """Read a run from a TREC file (plain or gzip) or any in-memory form (see :func:`as_run`).

    ``duplicates="error"`` (the default, like trec_eval) rejects a repeated (query, doc);
    ``"keep_best"`` keeps its best-scored copy and counts the dropped rows in
    ``Run.warnings``.
    """
    if not isinstance(source, (str, os.PathLike)):
        return as_run(source, duplicates=duplicates)
    path = Path(source)
    frame, warnings, extra = _read_unique(path, _RUN_LAYOUT, "score", duplicates)
    if extra:
        warnings.append(
            EvalWarning(
                "run_extra_text",
                "run lines with text after the 6th column (ignored, as trec_eval does)",
                extra,
            )
        )
    return Run(frame, str(path), warnings)


def read_qrels(source) -> Qrels:
    """Read qrels from a TREC qrels file (``qid iter docid rel``, plain or gzip), an
    ir_datasets dataset or id, or any in-memory form (see :func:`as_qrels`).

    A repeated (query, doc) is an error: which of two labels is meant cannot be guessed.
    """
    if not isinstance(source, (str, os.PathLike)):
        return as_qrels(source)
    path = Path(source)
    dataset = as_dataset(source)
    if dataset is not None:
        return _qrels_from_dataset(*dataset)
    frame, _, _ = _read_unique(path, _QRELS_LAYOUT, "relevance", "error")
    return Qrels(frame, str(path))


# --------------------------------------------------------------------------- in-memory forms


def _frame_from_mapping(data: Mapping, value_column: str) -> pd.DataFrame:
    queries, docs, values = [], [], []
    for query_id, ranking in data.items():
        if not isinstance(ranking, Mapping):
            raise InputError(
                "<dict>", f"query {query_id!r}: expected a {{doc_id: {value_column}}} mapping"
            )
        queries.extend([str(query_id)] * len(ranking))
        docs.extend(str(doc) for doc in ranking)
        values.extend(ranking.values())
    return pd.DataFrame({"query_id": queries, "doc_id": docs, value_column: values})


def _frame_from_records(records: Iterable, value_column: str) -> pd.DataFrame:
    rows = []
    for record in records:
        try:
            rows.append((record.query_id, record.doc_id, getattr(record, value_column)))
        except AttributeError:
            raise InputError(
                "<records>",
                f"expected records with query_id, doc_id and {value_column}, got {record!r}",
            ) from None
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value_column])


def _normalise_frame(frame: pd.DataFrame, source: str, value_column: str) -> pd.DataFrame:
    """Check and convert a user's DataFrame to the canonical columns and dtypes."""
    missing = [c for c in ("query_id", "doc_id", value_column) if c not in frame.columns]
    if missing:
        raise InputError(source, f"missing column(s) {missing}; found {list(frame.columns)}")
    if frame.empty:
        raise InputError(source, "is empty: no rows")
    out = pd.DataFrame(
        {
            "query_id": frame["query_id"].astype(str).astype("str").to_numpy(),
            "doc_id": frame["doc_id"].astype(str).astype("str").to_numpy(),
        }
    )
    values = pd.to_numeric(frame[value_column], errors="coerce").to_numpy(dtype=float)
    original = frame[value_column].to_numpy()
    if value_column == "score":
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            row = int(bad[0])
            raise InputError(source, f"score {original[row]!r} is not a finite number", row + 1)
        out["score"] = values
    else:
        bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values)))
        if bad.size:
            row = int(bad[0])
            raise InputError(
                source, f"relevance label {original[row]!r} is not an integer", row + 1
            )
        out["relevance"] = values.astype(np.int64)
    for column in ("query_id", "doc_id"):
        empty = np.flatnonzero((out[column] == "").to_numpy())
        if empty.size:
            raise InputError(source, f"empty {column}", int(empty[0]) + 1)
    return out


def _coerce_frame(obj, value_column: str) -> tuple[pd.DataFrame, str]:
    if isinstance(obj, pd.DataFrame):
        return obj, "<DataFrame>"
    if isinstance(obj, Mapping):
        return _frame_from_mapping(obj, value_column), "<dict>"
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        return _frame_from_records(obj, value_column), "<records>"
    raise InputError(None, f"cannot read a {value_column} table from {type(obj).__name__}")


def as_run(obj, *, duplicates: str = "error") -> Run:
    """A :class:`Run` from a path, a Run, a DataFrame (``query_id, doc_id, score``), a
    ``{qid: {doc: score}}`` dict, or an iterable of records with those fields (ir-measures
    ``ScoredDoc``, ir_datasets scoreddocs)."""
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj, duplicates=duplicates)
    frame, source = _coerce_frame(obj, "score")
    frame = _normalise_frame(frame, source, "score")
    frame, warnings = _check_duplicates(frame, source, duplicates, "score")
    return Run(frame, source, warnings)


def as_qrels(obj) -> Qrels:
    """A :class:`Qrels` from a path, a Qrels, an ir_datasets dataset or id, a DataFrame
    (``query_id, doc_id, relevance``), a ``{qid: {doc: rel}}`` dict (an empty inner dict is a
    query with no relevant doc), or an iterable of records (ir-measures / ir_datasets
    ``Qrel``)."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj)
    dataset = as_dataset(obj)
    if dataset is not None:
        return _qrels_from_dataset(*dataset)
    frame, source = _coerce_frame(obj, "relevance")
    unjudged: tuple[str, ...] = ()
    if isinstance(obj, Mapping):
        unjudged = tuple(str(q) for q, ranking in obj.items() if not ranking)
    return _make_qrels(frame, source, unjudged)


def _make_qrels(frame: pd.DataFrame, source: str, unjudged: tuple[str, ...] = ()) -> Qrels:
    if frame.empty and unjudged:
        raise InputError(source, "has no judged document at all")
    frame = _normalise_frame(frame, source, "relevance")
    frame, _ = _check_duplicates(frame, source, "error", "judgement")
    return Qrels(frame, source, unjudged_queries=unjudged)


def as_dataset(obj) -> tuple[str, object] | None:
    """``(name, dataset)`` when ``obj`` is an ir_datasets dataset, or a registered dataset id
    that is not also the path of an existing file; otherwise ``None``."""
    if isinstance(obj, str):
        import ir_datasets

        if not Path(obj).exists() and obj in ir_datasets.registry:
            return obj, ir_datasets.load(obj)
        return None
    if hasattr(obj, "qrels_iter") and hasattr(obj, "has_qrels"):
        dataset_id = getattr(obj, "dataset_id", None)
        return (dataset_id() if callable(dataset_id) else "<dataset>"), obj
    return None


def _qrels_from_dataset(name: str, dataset) -> Qrels:
    if not dataset.has_qrels():
        raise InputError(name, "this dataset has no qrels")
    frame = _frame_from_records(dataset.qrels_iter(), "relevance")
    return _make_qrels(frame, f"ir_datasets:{name}")


# --------------------------------------------------------------------------- writing


def write_run(run, path: PathLike, *, tag: str = "citeval") -> Path:
    """Write a run as a TREC run file (``qid Q0 docid rank score tag``), ranked by score
    (ties in trec_eval order), with ranks from 1. A ``.gz`` suffix writes gzip."""
    from .ties import rank_run

    run = as_run(run)
    ranked = rank_run(run, "trec_eval", rewrite_scores=False)[0].frame
    rank = ranked.groupby("query_id", sort=False).cumcount() + 1
    scores = ranked["score"].map(_format_score)
    lines = (
        ranked["query_id"]
        + " Q0 "
        + ranked["doc_id"]
        + " "
        + rank.astype(str)
        + " "
        + scores
        + " "
        + tag
        + "\n"
    )
    path = Path(path)
    text = "".join(lines.tolist())
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return path


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
