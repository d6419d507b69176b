"""The canonical run and qrels tables every other module reads.

A :class:`Run` is a DataFrame ``query_id, doc_id, score`` (ids as strings, scores finite
floats, at most one row per query and doc) whose row order is the input order; a
:class:`Qrels` is ``query_id, doc_id, relevance`` (integer labels). They are built once, by
:mod:`citeval_irm.io`, and the conversion to the dict-of-dicts that pytrec_eval wants
happens here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import EvalWarning

RUN_COLUMNS = ("query_id", "doc_id", "score")
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")


def _nested_dict(frame: pd.DataFrame, value_column: str) -> dict[str, dict[str, object]]:
    """``{query_id: {doc_id: value}}`` from a table, grouped with numpy (no per-row Python
    work beyond the final ``dict(zip(...))``)."""
    if frame.empty:
        return {}
    codes, uniques = pd.factorize(frame["query_id"], sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    docs = frame["doc_id"].to_numpy(dtype=object)[order]
    values = frame[value_column].to_numpy()[order].tolist()
    out: dict[str, dict[str, object]] = {}
    starts = np.concatenate(([0], bounds)).tolist()
    ends = np.concatenate((bounds, [len(order)])).tolist()
    for start, end in zip(starts, ends):
        query = uniques[codes[order[start]]]
        out[str(query)] = dict(zip(docs[start:end].tolist(), values[start:end]))
    return out


@dataclass
class Run:
    """A ranked run: one scored row per (query, doc), in input order.

    ``source`` names where it came from (a path or ``"<DataFrame>"``) for messages;
    ``warnings`` counts what reading it ignored or altered (e.g. dropped duplicates).
    """

    frame: pd.DataFrame
    source: str = "<run>"
    warnings: list[EvalWarning] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def query_ids(self) -> pd.Index:
        return pd.Index(self.frame["query_id"].unique())

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}``, the form pytrec_eval and ir-measures take."""
        return _nested_dict(self.frame, "score")


@dataclass
class Qrels:
    """Relevance judgements: one integer label per (query, doc).

    ``unjudged_queries`` are queries known to exist with no judged doc at all (an empty
    inner dict in a ``{qid: {}}`` qrels); they count, like queries with only label-0 rows.
    """

    frame: pd.DataFrame
    source: str = "<qrels>"
    unjudged_queries: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def query_ids(self) -> pd.Index:
        judged = self.frame["query_id"].unique().tolist()
        known = set(judged)
        return pd.Index(judged + [q for q in self.unjudged_queries if q not in known])

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: relevance}}``, unjudged queries as empty dicts."""
        out = _nested_dict(self.frame, "relevance")
        for query in self.unjudged_queries:
            out.setdefault(query, {})
        return out

    def relevant_counts(self, min_relevance: int = 1) -> pd.Series:
        """Number of docs with a label >= ``min_relevance`` per query (0 included)."""
        frame = self.frame
        hits = (frame["relevance"] >= min_relevance).groupby(frame["query_id"], sort=False)
        return hits.sum().astype(int).reindex(self.query_ids, fill_value=0)
