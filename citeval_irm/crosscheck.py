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
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .datasets.admissible import query_papers as dataset_query_papers
from .errors import EvalWarning, InputError, examples_of
from .evaluation import evaluate, resolve_measures
from .io import KEEP_ALL, as_dataset, as_qrels, as_run, drop_duplicates
from .measures import PROTOCOLS, Measure, Protocol
from .recipes import Quirks, Recipe, _check_supported, get_recipe, query_paper_of, score_ranking
from .tables import Qrels, Run
from .tieaware import tie_ranges
from .ties import TIE_POLICIES, rank_run

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


def _rankings(run: Run) -> dict[str, tuple[list[str], list[float]]]:
    """``{query: ([doc, ...], [score, ...])}`` for a ranked run (rows contiguous per query)."""
    queries = run.frame["query_id"].to_numpy(dtype=object)
    docs = run.frame["doc_id"].to_numpy(dtype=object)
    scores = run.frame["score"].to_numpy()
    if not len(queries):
        return {}
    starts = np.flatnonzero(np.concatenate(([True], queries[1:] != queries[:-1])))
    ends = np.append(starts[1:], len(queries))
    return {
        queries[s]: (docs[s:e].tolist(), scores[s:e].tolist())
        for s, e in zip(starts.tolist(), ends.tolist())
    }


def _ranked_docs(run: Run, ties: str) -> dict[str, list[str]]:
    """``{query: [doc, ...]}`` in the order ``ties`` defines (duplicates kept)."""
    ranked = rank_run(run, ties, rewrite_scores=False)[0]
    return {query: docs for query, (docs, _) in _rankings(ranked).items()}


def _judged(qrels: Qrels) -> dict[str, list[tuple[str, int]]]:
    """``{query: [(doc, label), ...]}`` in the order the qrels list them."""
    out: dict[str, list[tuple[str, int]]] = {q: [] for q in qrels.query_ids}
    frame = qrels.frame
    for query, doc, label in zip(
        frame["query_id"].tolist(), frame["doc_id"].tolist(), frame["relevance"].tolist()
    ):
        out[query].append((doc, label))
    return out


def _paper_lookup(query_papers, qrels) -> Callable[[str], str | None]:
    """Who the citing / query paper of a query is: the caller's mapping, else the
    ``citing_id`` of the qrels' ir_datasets queries, else read off the query id."""
    if query_papers is None:
        dataset = as_dataset(qrels)
        if dataset is not None:
            _, dataset = dataset
            if dataset.has_queries() and "citing_id" in dataset.queries_cls()._fields:
                papers = dataset_query_papers(dataset)
                return lambda query_id: papers.get(query_id) or query_paper_of(query_id)
        return query_paper_of
    if isinstance(query_papers, Mapping):
        return query_papers.get
    return query_papers


@dataclass
class _Query:
    """Everything the recipe needs to score one query, under any set of quirks."""

    listed: list[str]
    trec: list[str]
    judged: list[tuple[str, int]]
    paper: str | None

    def score(self, measures: list[Measure], quirks: Quirks) -> dict[str, float]:
        ranking = self.listed if quirks.list_order else self.trec
        return score_ranking(ranking, self.judged, measures, quirks, self.paper)

    def cause_name(self, quirk: str, quirks: Quirks) -> str:
        if quirk == "first_listed_gold":
            gold = [d for d, label in self.judged if label >= quirks.min_relevance]
            ranking = self.listed if quirks.list_order else self.trec
            if gold and gold[0] not in ranking:
                return "gold_not_retrieved"
        return _QUIRK_CAUSE[quirk]


def _attribute(query: _Query, measure: Measure, quirks: Quirks, value: float, reference: float):
    """Switch the recipe's quirks off one at a time; a quirk that moves the value is a cause."""
    causes = []
    defaults = Quirks()
    for name in quirks.active():
        lighter = replace(quirks, **{name: getattr(defaults, name)})
        moved = query.score([measure], lighter)[str(measure)]
        if abs(moved - value) > TOLERANCE:
            causes.append(query.cause_name(name, quirks))
        quirks, value = lighter, moved
    if abs(value - reference) > TOLERANCE:
        causes.append("unexplained")
    return causes


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
    if ties not in TIE_POLICIES:
        raise InputError(None, f"ties must be one of {TIE_POLICIES}, not {ties!r}")
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
    _check_supported(measure_list)
    qrels_table = as_qrels(qrels)
    raw = as_run(run, duplicates=KEEP_ALL)
    deduplicated = drop_duplicates(raw)
    reference = evaluate(deduplicated, qrels_table, measure_list, ties="trec_eval")

    listed = _ranked_docs(raw, ties)
    trec_ranked, tie_report = rank_run(deduplicated, "trec_eval", rewrite_scores=False)
    trec_lists = _ranked_docs(raw, "trec_eval")
    judged = _judged(qrels_table)
    paper_of = _paper_lookup(query_papers, qrels)
    quirks = recipe_obj.quirks
    names = [str(m) for m in measure_list]

    reference_values = reference.per_query.to_dict(orient="index")
    recipe_rows: dict[str, dict[str, float]] = {}
    differences: list[dict] = []
    qrels_queries = list(reference_values)
    run_only = [q for q in listed if q not in judged]
    for query_id in qrels_queries + run_only:
        query = _Query(
            listed.get(query_id, []),
            trec_lists.get(query_id, []),
            judged.get(query_id, []),
            paper_of(query_id),
        )
        has_gold = any(label >= quirks.min_relevance for _, label in query.judged)
        scored = query_id in listed and (has_gold or not recipe_obj.skips_queries_without_gold)
        counted = query_id in reference_values
        if scored:
            recipe_rows[query_id] = query.score(measure_list, quirks)
        for measure, name in zip(measure_list, names):
            ref = reference_values[query_id][name] if counted else math.nan
            mine = recipe_rows[query_id][name] if scored else math.nan
            if scored and counted:
                if abs(mine - ref) <= TOLERANCE:
                    continue
                causes = _attribute(query, measure, quirks, mine, ref)
            elif counted:
                causes = ["missing_query" if query_id not in listed else "query_without_relevant"]
            elif scored:
                causes = ["run_only_query"]
            else:
                continue
            differences.append(
                {
                    "query_id": query_id,
                    "measure": name,
                    "trec_eval": ref,
                    "recipe": mine,
                    "difference": mine - ref if scored and counted else math.nan,
                    "causes": ";".join(causes),
                }
            )

    diff_frame = pd.DataFrame(
        differences, columns=["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]
    )
    recipe_frame = pd.DataFrame.from_dict(recipe_rows, orient="index", columns=names)
    tie_frame = _tie_table(
        trec_ranked, tie_report.query_ids, qrels_table, measure_list, reference_values
    )
    summary = _summary(names, reference, recipe_frame, diff_frame, tie_frame)
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


def _tie_table(
    ranked: Run, tied: frozenset[str], qrels: Qrels, measures, reference: dict
) -> pd.DataFrame:
    columns = ["query_id", "measure", "trec_eval", "worst", "expected", "best"]
    if not tied:
        return pd.DataFrame(columns=columns)
    tied_rows = ranked.frame[ranked.frame["query_id"].isin(tied)]
    labels = qrels.to_dict()
    rows = []
    for query_id, (docs, scores) in _rankings(Run(tied_rows, ranked.source)).items():
        if query_id not in reference:
            continue
        ranges = tie_ranges(scores, docs, labels.get(query_id, {}), measures)
        for name, r in ranges.items():
            rows.append((query_id, name, reference[query_id][name], r.worst, r.expected, r.best))
    return pd.DataFrame(rows, columns=columns)


def _summary(names, reference, recipe_frame, diff_frame, tie_frame) -> pd.DataFrame:
    per_query = reference.per_query
    rows = {}
    for name in names:
        ref_values = per_query[name]
        worst = ref_values.copy()
        expected = ref_values.copy()
        best = ref_values.copy()
        ties_here = tie_frame[tie_frame["measure"] == name].set_index("query_id")
        if len(ties_here):
            worst.loc[ties_here.index] = ties_here["worst"]
            expected.loc[ties_here.index] = ties_here["expected"]
            best.loc[ties_here.index] = ties_here["best"]
        mine = diff_frame[diff_frame["measure"] == name]
        both = mine["difference"].dropna()
        rows[name] = {
            "trec_eval": float(reference.aggregate[name]),
            "recipe": float(recipe_frame[name].mean()) if len(recipe_frame) else math.nan,
            "max_abs_query_difference": float(both.abs().max()) if len(both) else 0.0,
            "queries_differing": int(mine["query_id"].nunique()),
            "tie_worst": float(worst.mean()),
            "tie_expected": float(expected.mean()),
            "tie_best": float(best.mean()),
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
