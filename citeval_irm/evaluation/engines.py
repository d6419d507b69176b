"""The engines that compute a chunk's per-query values.

``"citeval"`` (the default) computes every measure of the measure table with the columnar
kernels of :mod:`citeval_irm.scoring` and hands any other ir-measures measure to
ir-measures' own pipeline (from one place, :func:`_ir_measures_values`); ``"pytrec_eval"``
computes every measure of the table by its reference (:mod:`citeval_irm.scoring.reference`:
trec_eval's C code through pytrec_eval, or the row's own reference where trec_eval has
none), the one the kernels are tested against, and any other through ir-measures.
``verify=True`` computes both and raises :class:`VerificationError` on any difference.
"""

from __future__ import annotations

import subprocess

import numpy as np

from ..base.errors import CitevalError, InputError
from ..base.measures import Measure
from ..reading.tables import Qrels, Run
from ..reading.ties import rank_run
from ..scoring import Rankings, build_rankings, definition, reads_gains, score_matrix, sign_blind
from ..scoring.reference import reference_values
from .population import Population
from .settings import Settings

VERIFY_TOLERANCE = 1e-9


class VerificationError(CitevalError):
    """``verify=True`` found the two engines disagreeing (a bug: please report it)."""


def engine_values(
    settings: Settings, run: Run, qrels: Qrels, population: Population, order
) -> tuple[np.ndarray, Rankings | None]:
    """Per-query values of ``population``'s queries (rows) by the chosen engine (the
    kernels, the references, or both, verified), and the rankings the kernels scored
    (``None`` when they scored none), for a caller that scores more from them.

    The measures of the table are computed by the kernels (``"citeval"``) or their
    references (``"pytrec_eval"``); any other one by ir-measures' pipeline, the same for
    both engines."""
    measure_list = settings.measures
    engine = "citeval" if settings.engine == "dask" else settings.engine
    native = [i for i, m in enumerate(measure_list) if definition(m) is not None]
    others = [i for i in range(len(measure_list)) if i not in native]
    table_measures = [measure_list[i] for i in native]
    shape = (len(population.query_ids), len(measure_list))
    rest = None  # the others' values, computed once for both engines
    values = reference = np.empty(shape)
    rankings = None
    if engine == "citeval" or settings.verify:
        if native:
            rankings = build_rankings(run, qrels, population.counted, order)
            values[:, native] = score_matrix(table_measures, rankings)
        if others:
            rest = _ir_measures_values(
                [measure_list[i] for i in others], run, qrels, population, order
            )
            values[:, others] = rest
    if engine == "pytrec_eval" or settings.verify:
        reference = np.empty(shape)
        if native:
            qrels_dict, run_dict = _reference_inputs(table_measures, run, qrels, population, order)
            reference[:, native] = reference_values(
                table_measures, qrels_dict, run_dict, population.query_ids
            )
        if others:
            if rest is None:
                rest = _ir_measures_values(
                    [measure_list[i] for i in others], run, qrels, population, order
                )
            reference[:, others] = rest
        if settings.verify:
            _verify(values, reference, measure_list, population.query_ids)
        values = reference if engine == "pytrec_eval" else values
    return values, rankings


def _reference_inputs(measures, run: Run, qrels: Qrels, population: Population, order):
    """The qrels and the run as the dict-of-dicts the reference engines take: the run in
    its rank ``order`` with strictly decreasing scores, every counted query (an empty
    ranking where the run has none: pytrec_eval then computes trec_eval -c)."""
    ranked, _ = rank_run(run, order.policy, order=order)
    counted = set(population.query_ids)
    qrels_dict = {q: d for q, d in qrels.to_dict().items() if q in counted}
    if all(sign_blind(m) for m in measures):
        # exact for these measures, and pytrec_eval 0.5 can hang for ever in ``ndcg`` on a
        # query whose only labels are negative once an earlier evaluator ran
        qrels_dict = {q: {d: max(v, 0) for d, v in docs.items()} for q, docs in qrels_dict.items()}
    qrels_dict = _few_label_levels(qrels_dict, measures, qrels)
    run_dict = ranked.to_dict()
    return qrels_dict, {q: run_dict.get(q, {}) for q in population.query_ids}


def _ir_measures_values(measures, run: Run, qrels: Qrels, population: Population, order):
    """Per-query values through ir-measures' pipeline (the measures outside the table)."""
    import ir_measures

    qrels_dict, run_dict = _numbered(*_reference_inputs(measures, run, qrels, population, order))
    position = {str(i): i for i in range(len(population.query_ids))}
    # Providers hand back the measure objects they were given: look them up by identity
    # (hashing a measure formats its repr, which costs seconds over a million metrics).
    by_identity = {id(m): i for i, m in enumerate(measures)}
    by_name = {str(m): i for i, m in enumerate(measures)}
    values = np.full((len(population.query_ids), len(measures)), np.nan)
    try:
        for group in _separate_invocations(measures):
            for metric in ir_measures.iter_calc(group, qrels_dict, run_dict):
                row = position.get(metric.query_id)
                if row is not None:
                    column = by_identity.get(id(metric.measure))
                    if column is None:
                        column = by_name[str(metric.measure)]
                    values[row, column] = metric.value
    except (ValueError, TypeError, RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        # a provider of ir-measures that cannot take this input (pytrec_eval's rel >= 1, the
        # gdeval perl script on non-numeric ids, a provider not installed): say which
        names = ", ".join(str(m) for m in measures)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(None, f"ir-measures could not compute {names}: {reason}") from None
    # A measure a provider does not report for a query it has no ranking for is its default.
    for column, measure in enumerate(measures):
        values[np.isnan(values[:, column]), column] = measure.DEFAULT
    return values


def _numbered(qrels_dict: dict, run_dict: dict) -> tuple[dict, dict]:
    """The qrels and the run with every query and doc id replaced by a number (queries by
    their position in ``run_dict``, docs in order of appearance): some providers of
    ir-measures take numeric ids only (gdeval's perl script, for ``ERR@k``, rejects
    ``P15-1001_N04-1019_0`` with a "format error"), and
    the run's scores already fix the order, so no id is needed to break a tie."""
    query = {q: str(i) for i, q in enumerate(run_dict)}
    doc: dict[str, str] = {}

    def number(docs: dict) -> dict:
        return {doc.setdefault(d, str(len(doc))): v for d, v in docs.items()}

    return (
        {query[q]: number(docs) for q, docs in qrels_dict.items()},
        {query[q]: number(docs) for q, docs in run_dict.items()},
    )


def _separate_invocations(measures) -> list[list[Measure]]:
    """``measures`` in groups ir-measures computes apart, so no value depends on the hash
    seed: its pytrec_eval provider puts ``NumRet`` (and ``NumQ``, ``nDCG``) into whichever
    pytrec_eval invocation it built first, and the measures come to it as a ``set`` (in hash
    order, ``PYTHONHASHSEED``); when that first one is a ``judged_only`` one (trec_eval
    ``-J``), ``NumRet`` counts the judged docs only. Measures with and without
    ``judged_only`` are therefore never handed over together."""
    groups: dict[bool, list[Measure]] = {}
    for measure in measures:
        groups.setdefault(bool(measure.params.get("judged_only", False)), []).append(measure)
    return list(groups.values())


PYTREC_EVAL_LEVELS = 1_000  # pytrec_eval allocates memory for every level up to the largest


def _few_label_levels(qrels_dict: dict, measures, qrels: Qrels) -> dict:
    """Labels pytrec_eval can take: it allocates per relevance level up to the largest label
    (2^31 - 1 costs 17 GB and half a minute). For measures that only compare a label with
    their ``rel`` threshold (and with 0, for judged), each label is replaced by the largest
    threshold it reaches: exact, and small. Gains (nDCG, measures outside the table) need
    the labels themselves, so large ones are an error pointing to the default engine."""
    if not len(qrels) or int(np.abs(qrels.relevance).max()) <= PYTREC_EVAL_LEVELS:
        return qrels_dict
    if any(reads_gains(m) for m in measures):
        raise InputError(
            qrels.source,
            f"relevance labels up to {int(np.abs(qrels.relevance).max()):,}: pytrec_eval "
            f"allocates memory for every level, and the gains of {', '.join(map(str, measures))} "
            f"need the labels themselves; use the default engine (engine='citeval', "
            f"--engine citeval) for labels beyond {PYTREC_EVAL_LEVELS:,}",
        )
    thresholds = sorted({0} | {int(m.params.get("rel", 1)) for m in measures})

    def level(label: int) -> int:
        reached = [t for t in thresholds if t <= label]
        return reached[-1] if reached else thresholds[0] - 1

    return {q: {d: level(v) for d, v in docs.items()} for q, docs in qrels_dict.items()}


def _verify(values: np.ndarray, reference: np.ndarray, measures, query_ids) -> None:
    gap = np.abs(values - reference)
    if not (gap > VERIFY_TOLERANCE).any():
        return
    row, column = np.argwhere(gap > VERIFY_TOLERANCE)[0]
    count = int((gap > VERIFY_TOLERANCE).sum())
    raise VerificationError(
        f"engines disagree on {count} (query, measure) value(s); first: query "
        f"{query_ids[row]!r}, {measures[column]}: citeval {float(values[row, column])!r}, "
        f"pytrec_eval {float(reference[row, column])!r}"
    )
