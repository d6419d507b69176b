"""What a dataset allows before any system is run: ``citeval audit DATASET``.

Per split: its queries and relevant judgements, the gold papers the protocol makes
unreachable (the citing paper itself, a paper outside the candidate pool, a paper later than
the citing paper), the queries left without any reachable gold, and the **recall ceiling**
at each cut-off of the protocol: the mean over queries with gold of
``min(reachable, K) / gold``, the best recall@K any run can score. Over the whole corpus:
duplicate papers (the same normalised title under two ids), which split a paper's citations
between two ids.

A gold paper is counted under the first reason that applies, in the order above. Dates are
compared at the dataset's precision (month where its records have months, as ArSyTa's do),
with ``same_year`` deciding whether a paper of the citing paper's own year (month) is
reachable; a gold paper or query without a date is never counted as later.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..base.errors import ArgumentTypeError, InputError
from ..base.measures import Protocol
from ..base.options import boolean
from ..printing.escaping import plain_text
from ..printing.printable import Printable
from ..printing.text_tables import render

if TYPE_CHECKING:
    import pandas as pd

REASONS = ("self", "outside_pool", "later")
_EXAMPLES = 3


def normalised_title(title: str) -> str:
    """A title for duplicate detection: NFKC, case-folded, letters and digits only,
    single spaces."""
    text = unicodedata.normalize("NFKC", title).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def protocol_cutoffs(protocol: Protocol | None) -> tuple[int, ...]:
    """The cut-offs of a protocol's recall measures (of all its measures if it has none)."""
    return () if protocol is None else measure_cutoffs(protocol.measures)


def measure_cutoffs(measures) -> tuple[int, ...]:
    """The cut-offs of the recall measures among ``measures`` (of all of them if none is a
    recall measure)."""
    params = [(str(m).split("@")[0], m.params.get("cutoff")) for m in measures]
    recall = sorted({k for name, k in params if k and name in ("R", "Recall", "recall")})
    return tuple(recall or sorted({k for _, k in params if k}))


def recall_ceiling(
    reachable: Mapping[str, int], gold: Mapping[str, int], cutoffs: tuple[int, ...]
) -> dict[str, float]:
    """The best mean recall any run can score: over the queries with gold (``gold``: their
    number of gold papers), the mean of ``min(reachable, K) / gold`` at each cut-off K
    (``R@K``) and without one (``R``); ``reachable``: the gold papers of each query the
    protocol lets a run rank (missing: none). NaN without any query with gold."""
    ceiling = {}
    for k in (*cutoffs, None):
        values = [min(reachable.get(q, 0), k or n) / n for q, n in gold.items()]
        ceiling[f"R@{k}" if k else "R"] = sum(values) / len(values) if values else float("nan")
    return ceiling


def ceiling_line(ceiling: Mapping[str, float]) -> str | None:
    """``recall ceiling under this protocol: R@10 <= 96.42 %`` (cut-offs of equal ceilings
    joined), or ``None`` when every ceiling is 100 % (or none is known)."""
    shown = {k: v for k, v in ceiling.items() if k != "R" or len(ceiling) == 1}
    if not shown or all(not v < 1 for v in shown.values()):  # NaN: nothing to say
        return None
    groups: dict[str, list[str]] = defaultdict(list)
    for name, value in shown.items():
        groups[f"{100 * value:.2f} %"].append(name)
    parts = ", ".join(f"{', '.join(names)} <= {value}" for value, names in groups.items())
    return f"recall ceiling under this protocol (gold it makes unreachable): {parts}"


@dataclass
class SplitAudit:
    """The audit of one split. ``unreachable`` counts gold papers by reason (``None`` for a
    reason that cannot be judged: ``outside_pool`` without the papers); ``ceiling`` maps
    ``R@K`` (and ``R`` for no cut-off) to the best mean recall any run can reach."""

    split: str
    queries: int
    qrels: int
    unreachable: dict[str, int | None]
    queries_without_reachable_gold: int
    ceiling: dict[str, float]
    examples: dict[str, list[str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        lost = sum(v or 0 for v in self.unreachable.values())
        ceiling = ", ".join(f"{k}={v:.4f}" for k, v in self.ceiling.items())
        return (
            f"SplitAudit(split={self.split!r}, queries={self.queries}, qrels={self.qrels}, "
            f"unreachable_gold={lost}, queries_without_reachable_gold="
            f"{self.queries_without_reachable_gold}, ceiling={{{ceiling}}})"
        )


@dataclass(repr=False)
class DatasetAudit(Printable):
    """The audit of a dataset: one :class:`SplitAudit` per split, and the duplicate papers
    of the corpus (``None`` when its papers were not read). Prints in one line;
    :meth:`to_frame` has one row per split, ``format("table")`` the full report."""

    dataset: str
    protocol: str | None
    splits: list[SplitAudit]
    duplicates: list[tuple[str, ...]] | None
    same_year: bool

    FORMATS = ("table", "json")

    def __getitem__(self, split: str) -> SplitAudit:
        for audit in self.splits:
            if audit.split == split:
                return audit
        raise KeyError(split)

    def __repr__(self) -> str:
        parts = ", ".join(repr(s) for s in self.splits)
        dups = "None" if self.duplicates is None else len(self.duplicates)
        return f"DatasetAudit(dataset={self.dataset!r}, duplicate_titles={dups}, splits=[{parts}])"

    __str__ = __repr__

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "protocol": self.protocol,
            "same_year": self.same_year,
            "duplicate_titles": self.duplicates and [list(d) for d in self.duplicates],
            "splits": [asdict(s) for s in self.splits],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per split: counts, unreachable gold by reason, the ceiling per cut-off."""
        import pandas as pd

        rows = []
        for s in self.splits:
            row = {"split": s.split, "queries": s.queries, "qrels": s.qrels}
            row.update({f"unreachable_{r}": s.unreachable.get(r) for r in REASONS})
            row["queries_without_reachable_gold"] = s.queries_without_reachable_gold
            row.update({f"ceiling_{k}": v for k, v in s.ceiling.items()})
            rows.append(row)
        return pd.DataFrame(rows).set_index("split")

    def _render(self, fmt: str, **options) -> str:
        keys = list(self.splits[0].ceiling) if self.splits else []
        header = ["split", "queries", "qrels", "self", "outside pool", "later", "no reachable"]
        rows = []
        for s in self.splits:
            lost = [
                "n/a" if s.unreachable.get(r) is None else f"{s.unreachable[r]:,}" for r in REASONS
            ]
            rows.append(
                [
                    s.split,
                    f"{s.queries:,}",
                    f"{s.qrels:,}",
                    *lost,
                    f"{s.queries_without_reachable_gold:,}",
                    *(f"{100 * s.ceiling[k]:.2f}%" for k in keys),
                ]
            )
        same = "admitted" if self.same_year else "not admitted"
        lines = [
            plain_text(
                f"audit of {self.dataset} under {self.protocol or 'no protocol'} (papers of the "
                f"citing paper's own year {same}): unreachable gold by reason, recall ceiling"
            ),
            render([*header, *(f"ceiling {k}" for k in keys)], rows, fmt).rstrip("\n"),
        ]
        if self.duplicates is None:
            lines.append("duplicate titles: not checked (the papers were not read)")
        else:  # paper ids are the corpus's text: escaped as every id a result prints
            shown = "; ".join(" = ".join(group) for group in self.duplicates[:_EXAMPLES])
            more = f" (e.g. {plain_text(shown)})" if shown else ""
            lines.append(f"duplicate titles: {len(self.duplicates):,} groups{more}")
        return "\n".join(lines) + "\n"


def _date_key(year, month, precision: str):
    if year is None or (precision == "month" and month is None):
        return None
    return (year, month or 0) if precision == "month" else (year, 0)


def audit_split(
    split: str,
    queries: Iterable[tuple],
    qrels: Iterable[tuple],
    *,
    paper_dates: dict[str, tuple] | None = None,
    pool: set[str] | None = None,
    cutoffs: tuple[int, ...] = (),
    same_year: bool = True,
) -> SplitAudit:
    """Audit one split from its rows. ``queries``: ``(query_id, citing_id, date)``, where
    ``date`` is a ``(year, month)`` key or ``None``; ``qrels``: ``(query_id, doc_id,
    relevance)``; ``paper_dates``: each paper's date key (a gold paper's date is read from
    its id's entry, ``None`` if unknown); ``pool``: the candidate papers (``None``: not
    judged)."""
    citing, dates = {}, {}
    for query_id, citing_id, date in queries:
        citing[query_id], dates[query_id] = citing_id, date
    gold = _gold_of(split, qrels, citing)
    lost = {r: 0 for r in REASONS}
    examples: dict[str, list[str]] = {r: [] for r in REASONS}
    reachable: dict[str, int] = {}
    for query_id, docs in gold.items():
        ok = 0
        for doc in docs:
            reason = _unreachable(
                doc, citing[query_id], dates[query_id], pool, paper_dates, same_year
            )
            if reason is None:
                ok += 1
            else:
                lost[reason] += 1
                if len(examples[reason]) < _EXAMPLES:
                    examples[reason].append(f"{query_id} -> {doc}")
        reachable[query_id] = ok
    ceiling = recall_ceiling(reachable, {q: len(d) for q, d in gold.items()}, cutoffs)
    unreachable: dict[str, int | None] = dict(lost)
    if pool is None:
        unreachable["outside_pool"] = None
    if paper_dates is None:
        unreachable["later"] = None
    return SplitAudit(
        split,
        len(citing),
        sum(len(docs) for docs in gold.values()),
        unreachable,
        sum(1 for q in gold if reachable[q] == 0),
        ceiling,
        {r: e for r, e in examples.items() if e},
    )


def _gold_of(split: str, qrels: Iterable[tuple], citing: Mapping[str, str]) -> dict[str, list[str]]:
    """Each query's gold papers (its qrels rows with a positive label, in their order); a
    qrels query that is not one of ``citing``'s queries is an error."""
    gold: dict[str, list[str]] = defaultdict(list)
    for query_id, doc_id, relevance in qrels:
        if relevance > 0:
            gold[query_id].append(doc_id)
    unknown = [q for q in gold if q not in citing]
    if unknown:
        raise InputError(
            split, f"{len(unknown)} qrels queries are not queries, e.g. {unknown[0]!r}"
        )
    return gold


def _unreachable(
    doc: str,
    citing_id: str,
    bound,
    pool: set[str] | None,
    paper_dates: Mapping[str, tuple] | None,
    same_year: bool,
) -> str | None:
    """Why a gold paper cannot be reached, the first reason of :data:`REASONS` that applies
    (``bound``: the citing paper's date key), or ``None``."""
    if doc == citing_id:
        return "self"
    if pool is not None and doc not in pool:
        return "outside_pool"
    if bound is not None and paper_dates is not None:
        date = paper_dates.get(doc)
        if date is not None and (date > bound or (not same_year and date == bound)):
            return "later"
    return None


def duplicate_titles(papers: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Groups of paper ids sharing a normalised, non-empty title, largest first."""
    by_title: dict[str, list[str]] = defaultdict(list)
    for doc_id, title in papers:
        key = normalised_title(title)
        if key:
            by_title[key].append(doc_id)
    groups = [tuple(ids) for ids in by_title.values() if len(ids) > 1]
    return sorted(groups, key=lambda g: (-len(g), g))


def _splits_of(dataset_id: str) -> list[str]:
    """The ids with queries under ``dataset_id`` (itself if it has none below it); the
    ``/in-pool`` readings of MasterSet are left out (their gold is the kept reading's)."""
    from ..datasets.registry import dataset_ids, find_dataset, unknown_dataset

    prefix = dataset_id + "/"
    own = [i for i in dataset_ids() if i.startswith(prefix) and not i.endswith("/in-pool")]
    if not own and find_dataset(dataset_id) is None:  # not even a family's: a path, ""
        raise unknown_dataset(dataset_id)  # (an unknown id of a family: find_dataset's)
    return own or [dataset_id]


def audit(
    dataset: str, *, protocol: str | Protocol | None = None, same_year: bool = True
) -> DatasetAudit:
    """Audit what a dataset allows under a protocol before any run is made.

    Gold papers no admissible ranking can reach cap every system's recall; the audit gives
    that ceiling, so a low number is read against what is possible.

    Parameters
    ----------
    dataset : str
        An ir_datasets id of citeval: a split (``"citeval/demo/test"``) or a corpus (each of
        its splits).
    protocol : str or Protocol, optional
        Whose cut-offs the recall ceiling is given at (a name of ``citeval protocols`` or a
        :class:`Protocol`), as ``R@K`` beside ``R``; without one, the ceiling of ``R`` only
        (no verb assumes a paper; ``citeval audit`` takes ``goyal2026`` unless told).
    same_year : bool, default True
        Whether a paper of the citing paper's own year (month) is reachable.

    Returns
    -------
    DatasetAudit
        Per split: the queries, the unreachable gold and the recall ceiling at each cut-off.
        The corpus's papers are read once (dates, titles), then each split's queries and
        qrels.

    Examples
    --------
    >>> import citeval_irm
    >>> audit = citeval_irm.audit("citeval/demo/test", protocol="goyal2026")
    >>> print(audit.format())  # doctest: +SKIP
    """
    import ir_datasets

    from ..papers import get_protocol

    if not isinstance(dataset, str):
        raise ArgumentTypeError(
            None,
            "dataset: expected a dataset id (such as 'citeval/demo/test'), not "
            f"{type(dataset).__name__}",
        )
    same_year = boolean("same_year", same_year)
    proto = None if protocol is None else get_protocol(protocol)
    cutoffs = protocol_cutoffs(proto)
    splits = _splits_of(dataset)
    corpus = ir_datasets.load(splits[0])
    month = "month" in corpus.docs_cls()._fields
    precision = "month" if month else "year"
    paper_dates, titles, pool = {}, [], set()
    for doc in corpus.docs_iter():
        pool.add(doc.doc_id)
        paper_dates[doc.doc_id] = _date_key(doc.year, getattr(doc, "month", None), precision)
        titles.append((doc.doc_id, doc.title))
    results = []
    for split_id in splits:
        data = ir_datasets.load(split_id)
        if not data.has_queries():
            continue
        queries = (
            (q.query_id, q.citing_id, _date_key(q.year, getattr(q, "month", None), precision))
            for q in data.queries_iter()
        )
        qrels = ((r.query_id, r.doc_id, r.relevance) for r in data.qrels_iter())
        split = split_id[len(dataset) + 1 :] if split_id != dataset else split_id.rsplit("/", 1)[-1]
        results.append(
            audit_split(
                split,
                queries,
                qrels,
                paper_dates=paper_dates,
                pool=pool,
                cutoffs=cutoffs,
                same_year=same_year,
            )
        )
    return DatasetAudit(
        dataset, proto.name if proto else None, results, duplicate_titles(titles), same_year
    )
