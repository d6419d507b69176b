"""The papers' own scoring recipes, quirks included.

Each benchmark paper ships a metric script, and those scripts do not always compute what
trec_eval computes. A :class:`Recipe` reproduces one of them as a set of :class:`Quirks`
(deviations from trec_eval semantics) applied by one list-based scorer,
:func:`score_ranking`. With every quirk switched off the scorer computes exactly what
trec_eval computes, which is what lets :mod:`citeval_irm.crosscheck` explain a difference by
switching the quirks off one at a time and watching which one moves the number.

The recipes score a ranked list in the order the run gives it (ties in the run's own order
unless told otherwise), as the papers' scripts consume their prediction lists.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace

from .errors import InputError
from .measures import PROTOCOLS, Measure, parse_measures

SUPPORTED = ("RR", "R", "P", "Success", "nDCG", "AP")


@dataclass(frozen=True)
class Quirks:
    """How a recipe departs from trec_eval; the defaults are trec_eval's semantics."""

    list_duplicates: bool = False  # a doc listed twice counts twice (Recall@K can exceed 1)
    list_order: bool = False  # tied scores in the run's own order, not doc id descending
    remove_query_paper: bool = False  # the citing / query paper is dropped from its ranking
    min_relevance: int = 1  # label a judged doc needs to count as gold
    single_gold: bool = False  # only the first listed gold paper counts at all
    first_listed_gold: bool = False  # RR from the first *listed* gold paper only
    binary_gains: bool = False  # nDCG gain 1 for every gold paper (trec_eval: gain = label)
    rr_cutoff: int | None = None  # reciprocal rank counts only at rank <= cutoff (MRR@10)
    unretrieved_rank: int | None = None  # a gold paper not retrieved is put at this rank

    def active(self) -> list[str]:
        """Names of the quirks that differ from trec_eval, in attribution order."""
        return [f.name for f in fields(self) if getattr(self, f.name) != f.default]


TREC_EVAL = Quirks()


@dataclass(frozen=True)
class Recipe:
    """A paper's metric script: its quirks, default measures and which queries it averages.

    ``skips_queries_without_gold``: the script indexes the gold list, so a query with no
    relevant paper (or no qrels at all) is not scored; otherwise such a query scores 0.
    Every recipe averages over the queries that have a ranking in the run, as the scripts
    loop over their prediction lists.
    """

    name: str
    reference: str
    description: str
    quirks: Quirks
    measures: tuple[Measure, ...]
    percent: bool
    skips_queries_without_gold: bool = True

    def __str__(self) -> str:
        return self.name


def _check_supported(measures: Iterable[Measure]) -> None:
    for measure in measures:
        extra = {k for k, v in measure.params.items() if k != "cutoff" and v is not None}
        if measure.NAME not in SUPPORTED or extra:
            raise InputError(
                None,
                f"the recipes compute {', '.join(SUPPORTED)} (with a cutoff where it applies); "
                f"{measure} is not one of them",
            )


def score_ranking(
    ranking: Sequence[str],
    judged: Sequence[tuple[str, int]],
    measures: Sequence[Measure],
    quirks: Quirks = TREC_EVAL,
    query_paper: str | None = None,
) -> dict[str, float]:
    """Score one ranked list the way a recipe with ``quirks`` does.

    ``ranking``: doc ids best first (duplicates kept: ``quirks.list_duplicates`` decides).
    ``judged``: ``(doc_id, label)`` in the order the qrels list them (the "first listed"
    gold is the first one here). With ``quirks=TREC_EVAL`` this equals trec_eval.
    """
    if quirks.remove_query_paper and query_paper is not None:
        ranking = [doc for doc in ranking if doc != query_paper]
    if not quirks.list_duplicates:
        ranking = list(dict.fromkeys(ranking))
    gold = [doc for doc, label in judged if label >= quirks.min_relevance]
    if quirks.single_gold:
        gold = gold[:1]
    labels = dict(judged)
    gain = {doc: 1.0 if quirks.binary_gains else float(labels[doc]) for doc in gold}
    hits = [(rank, doc) for rank, doc in enumerate(ranking, start=1) if doc in gain]
    if quirks.unretrieved_rank is not None:
        retrieved = {doc for _, doc in hits}
        hits += [(quirks.unretrieved_rank, doc) for doc in gold if doc not in retrieved]
        hits.sort(key=lambda hit: hit[0])
    return {str(m): _measure_value(m, hits, gold, gain, quirks) for m in measures}


def _measure_value(measure: Measure, hits, gold, gain, quirks: Quirks) -> float:
    if not gold:
        return 0.0
    name, cutoff = measure.NAME, measure.params.get("cutoff")
    depth = math.inf if cutoff is None else cutoff
    in_cut = [(rank, doc) for rank, doc in hits if rank <= depth]
    if name == "R":
        return len(in_cut) / len(gold)
    if name == "P":
        return len(in_cut) / cutoff
    if name == "Success":
        return 1.0 if in_cut else 0.0
    if name == "AP":
        return sum(i / rank for i, (rank, _) in enumerate(hits, start=1)) / len(gold)
    if name == "RR":
        if quirks.first_listed_gold:
            ranks = [rank for rank, doc in in_cut if doc == gold[0]]
        else:
            ranks = [rank for rank, _ in in_cut]
        if not ranks or (quirks.rr_cutoff is not None and ranks[0] > quirks.rr_cutoff):
            return 0.0
        return 1.0 / ranks[0]
    # nDCG: ideal DCG over the best min(|gold|, K) gains
    dcg = sum(gain[doc] / math.log2(rank + 1) for rank, doc in in_cut)
    ideal_gains = sorted((g for g in gain.values() if g > 0), reverse=True)
    ideal_depth = len(ideal_gains) if cutoff is None else min(len(ideal_gains), cutoff)
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains[:ideal_depth]))
    return dcg / ideal if ideal > 0 else 0.0


def _measures(spec) -> tuple[Measure, ...]:
    found = tuple(parse_measures(spec))
    _check_supported(found)
    return found


GOYAL2026 = Recipe(
    name="goyal2026",
    reference="Goyal et al. 2026, Public Profile Matters, arXiv:2603.17361 (evaluation code)",
    description="RR = 1/(1 + position of relevant_docs[0]), 0 if absent, whatever other "
    "relevant paper ranks higher; Recall@K = |top-K & relevant| / |relevant|; nDCG@K with "
    "binary gains, IDCG over min(|relevant|, K) positions; averaged over scored queries.",
    quirks=Quirks(list_duplicates=True, list_order=True, first_listed_gold=True, binary_gains=True),
    measures=_measures(PROTOCOLS["goyal2026"].measures),
    percent=True,
)

MASTERSET2026 = Recipe(
    name="masterset2026",
    reference="Ratul et al. 2026, MasterSet, arXiv:2604.17680 (evaluation code)",
    description="Recall@K = |top-K & gold| / |gold| (0 when gold is empty); HR@K = any gold in "
    "top-K; MRR from the first gold retrieved; MAP; nDCG@K with IDCG over min(|gold|, K); "
    "the query paper removed from its own ranking; queries with empty gold count as 0.",
    quirks=Quirks(
        list_duplicates=True, list_order=True, remove_query_paper=True, binary_gains=True
    ),
    measures=_measures(PROTOCOLS["masterset2026"].measures),
    percent=False,
    skips_queries_without_gold=False,
)

DUALLCR = Recipe(
    name="duallcr",
    reference="DualLCR (Medić and Šnajder) convention, used for ACL-200, RefSeer and ArSyTa "
    "results before 2026",
    description="MRR truncated at 10 (a reciprocal rank counts only at rank <= 10); Recall@K "
    "and nDCG@K from the rank of the single (first listed) gold paper. The cut-offs shown "
    "by default are common ones; any K can be asked for.",
    quirks=Quirks(
        list_duplicates=True, list_order=True, single_gold=True, binary_gains=True, rr_cutoff=10
    ),
    measures=_measures("RR R@5 R@10 R@20 R@50 R@100 nDCG@5 nDCG@10 nDCG@20 nDCG@50"),
    percent=True,
)

SYMTAX = Recipe(
    name="symtax",
    reference="SymTax (Goyal et al., Findings of ACL 2024) evaluation code",
    description="The DualLCR convention, plus a quirk: a gold paper that is not retrieved is "
    "given rank 100, so it counts as a hit for every K >= 100 (a query whose gold paper is "
    "missing from its list still scores Recall@100 = 1). Reproduced here and flagged by the "
    "cross-check.",
    quirks=replace(DUALLCR.quirks, unretrieved_rank=100),
    measures=DUALLCR.measures,
    percent=True,
)

HATTEN = Recipe(
    name="hatten",
    reference="Gu et al. 2022, HAtten, Local-Citation-Recommendation (prefetch evaluation)",
    description="Prefetch recall: Recall@K for K in 10 ... 2000 with the citing paper removed "
    "from the candidates.",
    quirks=Quirks(list_duplicates=True, list_order=True, remove_query_paper=True),
    measures=_measures("R@10 R@20 R@50 R@100 R@200 R@500 R@1000 R@2000"),
    percent=True,
)

RECIPES: dict[str, Recipe] = {
    r.name: r for r in (GOYAL2026, MASTERSET2026, DUALLCR, SYMTAX, HATTEN)
}


def get_recipe(recipe: str | Recipe) -> Recipe:
    """A recipe by name (``goyal2026``, ``masterset2026``, ``duallcr``, ``symtax``,
    ``hatten``) or the object itself."""
    if isinstance(recipe, Recipe):
        return recipe
    try:
        return RECIPES[recipe]
    except KeyError:
        raise InputError(None, f"unknown recipe {recipe!r}; known: {', '.join(RECIPES)}") from None


def query_paper_of(query_id: str) -> str:
    """The citing paper of a query: the ``<citing>`` part of a HAtten-style context id
    ``<citing>_<cited>_<n>``, otherwise the query id itself (MasterSet queries are papers)."""
    parts = query_id.split("_")
    if len(parts) >= 3 and parts[-1].isdigit():
        return parts[0]
    return query_id
