"""Published results of the benchmark papers, shipped as package data, and runs beside them.

A reviewer asks how a run stands against the numbers in the papers, and those numbers are
only worth comparing when the run was made the same way. Each paper is two files here:
``<paper>.csv`` (``dataset, setting, stage, system, measure, value, source``; values exactly
as printed, measures in ir-measures names) and ``<paper>.json`` (title, reference, unit,
decimals, split, the citeval dataset id of each dataset, how the paper scored, where the
figures come from). Adding a paper is adding its two files. Every output that shows a table's
figures says where they come from (:attr:`Paper.provenance`): the shipped goyal2026 figures
are transcribed from the paper and not verified by the package; a user's own table (a CSV
with the same columns, or a DataFrame) is accepted wherever a paper name is
(:mod:`.tables`).

:func:`published` lists or selects the tables; :func:`beside_published` puts runs next to
one and says, check by check, whether the comparison is like for like.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...base.choices import LISTING_FORMATS
from ...base.errors import InputError
from ...base.measures import Protocol, parse_measures
from ...printing.escaping import csv_frame, latex_text, text
from ...printing.printable import Printable
from ...printing.text_tables import blocks, render, wrap
from ...printing.text_tables import number as _number
from .tables import (  # noqa: F401 (the tables' names, here as before)
    COLUMNS,
    DEFAULT_STAGE,
    SPLITS,
    Paper,
    _data_dir,
    is_table_source,
    read_table,
    shipped_tables,
    split_dataset_id,
    table_source,
)

# --------------------------------------------------------------------------- what is shipped


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
            "rows": self.frame.to_dict(orient="records"),
        }

    def _render(self, fmt: str) -> str:
        """``table`` or ``markdown`` (the list of tables, or with a dataset its figures), or
        ``csv`` (every row, with its paper's provenance)."""
        if fmt == "csv":
            provenance = self.frame["paper"].map(lambda p: self.papers[p].provenance)
            return csv_frame(self.frame.assign(provenance=provenance))
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
        lines = [
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
        sections = []
        for g in self.groups().itertuples():
            decimals = self.papers[g.paper].decimals
            table = self.figures(g.paper, g.dataset, g.stage)
            rows = [
                [system, *("-" if np.isnan(v) else f"{v:.{decimals}f}" for v in values)]
                for system, values in zip(table.index, table.to_numpy())
            ]
            title = (
                f"{g.paper}: {g.dataset} ({g.split} split), {g.setting} setting, {g.stage} "
                f"stage ({g.source}, {self.papers[g.paper].unit})"
            )
            table_text = render(["system", *table.columns], rows, fmt)
            sections += [text(title, fmt) + "\n" + table_text, ""]  # "": a blank line
        sections += [text(self._paper_line(name), fmt) for name in self.papers]
        return blocks(sections, fmt)


def published(
    dataset: str | None = None,
    *,
    paper=None,
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


# --------------------------------------------------------------------------- runs beside a table

SAME, DIFFERS, UNCHECKED = "same", "differs", "unchecked"


@dataclass(frozen=True)
class Check:
    """One aspect of like for like: ``status`` is ``"same"``, ``"differs"`` or
    ``"unchecked"`` (could not be told), ``run`` the run it concerns (``None``: all)."""

    aspect: str
    status: str
    detail: str
    run: str | None = None

    def __str__(self) -> str:
        who = f" ({self.run})" if self.run else ""
        shown = {DIFFERS: "DIFFERS", UNCHECKED: "not checked"}.get(self.status, self.status)
        return f"{self.aspect}{who}: {shown}: {self.detail}"


@dataclass(repr=False)
class PublishedComparison(Printable):
    """Runs beside one published table, with what makes the comparison like for like or not.

    ``yours``: measures (rows) by runs, ``figures``: measures by published systems, both in
    the table's unit (percent for goyal2026); ``checks``: one :class:`Check` per aspect
    (dataset, split, and per run setting, validation, depth).
    """

    paper: Paper
    dataset: str
    split: str
    setting: str
    stage: str
    source: str
    yours: pd.DataFrame
    figures: pd.DataFrame
    checks: list[Check]
    notes: list[str]

    def _summary(self) -> dict[str, object]:
        return {
            "paper": self.paper.name,
            "dataset": self.dataset,
            "stage": self.stage,
            "runs": [str(r) for r in self.yours.columns],
            "systems": len(self.figures.columns),
            "like_for_like": self.like_for_like,
        }

    @property
    def like_for_like(self) -> bool:
        """True only when every aspect was checked and is the same."""
        return all(check.status == SAME for check in self.checks)

    def differences(self) -> pd.DataFrame:
        """Yours minus published: one row per (measure, run), one column per system."""
        index = pd.MultiIndex.from_product(
            [self.yours.index, self.yours.columns], names=["measure", "run"]
        )
        rows = [self.figures.loc[m].rsub(self.yours.at[m, r]) for m, r in index]
        return pd.DataFrame(rows, index=index, columns=self.figures.columns)

    def to_frame(self) -> pd.DataFrame:
        """One row per measure, run and published system: ``yours``, ``published`` and
        ``difference``, in the table's unit."""
        rows = [
            {
                "measure": measure,
                "run": run,
                "system": system,
                "yours": self.yours.at[measure, run],
                "published": self.figures.at[measure, system],
                "difference": self.yours.at[measure, run] - self.figures.at[measure, system],
            }
            for measure in self.yours.index
            for run in self.yours.columns
            for system in self.figures.columns
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "paper": self.paper.name,
            "reference": self.paper.reference,
            "provenance": self.paper.provenance,
            "dataset": self.dataset,
            "split": self.split,
            "setting": self.setting,
            "stage": self.stage,
            "unit": self.paper.unit,
            "like_for_like": self.like_for_like,
            "checks": [check.__dict__ for check in self.checks],
            "notes": list(self.notes),
            "rows": self.to_frame().to_dict(orient="records"),
        }

    def title(self) -> str:
        authors = self.paper.reference.split(",")[0]
        return (
            f"beside the published results: {authors}, {self.source}: {self.dataset}, "
            f"{self.split} split, {self.setting} setting, {self.stage} stage "
            f"({self.paper.unit}); figures {self.paper.provenance}"
        )

    def verdict(self) -> str:
        """One line: like for like, not, or not established."""
        if self.like_for_like:
            return "like for like: yes, every aspect checked"
        if any(check.status == DIFFERS for check in self.checks):
            return "like for like: NO"
        return "like for like: not established (some aspects could not be checked)"

    FORMATS = ("table", "markdown", "json")

    def _render(self, fmt: str) -> str:
        """``table`` or ``markdown``: the values side by side, the differences, the checks."""
        side, gaps = self.side_by_side(), self.difference_table()
        lines = [wrap(self.title(), "", fmt), render(*side, fmt)]
        lines.append("difference (yours - published):")
        lines.append(render(*gaps, fmt, left=2))
        lines.append(wrap(self.verdict(), "", fmt))
        bullet = "- " if fmt == "markdown" else "  "
        lines += [wrap(str(check), bullet, fmt) for check in self.checks]
        lines += [wrap(f"note: {note}", bullet, fmt) for note in self.notes]
        return blocks(lines, fmt)

    def side_by_side(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of the runs' values beside the published ones, as printed."""
        number = functools.partial(_number, decimals=self.paper.decimals)
        rows = [
            [
                m,
                *(number(self.yours.at[m, r]) for r in self.yours.columns),
                *(number(v) for v in self.figures.loc[m]),
            ]
            for m in self.yours.index
        ]
        return ["measure", *self.yours.columns, *self.figures.columns], rows

    def difference_table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of yours minus published, one row per (measure, run)."""
        diff = self.differences()
        rows = [
            [m, r, *(_number(v, self.paper.decimals, sign=True) for v in diff.loc[(m, r)])]
            for m, r in diff.index
        ]
        return ["measure", "run", *self.figures.columns], rows

    def latex_rows(
        self, columns: list[str], best: Mapping[str, float] | None = None
    ) -> list[list[str]]:
        """The published systems as LaTeX rows over ``columns`` (measures; "--" if absent);
        a figure equal to ``best`` (fractions by measure) in bold. Only a like-for-like
        comparison ranks published rows with the runs: otherwise give no ``best``."""
        unit = 100.0 if self.paper.percent else 1.0
        rows = []
        for system in self.figures.columns:
            cells = []
            for m in columns:
                if m not in self.figures.index:
                    cells.append("--")
                    continue
                value = self.figures.at[m, system]
                text = _number(value, self.paper.decimals)
                top = best is not None and m in best and value / unit >= best[m]
                cells.append(f"\\textbf{{{text}}}" if top else text)
            rows.append([latex_text(f"{system} (published)"), *cells])
        return rows


def _line(item: str | tuple[str, str], fmt: str) -> str:
    """A line of a listing: text, or (bullet, text); the text escaped for ``fmt``, one line
    (the listing is not wrapped)."""
    bullet, line = item if isinstance(item, tuple) else ("", item)
    return bullet + text(line, fmt)


def _deepest_cutoff(measure_names: list[str]) -> tuple[int, str]:
    """The largest cut-off among measures and the measure that has it (``(1, "RR")`` if none:
    RR needs at least the first doc)."""
    best = (1, "RR")
    for measure in parse_measures(sorted(set(measure_names))):
        cutoff = measure.params.get("cutoff")
        if cutoff and cutoff > best[0]:
            best = (cutoff, str(measure))
    return best


def _choose_paper(
    papers: Mapping[str, Paper], paper: str | None, protocol: Protocol | None
) -> Paper:
    if paper is not None:
        if paper not in papers:
            raise InputError(
                None, f"no published results of {paper!r}; shipped: {', '.join(papers)}"
            )
        return papers[paper]
    if protocol is not None and protocol.name in papers:
        return papers[protocol.name]
    if len(papers) == 1:
        return next(iter(papers.values()))
    raise InputError(None, f"say which paper's results to compare with: {', '.join(papers)}")


def _table_dataset(paper: Paper, dataset: str | None, wanted: str | None) -> str:
    name = paper.table_dataset(wanted) if wanted is not None else None
    if wanted is not None and name is None:
        raise InputError(
            None, f"{paper.name} has no table for {wanted!r}; it has {', '.join(paper.datasets)}"
        )
    if name is None and dataset is not None:
        name = paper.table_dataset(dataset)
    if name is None:
        known = ", ".join(f"{n} ({i})" for n, i in paper.datasets.items())
        where = f"for {dataset}" if dataset else "without a dataset id (qrels from a file)"
        raise InputError(
            None,
            f"{paper.name} has no table {where}; it has {known}. Name one (on the command "
            "line --published-dataset, in compare() the published argument): the comparison "
            "is then flagged as not like for like",
        )
    return name


def _dataset_checks(paper: Paper, table: str, dataset: str | None) -> list[Check]:
    if dataset is None:
        reason = "the qrels come from a file: give the dataset id (--dataset) to check it"
        return [Check("dataset", UNCHECKED, reason), Check("split", UNCHECKED, reason)]
    base, split = split_dataset_id(dataset)
    expected = paper.datasets[table]
    checks = [
        Check("dataset", SAME, f"{dataset} is {table}")
        if base == expected
        else Check(
            "dataset", DIFFERS, f"the run is on {dataset}, the table is {table} ({expected})"
        )
    ]
    if split is None:
        checks.append(Check("split", UNCHECKED, f"{dataset} names no split"))
    elif split == paper.split:
        checks.append(Check("split", SAME, f"{split}"))
    else:
        checks.append(
            Check("split", DIFFERS, f"the run is on the {split} split, the table on {paper.split}")
        )
    return checks


def _run_checks(
    name: str, facts, dataset: str | None, setting: str, deepest: tuple[int, str]
) -> list[Check]:
    """Setting and validation (the run's :class:`~citeval_irm.ValidationReport`) and depth
    of one run, from what the comparison kept of it
    (:class:`~citeval_irm.comparison.runs.RunEvidence`;
    ``None`` for a run given already evaluated)."""
    if facts is None:
        reason = "given as an evaluation result, not a run: nothing to check"
        return [Check(a, UNCHECKED, reason, name) for a in ("setting", "validation", "depth")]
    checks = []
    if facts.validation is None:
        reason = facts.unvalidated or "no dataset id to validate against"
        checks += [Check(a, UNCHECKED, reason, name) for a in ("setting", "validation")]
    else:
        checks += _validation_checks(name, facts.validation, setting)
    shortest = facts.shortest
    depth, measure = deepest
    if shortest >= depth:
        checks.append(
            Check("depth", SAME, f"every ranking has at least {depth} docs ({measure})", name)
        )
    else:
        checks.append(
            Check(
                "depth",
                DIFFERS,
                f"the shortest ranking has {shortest} docs, below the table's deepest cut-off "
                f"{depth} ({measure}): RR and every measure cut deeper are computed on less "
                "than the published systems ranked",
                name,
            )
        )
    return checks


def scoring_recipe(paper, protocol) -> str | None:
    """The recipe of the script that scored the published table ``compare`` will put runs
    beside (``paper``, or the protocol's), if the package has it (a user's table: none)."""
    from ...papers import PROTOCOLS

    paper, papers, _ = table_source(paper)
    name = protocol if isinstance(protocol, str) else getattr(protocol, "name", None)
    chosen = _choose_paper(papers, paper, PROTOCOLS.get(name) if name else None)
    own = PROTOCOLS.get(chosen.protocol) if chosen.protocol else None
    return own.recipe if own is not None else None


def _scoring_check(name: str, facts, paper: Paper, shown: list[str]) -> Check:
    """Whether the paper's script and trec_eval semantics give this run the same figures at
    the table's decimals (the run's cross-check,
    :attr:`~citeval_irm.comparison.runs.RunEvidence.scoring`): the published
    figures came from the script, the runs' from trec_eval."""
    if facts is None or facts.scoring is None:
        reason = getattr(facts, "unscored", None) or (
            "no cross-check with the paper's script (it needs a run and a dataset id)"
        )
        return Check("scoring", UNCHECKED, reason, name)
    scale = 100.0 if paper.percent else 1.0
    summary = facts.scoring.reindex([m for m in shown if m in facts.scoring.index])
    if summary.empty:
        return Check("scoring", UNCHECKED, "the paper's script scores none of the measures", name)
    printed = summary[["trec_eval", "recipe"]].mul(scale).round(paper.decimals)
    differ = printed[printed["trec_eval"] != printed["recipe"]]
    script = f"the paper's script (citeval recipe of {paper.name})"
    if differ.empty:
        detail = f"{script} and trec_eval semantics give this run the same figures as printed"
        return Check("scoring", SAME, detail, name)
    gaps = ", ".join(
        f"{m} {row.recipe:.{paper.decimals}f} vs {row.trec_eval:.{paper.decimals}f}"
        for m, row in differ.iterrows()
    )
    detail = (
        f"{script} scores this run differently from trec_eval semantics ({gaps}; script vs "
        "trec_eval): the published figures are the script's, yours trec_eval's; citeval "
        "crosscheck shows why"
    )
    return Check("scoring", DIFFERS, detail, name)


def _validation_checks(name: str, report, setting: str) -> list[Check]:
    counts = {row.check: (row.pairs, row.queries) for row in report.checks.itertuples()}
    year_rule = "same-year papers admitted" if report.same_year else "earlier papers only"
    later_pairs, later_queries = counts.get("later_paper", (0, 0))
    if setting != "inductive":
        setting_check = Check("setting", UNCHECKED, f"no rule to check a {setting} setting", name)
    elif later_queries:
        setting_check = Check(
            "setting",
            DIFFERS,
            f"{later_pairs:,} candidates published after their query paper in {later_queries:,} "
            "queries: not the inductive setting",
            name,
        )
    else:
        setting_check = Check(
            "setting", SAME, f"inductive: no candidate from later ({year_rule})", name
        )
    failed = [
        f"{check} ({queries:,} {'query' if queries == 1 else 'queries'})"
        for check, (_, queries) in counts.items()
        if queries and check != "later_paper"
    ]
    validation = (
        Check("validation", DIFFERS, "failed: " + ", ".join(failed), name)
        if failed
        else Check("validation", SAME, "passed", name)
    )
    return [setting_check, validation]


def beside_published(
    results: Mapping,
    facts: Mapping,
    dataset: str | None,
    *,
    protocol: Protocol | None = None,
    paper=None,
    published_dataset: str | None = None,
    stage: str = DEFAULT_STAGE,
    measures: list[str] | None = None,
) -> PublishedComparison:
    """Runs (their :class:`~citeval_irm.EvalResult` by name, and what the comparison kept
    of each run, or ``None``) beside a published table, checked for like for like.

    ``dataset``: the citeval id the runs were evaluated on (``None`` for a qrels file); the
    table is that dataset's unless ``published_dataset`` names another (then the dataset
    check says it differs). ``paper``: default the protocol's; a CSV path or DataFrame with
    the shipped columns is a table of the user's own. Each run's validation report
    decides the setting and validation checks, its shortest ranking against the deepest
    cut-off of the paper and the protocol the depth check. ``measures``: those to show
    (default: the first result's), where the table has them.
    """
    paper, papers, frame = table_source(paper)
    chosen = _choose_paper(papers, paper, protocol)
    table = _table_dataset(chosen, dataset, published_dataset)
    rows = frame[(frame["paper"] == chosen.name) & (frame["dataset"] == table)]
    if stage not in set(rows["stage"]):
        stages = ", ".join(dict.fromkeys(rows["stage"]))
        raise InputError(None, f"{chosen.name} has no {stage!r} stage for {table}; it has {stages}")
    rows = rows[rows["stage"] == stage]
    setting = rows["setting"].iloc[0]
    figures = PublishedResults(frame, papers).figures(chosen.name, table, stage).T
    if measures is None:
        measures = list(next(iter(results.values())).aggregate.index)
    shown = [m for m in measures if m in figures.index]
    if not shown:
        raise InputError(
            None, f"the runs have none of the table's measures ({', '.join(figures.index)})"
        )
    scale = 100.0 if chosen.percent else 1.0
    yours = pd.DataFrame(
        {name: result.aggregate[shown] * scale for name, result in results.items()}
    )
    deepest = _deepest_cutoff(list(rows["measure"]))  # this table's own, not the paper's
    checks = _dataset_checks(chosen, table, dataset)
    for name in results:
        checks += _run_checks(name, facts.get(name), dataset, setting, deepest)
        checks.append(_scoring_check(name, facts.get(name), chosen, shown))
    notes = [chosen.notes[k] for k in ("scoring", "split_note", "unit_note") if k in chosen.notes]
    counted = {len(result.per_query) for result in results.values()}
    notes.append(
        f"your values average over all {', '.join(map(str, sorted(counted)))} qrels queries "
        "(a query a run does not rank scores 0), not only the compared ones"
    )
    absent = [m for m in measures if m not in figures.index]
    if absent:
        notes.append(f"not in the table: {' '.join(absent)}")
    return PublishedComparison(
        paper=chosen,
        dataset=table,
        split=chosen.split,
        setting=setting,
        stage=stage,
        source=", ".join(dict.fromkeys(rows["source"])),
        yours=yours,
        figures=figures.loc[shown],
        checks=checks,
        notes=notes,
    )
