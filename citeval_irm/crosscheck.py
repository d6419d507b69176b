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

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from .choices import TIE_POLICIES, check_choice
from .errors import EvalWarning, InputError, examples_of
from .evaluation import evaluate, population, resolve_measures
from .io import KEEP_ALL, as_dataset, as_qrels, as_run, drop_duplicates
from .measures import PROTOCOLS, Measure, Protocol
from .recipes import (
    Quirks,
    Recipe,
    RecipeScorer,
    check_recipe_measures,
    get_recipe,
    query_paper_of,
)
from .scoring import build_rankings, tie_range_matrix
from .tables import Qrels, Run, lookup

TOLERANCE = 1e-9

CAUSES: dict[str, str] = {
    "tie_order": "tied scores: the recipe keeps the run's order, trec_eval puts tied docs in "
    "descending doc id order",
    "duplicate_doc": "a doc listed twice in the ranking: the recipe counts every copy, trec_eval "
    "accepts one (the best-scored copy is kept on the trec_eval side)",
    "query_paper_removed": "the query's own (citing) paper is in its ranking: the recipe removes "
    "it, trec_eval ranks it as a non-relevant doc",
    "label_threshold": "the recipe counts only labels at or above its threshold as gold, "
    "trec_eval every label >= 1",
    "single_gold": "several relevant papers: the recipe scores only the first listed one",
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
    "run_only_query": "a run query is not in the qrels: the recipe averages it (as 0), trec_eval "
    "ignores it",
    "query_without_relevant": "a query with no relevant paper: trec_eval scores it 0, the recipe "
    "cannot score it and leaves it out",
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
    "list_duplicates": "duplicate_doc",
    "list_order": "tie_order",
    "remove_query_paper": "query_paper_removed",
    "min_relevance": "label_threshold",
    "single_gold": "single_gold",
    "first_listed_gold": "first_listed_gold",
    "binary_gains": "graded_labels",
    "rr_cutoff": "truncated_cutoff",
    "unretrieved_rank": "unretrieved_rank",
}


@dataclass
class CrosscheckReport:
    """The cross-check of one run: per-measure summary, every differing query with its
    causes, counts per cause, and tie ranges.

    ``summary``: one row per measure (``trec_eval``, ``recipe``, ``difference``,
    ``max_abs_query_difference``, ``queries_differing``, ``tie_worst``, ``tie_expected``,
    ``tie_best``). ``differences``: one row per differing (query, measure). ``causes``: one row
    per cause found. ``tie_queries``: per tied query and measure, the trec_eval value and its
    range. Values are fractions; ``percent`` says how the recipe's paper prints them.
    """

    recipe: Recipe
    protocol: Protocol | None
    ties: str
    summary: pd.DataFrame
    differences: pd.DataFrame
    causes: pd.DataFrame
    tie_queries: pd.DataFrame
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
            "unexplained": self.unexplained,
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def format(self, fmt: str = "table", *, percent: bool | None = None, max_rows: int = 10) -> str:
        """``table`` for a terminal (``max_rows`` differing queries shown) or ``json``."""
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=2) + "\n"
        if fmt != "table":
            raise InputError(None, f"unknown format {fmt!r}; choose table or json")
        percent = self.percent if percent is None else percent
        scale, decimals = (100.0, 2) if percent else (1.0, 4)
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
        shown[value_columns] = (shown[value_columns] * scale).round(decimals) + 0.0
        lines = [
            f"cross-check: trec_eval (ir-measures) vs recipe {self.recipe.name} "
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
                    f"  {row.cause:<22} {row.differences:>6} {row.queries:>6}  "
                    f"{', '.join(row.examples)}\n      {row.description}"
                )
            head = self.differences.head(max_rows).copy()
            for column in ("trec_eval", "recipe", "difference"):
                head[column] = head[column] * scale
            lines.append(f"differing queries (first {len(head)} of {len(self.differences)}):")
            lines.append(
                _indent(head.to_string(index=False, float_format=lambda v: f"{v:.{decimals}f}"))
            )
        lines.append(f"unexplained differences: {self.unexplained}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.format("table")


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


def _paper_codes(query_ids: list[str], paper_of, run: Run) -> np.ndarray:
    """Per query, the run's doc code of its own paper (-1: none, or never in the run)."""
    papers = [paper_of(q) for q in query_ids]
    found = lookup(pa.array([p or "" for p in papers], pa.string()), run.doc_ids)
    return np.where([p is not None for p in papers], found, -1) if papers else found


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
    """The cause a quirk names for each query (``first_listed_gold`` is
    ``gold_not_retrieved`` where that gold paper is not in the ranking at all)."""
    cause = _QUIRK_CAUSE[quirk]
    if quirk != "first_listed_gold":
        return [cause] * len(scorer.counted)
    rankings = scorer.rankings(quirks)
    first = rankings.judgements.first_relevant_row(quirks.min_relevance)
    retrieved = np.zeros(len(rankings.judgements.label) + 1, dtype=bool)
    retrieved[rankings.qrel_row] = True
    return [cause if row < 0 or retrieved[row] else "gold_not_retrieved" for row in first]


def crosscheck(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    recipe: str | Recipe | None = None,
    ties: str = "run_order",
    query_papers: Mapping[str, str] | Callable[[str], str | None] | None = None,
) -> CrosscheckReport:
    """Compute ``measures`` (or a protocol's, or else the recipe's own) with trec_eval
    semantics and with a recipe, and explain every per-query difference.

    ``recipe`` defaults to the protocol's own (``goyal2026``, ``masterset2026``); others:
    ``duallcr``, ``symtax``, ``hatten``. ``ties``: the order in which the recipe sees tied
    scores (``"run_order"``, as a paper's script reads its list, or ``"trec_eval"``); the
    trec_eval side always uses trec_eval's order. ``query_papers`` maps a query id to its
    citing / query paper (default: the ``citing_id`` of the queries when ``qrels`` is an
    ir_datasets dataset, else the ``<citing>`` part of a ``<citing>_<cited>_<n>`` id, else
    the query id itself).
    """
    check_choice("ties", ties, TIE_POLICIES)
    if (
        recipe is None
        and protocol is None
        and not (isinstance(measures, str) and measures in PROTOCOLS)
    ):
        raise InputError(None, "name a recipe (e.g. recipe='goyal2026') or a protocol")
    if measures is None and protocol is None:
        measures = list(get_recipe(recipe).measures)  # a recipe alone: its own measures
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    recipe_obj = get_recipe(recipe if recipe is not None else protocol_obj.name)
    check_recipe_measures(measure_list)
    quirks = recipe_obj.quirks
    names = [str(m) for m in measure_list]
    qrels_table = as_qrels(qrels)
    raw = as_run(run, duplicates=KEEP_ALL)
    deduplicated = drop_duplicates(raw)
    reference = evaluate(deduplicated, qrels_table, measure_list, ties="trec_eval")

    # who each side averages: trec_eval every qrels query; the recipe the run's queries,
    # those with gold only if its script cannot score a query without one
    qrels_ids = qrels_table.all_query_ids
    in_run = np.zeros(len(qrels_ids), dtype=bool)
    run_ids = raw.query_ids.take(pa.array(np.flatnonzero(np.bincount(raw.query) > 0)))
    run_in_qrels = lookup(run_ids, qrels_ids)
    in_run[run_in_qrels[run_in_qrels >= 0]] = True
    has_gold = qrels_table.relevant_per_query(quirks.min_relevance) > 0
    scored = in_run & (has_gold | (not recipe_obj.skips_queries_without_gold))
    scored_positions = np.flatnonzero(scored)
    scored_ids = qrels_ids.take(pa.array(scored_positions)).to_pylist()
    run_only = run_ids.filter(pa.array(run_in_qrels < 0)).to_pylist()
    if recipe_obj.skips_queries_without_gold:
        run_only = []  # no gold, so not scored

    paper_of = _paper_lookup(query_papers, qrels)
    scorer = RecipeScorer(
        raw, qrels_table, scored_positions, _paper_codes(scored_ids, paper_of, raw), ties
    )
    recipe_values = scorer.values(measure_list, quirks)

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
                    differences.append(
                        (
                            scored_ids[row],
                            name,
                            ref,
                            value,
                            value - ref,
                            ";".join(causes[i][column]),
                        )
                    )
    scored_set = set(scored_ids)
    for query_id, row in reference_row.items():
        if query_id not in scored_set:
            cause = (
                "missing_query"
                if not in_run[_position(qrels_ids, query_id)]
                else ("query_without_relevant")
            )
            differences += [
                (query_id, name, reference.values[row, c], math.nan, math.nan, cause)
                for c, name in enumerate(names)
            ]
    for query_id in run_only:
        differences += [(query_id, n, math.nan, 0.0, math.nan, "run_only_query") for n in names]

    diff_frame = pd.DataFrame(
        differences, columns=["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]
    )
    all_recipe = np.vstack([recipe_values, np.zeros((len(run_only), len(names)))])
    tie_frame, tie_means = _tie_table(deduplicated, qrels_table, measure_list, reference)
    summary = _summary(names, reference, all_recipe, diff_frame, tie_means)
    percent = protocol_obj.percent if protocol_obj is not None else recipe_obj.percent
    return CrosscheckReport(
        recipe=recipe_obj,
        protocol=protocol_obj,
        ties=ties,
        summary=summary,
        differences=diff_frame,
        causes=_cause_table(diff_frame),
        tie_queries=tie_frame,
        warnings=list(raw.warnings)
        + [w for w in reference.warnings if w.code != "duplicate_docs_dropped"],
        percent=percent,
    )


def _position(ids: pa.Array, query_id: str) -> int:
    return int(lookup(pa.array([query_id], pa.string()), ids)[0])


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
