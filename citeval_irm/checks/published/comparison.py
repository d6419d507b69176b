"""Runs beside a published table: whether they are like for like, aspect by aspect (one
:class:`Check` each for the dataset and its split, and per run its setting, its validation,
its depth and how it was scored: the paper's script or trec_eval's semantics); the values
side by side with the differences and checks, and their text, JSON and LaTeX rows
(:class:`PublishedComparison`); and the verb that chooses the paper and its table and puts
the runs' values in the table's unit (:func:`beside_published`), with the recipe of the
script that scored a table (:func:`scoring_recipe`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from ...base.errors import InputError
from ...base.measures import Protocol, parse_measures
from ...printing.escaping import latex_text
from ...printing.printable import Printable
from ...printing.text_tables import blocks, render, wrap
from ...printing.text_tables import number as _number
from .consistency import MARK, impossible_rows, one_gold, row_bounds
from .listing import PublishedResults
from .tables import DEFAULT_STAGE, Paper, split_dataset_id, table_source

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


def dataset_checks(paper: Paper, table: str, dataset: str | None) -> list[Check]:
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


def run_checks(
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


def scoring_check(name: str, facts, paper: Paper, shown: list[str]) -> Check:
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


# --------------------------------------------------------------------------- the comparison


@dataclass(repr=False)
class PublishedComparison(Printable):
    """Runs beside one published table, with what makes the comparison like for like or not.

    ``yours``: measures (rows) by runs, ``figures``: measures by published systems, both in
    the table's unit (percent for goyal2026); ``checks``: one :class:`Check` per aspect
    (dataset, split, and per run setting, validation, depth); ``impossible``: the published
    systems whose row no rank distribution gives as printed, and why
    (:func:`.check.impossible_rows`); ``bounds``: for each measure of the runs the table does
    not report, the interval each system's reported values allow (``measure, system, low,
    high, run, yours``; one gold paper per query only).
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
    impossible: dict[str, str] = field(default_factory=dict)
    bounds: pd.DataFrame = field(default_factory=pd.DataFrame)

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
            "impossible": dict(self.impossible),
            "bounds": self.bounds.to_dict(orient="records"),
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
        bullet = "- " if fmt == "markdown" else "  "
        lines += [
            wrap(f"{MARK} {system}: {why}", "", fmt) for system, why in self.impossible.items()
        ]
        if len(self.bounds):
            lines.append(
                "not reported: the values each system's reported ones allow "
                "(one gold paper a query):"
            )
            lines.append(render(*self.bounds_table(), fmt, left=2))
        lines.append(wrap(self.verdict(), "", fmt))
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
        systems = [self._shown(system) for system in self.figures.columns]
        return ["measure", *self.yours.columns, *systems], rows

    def bounds_table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of :attr:`bounds`: per measure and run, the run's value and, per
        system that does not report the measure, the interval its reported values allow;
        the last column names the systems the run is above (or below) whatever their value
        in that interval, and only those."""
        decimals = self.paper.decimals
        systems = list(dict.fromkeys(self.bounds["system"]))
        rows = []
        for (measure, run), part in self.bounds.groupby(["measure", "run"], sort=False):
            yours = float(part["yours"].iloc[0])
            cells = dict.fromkeys(systems, "")
            above, below = [], []
            for r in part.itertuples():
                cells[r.system] = f"[{_number(r.low, decimals)}, {_number(r.high, decimals)}]"
                if yours > r.high:
                    above.append(r.system)
                elif yours < r.low:
                    below.append(r.system)
            verdict = (
                "; ".join(
                    f"{word} {', '.join(names)}"
                    for word, names in (("above", above), ("below", below))
                    if names
                )
                or "inside every interval: cannot tell"
            )
            rows.append([measure, run, _number(yours, decimals), *cells.values(), verdict])
        headers = ["measure", "run", "yours", *(self._shown(s) for s in systems), "yours is"]
        return headers, rows

    def _shown(self, system: str) -> str:
        """A system's name as every output shows it: marked when its row is impossible."""
        return f"{system} {MARK}" if system in self.impossible else system

    def difference_table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of yours minus published, one row per (measure, run)."""
        diff = self.differences()
        rows = [
            [m, r, *(_number(v, self.paper.decimals, sign=True) for v in diff.loc[(m, r)])]
            for m, r in diff.index
        ]
        return ["measure", "run", *(self._shown(s) for s in self.figures.columns)], rows

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
            rows.append([latex_text(f"{self._shown(system)} (published)"), *cells])
        return rows


# --------------------------------------------------------------------------- the verb


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
    rows = _stage_rows(frame, chosen, table, stage)
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
    checks = dataset_checks(chosen, table, dataset)
    for name in results:
        checks += run_checks(name, facts.get(name), dataset, setting, deepest)
        checks.append(scoring_check(name, facts.get(name), chosen, shown))
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
        notes=_notes(chosen, results, measures, figures),
        impossible={key[5]: why for key, why in impossible_rows(rows, papers).items()},
        bounds=_unreported_bounds(chosen, table, figures, measures, results, scale),
    )


def _unreported_bounds(
    paper: Paper, table: str, figures: pd.DataFrame, measures, results, scale: float
) -> pd.DataFrame:
    """For the runs' measures a published system does not report: per system, the lowest
    and highest value its reported ones allow (one gold paper per query only; none
    otherwise), beside each run's own value (:func:`.consistency.row_bounds`)."""
    rows: list[list[object]] = []
    if not one_gold(paper.datasets.get(table, table)):
        return pd.DataFrame(rows, columns=_BOUND_COLUMNS)
    for measure in measures:
        for system in figures.columns:
            if measure in figures.index and pd.notna(figures.at[measure, system]):
                continue
            given = {m: v for m, v in figures[system].items() if pd.notna(v)}
            found = row_bounds(given, measure, paper.decimals, paper.percent)
            if found is None:
                continue
            for run, result in results.items():
                if measure in result.aggregate.index:
                    yours = float(result.aggregate[measure]) * scale
                    rows.append([measure, system, found[0], found[1], run, yours])
    return pd.DataFrame(rows, columns=_BOUND_COLUMNS)


_BOUND_COLUMNS = ["measure", "system", "low", "high", "run", "yours"]


def _stage_rows(frame: pd.DataFrame, paper: Paper, table: str, stage: str) -> pd.DataFrame:
    """The rows of one published table: the paper's table of a dataset at one stage (a
    stage it lacks is an error naming those it has)."""
    rows = frame[(frame["paper"] == paper.name) & (frame["dataset"] == table)]
    if stage not in set(rows["stage"]):
        stages = ", ".join(dict.fromkeys(rows["stage"]))
        raise InputError(None, f"{paper.name} has no {stage!r} stage for {table}; it has {stages}")
    return rows[rows["stage"] == stage]


def _notes(paper: Paper, results: Mapping, measures: list[str], figures: pd.DataFrame) -> list[str]:
    """What a reader of the comparison is told: the paper's notes (how it scored, its
    split, its unit), what the runs' values average over, the measures the table lacks."""
    notes = [paper.notes[k] for k in ("scoring", "split_note", "unit_note") if k in paper.notes]
    counted = {len(result.per_query) for result in results.values()}
    notes.append(
        f"your values average over all {', '.join(map(str, sorted(counted)))} qrels queries "
        "(a query a run does not rank scores 0), not only the compared ones"
    )
    absent = [m for m in measures if m not in figures.index]
    if absent:
        notes.append(f"not in the table: {' '.join(absent)}")
    return notes


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


def _deepest_cutoff(measure_names: list[str]) -> tuple[int, str]:
    """The largest cut-off among measures and the measure that has it (``(1, "RR")`` if none:
    RR needs at least the first doc)."""
    best = (1, "RR")
    for measure in parse_measures(sorted(set(measure_names))):
        cutoff = measure.params.get("cutoff")
        if cutoff and cutoff > best[0]:
            best = (cutoff, str(measure))
    return best


def scoring_recipe(paper, protocol) -> str | None:
    """The recipe of the script that scored the published table ``compare`` will put runs
    beside (``paper``, or the protocol's), if the package has it (a user's table: none)."""
    from ...papers import PROTOCOLS

    paper, papers, _ = table_source(paper)
    name = protocol if isinstance(protocol, str) else getattr(protocol, "name", None)
    chosen = _choose_paper(papers, paper, PROTOCOLS.get(name) if name else None)
    own = PROTOCOLS.get(chosen.protocol) if chosen.protocol else None
    return own.recipe if own is not None else None
