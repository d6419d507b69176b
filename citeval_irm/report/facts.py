"""Everything a report shows about one run, computed while the run is in memory.

A run may have millions of rows, so a report reads each run once, computes what its
sections and plots need (its evaluation, Recall@K over many cut-offs, the rank of each
query's first relevant paper, the tie ranges, its validation, its file's sha256) and keeps
only that, as :func:`citeval_irm.compare` does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..base.choices import KEEP_ALL
from ..base.downloads import file_checksum
from ..base.errors import CitevalError, silenced
from ..base.options import EvalOptions, ExecutionOptions
from ..checks.protocol import ValidationReport, validate
from ..evaluation.evaluate import evaluate
from ..evaluation.population import population
from ..evaluation.results import EvalResult
from ..reading.io import read_run
from ..reading.tables import Qrels, Run
from ..scoring import aggregate, build_rankings, definition, tie_range_matrix

RECALL_CUTOFFS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 5000, 10_000)
"""Where the Recall@K curve is evaluated (up to the deepest ranking, plus the protocol's)."""

RANK_BINS: tuple[tuple[int, int | None], ...] = (
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 5),
    (6, 10),
    (11, 20),
    (21, 50),
    (51, 100),
    (101, 300),
    (301, 1000),
    (1001, None),
)
NOT_RETRIEVED = "none"


@dataclass(frozen=True)
class RunTieRange:
    """A measure's reported value for a whole run and the mean over its queries of the
    worst, expected and best value over every order of the tied scores (one query's range
    is :class:`citeval_irm.scoring.tieaware.TieRange`)."""

    value: float
    worst: float
    expected: float
    best: float

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.value, self.worst, self.expected, self.best)


@dataclass
class RunFacts:
    """What a report keeps of one run once it is read (see the module docstring)."""

    name: str
    source: str
    sha256: str | None
    lines: int
    queries: int
    shortest: int
    deepest: int
    evaluation: EvalResult
    recall: dict[int, float]
    first_ranks: np.ndarray
    """Per evaluated query: the rank of its first relevant paper (0: none retrieved)."""
    tie_ranges: dict[str, RunTieRange]
    validation: ValidationReport | None
    unvalidated: str | None


def recall_cutoffs(deepest: int, measures) -> list[int]:
    """The grid's cut-offs up to ``deepest``, the deepest itself, and every Recall cut-off
    the measures name."""
    named = {m.params["cutoff"] for m in measures if m.NAME == "R" and m.params.get("cutoff")}
    grid = {k for k in RECALL_CUTOFFS if k <= deepest} | {max(deepest, 1)}
    return sorted(grid | named)


def rank_bin_labels(deepest: int) -> list[str]:
    """The rank bins a ranking of ``deepest`` docs can fill, then the not-retrieved bin."""
    labels = [
        str(low) if low == high else (f"{low}-{high}" if high else f">{low - 1}")
        for low, high in RANK_BINS
        if low <= max(deepest, 1)
    ]
    return [*labels, NOT_RETRIEVED]


def rank_bin_counts(first_ranks: np.ndarray, deepest: int) -> list[int]:
    """How many queries fall in each bin of :func:`rank_bin_labels`."""
    counts = []
    for low, high in RANK_BINS:
        if low > max(deepest, 1):
            break
        upper = first_ranks <= high if high else True
        counts.append(int(((first_ranks >= low) & upper).sum()))
    return [*counts, int((first_ranks == 0).sum())]


def run_facts(
    name: str,
    source,
    qrels: Qrels,
    measures,
    *,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    evaluation: EvalResult | None,
    dataset: str | None,
    validation: ValidationReport | None,
    same_year: bool,
) -> RunFacts:
    """Read ``source`` once and compute every fact a report shows about it."""
    raw = read_run(source, duplicates=KEEP_ALL)
    run = read_run(raw, duplicates=options.duplicates)
    policies = EvalOptions(ties=options.ties, empty_queries=options.empty_queries)
    if evaluation is None:
        with silenced():  # make_report issues them, named after the run
            evaluation = evaluate(
                run, qrels, measures, protocol=protocol, options=options, execution=execution
            )
    _, sizes = run.ranked_queries()
    deepest = int(sizes.max()) if len(sizes) else 0
    cutoffs = recall_cutoffs(deepest, evaluation.measures)
    with silenced():  # the same run's warnings, once is enough
        curve = evaluate(run, qrels, ["RR", *(f"R@{k}" for k in cutoffs)], options=policies)
    reciprocal = curve.values[:, 0]
    first_ranks = np.where(reciprocal > 0, np.rint(1 / np.where(reciprocal > 0, reciprocal, 1)), 0)
    unvalidated = None
    if validation is None and dataset is not None:
        try:  # the raw rows: a duplicate the evaluation dropped is still a violation
            validation = validate(raw, dataset, same_year=same_year)
        except CitevalError as exc:
            unvalidated = f"not validated: {exc}"
    path = source if isinstance(source, (str, os.PathLike)) else None
    return RunFacts(
        name=name,
        source=str(path) if path is not None else raw.source,
        sha256=file_checksum(path, "sha256") if path is not None else None,
        lines=len(raw),
        queries=len(sizes),
        shortest=int(sizes.min()) if len(sizes) else 0,
        deepest=deepest,
        evaluation=evaluation,
        recall={k: curve.aggregates[f"R@{k}"] for k in cutoffs},
        first_ranks=first_ranks.astype(np.int64),
        tie_ranges=tie_ranges(run, qrels, evaluation, options.empty_queries),
        validation=validation,
        unvalidated=unvalidated,
    )


def tie_ranges(run: Run, qrels: Qrels, evaluation: EvalResult, empty_queries: str) -> dict:
    """Per measure of the measure table: the evaluation's value and the worst / expected /
    best aggregate over every order of the tied scores, on the evaluation's queries."""
    measures = [m for m in evaluation.measures if definition(m) is not None]
    if not measures:
        return {}
    counted = population(run, qrels, empty_queries).counted
    rankings = build_rankings(run, qrels, counted, ties="trec_eval")
    worst, expected, best = tie_range_matrix(measures, rankings)
    return {
        str(m): RunTieRange(
            evaluation.aggregates[str(m)],
            aggregate(m, worst[:, i]),
            aggregate(m, expected[:, i]),
            aggregate(m, best[:, i]),
        )
        for i, m in enumerate(measures)
    }
