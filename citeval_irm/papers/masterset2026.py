"""Ratul et al. 2026, MasterSet (arXiv:2604.17680): its protocol, and the scoring of the
same group's baselines (CiteRoute), which write MasterSet results with the benchmark's
metric code, as a recipe."""

from __future__ import annotations

from ..base.measures import Protocol, at_cutoffs, parse_measures
from .recipes import MAX_RECALL_CUTOFF, Quirks, Recipe

PROTOCOL = Protocol(
    name="masterset2026",
    title="MasterSet",
    reference="Ratul et al. 2026, arXiv:2604.17680",
    measures=tuple(
        parse_measures(
            f"{at_cutoffs('R', (10, 50, 100, 500))} AP RR {at_cutoffs('nDCG', (10, 20, 30, 50))} "
            f"{at_cutoffs('Success', (10, 20))}"
        )
    ),
    percent=False,
    decimals=4,
    recipe="masterset2026",
    description="Must-cite retrieval from title and abstract: Recall@K (primary, K in 10, 50, "
    "100, 500), MAP, MRR, nDCG@K (10, 20, 30, 50) and HR@K (= Success@K, 10, 20), in [0, 1].",
)

RECIPE = Recipe(
    name="masterset2026",
    reference="Ratul et al. 2026, MasterSet, arXiv:2604.17680 (evaluation code)",
    description="The list is cut at the largest Recall cut-off (500), then every copy of the "
    "query paper is removed (also when gold); Recall@K, P@K, HR@K and MRR count a doc once "
    "(sets); MAP and nDCG@K sum over the list (every copy); binary gains; only queries with "
    "gold and a ranking are averaged; gold outside the candidate pool is dropped.",
    quirks=Quirks(
        tie_order=True,
        duplicates=(
            ("R", "first_copy"),
            ("P", "first_copy"),
            ("Success", "first_copy"),
            ("RR", "first_copy"),
            ("AP", "every_copy"),
            ("nDCG", "every_copy"),
        ),
        ranking_depth=MAX_RECALL_CUTOFF,
        query_paper="every_copy",
        gold_in_pool=True,
        binary_gains=True,
    ),
    measures=PROTOCOL.measures,
    percent=False,
    queries="gold_and_run",
    source="github.com/NIU-Graph-Intelligence/CiteRoute baselines/SciBERT/scibert_utils.py and "
    "2-scibert-eval.py @ 4f99ed557cf0efb10df625184aaeea501899b521 (MIT per its README); "
    "the SPECTER script @ 9fcbe2c9 and src/citeroute/metrics.py @ c9f3bfe8 count a doc listed "
    "twice in every copy for Recall@K: the SciBERT utils are taken, as they are the "
    "benchmark's stated formula",
    rules=(
        "retrieved = faiss top max(recall Ks); [pid for pid in retrieved if pid != query_id]",
        "recall_k = len(set(retrieved[:k]) & gold) / len(gold); hr_k = any(top_k & gold)",
        "map: num_hits += 1; score += num_hits / (i + 1) for every gold in the list; / len(gold)",
        "ndcg_k: dcg over retrieved[:k] (every copy), idcg over min(len(gold), k) places",
        "relevant_sets &= pool_ids; only queries with gold (and a ranking) are averaged",
    ),
)
