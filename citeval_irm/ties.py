"""One tie policy, applied once, before any tool sees the run.

Tools order tied scores differently: trec_eval (and so pytrec_eval and ir-measures' default
provider) sorts by score, then by doc id in *descending* string order, ignoring the rank
column; ir-measures' msmarco provider sorts doc ids ascending; ranx has no defined order;
list-based recipes keep the input order. :func:`rank_run` picks one order, explicitly, and
rewrites the scores into strictly decreasing values (``n, n-1, ..., 1`` per query), so every
tool afterwards computes the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import EvalWarning, InputError, examples_of
from .tables import Run

TIE_POLICIES = ("trec_eval", "run_order")


@dataclass(frozen=True)
class TieReport:
    """How many queries (and docs) had tied scores, and which order broke the ties."""

    policy: str
    tied_docs: int
    examples: tuple[str, ...] = ()
    query_ids: frozenset[str] = field(default_factory=frozenset, repr=False)

    @property
    def tied_queries(self) -> int:
        return len(self.query_ids)

    def warning(self) -> EvalWarning | None:
        if not self.tied_queries:
            return None
        order = (
            "score, then doc id descending (trec_eval)"
            if self.policy == "trec_eval"
            else "score, then input order (run_order)"
        )
        return EvalWarning(
            "tied_scores",
            f"queries with tied scores; ties broken by {order}, {self.tied_docs} docs involved",
            self.tied_queries,
            self.examples,
        )


def _order(frame: pd.DataFrame, policy: str, query_codes: np.ndarray) -> np.ndarray:
    """Row positions sorted by query, score descending, then the policy's tie-breaker."""
    if policy == "run_order":
        tie_breaker, direction = np.arange(len(frame)), "ascending"
    else:
        # Arrow compares strings bytewise, which is what trec_eval's strcmp does.
        tie_breaker, direction = pa.array(frame["doc_id"]), "descending"
    table = pa.table({"query": query_codes, "score": frame["score"].to_numpy(), "tie": tie_breaker})
    keys = [("query", "ascending"), ("score", "descending"), ("tie", direction)]
    return pc.sort_indices(table, sort_keys=keys).to_numpy()


def rank_run(
    run: Run, ties: str = "trec_eval", *, rewrite_scores: bool = True
) -> tuple[Run, TieReport]:
    """Sort ``run`` per query in the order ``ties`` defines and (by default) replace its
    scores by strictly decreasing ones, so any evaluator reproduces exactly that order.

    ``ties="trec_eval"``: score descending, then doc id descending (bytewise), as trec_eval.
    ``ties="run_order"``: score descending, then the order of the rows in the input (line
    order of a file, insertion order of a dict).
    """
    if ties not in TIE_POLICIES:
        raise InputError(None, f"ties must be one of {TIE_POLICIES}, not {ties!r}")
    frame = run.frame
    codes, uniques = pd.factorize(frame["query_id"], sort=False)
    order = _order(frame, ties, codes)
    ranked = frame.iloc[order].reset_index(drop=True)
    codes = codes[order]
    scores = ranked["score"].to_numpy()
    same_query = codes[1:] == codes[:-1]
    tied_pair = same_query & (scores[1:] == scores[:-1])
    tied_row = np.zeros(len(ranked), dtype=bool)
    tied_row[1:] |= tied_pair
    tied_row[:-1] |= tied_pair
    tied_queries = uniques[pd.unique(codes[tied_row])]
    report = TieReport(
        ties,
        int(tied_row.sum()),
        examples_of(tied_queries),
        frozenset(str(q) for q in tied_queries),
    )
    if rewrite_scores:
        starts = np.flatnonzero(np.concatenate(([True], ~same_query)))
        sizes = np.diff(np.append(starts, len(codes)))
        position = np.arange(len(codes)) - np.repeat(starts, sizes)
        ranked["score"] = (np.repeat(sizes, sizes) - position).astype(np.float64)
    return Run(ranked, run.source, list(run.warnings)), report
