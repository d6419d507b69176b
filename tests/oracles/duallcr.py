"""Oracle for the ``duallcr`` recipe: DualLCR's evaluation script, transcribed.

Repository: https://github.com/zoranmedic/DualLCR
Paths: ``utils.py`` (``mrr``, ``recall``, ``ndcg``) and ``evaluate.py`` (``main``)
Commit: e0e96cd5cad68fdb8d55b2898d9abccb004d1e5c (HEAD read on this machine; both files
were last changed in 4956fee21da17bc1fcd5efc57ee98860037b7623, 2020-11-17)
Licence: MIT. The repository's LICENSE reads:

    MIT License

    Copyright (c) 2020 zoranmedic

    Permission is hereby granted, free of charge, to any person obtaining a copy
    of this software and associated documentation files (the "Software"), to deal
    in the Software without restriction, including without limitation the rights
    to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
    copies of the Software, and to permit persons to whom the Software is
    furnished to do so, subject to the following conditions:

    The above copyright notice and this permission notice shall be included in all
    copies or substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
    IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
    FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
    AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
    LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
    OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
    SOFTWARE.

What the script does (``evaluate.py``, ``main``):

- It loops over the *predictions* (``for cid in preds``): a context with no predictions is
  not averaged; nothing is read from the qrels.
- The gold paper is parsed from the context id: ``cid.split('_')[1]`` (the ``<cited>`` part
  of ``<citing>_<cited>_<n>``). One gold paper per context, whatever the qrels say.
- The list is sorted by score (``sorted(..., reverse=True)`` is stable: tied scores keep the
  order of the predictions file). The driver gets the list already ordered and gives the
  script strictly decreasing scores, so its sort keeps that order.
- ``rank = sorted_preds.index(gold) + 1``: the first copy of the gold paper; every doc above
  it counts, duplicates included.
- The citing paper is never removed.
- ``recall``, ``mrr`` and ``ndcg`` take the list of ranks and a cut-off: a rank counts when
  ``r <= k``; ``mrr`` is therefore MRR@k (``RR@10``), ``ndcg`` is ``1 / log2(r + 1)`` (one
  gold paper, so the ideal DCG is 1). The script prints k = 10 only.
- Each is a sum over the ranks divided by ``len(ranks)``: the mean over the predictions.

Raises (the driver lets them through):

- ``ValueError`` (``list.index``) when a context's gold paper is not in its list;
- ``IndexError`` when a context id has no ``_`` (``cid.split('_')[1]``);
- ``ZeroDivisionError`` when the run is empty (``len(ranks) == 0``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import log2

from . import Aggregate, Check, PerQuery, Qrels, Run

SCRIPT_CUTOFFS = {"R": (10,), "RR": (10,), "nDCG": (10,)}


# ---------------------------------------------------------------- utils.py, as written


def mrr(ranks, k):
    rec_ranks = [1.0 / r if r <= k else 0.0 for r in ranks]
    return sum(rec_ranks) / len(ranks)


def recall(ranks, k):
    return sum(r <= k for r in ranks) / len(ranks)


def ndcg(ranks, k):
    ndcg_per_query = sum(1 / log2(r + 1) for r in ranks if r <= k)
    return ndcg_per_query / len(ranks)


_FUNCTIONS = {"R": recall, "RR": mrr, "nDCG": ndcg}


# ---------------------------------------------------------------- evaluate.py, main


def ranks_of(preds: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, int]:
    """The loop of ``evaluate.py``'s ``main`` over one predictions file, keyed by context."""
    ranks = {}
    for cid in preds:
        sorted_preds = [  # paper ids sorted by recommendation score
            i[0] for i in sorted(preds[cid], key=lambda x: x[1], reverse=True)
        ]
        rank = sorted_preds.index(cid.split("_")[1]) + 1  # rank of correct recommendation
        ranks[cid] = rank
    return ranks


def score(
    run: Run,
    qrels: Qrels | None = None,
    query_papers: Mapping[str, str] | None = None,
    cutoffs: Mapping[str, Sequence[int]] | None = None,
) -> tuple[PerQuery, Aggregate]:
    """Score ``run`` as DualLCR's ``evaluate.py`` does.

    ``qrels`` and ``query_papers`` are not read: the script takes the gold paper from the
    context id and never removes the citing paper. ``cutoffs``: ``{"R"|"RR"|"nDCG": [k]}``,
    default k = 10 for each (what the script prints).
    """
    cutoffs = SCRIPT_CUTOFFS if cutoffs is None else cutoffs
    # the predictions file: [paper id, score] pairs; strictly decreasing scores keep the
    # run's order through the script's (stable) sort
    preds = {cid: [(doc, -float(i)) for i, doc in enumerate(docs)] for cid, docs in run.items()}
    ranks = ranks_of(preds)
    names = [(f"{family}@{k}", _FUNCTIONS[family], k) for family, ks in cutoffs.items() for k in ks]
    per_query = {cid: {name: f([r], k) for name, f, k in names} for cid, r in ranks.items()}
    all_ranks = list(ranks.values())
    aggregate = {name: f(all_ranks, k) for name, f, k in names}
    return per_query, aggregate


# how tests/test_recipes_oracles.py compares the recipe with this script
CHECK = Check({"R": [1, 3], "RR": [10], "nDCG": [3]}, "R@1 R@3 RR nDCG@3", {"RR@10": "RR"})
