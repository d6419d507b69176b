"""The cross-check: every number two ways, every difference explained.

For each measure, :func:`crosscheck` computes the value with trec_eval semantics (through
ir-measures, :func:`citeval_irm.evaluate`) and with a paper's recipe
(:mod:`citeval_irm.recipes`), compares them query by query, and gives each difference its
causes from a closed list (:data:`CAUSES`). Causes are *detected*, not guessed: the recipe's
quirks are switched off one at a time, in a fixed order, and a quirk is a cause when
switching it off moves the value; with all of them off the recipe computes trec_eval's
number, and anything still different is reported as ``unexplained``. Differences in which
queries are averaged (missing, run-only, no relevant paper) are found by comparing the two
populations.

For queries with tied scores, the report also gives each measure's worst, expected
(uniformly random tie order) and best value, so a user sees how much of a score is luck.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from .choices import TIE_POLICIES, check_choice
from .errors import EvalWarning, InputError, examples_of
from .escaping import plain_text
from .evaluation import evaluate, population, resolve_measures
from .io import KEEP_ALL, as_dataset, as_qrels, as_run, drop_duplicates
from .measures import Measure, Protocol
from .options import display_decimals
from .papers import PROTOCOLS, get_recipe
from .printable import Printable
from .recipes import (
    Quirks,
    Recipe,
    RecipeScorer,
    check_recipe_measures,
    query_paper_of,
)
from .scoring import build_rankings, percent_scale, tie_range_matrix
from .tables import Qrels, Run, take

TOLERANCE = 1e-9

CAUSES: dict[str, str] = {
    "tie_order": "tied scores: the recipe keeps the run's order, trec_eval puts tied docs in "
    "descending doc id order",
    "duplicate_doc": "a doc listed twice in the ranking: the recipe's script counts it its own "
    "way (once at its first copy, or every copy), trec_eval keeps the best-scored copy only",
    "ranking_depth": "the recipe cuts the list at a fixed depth (the largest Recall cut-off) "
    "before removing the query paper: MAP and MRR see only that depth",
    "query_paper_removed": "the query's own (citing) paper is in its ranking: the recipe removes "
    "it, trec_eval ranks it as a non-relevant doc",
    "query_paper_gold_removed": "the query's own paper is one of its gold papers and the recipe "
    "removes it from the ranking anyway (it stays in the gold set)",
    "label_threshold": "the recipe counts only labels at or above its threshold as gold, "
    "trec_eval every label >= 1",
    "single_gold": "several relevant papers: the recipe scores only the first listed one",
    "gold_from_context_id": "the recipe takes the gold paper from the context id "
    "(<citing>_<cited>_<n>), not from the qrels",
    "gold_outside_pool": "a gold paper outside the candidate pool: the recipe drops it from the "
    "gold set, trec_eval counts it as relevant and never retrieved",
    "first_listed_gold": "several relevant papers: the recipe's RR uses the first listed gold "
    "paper while another relevant paper ranks higher",
    "gold_not_retrieved": "the recipe's (first listed) gold paper is not retrieved, while "
    "another relevant paper is",
    "graded_labels": "graded labels: the recipe uses binary gains, trec_eval gain = label",
    "truncated_cutoff": "the recipe's reciprocal rank is truncated (MRR@N), trec_eval's is not",
    "unretrieved_rank": "a gold paper that is not retrieved is given a fixed rank by the recipe "
    "(SymTax's rank-100 rule), so it counts as a hit at large K",
    "missing_query": "a qrels query has no ranking in the run: trec_eval -c scores it 0, the "
    "recipe does not average it",
    "run_only_query": "a run query is not in the qrels: the recipe averages it, trec_eval "
    "ignores it",
    "query_without_relevant": "a query with no relevant paper: trec_eval scores it 0, the recipe "
    "does not average it",
    "unexplained": "a difference none of the causes above accounts for",
}

_SHORT_NAMES = {
    "difference": "diff",
    "max_abs_query_difference": "max|q|",
    "queries_differing": "n_diff",
    "tie_worst": "worst",
    "tie_expected": "expected",
    "tie_best": "best",
}

_QUIRK_CAUSE = {
    "tie_order": "tie_order",
    "duplicates": "duplicate_doc",
    "ranking_depth": "ranking_depth",
    "query_paper": "query_paper_removed",
    "min_relevance": "label_threshold",
    "gold": "single_gold",
    "gold_in_pool": "gold_outside_pool",
    "first_listed_gold": "first_listed_gold",
    "binary_gains": "graded_labels",
    "rr_cutoff": "truncated_cutoff",
    "unretrieved_rank": "unretrieved_rank",
}


@dataclass
class CrosscheckReport(Printable):
    """The cross-check of one run: per-measure summary, every differing query with its
    causes, counts per cause, and tie ranges.

    ``summary``: one row per measure (``trec_eval``, ``recipe``, ``difference``,
    ``max_abs_query_difference``, ``queries_differing``, ``tie_worst``, ``tie_expected``,
    ``tie_best``). ``differences``: one row per differing (query, measure). ``causes``: one row
    per cause found. ``tie_queries``: per tied query and measure, the trec_eval value and its
    range. ``crashes``: the queries on which the paper's script itself would have stopped
    with an exception (the recipe scores them as an empty match); ``recipe_per_query``: the
    recipe's value of every query it averages. Values are fractions;
    ``percent`` says how the recipe's paper prints them.
    """

    recipe: Recipe
    protocol: Protocol | None
    ties: str
    summary: pd.DataFrame
    differences: pd.DataFrame
    causes: pd.DataFrame
    tie_queries: pd.DataFrame
    crashes: pd.DataFrame
    recipe_per_query: pd.DataFrame
    warnings: list[EvalWarning] = field(default_factory=list)
    percent: bool = False

    @property
    def unexplained(self) -> int:
        """Number of (query, measure) differences no cause accounts for."""
        if self.differences.empty:
            return 0
        return int(self.differences["causes"].str.contains("unexplained").sum())

    def failures(self, tolerance: float | None = None) -> list[str]:
        """Why a ``--strict`` check fails: unexplained differences, or an aggregate
        difference above ``tolerance`` (when given). Empty when it passes."""
        out = []
        if self.unexplained:
            out.append(f"{self.unexplained} unexplained difference(s)")
        if tolerance is not None:
            too_big = self.summary[self.summary["difference"].abs() > tolerance]
            out += [
                f"{m}: recipe and trec_eval differ by {d:+.6g} (tolerance {tolerance:g})"
                for m, d in too_big["difference"].items()
            ]
        return out

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict:
        return {
            "recipe": self.recipe.name,
            "recipe_reference": self.recipe.reference,
            "protocol": self.protocol.name if self.protocol else None,
            "ties": self.ties,
            "values_in": "fraction",
            "summary": _records(self.summary.reset_index()),
            "causes": _records(self.causes),
            "differences": _records(self.differences),
            "tie_queries": _records(self.tie_queries),
            "script_would_stop": _records(self.crashes),
            "unexplained": self.unexplained,
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(
        self,
        fmt: str,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        max_rows: int = 10,
    ) -> str:
        """The table for a terminal (``max_rows`` differing queries shown)."""
        percent = self.percent if percent is None else percent
        decimals = display_decimals(percent, self.protocol, decimals)
        shown = self.summary.copy()
        value_columns = [
            "trec_eval",
            "recipe",
            "difference",
            "max_abs_query_difference",
            "tie_worst",
            "tie_expected",
            "tie_best",
        ]
        # rounded, then +0.0, so a difference of -1e-17 prints as 0.00, not -0.00
        factors = [percent_scale(m, percent) for m in shown.index]
        shown[value_columns] = shown[value_columns].mul(factors, axis=0).round(decimals) + 0.0
        lines = [
            f"cross-check: trec_eval vs recipe {self.recipe.name} "
            f"({self.recipe.reference}); the recipe sees tied scores in "
            f"{'the run' if self.ties == 'run_order' else 'trec_eval'}'s order"
            + (" (percent)" if percent else ""),
            _indent(
                shown.rename(columns=_SHORT_NAMES).to_string(
                    float_format=lambda v: f"{v:.{decimals}f}"
                )
            ),
            "  (max|q|: largest per-query difference; n_diff: queries that differ; worst, "
            "expected, best: trec_eval's value over all orders of tied scores)",
        ]
        if self.causes.empty:
            lines.append("no difference: the recipe and trec_eval agree on every query")
        else:
            lines.append("causes of the differences (query x measure pairs, queries, examples):")
            for row in self.causes.itertuples():
                lines.append(
                    f"  {row.cause:<22} {row.differences:>6,} {row.queries:>6,}  "
                    f"{', '.join(map(plain_text, row.examples))}\n      {row.description}"
                )
            head = self.differences.head(max_rows).copy()
            factors = np.array([percent_scale(m, percent) for m in head["measure"]], dtype=float)
            for column in ("trec_eval", "recipe", "difference"):
                head[column] = head[column] * factors
            head["query_id"] = head["query_id"].map(plain_text)
            queries = self.differences["query_id"].nunique()
            lines.append(
                f"differing query x measure pairs (first {len(head)} of "
                f"{len(self.differences):,}, in {queries:,} quer{'y' if queries == 1 else 'ies'}):"
            )
            lines.append(
                _indent(head.to_string(index=False, float_format=lambda v: f"{v:.{decimals}f}"))
            )
        if len(self.crashes):
            lines.append(
                f"the {self.recipe.name} script would have stopped on "
                f"{self.crashes['query_id'].nunique():,} queries (the recipe scores them 0):"
            )
            for (exception, line), rows in self.crashes.groupby(["exception", "line"]):
                lines.append(
                    f"  {exception} ({line}): {len(rows):,} queries, e.g. "
                    + ", ".join(map(plain_text, examples_of(rows["query_id"], 3)))
                )
        lines.append(f"unexplained differences: {self.unexplained}")
        return "\n".join(lines) + "\n"


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _records(frame: pd.DataFrame) -> list[dict]:
    out = []
    for record in frame.to_dict(orient="records"):
        out.append(
            {
                k: (
                    None
                    if isinstance(v, float) and math.isnan(v)
                    else list(v)
                    if isinstance(v, tuple)
                    else v
                )
                for k, v in record.items()
            }
        )
    return out


# --------------------------------------------------------------------------- computation


def _paper_lookup(query_papers, qrels) -> Callable[[str], str | None]:
    """Who the citing / query paper of a query is: the caller's mapping, else the
    ``citing_id`` of the qrels' ir_datasets queries, else read off the query id."""
    if query_papers is None:
        dataset = as_dataset(qrels)
        if dataset is not None:
            _, dataset = dataset
            if dataset.has_queries() and "citing_id" in dataset.queries_cls()._fields:
                from .datasets.admissible import query_papers as dataset_query_papers

                papers = dataset_query_papers(dataset)
                return lambda query_id: papers.get(query_id) or query_paper_of(query_id)
        return query_paper_of
    if isinstance(query_papers, Mapping):
        return query_papers.get
    return query_papers


def _attribute(
    scorer: RecipeScorer, measures, quirks: Quirks, values: np.ndarray, reference: np.ndarray
) -> list[list[list[str]]]:
    """Causes of each (query, measure) of ``scorer``'s queries: the recipe's quirks are
    switched off one at a time, in attribution order; a quirk that moves the value is a
    cause. What still differs with every quirk off is ``unexplained``."""
    causes: list[list[list[str]]] = [[[] for _ in measures] for _ in range(len(values))]
    for name in quirks.active():
        lighter = quirks.without(name)
        moved_values = scorer.values(measures, lighter)
        moved = np.abs(moved_values - values) > TOLERANCE
        if moved.any():
            label = _cause_names(scorer, name, quirks)
            for row, column in zip(*np.nonzero(moved)):
                causes[row][column].append(label[row])
        quirks, values = lighter, moved_values
    for row, column in zip(*np.nonzero(np.abs(values - reference) > TOLERANCE)):
        causes[row][column].append("unexplained")
    return causes


def _cause_names(scorer: RecipeScorer, quirk: str, quirks: Quirks) -> list[str]:
    """The cause a quirk names for each query: ``first_listed_gold`` is
    ``gold_not_retrieved`` where that gold paper is not in the ranking at all; removing the
    query paper is ``query_paper_gold_removed`` where that paper is gold; the gold source
    says which source it is."""
    cause = _QUIRK_CAUSE[quirk]
    if quirk == "gold" and quirks.gold == "context_id":
        cause = "gold_from_context_id"
    if quirk not in ("first_listed_gold", "query_paper"):
        return [cause] * len(scorer.query_ids)
    if quirk == "query_paper":
        return [
            "query_paper_gold_removed" if gold else cause for gold in scorer.paper_is_gold(quirks)
        ]
    rankings = scorer.rankings(quirks, "first_copy", None)
    first = rankings.judgements.first_relevant_row(quirks.min_relevance)
    retrieved = np.zeros(len(rankings.judgements.label) + 1, dtype=bool)
    retrieved[rankings.qrel_row] = True
    return [cause if row < 0 or retrieved[row] else "gold_not_retrieved" for row in first]


def _recipe_queries(recipe: Recipe, qrels: Qrels, run_ids: list[str], in_run) -> list[str]:
    """The queries the recipe's script averages (see :attr:`Recipe.queries`)."""
    if recipe.queries == "run":
        return run_ids
    qrels_ids = qrels.query_id_list
    if recipe.queries == "qrels":
        return qrels_ids
    return [q for q, found in zip(qrels_ids, in_run) if found]  # gold_and_run, before gold


def _pool_of(pool, qrels) -> pa.Array | None:
    """The candidate pool as doc ids: the caller's, else the docs of the qrels' dataset."""
    if pool is None:
        dataset = as_dataset(qrels)
        if dataset is None or not dataset[1].has_docs():
            return None
        pool = (doc.doc_id for doc in dataset[1].docs_iter())
    return pa.array(list(pool), pa.string())


def crosscheck(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    recipe: str | Recipe | None = None,
    ties: str = "run_order",
    query_papers: Mapping[str, str] | Callable[[str], str | None] | None = None,
    pool: Iterable[str] | None = None,
) -> CrosscheckReport:
    """Compute ``measures`` (or a protocol's, or else the recipe's own) with trec_eval
    semantics and with a recipe, and explain every per-query difference.

    ``recipe`` defaults to the protocol's own (``goyal2026``, ``masterset2026``); others:
    ``duallcr``, ``symtax``, ``hatten``. ``ties``: the order in which the recipe sees tied
    scores (``"run_order"``, as a paper's script reads its list, or ``"trec_eval"``); the
    trec_eval side always uses trec_eval's order. ``query_papers`` maps a query id to its
    citing / query paper (default: the ``citing_id`` of the queries when ``qrels`` is an
    ir_datasets dataset, else the ``<citing>`` part of a ``<citing>_<cited>_<n>`` id, else
    the query id itself). ``pool``: the candidate pool, for a recipe that drops gold
    outside it (default: the docs of the qrels' dataset; without one, gold is kept).
    """
    check_choice("ties", ties, TIE_POLICIES)
    if (
        recipe is None
        and protocol is None
        and not (isinstance(measures, str) and measures in PROTOCOLS)
    ):
        raise InputError(None, "name a recipe (e.g. --recipe goyal2026) or a protocol")
    if measures is None and protocol is None:
        measures = list(get_recipe(recipe).measures)  # a recipe alone: its own measures
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    recipe_obj = get_recipe(recipe if recipe is not None else protocol_obj.recipe)
    check_recipe_measures(measure_list, recipe_obj)
    quirks = recipe_obj.quirks
    names = [str(m) for m in measure_list]
    qrels_table = as_qrels(qrels)
    raw = as_run(run, duplicates=KEEP_ALL)
    deduplicated = drop_duplicates(raw)
    reference = evaluate(deduplicated, qrels_table, measure_list, ties="trec_eval")

    # who each side averages: trec_eval every qrels query; the recipe what its script loops
    # over (the test set, the predictions, or the queries with gold and a ranking)
    run_ids = take(raw.query_ids, raw.ranked_queries()[0]).to_pylist()
    run_set = set(run_ids)
    in_run = [q in run_set for q in qrels_table.query_id_list]
    scored_ids = _recipe_queries(recipe_obj, qrels_table, run_ids, in_run)
    paper_of = _paper_lookup(query_papers, qrels)
    pool_ids = _pool_of(pool, qrels) if quirks.gold_in_pool else None
    scorer = RecipeScorer(
        raw, qrels_table, scored_ids, [paper_of(q) for q in scored_ids], ties, pool_ids
    )
    if recipe_obj.queries == "gold_and_run":
        scorer = scorer.restricted(np.flatnonzero(scorer.relevant(quirks) > 0))
        scored_ids = scorer.query_ids
    recipe_values = scorer.values(measure_list, quirks)
    crashes = _crash_table(recipe_obj, scorer)

    reference_row = {q: i for i, q in enumerate(reference.query_ids)}
    ref_of_scored = np.array([reference_row.get(q, -1) for q in scored_ids], dtype=np.int64)
    common = np.flatnonzero(ref_of_scored >= 0)
    ref_values = reference.values[ref_of_scored[common]]
    mine = recipe_values[common]
    differing = np.flatnonzero((np.abs(mine - ref_values) > TOLERANCE).any(axis=1))
    differences: list[tuple] = []
    if differing.size:
        rows = common[differing]
        causes = _attribute(
            scorer.restricted(rows), measure_list, quirks, mine[differing], ref_values[differing]
        )
        for i, row in enumerate(rows.tolist()):
            for column, name in enumerate(names):
                if causes[i][column]:
                    ref, value = ref_values[differing[i], column], mine[differing[i], column]
                    why = ";".join(causes[i][column])
                    differences.append((scored_ids[row], name, ref, value, value - ref, why))
    scored_set = set(scored_ids)
    for query_id, row in reference_row.items():
        if query_id not in scored_set:
            cause = "query_without_relevant" if query_id in run_set else "missing_query"
            differences += [
                (query_id, name, reference.values[row, c], math.nan, math.nan, cause)
                for c, name in enumerate(names)
            ]
    for row in np.flatnonzero(ref_of_scored < 0).tolist():
        differences += [
            (scored_ids[row], name, math.nan, recipe_values[row, c], math.nan, "run_only_query")
            for c, name in enumerate(names)
        ]

    diff_frame = pd.DataFrame(
        differences, columns=["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]
    )
    tie_frame, tie_means = _tie_table(deduplicated, qrels_table, measure_list, reference)
    summary = _summary(names, reference, recipe_values, diff_frame, tie_means)
    percent = protocol_obj.percent if protocol_obj is not None else recipe_obj.percent
    warnings = list(raw.warnings) + [
        w for w in reference.warnings if w.code != "duplicate_docs_dropped"
    ]
    if quirks.gold_in_pool and pool_ids is None:
        warnings.append(
            EvalWarning(
                "pool_unknown",
                f"the {recipe_obj.name} script drops gold papers outside the candidate pool; "
                "no pool is known (give pool= or a dataset), so every gold paper is kept",
                len(scored_ids),
            )
        )
    return CrosscheckReport(
        recipe=recipe_obj,
        protocol=protocol_obj,
        ties=ties,
        summary=summary,
        differences=diff_frame,
        causes=_cause_table(diff_frame),
        tie_queries=tie_frame,
        crashes=crashes,
        recipe_per_query=pd.DataFrame(
            recipe_values, index=pd.Index(scored_ids, name="query_id"), columns=names
        ),
        warnings=warnings,
        percent=percent,
    )


def _crash_table(recipe: Recipe, scorer: RecipeScorer) -> pd.DataFrame:
    """One row per query on which the recipe's script would have stopped, and why."""
    columns = ["query_id", "exception", "line"]
    rows = []
    found = scorer.crashes(recipe)
    for crash in recipe.crashes:
        where = found[crash.when]
        rows += [(scorer.query_ids[i], crash.exception, crash.line) for i in np.flatnonzero(where)]
    return pd.DataFrame(rows, columns=columns)


def _tie_table(run: Run, qrels: Qrels, measures, reference) -> tuple[pd.DataFrame, np.ndarray]:
    """Per tied query and measure: the trec_eval value and its worst / expected / best
    over every order of the tied scores; and the three means over all counted queries."""
    columns = ["query_id", "measure", "trec_eval", "worst", "expected", "best"]
    people = population(run, qrels)
    rankings = build_rankings(run, qrels, people.counted, ties="trec_eval")
    worst, expected, best = tie_range_matrix(measures, rankings)
    means = np.vstack([worst.mean(axis=0), expected.mean(axis=0), best.mean(axis=0)])
    tied = reference.ties.query_ids if reference.ties else frozenset()
    rows = [i for i, q in enumerate(people.query_ids) if q in tied]
    if not rows:
        return pd.DataFrame(columns=columns), means
    names = [str(m) for m in measures]
    out = pd.DataFrame(
        {
            "query_id": np.repeat([people.query_ids[i] for i in rows], len(names)),
            "measure": np.tile(names, len(rows)),
            "trec_eval": reference.values[rows].ravel(),
            "worst": worst[rows].ravel(),
            "expected": expected[rows].ravel(),
            "best": best[rows].ravel(),
        }
    )
    return out, means


def _summary(names, reference, recipe_values, diff_frame, tie_means) -> pd.DataFrame:
    rows = {}
    for column, name in enumerate(names):
        mine = diff_frame[diff_frame["measure"] == name]
        both = mine["difference"].dropna()
        rows[name] = {
            "trec_eval": float(reference.aggregates[name]),
            "recipe": float(recipe_values[:, column].mean()) if len(recipe_values) else math.nan,
            "max_abs_query_difference": float(both.abs().max()) if len(both) else 0.0,
            "queries_differing": int(mine["query_id"].nunique()),
            "tie_worst": float(tie_means[0, column]),
            "tie_expected": float(tie_means[1, column]),
            "tie_best": float(tie_means[2, column]),
        }
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary.insert(2, "difference", summary["recipe"] - summary["trec_eval"])
    summary.index.name = "measure"
    return summary


def _cause_table(diff_frame: pd.DataFrame) -> pd.DataFrame:
    columns = ["cause", "description", "differences", "queries", "examples"]
    if diff_frame.empty:
        return pd.DataFrame(columns=columns)
    exploded = diff_frame.assign(cause=diff_frame["causes"].str.split(";")).explode("cause")
    rows = []
    for cause in CAUSES:  # the closed list's order
        hit = exploded[exploded["cause"] == cause]
        if len(hit):
            queries = pd.unique(hit["query_id"])
            rows.append((cause, CAUSES[cause], len(hit), len(queries), examples_of(queries, 3)))
    return pd.DataFrame(rows, columns=columns)
