"""Facets of a dataset's queries, and the popularity of papers in its training split.

A facet puts each query of a dataset in one group, from a field the dataset has:

- ``year``: the citing paper's year (the query's ``year`` field);
- ``heading``: the section the citation stands in (ArSyTa's ``heading`` field);
- ``gold``: how many gold papers the query has (its qrels rows with a label above 0);
- ``venue``: the citing paper's ACL Anthology series, from the letter of its id
  (``citing_id``: ``P15-1001`` is ACL, ``N``: NAACL, ``D``: EMNLP, ...);
- ``venue-year``: the series with the year of the id (``ACL 2015``);
- ``popularity``: how often the query's gold paper is cited in the dataset's *training*
  split (its qrels rows with a label above 0 there; with several gold papers, the most
  cited), in quantile bins of the queries' counts (``tail`` / ``torso`` / ``head``
  by default).

A query without the field (no year, a non-ACL id) is in the group ``unknown``, so the groups
always cover every query and their means weighted by their sizes give the overall mean.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np
import pandas as pd

from ..base.choices import FACETS as FACET_NAMES
from ..base.choices import MAX_BINS
from ..base.errors import InputError
from ..base.options import whole_number

FACETS: dict[str, str] = {
    "year": "citing year (the query's year field)",
    "heading": "section heading of the citation (ArSyTa's heading field)",
    "gold": "number of gold papers (qrels rows with a label above 0)",
    "venue": "ACL Anthology series of the citing paper (the letter of citing_id)",
    "venue-year": "ACL Anthology series and year of the citing paper (citing_id)",
    "popularity": "training-split citation count of the gold paper (the most cited one), "
    "in quantile bins",
}
"""The facets a breakdown can group by, and the field each comes from."""
assert tuple(FACETS) == FACET_NAMES, "choices.FACETS lists the facets, in this order"

UNKNOWN = "unknown"
"""The group of queries that lack the facet's field."""

ACL_SERIES = {
    "A": "ANLP",
    "C": "COLING",
    "D": "EMNLP",
    "E": "EACL",
    "H": "HLT",
    "I": "IJCNLP",
    "J": "CL",
    "K": "CoNLL",
    "L": "LREC",
    "N": "NAACL",
    "P": "ACL",
    "Q": "TACL",
    "S": "SemEval/*SEM",
    "W": "workshops",
}
"""The ACL Anthology's one-letter series prefixes (old-style ids such as ``P15-1001``)."""

_ACL_ID = re.compile(r"^([A-Z])(\d{2})-\d{4}$")

BIN_NAMES = {2: ("tail", "head"), 3: ("tail", "torso", "head")}
"""Names of the popularity bins, least cited first (other counts: ``Q1`` ... ``Qn``)."""


def training_split(dataset_id: str) -> str | None:
    """The id of the training split beside ``dataset_id`` (``citeval/acl-200/train`` for
    ``citeval/acl-200/test``, ``.../train/core`` for MasterSet's ``.../test/core``), if it is
    registered, has qrels and its files are here; ``None`` otherwise."""
    from ..datasets.registry import find_dataset

    parts = dataset_id.split("/")
    for position in range(len(parts) - 1, 0, -1):
        if parts[position] in ("test", "val", "validation", "dev"):
            candidate = "/".join([*parts[:position], "train", *parts[position + 1 :]])
            try:
                found = find_dataset(candidate)
            except InputError:
                return None
            if found is not None and found[1].has_qrels() and _files_here(parts):
                return candidate
            return None
    return None


def _files_here(parts: list[str]) -> bool:
    """Whether a citeval corpus's files are all on this machine (nothing is downloaded for
    a summary nobody asked for); ``True`` for another package's dataset."""
    from ..datasets.importing import corpus_named
    from ..datasets.sources import corpus_file

    if parts[0] != "citeval":
        return True
    try:
        source = corpus_named(parts[1])
    except InputError:
        return True
    return all(corpus_file(source, name, fetch=False) is not None for name in source.file_names())


@functools.lru_cache(maxsize=8)
def citation_counts(train_id: str) -> pd.Series:
    """How often each paper is a gold paper in the training split ``train_id`` (by doc id)."""
    from ..reading.io import read_qrels

    frame = read_qrels(train_id).frame
    gold = frame[frame["relevance"] > 0]
    return gold["doc_id"].value_counts().rename("citations")


def gold_popularity(qrels_frame: pd.DataFrame, counts: pd.Series) -> pd.Series:
    """Per query, the training-split citation count of its most cited gold paper (0 for
    a paper the training split never cites; queries without gold left out)."""
    gold = qrels_frame[qrels_frame["relevance"] > 0]
    cited = counts.reindex(gold["doc_id"]).fillna(0).to_numpy()
    return pd.Series(cited, index=gold["query_id"].to_numpy()).groupby(level=0, sort=False).max()


def checked_bins(bins) -> int:
    """``bins`` as the number of popularity bins, 2 to :data:`~citeval_irm.base.choices.
    MAX_BINS` (each a group of queries, tested and printed); else an error naming the
    bounds. Called by whatever takes the option, before its work."""
    return whole_number("popularity bins", bins, 2, MAX_BINS)


def popularity_bins(values: pd.Series, bins: int = 3) -> tuple[pd.Series, list[str]]:
    """Each value's quantile bin, least popular first, and the bins' labels with their
    ranges. Edges are the queries' quantiles at 1/bins, 2/bins, ...; equal counts share a
    bin, so a bin can be empty (and is then not shown)."""
    bins = checked_bins(bins)
    names = BIN_NAMES.get(bins, tuple(f"Q{i + 1}" for i in range(bins)))
    data = values.to_numpy(dtype=float)
    edges = np.quantile(data, np.arange(1, bins) / bins) if len(data) else np.zeros(bins - 1)
    code = np.searchsorted(edges, data, side="left")  # value <= edge: that bin or lower
    labels = []
    for i, name in enumerate(names):
        inside = data[code == i]
        span = f"{int(inside.min())}-{int(inside.max())}" if len(inside) else "none"
        labels.append(f"{name} ({span} citations)")
    return pd.Series(np.asarray(labels, dtype=object)[code], index=values.index), labels


def query_groups(dataset, facet: str, qrels_frame: pd.DataFrame, bins: int = 3) -> pd.Series:
    """The group of every query of ``dataset`` (an id or ``(name, dataset)``) under
    ``facet``, as an ordered categorical indexed by query id (``unknown`` last)."""
    if facet not in FACETS:
        raise InputError(None, f"unknown facet {facet!r}; choose from {', '.join(FACETS)}")
    name, data = _dataset(dataset)
    queries = pd.DataFrame(data.queries_iter())
    queries = queries.set_index("query_id", drop=False)
    index = pd.Index(qrels_frame["query_id"].unique())
    if facet == "year":
        groups = _field(queries, "year", name, facet).reindex(index)
        groups = groups.map(lambda y: UNKNOWN if pd.isna(y) else str(int(y)))
        order = sorted(g for g in set(groups) if g != UNKNOWN)
    elif facet == "heading":
        groups = _field(queries, "heading", name, facet).reindex(index).fillna(UNKNOWN)
        groups = groups.map(lambda h: str(h).strip() or UNKNOWN)
        order = sorted(set(groups) - {UNKNOWN})
    elif facet == "gold":
        gold = qrels_frame[qrels_frame["relevance"] > 0].groupby("query_id").size()
        counts = gold.reindex(index).fillna(0).astype(int)
        groups = counts.map(str)
        order = [str(n) for n in sorted(set(counts))]
    elif facet in ("venue", "venue-year"):
        citing = _field(queries, "citing_id", name, facet).reindex(index)
        groups = citing.map(lambda c: _venue(c, facet == "venue-year"))
        if (groups == UNKNOWN).all():
            raise InputError(
                name, f"{facet}: no citing paper id carries an ACL series (e.g. P15-1001)"
            )
        order = sorted(set(groups) - {UNKNOWN})
    else:
        train = training_split(name)
        if train is None:
            raise InputError(name, "popularity: this dataset has no training split with qrels")
        popularity = gold_popularity(qrels_frame, citation_counts(train))
        binned, order = popularity_bins(popularity, bins)
        groups = binned.reindex(index).fillna(UNKNOWN)
    categories = [*order, UNKNOWN]
    return pd.Series(pd.Categorical(groups, categories=categories, ordered=True), index=index)


def _dataset(dataset) -> tuple[str, Any]:  # an ir_datasets dataset: untyped
    from ..reading.io import as_dataset

    found = as_dataset(dataset) if not isinstance(dataset, tuple) else dataset
    if found is None:
        raise InputError(None, f"{dataset!r} is not a dataset id")
    return found


def _field(queries: pd.DataFrame, column: str, name: str, facet: str) -> pd.Series:
    if column not in queries.columns:
        raise InputError(name, f"{facet}: its queries have no {column} field")
    return queries[column]


def _venue(citing, with_year: bool) -> str:
    """``ACL`` (or ``ACL 2015``) for ``P15-1001``; ``unknown`` for a non-ACL id."""
    match = _ACL_ID.match(str(citing)) if isinstance(citing, str) else None
    if match is None:
        return UNKNOWN
    letter, year = match.groups()
    series = ACL_SERIES.get(letter, f"{letter} (series)")
    if not with_year:
        return series
    century = 1900 if int(year) >= 60 else 2000
    return f"{series} {century + int(year)}"


def popularity_summary(
    runs: dict,
    results: dict,
    dataset_id: str,
    measure: str,
    *,
    ties: str = "trec_eval",
    bins: int = 3,
    depth: int = 10,
) -> pd.DataFrame | None:
    """How much each run leans on popular papers, when the dataset has a training split
    (``None`` otherwise): per run, the share of its total ``measure`` that comes from the
    head bin's queries (beside the head's share of the queries: equal means no lean), and
    the mean training-split citation count of its top-``depth`` docs beside that of the
    gold papers. ``runs``: name -> the run (``None`` when only its evaluation is at hand:
    no top-``depth`` figure)."""
    from ..reading.io import read_qrels, read_run
    from ..reading.ties import rank_run

    train = training_split(dataset_id)
    if train is None:
        return None
    counts = citation_counts(train)
    qrels = read_qrels(dataset_id).frame
    binned, labels = popularity_bins(gold_popularity(qrels, counts), bins)
    head = labels[-1]
    gold = qrels.loc[qrels["relevance"] > 0, "doc_id"]
    rows = {}
    for name, result in results.items():
        values = result.per_query[measure]
        in_head = binned.reindex(values.index) == head
        total = float(values.sum())
        top = float("nan")
        if runs.get(name) is not None:
            ranked, _ = rank_run(read_run(runs[name], duplicates="keep_best"), ties)
            docs = ranked.frame["doc_id"][ranked.rank_in_query() <= depth]
            top = float(counts.reindex(docs).fillna(0).mean()) if len(docs) else float("nan")
        rows[name] = {
            "head_share": float(values[in_head].sum()) / total if total else float("nan"),
            "head_queries": float(in_head.mean()),
            f"top{depth}_citations": top,
            "gold_citations": float(counts.reindex(gold).fillna(0).mean()),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "run"
    frame.attrs.update({"training_split": train, "head": head, "measure": measure, "depth": depth})
    return frame


def popularity_lines(summary: pd.DataFrame) -> list[str]:
    """The popularity summary as lines for a terminal or Markdown."""
    attrs = summary.attrs
    depth = attrs["depth"]
    lines = [
        f"popularity ({attrs['training_split']} citation counts; head = {attrs['head']}): "
        f"{attrs['measure']} from head queries, and mean citations of the top {depth} vs the gold"
    ]
    for name, row in summary.iterrows():
        top = (
            "n/a"
            if pd.isna(row[f"top{depth}_citations"])
            else f"{row[f'top{depth}_citations']:.1f}"
        )
        lines.append(
            f"{name}: {row['head_share']:.0%} of its {attrs['measure']} from the head "
            f"({row['head_queries']:.0%} of the queries); top {depth}: {top} citations on "
            f"average, gold: {row['gold_citations']:.1f}"
        )
    return lines
