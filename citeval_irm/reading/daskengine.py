"""Chunks of a run scored on the workers of a Dask cluster: the Dask source of chunks.

``evaluate(run, qrels, ..., engine="dask", scheduler=ADDRESS)`` takes a partitioned Parquet
dataset (a folder or any URL pyarrow or fsspec reads; one task per file, read on the worker)
or a dask DataFrame (one task per partition). :func:`score_on_dask` sends the scoring
callable it is given to every worker once (it holds the qrels), runs it on each file or
partition and returns what it returned, in task order; the caller merges them as it merges
the chunks of a streamed file, so the result is the single-process one. That needs every
query in one partition: a run whose queries are split between partitions is first moved, by
Dask, into partitions that each hold a range of whole queries in first-appearance order
(each query's rows in their original order), and scored again. Part of the layer that reads
runs: it knows nothing of evaluation.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from ..base.errors import InputError
from .chunks import NotGrouped
from .parquet import is_parquet, parquet_files
from .readers import read_run
from .streaming import Progress
from .tables import Run, take

T = TypeVar("T")
_KEY_BITS = 40  # a row's key: its partition's number, then its position in the partition


@contextlib.contextmanager
def dask_client(scheduler=None) -> Iterator:
    """A ``distributed.Client``: the one given, one connected to the scheduler at this
    address (``tcp://host:8786``), or one on a local cluster made here (and closed after)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError(
            None, "the Dask engine needs dask[distributed]: pip install 'citeval-irm[large]'"
        ) from None
    if scheduler is not None and not isinstance(scheduler, str):
        yield scheduler  # a Client already
        return
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as exc:
            raise InputError(
                None, f"cannot reach the Dask scheduler at {scheduler}: {exc}"
            ) from None
        with client:
            yield client
        return
    with LocalCluster(dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def _ranked_ids(run: Run) -> pa.Array:
    """The queries ``run`` ranks, first-appearance order (how the client sees that no
    query was split between tasks)."""
    return take(run.query_ids, run.ranked_queries()[0])


def _score_file(source: str, name: str, score: Callable[[Run], T], duplicates: str):
    """On a worker: one Parquet file of a run, scored; with the queries it ranks."""
    from .parquet import read_parquet

    run = read_parquet(source, "score", duplicates, [name])
    return _ranked_ids(run), score(run)


def _score_frame(frame, score: Callable[[Run], T], duplicates: str, index: int):
    """On a worker: one partition of a dask DataFrame, scored; with the queries it ranks."""
    source = f"<dask DataFrame partition {index}>"
    if "_key" in frame.columns:  # regrouped: its queries in first-appearance order
        frame = frame.reset_index().sort_values(["_rank", "_key"], kind="stable")
    run = read_run(frame, duplicates=duplicates)
    run.source = source
    return _ranked_ids(run), score(run)


def _gather(client, futures, progress: bool | None) -> list[tuple[pa.Array, T]]:
    """What the tasks returned, in task order, with a progress bar of the partitions
    scored."""
    from distributed import as_completed

    bar = Progress(len(futures), progress, "citeval: partitions scored", unit=" partitions")
    try:
        for future in as_completed(futures):
            bar.read(bar.position + 1)
            bar.scored(len(future.result()[0]))
    finally:
        bar.close()
    return client.gather(futures)


def _check_whole_queries(ranked: list[pa.Array], source: str) -> None:
    """Each query ranked by one task only (else the tasks did not hold whole queries)."""
    import pyarrow.compute as pc

    if not ranked:
        return
    counts = pc.value_counts(pa.concat_arrays(ranked))
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        raise NotGrouped(source, repeated[0].as_py(), 0)


def _query_column(columns) -> str:
    from .forms import COLUMN_NAMES

    found = next((n for n in COLUMN_NAMES["query_id"] if n in columns), None)
    if found is None:
        raise InputError("<dask DataFrame>", f"no query_id (or qid) column: found {list(columns)}")
    return found


def _with_keys(frame, partition_info=None):
    """A partition with each row's key (partition number, then row position)."""
    number = partition_info["number"] if partition_info else 0
    keys = (np.int64(number) << _KEY_BITS) + np.arange(len(frame), dtype=np.int64)
    return frame.assign(_key=keys)


def regroup(frame):
    """``frame`` (a dask DataFrame) in partitions that each hold a range of whole queries,
    queries in the order they first appear, as a grouped file would have them."""
    import pandas as pd

    query = _query_column(frame.columns)
    keyed = frame.map_partitions(_with_keys, meta=frame._meta.assign(_key=np.int64(0)))
    firsts = keyed.groupby(query)["_key"].agg(["min", "count"]).compute().sort_values("min")
    ranks = pd.DataFrame({query: firsts.index, "_rank": np.arange(len(firsts))})
    parts = max(frame.npartitions, 1)
    rows = np.cumsum(firsts["count"].to_numpy())
    bounds = np.searchsorted(rows, np.linspace(0, rows[-1], parts + 1)[1:-1], side="right")
    divisions = sorted({0, *bounds.tolist(), len(firsts) - 1})
    ranked = keyed.merge(ranks, on=query, how="left")
    return ranked.set_index("_rank", divisions=divisions)


def _partition_tasks(client, frame, score, duplicates: str):
    import dask

    tasks = [
        dask.delayed(_score_frame)(part, score, duplicates, i)
        for i, part in enumerate(frame.to_delayed())
    ]
    return client.compute(tasks)


def score_on_dask(
    run, score: Callable[[Run], T], duplicates: str, scheduler, progress: bool | None
) -> tuple[list[T], str]:
    """``score`` of each file or partition of whole queries of ``run`` (a partitioned
    Parquet dataset or a dask DataFrame), in run order, and the run's name (see the module
    docstring). ``score`` must pickle: it travels to every worker once."""
    import dask.dataframe as dd

    is_frame = isinstance(run, dd.DataFrame)
    if not is_frame and not (isinstance(run, (str, os.PathLike)) and is_parquet(run)):
        raise InputError(
            None if not isinstance(run, (str, os.PathLike)) else os.fspath(run),
            "the Dask engine reads Parquet (a folder of files, or a URL) or a dask DataFrame: "
            "write a TREC run as Parquet first (citeval convert RUN.trec RUN/ --partition-rows N)",
        )
    source = "<dask DataFrame>" if is_frame else os.fspath(run)
    with dask_client(scheduler) as client:
        scorer = client.scatter(score, broadcast=True, hash=False)
        if is_frame:
            frame = run
            futures = _partition_tasks(client, frame, scorer, duplicates)
        else:
            frame = None
            _, files = parquet_files(run)
            futures = [
                client.submit(_score_file, source, name, scorer, duplicates, pure=False)
                for name in files
            ]
        done: list[tuple[pa.Array, Any]] = _gather(client, futures, progress)
        try:
            _check_whole_queries([ranked for ranked, _ in done], source)
        except NotGrouped:
            frame = dd.read_parquet(source) if frame is None else frame
            futures = _partition_tasks(client, regroup(frame), scorer, duplicates)
            done = _gather(client, futures, progress)
    return [result for _, result in done], source
