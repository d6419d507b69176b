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
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import pyarrow as pa

from ..base.choices import TIE_POLICIES, check_choice
from ..base.errors import EvalWarning, InputError, examples_of, issue
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, display_decimals, options_from
from ..evaluation.evaluate import (
    Part,
    Settings,
    counted_queries,
    empty_run,
    in_population_order,
    merge_parts,
    merge_warnings,
    resolve_measures,
    score_part,
)
from ..evaluation.results import EvalResult
from ..papers import PROTOCOLS, get_recipe
from ..papers.recipes import (
    Quirks,
    Recipe,
    RecipeScorer,
    check_recipe_measures,
    query_paper_of,
)
from ..printing.escaping import plain_text
from ..printing.printable import Printable
from ..reading.io import KEEP_ALL, as_dataset, as_qrels, drop_duplicates
from ..reading.sources import Read, read_in_chunks
from ..reading.tables import Qrels, Run, lookup, take
from ..scoring import build_rankings, percent_scale, tie_range_matrix

TOLERANCE = 1e-9

CAUSES: dict[str, str] = {
    "tie_order": "tied scores: the recipe keeps the run's order, trec_eval puts tied docs in "
    "descending doc id order",
    "duplicate_doc": "a doc listed twice in the ranking: the recipe's script counts it its own "
    "way (once at its first copy, or every copy), trec_eval keeps the best-scored copy only",
    "ranking_depth": "the recipe cuts the list at a fixed depth (the largest Recall cut-off) "
    "before removing the query paper: MAP and MRR see only that depth",
    "query_paper_removed": "the query's own (citing) paper is in its ranking: the recipe removes "
    "it, trec_eval ranks it as a non-relevant doc",
    "query_paper_gold_removed": "the query's own paper is one of its gold papers and the recipe "
    "removes it from the ranking anyway (it stays in the gold set)",
    "label_threshold": "the recipe counts only labels at or above its threshold as gold, "
    "trec_eval every label >= 1",
    "single_gold": "several relevant papers: the recipe scores only the first listed one",
    "gold_from_context_id": "the recipe takes the gold paper from the context id "
    "(<citing>_<cited>_<n>), not from the qrels",
    "gold_outside_pool": "a gold paper outside the candidate pool: the recipe drops it from the "
    "gold set, trec_eval counts it as relevant and never retrieved",
    "first_listed_gold": "several relevant papers: the recipe's RR uses the first listed gold "
    "paper while another relevant paper ranks higher",
    "gold_not_retrieved": "the recipe's (first listed) gold paper is not retrieved, while "
    "another relevant paper is",
    "graded_labels": "graded labels: the recipe uses binary gains, trec_eval gain = label",
    "truncated_cutoff": "the recipe's reciprocal rank is truncated (MRR@N), trec_eval's is not",
    "unretrieved_rank": "a gold paper that is not retrieved is given a fixed rank by the recipe "
    "(SymTax's rank-100 rule), so it counts as a hit at large K",
    "missing_query": "a qrels query has no ranking in the run: trec_eval -c scores it 0, the "
    "recipe does not average it",
    "run_only_query": "a run query is not in the qrels: the recipe averages it, trec_eval "
    "ignores it",
    "query_without_relevant": "a query with no relevant paper: trec_eval scores it 0, the recipe "
    "does not average it",
    "unexplained": "a difference none of the causes above accounts for",
}

_SHORT_NAMES = {
    "difference": "diff",
    "max_abs_query_difference": "max|q|",
    "queries_differing": "n_diff",
    "tie_worst": "worst",
    "tie_expected": "expected",
    "tie_best": "best",
}

_QUIRK_CAUSE = {
    "tie_order": "tie_order",
    "duplicates": "duplicate_doc",
    "ranking_depth": "ranking_depth",
    "query_paper": "query_paper_removed",
    "min_relevance": "label_threshold",
    "gold": "single_gold",
    "gold_in_pool": "gold_outside_pool",
    "first_listed_gold": "first_listed_gold",
    "binary_gains": "graded_labels",
    "rr_cutoff": "truncated_cutoff",
    "unretrieved_rank": "unretrieved_rank",
}


@dataclass(repr=False)
class CrosscheckReport(Printable):
    """The cross-check of one run: per-measure summary, every differing query with its
    causes, counts per cause, and tie ranges.

    ``summary``: one row per measure (``trec_eval``, ``recipe``, ``difference``,
    ``max_abs_query_difference``, ``queries_differing``, ``tie_worst``, ``tie_expected``,
    ``tie_best``). ``differences``: one row per differing (query, measure). ``causes``: one row
    per cause found. ``tie_queries``: per tied query and measure, the trec_eval value and its
    range. ``crashes``: the queries on which the paper's script itself would have stopped
    with an exception (the recipe scores them as an empty match); ``recipe_per_query``: the
    recipe's value of every query it averages. Values are fractions;
    ``percent`` says how the recipe's paper prints them.
    """

    recipe: Recipe
    protocol: Protocol | None
    recipe_ties: str
    summary: pd.DataFrame
    differences: pd.DataFrame
    causes: pd.DataFrame
    tie_queries: pd.DataFrame
    crashes: pd.DataFrame
    recipe_per_query: pd.DataFrame
    warnings: list[EvalWarning] = field(default_factory=list)
    percent: bool = False

    def _summary(self) -> dict[str, object]:
        differing = self.differences["query_id"].nunique() if len(self.differences) else 0
        return {
            "recipe": self.recipe.name,
            "measures": len(self.summary),
            "queries_differing": int(differing),
            "unexplained": self.unexplained,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per measure (index ``measure``): ``trec_eval``, ``recipe``,
        ``difference``, the largest per-query difference, ``queries_differing`` and the tie
        range. The differing queries, one row per (query, measure): :attr:`differences`."""
        return self.summary.copy()

    @property
    def unexplained(self) -> int:
        """Number of (query, measure) differences no cause accounts for."""
        if self.differences.empty:
            return 0
        return int(self.differences["causes"].str.contains("unexplained").sum())

    def failures(self, tolerance: float | None = None) -> list[str]:
        """Why a ``--strict`` check fails: unexplained differences, or an aggregate
        difference above ``tolerance`` (when given). Empty when it passes."""
        out = []
        if self.unexplained:
            out.append(f"{self.unexplained} unexplained difference(s)")
        if tolerance is not None:
            too_big = self.summary[self.summary["difference"].abs() > tolerance]
            out += [
                f"{m}: recipe and trec_eval differ by {d:+.6g} (tolerance {tolerance:g})"
                for m, d in too_big["difference"].items()
            ]
        return out

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict:
        return {
            "recipe": self.recipe.name,
            "recipe_reference": self.recipe.reference,
            "protocol": self.protocol.name if self.protocol else None,
            "recipe_ties": self.recipe_ties,
            "values_in": "fraction",
            "summary": _records(self.summary.reset_index()),
            "causes": _records(self.causes),
            "differences": _records(self.differences),
            "tie_queries": _records(self.tie_queries),
            "script_would_stop": _records(self.crashes),
            "unexplained": self.unexplained,
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(
        self,
        fmt: str,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        max_rows: int = 10,
    ) -> str:
        """The table for a terminal (``max_rows`` differing queries shown)."""
        percent = self.percent if percent is None else percent
        decimals = display_decimals(percent, self.protocol, decimals)
        shown = self.summary.copy()
        value_columns = [
            "trec_eval",
            "recipe",
            "difference",
            "max_abs_query_difference",
            "tie_worst",
            "tie_expected",
            "tie_best",
        ]
        # rounded, then +0.0, so a difference of -1e-17 prints as 0.00, not -0.00
        factors = [percent_scale(m, percent) for m in shown.index]
        shown[value_columns] = shown[value_columns].mul(factors, axis=0).round(decimals) + 0.0
        lines = [
            f"cross-check: trec_eval vs recipe {self.recipe.name} "
            f"({self.recipe.reference}); the recipe sees tied scores in "
            f"{'the run' if self.recipe_ties == 'run_order' else 'trec_eval'}'s order"
            + (" (percent)" if percent else ""),
            _indent(
                shown.rename(columns=_SHORT_NAMES).to_string(
                    float_format=lambda v: f"{v:.{decimals}f}"
                )
            ),
            "  (max|q|: largest per-query difference; n_diff: queries that differ; worst, "
            "expected, best: trec_eval's value over all orders of tied scores)",
        ]
        if self.causes.empty:
            lines.append("no difference: the recipe and trec_eval agree on every query")
        else:
            lines.append("causes of the differences (query x measure pairs, queries, examples):")
            for row in self.causes.itertuples():
                lines.append(
                    f"  {row.cause:<22} {row.differences:>6,} {row.queries:>6,}  "
                    f"{', '.join(map(plain_text, row.examples))}\n      {row.description}"
                )
            head = self.differences.head(max_rows).copy()
            factors = np.array([percent_scale(m, percent) for m in head["measure"]], dtype=float)
            for column in ("trec_eval", "recipe", "difference"):
                head[column] = head[column] * factors
            head["query_id"] = head["query_id"].map(plain_text)
            queries = self.differences["query_id"].nunique()
            lines.append(
                f"differing query x measure pairs (first {len(head)} of "
                f"{len(self.differences):,}, in {queries:,} quer{'y' if queries == 1 else 'ies'}):"
            )
            lines.append(
                _indent(head.to_string(index=False, float_format=lambda v: f"{v:.{decimals}f}"))
            )
        if len(self.crashes):
            lines.append(
                f"the {self.recipe.name} script would have stopped on "
                f"{self.crashes['query_id'].nunique():,} queries (the recipe scores them 0):"
            )
            for (exception, line), rows in self.crashes.groupby(["exception", "line"]):
                lines.append(
                    f"  {exception} ({line}): {len(rows):,} queries, e.g. "
                    + ", ".join(map(plain_text, examples_of(rows["query_id"], 3)))
                )
        lines.append(f"unexplained differences: {self.unexplained}")
        return "\n".join(lines) + "\n"


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _records(frame: pd.DataFrame) -> list[dict]:
    out = []
    for record in frame.to_dict(orient="records"):
        out.append(
            {
                k: (
                    None
                    if isinstance(v, float) and math.isnan(v)
                    else list(v)
                    if isinstance(v, tuple)
                    else v
                )
                for k, v in record.items()
            }
        )
    return out


# --------------------------------------------------------------------------- computation


def _paper_lookup(query_papers, qrels) -> Callable[[str], str | None]:
    """Who the citing / query paper of a query is: the caller's mapping, else the
    ``citing_id`` of the qrels' ir_datasets queries, else read off the query id."""
    if query_papers is None:
        dataset = as_dataset(qrels)
        if dataset is not None:
            _, dataset = dataset
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


def _attribute(
    scorer: RecipeScorer, measures, quirks: Quirks, values: np.ndarray, reference: np.ndarray
) -> list[list[list[str]]]:
    """Causes of each (query, measure) of ``scorer``'s queries: the recipe's quirks are
    switched off one at a time, in attribution order; a quirk that moves the value is a
    cause. What still differs with every quirk off is ``unexplained``."""
    causes: list[list[list[str]]] = [[[] for _ in measures] for _ in range(len(values))]
    for name in quirks.active():
        lighter = quirks.without(name)
        moved_values = scorer.values(measures, lighter)
        moved = np.abs(moved_values - values) > TOLERANCE
        if moved.any():
            label = _cause_names(scorer, name, quirks)
            for row, column in zip(*np.nonzero(moved)):
                causes[row][column].append(label[row])
        quirks, values = lighter, moved_values
    for row, column in zip(*np.nonzero(np.abs(values - reference) > TOLERANCE)):
        causes[row][column].append("unexplained")
    return causes


def _cause_names(scorer: RecipeScorer, quirk: str, quirks: Quirks) -> list[str]:
    """The cause a quirk names for each query: ``first_listed_gold`` is
    ``gold_not_retrieved`` where that gold paper is not in the ranking at all; removing the
    query paper is ``query_paper_gold_removed`` where that paper is gold; the gold source
    says which source it is."""
    cause = _QUIRK_CAUSE[quirk]
    if quirk == "gold" and quirks.gold == "context_id":
        cause = "gold_from_context_id"
    if quirk not in ("first_listed_gold", "query_paper"):
        return [cause] * len(scorer.query_ids)
    if quirk == "query_paper":
        return [
            "query_paper_gold_removed" if gold else cause for gold in scorer.paper_is_gold(quirks)
        ]
    rankings = scorer.rankings(quirks, "first_copy", None)
    first = rankings.judgements.first_relevant_row(quirks.min_relevance)
    retrieved = np.zeros(len(rankings.judgements.label) + 1, dtype=bool)
    retrieved[rankings.qrel_row] = True
    return [cause if row < 0 or retrieved[row] else "gold_not_retrieved" for row in first]


def _pool_of(pool, qrels) -> pa.Array | None:
    """The candidate pool as doc ids: the caller's, else the docs of the qrels' dataset."""
    if pool is None:
        dataset = as_dataset(qrels)
        if dataset is None or not dataset[1].has_docs():
            return None
        pool = (doc.doc_id for doc in dataset[1].docs_iter())
    return pa.array(list(pool), pa.string())


# --------------------------------------------------------------------------- one chunk


@dataclass(frozen=True)
class _Check:
    """What every chunk of a run is cross-checked with (it pickles, for Dask workers)."""

    qrels: Qrels
    measures: list[Measure]
    recipe: Recipe
    ties: str  # the order in which the recipe sees tied scores
    paper_of: Callable[[str], str | None]
    pool: pa.Array | None
    reference: Settings  # the trec_eval side: trec_eval's tie order


@dataclass
class _RecipePart:
    """The recipe's side of some queries: its values, where its script would stop, and
    every (query, measure) it differs on from trec_eval, with the causes."""

    query_ids: list[str]
    values: np.ndarray
    crashes: dict[str, np.ndarray]  # per crash rule, per query
    differences: list[tuple[int, tuple]]  # (row in query_ids, a row of the differences)


@dataclass
class _CheckedPart:
    """What cross-checking one chunk of whole queries leaves."""

    reference: Part  # the trec_eval side, of the chunk with duplicates dropped
    tie_ranges: tuple[np.ndarray, np.ndarray, np.ndarray]  # worst, expected, best per row
    run_warnings: list[EvalWarning]  # of the chunk as read, every copy kept
    recipe: _RecipePart


def _check_chunk(raw: Run, check: _Check) -> _CheckedPart:
    """Cross-check one chunk of whole queries (read with every copy kept): trec_eval's
    values of its counted queries and their tie ranges, and the recipe's side of the
    recipe's queries it ranks."""
    qrels = check.qrels
    deduplicated = drop_duplicates(raw)
    reference = score_part(deduplicated, qrels, check.reference)
    ranges = _tie_ranges(deduplicated, qrels, reference.rows, check.measures)
    if check.recipe.queries == "run":
        recipe_ids = reference.run_ids.to_pylist()
    else:  # the qrels queries it ranks, in qrels order
        in_qrels = lookup(reference.run_ids, qrels.all_query_ids)
        recipe_ids = take(qrels.all_query_ids, np.sort(in_qrels[in_qrels >= 0])).to_pylist()
    reference_ids = take(qrels.all_query_ids, reference.rows).to_pylist()
    reference_row = {q: i for i, q in enumerate(reference_ids)}
    recipe = _recipe_part(raw, recipe_ids, check, reference_row, reference.values)
    return _CheckedPart(reference, ranges, list(raw.warnings), recipe)


def _tie_ranges(run: Run, qrels: Qrels, rows: np.ndarray, measures):
    """The worst / expected / best value of each query at ``rows`` (positions in the
    qrels) over every order of its tied scores."""
    return tie_range_matrix(measures, build_rankings(run, qrels, rows, ties="trec_eval"))


def _recipe_part(
    run: Run,
    query_ids: list[str],
    check: _Check,
    reference_row: Mapping[str, int],
    reference_values: np.ndarray,
) -> _RecipePart:
    """The recipe's side of ``query_ids`` (queries ``run`` ranks, or an empty run for
    those no chunk ranks), compared with trec_eval's values (``reference_row``: a query's
    row of ``reference_values``, where trec_eval averages it)."""
    recipe, quirks, measures = check.recipe, check.recipe.quirks, check.measures
    nothing = _RecipePart(
        [], np.empty((0, len(measures))), {c.when: np.zeros(0, bool) for c in recipe.crashes}, []
    )
    if not query_ids:
        return nothing
    papers = [check.paper_of(q) for q in query_ids]
    scorer = RecipeScorer(run, check.qrels, query_ids, papers, check.ties, check.pool)
    if recipe.queries == "gold_and_run":
        scorer = scorer.restricted(np.flatnonzero(scorer.relevant(quirks) > 0))
        query_ids = scorer.query_ids
        if not query_ids:
            return nothing
    values = scorer.values(measures, quirks)
    ref_of = np.array([reference_row.get(q, -1) for q in query_ids], dtype=np.int64)
    common = np.flatnonzero(ref_of >= 0)
    ref_values = reference_values[ref_of[common]]
    mine = values[common]
    differing = np.flatnonzero((np.abs(mine - ref_values) > TOLERANCE).any(axis=1))
    differences: list[tuple[int, tuple]] = []
    if differing.size:
        rows = common[differing]
        causes = _attribute(
            scorer.restricted(rows), measures, quirks, mine[differing], ref_values[differing]
        )
        for i, row in enumerate(rows.tolist()):
            for column, measure in enumerate(measures):
                if causes[i][column]:
                    ref, value = ref_values[differing[i], column], mine[differing[i], column]
                    why = ";".join(causes[i][column])
                    found = (query_ids[row], str(measure), ref, value, value - ref, why)
                    differences.append((row, found))
    return _RecipePart(query_ids, values, scorer.crashes(recipe), differences)


# --------------------------------------------------------------------------- the whole run


def crosscheck(
    run,
    qrels,
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    recipe: str | Recipe | None = None,
    recipe_ties: str = "run_order",
    query_papers: Mapping[str, str] | Callable[[str], str | None] | None = None,
    pool: Iterable[str] | None = None,
    options: EvalOptions | None = None,
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
        How the run is read (``memory``, ``progress``, ...), as in
        :func:`citeval_irm.evaluate`; ``ties`` and ``duplicates`` are not used (the recipe sees
        every copy of a doc, trec_eval the best-scored one) and ``max_docs`` is refused (the
        paper's script reads whole rankings). A run file larger than ``memory`` allows is
        cross-checked a chunk of whole queries at a time, with the same report.

    Returns
    -------
    CrosscheckReport
        Both sides' means, the queries that differ and each difference's cause.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test", progress=False)
    >>> report = citeval_irm.crosscheck(run, "citeval/demo/test", protocol="goyal2026")
    >>> print(report.format())  # doctest: +SKIP
    """
    check_choice("recipe_ties", recipe_ties, TIE_POLICIES)
    (options,) = options_from("crosscheck", (options, EvalOptions))
    if options.max_docs is not None:
        raise InputError(
            None, "a cross-check reads whole rankings, as the paper's script: no max_docs"
        )
    if (
        recipe is None
        and protocol is None
        and not (isinstance(measures, str) and measures in PROTOCOLS)
    ):
        raise InputError(None, "name a recipe (e.g. --recipe goyal2026) or a protocol")
    if measures is None and protocol is None:
        measures = list(get_recipe(recipe).measures)  # a recipe alone: its own measures
    measure_list, protocol_obj = resolve_measures(measures, protocol)
    recipe_obj = get_recipe(recipe if recipe is not None else protocol_obj.recipe)
    check_recipe_measures(measure_list, recipe_obj)
    qrels_table = as_qrels(qrels)
    pool_ids = _pool_of(pool, qrels) if recipe_obj.quirks.gold_in_pool else None
    reference = replace(options, ties="trec_eval", scheduler=None)
    check = _Check(
        qrels_table,
        measure_list,
        recipe_obj,
        recipe_ties,
        _paper_lookup(query_papers, qrels),
        pool_ids,
        Settings(measure_list, reference),
    )
    read = read_in_chunks(
        run,
        functools.partial(_check_chunk, check=check),
        duplicates=KEEP_ALL,
        memory=options.memory,
        progress=options.progress,
        dask=options.engine == "dask",
        scheduler=options.scheduler,
        label="citeval: cross-checking the run",
    )
    return _merge_checked(read, check, protocol_obj)


def _merge_checked(read: Read[_CheckedPart], check: _Check, protocol_obj) -> CrosscheckReport:
    """The report of the whole run from its chunks (in run order): trec_eval's evaluation
    merged once; the queries the recipe averages, which depend on the whole run's queries
    (those no chunk ranks scored on an empty ranking, as the script would); the
    differences, tie ranges and warnings in the order of a run read whole."""
    qrels, measures, recipe = check.qrels, check.measures, check.recipe
    parts = read.results
    reference = merge_parts(
        [p.reference for p in parts], qrels, check.reference, None, read.source, read.notes
    )
    issue(reference.warnings)  # trec_eval's side, as its own evaluate() would
    reference_row = {q: i for i, q in enumerate(reference.query_ids)}
    run_set = {q for p in parts for q in p.reference.run_ids.to_pylist()}
    recipe_parts = [p.recipe for p in parts]
    if recipe.queries == "qrels":  # the test set's queries no chunk ranks: empty rankings
        unranked = [q for q in qrels.query_id_list if q not in run_set]
        nothing = empty_run(read.source)
        recipe_parts.append(_recipe_part(nothing, unranked, check, reference_row, reference.values))
    scored_ids, recipe_values, crashes, recipe_differences = _recipe_in_order(
        recipe_parts, recipe, qrels, len(measures)
    )

    names = [str(m) for m in measures]
    differences = list(recipe_differences)
    scored_set = set(scored_ids)
    for query_id, row in reference_row.items():
        if query_id not in scored_set:
            cause = "query_without_relevant" if query_id in run_set else "missing_query"
            differences += [
                (query_id, name, reference.values[row, c], math.nan, math.nan, cause)
                for c, name in enumerate(names)
            ]
    for row, query_id in enumerate(scored_ids):
        if query_id not in reference_row:
            differences += [
                (query_id, name, math.nan, recipe_values[row, c], math.nan, "run_only_query")
                for c, name in enumerate(names)
            ]
    diff_frame = pd.DataFrame(
        differences, columns=["query_id", "measure", "trec_eval", "recipe", "difference", "causes"]
    )
    tie_frame, tie_means = _tie_table(parts, check, reference, read.source)
    summary = _summary(names, reference, recipe_values, diff_frame, tie_means)
    percent = protocol_obj.percent if protocol_obj is not None else recipe.percent
    # the run's warnings as read, then trec_eval's: not its dropping of duplicates (which
    # the recipe does not do), nor what reading already said (extra text, comments, sort)
    as_read = merge_warnings([*(p.run_warnings for p in parts), read.notes])
    said = {w.code for w in as_read} | {"duplicate_docs_dropped"}
    warnings = as_read + [w for w in reference.warnings if w.code not in said]
    if recipe.quirks.gold_in_pool and check.pool is None:
        warnings.append(
            EvalWarning(
                "pool_unknown",
                f"the {recipe.name} script drops gold papers outside the candidate pool; "
                "no pool is known (give pool= or a dataset), so every gold paper is kept",
                len(scored_ids),
            )
        )
    return CrosscheckReport(
        recipe=recipe,
        protocol=protocol_obj,
        recipe_ties=check.ties,
        summary=summary,
        differences=diff_frame,
        causes=_cause_table(diff_frame),
        tie_queries=tie_frame,
        crashes=_crash_table(recipe, scored_ids, crashes),
        recipe_per_query=pd.DataFrame(
            recipe_values, index=pd.Index(scored_ids, name="query_id"), columns=names
        ),
        warnings=warnings,
        percent=percent,
    )


def _recipe_in_order(
    parts: list[_RecipePart], recipe: Recipe, qrels: Qrels, width: int
) -> tuple[list[str], np.ndarray, dict[str, np.ndarray], list[tuple]]:
    """The recipe's queries in the order its script averages them (the run's order for a
    loop over the predictions, the qrels' otherwise), with their values, crash flags and
    differences in that order."""
    query_ids = [q for p in parts for q in p.query_ids]
    if recipe.queries == "run":
        order = np.arange(len(query_ids))
    else:
        position = {q: i for i, q in enumerate(qrels.query_id_list)}
        order = np.argsort([position[q] for q in query_ids], kind="stable")
    values = np.vstack([np.empty((0, width)), *(p.values for p in parts)])[order]
    crashes = {
        c.when: np.concatenate([np.zeros(0, bool), *(p.crashes[c.when] for p in parts)])[order]
        for c in recipe.crashes
    }
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    found, first = [], 0
    for part in parts:
        found += [(rank[first + row], difference) for row, difference in part.differences]
        first += len(part.query_ids)
    found.sort(key=lambda pair: pair[0])  # stable: a query's measures stay in their order
    return [query_ids[i] for i in order], values, crashes, [d for _, d in found]


def _crash_table(
    recipe: Recipe, query_ids: list[str], crashes: dict[str, np.ndarray]
) -> pd.DataFrame:
    """One row per query on which the recipe's script would have stopped, and why."""
    columns = ["query_id", "exception", "line"]
    rows = []
    for crash in recipe.crashes:
        where = crashes[crash.when]
        rows += [(query_ids[i], crash.exception, crash.line) for i in np.flatnonzero(where)]
    return pd.DataFrame(rows, columns=columns)


def _tie_table(
    parts: list[_CheckedPart], check: _Check, reference: EvalResult, source: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """Per tied query and measure: the trec_eval value and its worst / expected / best
    over every order of the tied scores; and the three means over all counted queries
    (those no chunk ranks: over their empty ranking)."""
    columns = ["query_id", "measure", "trec_eval", "worst", "expected", "best"]
    qrels, measures = check.qrels, check.measures
    counted = counted_queries(qrels, check.reference.empty_queries)
    side_by_side = in_population_order(  # worst | expected | best, one block of columns each
        counted,
        qrels,
        [(part.reference.rows, np.hstack(part.tie_ranges)) for part in parts],
        3 * len(measures),
        lambda missing: np.hstack(_tie_ranges(empty_run(source), qrels, missing, measures)),
    )
    worst, expected, best = np.hsplit(side_by_side, 3)
    means = np.vstack([worst.mean(axis=0), expected.mean(axis=0), best.mean(axis=0)])
    tied = reference.ties.query_ids if reference.ties else frozenset()
    rows = [i for i, q in enumerate(reference.query_ids) if q in tied]
    if not rows:
        return pd.DataFrame(columns=columns), means
    names = [str(m) for m in measures]
    out = pd.DataFrame(
        {
            "query_id": np.repeat([reference.query_ids[i] for i in rows], len(names)),
            "measure": np.tile(names, len(rows)),
            "trec_eval": reference.values[rows].ravel(),
            "worst": worst[rows].ravel(),
            "expected": expected[rows].ravel(),
            "best": best[rows].ravel(),
        }
    )
    return out, means


def _summary(names, reference, recipe_values, diff_frame, tie_means) -> pd.DataFrame:
    rows = {}
    for column, name in enumerate(names):
        mine = diff_frame[diff_frame["measure"] == name]
        both = mine["difference"].dropna()
        rows[name] = {
            "trec_eval": float(reference.aggregates[name]),
            "recipe": float(recipe_values[:, column].mean()) if len(recipe_values) else math.nan,
            "max_abs_query_difference": float(both.abs().max()) if len(both) else 0.0,
            "queries_differing": int(mine["query_id"].nunique()),
            "tie_worst": float(tie_means[0, column]),
            "tie_expected": float(tie_means[1, column]),
            "tie_best": float(tie_means[2, column]),
        }
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary.insert(2, "difference", summary["recipe"] - summary["trec_eval"])
    summary.index.name = "measure"
    return summary


def _cause_table(diff_frame: pd.DataFrame) -> pd.DataFrame:
    columns = ["cause", "description", "differences", "queries", "examples"]
    if diff_frame.empty:
        return pd.DataFrame(columns=columns)
    exploded = diff_frame.assign(cause=diff_frame["causes"].str.split(";")).explode("cause")
    rows = []
    for cause in CAUSES:  # the closed list's order
        hit = exploded[exploded["cause"] == cause]
        if len(hit):
            queries = pd.unique(hit["query_id"])
            rows.append((cause, CAUSES[cause], len(hit), len(queries), examples_of(queries, 3)))
    return pd.DataFrame(rows, columns=columns)
