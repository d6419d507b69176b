"""BM25 baseline runs that obey the protocol, with bm25s.

:func:`bm25_run` indexes every doc of a dataset (``doc.default_text()``: title + abstract),
ranks it for every query (``query.default_text()``: the masked context, or title + abstract
for MasterSet) and returns a :class:`~citeval_irm.Run` with exactly ``k`` docs per query
(fewer only when fewer are admissible). The query's own (citing) paper is never ranked for
it, and by default (``temporal=True``) only the candidates of
:func:`~citeval_irm.datasets.admissible_candidates` are (nothing published after the query
paper, the year rule of :func:`~citeval_irm.validate`): a baseline that broke the protocol
would score higher than it may. Inadmissible docs are masked out of the full score vector
before the top ``k`` are taken, so no admissible doc is lost to a filter applied after
truncation.

Tokens: bm25s' tokenizer (lowercase, English stopwords) with the Snowball English stemmer
(PyStemmer), like the BM25 baselines of Pyserini and Terrier. Scores are bm25s' BM25
(``method="lucene"``: Lucene's formula, ``k1=1.5``, ``b=0.75``) as float32, written as
they are; docs with equal scores at the cut-off are chosen as trec_eval would order them (doc
id descending), so a truncated run ranks the same docs first as the full ranking would.

BM25 ties are common (short texts, equal term statistics) and kept: the scores are BM25's.
Each query's tied docs are listed in trec_eval's order (doc id descending), so trec_eval,
pytrec_eval, ir-measures' default provider, a paper's list-based script and citeval under
either tie policy rank them alike, and no later evaluation warns about them (a
``tied_scores`` warning is for ties a run lists otherwise). :func:`ties_note` says so once,
where the run is made (``citeval baseline bm25``, ``citeval demo``); how much any order of
the tied docs could move a measure is the cross-check's tie range (worst, best).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..base.errors import InputError, deprecated
from ..base.options import ExecutionOptions, boolean
from ..base.progress import bar, is_quiet
from ..reading.io import as_dataset, read_run
from ..reading.tables import Run
from .recipes import query_paper_of

DEFAULT_K = 300
BM25S_BARS = 100_000
"""From this many docs on, bm25s' own indexing bars are shown too (a minute or more)."""


class QueryInfo(NamedTuple):
    """What ranking needs of a query: its text, its own paper and its year."""

    query_id: str
    text: str
    paper: str
    year: int | None


class BM25Index:
    """A bm25s index of a corpus, docs in doc id order (bytewise, as trec_eval compares).

    Build it with :meth:`build` from ``(doc_id, text, year)`` triples, then :meth:`rank`.
    """

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, stemmer: str | None = "english"):
        with warnings.catch_warnings():  # bm25s imports tqdm.auto, which warns in a notebook
            warnings.filterwarnings("ignore", message="IProgress not found")  # without widgets
            import bm25s

        self._bm25s = bm25s
        self.k1, self.b, self.stemmer_language = k1, b, stemmer
        stem = None
        if stemmer is not None:
            import Stemmer

            stem = Stemmer.Stemmer(stemmer)
        self.tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=stem)
        self.retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
        self.doc_ids: np.ndarray = np.array([], dtype=object)
        self.doc_years: list[int | None] = []
        self._position: dict[str, int] = {}

    def build(
        self,
        docs: Iterable[tuple[str, str, int | None]],
        *,
        total: int | None = None,
        progress: bool | None = True,
        source: str = "<docs>",
    ) -> BM25Index:
        """Tokenize and index ``(doc_id, text, year)`` triples, streamed (the texts are not
        kept). A repeated doc id is an error."""
        ids: list[str] = []
        years: list[int | None] = []

        def texts() -> Iterator[str]:
            docs_bar = bar(
                docs, desc="BM25 index: tokenize", unit="doc", total=total, enabled=progress
            )
            for doc_id, text, year in docs_bar:
                ids.append(doc_id)
                years.append(year)
                yield text

        tokens = list(self.tokenizer.streaming_tokenize(texts()))
        if not ids:
            raise InputError(source, "has no docs to index")
        order = sorted(range(len(ids)), key=ids.__getitem__)  # str order = UTF-8 byte order
        self.doc_ids = np.array([ids[i] for i in order], dtype=object)
        self.doc_years = [years[i] for i in order]
        repeated = np.flatnonzero(self.doc_ids[1:] == self.doc_ids[:-1])
        if len(repeated):
            raise InputError(source, f"doc id {self.doc_ids[repeated[0]]!r} occurs more than once")
        self._position = {doc_id: n for n, doc_id in enumerate(self.doc_ids.tolist())}
        self.retriever.index(
            ([tokens[i] for i in order], self.tokenizer.get_vocab_dict()),
            show_progress=progress and not is_quiet() and len(ids) >= BM25S_BARS,
        )
        return self

    def __len__(self) -> int:
        return len(self.doc_ids)

    def scores(self, text: str) -> np.ndarray:
        """The BM25 score of every doc for ``text`` (float32, in doc id order)."""
        token_ids = self.tokenizer.tokenize([text], update_vocab=False, show_progress=False)[0]
        return self.retriever.get_scores_from_ids(token_ids)

    def rank(
        self,
        queries: Iterable[QueryInfo],
        k: int = DEFAULT_K,
        *,
        admissible=None,
        total: int | None = None,
        progress: bool | None = True,
    ) -> pd.DataFrame:
        """The top ``k`` docs of each query as a ``query_id, doc_id, score`` frame, best
        first. The query's own paper is never ranked; with ``admissible`` (an
        :class:`~citeval_irm.datasets.AdmissibleCandidates` over this index's docs) only
        its admissible docs are."""
        if k < 1:
            raise InputError(None, f"k must be at least 1, not {k}")
        if admissible is not None and not np.array_equal(
            admissible.doc_positions(self.doc_ids), np.arange(len(self))
        ):
            raise InputError(None, "the admissible candidates are not over this index's docs")
        query_ids, positions, values = [], [], []
        for query in bar(queries, desc="BM25 ranking", unit="query", total=total, enabled=progress):
            scores = self.scores(query.text)
            if admissible is not None:
                allowed = admissible.admissible_docs(query.query_id)
                scores[~allowed] = -np.inf
                available = int(allowed.sum())
            else:
                available = len(self)
                own = self._position.get(query.paper)
                if own is not None:
                    scores[own] = -np.inf
                    available -= 1
            top, top_scores = top_k(scores, min(k, available))
            query_ids.append(np.full(len(top), query.query_id, dtype=object))
            positions.append(top)
            values.append(top_scores)
        if not query_ids:
            raise InputError(None, "no queries to rank")
        return pd.DataFrame(
            {
                "query_id": np.concatenate(query_ids),
                "doc_id": self.doc_ids[np.concatenate(positions)],
                "score": np.concatenate(values).astype(np.float64),
            }
        )


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions and scores of the ``k`` highest finite scores, best first.

    Ties go to the higher position, i.e. the larger doc id, as trec_eval orders them, also
    at the cut-off. Only positive scores are partitioned unless fewer than ``k`` exist (then
    zero-score docs fill up), which keeps a query over a large corpus cheap.
    """
    if k <= 0:
        return np.array([], dtype=np.intp), np.array([], dtype=scores.dtype)
    pool = np.flatnonzero(scores > 0)
    if len(pool) < k:
        pool = np.flatnonzero(np.isfinite(scores))
    values = scores[pool]
    if len(pool) > k:
        threshold = np.partition(values, len(values) - k)[len(values) - k]
        above = np.flatnonzero(values > threshold)
        tied = np.flatnonzero(values == threshold)
        keep = np.concatenate((above, tied[len(tied) - (k - len(above)) :]))
        pool, values = pool[keep], values[keep]
    order = np.lexsort((-pool, -values))
    return pool[order], values[order]


def _doc_text(doc, fields: tuple[str, ...] | None) -> str:
    """The text indexed for a doc: its default text, or the chosen fields joined."""
    if fields is None:
        return doc.default_text()
    return " ".join(str(getattr(doc, f) or "") for f in fields)


def bm25_run(
    dataset: str | Any,  # or an ir_datasets dataset (the library ships no types)
    k: int = DEFAULT_K,
    *,
    temporal: bool = True,
    same_year: bool = True,
    unknown_year: str = "admit",
    k1: float = 1.5,
    b: float = 0.75,
    stemmer: str | None = "english",
    fields: tuple[str, ...] | None = None,
    execution: ExecutionOptions | None = None,
    progress: bool | None = None,
) -> Run:
    """A BM25 run over an ir_datasets dataset, ``k`` docs per query, obeying its protocol.

    A baseline that ranks papers the query paper could not have cited inflates every
    number; this one ranks only admissible candidates, and never the query's own paper
    (``citing_id``, else read off the query id).

    Parameters
    ----------
    dataset : str or ir_datasets dataset
        The dataset (or its id) whose docs are indexed and queries ranked.
    k : int, default 300
        Docs per query.
    temporal : bool, default True
        Rank only admissible candidates (published no later than the query paper), as in
        :func:`~citeval_irm.validate`; ``False`` ranks every paper.
    same_year : bool, default True
        Whether papers of the query paper's own year are admissible.
    unknown_year : {"admit", "exclude"}, default "admit"
        What happens to docs without a year.
    k1 : float, default 1.5
        BM25's k1.
    b : float, default 0.75
        BM25's b.
    stemmer : str or None, default "english"
        A Snowball language for PyStemmer, or ``None``.
    fields : tuple of str, optional
        The doc fields indexed (e.g. ``("title",)``, a weaker baseline to compare with).
        Default: ``doc.default_text()``, title + abstract.
    execution : ExecutionOptions, optional
        How the run is made; only ``progress`` applies here: progress bars on standard error
        (default: on a terminal, for work that takes more than a second), as everywhere.
    progress : bool, optional
        Deprecated: ``execution=ExecutionOptions(progress=...)``, the one way every verb
        takes it.

    Returns
    -------
    Run
        The ranked run, ready for :func:`citeval_irm.evaluate` or
        :func:`citeval_irm.write_run`.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> titles = citeval_irm.bm25_run("citeval/demo/test", fields=("title",))
    """
    from ..datasets import AdmissibleCandidates

    temporal, same_year = boolean("temporal", temporal), boolean("same_year", same_year)
    if progress is not None:
        deprecated("bm25_run(progress=...)", "bm25_run(execution=ExecutionOptions(progress=...))")
        execution = replace(execution or ExecutionOptions(), progress=progress)
    progress = (execution or ExecutionOptions()).progress
    name, data = _checked_dataset(dataset, temporal, fields)
    index = BM25Index(k1=k1, b=b, stemmer=stemmer).build(
        (
            (doc.doc_id, _doc_text(doc, fields), getattr(doc, "year", None))
            for doc in data.docs_iter()
        ),
        total=data.docs_count(),
        progress=progress,
        source=name,
    )
    queries = _queries_of(data)
    admissible = None
    if temporal:
        admissible = AdmissibleCandidates(
            zip(index.doc_ids.tolist(), index.doc_years),
            ((q.query_id, q.paper, q.year) for q in queries),
            same_year=same_year,
            unknown_year=unknown_year,
            source=name,
        )
    frame = index.rank(queries, k, admissible=admissible, progress=progress)
    warnings = list(admissible.warnings) if admissible is not None else []
    run = read_run(frame)
    run.source, run.warnings = f"bm25:{name}", warnings
    return run


def ties_note(run: Run) -> str | None:
    """The one line said where a BM25 run is made about its tied scores (``None``: none).

    Parameters
    ----------
    run : Run
        A run of :func:`bm25_run`.

    Returns
    -------
    str or None
        How many docs tie, that they are listed in trec_eval's order, and where their
        effect is measured; ``None`` without ties, or for a run that lists some otherwise
        (not one :func:`bm25_run` made: its evaluation's ``tied_scores`` warning says so).
    """
    from ..reading.ties import rank_order, tie_report

    report = tie_report(run, rank_order(run, "trec_eval"))
    if not report.tied_docs or report.contested_docs:
        return None
    return (
        f"{report.tied_docs:,} docs of {report.tied_queries:,} queries tie on their score, "
        "listed in trec_eval's order (doc id descending) so that tools agree on them; what "
        "their order could change: citeval crosscheck (worst, best)"
    )


def _checked_dataset(dataset, temporal: bool, fields: tuple[str, ...] | None):
    """The dataset's id and ir_datasets dataset, once it is known to have docs and queries,
    years where ``temporal`` needs them, and the doc ``fields`` asked for."""
    from ..datasets.registry import missing_parts

    found = as_dataset(dataset)
    if found is None:
        raise InputError(None, f"{dataset!r} is not an ir_datasets dataset or a registered id")
    data: Any  # an ir_datasets dataset (the library ships no types)
    name, data = found
    problem = missing_parts(name, data, ("docs", "queries"))
    if problem:
        raise InputError(name, problem)
    doc_fields = data.docs_cls()._fields
    query_fields = data.queries_cls()._fields
    if temporal and ("year" not in doc_fields or "year" not in query_fields):
        raise InputError(
            name,
            "its docs or queries have no year field, so the temporal protocol cannot be "
            "applied: rank every paper instead (not temporal)",
        )
    unknown = [f for f in fields or () if f not in doc_fields]
    if unknown or fields == ():
        raise InputError(name, f"fields must be among the docs' {', '.join(doc_fields)}")
    return name, data


def _queries_of(data) -> list[QueryInfo]:
    """Each query's text, paper (``citing_id``, else read off the query id) and year."""
    return [
        QueryInfo(
            query.query_id,
            query.default_text(),
            getattr(query, "citing_id", None) or query_paper_of(query.query_id),
            getattr(query, "year", None),
        )
        for query in data.queries_iter()
    ]
