"""The duplicate policy: a (query, doc) given twice is an error, its best copy, or both."""

from __future__ import annotations

import numpy as np

from ..base.choices import DUPLICATE_POLICIES, KEEP_ALL, check_choice
from ..base.errors import EvalWarning, InputError, quoted
from .tables import Qrels, Run, first_copies, has_repeated_pairs, take


def repeated_rows(table: Run | Qrels) -> np.ndarray:
    """Positions (ascending) of rows whose (query, doc) appeared on an earlier row."""
    return np.flatnonzero(~first_copies(table.query, table.doc, len(table.doc_ids)))


def check_duplicates(table, policy: str, kind: str, locate=None):
    """Apply a duplicate policy to a table whose (query, doc) pairs must be unique.

    ``"error"`` raises, naming the line of the first repeat (``locate()`` re-reads a file
    for its line numbers only when needed); ``"keep_best"`` keeps the best-scored copy (the
    first among equal scores) and returns a counted warning; ``KEEP_ALL`` keeps every copy.
    """
    check_choice("duplicates", policy, DUPLICATE_POLICIES + (KEEP_ALL,))
    if isinstance(table, Run) and table.unique:
        return table, []
    if not has_repeated_pairs(table.query, table.doc, len(table.doc_ids)):
        if isinstance(table, Run):
            table.unique = True
        return table, []
    rows = repeated_rows(table)
    queries = take(table.query_ids, table.query[rows[:5]]).to_pylist()
    docs = take(table.doc_ids, table.doc[rows[:5]]).to_pylist()
    examples = tuple(f"{q}/{d}" for q, d in zip(queries, docs))
    if policy == KEEP_ALL:
        message = "duplicate (query, doc) rows in the run: kept, as a list-based script sees them"
        return table, [EvalWarning("duplicate_docs_kept", message, len(rows), examples)]
    if policy == "error":
        row = int(rows[0])
        line_numbers = locate() if locate is not None else None
        line = int(line_numbers[row]) if line_numbers is not None else row + 1
        hint = (
            "; pass duplicates='keep_best' (CLI: --duplicates keep_best) to keep the "
            "best-scored copy"
            if kind == "score"
            else ""
        )
        raise InputError(
            table.source,
            f"duplicate {kind} for query {quoted(queries[0])} and doc {quoted(docs[0])} "
            f"({len(rows)} repeated rows in all){hint}",
            line,
        )
    by_score = np.lexsort((np.arange(len(table)), -table.score))  # best first, then line order
    best = first_copies(table.query[by_score], table.doc[by_score], len(table.doc_ids))
    kept = table.take(np.sort(by_score[best]), unique=True)
    message = (
        "duplicate (query, doc) rows in the run: kept the best-scored copy, dropped the others"
    )
    return kept, [EvalWarning("duplicate_docs_dropped", message, len(rows), examples)]
