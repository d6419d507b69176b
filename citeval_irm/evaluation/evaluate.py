"""``evaluate``: one run against one qrels, with trec_eval's semantics.

The population of queries follows ``trec_eval -c``: every qrels query counts, a qrels query
absent from the run scores 0, and run-only queries are ignored. Everything this changes or
ignores is returned as a counted :class:`~citeval_irm.base.errors.EvalWarning`.

Queries with no relevant document (only label-0 rows, or an empty ``{qid: {}}``) score 0 on
every measure in trec_eval and ir-measures, and so they do here by default
(``empty_queries="zero"``), with a warning that counts them; ``empty_queries="skip"`` leaves
them out of the average instead, as a benchmark that filters such queries would.

Engines: ``"citeval"`` (the default) computes every measure of the measure table with the
columnar kernels of :mod:`citeval_irm.scoring` and hands any other ir-measures measure to
ir-measures' own pipeline; ``"pytrec_eval"`` computes every measure of the table by its
reference (:mod:`citeval_irm.scoring.reference`: trec_eval's C code through pytrec_eval, or
the row's own reference where trec_eval has none), the one the kernels are tested against,
and any other through ir-measures. ``verify=True`` computes both and raises on any
difference.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa

from ..base.choices import EMPTY_QUERY_POLICIES, check_choice
from ..base.errors import CitevalError, EvalWarning, InputError, examples_of, issue
from ..base.measures import Measure, Protocol, parse_measures
from ..base.options import EvalOptions, options_from
from ..papers import PROTOCOLS, get_protocol
from ..reading.io import as_qrels
from ..reading.sources import read_in_chunks
from ..reading.tables import Qrels, Run, lookup, take
from ..reading.ties import TieReport, rank_order, rank_run, tie_report
from ..scoring import (
    aggregate,
    build_rankings,
    reads_gains,
    score_matrix,
    sign_blind,
    supports,
)
from ..scoring.reference import reference_values
from .depth import short_ranking_warnings
from .fingerprint import qrels_fingerprint
from .results import EvalResult, RankedQueries

VERIFY_TOLERANCE = 1e-9


class VerificationError(CitevalError):
    """``verify=True`` found the two engines disagreeing (a bug: please report it)."""


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
        warnings.append(
            EvalWarning(
                "run_only_queries",
                "run queries absent from the qrels: ignored",
                int(run_only.size),
                examples_of(take(run_ids, run_only[:5]).to_pylist()),
            )
        )
    in_run = np.zeros(len(qrels_ids), dtype=bool)
    in_run[in_qrels[in_qrels >= 0]] = True
    counted = counted_queries(qrels, empty_queries)
    empty = np.flatnonzero(qrels.relevant_per_query() == 0)
    if empty.size:
        skip = empty_queries == "skip"
        warnings.append(
            EvalWarning(
                "queries_without_relevant",
                "qrels queries with no relevant document: "
                + ("left out of the average" if skip else "scored 0, as trec_eval does"),
                int(empty.size),
                examples_of(take(qrels_ids, empty[:5]).to_pylist()),
            )
        )
        if skip:
            in_run[empty] = True  # not counted, so not missing either
            if not counted.size:
                raise InputError(None, f"no query of {qrels.source} has a relevant document")
    missing = np.flatnonzero(~in_run)
    if missing.size:
        warnings.append(
            EvalWarning(
                "missing_queries",
                "qrels queries with no ranking in the run: scored 0 (trec_eval -c)",
                int(missing.size),
                examples_of(take(qrels_ids, missing[:5]).to_pylist()),
            )
        )
    query_ids = take(qrels_ids, counted).to_pylist()
    return Population(counted, query_ids, warnings, qrels.source)


def evaluate(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    options: EvalOptions | None = None,
) -> EvalResult:
    """Evaluate ``run`` against ``qrels`` with trec_eval's semantics.

    One call gives the mean of every measure, its per-query values and the warnings a
    reviewer would ask about (queries without a ranking, ties, short rankings), computed as
    trec_eval computes them so the numbers match a paper's trec_eval output.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        A TREC run file (plain or gzip), Parquet (a file, a folder of files or a URL), a
        DataFrame ``query_id, doc_id, score`` (or PyTerrier's ``qid, docno, score``),
        ``{qid: {doc: score}}`` or records.
    qrels : path, Parquet, DataFrame, dict, records, Qrels or ir_datasets dataset / id
        A TREC qrels file, Parquet, a DataFrame ``query_id, doc_id, relevance`` (or ``qid,
        docno, label``), a dict, records, or an ir_datasets dataset or id.
    measures : str, Measure or iterable, optional
        ir-measures syntax (``"RR R@10 nDCG@10"``; ``MRR`` and ``HR@K`` accepted) or measure
        objects. Default: the protocol's measures.
    protocol : str or Protocol, optional
        A paper's protocol (``"goyal2026"``, ``"masterset2026"``): its measures and unit.
    options : EvalOptions, optional
        How the run is read, ranked and scored, and how the result prints:
        ``ties`` (``"trec_eval"`` or ``"run_order"``), ``duplicates`` (``"error"`` or
        ``"keep_best"``), ``empty_queries`` (``"zero"`` or ``"skip"``), ``max_docs``
        (trec_eval's ``-M``), ``engine`` (``"citeval"``, ``"pytrec_eval"`` or ``"dask"``, with
        ``scheduler``), ``verify`` (both engines; :class:`VerificationError` on a per-query
        difference above 1e-9), ``memory`` (a run file expected to need more is read in
        chunks of whole queries, with the same result), ``progress``, ``percent`` and
        ``decimals``. Default: an :class:`~citeval_irm.EvalOptions` of defaults.

    Returns
    -------
    EvalResult
        ``aggregate`` (measure -> mean), ``per_query`` (query -> measure -> value),
        ``warnings``; ``format()`` prints it, ``to_frame()`` gives the per-query table.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test", progress=False)
    >>> result = citeval_irm.evaluate(run, "citeval/demo/test", "RR R@10")
    >>> result.aggregate["RR"]  # doctest: +SKIP
    0.3003
    >>> exact = citeval_irm.evaluate(
    ...     run, "citeval/demo/test", protocol="goyal2026",
    ...     options=citeval_irm.EvalOptions(ties="run_order"),
    ... )
    """
    (options,) = options_from("evaluate", (options, EvalOptions))
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    qrels_table = as_qrels(qrels)
    result = _evaluate(run, qrels_table, Settings(measure_list, options), protocol_obj)
    issue(result.warnings)
    return result


def _evaluate(run, qrels_table: Qrels, settings: Settings, protocol_obj) -> EvalResult:
    """One path whatever the run: its chunks of whole queries (one chunk in memory, many
    streamed, partitions on Dask) each scored by :func:`score_part`, merged once by
    :func:`merge_parts`."""
    options = settings.options
    # what each chunk is scored with: the Dask client itself does not travel
    travelling = replace(settings, options=replace(options, scheduler=None))
    read = read_in_chunks(
        run,
        functools.partial(score_part, qrels=qrels_table, settings=travelling),
        duplicates=settings.duplicates,
        memory=options.memory,
        progress=options.progress,
        dask=settings.engine == "dask",
        scheduler=options.scheduler,
    )
    return merge_parts(read.results, qrels_table, settings, protocol_obj, read.source, read.notes)


@dataclass(frozen=True)
class Settings:
    """How a run is evaluated: its measures and its options, what every piece of a run
    read in parts is scored with."""

    measures: list[Measure]
    options: EvalOptions = field(default_factory=EvalOptions)

    ties = property(lambda self: self.options.ties)
    duplicates = property(lambda self: self.options.duplicates)
    empty_queries = property(lambda self: self.options.empty_queries)
    engine = property(lambda self: self.options.engine)
    verify = property(lambda self: self.options.verify)
    max_docs = property(lambda self: self.options.max_docs)  # trec_eval -M


def engine_values(settings: Settings, run: Run, qrels: Qrels, people: Population, order):
    """Per-query values of ``people``'s queries (rows) by the chosen engine (the kernels,
    the references, or both, verified)."""
    measure_list = settings.measures
    engine = "citeval" if settings.engine == "dask" else settings.engine
    if engine == "citeval" or settings.verify:
        values = _citeval_values(measure_list, run, qrels, people, order)
    if engine == "pytrec_eval" or settings.verify:
        reference = _reference_engine_values(measure_list, run, qrels, people, order)
        if settings.verify:
            _verify(values, reference, measure_list, people.query_ids)
        values = reference if engine == "pytrec_eval" else values
    return values


# --------------------------------------------------------------------------- parts


@dataclass
class Part:
    """What scoring one chunk of whole queries leaves: its per-query values and the facts
    the whole run's population, warnings and tie report are made of."""

    rows: np.ndarray  # positions in qrels.all_query_ids of the counted queries scored
    values: np.ndarray  # one row per position of ``rows``
    run_ids: pa.Array  # the chunk's run queries, first-appearance order
    sizes: np.ndarray  # rows of each of ``run_ids``
    tie_examples: tuple[str, ...]
    tie_ids: frozenset[str]
    tied_docs: int
    warnings: list[EvalWarning]


def score_part(run: Run, qrels: Qrels, settings: Settings) -> Part:
    """Score the queries of ``run`` (whole queries, any subset of a run) that count."""
    present, sizes = run.ranked_queries()
    run_ids = take(run.query_ids, present)
    counted = np.zeros(len(qrels.all_query_ids), dtype=bool)
    counted[counted_queries(qrels, settings.empty_queries)] = True
    in_qrels = lookup(run_ids, qrels.all_query_ids)
    rows = in_qrels[in_qrels >= 0]
    rows = rows[counted[rows]]
    people = Population(rows, take(qrels.all_query_ids, rows).to_pylist(), [], qrels.source)
    order = rank_order(run, settings.ties, settings.max_docs)
    report = tie_report(run, order)
    values = engine_values(settings, run, qrels, people, order)
    return Part(
        rows,
        values,
        run_ids,
        sizes,
        report.examples,
        report.query_ids,
        report.tied_docs,
        list(run.warnings),
    )


def empty_run(source: str = "<run>") -> Run:
    """A run with no row: what a query no chunk ranks is scored on."""
    no_ids = pa.nulls(0, pa.string())
    empty = np.zeros(0, dtype=np.int32)
    return Run(empty, no_ids, empty.copy(), no_ids, np.zeros(0), source)


def unranked_values(
    settings: Settings, qrels: Qrels, positions: np.ndarray, source: str = "<run>"
) -> np.ndarray:
    """Per-query values of the qrels queries at ``positions`` (in ``all_query_ids``) when
    the run ranks none of them: each scored on an empty ranking, as ``trec_eval -c``."""
    nothing = empty_run(source)
    left = Population(positions, take(qrels.all_query_ids, positions).to_pylist(), [])
    return engine_values(settings, nothing, qrels, left, rank_order(nothing, settings.ties))


_RUN_WARNING_ORDER = (
    "duplicate_docs_dropped",
    "duplicate_docs_kept",
    "run_extra_text",
    "run_comment_lines",
)


def merge_warnings(lists: Iterable[list[EvalWarning]]) -> list[EvalWarning]:
    """One warning per code: counts added, the first examples kept, in the order the
    in-memory reader gives them (one list alone, a run read whole, stays as it is)."""
    lists = [list(warnings) for warnings in lists if warnings]
    if len(lists) == 1:
        return lists[0]
    merged: dict[str, EvalWarning] = {}
    for warnings in lists:
        for w in warnings:
            known = merged.get(w.code)
            if known is None:
                merged[w.code] = w
            else:
                examples = examples_of((*known.examples, *w.examples))
                merged[w.code] = replace(known, count=known.count + w.count, examples=examples)
    rank = {code: i for i, code in enumerate(_RUN_WARNING_ORDER)}
    return sorted(merged.values(), key=lambda w: rank.get(w.code, len(rank)))


def in_population_order(
    counted: np.ndarray,
    qrels: Qrels,
    pieces: Iterable[tuple[np.ndarray, np.ndarray]],
    width: int,
    unranked: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Per-query rows of the chunks (``pieces``: positions in ``qrels.all_query_ids`` and
    their rows) in the order of the ``counted`` queries; those no chunk holds from
    ``unranked(positions)``, as the empty ranking scores them. What every merge of a run
    read in chunks (its values, the cross-check's tie ranges) puts together."""
    row_of = np.full(len(qrels.all_query_ids), -1, dtype=np.int64)
    row_of[counted] = np.arange(len(counted))
    out = np.zeros((len(counted), width))
    scored = np.zeros(len(qrels.all_query_ids), dtype=bool)
    for rows, values in pieces:
        out[row_of[rows]] = values
        scored[rows] = True
    missing = counted[~scored[counted]]
    if missing.size:
        out[row_of[missing]] = unranked(missing)
    return out


def merge_parts(
    parts: list[Part],
    qrels: Qrels,
    settings: Settings,
    protocol,
    source: str,
    notes: list[EvalWarning] | None = None,
) -> EvalResult:
    """The evaluation of a whole run from its parts (in run order): per-query rows put in
    the population's order, the queries no part ranks scored on an empty ranking, the
    warnings and tie report of the whole run (``notes``: warnings of reading the run that
    no part holds, merged with theirs)."""
    run_ids = pa.concat_arrays([p.run_ids for p in parts]) if parts else pa.nulls(0, pa.string())
    people = population_of(run_ids, source, qrels, settings.empty_queries)
    values = in_population_order(
        people.counted,
        qrels,
        [(p.rows, p.values) for p in parts],
        len(settings.measures),
        lambda missing: unranked_values(settings, qrels, missing, source),
    )
    report = TieReport(
        settings.ties,
        sum(p.tied_docs for p in parts),
        examples_of(e for p in parts for e in p.tie_examples),
        frozenset().union(*(p.tie_ids for p in parts)),
    )
    tie_warning = report.warning()
    warnings = (
        merge_warnings([*(p.warnings for p in parts), list(notes or [])])
        + list(qrels.warnings)
        + people.warnings
        + ([tie_warning] if tie_warning else [])
    )
    sizes = np.concatenate([p.sizes for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    ranked = RankedQueries(run_ids.to_pylist(), sizes)
    result = make_result(
        settings, people, values, warnings, report, protocol, source, qrels.source, ranked
    )
    result.qrels_fingerprint = qrels_fingerprint(qrels)  # what a comparison checks it against
    return result


def make_result(
    settings: Settings,
    people: Population,
    values: np.ndarray,
    warnings: list[EvalWarning],
    report,
    protocol: Protocol | None,
    run_source: str,
    qrels_source: str | None = None,
    ranked: RankedQueries | None = None,
) -> EvalResult:
    """The :class:`EvalResult` of per-query values: aggregates computed here, once, and
    the rankings shorter than a cut-off (counted warnings), whichever path read the run."""
    measure_list = settings.measures
    if ranked is not None:
        ranked = ranked.cut(settings.max_docs)
        warnings = warnings + short_ranking_warnings(ranked, measure_list, people.query_ids)
    aggregates = {str(m): aggregate(m, values[:, i]) for i, m in enumerate(measure_list)}
    return EvalResult(
        measures=measure_list,
        query_ids=people.query_ids,
        values=values,
        aggregates=aggregates,
        warnings=warnings,
        protocol=protocol,
        ties=report,
        run_source=run_source,
        qrels_source=qrels_source if qrels_source is not None else people.qrels_source,
        engine=settings.engine,
        ranked=ranked,
        options=replace(settings.options, scheduler=None),  # no client inside a result
    )


def _citeval_values(measures, run: Run, qrels: Qrels, people: Population, order):
    """Every measure of the table by the kernels; any other one by ir-measures."""

    def kernels(table_measures):
        rankings = build_rankings(run, qrels, people.counted, order)
        return score_matrix(table_measures, rankings)

    return _table_or_ir_measures(measures, kernels, run, qrels, people, order)


def _reference_engine_values(measures, run: Run, qrels: Qrels, people: Population, order):
    """Every measure of the table by its reference (trec_eval's C code through pytrec_eval,
    or the row's declared one); any other one by ir-measures."""

    def references(table_measures):
        qrels_dict, run_dict = _reference_inputs(table_measures, run, qrels, people, order)
        return reference_values(table_measures, qrels_dict, run_dict, people.query_ids)

    return _table_or_ir_measures(measures, references, run, qrels, people, order)


def _table_or_ir_measures(measures, table_values, run, qrels, people: Population, order):
    """Per-query values: the table's measures by ``table_values``, the others through
    ir-measures' pipeline."""
    native = [i for i, m in enumerate(measures) if supports(m)]
    values = np.empty((len(people.query_ids), len(measures)))
    if native:
        values[:, native] = table_values([measures[i] for i in native])
    others = [i for i in range(len(measures)) if i not in native]
    if others:
        rest = _ir_measures_values([measures[i] for i in others], run, qrels, people, order)
        values[:, others] = rest
    return values


def _reference_inputs(measures, run: Run, qrels: Qrels, people: Population, order):
    """The qrels and the run as the dict-of-dicts the reference engines take: the run in
    its rank ``order`` with strictly decreasing scores, every counted query (an empty
    ranking where the run has none: pytrec_eval then computes trec_eval -c)."""
    ranked, _ = rank_run(run, order.policy, order=order)
    counted = set(people.query_ids)
    qrels_dict = {q: d for q, d in qrels.to_dict().items() if q in counted}
    if all(sign_blind(m) for m in measures):
        # exact for these measures, and pytrec_eval 0.5 can hang for ever in ``ndcg`` on a
        # query whose only labels are negative once an earlier evaluator ran
        qrels_dict = {q: {d: max(v, 0) for d, v in docs.items()} for q, docs in qrels_dict.items()}
    qrels_dict = _few_label_levels(qrels_dict, measures, qrels)
    run_dict = ranked.to_dict()
    return qrels_dict, {q: run_dict.get(q, {}) for q in people.query_ids}


def _ir_measures_values(measures, run: Run, qrels: Qrels, people: Population, order):
    """Per-query values through ir-measures' pipeline (the measures outside the table)."""
    import ir_measures

    qrels_dict, run_dict = _numbered(*_reference_inputs(measures, run, qrels, people, order))
    position = {str(i): i for i in range(len(people.query_ids))}
    # Providers hand back the measure objects they were given: look them up by identity
    # (hashing a measure formats its repr, which costs seconds over a million metrics).
    by_identity = {id(m): i for i, m in enumerate(measures)}
    by_name = {str(m): i for i, m in enumerate(measures)}
    values = np.full((len(people.query_ids), len(measures)), np.nan)
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
    ir-measures take numeric ids only (gdeval's perl script, for ``ERR@k`` and
    ``nDCG(dcg='exp-log2')``, rejects ``P15-1001_N04-1019_0`` with a "format error"), and
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
