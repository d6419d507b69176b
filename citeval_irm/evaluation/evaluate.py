"""``evaluate``: one run against one qrels, with trec_eval's semantics.

The verb gathers what a run is evaluated with (:mod:`.settings`), reads a run that fits in
memory whole, as one chunk, scores it once by :func:`.parts.score_part` and makes its
result (:func:`.parts.result_of`); a run file too large for that, or a run on Dask, comes
from the backend of chunks of whole queries
(:func:`citeval_irm.reading.sources.read_in_chunks`: streamed, sorted out of core, or on the
workers), each chunk scored by the same :func:`.parts.score_part`, the parts merged once by
:func:`.parts.merge_parts` into the one part whose result is made the same way. Which queries
count is :mod:`.population`'s one rule (``trec_eval -c``); the engines that compute the
values are :mod:`.engines`'.

Queries with no relevant document (only label-0 rows, or an empty ``{qid: {}}``) score 0 on
every measure in trec_eval and ir-measures, and so they do here by default
(``empty_queries="zero"``), with a warning that counts them; ``empty_queries="skip"`` leaves
them out of the average instead, as a benchmark that filters such queries would.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

from ..base.errors import issue
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, ExecutionOptions, options_from
from ..reading.io import read_qrels, read_run
from ..reading.sources import read_in_chunks
from ..reading.streaming import plan_reading

# The names the cross-check, validate and the tests import from here, where they are made.
from .parts import (
    Part,
    empty_run,
    in_population_order,
    merge_parts,
    merge_warnings,
    result_of,
    score_part,
)
from .population import counted_queries, population
from .results import EvalResult
from .settings import Settings, resolve_measures

__all__ = [
    "Part",
    "Settings",
    "counted_queries",
    "empty_run",
    "evaluate",
    "in_population_order",
    "merge_parts",
    "merge_warnings",
    "population",
    "resolve_measures",
    "score_part",
]


def evaluate(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
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
        What the numbers mean, recorded in the result: ``ties`` (``"trec_eval"`` or
        ``"run_order"``), ``duplicates`` (``"error"`` or ``"keep_best"``),
        ``empty_queries`` (``"zero"`` or ``"skip"``), ``max_docs`` (trec_eval's ``-M``).
        Default: an :class:`~citeval_irm.EvalOptions` of defaults.
    execution : ExecutionOptions, optional
        How they are computed, never what they are: ``engine`` (``"citeval"``,
        ``"pytrec_eval"`` or ``"dask"``, with ``scheduler``), ``verify`` (both engines;
        :class:`VerificationError` on a per-query difference above 1e-9), ``memory`` (a run
        file expected to need more is read in chunks of whole queries, with the same
        result), ``progress``. Default: an :class:`~citeval_irm.ExecutionOptions` of
        defaults.

    Returns
    -------
    EvalResult
        ``aggregate`` (measure -> mean), ``per_query`` (query -> measure -> value),
        ``warnings``, ``options``; ``format()`` prints it (``percent=``, ``decimals=``),
        ``to_frame()`` gives both in one frame (the ``all`` row last).

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> result = citeval_irm.evaluate(run, "citeval/demo/test", "RR R@10")
    >>> result.aggregate["RR"]  # doctest: +SKIP
    0.3003
    >>> exact = citeval_irm.evaluate(
    ...     run, "citeval/demo/test", protocol="goyal2026",
    ...     options=citeval_irm.EvalOptions(ties="run_order"),
    ... )
    """
    options, execution = options_from(
        "evaluate", (options, EvalOptions), (execution, ExecutionOptions)
    )
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    qrels_table = read_qrels(qrels)
    # what each chunk is scored with: the engine, never the Dask client
    settings = Settings(measure_list, options, execution.engine, execution.verify)
    dask = execution.engine == "dask"
    path = isinstance(run, (str, os.PathLike))
    plan = plan_reading(run, execution.memory) if path and not dask else None
    if dask or (plan is not None and plan.stream):
        # a run too large to read whole, or on Dask: the backend of chunks of whole queries
        read = read_in_chunks(
            run,
            functools.partial(score_part, qrels=qrels_table, settings=settings),
            duplicates=settings.duplicates,
            memory=execution.memory,
            progress=execution.progress,
            dask=dask,
            scheduler=execution.scheduler,
            plan=plan,
        )
        result = merge_parts(
            read.results, qrels_table, settings, protocol_obj, read.source, read.notes
        )
    else:  # in memory: the run is one chunk, scored once, its result made at once (no merge)
        table = read_run(run, duplicates=settings.duplicates)
        part = score_part(table, qrels_table, settings)
        result = result_of(part, qrels_table, settings, protocol_obj, table.source)
    issue(result.warnings)
    return result
