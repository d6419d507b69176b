"""The cross-check of a whole run from its chunks (:func:`merge_checked`): trec_eval's
evaluation merged once, the queries the recipe averages in its script's order, the
differences of the queries only one side averages, the tie ranges, the per-measure summary
and the warnings, as from a run read whole."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning, issue
from ..evaluation.evaluate import (
    counted_queries,
    empty_run,
    in_population_order,
    merge_parts,
    merge_warnings,
)
from ..evaluation.results import EvalResult
from ..papers.recipes import Recipe
from ..reading.sources import Read
from ..reading.tables import Qrels
from .crosscheck_causes import cause_table
from .crosscheck_chunk import Check, CheckedPart, RecipePart, recipe_part, tie_ranges
from .crosscheck_report import CrosscheckReport

_DIFFERENCE_COLUMNS = ["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]


class _RecipeSide(NamedTuple):
    """The queries the recipe averages, in its script's order, with their values, crash
    flags (per crash rule) and differences from trec_eval in that order."""

    query_ids: list[str]
    values: np.ndarray
    crashes: dict[str, np.ndarray]
    differences: list[tuple]


def merge_checked(read: Read[CheckedPart], check: Check, protocol_obj) -> CrosscheckReport:
    """The report of the whole run from its chunks (in run order): trec_eval's evaluation
    merged once; the queries the recipe averages, which depend on the whole run's queries
    (those no chunk ranks scored on an empty ranking, as the script would); the
    differences, tie ranges and warnings in the order of a run read whole."""
    recipe, parts = check.recipe, read.results
    reference = merge_parts(
        [p.reference for p in parts], check.qrels, check.reference, None, read.source, read.notes
    )
    issue(reference.warnings)  # trec_eval's side, as its own evaluate() would
    reference_row = {q: i for i, q in enumerate(reference.query_ids)}
    run_set = {q for p in parts for q in p.reference.run_ids.to_pylist()}
    side = _recipe_side(parts, check, reference, reference_row, run_set, read.source)
    names = [str(m) for m in check.measures]
    diff_frame = _difference_frame(side, reference, reference_row, run_set, names)
    tie_frame, tie_means = _tie_table(parts, check, reference, read.source)
    return CrosscheckReport(
        recipe=recipe,
        protocol=protocol_obj,
        recipe_ties=check.ties,
        summary=_summary(names, reference, side.values, diff_frame, tie_means),
        differences=diff_frame,
        causes=cause_table(diff_frame),
        tie_queries=tie_frame,
        crashes=_crash_table(recipe, side.query_ids, side.crashes),
        recipe_per_query=pd.DataFrame(
            side.values, index=pd.Index(side.query_ids, name="query_id"), columns=names
        ),
        warnings=_warnings(read, check, reference, len(side.query_ids)),
        percent=protocol_obj.percent if protocol_obj is not None else recipe.percent,
        depth=_depth(reference),
    )


def _depth(reference: EvalResult) -> int | None:
    """The longest ranking the evaluation scored (``None``: not known, or nothing ranked)."""
    ranked = reference.ranked
    if ranked is None or not len(ranked.sizes):
        return None
    return int(np.max(ranked.sizes))


def _recipe_side(
    parts: list[CheckedPart],
    check: Check,
    reference: EvalResult,
    reference_row: Mapping[str, int],
    run_set: set[str],
    source: str,
) -> _RecipeSide:
    """The recipe's side of the whole run: its chunks' parts, and for a script that loops
    over the test set the qrels queries no chunk ranks, scored on an empty ranking."""
    qrels, recipe = check.qrels, check.recipe
    recipe_parts = [p.recipe for p in parts]
    if recipe.queries == "qrels":  # the test set's queries no chunk ranks: empty rankings
        unranked = [q for q in qrels.query_id_list if q not in run_set]
        nothing = empty_run(source)
        recipe_parts.append(recipe_part(nothing, unranked, check, reference_row, reference.values))
    return _recipe_in_order(recipe_parts, recipe, qrels, len(check.measures))


def _recipe_in_order(
    parts: list[RecipePart], recipe: Recipe, qrels: Qrels, width: int
) -> _RecipeSide:
    """The recipe's queries in the order its script averages them (the run's order for a
    loop over the predictions, the qrels' otherwise), with their values, crash flags and
    differences in that order."""
    query_ids = [q for p in parts for q in p.query_ids]
    if recipe.queries == "run":
        order = np.arange(len(query_ids))
    else:
        position = {q: i for i, q in enumerate(qrels.query_id_list)}
        order = np.argsort([position[q] for q in query_ids], kind="stable")
    values = np.vstack([np.empty((0, width)), *(p.values for p in parts)])[order]
    crashes = {
        c.when: np.concatenate([np.zeros(0, bool), *(p.crashes[c.when] for p in parts)])[order]
        for c in recipe.crashes
    }
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    found, first = [], 0
    for part in parts:
        found += [(rank[first + row], difference) for row, difference in part.differences]
        first += len(part.query_ids)
    found.sort(key=lambda pair: pair[0])  # stable: a query's measures stay in their order
    return _RecipeSide([query_ids[i] for i in order], values, crashes, [d for _, d in found])


def _difference_frame(
    side: _RecipeSide,
    reference: EvalResult,
    reference_row: Mapping[str, int],
    run_set: set[str],
    names: list[str],
) -> pd.DataFrame:
    """Every differing (query, measure): the recipe's, with their causes, then those of
    the queries only one side averages (trec_eval's without the recipe's: a missing query
    or one without a relevant paper; the recipe's without trec_eval's: a run-only query)."""
    differences = list(side.differences)
    scored_set = set(side.query_ids)
    for query_id, row in reference_row.items():
        if query_id not in scored_set:
            cause = "query_without_relevant" if query_id in run_set else "missing_query"
            differences += [
                (query_id, name, reference.values[row, c], math.nan, math.nan, cause)
                for c, name in enumerate(names)
            ]
    for row, query_id in enumerate(side.query_ids):
        if query_id not in reference_row:
            differences += [
                (query_id, name, math.nan, side.values[row, c], math.nan, "run_only_query")
                for c, name in enumerate(names)
            ]
    return pd.DataFrame(differences, columns=_DIFFERENCE_COLUMNS)


def _warnings(
    read: Read[CheckedPart], check: Check, reference: EvalResult, scored: int
) -> list[EvalWarning]:
    """The run's warnings as read, then trec_eval's: not its dropping of duplicates (which
    the recipe does not do), nor what reading already said (extra text, comments, sort);
    and, for a recipe that drops gold outside the pool, that no pool is known."""
    as_read = merge_warnings([*(p.run_warnings for p in read.results), read.notes])
    said = {w.code for w in as_read} | {"duplicate_docs_dropped"}
    warnings = as_read + [w for w in reference.warnings if w.code not in said]
    recipe = check.recipe
    if recipe.quirks.gold_in_pool and check.pool is None:
        warnings.append(
            EvalWarning(
                "pool_unknown",
                f"the {recipe.name} script drops gold papers outside the candidate pool; "
                "no pool is known (give pool= or a dataset), so every gold paper is kept",
                scored,
            )
        )
    return warnings


def _crash_table(
    recipe: Recipe, query_ids: list[str], crashes: dict[str, np.ndarray]
) -> pd.DataFrame:
    """One row per query on which the recipe's script would have stopped, and why."""
    columns = ["query_id", "exception", "line"]
    rows = []
    for crash in recipe.crashes:
        where = crashes[crash.when]
        rows += [(query_ids[i], crash.exception, crash.line) for i in np.flatnonzero(where)]
    return pd.DataFrame(rows, columns=columns)


def _tie_table(
    parts: list[CheckedPart], check: Check, reference: EvalResult, source: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """Per tied query and measure: the trec_eval value and its worst / expected / best
    over every order of the tied scores; and the three means over all counted queries
    (those no chunk ranks: over their empty ranking)."""
    columns = ["query_id", "measure", "trec_eval", "worst", "expected", "best"]
    qrels, measures = check.qrels, check.measures
    counted = counted_queries(qrels, check.reference.empty_queries)
    side_by_side = in_population_order(  # worst | expected | best, one block of columns each
        counted,
        qrels,
        [(part.reference.rows, np.hstack(part.tie_ranges)) for part in parts],
        3 * len(measures),
        lambda missing: np.hstack(tie_ranges(empty_run(source), qrels, missing, measures)),
    )
    worst, expected, best = np.hsplit(side_by_side, 3)
    means = np.vstack([worst.mean(axis=0), expected.mean(axis=0), best.mean(axis=0)])
    tied = reference.ties.query_ids if reference.ties else frozenset()
    rows = [i for i, q in enumerate(reference.query_ids) if q in tied]
    if not rows:
        return pd.DataFrame(columns=columns), means
    names = [str(m) for m in measures]
    out = pd.DataFrame(
        {
            "query_id": np.repeat([reference.query_ids[i] for i in rows], len(names)),
            "measure": np.tile(names, len(rows)),
            "trec_eval": reference.values[rows].ravel(),
            "worst": worst[rows].ravel(),
            "expected": expected[rows].ravel(),
            "best": best[rows].ravel(),
        }
    )
    return out, means


def _summary(names, reference, recipe_values, diff_frame, tie_means) -> pd.DataFrame:
    """One row per measure: both sides' means, their largest per-query difference, the
    queries that differ and the tie range of trec_eval's mean."""
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
