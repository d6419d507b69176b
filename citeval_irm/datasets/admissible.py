"""Which candidates a system may rank for each query, as data.

The 2026 protocol forbids recommending a paper published after the query's citing paper, and
HAtten never lets the citing paper recommend itself. Whether a paper of the *same* year is
allowed is a choice papers make differently (343 of ACL-200's 9,585 test contexts cite one),
so it is an explicit, required argument here.

Dates are compared by year, or by year and month (``precision="month"``) where the data has
months (arXiv ids give them: ArSyTa, arXiv). At month precision ``same_year`` reads "same
month", and a paper with a year but no month has an unknown date.

Per query this gives a date bound and a predicate, the admissible doc ids (or a boolean array
over all docs, for rankers), and a vectorised mask over (query, doc) pairs for checking or
filtering a whole run. Only doc ids and dates are kept (numpy arrays, about 30 MB for arXiv's
1.66 million papers), never the corpus.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..base.choices import DATE_PRECISIONS, UNKNOWN_YEAR_POLICIES, check_choice
from ..base.errors import EvalWarning, InputError, examples_of
from .records import RecordClass
from .years import PaperDate

_NO_YEAR = -1


def _date_key(year: int | None, month: int | None, precision: str) -> int:
    """One integer per period (year, or month counted from year 0); -1 if unknown."""
    if year is None:
        return _NO_YEAR
    if precision == "year":
        return year
    return _NO_YEAR if month is None else year * 12 + month - 1


class AdmissibleCandidates:
    """The admissible candidates of every query of a dataset.

    A doc is admissible for a query when it is not the query's citing paper and, if the
    query has a date, the doc's date is earlier (or, with ``same_year=True``, no later).
    Docs without a date follow ``unknown_year`` (``"admit"`` or ``"exclude"``); a query
    without a date has no temporal bound. Both cases are counted in :attr:`warnings`.

    ``docs`` are ``(doc_id, year)`` and ``queries`` ``(query_id, citing_id, year)``; with
    ``precision="month"`` each ends with the month too: ``(doc_id, year, month)``,
    ``(query_id, citing_id, year, month)``.
    """

    def __init__(
        self,
        docs: Iterable[tuple],
        queries: Iterable[tuple],
        *,
        same_year: bool,
        unknown_year: str = "admit",
        source: str = "<dataset>",
        precision: str = "year",
    ):
        if not isinstance(same_year, bool):
            raise InputError(None, "same_year must be True or False (an explicit choice)")
        check_choice("unknown_year", unknown_year, UNKNOWN_YEAR_POLICIES)
        check_choice("precision", precision, DATE_PRECISIONS)
        self.same_year = same_year
        self.unknown_year = unknown_year
        self.source = source
        self.precision = precision
        monthly = precision == "month"
        doc_ids, doc_years = [], []
        for doc_id, year, *month in docs:
            doc_ids.append(doc_id)
            doc_years.append(_date_key(year, month[0] if monthly else None, precision))
        ids = np.array([d.encode("utf-8") for d in doc_ids], dtype=bytes)
        order = np.argsort(ids, kind="stable")
        self._ids = ids[order]  # sorted, for searchsorted look-ups
        self._years = np.asarray(doc_years, dtype=np.int32)[order]
        if len(self._ids) > 1 and (self._ids[1:] == self._ids[:-1]).any():
            repeated = self._ids[1:][self._ids[1:] == self._ids[:-1]]
            raise InputError(source, f"doc id {repeated[0].decode()!r} occurs more than once")
        columns = ["query_id", "citing_id", "year", *(["month"] if monthly else [])]
        self.queries = pd.DataFrame(list(queries), columns=columns)
        if self.queries["query_id"].duplicated().any():
            repeated = self.queries["query_id"][self.queries["query_id"].duplicated()].iloc[0]
            raise InputError(source, f"query id {repeated!r} occurs more than once")
        self.queries["year"] = pd.array(self.queries["year"], dtype="Int32")
        if monthly:
            self.queries["month"] = pd.array(self.queries["month"], dtype="Int32")
        months = self.queries["month"] if monthly else self.queries["year"]  # unused by "year"
        keys = pd.array(
            [
                _date_key(None if pd.isna(y) else int(y), None if pd.isna(m) else int(m), precision)
                for y, m in zip(self.queries["year"], months)
            ],
            dtype="Int64",
        )
        keys[keys == _NO_YEAR] = pd.NA
        self.queries["bound"] = keys if same_year else keys - 1  # the latest admissible key
        self.queries = self.queries.set_index("query_id", drop=False)
        self.warnings = self._count_unknown_years(doc_ids, doc_years)
        self._year_masks: dict[int, np.ndarray] = {}

    def _count_unknown_years(self, doc_ids: list[str], doc_years: list[int]) -> list:
        warnings = []
        date = "a year" if self.precision == "year" else "a year and month"
        undated_docs = [d for d, y in zip(doc_ids, doc_years) if y == _NO_YEAR]
        if undated_docs:
            warnings.append(
                EvalWarning(
                    "docs_without_year",
                    f"docs without {date} ("
                    + ("admitted" if self.unknown_year == "admit" else "excluded")
                    + " for every query)",
                    len(undated_docs),
                    examples_of(undated_docs),
                )
            )
        undated = self.queries["query_id"][self.queries["bound"].isna()]
        if len(undated):
            warnings.append(
                EvalWarning(
                    "queries_without_year",
                    f"queries without {date} (no temporal bound; only the citing paper excluded)",
                    len(undated),
                    examples_of(undated),
                )
            )
        return warnings

    def __len__(self) -> int:
        return len(self.queries)

    @property
    def doc_count(self) -> int:
        return len(self._ids)

    def _query(self, query_id: str) -> pd.Series:
        try:
            return self.queries.loc[query_id]
        except KeyError:
            raise InputError(self.source, f"unknown query {query_id!r}") from None

    def max_date(self, query_id: str) -> PaperDate | None:
        """The latest admissible publication date for ``query_id`` (``None``: no bound);
        with a month at month precision."""
        bound = self._query(query_id)["bound"]
        if pd.isna(bound):
            return None
        if self.precision == "year":
            return PaperDate(int(bound))
        year, month = divmod(int(bound), 12)
        return PaperDate(year, month + 1)

    def max_year(self, query_id: str) -> int | None:
        """The latest admissible publication year for ``query_id`` (``None``: no bound)."""
        date = self.max_date(query_id)
        return None if date is None else date.year

    def _year_ok(self, years: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        """Element-wise: doc years admissible under year bounds (-1 bound: none)."""
        unknown = years == _NO_YEAR
        ok = (bounds == _NO_YEAR) | (~unknown & (years <= bounds))
        if self.unknown_year == "admit":
            ok |= unknown
        return ok

    def doc_ids(self, query_id: str) -> list[str]:
        """Every admissible doc id for ``query_id``, in doc id order."""
        return [d.decode("utf-8") for d in self._ids[self.admissible_docs(query_id)]]

    def admissible_docs(self, query_id: str) -> np.ndarray:
        """Which docs are admissible for ``query_id``: a boolean array over every doc, in
        doc id order (a doc's place in it is :meth:`doc_positions`). The year part is
        computed once per year bound, so ranking many queries costs one copy each."""
        query = self._query(query_id)
        bound = _NO_YEAR if pd.isna(query["bound"]) else int(query["bound"])
        if bound not in self._year_masks:
            bounds = np.full(len(self._years), bound, dtype=np.int32)
            self._year_masks[bound] = self._year_ok(self._years, bounds)
        ok = self._year_masks[bound].copy()
        citing = self.doc_positions([query["citing_id"]])[0]
        if citing >= 0:
            ok[citing] = False
        return ok

    def pool_sizes(self) -> pd.Series:
        """How many docs are admissible for each query (by query id): one count per year
        bound, less the citing paper where it is admissible by year."""
        bounds = self.queries["bound"].to_numpy(dtype=np.int64, na_value=_NO_YEAR)
        unique, codes = np.unique(bounds, return_inverse=True)
        per_bound = np.array(
            [self._year_ok(self._years, np.full(len(self._years), b)).sum() for b in unique]
        )
        citing = self.doc_positions(self.queries["citing_id"].to_numpy())
        known = citing >= 0
        citing_ok = np.zeros(len(bounds), dtype=bool)
        citing_ok[known] = self._year_ok(self._years[citing[known]], bounds[known])
        return pd.Series(per_bound[codes] - citing_ok, index=self.queries.index)

    def doc_positions(self, doc_ids: Sequence[str]) -> np.ndarray:
        """Each doc id's place in doc id order (bytewise, as trec_eval compares ids); -1 for
        an id that is not a doc of the dataset."""
        where, known = self._locate(doc_ids)
        return np.where(known, where, -1)

    def _locate(self, doc_ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Each id's insertion point in the sorted ids and whether it is there; each
        distinct id is encoded and searched once (a run repeats its docs a lot)."""
        codes, uniques = pd.factorize(pd.Index(doc_ids, dtype=object))
        if not len(self._ids):
            return np.zeros(len(codes), dtype=np.intp), np.zeros(len(codes), dtype=bool)
        wanted = np.array([str(d).encode("utf-8") for d in uniques], dtype=bytes)
        where = np.searchsorted(self._ids, wanted)
        where[where >= len(self._ids)] = 0
        known = self._ids[where] == wanted
        return where[codes], known[codes]

    def is_admissible(self, query_id: str, doc_id: str) -> bool:
        """Whether ``doc_id`` may be ranked for ``query_id`` (unknown docs may not)."""
        return bool(self.mask([query_id], [doc_id])[0])

    def mask(self, query_ids: Sequence[str], doc_ids: Sequence[str]) -> np.ndarray:
        """Element-wise admissibility of (query, doc) pairs, e.g. a run's two columns.

        A doc id not in the corpus is not admissible; an unknown query id is an error.
        """
        query_ids = pd.Index(query_ids, dtype=object)
        rows = self.queries.index.get_indexer(query_ids)
        if (rows < 0).any():
            missing = query_ids[rows < 0]
            raise InputError(
                self.source,
                f"{len(missing)} query id(s) not in the dataset, e.g. {missing[0]!r}",
            )
        where, known = self._locate(doc_ids)
        if not len(self._ids):
            return known
        bounds = self.queries["bound"].to_numpy(dtype=np.int64, na_value=_NO_YEAR)[rows]
        ok = known & self._year_ok(self._years[where], bounds)
        citing = self.doc_positions(self.queries["citing_id"].to_numpy())[rows]
        return ok & (citing != where)


def _loaded(dataset, needs: str):
    """``(name, dataset)`` for a dataset or its id; it must have docs and/or queries."""
    import ir_datasets

    name = dataset if isinstance(dataset, str) else _dataset_name(dataset)
    if isinstance(dataset, str):
        dataset = ir_datasets.load(dataset)
    from .registry import missing_parts

    problem = missing_parts(name, dataset, tuple(needs.split()))
    if problem:
        raise InputError(name, problem)
    return name, dataset


def _require_fields(name: str, kind: str, cls: RecordClass, fields: tuple[str, ...]) -> None:
    missing = [f for f in fields if f not in cls._fields]
    if missing:
        raise InputError(name, f"its {kind} have no {', '.join(missing)} field")


def admissible_candidates(
    dataset, *, same_year: bool, unknown_year: str = "admit", precision: str = "year"
) -> AdmissibleCandidates:
    """The admissible candidates of every query of an ir_datasets dataset (or its id).

    The dataset's docs need ``doc_id`` and ``year``, its queries ``query_id``,
    ``citing_id`` and ``year`` (the citeval datasets have them), and both ``month`` for
    ``precision="month"`` (ArSyTa). ``same_year`` is required: ``True`` admits papers of
    the query paper's own year (month), ``False`` only earlier ones. Docs are read once,
    streamed (from the docstore once it is built).
    """
    name, dataset = _loaded(dataset, "docs queries")
    dated = ("year", "month") if precision == "month" else ("year",)
    _require_fields(name, "docs", dataset.docs_cls(), ("doc_id", *dated))
    _require_fields(name, "queries", dataset.queries_cls(), ("query_id", "citing_id", *dated))
    return AdmissibleCandidates(
        ((doc.doc_id, *(getattr(doc, f) for f in dated)) for doc in dataset.docs_iter()),
        (
            (q.query_id, q.citing_id, *(getattr(q, f) for f in dated))
            for q in dataset.queries_iter()
        ),
        same_year=same_year,
        unknown_year=unknown_year,
        source=name,
        precision=precision,
    )


def query_papers(dataset) -> dict[str, str]:
    """The query paper (``citing_id``) of every query of a dataset (or its id): what
    :func:`citeval_irm.crosscheck` needs as ``query_papers`` so that a recipe removes each
    query's own paper from its ranking."""
    name, dataset = _loaded(dataset, "queries")
    _require_fields(name, "queries", dataset.queries_cls(), ("query_id", "citing_id"))
    return {q.query_id: q.citing_id for q in dataset.queries_iter()}


def _dataset_name(dataset) -> str:
    dataset_id = getattr(dataset, "dataset_id", None)
    return dataset_id() if callable(dataset_id) else "<dataset>"
