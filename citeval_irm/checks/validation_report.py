"""What :func:`~citeval_irm.checks.protocol.validate` reports: the checks of a run against a
protocol (:data:`CHECKS`, in report order), :class:`ValidationReport` with its text and
JSON, and the table of the checks made from the violating rows (:func:`check_table`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..base.errors import EvalWarning
from ..printing.escaping import plain_text
from ..printing.printable import Printable, file_name

CHECKS: dict[str, str] = {
    "later_paper": "candidate published after the query paper",
    "query_paper": "the query's own (citing) paper ranked for it",
    "unknown_doc": "candidate that is not a doc of the dataset",
    "duplicate_doc": "(query, doc) pair listed more than once",
    "unknown_query": "run query that is not a query of the dataset",
    "missing_query": "dataset query with no ranking in the run",
    "short_ranking": "ranking shorter than the deepest cut-off evaluated",
    "gold_always_present": "a gold paper in nearly every ranking that could miss it (inserted?)",
}
"""The checks, in report order: four on (query, doc) pairs, four on queries."""

WARNING_CHECKS = ("gold_always_present",)
"""Checks that are warnings, and violations only with ``strict=True``."""

PAIR_CHECKS = ("later_paper", "query_paper", "unknown_doc", "duplicate_doc")
_EXAMPLES = 5
_TABLE_EXAMPLES = 3


@dataclass(repr=False)
class ValidationReport(Printable):
    """What :func:`~citeval_irm.checks.protocol.validate` found.

    ``checks``: one row per check (``check``, ``description``, ``pairs``: violating run rows,
    ``queries``: queries affected, ``examples``). ``violations``: every violating run row
    (``query_id``, ``doc_id``, ``score``, ``check``); query-level checks have an empty
    ``doc_id``. ``warnings``: what could not be checked (queries or docs without a year).
    ``depth``: the deepest cut-off every ranking must reach (``None``: none was checked).
    ``ceiling``: the recall ceiling under these rules (:func:`citeval_irm.checks.audit.
    recall_ceiling`: the best mean R@K any run can score, at the cut-offs of the recall
    measures evaluated), printed beside the result when below 100 %.
    """

    dataset: str
    run_source: str
    same_year: bool
    num_queries: int
    num_docs: int
    run_rows: int
    checks: pd.DataFrame
    violations: pd.DataFrame
    warnings: list[EvalWarning] = field(default_factory=list)
    depth: int | None = None
    ceiling: dict[str, float] = field(default_factory=dict)

    @property
    def oracle_warning(self) -> EvalWarning | None:
        """The ``gold_always_present`` warning, when the run holds the gold in nearly every
        ranking that could miss it (an oracle first stage?); ``None`` otherwise: what every
        table and report showing the run marks it by."""
        return next((w for w in self.warnings if w.code == "gold_always_present"), None)

    def _summary(self) -> dict[str, object]:
        return {
            "run": file_name(self.run_source),
            "dataset": self.dataset,
            "queries": self.num_queries,
            "passed": self.passed,
            "violations": len(self.violations),
            "warnings": len(self.warnings),
        }

    def ceiling_line(self) -> str | None:
        """``recall ceiling under this protocol (...): R@10 <= 96.42 %``, or ``None`` at
        100 %."""
        from .audit import ceiling_line

        return ceiling_line(self.ceiling)

    def to_frame(self) -> pd.DataFrame:
        """One row per check of the protocol (``check``, its count of pairs or queries,
        examples). The offending pairs, one row each: :attr:`violations`."""
        return self.checks.copy()

    @property
    def passed(self) -> bool:
        """True when no check found anything."""
        return self.violations.empty

    def count(self, check: str) -> int:
        """Violations of one check: run rows for pair checks, queries for query checks."""
        row = self.checks.set_index("check").loc[check]
        return int(row["queries"] if check not in PAIR_CHECKS else row["pairs"])

    def per_query(self) -> pd.DataFrame:
        """Violations per query (rows) and check (columns), only queries with one."""
        if self.violations.empty:
            return pd.DataFrame(columns=list(CHECKS), dtype=int)
        table = pd.crosstab(self.violations["query_id"], self.violations["check"])
        return table.reindex(columns=[c for c in CHECKS if c in table.columns])

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "run": file_name(self.run_source),
            "same_year": self.same_year,
            "dataset_queries": self.num_queries,
            "dataset_docs": self.num_docs,
            "run_rows": self.run_rows,
            "depth": self.depth,
            "recall_ceiling": self.ceiling,
            "passed": self.passed,
            "checks": [
                {**row, "examples": [list(e) for e in row["examples"]]}
                for row in self.checks.to_dict(orient="records")
            ],
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(self, fmt: str) -> str:
        """The table for a terminal."""
        policy = "admitted" if self.same_year else "not admitted"
        lines = [
            plain_text(
                f"validation: run {self.run_source} against {self.dataset} "
                f"({self.num_queries:,} queries, {self.num_docs:,} docs, {self.run_rows:,} run "
                f"rows; same-year papers {policy})"
            )
        ]
        width = max(len(c) for c in CHECKS)
        lines.append(f"  {'check':<{width}}  {'pairs':>8}  {'queries':>8}  examples")
        for row in self.checks.itertuples():
            pairs = f"{row.pairs:,}" if row.check in PAIR_CHECKS else "-"
            shown = row.examples[:_TABLE_EXAMPLES]
            examples = plain_text(", ".join(f"{q} -> {d}" if d else q for q, d in shown))
            examples += ", ..." if row.queries > len(shown) else ""
            lines.append(
                f"  {row.check:<{width}}  {pairs:>8}  {row.queries:>8,}  {examples}".rstrip()
            )
        for row in self.checks[self.checks["queries"] > 0].itertuples():
            lines.append(f"  {row.check}: {row.description}")
        lines.extend(f"  warning: {plain_text(str(w))}" for w in self.warnings)
        if self.ceiling_line():
            lines.append(f"  {self.ceiling_line()}")
        if self.passed:
            lines.append("result: the run obeys the protocol")
        else:
            failed = self.checks[self.checks["queries"] > 0]["check"].tolist()
            lines.append(f"result: VIOLATIONS ({', '.join(failed)})")
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """One line: passed, or which checks failed and how often (``citeval eval
        --dataset`` prints it above the scores)."""
        policy = "admitted" if self.same_year else "not admitted"
        flagged = "".join(
            f"; warning: {w.code} ({w.count:,} queries)"
            for w in self.warnings
            if w.code in WARNING_CHECKS
        ) + (f"; {self.ceiling_line()}" if self.ceiling_line() else "")
        if self.passed:
            return (
                f"validation against {self.dataset}: passed ({len(CHECKS)} checks, same-year "
                f"papers {policy}){flagged}"
            )
        failed = []
        for row in self.checks[self.checks["queries"] > 0].itertuples():
            queries = f"{row.queries:,} {'query' if row.queries == 1 else 'queries'}"
            failed.append(
                f"{row.check} ({row.pairs:,} pairs in {queries})"
                if row.check in PAIR_CHECKS
                else f"{row.check} ({queries})"
            )
        return (
            f"validation against {self.dataset}: VIOLATIONS: {', '.join(failed)} "
            f"(details: citeval validate){flagged}"
        )


def check_table(violations: pd.DataFrame, descriptions: dict[str, str]) -> pd.DataFrame:
    """One row per check, in report order: its description (``descriptions``' where given),
    the violating pairs (pair checks) and queries, and examples (one pair for each of the
    first queries)."""
    rows = []
    for check, description in CHECKS.items():
        description = descriptions.get(check, description)
        hits = violations[violations["check"] == check]
        head = hits.drop_duplicates("query_id").head(_EXAMPLES)  # one pair per query
        rows.append(
            {
                "check": check,
                "description": description,
                "pairs": len(hits) if check in PAIR_CHECKS else 0,
                "queries": int(hits["query_id"].nunique()),
                "examples": list(zip(head["query_id"], head["doc_id"])),
            }
        )
    return pd.DataFrame(rows, columns=["check", "description", "pairs", "queries", "examples"])
