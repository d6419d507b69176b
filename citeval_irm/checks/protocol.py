"""Protocol validation: does a run only rank what the evaluation protocol allows?

A citation recommender may not recommend a paper published after the query paper (the 2026
temporal protocol), nor the query's own citing paper (HAtten removes it; the MasterSet
recipe does too), nor anything outside the dataset's candidate pool; and it should rank
exactly the dataset's queries. Evaluation does not notice any of this: a run that breaks
the rules simply scores higher. :func:`validate` checks every (query, doc) pair of a run
against the dataset, vectorised, and counts each kind of violation with examples. It also
checks that every ranking reaches the deepest cut-off it will be evaluated at (a 100-deep
run has no R@300 to report), with the one depth check of :mod:`citeval_irm.evaluation.depth`.

The year rule is the one of :func:`citeval_irm.datasets.admissible_candidates` (same-year
papers an explicit choice); a query or doc without a year cannot break it and is counted in
the report's warnings.

This module holds the verb and the checks it makes of a run's pairs and queries; the report,
with the list of checks, is :mod:`.validation_report`, the oracle-insertion rule
(``gold_always_present``) :mod:`.oracle`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import pandas as pd

from ..base.errors import ArgumentTypeError, InputError
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, ExecutionOptions, boolean, options_from
from ..evaluation.depth import short_rankings
from ..evaluation.results import RankedQueries
from ..papers import PROTOCOLS
from ..reading.io import KEEP_ALL, as_dataset, repeated_rows
from .oracle import (  # noqa: F401 (their names, here as before)
    ORACLE_ALPHA,
    ORACLE_HONEST_MISS,
    ORACLE_MAX_COVERAGE,
    ORACLE_MAX_MISSED,
    OracleVerdict,
    oracle_check,
    oracle_rule,
    oracle_verdict,
)
from .validation_report import (  # noqa: F401 (their names, here as before)
    CHECKS,
    PAIR_CHECKS,
    WARNING_CHECKS,
    ValidationReport,
    check_table,
)

_FLAGGED = ("unknown_doc", "query_paper", "later_paper", "duplicate_doc")  # violations' order
_VIOLATION_COLUMNS = ["query_id", "doc_id", "score", "check"]

if TYPE_CHECKING:
    from .crosscheck import RunInput


def _not_a_dataset(dataset: object) -> NoReturn:
    """The error for a ``dataset`` argument that names no ir_datasets dataset."""
    if isinstance(dataset, str):
        raise InputError(dataset, "is not an ir_datasets dataset id (such as 'citeval/demo/test')")
    raise ArgumentTypeError(
        None,
        "dataset: expected an ir_datasets dataset or its id (such as 'citeval/demo/test'), "
        f"not {type(dataset).__name__}",
    )


def validate(
    run: RunInput,
    dataset: str | Any,  # or an ir_datasets dataset (the library ships no types)
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    same_year: bool = True,
    unknown_year: str = "admit",
    strict: bool = False,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
) -> ValidationReport:
    """Check every (query, doc) pair of a run against a dataset's protocol.

    A run that ranks a paper published after the query paper, the query paper itself, or
    too few docs for the measures' cut-offs gives numbers no paper can be compared with; the
    report counts each violation, by query.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        Any run form :func:`citeval_irm.read_run` reads (repeated pairs are kept and reported,
        not an error).
    dataset : str or ir_datasets dataset
        An ir_datasets dataset or id with docs and queries that carry years and the citing
        paper (``"citeval/acl-200/test"``, ``"citeval/demo/test"``).
    measures : str, Measure or iterable, optional
        What the run will be evaluated with: every ranking must reach their deepest cut-off
        (``short_ranking``). Default: the protocol's.
    protocol : str or Protocol, optional
        Default: the dataset's own (``goyal2026`` for the HAtten-format corpora and the demo,
        ``masterset2026`` for MasterSet).
    same_year : bool, default True
        Whether papers of the query paper's own year are allowed (as on the command line and
        in :func:`~citeval_irm.bm25_run`).
    unknown_year : {"admit", "exclude"}, default "admit"
        What happens to docs without a year.
    strict : bool, default False
        Make the oracle-insertion warning a violation. ``gold_always_present`` (a pipeline
        that puts the gold paper into the candidates before reranking) reads the rankings of
        queries with a gold paper that cover at most :data:`ORACLE_MAX_COVERAGE` of their
        admissible pool and warns, with the counts, when :func:`oracle_verdict` finds too few
        of them missing their gold for an honest first stage; ``strict=True`` makes the
        queries that hold one violations.
    options : EvalOptions, optional
        ``max_docs`` (the depth check reads the rankings so cut; every pair is still
        checked, as submitted), as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        ``memory`` (a run file larger than it allows is checked a chunk of whole queries at a
        time, with the same report) and ``progress``, as in :func:`citeval_irm.evaluate`.

    Returns
    -------
    ValidationReport
        ``passed``, the violations by check and query, and the warnings.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> report = citeval_irm.validate(run, "citeval/demo/test")
    >>> report.passed  # doctest: +SKIP
    True
    """
    from ..datasets import admissible_candidates

    same_year, strict = boolean("same_year", same_year), boolean("strict", strict)
    options, execution = options_from(
        "validate", (options, EvalOptions), (execution, ExecutionOptions)
    )
    name, data = _dataset_of(dataset)
    allowed = admissible_candidates(data, same_year=same_year, unknown_year=unknown_year)
    gold = _gold_pairs(data)
    source, pieces, ranked, run_rows, found_gold = _checked_pairs(
        run, allowed, gold, options.max_docs, execution
    )
    queries = allowed.queries
    depth_measures = _depth_measures(measures, protocol, data)
    depth = _deepest(depth_measures)
    at_depth = [m for m in depth_measures if depth and m.params.get("cutoff") == depth]
    short = short_rankings(ranked, at_depth, list(queries.index))
    deepest = short[0] if short else None
    oracle_queries, oracle_warning = oracle_check(ranked, allowed, gold, found_gold)
    violations = _violations(
        pieces, _query_checks(ranked, queries, deepest, oracle_queries if strict else [])
    )
    descriptions = {
        "later_paper": _later_paper_rule(same_year, unknown_year),
        "short_ranking": _depth_rule(at_depth, deepest),
        "gold_always_present": oracle_rule(strict),
    }
    return ValidationReport(
        dataset=name,
        run_source=source,
        same_year=same_year,
        num_queries=len(queries),
        num_docs=allowed.doc_count,
        run_rows=run_rows,
        checks=check_table(violations, descriptions),
        violations=violations,
        warnings=list(allowed.warnings) + ([oracle_warning] if oracle_warning else []),
        depth=depth,
        ceiling=_ceiling(allowed, gold, depth_measures),
    )


def _dataset_of(dataset) -> tuple[str, object]:
    """The name and the ir_datasets dataset ``dataset`` names; an error if it names none."""
    found = as_dataset(dataset)
    if found is None:
        _not_a_dataset(dataset)
    return found


def _checked_pairs(
    run, allowed, gold: pd.MultiIndex, max_docs: int | None, execution: ExecutionOptions
) -> tuple[str, list[pd.DataFrame], RankedQueries, int, pd.Index]:
    """The pair checks of the whole run, read in chunks of whole queries: where it was read
    from, each check's violating rows in run order (the checks in report order, as from one
    table), its rankings' lengths (cut at ``max_docs``), its number of rows, and the queries
    that rank a gold paper."""
    from ..reading.sources import read_in_chunks

    read = read_in_chunks(
        run,
        functools.partial(_pair_checks, allowed=allowed, gold=gold),
        duplicates=KEEP_ALL,
        memory=execution.memory,
        progress=execution.progress,
        label="citeval: validating the run",
    )
    checked = read.results
    pieces = [piece for check in _FLAGGED for part in checked for piece in part[0][check]]
    ranked = RankedQueries(
        [q for part in checked for q in part[1].query_ids],
        np.concatenate([part[1].sizes for part in checked]) if checked else np.zeros(0, int),
    ).cut(max_docs)
    run_rows = sum(part[2] for part in checked)
    found_gold = pd.Index([q for part in checked for q in part[3]])
    return read.source, pieces, ranked, run_rows, found_gold


def _query_checks(ranked: RankedQueries, queries: pd.DataFrame, deepest, oracle) -> dict:
    """The queries each query check flags, in report order: run queries the dataset lacks,
    dataset queries the run lacks, rankings short of the deepest cut-off, and (``oracle``)
    those of ``gold_always_present`` when it is a violation."""
    run_queries = pd.Index(ranked.query_ids)
    return {
        "unknown_query": run_queries.difference(queries.index, sort=False),
        "missing_query": queries.index.difference(run_queries, sort=False),
        "short_ranking": deepest.query_ids if deepest else [],
        "gold_always_present": oracle,
    }


def _violations(pieces: list[pd.DataFrame], query_checks: dict) -> pd.DataFrame:
    """Every violating run row: the pair checks' rows, then one row (without a doc) per
    query of each query check."""
    pieces = list(pieces)
    for check, ids in query_checks.items():
        if len(ids):
            pieces.append(
                pd.DataFrame({"query_id": list(ids), "doc_id": "", "score": np.nan, "check": check})
            )
    if not pieces:
        return pd.DataFrame(columns=_VIOLATION_COLUMNS)
    return pd.concat(pieces, ignore_index=True)[_VIOLATION_COLUMNS]


def _ceiling(allowed, gold: pd.MultiIndex, measures) -> dict[str, float]:
    """The recall ceiling (:func:`citeval_irm.checks.audit.recall_ceiling`) under the rules
    this validation checks: a gold paper is reachable when a run may rank it for its query
    (the year rule, not the citing paper, in the dataset)."""
    from .audit import measure_cutoffs, recall_ceiling

    queries = gold.get_level_values(0)
    known = queries.isin(allowed.queries.index)
    reachable = allowed.mask(queries[known], gold.get_level_values(1)[known])
    counts = pd.DataFrame({"query": queries[known], "ok": reachable})
    counts = counts.groupby("query", sort=False)["ok"].agg(["sum", "size"])
    return recall_ceiling(
        counts["sum"].to_dict(), counts["size"].to_dict(), measure_cutoffs(measures)
    )


def _pair_checks(
    table, allowed, gold: pd.MultiIndex
) -> tuple[dict[str, list[pd.DataFrame]], RankedQueries, int, np.ndarray]:
    """The pair checks of a run (or of a chunk of whole queries of one): the violating rows
    per check, the run's queries and their ranking lengths, its number of rows, and the
    queries that rank a gold paper."""
    frame = table.frame
    queries = allowed.queries
    known_query = frame["query_id"].isin(queries.index).to_numpy()
    known_docs = allowed.doc_positions(frame["doc_id"]) >= 0  # of every row, any query's
    pairs = frame[known_query]
    admissible = allowed.mask(pairs["query_id"], pairs["doc_id"])
    known_doc = known_docs[known_query]
    citing = queries["citing_id"].reindex(pairs["query_id"]).to_numpy()
    own_paper = pairs["doc_id"].to_numpy() == citing

    rows = np.flatnonzero(known_query)
    flagged = {
        "unknown_doc": np.flatnonzero(~known_docs),
        "query_paper": rows[known_doc & own_paper],
        "later_paper": rows[known_doc & ~own_paper & ~admissible],
        "duplicate_doc": repeated_rows(table),
    }
    pieces = {
        check: [frame.iloc[positions].assign(check=check)] if len(positions) else []
        for check, positions in flagged.items()
    }
    is_gold = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]]).isin(gold)
    with_gold = frame["query_id"].to_numpy()[is_gold]
    return pieces, RankedQueries.of(table), len(frame), pd.unique(with_gold)


def _gold_pairs(dataset) -> pd.MultiIndex:
    """The dataset's (query, gold paper) pairs: qrels rows with a positive label."""
    from ..reading.io import read_qrels

    if not getattr(dataset, "has_qrels", lambda: False)():
        return pd.MultiIndex.from_arrays([[], []], names=["query_id", "doc_id"])
    frame = read_qrels(dataset).frame
    gold = frame[frame["relevance"] > 0]
    return pd.MultiIndex.from_frame(gold[["query_id", "doc_id"]])


def dataset_protocol(dataset) -> str | None:
    """The protocol a dataset documents as its own (``protocol`` in its ir_datasets
    documentation), if it names one this package knows."""
    documentation = getattr(dataset, "documentation", None)
    name = (documentation() or {}).get("protocol") if callable(documentation) else None
    return name if name in PROTOCOLS else None


def _depth_measures(measures, protocol, dataset) -> list:
    """The measures whose cut-offs the rankings must reach: those given, else the
    protocol's, else the dataset's own protocol's (none if it names none)."""
    from ..evaluation.evaluate import resolve_measures

    if measures is None and protocol is None:
        protocol = dataset_protocol(dataset)
        if protocol is None:
            return []
    return resolve_measures(measures, protocol)[0]


def _deepest(measures) -> int | None:
    cutoffs = [m.params["cutoff"] for m in measures if m.params.get("cutoff") is not None]
    return max(cutoffs) if cutoffs else None


def _depth_rule(at_depth: list, deepest) -> str:
    """What ``short_ranking`` means for the measures of the deepest cut-off (and what was
    found)."""
    if not at_depth:
        return "not checked: no measure with a cut-off (give measures or a protocol)"
    depth = at_depth[0].params["cutoff"]
    names = " ".join(str(m) for m in at_depth)
    rule = f"ranking shorter than {depth} docs, the deepest cut-off ({names})"
    return rule + (f": found {deepest.found()}" if deepest else "")


def _later_paper_rule(same_year: bool, unknown_year: str) -> str:
    """What ``later_paper`` means under the chosen year policies."""
    if same_year:
        rule = CHECKS["later_paper"]
    else:
        rule = (
            "candidate published in the query paper's year or later (same-year papers not admitted)"
        )
    if unknown_year == "exclude":
        rule += ", or undated (undated docs excluded)"
    return rule
