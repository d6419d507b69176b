"""Goyal et al. 2026, "Public Profile Matters" (arXiv:2603.17361): the protocol of its
Tables 2-3 and the scoring lines of its description, as a recipe. Its published results
are shipped in ``citeval_irm/checks/published/goyal2026.csv``."""

from __future__ import annotations

from ..base.measures import Protocol, at_cutoffs, parse_measures
from .recipes import Crash, Quirks, Recipe

CUTOFFS = (5, 10, 20, 50, 300)

PROTOCOL = Protocol(
    name="goyal2026",
    title="Public Profile Matters",
    reference="Goyal et al. 2026, arXiv:2603.17361",
    measures=tuple(
        parse_measures(" ".join(("RR", at_cutoffs("R", CUTOFFS), at_cutoffs("nDCG", CUTOFFS))))
    ),
    percent=True,
    decimals=2,
    recipe="goyal2026",
    description="Local citation recommendation (ACL-200, FullTextPeerRead, RefSeer, arXiv): "
    "MRR, Recall@K and nDCG@K for K in 5, 10, 20, 50, 300, in percent with two decimals.",
)

RECIPE = Recipe(
    name="goyal2026",
    reference="Goyal et al. 2026, Public Profile Matters, arXiv:2603.17361 (evaluation code)",
    description="RR from relevant_docs[0] only (0 if absent, whatever other relevant paper "
    "ranks higher); Recall@K = |set(top-K) & relevant| / |relevant| (a doc counts once); nDCG@K "
    "sums binary gains over the list (every copy counts), IDCG over min(|relevant|, K) places; "
    "averaged over the test set (a missing ranking is an empty list).",
    quirks=Quirks(
        tie_order=True,
        duplicates=(("RR", "first_copy"), ("R", "first_copy"), ("nDCG", "every_copy")),
        first_listed_gold=True,
        binary_gains=True,
    ),
    measures=PROTOCOL.measures,
    percent=True,
    queries="qrels",
    source="the scoring lines of the benchmark's description (arXiv:2603.17361); no public "
    "script; the loop over the test set is assumed, as in the first author's SymTax per.py",
    rules=(
        "rr = 1 / (ranked_list.index(relevant_docs[0]) + 1) if relevant_docs[0] in ranked_list",
        "recall_k = len(set(ranked_list[:K]) & set(relevant_docs)) / len(relevant_docs)",
        "dcg = sum(1 / log2(i + 2) for i, doc in enumerate(ranked_list[:K]) if doc in relevant)",
        "idcg = sum(1 / log2(i + 2) for i in range(min(len(relevant_docs), K)))",
    ),
    crashes=(Crash("no_gold", "IndexError", "relevant_docs[0] of an empty gold list"),),
)
