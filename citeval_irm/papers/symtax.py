"""SymTax (Goyal et al., Findings of ACL 2024): the evaluation of its repository, as a
recipe."""

from __future__ import annotations

from dataclasses import replace

from ..base.measures import parse_measures
from . import duallcr
from .recipes import Crash, Recipe

RECIPE = Recipe(
    name="symtax",
    reference="SymTax (Goyal et al., Findings of ACL 2024), per.py",
    description="One gold paper per context (its ref_id: the first listed relevant paper); "
    "every measure from the rank of its first copy, as DualLCR, except that a gold paper not "
    "in the list gets rank 100, so it is a hit for every K >= 100 (and a missing ranking "
    "too); averaged over the test set.",
    # DualLCR's rank rules, with the first listed gold paper and SymTax's rank 100
    quirks=replace(duallcr.RECIPE.quirks, gold="first_listed", unretrieved_rank=100),
    measures=tuple(parse_measures("R@5 R@10 R@20 R@50 nDCG@10 RR")),
    percent=True,
    queries="qrels",
    source="github.com/goyalkaraniit/SymTax per.py @ e3de5b2c9f0ee3275cc4556cf525ca985f1415cc "
    "(no licence stated)",
    rules=(
        "for idx in range(len(test_set)): refid = contexts[...]['ref_id']",
        "rank = 100 if refid not in reranked_candidate_ids else .index(refid) + 1",
        "mrr: 1/r if r <= k else 0; recall: r <= k; ndcg: 1/log2(r + 1) if r <= k",
    ),
    crashes=(Crash("no_gold", "IndexError", "the ref_id of a context without one"),),
)
