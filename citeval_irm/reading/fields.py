"""The one rule for each field of a run or qrels row, whatever form it came in: ids, scores
and relevance labels from a TREC file (fast or line-aware), Parquet, a DataFrame, a dict or
records.

Text is read by :mod:`citeval_irm.base.numbers` (trec_eval's spelling, a label ``atol``
would read otherwise refused); a number stored as a number is taken as it is (a label must
be whole); a boolean, a missing value (``None``, ``NaN``, pandas' ``<NA>``) or anything else
is an error naming the row. Ids: :func:`id_text`.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.errors import InputError, quoted
from ..base.numbers import LABEL_RANGE, LABEL_TEXT, SCORE_TEXT, atol_reading
from .tables import numpy_of

_KIND = {"score": "score", "relevance": "relevance label"}


@dataclass(frozen=True)
class Place:
    """Where the values of a column are, for an error: the source, each value's 1-based line
    (or row) number (``None``: its position + 1), and whether a message says ``row N``
    (Parquet) rather than ``source:N`` (a file's line, an in-memory row)."""

    source: str
    numbers: np.ndarray | None = None
    first: int = 1
    rows: bool = False

    def error(self, index: int, problem: str) -> InputError:
        number = int(self.numbers[index]) if self.numbers is not None else self.first + index
        if self.rows:
            return InputError(self.source, f"row {number}: {problem}")
        return InputError(self.source, problem, number)


# --------------------------------------------------------------------------- values


def all_finite(scores: np.ndarray) -> bool:
    """Whether every float of ``scores`` is finite, by one sum over them in place: a NaN
    or an infinity makes the sum one (``inf - inf`` makes a NaN quietly)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.isfinite(scores.sum()))


def typed_values(values, column: str, place: Place) -> np.ndarray:
    """Float scores (``column="score"``) or int64 labels (``"relevance"``) from any form of
    the column: an Arrow array of any type, a numpy array, a list; or the error of its
    first bad value (by :class:`Place`)."""
    if isinstance(values, pa.ChunkedArray):
        if column == "score" and values.type == pa.float64() and not values.null_count:
            scores = _joined_floats(values)
            if all_finite(scores):
                return scores
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        kind = _KIND[column]
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        missing = np.flatnonzero(numpy_of(pc.is_null(values)))
        if missing.size:
            raise place.error(int(missing[0]), f"missing {kind}")
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            return _checked(*_texts(values, column), place)
        if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
            if pa.types.is_float16(values.type):
                values = values.cast(pa.float64())
            return _checked(*_numbers(numpy_of(values), column), place)
        if pa.types.is_decimal(values.type):
            return _checked(*_numbers(numpy_of(values.cast(pa.float64())), column), place)
        if pa.types.is_boolean(values.type) and len(values):
            raise place.error(0, f"{kind} {values[0].as_py()!r} is not a number")
        if not len(values):
            return np.zeros(0, np.float64 if column == "score" else np.int64)
        raise InputError(place.source, f"column {column} ({values.type}) does not hold numbers")
    if isinstance(values, np.ndarray):
        array = values
    elif isinstance(values, list) and set(map(type, values)) in ({int}, {float}):
        # Python ints alone or floats alone (a dict's scores, records' labels): one numpy
        # array read by the rule of numbers, not value by value; an int beyond 64 bits is
        # read as an object, as it is written (below)
        try:
            array = np.asarray(values, np.int64 if type(values[0]) is int else np.float64)
        except OverflowError:
            array = np.asarray(values, dtype=object)
    else:
        array = np.asarray(values, dtype=object)
    if array.dtype.kind in "iuf":
        return _checked(*_numbers(array, column), place)
    if array.dtype.kind in "US":
        return _checked(*_texts(pa.array(array.astype(str).tolist(), pa.string()), column), place)
    return _object_values(array.tolist(), column, place)


def _joined_floats(values: pa.ChunkedArray) -> np.ndarray:
    """The blocks of a float64 column without nulls copied once into one numpy array."""
    out = np.empty(len(values), dtype=np.float64)
    row = 0
    for block in values.chunks:
        out[row : row + len(block)] = numpy_of(block)
        row += len(block)
    return out


def _checked(values: np.ndarray, bad: tuple[int, str] | None, place: Place) -> np.ndarray:
    if bad is not None:
        raise place.error(*bad)
    return values


def _numbers(
    array: np.ndarray, column: str, original=None
) -> tuple[np.ndarray, tuple[int, str] | None]:
    """Scores or labels of a numeric numpy array, and the first bad one (index, problem);
    ``original(i)``: the value as the user wrote it, for the message."""
    original = original or (lambda i: array[i].item())
    if column == "score":
        scores = array.astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.size:
            index = int(bad[0])
            return scores, (index, f"score {quoted(original(index))} is not a finite number")
        return scores, None
    if array.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(array) | (array != np.round(array)))
        if bad.size:
            index = int(bad[0])
            problem = f"relevance label {quoted(original(index))} is not a whole number"
            return array, (index, problem)
    low, high = LABEL_RANGE[0] - 1, LABEL_RANGE[1] + 1
    if array.dtype.kind == "u":
        labels = np.minimum(array, np.uint64(high)).astype(np.int64)
    else:
        labels = np.clip(array, low, high).astype(np.int64)
    return labels, _out_of_range(labels, original)


def _out_of_range(labels: np.ndarray, original) -> tuple[int, str] | None:
    bad = np.flatnonzero((labels < LABEL_RANGE[0]) | (labels > LABEL_RANGE[1]))
    if not bad.size:
        return None
    index = int(bad[0])
    return index, (
        f"relevance label {quoted(original(index))} is out of range: labels are whole "
        f"numbers from {LABEL_RANGE[0]:,} to {LABEL_RANGE[1]:,}"
    )


def _texts(raw: pa.Array, column: str) -> tuple[np.ndarray, tuple[int, str] | None]:
    """Scores or labels of an Arrow string array by the text rule, and the first bad one."""
    is_score = column == "score"
    if not is_score and raw.type == pa.string() and not raw.null_count and len(raw):
        # every value 1 to 9 ASCII digits (what qrels hold): a label the rule reads as the
        # number it spells (in range, no sign, point or space), found by one pass over the
        # bytes, not the rule's regular expressions (a qrels of 20,000 lines: 1 ms, not 12)
        offsets = np.frombuffer(raw.buffers()[1], dtype=np.int32)[
            raw.offset : raw.offset + len(raw) + 1
        ]
        lengths = np.diff(offsets)
        if lengths.min() >= 1 and lengths.max() <= 9:
            data = np.frombuffer(raw.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
            if ((data - np.uint8(0x30)) < 10).all():
                return numpy_of(pc.cast(raw, pa.int64())), None
    trimmed = pc.ascii_trim_whitespace(raw)
    ok = numpy_of(pc.match_substring_regex(trimmed, SCORE_TEXT if is_score else LABEL_TEXT))
    bad = np.flatnonzero(~ok)
    empty = np.zeros(0, np.float64 if is_score else np.int64)
    if bad.size:
        index = int(bad[0])
        return empty, (index, _text_problem(raw[index].as_py(), column, index == 0))
    if is_score:
        scores = numpy_of(pc.cast(trimmed, pa.float64()))
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.size:
            index = int(bad[0])
            return empty, (index, f"score {quoted(raw[index].as_py())} is not finite{NOT_FINITE}")
        return scores, None
    digits = pc.replace_substring_regex(pc.utf8_ltrim(trimmed, "+"), r"\.0*$", "")
    try:
        labels = numpy_of(pc.cast(digits, pa.int64()))
    except pa.ArrowInvalid:  # more digits than 64 bits hold
        low, high = LABEL_RANGE[0] - 1, LABEL_RANGE[1] + 1
        labels = np.array([max(min(int(v), high), low) for v in digits.to_pylist()], np.int64)
    return labels, _out_of_range(labels, lambda i: raw[i].as_py())


NOT_FINITE = (
    ": a score must be a finite number here (`citeval trec_eval` reads the run as trec_eval "
    "does, infinities and NaN included)"
)
"""What a non-finite score is told, on any line (a data row, never a header's word)."""


def _is_float(value: str) -> bool:
    """Whether Python reads ``value`` as a number (one the text rule refused: not finite)."""
    try:
        float(value)
    except ValueError:
        return False
    return True


def _text_problem(value: str, column: str, first_row: bool) -> str:
    """Why ``value`` is no score or label, with the likely mistake behind it: a header line
    (a word on the first row), a decimal comma (``30,5``), or for a label the other number
    trec_eval's ``atol`` would have read."""
    if column == "score":
        problem = f"score {quoted(value)} is not a finite number"
    else:
        problem = f"relevance label {quoted(value)} is not a whole number"
    number = _is_float(value)  # inf, -Infinity, nan: a number, never a header's word
    if number and column == "score":
        return problem + NOT_FINITE
    if first_row and not number and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", value):
        return problem + ": this looks like a header line: remove it (TREC files have none)"
    if re.fullmatch(r"[+-]?[0-9]*,[0-9]+", value):
        return problem + f": a decimal comma? write {value.replace(',', '.')!r}"
    if column == "relevance":
        return problem + (
            f" (trec_eval 10.0 would read it as {atol_reading(value)}, by C atol; "
            "refused rather than read as another number)"
        )
    return problem


def _object_values(items: list, column: str, place: Place) -> np.ndarray:
    """Values of an in-memory column of Python objects: strings by the text rule, numbers
    as numbers, anything else an error; the first bad row is reported, whichever kind."""
    kind = _KIND[column]
    is_text = np.zeros(len(items), dtype=bool)
    reals = np.zeros(len(items), dtype=np.float64)
    stop, found = len(items), []
    for row, value in enumerate(items):
        if isinstance(value, str):
            is_text[row] = True
        elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            problem = f"{kind} {quoted(value)} is not a number"
            stop, found = row, [(row, f"missing {kind}" if is_missing(value) else problem)]
            break
        else:
            reals[row] = _real(value, column)
    rows = np.arange(stop)
    text_rows, numeric_rows = rows[is_text[:stop]], rows[~is_text[:stop]]
    texts = pa.array([str(items[r]) for r in text_rows.tolist()], pa.string())
    text_values, text_bad = _texts(texts, column)
    values, numeric_bad = _numbers(
        reals[numeric_rows], column, lambda i: items[int(numeric_rows[i])]
    )
    for bad, where in ((text_bad, text_rows), (numeric_bad, numeric_rows)):
        if bad is not None:
            found.append((int(where[bad[0]]), bad[1]))
    if found:
        raise place.error(*min(found))
    out = np.zeros(len(items), np.float64 if column == "score" else np.int64)
    out[numeric_rows] = values
    out[text_rows] = text_values
    return out


def _real(value, column: str) -> float:
    """A real number as a float; an integer beyond the label range clamped just past it
    (so it is reported, not rounded), one beyond a float infinite."""
    if isinstance(value, (int, np.integer)) and column == "relevance":
        return float(max(min(int(value), LABEL_RANGE[1] + 1), LABEL_RANGE[0] - 1))
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# --------------------------------------------------------------------------- ids


def is_missing(value) -> bool:
    """Whether ``value`` is a missing value: ``None``, a float NaN, pandas' ``NA`` or
    ``NaT``, numpy's ``NaT``."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    pandas = sys.modules.get("pandas")
    return pandas is not None and (value is pandas.NA or value is pandas.NaT)


def id_text(value, source: str, name: str, row: int) -> str:
    """One id as the text a TREC file would hold, the same for every input form: a string
    as it is, an integer as its digits, a float that is a whole number as one too (``2.0``
    is ``'2'``, as a qrels file writes query 2), any other float as Python prints it. A
    boolean is not an id, and a missing value (``None``, ``NaN``, pandas' ``<NA>``) or an
    empty string is none: an error naming the column and the row, never an id ``'<NA>'``."""
    if isinstance(value, str):
        if value:
            return str(value)
    elif isinstance(value, (bool, np.bool_)):
        raise InputError(source, f"{name} {value!r} is a boolean, not an id", row)
    elif isinstance(value, (float, np.floating)):
        if math.isfinite(value):
            whole = float(value).is_integer() and abs(value) < 2**63
            return str(int(value)) if whole else repr(float(value))
    elif not is_missing(value):
        return str(value)
    raise InputError(source, f"missing or empty {name}: {quoted(value)}", row)


def id_column(values, source: str, name: str) -> pa.Array:
    """Ids as strings, by :func:`id_text`; a missing or empty id is an error."""
    values = values.tolist() if isinstance(values, np.ndarray) else list(values)
    try:  # the usual case, in one pass: all non-empty strings
        strings = pa.array(values, pa.string())
        lengths = numpy_of(pc.binary_length(strings), fill=0)
        if not strings.null_count and (not len(strings) or lengths.min() > 0):
            return strings
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        pass
    return pa.array([id_text(v, source, name, i + 1) for i, v in enumerate(values)], pa.string())
