"""Where a run's chunks of whole queries come from, and what scoring each one returned.

A run reaches evaluation as a stream of chunks of whole queries, each a
:class:`~citeval_irm.reading.tables.Run`, from one of three sources: the whole run as one chunk (it
fits in memory), a file streamed a chunk at a time (:mod:`citeval_irm.reading.chunks`, read ahead
in a thread, sorted out of core first when it is not grouped by query), or the files or
partitions of a Parquet dataset or dask DataFrame on the workers of a Dask cluster
(:mod:`citeval_irm.reading.daskengine`). The caller hands :func:`read_in_chunks` a scoring
callable (picklable, for Dask) and gets back what it returned for each chunk, in run order,
with the warnings of reading that no chunk holds: one path over three sources. This layer
sits below evaluation and never imports it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..base.errors import EvalWarning
from .chunks import over_whole_queries
from .readers import read_run
from .streaming import Progress, ReadingPlan, plan_reading, prefetch
from .tables import Run

T = TypeVar("T")


@dataclass
class Read(Generic[T]):
    """What scoring returned for each chunk of whole queries (in run order), the warnings
    of reading no chunk holds (the out-of-core sort's), and the run's name in messages."""

    results: list[T]
    notes: list[EvalWarning]
    source: str


def read_in_chunks(
    run,
    score: Callable[[Run], T],
    *,
    duplicates: str,
    memory: int | str | None = None,
    progress: bool | None = None,
    dask: bool = False,
    scheduler=None,
    label: str = "citeval: reading the run",
    plan: ReadingPlan | None = None,
) -> Read[T]:
    """``score`` over ``run`` in chunks of whole queries, from the source the run calls
    for: the workers of a Dask cluster (``dask``, at ``scheduler``), a file streamed when
    reading it whole would take more than ``memory`` (see
    :func:`~citeval_irm.reading.streaming.plan_reading`), else the whole run as one chunk.
    ``duplicates``: the policy every chunk is read with; ``progress``/``label``: the bar of
    a streamed or Dask read; ``plan``: the reading plan, when the caller made it already."""
    if dask:
        from .daskengine import score_on_dask

        results, source = score_on_dask(run, score, duplicates, scheduler, progress)
        return Read(results, [], source)
    if plan is None:
        plan = plan_reading(run, memory)
    if plan.stream:
        return read_streamed(run, score, plan, duplicates, progress, label)
    return read_whole(run, score, duplicates)


def read_whole(run, score: Callable[[Run], T], duplicates: str) -> Read[T]:
    """The whole run (any form :func:`~citeval_irm.reading.readers.read_run` reads) as one chunk."""
    table = read_run(run, duplicates=duplicates)
    return Read([score(table)], [], table.source)


def read_streamed(
    run,
    score: Callable[[Run], T],
    plan: ReadingPlan,
    duplicates: str,
    progress: bool | None,
    label: str,
) -> Read[T]:
    """The run file ``run`` in chunks of ``plan.chunk_rows`` rows of whole queries, the
    next one read in a thread while one is scored; sorted out of core first if a query
    comes back after others."""
    bar = Progress(plan.size, progress, label)

    def consume(chunks: Iterator[Run]) -> list[T]:
        results: list[T] = []
        for chunk in prefetch(chunks):
            queries = chunk.num_queries
            results.append(score(chunk))
            del chunk  # before the next one is handed over
            bar.scored(queries)
        return results

    try:
        results, notes = over_whole_queries(
            run, plan.chunk_rows, plan, duplicates, consume, on_bytes=bar.read
        )
    finally:
        bar.close()
    return Read(results, notes, os.fspath(run))
