"""DualLCR (Medić and Šnajder, 2020): the evaluation of its repository, the convention of
ACL-200, RefSeer and ArSyTa results before 2026, as a recipe."""

from __future__ import annotations

from ..base.measures import parse_measures
from .recipes import Crash, Quirks, Recipe

RECIPE = Recipe(
    name="duallcr",
    reference="DualLCR (Medić and Šnajder, 2020), evaluate.py; the convention of ACL-200, "
    "RefSeer and ArSyTa results before 2026",
    description="One gold paper per context, parsed from its id (<citing>_<cited>_<n>); every "
    "measure from the rank of its first copy: MRR@10 (1/r if r <= 10), Recall@K (r <= K), "
    "nDCG@K (1/log2(r + 1) if r <= K); averaged over the predictions (every run query). The "
    "script stops (ValueError) when the gold paper is not in the list: the recipe scores it 0.",
    quirks=Quirks(
        tie_order=True,
        duplicates=tuple((family, "first_copy") for family in ("RR", "R", "nDCG")),
        gold="context_id",
        binary_gains=True,
        rr_cutoff=10,
    ),
    measures=tuple(parse_measures("R@10 RR nDCG@10")),
    percent=True,
    queries="run",
    source="github.com/zoranmedic/DualLCR evaluate.py, utils.py @ "
    "e0e96cd5cad68fdb8d55b2898d9abccb004d1e5c (MIT)",
    rules=(
        "for cid in preds: rank = sorted_preds.index(cid.split('_')[1]) + 1",
        "mrr: 1/r if r <= k else 0; recall: r <= k; ndcg: 1/log2(r + 1) if r <= k; / len(ranks)",
    ),
    crashes=(
        Crash("gold_not_retrieved", "ValueError", "sorted_preds.index(gold) of a missing paper"),
        Crash("no_context_id", "IndexError", "cid.split('_')[1] of an id without '_'"),
    ),
)
