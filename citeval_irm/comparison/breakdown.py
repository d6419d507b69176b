"""``breakdown``: where does a system win? A measure's mean per group of queries.

The queries of a dataset are grouped by a facet (:mod:`citeval_irm.comparison.facets`: citing year,
section heading, number of gold papers, venue, popularity of the gold paper in the training
split); for each group the breakdown gives its size, each run's mean of one measure with a
BCa bootstrap interval (:func:`citeval_irm.comparison.stats.bootstrap_ci`, as ``compare``) and,
with several runs, each run's difference from the baseline with compare's paired
statistics, the p-values corrected over every (group, run) tested. The values are
:func:`citeval_irm.evaluate`'s per-query values over every qrels query (a query a run does
not rank scores 0), so the group means weighted by the group sizes give the overall mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pandas as pd

from ..base.choices import LISTING_FORMATS, TESTS, check_choice
from ..base.errors import EvalWarning, InputError, examples_of, issue
from ..base.measures import Protocol, one_measure
from ..base.options import (
    EvalOptions,
    ExecutionOptions,
    StatisticsOptions,
    display_decimals,
    display_percent,
    options_from,
    whole_number,
)
from ..printing.escaping import csv_frame
from ..printing.printable import Printable
from ..printing.text_tables import blocks, number, render, wrap
from . import family, stats
from .facets import FACETS, query_groups
from .family import (
    FEW_MARK,
    UNREACHABLE_MARK,
    Family,
    family_notes,
    few_line,
    is_unreachable,
)
from .labels import TEST_DIRECTIONS, TEST_LABELS, displayed, format_p
from .model import CompareSettings

PAIR_COLUMNS = ("diff", "ci_low", "ci_high", "ci_few", "p_adj", "significant", "direction",
                "reachable")  # fmt: skip
"""The columns of each run's comparison with the baseline in :meth:`Breakdown.to_frame`."""

MIN_QUERIES = 30
"""Groups smaller than this are flagged: their intervals are wide and their tests weak."""


@dataclass(repr=False)
class Breakdown(Printable):
    """What :func:`breakdown` found. ``groups``: one row per group (``group``, ``queries``,
    ``small``, and per run ``<run>``, ``<run> low``, ``<run> high``); ``pairs``: one row
    per group and run compared with the baseline (compare's columns, ``p_adj`` corrected
    over the whole table); ``overall``: each run's mean over every query."""

    dataset: str
    facet: str
    measure: str
    runs: list[str]
    baseline: str | None
    groups: pd.DataFrame
    pairs: pd.DataFrame
    overall: pd.Series
    percent: bool
    decimals: int
    min_queries: int
    test: str
    correction: str
    confidence: float
    warnings: list[EvalWarning] = field(default_factory=list)
    settings: CompareSettings | None = None  # as used: B raised for the family, if it was
    family: Family | None = None  # the (group, run) tests corrected together
    protocol: Protocol | None = field(default=None, repr=False)  # the unit's, the decimals'

    def displayed(
        self,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> Breakdown:
        """The breakdown as it prints in ``percent`` with ``decimals``, groups smaller than
        ``min_queries`` flagged (``small``); each default: as made."""
        if min_queries is None:
            return displayed(self, percent, decimals)
        groups = flagged(self.groups, whole_number("min_queries", min_queries, 1))
        return displayed(self, percent, decimals, min_queries=min_queries, groups=groups)

    def _summary(self) -> dict[str, object]:
        return {
            "dataset": self.dataset,
            "by": self.facet,
            "measure": self.measure,
            "runs": self.runs,
            "groups": len(self.groups),
            "baseline": self.baseline,
        }

    FORMATS = LISTING_FORMATS

    def to_frame(self, *, min_queries: int | None = None) -> pd.DataFrame:
        """The groups, one row each.

        Parameters
        ----------
        min_queries : int, optional
            Groups smaller than this are ``small``. Default: as made (30).

        Returns
        -------
        pandas.DataFrame
            Per group: ``group``, ``queries``, ``small``, each run's mean and interval, and
            each run's difference with the baseline (``<run> diff``, ``<run> p_adj``, ...).
        """
        if min_queries is not None:
            return self.displayed(min_queries=min_queries).to_frame()
        frame = self.groups.copy()
        for system in [r for r in self.runs if r != self.baseline] if self.pairs.size else []:
            rows = self.pairs[self.pairs["system"] == system].set_index("group")
            for column in PAIR_COLUMNS + (f"p_{self.test}",):
                frame[f"{system} {column}"] = frame["group"].map(rows[column])
        return frame

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "facet": self.facet,
            "facet_definition": FACETS[self.facet],
            "measure": self.measure,
            "runs": self.runs,
            "baseline": self.baseline,
            "overall": self.overall.to_dict(),
            "min_queries": self.min_queries,
            "test": self.test,
            "correction": self.correction,
            "confidence": self.confidence,
            "settings": asdict(self.settings) if self.settings else None,
            "family": asdict(self.family) if self.family else None,
            "legend": self.legend(),
            "groups": self.groups.to_dict(orient="records"),
            "pairs": self.pairs.to_dict(orient="records"),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _json(self, **shown) -> dict:
        return self.displayed(**shown).to_dict()

    def _render(
        self,
        fmt: str,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ) -> str:
        """The breakdown in ``fmt``, in ``percent`` with ``decimals``, groups smaller than
        ``min_queries`` flagged."""
        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries)._render(fmt)
        if fmt == "csv":
            return csv_frame(self.to_frame())
        headers, rows = self.table()
        scale = "percent" if self.percent else "fraction"
        lines = [
            wrap(
                f"breakdown of {self.measure} ({scale}) on {self.dataset} by {self.facet}: "
                f"{FACETS[self.facet]}; {len(self.groups)} groups, "
                f"{int(self.groups['queries'].sum()):,} queries",
                "",
                fmt,
            ),
            render(headers, rows, fmt, left=1),
        ]
        lines += [wrap(line, "- " if fmt == "markdown" else "  ", fmt) for line in self.legend()]
        return blocks(lines, fmt)

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Headers and rows as printed: group, size, each run's mean [interval], each
        difference from the baseline with its corrected p-value."""
        scale = 100.0 if self.percent else 1.0
        value = lambda v: number(v * scale, self.decimals)  # noqa: E731
        others = [r for r in self.runs if r != self.baseline] if len(self.runs) > 1 else []
        headers = ["group", "queries", *self.runs, *(f"{r} - {self.baseline}" for r in others)]
        pairs = self.pairs.set_index(["group", "system"]) if len(self.pairs) else None
        rows = []
        for _, row in self.groups.iterrows():
            size = f"{row['queries']:,}" + (" (small)" if row["small"] else "")
            cells = [str(row["group"]), size]
            for run in self.runs:
                low, high = value(row[f"{run} low"]), value(row[f"{run} high"])
                few = FEW_MARK if row[f"{run} few"] else ""
                cells.append(f"{value(row[run])} {few}[{low}, {high}]")
            for run in others:
                pair = pairs.loc[(row["group"], run)]
                mark = "*" if pair["significant"] else ""
                diff = number(pair["diff"] * scale, self.decimals, sign=True)
                blocked = f" {UNREACHABLE_MARK}" if is_unreachable(pair) else ""
                cells.append(f"{diff}{mark} (p={format_p(pair['p_adj'])}){blocked}")
            rows.append(cells)
        return headers, rows

    def legend(self) -> list[str]:
        level = int(round(self.confidence * 100))
        lines = [
            f"[low, high]: {level} % BCa bootstrap interval of the group's mean; "
            f"(small): fewer than {self.min_queries} queries, read with care",
            "overall: "
            + ", ".join(
                f"{r} {number(v * (100 if self.percent else 1), self.decimals)}"
                for r, v in self.overall.items()
            )
            + " (the group means weighted by their sizes)",
        ]
        few = sum(int(self.groups[f"{run} few"].sum()) for run in self.runs)
        if few:
            lines.append(few_line(few, len(self.groups) * len(self.runs), "values"))
        if len(self.pairs):
            lines.append(
                f"difference: run minus {self.baseline}; p: {self.test} test, "
                f"{self.correction} correction over all {self.family.size} (group, run) "
                f"tests{self.family.left_note()}; *: significant, in the direction of the "
                f"{TEST_LABELS[self.test]}'s own statistic ({TEST_DIRECTIONS[self.test]})"
            )
            label = TEST_LABELS[self.test]
            lines += family_notes(self.pairs, self.family, label, _pair_label, self.settings)
        return lines

    def section(
        self,
        key: str = "breakdown",
        extra: tuple[str, ...] = (),
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ):
        """The breakdown as a report section: its definition, the table, the legend and a
        plot of the measure by group, per run (for ``popularity``, the popularity plot);
        ``extra``: lines shown above the table; ``percent``, ``decimals``, ``min_queries``:
        as in :meth:`format`."""
        from ..printing.blocks import Figure, Items, Section, Text, table
        from ..printing.plots import Unit, group_means

        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries).section(key, extra)

        unit = Unit(self.percent)
        headers, rows = self.table()
        labels = [str(g) for g in self.groups["group"]]
        data = {
            run: {
                "mean": list(self.groups[run]),
                "low": list(self.groups[f"{run} low"]),
                "high": list(self.groups[f"{run} high"]),
            }
            for run in self.runs
        }
        figure = Figure(
            f"breakdown-{self.facet}",
            group_means(labels, data, self.measure, self.facet, unit),
            f"{self.measure} ({unit.label}) per {self.facet} group, per run, with "
            f"{int(round(self.confidence * 100))} % bootstrap intervals.",
            f"Plot of {self.measure} by {self.facet} group for {', '.join(self.runs)}",
            {"groups": labels, **data},
        )
        section = Section(key, f"{self.measure} by {self.facet}")
        return section.add(
            Text(f"{self.facet}: {FACETS[self.facet]}."),
            Items(tuple(extra)) if extra else None,
            table(key, headers, rows, left=1),
            Items(tuple(self.legend())),
            figure,
        )

    def report(
        self,
        command: str | None = None,
        *,
        percent: bool | None = None,
        decimals: int | None = None,
        min_queries: int | None = None,
    ):
        """The breakdown as a report (HTML or Markdown), as :meth:`format` prints it."""
        from ..printing.document import command_report

        if (percent, decimals, min_queries) != (None, None, None):
            return self.displayed(percent, decimals, min_queries).report(command)
        summary = f"breakdown of {self.measure} on {self.dataset} by {self.facet}"
        return command_report(
            f"citeval breakdown: {self.dataset}", summary, [self.section()], command
        )


def popularity_section(
    comparison,
    dataset: str,
    options: EvalOptions | None = None,
    *,
    percent: bool | None = None,
    decimals: int | None = None,
):
    """The report section of a comparison's popularity summary: its lines, and the runs'
    breakdown by popularity bin with the plot (the comparison's draws and seed), in
    ``percent`` with ``decimals``."""
    from .facets import popularity_lines

    s = comparison.settings
    found = breakdown(
        comparison.results, dataset, comparison.measures[0], by="popularity",
        baseline=comparison.baseline,
        options=replace(options or EvalOptions(), ties=s.ties),
        statistics=StatisticsOptions(permutations=s.permutations, bootstrap=s.bootstrap,
                                     seed=s.seed),
    )  # fmt: skip
    lines = tuple(popularity_lines(comparison.popularity))
    return found.section("popularity", lines, percent=percent, decimals=decimals)


def _valued(groups, values: np.ndarray, measure: str):
    """The queries every run has a value of ``measure`` for (a resolution's rates have none
    for a query without references), and the others counted in a warning."""
    missing = np.isnan(values).any(axis=1)
    if not missing.any():
        return groups, values, []
    left = groups.index[missing]
    warning = EvalWarning(
        "queries_without_value",
        f"queries with no value of {measure} (e.g. no references): left out of the breakdown",
        len(left), examples_of(left), "queries",
    )  # fmt: skip
    return groups[~missing], values[~missing], [warning]


def _pair_label(row) -> str:
    return f"{row.system} on {row.group}"


def breakdown(
    runs,
    dataset: str,
    measures: str | None = None,
    *,
    by: str,
    protocol=None,
    bins: int = 3,
    baseline: str | None = None,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
    statistics: StatisticsOptions | None = None,
) -> Breakdown:
    """A measure's mean per group of a dataset's queries, grouped by a facet.

    A system better on average may be worse on the queries that matter (rare papers, recent
    years); the breakdown tests the difference within each group.

    Parameters
    ----------
    runs : run, list or dict
        One run, a list (named after their file stems) or ``{name: run}``; anything
        :func:`citeval_irm.evaluate` reads, or an :class:`~citeval_irm.EvalResult` of the
        dataset.
    dataset : str
        The ir_datasets dataset or id whose queries are grouped.
    measures : str, optional
        The one measure broken down. Default: the first of the protocol's.
    by : str
        A facet of :data:`citeval_irm.comparison.facets.FACETS` (keyword-only).
    protocol : str or Protocol, optional
        Default: the dataset's own.
    bins : int, default 3
        Popularity bins (3: tail / torso / head).
    baseline : str, optional
        The run the others are compared with. Default: the first.
    options : EvalOptions, optional
        What the runs' numbers mean, as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        How they are computed, as in :func:`citeval_irm.evaluate` (no progress bar).
    statistics : StatisticsOptions, optional
        As in :func:`citeval_irm.compare`, corrected over every (group, run) tested.

    Returns
    -------
    Breakdown
        Each group's size and each run's mean in it, with the tests against the baseline;
        ``format(percent=..., decimals=..., min_queries=...)`` prints it (groups smaller
        than ``min_queries``, default 30, flagged).

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test", progress=False)
    >>> groups = citeval_irm.breakdown({"bm25": run}, "citeval/demo/test", "RR", by="year")
    """
    from ..reading.io import read_qrels
    from .compare import compare_settings, named_inputs
    from .compare import run_warnings as warnings_of

    options, execution, statistics = options_from(
        "breakdown",
        (options, EvalOptions),
        (execution, ExecutionOptions),
        (statistics, StatisticsOptions),
    )
    check_choice("test", statistics.test, TESTS)
    _check_facet(measures, by)
    settings = compare_settings(statistics, "all", options.ties)
    found, protocol = _dataset_of(dataset, protocol)
    name = found[0]
    named = named_inputs(runs if isinstance(runs, (Mapping, list, tuple)) else [runs])
    if baseline is not None and baseline not in named:
        raise InputError(None, f"baseline {baseline!r} is not one of the runs: {', '.join(named)}")
    baseline = baseline or next(iter(named))
    if measures is None and protocol is None:
        raise InputError(None, f"{name} names no protocol: give a measure")
    results, measure = _evaluated(named, name, measures, protocol, (options, execution))
    first = next(iter(results.values()))
    groups = query_groups(found, by, read_qrels(name).frame, bins).reindex(first.per_query.index)
    values = np.stack([results[r].per_query[measure].to_numpy() for r in named], axis=1)
    groups, values, unvalued = _valued(groups, values, measure)
    names = list(named)
    rows, blocks = _group_rows(groups, values, names, measure, settings)
    tested = family.tested(blocks, baseline, settings, column="group") if len(names) > 1 else None
    issue(tested.warnings if tested else [])  # B raised for the family, as compare says
    percent = display_percent(None, first.protocol)
    return Breakdown(
        dataset=name,
        facet=by,
        measure=measure,
        runs=names,
        baseline=baseline if len(names) > 1 else None,
        groups=flagged(pd.DataFrame(rows), MIN_QUERIES),
        pairs=tested.pairs if tested else pd.DataFrame(),
        overall=pd.Series({r: results[r].aggregate[measure] for r in names}),
        percent=percent,
        decimals=display_decimals(percent, first.protocol),
        min_queries=MIN_QUERIES,
        test=settings.test,
        correction=settings.correction,
        confidence=settings.confidence,
        warnings=warnings_of(results) + unvalued + (tested.warnings if tested else []),
        settings=tested.settings if tested else settings,
        family=tested.family if tested else None,
        protocol=first.protocol,
    )


def flagged(groups: pd.DataFrame, min_queries: int) -> pd.DataFrame:
    """``groups`` with ``small`` (right after ``queries``): fewer than ``min_queries``."""
    groups = groups.drop(columns="small", errors="ignore")
    if "queries" in groups:
        groups.insert(groups.columns.get_loc("queries") + 1, "small",
                      groups["queries"] < min_queries)  # fmt: skip
    return groups


def _check_facet(measures, by: str) -> None:
    """``by`` must be a facet, and a facet given as the measure says where it goes."""
    if isinstance(measures, str) and measures in FACETS:
        raise TypeError(
            f"breakdown(runs, dataset, measures, *, by=...): {measures!r} is a facet, "
            f"give it as by={measures!r}"
        )
    if by not in FACETS:
        raise InputError(None, f"unknown facet {by!r}; choose from {', '.join(FACETS)}")


def _dataset_of(dataset, protocol) -> tuple[tuple[str, object], object]:
    """The dataset (its id and the ir_datasets dataset) and the protocol: the one given,
    else the dataset's own."""
    from ..checks.protocol import dataset_protocol
    from ..reading.io import as_dataset

    found = as_dataset(dataset)
    if found is None:
        raise InputError(None, f"breakdown needs a dataset id, not {dataset!r}")
    return found, protocol or dataset_protocol(found[1])


def _evaluated(
    named: dict, dataset: str, measure: str | None, protocol, given: tuple
) -> tuple[dict, str]:
    """Each run's evaluation on ``dataset`` (a run given evaluated as it is) and the
    measure broken down (default: the first run's first); every run must have its values
    on the same queries. ``given``: the options and the execution options."""
    from ..evaluation.evaluate import evaluate
    from .compare import is_evaluated

    values_of_all = all(
        is_evaluated(item) and measure in item.per_query.columns for item in named.values()
    )  # a value every result already has per query (a resolution's existence_rate) is
    if measure is not None and not values_of_all:  # as named; a measure: any spelling eval takes
        measure = str(one_measure(measure))
    options, execution = given
    quiet = replace(execution, progress=False)
    results = {
        run: item
        if is_evaluated(item)
        else evaluate(item, dataset, measure, protocol=protocol, options=options, execution=quiet)
        for run, item in named.items()
    }
    first = next(iter(results.values()))
    measure = measure or str(first.measures[0])
    for run, result in results.items():
        if measure not in result.per_query.columns:
            raise InputError(None, f"{run} has no values for {measure}")
        if not result.per_query.index.equals(first.per_query.index):
            raise InputError(
                None, f"{run} was evaluated on other queries than {next(iter(results))}"
            )
    return results, measure


def _group_rows(
    groups: pd.Series,
    values: np.ndarray,
    names: list[str],
    measure: str,
    settings: CompareSettings,
) -> tuple[list[dict], dict]:
    """Per group (in its facet's order, empty ones left out): its size, each run's mean and
    BCa interval (compare's bootstrap stream), and its block of values to test."""
    rows, blocks = [], {}
    bootstrap_stream = np.random.SeedSequence(settings.seed).spawn(3)[1]  # compare's stream
    for group in groups.cat.categories:
        inside = (groups == group).to_numpy()
        if not inside.any():
            continue
        chunk = values[inside]
        low, high = stats.bootstrap_ci(
            chunk, settings.bootstrap, np.random.default_rng(bootstrap_stream), settings.confidence
        )
        row = {"group": group, "queries": int(inside.sum())}
        for position, run in enumerate(names):
            row[run] = chunk[:, position].mean()
            row[f"{run} low"], row[f"{run} high"] = low[position], high[position]
            nonzero = int((chunk[:, position] != 0).sum())
            row[f"{run} few"] = bool(nonzero < stats.FEW_NONZERO and not np.isnan(low[position]))
        rows.append(row)
        blocks[group] = (chunk[:, :, None], names, [measure])
    return rows, blocks
