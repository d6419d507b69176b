"""``check_published``: every row of a published table judged possible or not as printed,
and :class:`PublishedCheck`, what it found (the method: :mod:`.consistency`).

A row is one system's values on one dataset, setting and stage. Its verdict comes from the
linear program over the gold paper's rank when the dataset has one gold paper per query,
else from the bounds that hold whatever the number of gold papers; every output that shows
a published value marks an impossible row the same way
(:func:`.consistency.impossible_rows`, the ``impossible`` column, the ``[impossible]`` mark
beside the system's name).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd

from ...base.choices import TABLE_FORMATS
from ...printing.escaping import csv_frame, latex_text, text
from ...printing.printable import Printable
from ...printing.text_tables import blocks, render
from .consistency import ROW_KEYS, SEVERAL_GOLD_CHECKS, explained, row_verdicts
from .tables import Paper


@dataclass(repr=False)
class PublishedCheck(Printable):
    """Every row of the published tables checked: possible as printed, or not and why.

    ``frame`` columns: ``paper, dataset, split, setting, stage, system, check`` (``one
    gold``: the linear program; ``several gold``: the bounds that hold for any number of
    gold papers), ``possible``, ``reason``, ``fix`` (the smallest one-value change, as
    ``measure = value``), ``conflicts`` (the values that cannot hold together).
    """

    frame: pd.DataFrame
    papers: dict[str, Paper]

    FORMATS = TABLE_FORMATS

    def _summary(self) -> dict[str, object]:
        return {"rows": len(self.frame), "impossible": len(self.impossible)}

    def to_frame(self) -> pd.DataFrame:
        """One row per published row: its keys, the check made, the verdict and why."""
        return self.frame.copy()

    def to_dict(self) -> dict:
        return {
            "rows": self.frame.to_dict(orient="records"),
            "several_gold_checks": list(SEVERAL_GOLD_CHECKS),
            "papers": {name: paper.provenance for name, paper in self.papers.items()},
        }

    @property
    def impossible(self) -> pd.DataFrame:
        """The impossible rows only."""
        return self.frame[~self.frame["possible"]].reset_index(drop=True)

    def _render(self, fmt: str) -> str:
        if fmt == "csv":
            return csv_frame(self.frame)
        headers = ["paper", "dataset", "stage", "system", "check", "verdict"]
        rows = [
            [
                r.paper,
                r.dataset,
                r.stage,
                r.system,
                r.check,
                "possible" if r.possible else f"IMPOSSIBLE: {r.reason}",
            ]
            for r in self.frame.itertuples()
        ]
        count = len(self.impossible)
        head = (
            f"{len(self.frame)} published rows checked: {count} impossible as printed"
            if count
            else f"{len(self.frame)} published rows checked: every one possible as printed"
        )
        legend = [
            "one gold: a linear program over the rank of the one gold paper of each query "
            "decides whether any rank distribution gives every value within its rounding",
            "several gold: only bounds that hold for any number of gold papers: "
            + "; ".join(SEVERAL_GOLD_CHECKS),
            *(f"{name}: figures {paper.provenance}" for name, paper in self.papers.items()),
        ]
        if fmt == "latex":
            return self._latex(head, headers, rows, legend)
        parts = [text(head, fmt), render(headers, rows, fmt, left=6)]
        parts += [text(line, fmt) for line in legend]
        return blocks(parts, fmt)

    @staticmethod
    def _latex(head: str, headers, rows, legend) -> str:
        lines = [f"% {latex_text(head)}", r"\begin{tabular}{llllll}", r"\hline"]
        lines.append(" & ".join(latex_text(h) for h in headers) + r" \\")
        lines.append(r"\hline")
        lines += [" & ".join(latex_text(str(c)) for c in row) + r" \\" for row in rows]
        lines += [r"\hline", r"\end{tabular}"]
        lines += [f"% {latex_text(line)}" for line in legend]
        return "\n".join(lines) + "\n"


def check_published(
    dataset: str | None = None,
    *,
    paper: str | os.PathLike[str] | pd.DataFrame | None = None,
    setting: str | None = None,
    stage: str | None = None,
) -> PublishedCheck:
    """Whether each published row can be right as printed.

    With one gold paper per query (ACL-200, FullTextPeerRead, RefSeer, arXiv, ArSyTa), a row's
    values are all functions of the distribution of the gold paper's rank, so they constrain
    each other: a linear program decides whether any distribution gives every value within
    its rounding, and for an impossible row names the values in conflict and the smallest
    change of one value that would make it possible. With several gold papers per query
    (MasterSet), or a dataset the package does not know, only the bounds that hold for any
    number of gold papers are checked (``R@K <= HR@K``, ``nDCG@K <= HR@K``, ...).

    Parameters
    ----------
    dataset : str, optional
        A dataset's table name (``"arXiv"``) or a citeval id: its rows only.
    paper : str, path or DataFrame, optional
        A shipped paper's name (``"goyal2026"``), or a table of your own (a CSV file or a
        DataFrame with the columns ``dataset, setting, stage, system, measure, value,
        source``), as :func:`published` takes it.
    setting : str, optional
        One setting.
    stage : str, optional
        One stage (``"end-to-end"``, ``"retrieval"``).

    Returns
    -------
    PublishedCheck
        One verdict per row, with the reason and the fix for the impossible ones.

    Examples
    --------
    >>> import citeval_irm
    >>> check = citeval_irm.check_published(paper="goyal2026")
    >>> list(check.impossible["system"])  # doctest: +SKIP
    ['HAtten', 'HAtten']
    """
    from .listing import published

    selected = published(dataset, paper=paper, setting=setting, stage=stage)
    verdicts = row_verdicts(selected.frame, selected.papers)
    rows = []
    for key, verdict in verdicts.items():
        fix = verdict.fixes[0] if verdict.fixes else None
        rows.append(
            {
                **dict(zip(ROW_KEYS, key)),
                "check": verdict.method,
                "possible": verdict.possible,
                "reason": explained(verdict),
                "fix": "" if fix is None else f"{fix.measure} = {fix.suggested}",
                "conflicts": "; ".join(" & ".join(c) for c in verdict.conflicts),
            }
        )
    return PublishedCheck(pd.DataFrame(rows), selected.papers)
