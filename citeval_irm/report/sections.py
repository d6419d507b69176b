"""The sections of a report, each built once from the API's own objects.

Every number a section shows is formatted from the value the API returned (an
:class:`~citeval_irm.EvalResult` aggregate, a comparison's pairs, a validation's counts, a
cross-check's summary), with the protocol's unit and decimals, so a report says nothing the
Python objects do not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

import numpy as np

from ..base.options import display_decimals, display_percent
from ..checks.crosscheck import CrosscheckReport
from ..checks.protocol import PAIR_CHECKS
from ..checks.published.comparison import PublishedComparison
from ..comparison.model import Comparison
from ..comparison.table_marks import ORACLE, ORACLE_MEANS
from ..printing import plots
from ..printing.blocks import Facts, Figure, Items, Section, Text, table
from ..printing.plots import Unit
from ..printing.text_tables import number
from ..scoring import percent_scale
from .facts import RunFacts, rank_bin_counts, rank_bin_labels
from .provenance import DatasetInfo, versions

MAX_DIFFERENCE_PANELS = 4
MAX_DIFFERING_ROWS = 10
TIE_POLICY_TEXT = {
    "trec_eval": "trec_eval: score, then doc id descending",
    "run_order": "run_order: score, then the order of the rows in the run",
}


class Formatter:
    """Values as the report prints them: the protocol's unit and decimals."""

    def __init__(self, percent: bool, decimals: int):
        self.unit = Unit(percent)
        self.decimals = decimals

    @classmethod
    def of(cls, protocol, percent: bool | None, decimals: int | None) -> Formatter:
        """The unit asked for (``percent``, else the protocol's) and its decimals
        (:func:`~citeval_irm.base.options.display_decimals`)."""
        shown = display_percent(percent, protocol)
        return cls(shown, display_decimals(shown, protocol, decimals))

    def value(self, fraction: float, *, sign: bool = False, measure: str | None = None) -> str:
        """``fraction`` in the unit; a ``measure`` that is a count (NumRet) is never scaled."""
        scale = (self.unit if measure is None else self.unit_of(measure)).scale
        return number(fraction * scale, self.decimals, sign=sign)

    def unit_of(self, measure: str) -> Unit:
        """The unit ``measure`` is shown in: the report's, but a count is never a percent."""
        return Unit(self.unit.percent and percent_scale(measure, True) == 100.0)


# --------------------------------------------------------------------------- set-up

# which queries the average is over, by the empty-queries policy (evaluate's population)
_COUNTED = {
    "zero": "trec_eval -c: every qrels query",
    "skip": "trec_eval -c: every qrels query with a relevant doc",
}


def setup_section(
    runs: Sequence[RunFacts],
    qrels_sha256: str | None,
    dataset: DatasetInfo | None,
    options: Mapping[str, str],
    comparison: Comparison | None,
    fmt: Formatter,
) -> Section:
    """What was evaluated, how, and the files it was evaluated from (with sha256); the
    command that repeats it is the report's own (:attr:`~citeval_irm.report.Report.command`),
    added when it is written."""
    first = runs[0].evaluation
    protocol = first.protocol
    pairs = []
    if protocol is not None:
        pairs.append(("protocol", f"{protocol.name}: {protocol.title} ({protocol.reference})"))
    pairs += [
        ("measures", " ".join(first.names)),
        ("values in", f"{fmt.unit.label}, {fmt.decimals} decimals"),
        ("qrels", first.qrels_source + (f" (sha256 {qrels_sha256})" if qrels_sha256 else "")),
    ]
    if dataset is not None:
        pairs += [
            ("dataset", dataset.dataset_id),
            ("corpus", dataset.corpus or "-"),
            ("split", dataset.split or "all"),
        ]
    pairs += [
        ("queries evaluated", f"{first.num_queries:,} ({_COUNTED[options['empty_queries']]})"),
        ("engine", first.engine),
        ("tie policy", TIE_POLICY_TEXT.get(options["ties"], options["ties"])),
        ("duplicates in a run", options["duplicates"]),
        ("queries without a relevant doc", options["empty_queries"]),
    ]
    if comparison is not None:  # the test, its correction, the interval, the draws, ...
        s = comparison.settings
        baseline = f", baseline {comparison.baseline}" if comparison.baseline else ""
        compared = (
            f"test {s.test}, correction {s.correction}, alpha {s.alpha:g}, "
            f"{s.confidence:.0%} bootstrap CI ({s.bootstrap:,} resamples), "
            f"{s.permutations:,} permutations, seed {s.seed}, queries {s.queries}{baseline}"
        )
        pairs.append(("comparison", compared))
    section = Section("setup", "What was evaluated")
    section.add(Facts("setup", tuple(pairs)))
    section.add(_runs_table(runs))
    if dataset is not None:
        section.add(_dataset_files(dataset))
    return section


def _runs_table(runs: Sequence[RunFacts]):
    """Each run's source, its sha256 and its size."""
    rows = [
        [
            r.name,
            r.source,
            r.sha256 or "in memory: no file",
            f"{r.lines:,}",
            f"{r.queries:,}",
            f"{r.shortest:,}-{r.deepest:,}",
        ]
        for r in runs
    ]
    headers = ["run", "source", "sha256", "lines", "queries", "docs per query"]
    return table("runs", headers, rows, left=3, caption="Runs")


def _dataset_files(dataset: DatasetInfo):
    if not dataset.files:
        return Text(f"{dataset.dataset_id}: {dataset.note}")
    rows = [
        [f.name, f.sha256 or "-", f.how, "-" if f.size is None else f"{f.size:,}"]
        for f in dataset.files
    ]
    caption = f"Files of {dataset.corpus} (quote their sha256 with the results)"
    return table(
        "dataset-files", ["file", "sha256", "checksum from", "bytes"], rows, left=3, caption=caption
    )


# --------------------------------------------------------------------------- scores


def scores_section(
    runs: Sequence[RunFacts], comparison: Comparison | None, fmt: Formatter
) -> Section:
    """The scores (one run), or the means with significance letters and each pair's
    difference, interval and tests (several runs); the Recall@K and first-rank plots."""
    section = Section("scores", "Scores")
    flagged = oracle_flagged(runs)
    if comparison is None:
        result = runs[0].evaluation
        rows = [[name, fmt.value(result.aggregates[name], measure=name)] for name in result.names]
        caption = f"Means over the {result.num_queries:,} queries evaluated"
        name = runs[0].name + (f" {ORACLE}" if runs[0].name in flagged else "")
        section.add(table("scores", ["measure", name], rows, caption=caption))
    else:
        percent = fmt.unit.percent
        headers, rows = comparison.table("means", percent, fmt.decimals)
        headers = [_marked(header, comparison.names, flagged) for header in headers]
        caption = f"Means over the {comparison.num_queries:,} queries compared"
        section.add(table("means", headers, rows, caption=caption))
        if len(comparison.pairs):
            headers, rows = comparison.table("pairs", percent, fmt.decimals)
            section.add(table("pairs", headers, rows, left=2, caption="Paired comparisons"))
        if comparison.tukey is not None:
            headers, rows = comparison.table("tukey", percent, fmt.decimals)
            section.add(table("tukey", headers, rows, left=2, caption="Randomised Tukey HSD"))
        legend = comparison.legend()
        section.add(Items(tuple(legend)) if legend else None)
    if flagged:
        section.add(Items((f"{ORACLE}: {', '.join(flagged)}: {ORACLE_MEANS}",)))
    return section.add(_recall_figure(runs, fmt), _first_rank_figure(runs))


def oracle_flagged(runs: Sequence[RunFacts]) -> list[str]:
    """The runs whose validation flags ``gold_always_present``."""
    return [
        r.name for r in runs if r.validation is not None and r.validation.oracle_warning is not None
    ]


def _marked(header: str, names: Sequence[str], flagged: Sequence[str]) -> str:
    """A means table's column header (``bm25 (a)``) with the mark of a flagged run."""
    run = next((n for n in names if header == n or header.startswith(f"{n} (")), None)
    return f"{header} {ORACLE}" if run in flagged else header


def _recall_figure(runs: Sequence[RunFacts], fmt: Formatter) -> Figure:
    curves = {r.name: (list(r.recall), list(r.recall.values())) for r in runs}
    deepest = max(r.deepest for r in runs)
    deepest_values = {r.name: list(r.recall.items())[-1] for r in runs}
    at = ", ".join(f"{name}: R@{k} = {fmt.value(v)}" for name, (k, v) in deepest_values.items())
    return Figure(
        "recall-curve",
        plots.recall_curve(curves, fmt.unit),
        f"Recall@K for K from 1 to {deepest:,} (the deepest ranking), log-scaled K; "
        f"{fmt.unit.label}, trec_eval semantics.",
        f"Line plot of Recall@K against K per run; at the largest K {at}",
        {name: dict(zip(ks, values)) for name, (ks, values) in curves.items()},
    )


def _first_rank_figure(runs: Sequence[RunFacts]) -> Figure:
    deepest = max(r.deepest for r in runs)
    labels = rank_bin_labels(deepest)
    counts = {r.name: rank_bin_counts(r.first_ranks, deepest) for r in runs}
    total = len(runs[0].first_ranks)
    summary = "; ".join(
        f"{name}: {c[0]:,} at rank 1, {c[-1]:,} none retrieved" for name, c in counts.items()
    )
    return Figure(
        "first-rank",
        plots.first_rank_distribution(labels, counts, total),
        "Rank of each query's first relevant paper (1 / reciprocal rank), binned; "
        "'none': no relevant paper in the ranking (reciprocal rank 0).",
        f"Bar chart of queries per rank bin of the first relevant paper; {summary}",
        {"bins": labels, **counts},
    )


def differences_section(comparison: Comparison, fmt: Formatter) -> Section:
    """Who wins where: each pair's per-query differences of the first measure, sorted."""
    measure = comparison.measures[0]
    pairs = comparison.pairs[comparison.pairs["measure"] == measure]
    panels, data = [], {}
    for row in pairs.head(MAX_DIFFERENCE_PANELS).itertuples():
        values = comparison.per_query
        diffs = (values[(measure, row.system)] - values[(measure, row.baseline)]).dropna()
        diffs = diffs.to_numpy()  # (NaN: a query compared on a resolution's rates only)
        title = f"{row.system} - {row.baseline}"
        panels.append((title, diffs))
        data[title] = np.sort(diffs)[::-1].tolist()
    section = Section("differences", "Who wins where")
    unit = fmt.unit_of(measure)
    if not panels:
        return section.add(Text("One run: there are no per-query differences to show."))
    shown = "" if len(pairs) <= MAX_DIFFERENCE_PANELS else f" (the first {len(panels)} pairs)"
    summary = "; ".join(
        f"{t}: {sum(d > 0 for d in v)} better, {sum(d < 0 for d in v)} worse"
        for t, v in data.items()
    )
    return section.add(
        Figure(
            "differences",
            plots.sorted_differences(panels, measure, unit),
            f"Per-query differences in {measure}{shown}, sorted from the largest gain to the "
            f"largest loss ({unit.difference_label}); solid: the first run of the pair "
            "does better, hatched: worse; dashed: the mean difference.",
            f"Sorted per-query differences in {measure}; {summary}",
            data,
        )
    )


def published_section(side: PublishedComparison) -> Section:
    """The runs beside the published table (a comparison's ``published``), the
    differences, the rows impossible as printed, the intervals of what a system does not
    report, and the like-for-like checks."""
    from ..checks.published.consistency import MARK

    section = Section("published", "Published results")
    section.add(table("published", *side.side_by_side(), caption=side.title()))
    headers, rows = side.difference_table()
    section.add(
        table(
            "published-differences", headers, rows, left=2, caption="Difference (yours - published)"
        )
    )
    if side.impossible:
        section.add(
            Items(tuple(f"{MARK} {system}: {why}" for system, why in side.impossible.items()))
        )
    if len(side.bounds):
        headers, rows = side.bounds_table()
        caption = (
            "Not reported: the values each system's reported ones allow (one gold paper a query)"
        )
        section.add(table("published-bounds", headers, rows, left=2, caption=caption))
    section.add(Text(side.verdict()), Items(tuple(str(check) for check in side.checks)))
    return section.add(Items(tuple(f"note: {note}" for note in side.notes)) if side.notes else None)


# --------------------------------------------------------------------------- ties


def ties_section(runs: Sequence[RunFacts], fmt: Formatter) -> Section:
    """Each measure's value and its range over every order of the tied scores."""
    section = Section("ties", "Tie ranges")
    measures = list(runs[0].tie_ranges)
    if not measures:
        return section.add(Text("No measure of the measure table: no tie ranges computed."))
    rows = []
    for r in runs:
        for measure, tie in r.tie_ranges.items():
            cells = [fmt.value(v, measure=measure) for v in tie.as_tuple()]
            rows.append([measure, r.name, *cells, fmt.value(tie.best - tie.worst, measure=measure)])
    headers = ["measure", "run", "value", "worst", "expected", "best", "best - worst"]
    tied = "; ".join(
        f"{r.name}: {r.evaluation.ties.tied_queries:,} of {r.evaluation.num_queries:,} queries "
        "have tied scores"
        for r in runs
        if r.evaluation.ties is not None
    )
    section.add(
        Text(
            "Tied scores can be ordered any way; trec_eval puts them by doc id descending. "
            "worst, expected and best: the measure over every order of the tied scores (its "
            "mean over queries), the expectation under a uniformly random order (McSherry and "
            f"Najork, ECIR 2008). {tied}."
        ),
        table("ties", headers, rows, left=2, caption="Values over all orders of tied scores"),
    )
    ranges = {r.name: {m: t.as_tuple() for m, t in r.tie_ranges.items()} for r in runs}
    if all(t.best == t.worst for r in runs for t in r.tie_ranges.values()):
        return section.add(Text("No tie changes any value: nothing to plot."))
    widest = max(((t.best - t.worst, m, r.name) for r in runs for m, t in r.tie_ranges.items()))
    return section.add(
        Figure(
            "tie-ranges",
            plots.tie_ranges(ranges, measures, fmt.unit),
            "Per measure and run: from the worst to the best value over all orders of the tied "
            "scores (bar) and the expected value (marker), relative to the reported value "
            f"(zero), in {fmt.unit.difference_label}.",
            f"Bars of tie ranges per measure; widest: {widest[1]} of {widest[2]}, "
            f"{fmt.value(widest[0])} wide",
            ranges,
        )
    )


# --------------------------------------------------------------------------- checks


def validation_section(runs: Sequence[RunFacts]) -> Section | None:
    """Each run's protocol validation: counts per check with examples, and the verdict."""
    if all(r.validation is None and r.unvalidated is None for r in runs):
        return None
    section = Section("validation", "Protocol validation")
    for r in runs:
        report = r.validation
        if report is None:
            section.add(Text(f"{r.name}: {r.unvalidated}"))
            continue
        rows = [
            [
                row.check,
                f"{row.pairs:,}" if row.check in PAIR_CHECKS else "-",
                f"{row.queries:,}",
                ", ".join(f"{q} -> {d}" if d else q for q, d in row.examples),
                row.description,
            ]
            for row in report.checks.itertuples()
        ]
        policy = "admitted" if report.same_year else "not admitted"
        caption = (
            f"{r.name} against {report.dataset} ({report.num_queries:,} queries, "
            f"{report.num_docs:,} docs, {report.run_rows:,} run rows; same-year papers {policy})"
        )
        headers = ["check", "pairs", "queries", "examples", "what it means"]
        section.add(table(f"validation:{r.name}", headers, rows, align="lrrll", caption=caption))
        failed = report.checks[report.checks["queries"] > 0]["check"].tolist()
        verdict = f"VIOLATIONS ({', '.join(failed)})" if failed else "the run obeys the protocol"
        section.add(Text(f"{r.name}: {verdict}"))
        if report.ceiling_line():
            section.add(Text(f"{r.name}: {report.ceiling_line()}"))
        if report.warnings:
            section.add(Items(tuple(f"{r.name}: {w}" for w in report.warnings)))
    return section


def crosscheck_section(
    crosschecks: Mapping[str, CrosscheckReport],
    percent: bool | None = None,
    decimals: int | None = None,
) -> Section | None:
    """Each cross-check: both values per measure, the causes with counts and examples (in
    the unit asked for, else the cross-check's own; ``decimals``, else the rule's)."""
    if not crosschecks:
        return None
    section = Section("crosscheck", "Cross-check: the paper's recipe beside trec_eval")
    for name, report in crosschecks.items():
        fmt = Formatter.of(
            report.protocol, report.percent if percent is None else percent, decimals
        )
        order = "the run's" if report.recipe_ties == "run_order" else "trec_eval's"
        section.add(
            Text(
                f"{name}: trec_eval semantics beside recipe {report.recipe.name} "
                f"({report.recipe.reference}); the recipe sees tied scores in {order} order; "
                f"values in {fmt.unit.label}."
            )
        )
        rows = [
            [
                measure,
                fmt.value(row.trec_eval, measure=measure),
                fmt.value(row.recipe, measure=measure),
                fmt.value(row.difference, sign=True, measure=measure),
                fmt.value(row.max_abs_query_difference, measure=measure),
                f"{int(row.queries_differing):,}",
            ]
            for measure, row in report.summary.iterrows()
        ]
        headers = ["measure", "trec_eval", "recipe", "diff", "max|q|", "n_diff"]
        section.add(table(f"crosscheck:{name}", headers, rows, caption=f"{name}: both values"))
        if report.causes.empty:
            section.add(Text("No difference: the recipe and trec_eval agree on every query."))
        else:
            rows = [
                [
                    c.cause,
                    f"{c.differences:,}",
                    f"{c.queries:,}",
                    ", ".join(c.examples),
                    c.description,
                ]
                for c in report.causes.itertuples()
            ]
            headers = ["cause", "differences", "queries", "examples", "what it means"]
            caption = f"{name}: causes of the differences"
            section.add(table(f"causes:{name}", headers, rows, align="lrrll", caption=caption))
            section.add(_differing(name, report, fmt))
        section.add(Text(f"{name}: unexplained differences: {report.unexplained}"))
    return section


def _differing(name: str, report: CrosscheckReport, fmt: Formatter):
    head = report.differences.head(MAX_DIFFERING_ROWS)
    rows = [
        [
            d.query_id,
            d.measure,
            fmt.value(d.trec_eval, measure=d.measure),
            fmt.value(d.recipe, measure=d.measure),
            fmt.value(d.difference, sign=True, measure=d.measure),
            d.causes.replace(";", ", "),
        ]
        for d in head.itertuples()
    ]
    headers = ["query", "measure", "trec_eval", "recipe", "diff", "causes"]
    caption = f"{name}: differing (query, measure) pairs, the first {len(head)} of "
    caption += f"{len(report.differences):,}"
    return table(f"differing:{name}", headers, rows, align="llrrrl", caption=caption)


def warnings_section(warnings: Sequence[str]) -> Section:
    """Everything the evaluation ignored or altered, counted."""
    section = Section("warnings", "Warnings")
    if not warnings:
        return section.add(Text("None: nothing was ignored or altered."))
    return section.add(Items(tuple(warnings)))


def environment_section() -> Section:
    """The versions of Python, the platform and every library the numbers depend on."""
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return Section("environment", "Environment").add(
        Facts("versions", (("generated", made), *versions()))
    )
