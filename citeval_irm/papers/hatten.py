"""HAtten (Gu et al. 2022, Local-Citation-Recommendation): its prefetch evaluation, as a
recipe."""

from __future__ import annotations

from ..base.measures import at_cutoffs, parse_measures
from .recipes import Crash, Quirks, Recipe

RECIPE = Recipe(
    name="hatten",
    reference="Gu et al. 2022, HAtten, Local-Citation-Recommendation src/prefetch/test.py",
    description="Prefetch recall: Recall@K = |set(positive_ids) & set(candidates[:K])| / "
    "|set(positive_ids)| for K in 10 ... 2000, the first copy of the citing paper removed "
    "from the candidates unless it is itself gold; averaged over the test set.",
    quirks=Quirks(
        tie_order=True,
        duplicates=(("R", "first_copy"),),
        query_paper="first_copy_unless_gold",
    ),
    measures=tuple(parse_measures(at_cutoffs("R", (10, 20, 50, 100, 200, 500, 1000, 2000)))),
    percent=True,
    queries="qrels",
    source="github.com/nianlonggu/Local-Citation-Recommendation src/prefetch/test.py @ "
    "e46cae55d8aca02a82cebaca6023dae42982bbf6 (no licence stated)",
    rules=(
        "if citing_id in candidates and citing_id not in set(positive_ids): "
        "candidates.remove(citing_id)",
        "hit_num = len(set(positive_ids) & set(candidates[:K])) / len(set(positive_ids))",
    ),
    crashes=(Crash("no_gold", "ZeroDivisionError", "hit_num / len(set(positive_ids)) of none"),),
)
