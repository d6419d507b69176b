"""``evaluate``: one run against one qrels, through ir-measures.

The population of queries follows ``trec_eval -c``: every qrels query counts, a qrels query
absent from the run scores 0, and run-only queries are ignored. Everything this changes or
ignores is returned as a counted :class:`~citeval_irm.errors.EvalWarning`.

Queries with no relevant document (only label-0 rows, or an empty ``{qid: {}}``) score 0 on
every measure in trec_eval and ir-measures, and so they do here by default
(``empty_queries="zero"``), with a warning that counts them; ``empty_queries="skip"`` leaves
them out of the average instead, as a benchmark that filters such queries would.
"""

from __future__ import annotations

from collections.abc import Iterable

import ir_measures
import numpy as np
import pandas as pd

from .errors import EvalWarning, InputError, examples_of
from .io import DUPLICATE_POLICIES, as_qrels, as_run
from .measures import PROTOCOLS, Measure, Protocol, get_protocol, parse_measures
from .results import EvalResult
from .tables import Qrels, Run
from .ties import rank_run

EMPTY_QUERY_POLICIES = ("zero", "skip")


def resolve_measures(
    measures: str | Measure | Iterable | None, protocol: str | Protocol | None
) -> tuple[list[Measure], Protocol | None]:
    """The measures to compute and the protocol (if any) they come from.

    ``measures`` may itself name a protocol (``evaluate(run, qrels, "goyal2026")``).
    """
    if isinstance(measures, str) and measures.strip() in PROTOCOLS and protocol is None:
        protocol, measures = measures.strip(), None
    if protocol is not None:
        protocol = get_protocol(protocol)
        if measures is None:
            return list(protocol.measures), protocol
        return parse_measures(measures), protocol
    if measures is None:
        raise InputError(None, "give measures (e.g. 'RR R@10 nDCG@10') or a protocol")
    return parse_measures(measures), None


def align_queries(
    run: Run, qrels: Qrels, empty_queries: str = "zero"
) -> tuple[Run, list[str], list[EvalWarning]]:
    """Restrict ``run`` to the queries that count and list those queries.

    Returns the restricted run, the counted query ids (qrels order) and the warnings.
    Shared by evaluation and the cross-check, so both average over the same queries.
    """
    if empty_queries not in EMPTY_QUERY_POLICIES:
        raise InputError(
            None, f"empty_queries must be one of {EMPTY_QUERY_POLICIES}, not {empty_queries!r}"
        )
    warnings: list[EvalWarning] = []
    qrels_ids = qrels.query_ids
    run_ids = run.query_ids
    common = qrels_ids.intersection(run_ids)
    if common.empty:
        raise InputError(
            None,
            f"the run ({run.source}) and the qrels ({qrels.source}) have no query in common: "
            f"run queries look like {list(examples_of(run_ids, 3))}, "
            f"qrels queries like {list(examples_of(qrels_ids, 3))}",
        )
    run_only = run_ids.difference(qrels_ids, sort=False)
    if len(run_only):
        warnings.append(
            EvalWarning(
                "run_only_queries",
                "run queries absent from the qrels: ignored",
                len(run_only),
                examples_of(run_only),
            )
        )
        keep = run.frame["query_id"].isin(qrels_ids).to_numpy()
        run = Run(run.frame[keep].reset_index(drop=True), run.source, list(run.warnings))
    missing = qrels_ids.difference(run_ids, sort=False)
    counted = list(qrels_ids)
    relevant = qrels.relevant_counts()
    empty = relevant.index[relevant.to_numpy() == 0]
    if len(empty):
        skip = empty_queries == "skip"
        warnings.append(
            EvalWarning(
                "queries_without_relevant",
                "qrels queries with no relevant document: "
                + ("left out of the average" if skip else "scored 0, as trec_eval does"),
                len(empty),
                examples_of(empty),
            )
        )
        if skip:
            empty_set = set(empty)
            counted = [q for q in counted if q not in empty_set]
            missing = missing.difference(empty, sort=False)
            if not counted:
                raise InputError(None, f"no query of {qrels.source} has a relevant document")
    if len(missing):
        warnings.append(
            EvalWarning(
                "missing_queries",
                "qrels queries with no ranking in the run: scored 0 (trec_eval -c)",
                len(missing),
                examples_of(missing),
            )
        )
    return run, counted, warnings


def evaluate(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    ties: str = "trec_eval",
    duplicates: str = "error",
    empty_queries: str = "zero",
) -> EvalResult:
    """Evaluate ``run`` against ``qrels`` with ir-measures (trec_eval semantics).

    ``run``: a TREC run path, DataFrame ``query_id, doc_id, score``, ``{qid: {doc: score}}``
    or records. ``qrels``: a TREC qrels path, DataFrame ``query_id, doc_id, relevance``,
    dict, records, or an ir_datasets dataset / id. ``measures``: ir-measures syntax
    (``"RR R@10 nDCG@10"``, ``MRR`` and ``HR@K`` accepted) or objects; or give
    ``protocol="goyal2026"`` / ``"masterset2026"``. ``ties``: ``"trec_eval"`` or
    ``"run_order"`` (see :mod:`citeval_irm.ties`). ``duplicates``: ``"error"`` or
    ``"keep_best"``. ``empty_queries``: ``"zero"`` or ``"skip"`` (see the module docstring).
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise InputError(
            None, f"duplicates must be one of {DUPLICATE_POLICIES}, not {duplicates!r}"
        )
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    qrels_table = as_qrels(qrels)
    run_table = as_run(run, duplicates=duplicates)
    warnings = list(run_table.warnings)
    run_table, counted, population_warnings = align_queries(run_table, qrels_table, empty_queries)
    run_source = run_table.source
    ranked, tie_report = rank_run(run_table, ties)
    del run_table  # only the ranked copy is needed from here: keep the peak memory down
    tie_warning = tie_report.warning()
    warnings += population_warnings + ([tie_warning] if tie_warning else [])

    counted_set = set(counted)
    qrels_dict = {q: d for q, d in qrels_table.to_dict().items() if q in counted_set}
    qrels_dict = _without_negative_labels(qrels_dict, measure_list)
    run_dict = ranked.to_dict()
    del ranked
    per_query = _per_query_values(measure_list, qrels_dict, run_dict, counted)
    aggregate = _aggregate(measure_list, per_query)
    return EvalResult(
        measures=measure_list,
        per_query=per_query,
        aggregate=aggregate,
        warnings=warnings,
        protocol=protocol_obj,
        ties=tie_report,
        run_source=run_source,
        qrels_source=qrels_table.source,
    )


# Measures for which a negative label means exactly what label 0 means (not relevant, gain 0).
_SIGN_BLIND = {"RR", "R", "P", "Success", "nDCG", "AP", "Rprec", "NumRet", "NumRel", "NumQ"}


def _without_negative_labels(qrels: dict, measures: list[Measure]) -> dict:
    """Negative labels as 0 when no measure can tell them apart.

    pytrec_eval 0.5 can hang for ever in ``ndcg`` on a query whose only labels are negative
    when an earlier evaluator ran in the same process; for the measures in ``_SIGN_BLIND``
    label -1 and label 0 give identical values, so mapping one to the other is exact.
    """
    blind = all(m.NAME in _SIGN_BLIND and "gains" not in m.params for m in measures)
    if not blind or not any(v < 0 for docs in qrels.values() for v in docs.values()):
        return qrels
    return {q: {d: max(v, 0) for d, v in docs.items()} for q, docs in qrels.items()}


def _per_query_values(
    measures: list[Measure], qrels: dict, run: dict, counted: list[str]
) -> pd.DataFrame:
    columns = [str(m) for m in measures]
    position = {q: i for i, q in enumerate(counted)}
    # Providers hand back the measure objects they were given: look them up by identity
    # (hashing a measure formats its repr, which costs seconds over a million metrics).
    by_identity = {id(m): i for i, m in enumerate(measures)}
    by_name = {name: i for i, name in enumerate(columns)}
    rows, cols, vals = [], [], []
    for metric in ir_measures.iter_calc(measures, qrels, run):
        row = position.get(metric.query_id)
        if row is not None:
            column = by_identity.get(id(metric.measure))
            rows.append(row)
            cols.append(column if column is not None else by_name[str(metric.measure)])
            vals.append(metric.value)
    array = np.full((len(counted), len(measures)), np.nan)
    array[rows, cols] = vals
    # A measure a provider does not report for a query it has no ranking for is its default.
    for column, measure in enumerate(measures):
        array[np.isnan(array[:, column]), column] = measure.DEFAULT
    return pd.DataFrame(array, index=pd.Index(counted, name="query_id"), columns=columns)


def _aggregate(measures: list[Measure], per_query: pd.DataFrame) -> pd.Series:
    out = {}
    for measure in measures:
        aggregator = measure.aggregator()
        for value in per_query[str(measure)].to_numpy().tolist():
            aggregator.add(value)
        out[str(measure)] = aggregator.result()
    return pd.Series(out, name="value", dtype=float)
