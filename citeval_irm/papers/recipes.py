"""The papers' own scoring scripts, rule by rule, as parameters of the scoring core.

Each benchmark paper ships a metric script, and those scripts do not always compute what
trec_eval computes. A :class:`Recipe` reproduces one of them: its :class:`Quirks` (each a
departure from trec_eval: how ties are ordered, how a doc listed twice counts *in each
measure*, whether and how the query's own paper is removed, where the gold papers come
from, ...), which queries it averages, and where the script itself would stop with an
exception. Every rule was read off the script (repository, path and commit in
:attr:`Recipe.source`) and is checked against a transcription of that script in the tests.

A quirk either shapes the rankings (tie order, duplicates, depth, the query paper, the gold
set) or is a kernel parameter (binary gains, RR from the first listed gold paper, MRR@N);
with every quirk off, :class:`~citeval_irm.papers.recipe_scorer.RecipeScorer` computes
exactly what trec_eval computes, which is what lets :mod:`citeval_irm.checks.crosscheck`
explain a difference by switching the quirks off one at a time and watching which one moves
the number.

This module holds what a recipe *is* (plain data: the paper modules and the command line's
choices read it without numpy or pyarrow); :mod:`citeval_irm.papers.recipe_scorer` scores
with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from ..base.errors import InputError
from ..base.measures import Measure

SUPPORTED = ("RR", "R", "P", "Success", "nDCG", "AP")
# How a doc listed twice counts: "drop" (trec_eval: the later copy is removed and the docs
# after it move up), "first_copy" (the copy keeps its place but counts only once: a
# script's ``.index`` or ``set(top_k) & gold``), "every_copy" (a script's sum over the list).
DUPLICATE_RULES = ("drop", "first_copy", "every_copy")
QUERY_PAPER_RULES = ("keep", "every_copy", "first_copy_unless_gold")
GOLD_SOURCES = ("qrels", "first_listed", "context_id")
QUERY_POPULATIONS = ("qrels", "run", "gold_and_run")
MAX_RECALL_CUTOFF = "max_recall_cutoff"


@dataclass(frozen=True)
class Quirks:
    """How a recipe departs from trec_eval; the defaults are trec_eval's semantics.

    The field order is the attribution order of the cross-check.
    """

    tie_order: bool = False  # tied scores in the run's own order, not doc id descending
    duplicates: tuple[tuple[str, str], ...] = ()  # (measure family, DUPLICATE_RULES) pairs
    ranking_depth: int | str | None = None  # each list cut here (or at the largest R@K) first
    query_paper: str = "keep"  # QUERY_PAPER_RULES: the query's own (citing) paper removed
    min_relevance: int = 1  # label a judged doc needs to count as gold
    gold: str = "qrels"  # GOLD_SOURCES: all relevant docs, the first listed, or the id's
    gold_in_pool: bool = False  # gold papers outside the candidate pool dropped
    first_listed_gold: bool = False  # RR from the first *listed* gold paper only
    binary_gains: bool = False  # nDCG gain 1 for every gold paper (trec_eval: gain = label)
    rr_cutoff: int | None = None  # reciprocal rank counts only at rank <= cutoff (MRR@10)
    unretrieved_rank: int | None = None  # a gold paper not retrieved is put at this rank

    def active(self) -> list[str]:
        """Names of the quirks that differ from trec_eval, in attribution order."""
        return [f.name for f in fields(self) if getattr(self, f.name) != f.default]

    def describe(self) -> str:
        """The active quirks as a user reads them (``tie_order=True; duplicates=RR
        first_copy, nDCG every_copy``), not as Python tuples and quotes."""

        def shown(value) -> str:
            if isinstance(value, tuple):  # (measure family, rule) pairs
                return ", ".join(" ".join(map(str, v)) for v in value)
            return str(value)

        return "; ".join(f"{name}={shown(getattr(self, name))}" for name in self.active())

    def without(self, name: str) -> Quirks:
        """The same quirks with ``name`` switched back to trec_eval's behaviour."""
        return replace(self, **{name: getattr(TREC_EVAL, name)})

    def duplicates_of(self, family: str | None) -> str:
        """The duplicate rule of a measure family (``"drop"`` unless the recipe says)."""
        rules: dict[str | None, str] = dict(self.duplicates)
        return rules.get(family, "drop")

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
class Crash:
    """An input on which a paper's script stops with an exception instead of a number.

    ``when``: ``"no_gold"`` (a scored query without a gold paper), ``"gold_not_retrieved"``
    (the gold paper is not in the list) or ``"no_context_id"`` (a query id without the
    ``<citing>_<cited>_<n>`` shape). The recipe gives such a query the value of an empty
    match (0), and the cross-check says where the script would have stopped.
    """

    when: str
    exception: str
    line: str


@dataclass(frozen=True)
class Recipe:
    """A paper's metric script: its quirks, default measures, which queries it averages,
    and where it would crash.

    ``queries``: ``"qrels"`` (a loop over the test set: every qrels query, a missing ranking
    scored as an empty list, as ``trec_eval -c``), ``"run"`` (a loop over the predictions:
    every query of the run) or ``"gold_and_run"`` (queries with gold and a ranking).
    ``source``: the script reproduced (repository, path, commit).
    """

    name: str
    reference: str
    description: str
    quirks: Quirks
    measures: tuple[Measure, ...]
    percent: bool
    queries: str
    source: str
    rules: tuple[str, ...] = ()
    crashes: tuple[Crash, ...] = ()

    def __str__(self) -> str:
        return self.name

    @property
    def families(self) -> tuple[str, ...]:
        """The measure families the script computes (one duplicate rule each)."""
        return tuple(family for family, _ in self.quirks.duplicates)


def check_recipe_measures(measures: Iterable[Measure], recipe: Recipe | None = None):
    """``measures`` if the recipe (or any recipe) can compute each of them; an error naming
    the first that it cannot (a recipe is a paper's script: it has no formula for
    anything else)."""
    out = list(measures)
    families = recipe.families if recipe is not None else SUPPORTED
    for measure in out:
        extra = {k for k, v in measure.params.items() if k != "cutoff" and v is not None}
        if measure.NAME not in families or extra:
            owner = f"the {recipe.name} script computes" if recipe else "the recipes compute"
            raise InputError(
                None,
                f"{owner} {', '.join(families)} (with a cutoff where it applies); "
                f"{measure} is not one of them",
            )
    return out


def query_paper_of(query_id: str) -> str:
    """The citing paper of a query: the ``<citing>`` part of a HAtten-style context id
    ``<citing>_<cited>_<n>``, otherwise the query id itself (MasterSet queries are papers)."""
    parts = query_id.split("_")
    if len(parts) >= 3 and parts[-1].isdigit():
        return parts[0]
    return query_id
