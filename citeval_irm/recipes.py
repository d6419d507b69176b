"""The papers' own scoring recipes, quirks included, as parameters of the scoring core.

Each benchmark paper ships a metric script, and those scripts do not always compute what
trec_eval computes. A :class:`Recipe` reproduces one of them as a set of :class:`Quirks`
(deviations from trec_eval semantics). A quirk is either a way of building the rankings
(tie order, duplicates, the query's own paper, which labels are gold) or a kernel
parameter (binary gains, RR from the first listed gold paper, MRR@N); with every quirk off,
:class:`RecipeScorer` computes exactly what trec_eval computes, which is what lets
:mod:`citeval_irm.crosscheck` explain a difference by switching the quirks off one at a
time and watching which one moves the number.

The recipes score a ranked list in the order the run gives it (ties in the run's own order
unless told otherwise), as the papers' scripts consume their prediction lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

import numpy as np

from .errors import InputError
from .measures import PROTOCOLS, Measure, parse_measures
from .scoring import Rankings, build_rankings, score_matrix
from .tables import Qrels, Run
from .ties import RankOrder, rank_order

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

    def without(self, name: str) -> Quirks:
        """The same quirks with ``name`` switched back to trec_eval's behaviour."""
        return replace(self, **{name: getattr(TREC_EVAL, name)})

    def kernel_params(self) -> dict:
        """The quirks that are parameters of the kernels (the rest shape the rankings)."""
        return {
            "rel": self.min_relevance,
            "binary_gains": self.binary_gains,
            "first_listed_gold": self.first_listed_gold,
            "rr_cutoff": self.rr_cutoff,
        }


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


def check_recipe_measures(measures: Iterable[Measure]) -> list[Measure]:
    """``measures`` if a recipe can compute each of them; an error naming the first that
    it cannot (a recipe is a paper's script: it has no formula for anything else)."""
    out = list(measures)
    for measure in out:
        extra = {k for k, v in measure.params.items() if k != "cutoff" and v is not None}
        if measure.NAME not in SUPPORTED or extra:
            raise InputError(
                None,
                f"the recipes compute {', '.join(SUPPORTED)} (with a cutoff where it applies); "
                f"{measure} is not one of them",
            )
    return out


def first_gold_only(qrels: Qrels, min_relevance: int) -> Qrels:
    """``qrels`` with every gold label but the first listed of each query set to 0."""
    gold = np.flatnonzero(qrels.relevance >= min_relevance)
    first = np.zeros(len(qrels), dtype=bool)
    seen = np.zeros(len(qrels.all_query_ids), dtype=bool)
    firsts = gold[::-1]  # assigning in reverse leaves the first row of each query
    last_seen = np.full(len(qrels.all_query_ids), -1, dtype=np.int64)
    last_seen[qrels.query[firsts]] = firsts
    seen[qrels.query[gold]] = True
    first[last_seen[seen]] = True
    labels = np.where((qrels.relevance >= min_relevance) & ~first, 0, qrels.relevance)
    return replace(qrels, relevance=labels)


class RecipeScorer:
    """Scores one run the way a recipe does, under any set of quirks.

    ``counted``: positions in ``qrels.all_query_ids`` of the queries to score;
    ``papers``: per counted query, the run's doc code of its own (citing) paper, -1 if the
    run never lists it. ``ties``: the order in which the recipe sees tied scores when its
    ``list_order`` quirk is on. Rank orders and rankings are computed once per setting.
    """

    def __init__(
        self,
        run: Run,
        qrels: Qrels,
        counted: np.ndarray,
        papers: np.ndarray,
        ties: str = "run_order",
    ):
        self.run, self.qrels, self.counted, self.papers, self.ties = (
            run,
            qrels,
            counted,
            papers,
            ties,
        )
        self._orders: dict[str, RankOrder] = {}
        self._rankings: dict[tuple, Rankings] = {}

    def restricted(self, rows: np.ndarray) -> RecipeScorer:
        """The scorer for the counted queries at ``rows`` only (orders are shared)."""
        other = RecipeScorer(self.run, self.qrels, self.counted[rows], self.papers[rows], self.ties)
        other._orders = self._orders
        return other

    def order(self, ties: str) -> RankOrder:
        if ties not in self._orders:
            self._orders[ties] = rank_order(self.run, ties)
        return self._orders[ties]

    def rankings(self, quirks: Quirks) -> Rankings:
        key = (
            quirks.list_order,
            quirks.list_duplicates,
            quirks.remove_query_paper,
            quirks.single_gold,
            quirks.min_relevance if quirks.single_gold else None,
        )
        if key not in self._rankings:
            ties = self.ties if quirks.list_order else "trec_eval"
            qrels = self.qrels
            if quirks.single_gold:
                qrels = first_gold_only(qrels, quirks.min_relevance)
            self._rankings[key] = build_rankings(
                self.run,
                qrels,
                self.counted,
                self.order(ties),
                exclude_doc=self.papers if quirks.remove_query_paper else None,
                first_copy_only=not quirks.list_duplicates,
            )
        found = self._rankings[key]
        if quirks.unretrieved_rank is not None:
            found = found.with_unretrieved_at(quirks.unretrieved_rank, quirks.min_relevance)
        return found

    def values(self, measures: list[Measure], quirks: Quirks) -> np.ndarray:
        """Per counted query (rows) and measure (columns), as the recipe computes them."""
        return score_matrix(measures, self.rankings(quirks), **quirks.kernel_params())


def _measures(spec) -> tuple[Measure, ...]:
    return tuple(check_recipe_measures(parse_measures(spec)))


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
