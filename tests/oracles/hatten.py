"""Oracle for the ``hatten`` recipe: HAtten's prefetch evaluation, transcribed.

Repository: https://github.com/nianlonggu/Local-Citation-Recommendation
Path: ``src/prefetch/test.py`` (the ``__main__`` block: candidate list, citing-paper removal,
Recall@K loop)
Commit: e46cae55d8aca02a82cebaca6023dae42982bbf6 (HEAD read on this machine; the file was
last changed in a64e17c38a3862514a98326be973dbd4a99d1b0d, 2022-11-09). SymTax's copy of the
file (goyalkaraniit/SymTax e3de5b2c9f0ee3275cc4556cf525ca985f1415cc) is identical.
Licence: no licence stated (no LICENSE file, none in the README); short excerpt transcribed
for testing interoperability.

What the script does:

- It loops over the *test set* (``for count, example in enumerate(tqdm(corpus))``): every
  test example is scored. Its candidates come from the ranker inside the loop; the driver
  reads them from the run, an empty list for a query missing from it.
- The gold papers are ``example["positive_ids"]`` of the test file: in the citeval form,
  the qrels' relevant docs.
- The citing paper is ``context_database[context_id]["citing_id"]`` (``query_papers``).
- ``candidates = ranker.get_top_n(max_K + 1, ...)`` with ``max_K`` the largest K asked for;
  then ``candidates.remove(citing_id)`` if the citing paper is in the list *and not gold*:
  ``list.remove`` drops the first copy only; then ``candidates[:max_K]``. So the removal
  comes before the truncation at ``max_K``, and a second copy of the citing paper stays.
- ``hit_num = len(set(positive_ids) & set(candidates[:K]))`` and ``hit_num /
  len(set(positive_ids))``: set intersection, so a doc listed twice counts once (and a gold
  paper listed twice in the qrels once); the copies still take places in the top K.
- Each Recall@K is ``np.mean`` over the test set (here ``sum / len``: numpy's pairwise sum
  can differ in the last bits). Precision@K and F@K are computed but only recall is printed
  and logged, so only ``R@K`` is returned.

Raises (the driver lets them through):

- ``ZeroDivisionError`` when a test query has no relevant doc (``len(set(positive_ids))``);
- ``KeyError`` when ``query_papers`` has no entry for a query (``context_database[...]``).

An empty test set gives NaN (``np.mean([])`` warns and returns NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from . import Aggregate, Check, PerQuery, Qrels, Run, relevant_in_qrels_order

SCRIPT_CUTOFFS = {"R": (10, 20, 50, 100, 200, 500, 1000, 2000)}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def score(
    run: Run,
    qrels: Qrels,
    query_papers: Mapping[str, str],
    cutoffs: Mapping[str, Sequence[int]] | None = None,
) -> tuple[PerQuery, Aggregate]:
    """Score ``run`` as HAtten's ``src/prefetch/test.py`` does.

    The test set is the qrels' queries, in qrels order; ``query_papers`` gives each one's
    citing paper. ``cutoffs``: ``{"R": [K, ...]}`` (the script's ``-K_list``), default
    10, 20, 50, 100, 200, 500, 1000, 2000.
    """
    K_list = list((SCRIPT_CUTOFFS if cutoffs is None else cutoffs)["R"])
    max_K = max(K_list)
    corpus = [
        {"context_id": q, "positive_ids": relevant_in_qrels_order(j)} for q, j in qrels.items()
    ]

    positive_ids_list = []
    candidates_list = []
    for example in corpus:
        context_id = example["context_id"]
        citing_id = query_papers[context_id]
        candidates = list(run.get(context_id, []))[: max_K + 1]  # ranker.get_top_n(max_K+1)

        if citing_id in candidates and citing_id not in set(example["positive_ids"]):
            candidates.remove(citing_id)
        candidates = candidates[:max_K]

        positive_ids_list.append(example["positive_ids"])
        candidates_list.append(candidates)

    per_query: PerQuery = {example["context_id"]: {} for example in corpus}
    aggregate: Aggregate = {}
    for K in K_list:
        recall_list = []
        for example, positive_ids, candidates in zip(corpus, positive_ids_list, candidates_list):
            hit_num = len(set(positive_ids) & set(candidates[:K]))
            recall_list.append(hit_num / len(set(positive_ids)))
            per_query[example["context_id"]][f"R@{K}"] = recall_list[-1]
        aggregate[f"R@{K}"] = _mean(recall_list)
    return per_query, aggregate


# how tests/test_recipes_oracles.py compares the recipe with this script
CHECK = Check({"R": [1, 2, 5]}, "R@1 R@2 R@5")
