"""Which queries count, the one rule (``trec_eval -c``): every qrels query counts, a qrels
query absent from the run scores 0, and run-only queries are ignored; with
``empty_queries="skip"``, a qrels query with no relevant document is left out of the
average instead of scoring 0. Everything this changes or ignores is a counted
:class:`~citeval_irm.base.errors.EvalWarning`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..base.choices import EMPTY_QUERY_POLICIES, check_choice
from ..base.errors import EvalWarning, InputError, examples_of
from ..reading.tables import Qrels, Run, lookup, take


@dataclass
class Population:
    """Which queries are averaged: positions in ``qrels.all_query_ids``, in qrels order."""

    counted: np.ndarray
    query_ids: list[str]
    warnings: list[EvalWarning]
    qrels_source: str = "<qrels>"


def population(run: Run, qrels: Qrels, empty_queries: str = "zero") -> Population:
    """The queries that count and the warnings about the others (trec_eval ``-c``).

    Shared by evaluation and the cross-check, so both average over the same queries.
    """
    present, _ = run.ranked_queries()
    return population_of(take(run.query_ids, present), run.source, qrels, empty_queries)


def counted_queries(qrels: Qrels, empty_queries: str = "zero") -> np.ndarray:
    """Positions in ``qrels.all_query_ids`` of the queries that count, whatever the run:
    every one, or (``"skip"``) those with a relevant doc."""
    if empty_queries == "skip":
        return np.flatnonzero(qrels.relevant_per_query() > 0)
    return np.arange(len(qrels.all_query_ids))


def population_of(
    run_ids: pa.Array, run_source: str, qrels: Qrels, empty_queries: str = "zero"
) -> Population:
    """:func:`population` from the run's query ids alone (first-appearance order): what a
    run read in chunks, or on many workers, collects of itself."""
    check_choice("empty_queries", empty_queries, EMPTY_QUERY_POLICIES)
    warnings: list[EvalWarning] = []
    qrels_ids = qrels.all_query_ids
    in_qrels = lookup(run_ids, qrels_ids)
    if not (in_qrels >= 0).any():
        raise InputError(
            None,
            f"the run ({run_source}) and the qrels ({qrels.source}) have no query in common: "
            f"run queries look like {run_ids[:3].to_pylist()}, "
            f"qrels queries like {qrels_ids[:3].to_pylist()}",
        )
    run_only = np.flatnonzero(in_qrels < 0)
    if run_only.size:
        message = "run queries absent from the qrels: ignored"
        warnings.append(_queries_warning("run_only_queries", message, run_ids, run_only))
    in_run = np.zeros(len(qrels_ids), dtype=bool)
    in_run[in_qrels[in_qrels >= 0]] = True
    counted = counted_queries(qrels, empty_queries)
    empty = np.flatnonzero(qrels.relevant_per_query() == 0)
    if empty.size:
        skip = empty_queries == "skip"
        message = "qrels queries with no relevant document: " + (
            "left out of the average" if skip else "scored 0, as trec_eval does"
        )
        warnings.append(_queries_warning("queries_without_relevant", message, qrels_ids, empty))
        if skip:
            in_run[empty] = True  # not counted, so not missing either
            if not counted.size:
                raise InputError(None, f"no query of {qrels.source} has a relevant document")
    missing = np.flatnonzero(~in_run)
    if missing.size:
        message = "qrels queries with no ranking in the run: scored 0 (trec_eval -c)"
        warnings.append(_queries_warning("missing_queries", message, qrels_ids, missing))
    query_ids = take(qrels_ids, counted).to_pylist()
    return Population(counted, query_ids, warnings, qrels.source)


def _queries_warning(code: str, message: str, ids: pa.Array, positions: np.ndarray) -> EvalWarning:
    """The warning ``code`` about the queries of ``ids`` at ``positions``: their count and
    the first few as examples."""
    examples = examples_of(take(ids, positions[:5]).to_pylist())
    return EvalWarning(code, message, int(positions.size), examples)
