"""Oracle for the ``symtax`` recipe: SymTax's evaluation loop (``per.py``), transcribed.

Repository: https://github.com/goyalkaraniit/SymTax
Paths: ``per.py`` (``mrr``, ``recall``, ``ndcg`` and the main evaluation loop); the order of
the candidates comes from ``citation_recommender.py`` (``Reranker_PER_v1.rerank``)
Commit: e3de5b2c9f0ee3275cc4556cf525ca985f1415cc (HEAD read on this machine; both files
were last changed in 49589561d899db8a333cdf8ca141cbed9608437f, 2024-05-26)
Licence: no licence stated (no LICENSE file, none in the README); short excerpt transcribed
for testing interoperability.

What the script does:

- It loops over the *test set* (``for idx in tqdm(range(len(test_set)))``): every test
  context is scored; its ranked list is computed inside the loop, so in the script it always
  exists. The driver loops over the qrels queries (the test set) and reads a query missing
  from the run as an empty list, which the script's own rule turns into rank 100.
- The gold paper is ``contexts[context_id]["ref_id"]``: one per context, from the context
  record. In the citeval form of these datasets the qrels hold exactly that paper; the
  driver takes the first listed relevant doc of the qrels.
- The candidates are sorted by the reranker score with a stable sort
  (``sorted(zip(candidate_list, score_list), key=lambda x: -x[1])``): tied scores keep the
  candidate order. ``enrich_300`` appends the references of the candidates after
  de-duplicating only the appended part (``unique_sort_by_frequency_with_tiebreaker``), so
  the list can hold a paper twice (up to 100 + 200 entries).
- ``rank = reranked_candidate_ids.index(refid) + 1``: the first copy; a gold paper not in
  the list gets rank 100 (``rank_list.append(100)``), whatever the length of the list, so
  it counts as a hit for every k >= 100 while a gold paper retrieved at rank 150 does not.
- The citing paper is never removed.
- ``recall``, ``mrr``, ``ndcg``: as DualLCR's (a rank counts when ``r <= k``; ``mrr`` is
  MRR@k); the script prints Recall@5, 10, 20, 50, NDCG@10 and MRR@10; the mean is over the
  test set (``/ len(ranks)``).

Raises (the driver lets them through):

- ``IndexError`` when a test query has no relevant doc in the qrels (the script always has
  a ``ref_id``; the driver cannot pick one);
- ``ZeroDivisionError`` when the test set is empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import log2

from . import Aggregate, Check, PerQuery, Qrels, Run, relevant_in_qrels_order

SCRIPT_CUTOFFS = {"R": (5, 10, 20, 50), "nDCG": (10,), "RR": (10,)}


# ---------------------------------------------------------------- per.py, as written


# Evaluation metrics
def mrr(ranks, k):
    rec_ranks = [1.0 / r if r <= k else 0.0 for r in ranks]
    return sum(rec_ranks) / len(ranks)


def recall(ranks, k):
    return sum(r <= k for r in ranks) / len(ranks)


def ndcg(ranks, k):
    return sum(1 / log2(r + 1) for r in ranks if r <= k) / len(ranks)


_FUNCTIONS = {"R": recall, "RR": mrr, "nDCG": ndcg}


def rank_of(refid: str, reranked_candidate_ids: Sequence[str]) -> int:
    """The body of ``per.py``'s loop that turns a ranked list into a rank."""
    # Update rank list
    if refid not in reranked_candidate_ids:
        return 100
    else:
        return reranked_candidate_ids.index(refid) + 1


def score(
    run: Run,
    qrels: Qrels,
    query_papers: Mapping[str, str] | None = None,
    cutoffs: Mapping[str, Sequence[int]] | None = None,
) -> tuple[PerQuery, Aggregate]:
    """Score ``run`` as SymTax's ``per.py`` does.

    The test set is the qrels' queries, in qrels order. ``query_papers`` is not read (the
    citing paper is never removed). ``cutoffs``: ``{"R"|"RR"|"nDCG": [k, ...]}``, default
    the ones the script prints.
    """
    cutoffs = SCRIPT_CUTOFFS if cutoffs is None else cutoffs
    test_set = list(qrels)
    rank_list = {}
    for idx in range(len(test_set)):
        context_id = test_set[idx]
        refid = relevant_in_qrels_order(qrels[context_id])[0]  # contexts[...]["ref_id"]
        reranked_candidate_ids = list(run.get(context_id, []))
        rank_list[context_id] = rank_of(refid, reranked_candidate_ids)
    names = [(f"{family}@{k}", _FUNCTIONS[family], k) for family, ks in cutoffs.items() for k in ks]
    per_query = {q: {name: f([r], k) for name, f, k in names} for q, r in rank_list.items()}
    ranks = list(rank_list.values())
    aggregate = {name: f(ranks, k) for name, f, k in names}
    return per_query, aggregate


# how tests/test_recipes_oracles.py compares the recipe with this script
CHECK = Check(
    {"R": [1, 3, 100], "RR": [10], "nDCG": [3]}, "R@1 R@3 R@100 RR nDCG@3", {"RR@10": "RR"}
)
