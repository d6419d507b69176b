"""What identifies a set of judgements, so that a result can tell the qrels it was made on.

:func:`qrels_fingerprint` is the number of rows and a 64-bit sum of one hash per (query,
doc, label) row (and per query known only as an empty one): the same judgements give the
same fingerprint whatever their form (a file, gzip, Parquet, a frame, a dict) and row order,
and another label, doc or query gives another. It is computed with numpy over the columnar
qrels (each distinct id hashed once from the bytes of its text), in the time of a pass over
the rows; it identifies, it does not protect against a forgery.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_MULTIPLIER = np.uint64(0x100000001B3)  # FNV's 64-bit prime: the weight of a byte position


def qrels_fingerprint(qrels) -> str:
    """``"<rows>-<16 hex digits>"`` for a :class:`~citeval_irm.reading.tables.Qrels`."""
    id_hashes = []
    for texts in (qrels.query_ids, qrels.doc_ids):
        # the offsets (from 0) and the bytes of an Arrow string array, read from its buffers
        # (pyarrow's own conversions import pandas)
        offsets, data = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
        if len(texts):
            wide = texts.type in (pa.large_string(), pa.large_binary())
            _, offsets_buffer, data_buffer = texts.buffers()
            offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)
            offsets = offsets[texts.offset : texts.offset + len(texts) + 1].astype(np.int64)
            if data_buffer is not None:
                data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
            offsets = offsets - offsets[0]
        id_hashes.append(_text_hashes(offsets, data))
    queries, docs = id_hashes
    encoded = list(map(str.encode, qrels.unjudged_queries))  # UTF-8
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    unjudged = _text_hashes(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))
    with np.errstate(over="ignore"):
        rows = _mix(
            _mix(queries[np.asarray(qrels.query)] ^ np.uint64(1))
            + _mix(docs[np.asarray(qrels.doc)] ^ np.uint64(2)) * np.uint64(0x9E3779B97F4A7C15)
            + np.asarray(qrels.relevance).astype(np.uint64)
        )
        empty = _mix(unjudged ^ np.uint64(3))
        total = (rows.sum(dtype=np.uint64) + empty.sum(dtype=np.uint64)).item()
    return f"{len(rows) + len(empty)}-{total:016x}"


def _text_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """One 64-bit hash per string (``offsets`` into ``data``, from 0): the sum of its bytes
    weighted by powers of :data:`_MULTIPLIER` by position, mixed with its length."""
    lengths = np.diff(offsets)
    starts = offsets[:-1]
    hashes = np.zeros(len(lengths), dtype=np.uint64)
    filled = lengths > 0
    if filled.any():
        with np.errstate(over="ignore"):
            powers = np.cumprod(np.full(int(lengths.max()), _MULTIPLIER, dtype=np.uint64))
            position = np.arange(len(data)) - np.repeat(starts, lengths)
            weighted = data.astype(np.uint64) * powers[position]
            hashes[filled] = np.add.reduceat(weighted, starts[filled])
    with np.errstate(over="ignore"):
        return _mix(hashes ^ (lengths.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9)))


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every input bit reaches every output bit."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
