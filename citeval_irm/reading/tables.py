"""The canonical run and qrels tables every other module reads: columns, built once.

A :class:`Run` holds one row per (query, doc) as numpy columns: integer codes into two
dictionaries of ids (``query_ids``, ``doc_ids``, Arrow string arrays) and float scores; a
:class:`Qrels` holds codes and integer labels the same way. Rows keep the input order. Ids
are strings to the user and codes inside: nothing on the scoring path holds one Python
object per line. ``frame`` gives a pandas view for the rare places (and users) that want
one, built on first use; the dict-of-dicts that pytrec_eval takes is built here and
nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.errors import EvalWarning

if TYPE_CHECKING:
    import pandas as pd

RUN_COLUMNS = ("query_id", "doc_id", "score")
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")


# pyarrow converts numpy input and non-zero-copy output through its pandas layer, which
# imports pandas (a fifth of a second) on first use: the scoring path goes through buffers.
_NUMPY_TYPES = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint16(): np.uint16,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}


def arrow_array(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers as an Arrow array, without pyarrow's pandas layer."""
    values = np.ascontiguousarray(values)
    arrow_type = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])


def numpy_of(values, fill=None) -> np.ndarray:
    """A numpy array of an Arrow numeric or boolean (chunked) array, read from its buffers;
    nulls become ``fill`` (which must then be given)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    validity, data = values.buffers()[:2]
    n, offset = len(values), values.offset
    if pa.types.is_boolean(values.type):
        bits = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        out = np.unpackbits(bits, bitorder="little", count=n + offset)[offset:].astype(bool)
    else:
        dtype = _NUMPY_TYPES[values.type]
        out = np.frombuffer(data, dtype=dtype, count=n, offset=offset * np.dtype(dtype).itemsize)
    if values.null_count:
        if fill is None:
            raise ValueError("nulls in an array that must have none")
        valid = np.unpackbits(
            np.frombuffer(validity, dtype=np.uint8), bitorder="little", count=n + offset
        )[offset:].astype(bool)
        out = np.where(valid, out, fill)
    return out


def first_true(mask) -> int | None:
    """Position of the first true value of an Arrow boolean mask (a null counts as true),
    ``None`` when there is none."""
    hits = np.flatnonzero(numpy_of(mask, fill=True))
    return int(hits[0]) if hits.size else None


def take(values: pa.Array, positions: np.ndarray) -> pa.Array:
    """``values`` at ``positions`` (a numpy array of indices)."""
    return values.take(arrow_array(np.asarray(positions, dtype=np.int64)))


def encode(values) -> tuple[np.ndarray, pa.Array]:
    """Integer codes and the dictionary of unique values (first-appearance order) of a
    string column given as an Arrow (chunked, dictionary) array or any sequence."""
    if isinstance(values, pa.ChunkedArray):
        if pa.types.is_dictionary(values.type) and pa.types.is_string(values.type.value_type):
            return _encode_blocks(values)
        if pa.types.is_dictionary(values.type):
            values = values.unify_dictionaries().combine_chunks()
        else:
            values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values, type=pa.string())
    if pa.types.is_dictionary(values.type):
        encoded = values
    else:
        if values.type != pa.string():
            values = values.cast(pa.string())
        encoded = pc.dictionary_encode(values)
    codes = numpy_of(encoded.indices).astype(np.int32, copy=False)
    dictionary = encoded.dictionary
    if dictionary.type != pa.string():
        dictionary = dictionary.cast(pa.string())
    return codes, dictionary


def _encode_blocks(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """:func:`encode` of dictionary-encoded string blocks (a parse's per-block
    dictionaries): the small dictionaries are unified by one hash pass over them, and each
    block's indices are written through its mapping straight into the one array of codes,
    with the same codes and dictionary as ``unify_dictionaries().combine_chunks()`` (first
    appearance over the blocks' dictionaries in order) but no intermediate copy."""
    blocks = values.chunks
    if not blocks:
        return np.zeros(0, dtype=np.int32), pa.array([], pa.string())
    dictionaries = [block.dictionary for block in blocks]
    if len(blocks) == 1:
        mapping, dictionary = None, dictionaries[0]
    else:
        unified = pc.dictionary_encode(pa.concat_arrays(dictionaries))
        mapping, dictionary = numpy_of(unified.indices), unified.dictionary
    codes = np.empty(len(values), dtype=np.int32)
    row = entry = 0
    for block, block_dictionary in zip(blocks, dictionaries):
        indices, size = numpy_of(block.indices), len(block_dictionary)
        if block.null_count:
            raise ValueError("nulls in an id column")
        part = codes[row : row + len(block)]
        if mapping is None:
            part[:] = indices
        else:
            np.take(mapping[entry : entry + size], indices, out=part)
        row, entry = row + len(block), entry + size
    return codes, dictionary


def lookup(values: pa.Array, dictionary: pa.Array) -> np.ndarray:
    """Position of each of ``values`` in ``dictionary``, -1 where absent."""
    found = pc.index_in(values, value_set=dictionary)
    return numpy_of(found, fill=-1).astype(np.int64)


def lookup_unique(values: pa.Array, dictionary: pa.Array) -> np.ndarray:
    """:func:`lookup` of ``values`` that hold no value twice (a dictionary too): whichever
    of the two is the larger is probed into a hash table of the smaller, as building the
    table is what costs (a chunk's hundreds of thousands of doc ids against a qrels' tens of
    thousands: one tenth of the time). Nothing is kept between calls: a caller that needs
    the answer twice keeps it."""
    if len(dictionary) <= 2 * len(values):
        return lookup(values, dictionary)
    back = lookup(dictionary, values)  # position in values of each dictionary entry
    found = np.flatnonzero(back >= 0)
    out = np.full(len(values), -1, dtype=np.int64)
    out[back[found]] = found
    return out


class RunningCodes:
    """:func:`encode` of the chunks of one stream, against the dictionary of the ids seen
    so far: a run's chunks draw their docs from one pool (a citation corpus's papers), so
    after the first chunk nearly every id is found by probing a hash table of that pool
    (about 40% less time than coding each chunk afresh) and only the new ones are coded and
    appended. Each chunk's dictionary is then the pool so far: every code of the chunk
    indexes it, some of its entries belong to earlier chunks only.

    A pool that holds more ids than a quarter of a chunk's rows (a corpus of hundreds of
    thousands of papers) is too large to probe cheaply, and one hash table of a chunk's
    every distinct id leaves the cache: such a chunk is coded a slice of whole queries at a
    time (:func:`query_slices`, about ``SLICE_ROWS`` rows), each slice's codes offset past
    the dictionaries of the slices before it. Its dictionary is those dictionaries one
    after the other, so it may list an id more than once (for queries of different slices):
    a code stands for one id, and within a query one id has one code, which is all that a
    duplicate check, a rank order or a join with the qrels (id to id) asks of it. Measured
    on W1P's chunks (2**18 rows, ~146,000 distinct docs of a pool of 200,000): coding and
    joining with the qrels' docs 0.34-0.37 s for the run where one code per chunk took
    0.59-0.79 s."""

    SLICE_ROWS = 1 << 14  # 8K-64K measured: 16K the fastest, the slice's table in cache

    def __init__(self) -> None:
        self.pool: pa.Array | None = None

    def encode(
        self, values: pa.ChunkedArray | pa.Array, query: np.ndarray
    ) -> tuple[np.ndarray, pa.Array]:
        """Codes of ``values`` (strings, no nulls) and the dictionary they index;
        ``query``: each row's query code (rows grouped by query)."""
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        if values.type != pa.string() and not pa.types.is_dictionary(values.type):
            values = values.cast(pa.string())
        pool = self.pool
        if pool is None or pa.types.is_dictionary(values.type):
            codes, self.pool = encode(values)
            return codes, self.pool
        if 4 * len(pool) > len(values):
            return _encode_slices(values, query_slices(query, self.SLICE_ROWS))
        codes = lookup(values, pool).astype(np.int32)
        new = np.flatnonzero(codes < 0)
        if new.size:
            new_codes, new_ids = encode(take(values, new))
            codes[new] = new_codes + len(pool)
            self.pool = pa.concat_arrays([pool, new_ids])
        return codes, self.pool


def _encode_slices(values: pa.Array, bounds: list[int]) -> tuple[np.ndarray, pa.Array]:
    """:func:`encode` of each slice ``bounds[i]:bounds[i + 1]`` of ``values``, the codes of
    a slice offset past the dictionaries of the slices before it (see
    :class:`RunningCodes`)."""
    codes = np.empty(len(values), dtype=np.int32)
    dictionaries, offset = [], 0
    for start, end in zip(bounds[:-1], bounds[1:]):
        part, dictionary = encode(values.slice(start, end - start))
        np.add(part, offset, out=codes[start:end])
        dictionaries.append(dictionary)
        offset += len(dictionary)
    return codes, dictionaries[0] if len(dictionaries) == 1 else pa.concat_arrays(dictionaries)


def query_slices(query: np.ndarray, rows: int) -> list[int]:
    """Bounds of slices of about ``rows`` rows of ``query`` (codes grouped by query), each
    cut where a query starts: ``[0, ..., len(query)]``."""
    starts = segment_starts(query)[1:]
    if not len(starts):
        return [0, len(query)]
    wanted = np.arange(rows, len(query), rows)
    cuts = starts[np.minimum(np.searchsorted(starts, wanted), len(starts) - 1)]
    cuts = cuts[run_starts(cuts)]  # ascending: one of each (np.unique imports numpy.ma)
    return [0, *cuts.tolist(), len(query)]


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Which rows start a new run of equal consecutive values (of all ``keys`` together)."""
    out = np.ones(len(keys[0]), dtype=bool)
    if len(out):
        out[1:] = keys[0][1:] != keys[0][:-1]
        for key in keys[1:]:
            out[1:] |= key[1:] != key[:-1]
    return out


def segment_starts(*keys: np.ndarray) -> np.ndarray:
    """Start positions of the runs of equal consecutive values in ``keys``."""
    return np.flatnonzero(run_starts(*keys))


def position_in_segment(*keys: np.ndarray) -> np.ndarray:
    """0-based position of each row within its run of equal consecutive ``keys``."""
    starts = np.flatnonzero(run_starts(*keys))
    sizes = np.diff(np.append(starts, len(keys[0])))
    return np.arange(len(keys[0])) - np.repeat(starts, sizes)


def _pair_keys(query: np.ndarray, doc: np.ndarray, ndocs: int) -> np.ndarray:
    """One integer per (query, doc) pair: 32 bits when they suffice (a faster sort)."""
    ndocs = max(ndocs, 1)
    fits = (int(query.max(initial=0)) + 1) * ndocs < 2**31
    dtype = np.int32 if fits else np.int64
    return query.astype(dtype) * dtype(ndocs) + doc.astype(dtype, copy=False)


_SLICE_ROWS = 1 << 12  # rows of whole queries sorted at a time: they stay in cache
_FEW_LENGTHS = 8  # queries of at most this many lengths: each length sorted as a matrix


def has_repeated_pairs(query: np.ndarray, doc: np.ndarray, ndocs: int) -> bool:
    """Whether any (query, doc) pair occurs twice, the cheap check every run gets before
    any repeat is looked for: a sort of one integer key per row.

    A repeat is within a query, so rows grouped by query (as a run file is, and every
    streamed chunk) need no sort across queries: when their queries have a few lengths
    (a run cut at a depth: one), the doc codes of the queries of each length are sorted as
    the rows of one matrix (one call, ten times faster than one sort of a million keys);
    otherwise a slice of whole queries at a time, each small enough to stay in cache
    (three times faster)."""
    if len(query) > 2 * _SLICE_ROWS and not (query[1:] < query[:-1]).any():
        starts = segment_starts(query)
        sizes = np.diff(np.append(starts, len(query)))
        lengths = np.sort(sizes)
        lengths = lengths[run_starts(lengths)]
        if len(lengths) <= _FEW_LENGTHS:
            return _repeated_by_length(doc, starts, sizes, lengths)
        return _repeated_in_slices(query, doc, ndocs)
    keys = _pair_keys(query, doc, ndocs)
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


def _repeated_by_length(doc, starts, sizes, lengths) -> bool:
    """Whether a doc comes twice in one query, the queries (``starts``, ``sizes``) of each
    of their few ``lengths`` sorted as the rows of a matrix."""
    for length in lengths.tolist():
        if length < 2:
            continue
        if len(lengths) == 1:  # every query this long: the codes are the matrix
            matrix = doc.reshape(-1, length)
        else:
            first = starts[sizes == length]
            matrix = doc[first[:, None] + np.arange(length)]
        matrix = np.sort(matrix, axis=1)
        if (matrix[:, 1:] == matrix[:, :-1]).any():
            return True
    return False


def _repeated_in_slices(query: np.ndarray, doc: np.ndarray, ndocs: int) -> bool:
    """:func:`has_repeated_pairs` of rows grouped by query, whose query codes never
    decrease: slices of about ``_SLICE_ROWS`` rows cut where a query starts."""
    bounds = query_slices(query, _SLICE_ROWS)
    for start, end in zip(bounds[:-1], bounds[1:]):
        if end - start > 1:
            part = query[start:end]
            keys = _pair_keys(part - part[0], doc[start:end], ndocs)
            keys.sort()
            if (keys[1:] == keys[:-1]).any():
                return True
    return False


def first_rows(group: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Per group ``0 .. n-1``, the first of ``rows`` (ascending positions) that belongs to it
    (``group[row]``); -1 for a group with none."""
    out = np.full(n, -1, dtype=np.int64)
    out[group[rows[::-1]]] = rows[::-1]  # assigned in reverse: the first row of each wins
    return out


def first_copies(query: np.ndarray, doc: np.ndarray, ndocs: int) -> np.ndarray:
    """Which rows hold the first occurrence (in row order) of their (query, doc) pair.

    A stable sort of one integer key per row puts repeats next to each other, first
    occurrence first: far faster than hashing millions of pairs.
    """
    keys = _pair_keys(query, doc, ndocs)
    order = np.argsort(keys, kind="stable")
    out = np.zeros(len(keys), dtype=bool)
    out[order[run_starts(keys[order])]] = True
    return out


class _Table:
    """Shared by :class:`Run` and :class:`Qrels`: codes, dictionaries and views."""

    query: np.ndarray
    query_ids: pa.Array
    doc: np.ndarray
    doc_ids: pa.Array
    source: str
    _VALUE: str

    def __len__(self) -> int:
        return len(self.query)

    def __repr__(self) -> str:
        """One line in scipy's style, as the result objects' (``Run(source='bm25.trec',
        queries=163, rows=48900)``): what it holds and where it came from, not its arrays."""
        from ..printing.printable import file_name, short_repr

        facts = {
            "source": file_name(self.source),
            "queries": self._query_count(),
            "rows": len(self),
        }
        return short_repr(type(self).__name__, facts)

    def _query_count(self) -> int:
        """The queries that have rows (a table cut from another keeps its whole dictionary)."""
        return int(np.count_nonzero(np.bincount(self.query, minlength=len(self.query_ids))))

    def values(self) -> np.ndarray:
        return getattr(self, self._VALUE)

    def query_strings(self) -> pa.Array:
        """The query id of every row (an Arrow array)."""
        return take(self.query_ids, self.query)

    def doc_strings(self) -> pa.Array:
        return take(self.doc_ids, self.doc)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """``query_id, doc_id, <value>`` as a pandas DataFrame (built on first use)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query_id": pd.array(self.query_strings(), dtype="str"),
                "doc_id": pd.array(self.doc_strings(), dtype="str"),
                self._VALUE: self.values(),
            }
        )

    def _nested_dict(self) -> dict[str, dict[str, Any]]:
        """``{query_id: {doc_id: value}}``, grouped with numpy (a float score or an int label)."""
        out: dict[str, dict[str, Any]] = {}
        if not len(self):
            return out
        order = np.argsort(self.query, kind="stable")
        codes = self.query[order]
        starts = segment_starts(codes).tolist()
        ends = starts[1:] + [len(order)]
        docs = take(self.doc_ids, self.doc[order]).to_pylist()
        values = self.values()[order].tolist()
        queries = self.query_ids.to_pylist()
        for start, end in zip(starts, ends):
            out[queries[codes[start]]] = dict(zip(docs[start:end], values[start:end]))
        return out


@dataclass(eq=False, repr=False)
class Run(_Table):
    """A run: one scored row per (query, doc) unless duplicates were kept on purpose,
    in input order. ``source`` names where it came from (a path or ``"<DataFrame>"``) for
    messages; ``warnings`` counts what reading it ignored or altered; ``unique`` is true
    once a duplicate check found every (query, doc) listed once, so that a later one (a
    cross-check drops the copies of a run read with all of them) need not sort again.

    ``doc_ids`` may list an id more than once (a streamed chunk of a large pool, coded a
    slice of whole queries at a time: :class:`RunningCodes`): within a query one id has
    one code, and an id is found by looking ``doc_ids`` up (``lookup(run.doc_ids, ...)``),
    never by looking an id up in ``doc_ids``."""

    query: np.ndarray
    query_ids: pa.Array
    doc: np.ndarray
    doc_ids: pa.Array
    score: np.ndarray
    source: str = "<run>"
    warnings: list[EvalWarning] = field(default_factory=list)
    unique: bool = False
    _VALUE = "score"

    @classmethod
    def from_columns(cls, query, doc, score, source: str = "<run>", warnings=None) -> Run:
        query_codes, query_ids = encode(query)
        doc_codes, doc_ids = encode(doc)
        scores = np.asarray(score, dtype=np.float64)
        return cls(query_codes, query_ids, doc_codes, doc_ids, scores, source, list(warnings or []))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<run>", warnings=None) -> Run:
        return cls.from_columns(
            frame["query_id"].astype(str).to_numpy(dtype=object),
            frame["doc_id"].astype(str).to_numpy(dtype=object),
            frame["score"].to_numpy(dtype=np.float64),
            source,
            warnings,
        )

    def take(self, rows: np.ndarray, **changes) -> Run:
        """The rows at ``rows`` (same dictionaries); ``changes`` replace other fields."""
        out = Run(
            self.query[rows],
            self.query_ids,
            self.doc[rows],
            self.doc_ids,
            self.score[rows],
            self.source,
            list(self.warnings),
        )
        for name, value in changes.items():
            setattr(out, name, value)
        return out

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}``, the form pytrec_eval and ir-measures take."""
        return self._nested_dict()

    def ranked_queries(self) -> tuple[np.ndarray, np.ndarray]:
        """Codes of the queries that have rows (first-appearance order) and how many rows
        each has."""
        sizes = np.bincount(self.query, minlength=len(self.query_ids))
        present = np.flatnonzero(sizes > 0)
        return present, sizes[present]

    @property
    def num_queries(self) -> int:
        """Number of queries that have at least one row."""
        return len(self.ranked_queries()[0])

    def rank_in_query(self) -> np.ndarray:
        """1-based position of each row within its query's block of consecutive rows
        (its rank, once the run is ranked)."""
        return position_in_segment(self.query) + 1


@dataclass(eq=False, repr=False)
class Qrels(_Table):
    """Relevance judgements: one integer label per (query, doc), in input order.

    ``unjudged_queries`` are queries known to exist with no judged doc at all (an empty
    inner dict in a ``{qid: {}}`` qrels); they count, like queries with only label-0 rows,
    and come after the judged ones in ``all_query_ids``. ``warnings`` counts what reading
    it skipped (comment lines). Its dictionaries list each id once (:meth:`from_columns`,
    as every reader builds it): a run's docs are found in it by id (``lookup(run.doc_ids,
    qrels.doc_ids)``), whatever the run's dictionary.
    """

    query: np.ndarray
    query_ids: pa.Array
    doc: np.ndarray
    doc_ids: pa.Array
    relevance: np.ndarray
    source: str = "<qrels>"
    unjudged_queries: tuple[str, ...] = ()
    warnings: list[EvalWarning] = field(default_factory=list)
    _VALUE = "relevance"

    @classmethod
    def from_columns(
        cls, query, doc, relevance, source: str = "<qrels>", unjudged: tuple[str, ...] = ()
    ) -> Qrels:
        query_codes, query_ids = encode(query)
        doc_codes, doc_ids = encode(doc)
        labels = np.asarray(relevance, dtype=np.int64)
        known = set(query_ids.to_pylist()) if unjudged else set()
        extra = tuple(dict.fromkeys(q for q in unjudged if q not in known))
        return cls(query_codes, query_ids, doc_codes, doc_ids, labels, source, extra)

    @cached_property
    def all_query_ids(self) -> pa.Array:
        """Every query of the qrels: the judged ones (first-appearance order), then the
        unjudged ones."""
        if not self.unjudged_queries:
            return self.query_ids
        return pa.concat_arrays([self.query_ids, pa.array(self.unjudged_queries, pa.string())])

    @property
    def query_id_list(self) -> list[str]:
        return self.all_query_ids.to_pylist()

    def _query_count(self) -> int:
        """The judged queries, then the unjudged ones (as :attr:`all_query_ids` lists them)."""
        return super()._query_count() + len(self.unjudged_queries)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: relevance}}``, unjudged queries as empty dicts."""
        out = self._nested_dict()
        for query in self.unjudged_queries:
            out.setdefault(query, {})
        return out

    def relevant_per_query(self, min_relevance: int = 1) -> np.ndarray:
        """Number of docs with a label >= ``min_relevance``, per query of ``all_query_ids``."""
        hits = self.relevance >= min_relevance
        return np.bincount(self.query[hits], minlength=len(self.all_query_ids))

    def relevant_counts(self, min_relevance: int = 1) -> pd.Series:
        """:meth:`relevant_per_query` as a Series indexed by query id."""
        import pandas as pd

        return pd.Series(self.relevant_per_query(min_relevance), index=pd.Index(self.query_id_list))
