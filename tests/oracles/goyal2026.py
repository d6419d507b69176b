"""Oracle for the ``goyal2026`` recipe: the scoring lines of the benchmark's description.

Source: Goyal et al. 2026, "Public Profile Matters", arXiv:2603.17361 (the arXiv listing
gives the paper's licence as CC BY-SA 4.0). No evaluation script of it was found in a public
repository. The four per-query lines below are the benchmark description's scoring recipe
as quoted in citeval-irm issue 10; they were not checked against the paper's text here.

Per query, with ``relevant_docs`` the relevant docs in qrels order and ``ranked_list`` the
ranking:

- ``rr``: the position of ``relevant_docs[0]`` only (the first listed gold paper, whatever
  other relevant paper ranks higher), its first copy (``.index``), 0.0 when it is not in
  the list (the ``if ... in ranked_list`` guard, so no crash), no cut-off;
- ``recall_k``: ``set(ranked_list[:K]) & set(relevant_docs)``: a doc listed twice counts
  once, but its copies take places in the top K; divided by ``len(relevant_docs)``;
- ``dcg``: a sum over ``ranked_list[:K]``: every copy of a relevant doc counts, so nDCG@K
  can exceed 1; binary gains;
- ``idcg``: ``min(len(relevant_docs), K)`` places of gain 1; nDCG@K = ``dcg / idcg``.

Nothing is said about removing the citing paper: it is not removed.

What the description does not say, and the driver assumes (flagged, not read from code):

- the loop is over the test set (the qrels queries), as the same first author's SymTax
  script (``per.py``) loops; a query missing from the run is scored on an empty list (all
  measures 0);
- the mean over those queries is the reported value.

Raises (the driver lets them through): ``IndexError`` when a query has no relevant doc
(``relevant_docs[0]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from . import Aggregate, Check, PerQuery, Qrels, Run, relevant_in_qrels_order

SCRIPT_CUTOFFS = {"R": (5, 10, 20, 50, 300), "nDCG": (5, 10, 20, 50, 300)}


# ---------------------------------------------------------------- the description's lines


def rr_of(ranked_list, relevant_docs):
    rr = 1.0 / (ranked_list.index(relevant_docs[0]) + 1) if relevant_docs[0] in ranked_list else 0.0
    return rr


def recall_at(ranked_list, relevant_docs, K):
    recall_k = len(set(ranked_list[:K]) & set(relevant_docs)) / len(relevant_docs)
    return recall_k


def ndcg_at(ranked_list, relevant_docs, K):
    dcg = sum(
        1.0 / math.log2(i + 2) for i, doc in enumerate(ranked_list[:K]) if doc in relevant_docs
    )
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant_docs), K)))
    return dcg / idcg


# ---------------------------------------------------------------- driver


def score(
    run: Run,
    qrels: Qrels,
    query_papers: Mapping[str, str] | None = None,
    cutoffs: Mapping[str, Sequence[int]] | None = None,
) -> tuple[PerQuery, Aggregate]:
    """Score ``run`` with the description's lines, averaged over the qrels queries.

    ``query_papers`` is not read. ``cutoffs``: ``{"R"|"nDCG": [K, ...]}``, default the
    goyal2026 protocol's 5, 10, 20, 50, 300; RR (no cut-off) is always computed.
    """
    cutoffs = SCRIPT_CUTOFFS if cutoffs is None else cutoffs
    per_query: PerQuery = {}
    for query_id, judged in qrels.items():
        relevant_docs = relevant_in_qrels_order(judged)
        ranked_list = list(run.get(query_id, []))
        row = {"RR": rr_of(ranked_list, relevant_docs)}
        for K in cutoffs.get("R", ()):
            row[f"R@{K}"] = recall_at(ranked_list, relevant_docs, K)
        for K in cutoffs.get("nDCG", ()):
            row[f"nDCG@{K}"] = ndcg_at(ranked_list, relevant_docs, K)
        per_query[query_id] = row
    names = next(iter(per_query.values())).keys() if per_query else ()
    aggregate = {name: sum(r[name] for r in per_query.values()) / len(per_query) for name in names}
    return per_query, aggregate


# how tests/test_recipes_oracles.py compares the recipe with this script
CHECK = Check({"R": [1, 3], "nDCG": [2, 5]}, "RR R@1 R@3 nDCG@2 nDCG@5")
