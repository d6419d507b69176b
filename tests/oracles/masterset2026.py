"""Oracle for the ``masterset2026`` recipe: the MasterSet group's metric code, transcribed.

The MasterSet paper (Ratul et al. 2026, arXiv:2604.17680) ships no evaluation script of its
own that could be read here; the same group's CiteRoute repository runs the MasterSet
baselines with "the masterset-benchmark baseline utils" and writes results in the same
format. Three of its files hold the metric code, and they do not all agree.

Repository: https://github.com/NIU-Graph-Intelligence/CiteRoute (read through the stored
index; the repository itself could not be fetched, so each file is named with the commit of
the version read)

- ``baselines/SciBERT/scibert_utils.py`` @ 4f99ed557cf0efb10df625184aaeea501899b521:
  ``average_precision``, ``recall_at_k``, ``precision_at_k``, ``hit_rate_at_k``,
  ``reciprocal_rank``, ``dcg_at_k``, ``ndcg_at_k``: the functions the driver uses;
- ``baselines/SciBERT/2-scibert-eval.py`` @ 4f99ed557cf0efb10df625184aaeea501899b521: the
  loop the driver follows (ground truth, self removal, per-query metrics, means);
- ``baselines/SPECTER/2-specter-pretrained-eval.py`` @
  9fcbe2c9c482b9c5254c371b2b053c2e867e32e0 and ``src/citeroute/metrics.py`` @
  c9f3bfe8b870bee5ffe6a276c1be9bf81a3c2d09: their Recall@k (and metrics.py's P@k) sum over
  the list instead of intersecting sets, transcribed below as ``specter_compute_recall``,
  ``citeroute_compute_recall_at_k`` and ``citeroute_compute_precision_at_k``;
- ``src/citeroute/pipeline.py`` @ c9f3bfe8b870bee5ffe6a276c1be9bf81a3c2d09 (``evaluate``)
  and the SPECTER script skip a query that has no ranking.

Licence: MIT, as the repository's README states ("Source code is licensed under the MIT
License."); the stored snapshot has no LICENSE file and names no copyright holder.

Where the files disagree, and the pick: a doc listed twice. ``scibert_utils.recall_at_k``
counts it once (``len(set(retrieved_ids[:k]) & set(ground_truth_ids))``), as the
benchmark's description does (``len(top_k & gold) / len(gold)``, ``top_k =
set(pred_list[:K])``); ``specter_compute_recall`` and ``citeroute_compute_recall_at_k``
count every copy (``sum(1 for p in ret[:k] if p in rel)``), so Recall@k can exceed 1. The
driver follows ``scibert_utils`` because it matches the benchmark's own description. (On
the FAISS lists these scripts score, no doc is listed twice, so their published numbers
agree.) Every other function agrees across the three files: MRR is the first retrieved gold
paper (any gold paper); MAP counts every copy (``num_hits`` grows per copy) over the whole
list and divides by ``len(gold)``; HR@k intersects ``set(retrieved[:k])``; DCG@k counts
every copy; the ideal DCG has ``min(|gold|, k)`` places (written ``list(gold) + [0] * k``
in two files and ``range(min(len(rel), k))`` in the third, equal because gold is a set).

What the loop (``2-scibert-eval.py``) does:

- Gold: a set per query and label type, from the references meeting the tier's threshold
  (``== 1.0``, ``>= 4.0``, ``>= 3.0``); the citeval qrels of a tier already hold those
  (``label > 0``). Gold outside the candidate pool is dropped (``relevant_sets[key] &=
  pool_ids``): pass ``pool`` to do the same, or qrels already restricted (the ``/in-pool``
  datasets).
- Only queries whose gold set is non-empty (after that) are in ``ground_truth``
  (``if relevant_sets[key]:``), and only those are scored: a query without gold is *not*
  averaged (the ``if not ground_truth_ids: return 0.0`` guards never fire in this loop).
  A query with gold but no ranking is skipped (``if qid not in retrieved_map: continue`` in
  the SPECTER script; ``[q for q in per_query if q in ground_truth]`` in CiteRoute's
  pipeline; the SciBERT script always has one).
- The ranking is the FAISS top ``max_k = max(EVAL_K_VALUES["recall"])`` (500): the driver
  cuts the run there, then removes the query paper (the query id itself) with
  ``[pid for pid in retrieved_paper_ids if pid != query_id]``: every copy, after the
  truncation, also when it is gold. MAP and MRR are computed over that cut list.
- Each measure is ``np.mean`` over the scored queries (here ``sum / len``), 0.0 when there
  are none (``if acc[...] else 0.0``). ``np.log2`` is ``math.log2`` here.

Nothing here raises on ordinary input: the guards cover empty gold, and ``reciprocal_rank``
returns 0.0 when no gold paper is retrieved.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from math import log2

from . import Aggregate, Check, PerQuery, Qrels, Run, relevant_in_qrels_order

# 2-scibert-eval.py
EVAL_K_VALUES = {
    "recall": [10, 50, 100, 500],
    "ndcg": [10, 20, 30, 50],
    "hr": [10, 20],
}
_FAMILIES = {"R": "recall", "nDCG": "ndcg", "Success": "hr"}


# ---------------------------------------------------------------- scibert_utils.py


def average_precision(retrieved_ids, ground_truth_ids):
    """Calculates Average Precision for a single query."""
    if not ground_truth_ids:
        return 0.0

    score = 0.0
    num_hits = 0.0
    for i, item_id in enumerate(retrieved_ids):
        if item_id in ground_truth_ids:
            num_hits += 1.0
            score += num_hits / (i + 1.0)

    return score / len(ground_truth_ids)


def recall_at_k(retrieved_ids, ground_truth_ids, k):
    """Calculates Recall@k for a single query."""
    num_retrieved = len(set(retrieved_ids[:k]) & set(ground_truth_ids))
    return num_retrieved / len(ground_truth_ids) if ground_truth_ids else 0.0


def precision_at_k(retrieved_ids, ground_truth_ids, k):
    """Calculates Precision@k for a single query."""
    num_retrieved = len(set(retrieved_ids[:k]) & set(ground_truth_ids))
    return num_retrieved / k if k > 0 else 0.0


def hit_rate_at_k(retrieved_ids, ground_truth_ids, k):
    """Calculates Hit Rate@k (whether at least one relevant item is in top-k)."""
    top_k = set(retrieved_ids[:k])
    return 1.0 if any(item in top_k for item in ground_truth_ids) else 0.0


def reciprocal_rank(retrieved_ids, ground_truth_ids):
    """Calculates Reciprocal Rank for a single query."""
    for i, item_id in enumerate(retrieved_ids):
        if item_id in ground_truth_ids:
            return 1.0 / (i + 1.0)
    return 0.0


def dcg_at_k(retrieved_ids, ground_truth_ids, k):
    """Calculates Discounted Cumulative Gain at k."""
    dcg = 0.0
    for i, item_id in enumerate(retrieved_ids[:k]):
        if item_id in ground_truth_ids:
            dcg += 1.0 / log2(i + 2)  # i+2 because index starts at 0
    return dcg


def ndcg_at_k(retrieved_ids, ground_truth_ids, k):
    """Calculates Normalized Discounted Cumulative Gain at k."""
    if not ground_truth_ids:
        return 0.0

    dcg = dcg_at_k(retrieved_ids, ground_truth_ids, k)

    # Ideal DCG: all relevant items at top positions
    ideal_retrieved = list(ground_truth_ids) + [0] * k
    idcg = dcg_at_k(ideal_retrieved, ground_truth_ids, k)

    return dcg / idcg if idcg > 0 else 0.0


# ------------------------------------------- the disagreeing Recall@k / P@k of the other files


def specter_compute_recall(rel, ret, k):
    """``compute_recall`` of baselines/SPECTER/2-specter-pretrained-eval.py."""
    if not rel:
        return 0.0
    return sum(1 for p in ret[:k] if p in rel) / len(rel)


def citeroute_compute_recall_at_k(relevant, retrieved, k):
    """``compute_recall_at_k`` of src/citeroute/metrics.py."""
    if not relevant:
        return 0.0
    hits = sum(1 for pid in retrieved[:k] if pid in relevant)
    return hits / len(relevant)


def citeroute_compute_precision_at_k(relevant, retrieved, k):
    """``compute_precision_at_k`` of src/citeroute/metrics.py: fraction of the top-k that is
    relevant (P@k)."""
    if k <= 0:
        return 0.0
    hits = sum(1 for pid in retrieved[:k] if pid in relevant)
    return hits / float(k)


# ---------------------------------------------------------------- 2-scibert-eval.py


def compute_all_metrics(retrieved_ids, ground_truth_ids, k_values=EVAL_K_VALUES):
    """Compute all metrics for a single query given retrieved list and ground truth set."""
    return {
        "map": average_precision(retrieved_ids, ground_truth_ids),
        "mrr": reciprocal_rank(retrieved_ids, ground_truth_ids),
        "recall": {k: recall_at_k(retrieved_ids, ground_truth_ids, k) for k in k_values["recall"]},
        "ndcg": {k: ndcg_at_k(retrieved_ids, ground_truth_ids, k) for k in k_values["ndcg"]},
        "hr": {k: hit_rate_at_k(retrieved_ids, ground_truth_ids, k) for k in k_values["hr"]},
    }


def _flat(metrics: dict) -> dict[str, float]:
    """One query's metrics under ir-measures names (MAP -> AP, MRR -> RR, HR -> Success)."""
    out = {"AP": metrics["map"], "RR": metrics["mrr"]}
    for family, key in _FAMILIES.items():
        out.update({f"{family}@{k}": v for k, v in metrics[key].items()})
    return out


def score(
    run: Run,
    qrels: Qrels,
    query_papers: Mapping[str, str] | None = None,
    cutoffs: Mapping[str, Sequence[int]] | None = None,
    *,
    pool: Collection[str] | None = None,
) -> tuple[PerQuery, Aggregate]:
    """Score ``run`` as the MasterSet baselines' ``2-scibert-eval.py`` does, for one tier.

    ``qrels``: the tier's judgements (relevant = label > 0). ``query_papers`` is not read:
    the script removes the query id itself. ``cutoffs``: ``{"R"|"nDCG"|"Success": [k, ...]}``
    (default the script's ``EVAL_K_VALUES``); the largest ``R`` cut-off is also the depth of
    the ranking (``max_k``). ``pool``: the candidate pool; gold outside it is dropped.
    """
    k_values = dict(EVAL_K_VALUES)
    if cutoffs is not None:
        k_values = {key: list(cutoffs.get(family, ())) for family, key in _FAMILIES.items()}

    ground_truth = {}
    pool_ids = None if pool is None else set(pool)
    for paper_id, judged in qrels.items():
        relevant = set(relevant_in_qrels_order(judged))
        if pool_ids is not None:
            relevant &= pool_ids
        if relevant:  # only add if there are relevant papers
            ground_truth[paper_id] = relevant

    max_k = max(k_values["recall"])
    per_query: PerQuery = {}
    for query_id in sorted(ground_truth):
        if query_id not in run:  # the SPECTER script and CiteRoute's pipeline
            continue
        retrieved_paper_ids = list(run[query_id])[:max_k]  # faiss_index.search(..., max_k)
        # Remove self from results
        retrieved_paper_ids = [pid for pid in retrieved_paper_ids if pid != query_id]
        metrics = compute_all_metrics(retrieved_paper_ids, ground_truth[query_id], k_values)
        per_query[query_id] = _flat(metrics)

    names = ["AP", "RR"] + [
        f"{family}@{k}" for family, key in _FAMILIES.items() for k in k_values[key]
    ]
    aggregate = {
        name: (sum(row[name] for row in per_query.values()) / len(per_query) if per_query else 0.0)
        for name in names
    }
    return per_query, aggregate


# how tests/test_recipes_oracles.py compares the recipe with this script
CHECK = Check(
    {"R": [2, 5], "nDCG": [3], "Success": [1]},
    "AP RR R@2 R@5 nDCG@3 Success@1",
    papers_are_queries=True,
    extra=("pool",),
)
