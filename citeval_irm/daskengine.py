"""The Dask engine: a run's partitions scored on the workers of a cluster.

``evaluate(run, qrels, ..., engine="dask", scheduler=ADDRESS)`` takes a partitioned Parquet
dataset (a folder or any URL pyarrow or fsspec reads; one task per file, read on the worker)
or a dask DataFrame (one task per partition). Each task scores its queries with the same
core as the other paths (:func:`citeval_irm.streaming.score_part`: ranking, joining with the
qrels, which are sent to every worker once, kernels) and returns per-query values; the
client puts them together with :func:`citeval_irm.streaming.merge_parts`, exactly as the
streaming path does, so the result is the single-process one. That needs every query in one
partition: a run whose queries are split between partitions is first moved, by Dask, into
partitions that each hold a range of whole queries in first-appearance order (each query's
rows in their original order), and scored again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from .chunks import NotGrouped
from .errors import InputError
from .evaluation import Settings
from .io import as_run, is_parquet, parquet_files
from .results import EvalResult
from .streaming import Part, Progress, check_whole_queries, merge_parts, score_part
from .tables import Qrels

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


def _score_file(source: str, name: str, qrels: Qrels, settings: Settings) -> Part:
    """On a worker: one Parquet file of a run, scored."""
    from .io import _read_parquet

    return score_part(_read_parquet(source, "score", settings.duplicates, [name]), qrels, settings)


def _score_frame(frame, qrels: Qrels, settings: Settings, index: int) -> Part:
    """On a worker: one partition of a dask DataFrame, scored."""
    source = f"<dask DataFrame partition {index}>"
    if "_key" in frame.columns:  # regrouped: its queries in first-appearance order
        frame = frame.reset_index().sort_values(["_rank", "_key"], kind="stable")
    run = as_run(frame, duplicates=settings.duplicates)
    run.source = source
    return score_part(run, qrels, settings)


def _gather(client, futures, progress: bool | None, total: int) -> list[Part]:
    """The parts, in task order, with a progress bar of the partitions scored."""
    from distributed import as_completed

    bar = Progress(total, progress, "citeval: partitions scored", unit=" partitions")
    try:
        for future in as_completed(futures):
            bar.read(bar.position + 1)
            bar.scored(len(future.result().run_ids))
    finally:
        bar.close()
    return client.gather(futures)


def _query_column(columns) -> str:
    from .io import COLUMN_NAMES

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


def _partition_tasks(client, frame, qrels_future, settings):
    import dask

    tasks = [
        dask.delayed(_score_frame)(part, qrels_future, settings, i)
        for i, part in enumerate(frame.to_delayed())
    ]
    return client.compute(tasks)


def evaluate_dask(
    run, qrels: Qrels, settings: Settings, protocol, scheduler, progress: bool | None
) -> EvalResult:
    """``evaluate`` with ``engine="dask"`` (see the module docstring)."""
    import dask.dataframe as dd

    is_frame = isinstance(run, dd.DataFrame)
    if not is_frame and not (isinstance(run, (str, os.PathLike)) and is_parquet(run)):
        raise InputError(
            None if not isinstance(run, (str, os.PathLike)) else os.fspath(run),
            "the Dask engine reads Parquet (a folder of files, or a URL) or a dask DataFrame: "
            "write a TREC run as Parquet first (citeval convert RUN.trec RUN/ --partition-rows N)",
        )
    source = "<dask DataFrame>" if is_frame else os.fspath(run)
    # what the workers score with: the client itself does not travel
    settings = replace(settings, options=replace(settings.options, scheduler=None))
    with dask_client(scheduler) as client:
        qrels_future = client.scatter(qrels, broadcast=True, hash=False)
        if is_frame:
            frame = run
            futures = _partition_tasks(client, frame, qrels_future, settings)
        else:
            frame = None
            _, files = parquet_files(run)
            futures = [
                client.submit(_score_file, source, name, qrels_future, settings, pure=False)
                for name in files
            ]
        parts = _gather(client, futures, progress, len(futures))
        try:
            check_whole_queries(parts, source)
        except NotGrouped:
            frame = dd.read_parquet(source) if frame is None else frame
            regrouped = regroup(frame)
            futures = _partition_tasks(client, regrouped, qrels_future, settings)
            parts = _gather(client, futures, progress, len(futures))
    return merge_parts(parts, qrels, settings, protocol, source)
