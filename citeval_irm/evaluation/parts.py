"""The one scoring of a chunk of whole queries (:func:`score_part`), the one result of a
run's queries (:func:`result_of`) and the one merge of a run's chunks (:func:`merge_parts`:
their parts made one, then its result).

Every run goes through them, whichever way it was read (one chunk in memory, many
streamed, partitions on Dask): a chunk is ranked (the tie policy and ``max_docs``), its
tie facts, its queries and its warnings are collected, and its counted queries are scored
by the engines; a run read whole is one part, whose result is made at once; the parts of a
run read in chunks are merged into one first (warnings in the in-memory order, the tie
report). The result makes the population of the whole run and scores the queries no part
ranks on an empty ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from ..base.errors import EvalWarning, examples_of
from ..reading.tables import Qrels, Run, lookup_unique, take
from ..reading.ties import TieReport, rank_order, tie_report
from ..scoring import Rankings, aggregate
from .depth import short_ranking_warning, short_rankings
from .engines import engine_values
from .fingerprint import qrels_fingerprint
from .population import Population, counted_queries, population_of
from .results import EvalResult, RankedQueries
from .settings import Settings


@dataclass
class Part:
    """What scoring one chunk of whole queries leaves: its per-query values and the facts
    the whole run's population, warnings and tie report are made of."""

    rows: np.ndarray  # positions in qrels.all_query_ids of the counted queries scored
    values: np.ndarray  # one row per position of ``rows``
    run_ids: pa.Array  # the chunk's run queries, first-appearance order
    sizes: np.ndarray  # rows of each of ``run_ids``
    ties: TieReport
    warnings: list[EvalWarning]
    # the rankings the kernels scored (None: another engine), which a caller may score
    # further (the cross-check's tie ranges) rather than build them again
    rankings: Rankings | None = None


def score_part(run: Run, qrels: Qrels, settings: Settings) -> Part:
    """Score the queries of ``run`` (whole queries, any subset of a run) that count."""
    present, sizes = run.ranked_queries()
    run_ids = take(run.query_ids, present)
    counted = np.zeros(len(qrels.all_query_ids), dtype=bool)
    counted[counted_queries(qrels, settings.empty_queries)] = True
    in_qrels = lookup_unique(run_ids, qrels.all_query_ids)
    rows = in_qrels[in_qrels >= 0]
    rows = rows[counted[rows]]
    population = Population(rows, take(qrels.all_query_ids, rows).to_pylist(), [], qrels.source)
    order = rank_order(run, settings.ties, settings.max_docs)
    report = tie_report(run, order)
    values, rankings = engine_values(settings, run, qrels, population, order)
    return Part(
        rows,
        values,
        run_ids,
        sizes,
        report,
        list(run.warnings),
        rankings,
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
    return engine_values(settings, nothing, qrels, left, rank_order(nothing, settings.ties))[0]


_RUN_WARNING_ORDER = (
    "duplicate_docs_dropped",
    "duplicate_docs_kept",
    "run_extra_text",
    "run_comment_lines",
)
_RUN_WARNING_RANK = dict(zip(_RUN_WARNING_ORDER, range(len(_RUN_WARNING_ORDER))))


def merge_warnings(lists: Iterable[list[EvalWarning]]) -> list[EvalWarning]:
    """One warning per code: counts added, the first examples kept, in the order the
    in-memory reader gives them (one list alone, a run read whole, stays as it is)."""
    lists = list(filter(None, lists))
    if len(lists) == 1:
        return list(lists[0])
    merged: dict[str, EvalWarning] = {}
    for warnings in lists:
        for w in warnings:
            known = merged.get(w.code)
            if known is None:
                merged[w.code] = w
            else:
                examples = examples_of((*known.examples, *w.examples))
                merged[w.code] = replace(known, count=known.count + w.count, examples=examples)
    return sorted(
        merged.values(), key=lambda w: _RUN_WARNING_RANK.get(w.code, len(_RUN_WARNING_RANK))
    )


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
    """The evaluation of a run read in chunks, from their parts (in run order): the parts
    made one (their queries, values and tie facts put together, their warnings and
    ``notes``, warnings of reading the run that no part holds, merged as the in-memory
    reader counts them), then :func:`result_of` that one part."""
    whole = Part(
        rows=np.concatenate([np.zeros(0, dtype=np.int64), *(p.rows for p in parts)]),
        values=np.concatenate([np.zeros((0, len(settings.measures))), *(p.values for p in parts)]),
        run_ids=pa.concat_arrays([pa.nulls(0, pa.string()), *(p.run_ids for p in parts)]),
        sizes=np.concatenate([np.zeros(0, dtype=np.int64), *(p.sizes for p in parts)]),
        ties=TieReport(
            settings.ties,
            sum(p.ties.tied_docs for p in parts),
            examples_of(e for p in parts for e in p.ties.examples),
            frozenset().union(*(p.ties.query_ids for p in parts)),
            sum(p.ties.contested_docs for p in parts),
            frozenset().union(*(p.ties.contested_ids for p in parts)),
        ),
        warnings=merge_warnings([*(p.warnings for p in parts), list(notes or [])]),
    )
    return result_of(whole, qrels, settings, protocol, source)


def result_of(part: Part, qrels: Qrels, settings: Settings, protocol, source: str) -> EvalResult:
    """The evaluation of a whole run from the one :class:`Part` of all its queries (a run
    read whole is scored once, into one part: no merge): the population of the run, its
    per-query rows in the population's order, the queries it does not rank scored on an
    empty ranking, the aggregates computed here, once, and its warnings with those of the
    qrels, the population, the ties and the rankings shorter than a cut-off."""
    measures = settings.measures
    population = population_of(part.run_ids, source, qrels, settings.empty_queries)
    values = in_population_order(
        population.counted,
        qrels,
        [(part.rows, part.values)],
        len(measures),
        lambda missing: unranked_values(settings, qrels, missing, source),
    )
    ranked = RankedQueries(part.run_ids.to_pylist(), part.sizes).cut(settings.max_docs)
    tie_warning = part.ties.warning()
    short = short_rankings(ranked, measures, population.query_ids)
    warnings = [
        *part.warnings,
        *qrels.warnings,
        *population.warnings,
        *([tie_warning] if tie_warning else []),
        *([short_ranking_warning(short)] if short else []),
    ]
    return EvalResult(
        measures=measures,
        query_ids=population.query_ids,
        values=values,
        aggregates={str(m): aggregate(m, values[:, i]) for i, m in enumerate(measures)},
        warnings=warnings,
        protocol=protocol,
        ties=part.ties,
        run_source=source,
        qrels_source=qrels.source,
        engine=settings.engine,
        ranked=ranked,
        options=settings.options,  # what the numbers mean; never how they were computed
        qrels_fingerprint=qrels_fingerprint(qrels),  # what a comparison checks it against
    )
