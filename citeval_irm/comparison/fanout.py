"""The one way runs are fanned out: a function called once per job, one after the other in
this process, in worker processes, or as tasks on the workers of a Dask cluster, the
results in the jobs' order. ``compare`` evaluates its runs through it, ``results_table``
its manifest's entries."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..base.options import ExecutionOptions


def fan_out(
    function: Callable,
    jobs: Sequence[tuple],
    execution: ExecutionOptions,
    *,
    shared: Mapping[str, object] | None = None,
) -> list:
    """``function(*job, **shared)`` for every job, the results in the jobs' order.

    Parameters
    ----------
    function : callable
        A module-level function (it is pickled to a process or a Dask worker).
    jobs : sequence of tuple
        The positional arguments of each call.
    execution : ExecutionOptions
        ``engine="dask"``: each call a task on the cluster at ``execution.scheduler`` (an
        address or a ``distributed.Client``; default a local cluster); otherwise
        ``execution.jobs`` calls at once in spawned processes (1: one after the other,
        here). Each call's own is :meth:`~citeval_irm.ExecutionOptions.for_worker`.
    shared : mapping, optional
        Keyword arguments every call takes, sent to each Dask worker once (a qrels table
        read here); ``None`` values are passed as they are.

    Returns
    -------
    list
        What each call returned; the first call that raised raises here.
    """
    shared = dict(shared or {})
    if execution.engine == "dask":
        return _on_dask(function, jobs, execution.scheduler, shared)
    if execution.jobs <= 1 or len(jobs) == 1:
        return [function(*job, **shared) for job in jobs]
    return _in_processes(function, jobs, execution.jobs, shared)


def _on_dask(function: Callable, jobs: Sequence[tuple], scheduler, shared: dict) -> list:
    """Each call a task on a Dask cluster, the shared arguments scattered to every worker."""
    from ..reading.daskengine import dask_client

    with dask_client(scheduler) as client:
        sent = {
            key: value if value is None else client.scatter(value, broadcast=True, hash=False)
            for key, value in shared.items()
        }
        futures = [client.submit(function, *job, **sent, pure=False) for job in jobs]
        return client.gather(futures)


def _in_processes(function: Callable, jobs: Sequence[tuple], processes: int, shared: dict) -> list:
    """Each call in one of ``processes`` spawned processes (no forked copy of a loaded
    dataset)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(processes, len(jobs)), mp_context=context) as pool:
        futures = [pool.submit(function, *job, **shared) for job in jobs]
        return [future.result() for future in futures]
