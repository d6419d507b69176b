"""The published figures listed or selected: :func:`published` and its result,
:class:`PublishedResults` (the list of tables, or one dataset's figures as printed)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...base.choices import LISTING_FORMATS
from ...base.errors import InputError
from ...printing.escaping import csv_frame, text
from ...printing.printable import Printable
from ...printing.text_tables import blocks, render
from .tables import COLUMNS, Paper, table_source


@dataclass(repr=False)
class PublishedResults(Printable):
    """Published figures: one row per paper, dataset, setting, stage, system and measure.

    ``frame`` columns: ``paper, dataset, split, setting, stage, system, measure, value,
    source`` (values as printed, in the paper's unit); ``papers``: what each paper's sidecar
    says (reference, unit, split, dataset ids).
    """

    frame: pd.DataFrame
    papers: dict[str, Paper]
    dataset: str | None = None

    def _summary(self) -> dict[str, object]:
        datasets = sorted(self.frame["dataset"].unique()) if len(self.frame) else []
        return {"rows": len(self.frame), "papers": sorted(self.papers), "datasets": datasets}

    def to_frame(self) -> pd.DataFrame:
        """The published figures, one row each: ``paper, dataset, split, setting, stage,
        system, measure, value, source`` (values as printed, in the paper's unit)."""
        return self.frame.copy()

    def groups(self) -> pd.DataFrame:
        """One row per table: paper, dataset, split, setting, stage, its systems and measures."""
        keys = ["paper", "dataset", "split", "setting", "stage"]
        rows = []
        for key, part in self.frame.groupby(keys, sort=False):
            rows.append(
                {
                    **dict(zip(keys, key)),
                    "systems": list(dict.fromkeys(part["system"])),
                    "measures": list(dict.fromkeys(part["measure"])),
                    "source": ", ".join(dict.fromkeys(part["source"])),
                }
            )
        return pd.DataFrame(rows)

    def figures(self, paper: str, dataset: str, stage: str) -> pd.DataFrame:
        """One table as printed: systems (rows, the paper's order) by measures (columns)."""
        part = self.frame[
            (self.frame["paper"] == paper)
            & (self.frame["dataset"] == dataset)
            & (self.frame["stage"] == stage)
        ]
        table = part.pivot(index="system", columns="measure", values="value")
        return table.reindex(
            index=list(dict.fromkeys(part["system"])), columns=list(dict.fromkeys(part["measure"]))
        )

    def to_csv(self, paper: str) -> str:
        """One paper's rows as its CSV file (values with the paper's decimals): the shipped
        file, byte for byte."""
        part = self.frame[self.frame["paper"] == paper]
        decimals = self.papers[paper].decimals
        out = part[list(COLUMNS)].assign(value=part["value"].map(lambda v: f"{v:.{decimals}f}"))
        return csv_frame(out)

    FORMATS = LISTING_FORMATS

    def to_dict(self) -> dict:
        return {
            "papers": {name: paper.__dict__ for name, paper in self.papers.items()},
            "rows": self.checked().to_dict(orient="records"),
        }

    def checked(self) -> pd.DataFrame:
        """The rows with the column ``impossible``: for a row (a system on a table) that no
        rank distribution can give as printed, why (:func:`.check.impossible_rows`); empty
        for the others. Only the tables of one dataset are checked (a listing of every
        table shows no values)."""
        from .consistency import ROW_KEYS, impossible_rows

        if self.dataset is None:
            return self.frame.assign(impossible="")
        found = impossible_rows(self.frame, self.papers)
        keys = self.frame[list(ROW_KEYS)].itertuples(index=False, name=None)
        return self.frame.assign(impossible=[found.get(key, "") for key in keys])

    def _render(self, fmt: str) -> str:
        """``table`` or ``markdown`` (the list of tables, or with a dataset its figures), or
        ``csv`` (every row, with its paper's provenance)."""
        if fmt == "csv":
            provenance = self.frame["paper"].map(lambda p: self.papers[p].provenance)
            return csv_frame(self.checked().assign(provenance=provenance))
        if self.dataset is None:
            return self._format_list(fmt)
        return self._format_figures(fmt)

    def _paper_line(self, name: str) -> str:
        paper = self.papers[name]
        cited = "" if paper.user else f"{paper.reference}, {paper.tables}; "
        return f"{name}: {cited}{paper.split} split; {paper.unit}; figures {paper.provenance}"

    def _format_list(self, fmt: str) -> str:
        bullet = "- " if fmt == "markdown" else "  "
        user = any(paper.user for paper in self.papers.values())
        lines: list[str | tuple[str, str]] = [
            "published results given by the user (values as written):"
            if user
            else "published results shipped with citeval-irm (values as printed):"
        ]
        groups = self.groups()
        for name, part in groups.groupby("paper", sort=False):
            paper = self.papers[name]
            lines.append(self._paper_line(name))
            ids = ", ".join(
                f"{table} = {dataset_id}" for table, dataset_id in paper.datasets.items()
            )
            lines.append((bullet, f"datasets: {ids}"))
            lines += [(bullet, f"note: {paper.notes[k]}") for k in paper.notes if k == "unit_note"]
            kinds = part.assign(
                systems=part["systems"].map(", ".join), measures=part["measures"].map(" ".join)
            ).groupby(["stage", "setting", "systems", "measures"], sort=False)["dataset"]
            for (stage, setting, systems, measures), datasets in kinds:
                which = list(datasets)
                shown = (
                    f"all {len(which)} datasets"
                    if len(which) == len(paper.datasets)
                    else (", ".join(which))
                )
                lines.append((bullet, f"{stage} ({setting}; {shown}): {systems}"))
                lines.append((bullet + "  ", f"measures: {measures}"))
        lines.append("citeval published --dataset ID prints a dataset's figures.")
        return "".join(_line(item, fmt) + "\n" for item in lines)

    def _format_figures(self, fmt: str) -> str:
        from .consistency import MARK

        sections = []
        checked = self.checked()
        for g in self.groups().itertuples():
            decimals = self.papers[g.paper].decimals
            table = self.figures(g.paper, g.dataset, g.stage)
            part = checked[
                (checked["paper"] == g.paper)
                & (checked["dataset"] == g.dataset)
                & (checked["stage"] == g.stage)
                & (checked["impossible"] != "")
            ]
            why = dict(zip(part["system"], part["impossible"]))
            rows = [
                [
                    f"{system} {MARK}" if system in why else system,
                    *("-" if np.isnan(v) else f"{v:.{decimals}f}" for v in values),
                ]
                for system, values in zip(table.index, table.to_numpy())
            ]
            title = (
                f"{g.paper}: {g.dataset} ({g.split} split), {g.setting} setting, {g.stage} "
                f"stage ({g.source}, {self.papers[g.paper].unit})"
            )
            table_text = render(["system", *table.columns], rows, fmt)
            notes = [text(f"{MARK} {system}: {reason}", fmt) for system, reason in why.items()]
            sections += [text(title, fmt) + "\n" + table_text, *notes, ""]  # "": a blank line
        sections += [text(self._paper_line(name), fmt) for name in self.papers]
        return blocks(sections, fmt)


def published(
    dataset: str | None = None,
    *,
    paper: str | os.PathLike[str] | pd.DataFrame | None = None,
    setting: str | None = None,
    stage: str | None = None,
) -> PublishedResults:
    """The published results shipped with the package, or those of one dataset, paper,
    setting or stage.

    Every figure carries where it comes from (:attr:`Paper.provenance`), so a comparison
    with a paper's numbers says whether they were checked against the paper.

    Parameters
    ----------
    dataset : str, optional
        A dataset's table name (``"ACL-200"``) or a citeval id (``"citeval/acl-200/test"``).
        An unknown dataset is an error listing the shipped ones.
    paper : str, path or DataFrame, optional
        A shipped paper's name (``"goyal2026"``), or a table of your own: a CSV file (path)
        or a DataFrame with the shipped columns (``dataset, setting, stage, system, measure,
        value, source``), then labelled "given by the user".
    setting : str, optional
        The setting of a published table.
    stage : str, optional
        The stage of a published table (``"end-to-end"``, ``"reranking"``).

    Returns
    -------
    PublishedResults
        The rows, with their provenance.

    Examples
    --------
    >>> import citeval_irm
    >>> rows = citeval_irm.published("ACL-200", paper="goyal2026")
    """
    paper, papers, frame = table_source(paper)
    keep = np.ones(len(frame), dtype=bool)
    if paper is not None:
        keep &= (frame["paper"] == paper).to_numpy()
    if dataset is not None:
        names = {name: p.table_dataset(dataset) for name, p in papers.items()}
        wanted = (frame["paper"].map(names) == frame["dataset"]).to_numpy()
        if not (keep & wanted).any():
            shipped = sorted(
                {f"{n} ({p.datasets[n]})" for p in papers.values() for n in p.datasets}
            )
            which = "in the table" if len(papers) == 1 and paper is not None else "shipped"
            raise InputError(
                None, f"no published results for {dataset!r}; {which}: {', '.join(shipped)}"
            )
        keep &= wanted
    for column, value in (("setting", setting), ("stage", stage)):
        if value is not None:
            keep &= (frame[column] == value).to_numpy()
    if not keep.any():
        raise InputError(None, "no published results match that selection")
    chosen = frame[keep].reset_index(drop=True)
    used = {name: papers[name] for name in dict.fromkeys(chosen["paper"])}
    return PublishedResults(chosen, used, dataset)


def _line(item: str | tuple[str, str], fmt: str) -> str:
    """A line of a listing: text, or (bullet, text); the text escaped for ``fmt``, one line
    (the listing is not wrapped)."""
    bullet, line = item if isinstance(item, tuple) else ("", item)
    return bullet + text(line, fmt)
