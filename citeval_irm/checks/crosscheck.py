"""The cross-check: every number two ways, every difference explained.

For each measure, :func:`crosscheck` computes the value with trec_eval semantics (through
ir-measures, :func:`citeval_irm.evaluate`) and with a paper's recipe
(:mod:`citeval_irm.papers.recipes`), compares them query by query, and gives each difference its
causes from a closed list (:data:`CAUSES`). Causes are *detected*, not guessed: the recipe's
quirks are switched off one at a time, in a fixed order, and a quirk is a cause when
switching it off moves the value; with all of them off the recipe computes trec_eval's
number, and anything still different is reported as ``unexplained``. Differences in which
queries are averaged (missing, run-only, no relevant paper) are found by comparing the two
populations.

For queries with tied scores, the report also gives each measure's worst, expected
(uniformly random tie order) and best value, so a user sees how much of a score is luck.

This module holds the verb: its arguments checked and resolved, the run read in chunks of
whole queries, each cross-checked by :mod:`.crosscheck_chunk`, merged once by
:mod:`.crosscheck_merge` into a :class:`~.crosscheck_report.CrosscheckReport`; the causes
and their detection are :mod:`.crosscheck_causes`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa

from ..base.choices import TIE_POLICIES, check_choice
from ..base.errors import InputError
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, ExecutionOptions, options_from
from ..evaluation.evaluate import Settings, resolve_measures
from ..papers import PROTOCOLS, get_recipe
from ..papers.recipes import Recipe, check_recipe_measures, query_paper_of
from ..reading.io import KEEP_ALL, as_dataset, read_qrels
from ..reading.sources import read_in_chunks
from .crosscheck_causes import CAUSES, TOLERANCE  # noqa: F401 (their names, here as before)
from .crosscheck_chunk import Check, check_chunk
from .crosscheck_merge import merge_checked
from .crosscheck_report import CrosscheckReport

if TYPE_CHECKING:
    import pandas as pd

    from ..reading.tables import Qrels, Run

    # Every form of a run, and of qrels, the one reader takes (citeval_irm.read_run, read_qrels);
    # qrels may also be an ir_datasets dataset (Any: the library ships no types).
    RunInput: TypeAlias = (
        str
        | os.PathLike[str]
        | pd.DataFrame
        | Mapping[str, Mapping[str, float]]
        | Iterable[Mapping[str, Any]]
        | Run
    )
    QrelsInput: TypeAlias = (
        str
        | os.PathLike[str]
        | pd.DataFrame
        | Mapping[str, Mapping[str, int]]
        | Iterable[Mapping[str, Any]]
        | Qrels
        | Any
    )

_check_chunk = check_chunk  # what each chunk is read into: a global here, a test wraps it


def crosscheck(
    run: RunInput,
    qrels: QrelsInput,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    recipe: str | Recipe | None = None,
    recipe_ties: str = "run_order",
    query_papers: Mapping[str, str] | Callable[[str], str | None] | None = None,
    pool: Iterable[str] | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
) -> CrosscheckReport:
    """Score a run with trec_eval's semantics and with a paper's own script, and explain every
    per-query difference.

    A paper's evaluation script often differs from trec_eval (ties, duplicates, gold outside
    the pool); the report names the quirk behind each difference, so a published number can
    be reproduced or corrected.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        The run, in any form :func:`citeval_irm.evaluate` reads.
    qrels : path, Parquet, DataFrame, dict, records, Qrels or ir_datasets dataset / id
        What the run is scored against.
    measures : str, Measure or iterable, optional
        ir-measures syntax. Default: the protocol's, or else the recipe's own.
    protocol : str or Protocol, optional
        A paper's protocol (``"goyal2026"``); its recipe is the default ``recipe``.
    recipe : str or Recipe, optional
        The paper's script: ``goyal2026``, ``masterset2026``, ``duallcr``, ``symtax``,
        ``hatten``. Default: the protocol's own.
    recipe_ties : str, default "run_order"
        The order in which the recipe sees tied scores: ``"run_order"`` (as a paper's script
        reads its list) or ``"trec_eval"``. The trec_eval side always uses trec_eval's order.
    query_papers : mapping or callable, optional
        Query id -> its citing (query) paper. Default: the queries' ``citing_id`` when
        ``qrels`` is an ir_datasets dataset, else the ``<citing>`` part of a
        ``<citing>_<cited>_<n>`` id, else the query id itself.
    pool : iterable of str, optional
        The candidate pool, for a recipe that drops gold outside it. Default: the docs of the
        qrels' dataset; without one, gold is kept.
    options : EvalOptions, optional
        As in :func:`citeval_irm.evaluate`: ``empty_queries``; ``ties`` and ``duplicates``
        are not used (the recipe sees every copy of a doc, trec_eval the best-scored one)
        and ``max_docs`` is refused (the paper's script reads whole rankings).
    execution : ExecutionOptions, optional
        How the run is read and scored (``memory``, ``progress``, ``engine``, ...), as in
        :func:`citeval_irm.evaluate`. A run file larger than ``memory`` allows is
        cross-checked a chunk of whole queries at a time, with the same report.

    Returns
    -------
    CrosscheckReport
        Both sides' means, the queries that differ and each difference's cause.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> report = citeval_irm.crosscheck(run, "citeval/demo/test", protocol="goyal2026")
    >>> print(report.format())  # doctest: +SKIP
    """
    check_choice("recipe_ties", recipe_ties, TIE_POLICIES)
    options, execution = options_from(
        "crosscheck", (options, EvalOptions), (execution, ExecutionOptions)
    )
    if options.max_docs is not None:
        raise InputError(
            None, "a cross-check reads whole rankings, as the paper's script: no max_docs"
        )
    measure_list, protocol_obj, recipe_obj = _measures_and_recipe(measures, protocol, recipe)
    qrels_table = read_qrels(qrels)
    pool_ids = _pool_of(pool, qrels) if recipe_obj.quirks.gold_in_pool else None
    reference = replace(options, ties="trec_eval")
    check = Check(
        qrels_table,
        measure_list,
        recipe_obj,
        recipe_ties,
        _paper_lookup(query_papers, qrels),
        pool_ids,
        Settings(measure_list, reference, execution.engine, execution.verify),
    )
    read = read_in_chunks(
        run,
        functools.partial(_check_chunk, check=check),
        duplicates=KEEP_ALL,
        memory=execution.memory,
        progress=execution.progress,
        dask=execution.engine == "dask",
        scheduler=execution.scheduler,
        label="citeval: cross-checking the run",
    )
    return merge_checked(read, check, protocol_obj)


def _measures_and_recipe(
    measures, protocol, recipe
) -> tuple[list[Measure], Protocol | None, Recipe]:
    """The measures, the protocol and the recipe of a cross-check: a recipe alone brings
    its own measures, a protocol its recipe; the recipe must compute every measure."""
    if (
        recipe is None
        and protocol is None
        and not (isinstance(measures, str) and measures in PROTOCOLS)
    ):
        raise InputError(None, "name a recipe (e.g. --recipe goyal2026) or a protocol")
    if recipe is not None and measures is None and protocol is None:
        measures = list(get_recipe(recipe).measures)  # a recipe alone: its own measures
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    if recipe is None:  # then a protocol is named: its paper's recipe
        recipe = protocol_obj.recipe if protocol_obj is not None else None
        if recipe is None:
            named = protocol_obj.name if protocol_obj is not None else protocol
            raise InputError(
                None, f"protocol {named!r} names no recipe to cross-check by: name one (a recipe)"
            )
    recipe_obj = get_recipe(recipe)
    check_recipe_measures(measure_list, recipe_obj)
    return measure_list, protocol_obj, recipe_obj


def _paper_lookup(query_papers, qrels) -> Callable[[str], str | None]:
    """Who the citing / query paper of a query is: the caller's mapping, else the
    ``citing_id`` of the qrels' ir_datasets queries, else read off the query id."""
    if query_papers is None:
        found = as_dataset(qrels)
        if found is not None:
            dataset: Any = found[1]  # an ir_datasets dataset (the library ships no types)
            if dataset.has_queries() and "citing_id" in dataset.queries_cls()._fields:
                from ..datasets.admissible import query_papers as dataset_query_papers

                return functools.partial(_paper_or_id, dataset_query_papers(dataset))
        return query_paper_of
    if isinstance(query_papers, Mapping):
        return query_papers.get
    return query_papers


def _paper_or_id(papers: Mapping[str, str], query_id: str) -> str | None:
    """The dataset's citing paper of a query, else the one its id names (a function, not
    a lambda, so the lookup pickles for the workers of a Dask cluster)."""
    return papers.get(query_id) or query_paper_of(query_id)


def _pool_of(pool, qrels) -> pa.Array | None:
    """The candidate pool as doc ids: the caller's, else the docs of the qrels' dataset."""
    if pool is None:
        found = as_dataset(qrels)
        data: Any = found[1] if found is not None else None  # ir_datasets ships no types
        if data is None or not data.has_docs():
            return None
        pool = (doc.doc_id for doc in data.docs_iter())
    return pa.array(list(pool), pa.string())
