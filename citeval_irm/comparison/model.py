"""The result of :func:`citeval_irm.compare`: the runs' per-query values compared, each
pair's tests, the settings they were made with, and what the result gives a notebook (tidy
DataFrames, JSON). Values are stored as fractions; percent is presentation. Its formats:
the table a person reads (a header, the means with significance letters, each pair's
difference, interval, effect size, win / tie / loss and p-values, the Tukey HSD, the
legend), Markdown, LaTeX (booktabs, with a caption that says what the table claims) and
CSV. Its legend says what every column means and how each number was made, one sentence a
line.
"""

from __future__ import annotations

import math
import string
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from ..base.choices import COMPARE_FORMATS, EXACT_WILCOXON_MAX
from ..base.errors import EvalWarning, InputError, deprecated
from ..base.measures import Protocol
from ..base.options import display_decimals
from ..printing.escaping import (
    Markup,
    csv_frame,
    finite_values,
    latex_comment,
    latex_label,
    latex_text,
)
from ..printing.printable import Printable, Shown
from ..printing.text_tables import blocks, latex_tabular, render, wrap
from ..resolving.result import LOWER_IS_BETTER
from ..scoring import percent_scale
from .family import (
    CORRECTION_LABELS,
    FEW_MARK,
    UNREACHABLE_MARK,
    CompareSettings,
    Family,
    family_notes,
    few_line,
)
from .labels import P_COLUMNS, TEST_DIRECTIONS, TEST_LABELS, effect, format_p, signed

if TYPE_CHECKING:
    from ..checks.published.comparison import PublishedComparison

FORMATS = COMPARE_FORMATS


@dataclass(repr=False)
class Comparison(Printable):
    """Runs compared query by query (see :func:`citeval_irm.compare`).

    ``pairs``: one row per measure and (baseline, system) pair, ``system`` minus
    ``baseline``; ``tukey``: the randomised Tukey HSD over all pairs (or ``None``);
    ``per_query``: the compared values (columns: measure, run; NaN where a query is not
    compared on that measure); ``coverage``: per run, the queries evaluated, ranked and not
    ranked; ``results``: each run's EvalResult; ``published``: the runs beside the published
    results, when asked; ``rates``: the resolution rates among ``measures`` (resolutions
    compared), each tested on the queries every run has a value of it for.
    """

    names: list[str]
    baseline: str | None
    measures: list[str]
    per_query: pd.DataFrame
    pairs: pd.DataFrame
    tukey: pd.DataFrame | None
    settings: CompareSettings
    coverage: pd.DataFrame
    warnings: list[EvalWarning]
    protocol: Protocol | None
    qrels_source: str
    results: dict = field(default_factory=dict)
    published: PublishedComparison | None = None
    popularity: pd.DataFrame | None = None
    family: Family | None = None  # the tests corrected together (None: no pairs)
    rates: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ access
    def _summary(self) -> dict[str, object]:
        facts = {"runs": self.names, "queries": self.num_queries, "measures": len(self.measures)}
        if self.baseline is not None:
            facts["baseline"] = self.baseline
        facts["test"] = self.settings.test
        if len(self.pairs):
            marked = int(self.pairs["significant"].astype(bool).sum())
            facts["significant"] = Shown(f"{marked} of {len(self.pairs)}")
        return facts

    @property
    def num_queries(self) -> int:
        """The number of queries compared (on the field's measures, when rates are too)."""
        fields = [m for m in self.measures if m not in self.rates]
        if not self.rates or not fields:
            return len(self.per_query)
        return int(self.per_query[fields].notna().all(axis=1).sum())

    @property
    def means(self) -> pd.DataFrame:
        """Mean of each measure (rows) for each run (columns) over the compared queries."""
        return self.per_query.mean().unstack("run").reindex(index=self.measures, columns=self.names)

    def to_frame(self) -> pd.DataFrame:
        """The compared per-query values: one row per query (index ``query_id``), one column
        per (measure, run), as fractions.

        Returns
        -------
        pandas.DataFrame
            A copy of :attr:`per_query`. The other tables are attributes: :attr:`pairs`
            (one row per measure and pair), :attr:`means` (measures by runs),
            :attr:`tukey`; the published rows: ``comparison.published.to_frame()``.
        """
        return self.per_query.copy()

    def default_percent(self) -> bool:
        """The unit values print in when no ``percent`` is given: the protocol's, else the
        published table's (its rows share the runs' table), else fractions (as
        :meth:`~citeval_irm.EvalResult.default_percent`)."""
        if self.protocol is not None:
            return bool(self.protocol.percent)
        return bool(self.published.paper.percent) if self.published is not None else False

    def decimals(self, percent: bool, decimals: int | None = None) -> int:
        """The decimals values print with in ``percent``: ``decimals`` if given, else the
        protocol's (:func:`~citeval_irm.base.options.display_decimals`, as
        :meth:`~citeval_irm.EvalResult.decimals`)."""
        return display_decimals(percent, self.protocol, decimals)

    def percent_default(self) -> bool:
        """Deprecated spelling of :meth:`default_percent` (removed in the next release)."""
        deprecated("Comparison.percent_default()", "Comparison.default_percent()")
        return self.default_percent()

    def shown(self, percent: bool | None = None, decimals: int | None = None) -> tuple[bool, int]:
        """Deprecated (``shown`` is a report's: the report in another unit): the unit is
        :meth:`default_percent`, the decimals :meth:`decimals` (removed in the next
        release)."""
        deprecated("Comparison.shown()", "Comparison.default_percent() and Comparison.decimals()")
        return self._unit(percent, decimals)

    def _unit(self, percent: bool | None, decimals: int | None) -> tuple[bool, int]:
        """The unit and decimals values print with: as given, else the defaults."""
        shown = self.default_percent() if percent is None else bool(percent)
        return shown, self.decimals(shown, decimals)

    # ----------------------------------------------------------------- formats
    FORMATS = FORMATS

    def _repr_html_(self) -> str:
        return self.pairs.to_html() if len(self.pairs) else self.means.to_html()

    def to_dict(self) -> dict:
        return finite_values(
            {
                "runs": self.names,
                "baseline": self.baseline,
                "qrels": self.qrels_source,
                "protocol": self.protocol.name if self.protocol else None,
                "num_queries": self.num_queries,
                "coverage": self.coverage.reset_index().to_dict(orient="records"),
                "settings": asdict(self.settings),
                "means": {m: dict(row) for m, row in self.means.iterrows()},
                "pairs": self.pairs.to_dict(orient="records"),
                "tukey": self.tukey.to_dict(orient="records") if self.tukey is not None else None,
                "family": asdict(self.family) if self.family is not None else None,
                "warnings": [w.to_dict() for w in self.warnings],
                "published": self.published.to_dict() if self.published is not None else None,
                "popularity": (
                    {**self.popularity.attrs, "runs": self.popularity.to_dict(orient="index")}
                    if self.popularity is not None
                    else None
                ),
            }
        )

    # ------------------------------------------------------------------ pieces
    def letters(self) -> dict[str, str]:
        """The letter that stands for each run in the significance marks: a, b, c, ..."""
        alphabet = string.ascii_lowercase
        return {
            name: alphabet[i] if i < len(alphabet) else f"r{i + 1}"
            for i, name in enumerate(self.names)
        }

    def beats(self) -> dict[tuple[str, str], list[str]]:
        """``(measure, run)``: the runs it is significantly better than (by the chosen test,
        corrected), as letters."""
        letters = self.letters()
        out: dict[tuple[str, str], list[str]] = {}
        for row in self.pairs[self.pairs["significant"]].itertuples():
            # the direction of the test behind the mark: wins against losses for the sign
            # test, the signed-rank sum for Wilcoxon, the mean for the others
            better = row.direction > 0 if row.measure not in LOWER_IS_BETTER else row.direction < 0
            winner, loser = (row.system, row.baseline) if better else (row.baseline, row.system)
            out.setdefault((row.measure, winner), []).append(letters[loser])
        return out

    def table(
        self, kind: str, percent: bool | None = None, decimals: int | None = None
    ) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of a table as the text formats print it (cells as strings):
        ``means`` (with significance letters), ``pairs`` or ``tukey``."""
        percent, decimals = self._unit(percent, decimals)
        if kind == "means":
            return self._means_rows(percent, decimals)
        if kind == "pairs":
            return self._pair_rows(percent, decimals)
        if kind == "tukey" and self.tukey is not None:
            rows = self._tukey_rows(self.tukey, percent, decimals)
            return ["measure", "pair", "diff", "p(tukey)"], rows
        raise InputError(None, f"no {kind!r} table; choose means, pairs or tukey (if computed)")

    def legend(self) -> list[str]:
        """What every column means and how it was computed, one sentence per line."""
        pairs, s = self.pairs, self.settings
        # a comparison with pairs has its family (compare corrects every test it makes)
        family = self.family
        lines = _pair_lines(pairs, s, family, self.baseline) if len(pairs) and family else []
        if self.tukey is not None:
            lines.append(_tukey_line(self.tukey, s))
        if len(pairs):
            lines.append(
                "a p-value says whether a difference is there, not whether it matters: read it "
                f"beside diff, the CI and d_z (the more queries, here {self.num_queries:,}, the "
                "smaller the differences that come out significant)"
            )
        return lines

    def label(self) -> str:
        """A LaTeX label unique to this comparison (its runs, measures, queries, qrels and
        settings), so two tables of one paper never share one; the same where the files
        are (the qrels by name, not folder), so a regenerated table keeps its ``\\ref``."""
        qrels = self.qrels_source.replace("\\", "/").rsplit("/", 1)[-1]
        key = repr((self.names, self.measures, self.num_queries, qrels))
        return latex_label("compare", key, repr(asdict(self.settings)))

    # ------------------------------------------------------------ text formats
    def _render(self, fmt: str, *, percent: bool | None = None, decimals: int | None = None) -> str:
        """``table``, ``markdown``, ``latex`` or ``csv`` (the pairs, or the means of a single
        run)."""
        percent, decimals = self._unit(percent, decimals)
        if fmt == "csv":
            if len(self.pairs):
                return csv_frame(self.pairs)
            long = self.means.stack().rename("mean").reset_index()
            return csv_frame(long.rename(columns={"level_0": "measure"}))
        if fmt == "latex":
            return self._latex(percent, decimals)
        return self._text(fmt, percent, decimals)

    def _header(self, percent: bool) -> str:
        protocol = f", protocol {self.protocol.name}" if self.protocol else ""
        unit = "; values in percent" if percent else ""
        runs = f"{len(self.names)} runs" if len(self.names) > 1 else "1 run"
        return (
            f"compare {runs} ({', '.join(self.names)}) on {self.num_queries:,} queries of "
            f"{self.qrels_source}{protocol}, ties: {self.settings.ties}{unit}"
        )

    def _rates_line(self) -> str | None:
        """On which queries each resolution rate is compared."""
        if not self.rates:
            return None
        counts = ", ".join(
            f"{rate} on {int(self.per_query[rate].notna().all(axis=1).sum()):,}"
            for rate in self.rates
        )
        lower = [rate for rate in self.rates if rate in LOWER_IS_BETTER]
        better = f"; lower is better for {', '.join(lower)}" if lower else ""
        return (
            f"rates of the resolutions, each compared on the queries whose generated lists "
            f"have references in every run: {counts}{better}"
        )

    def _coverage_line(self) -> str | None:
        short = self.coverage[self.coverage["unranked"] > 0]
        if short.empty:
            return None
        parts = ", ".join(
            f"{run} ranks {row.ranked:,} of {row.evaluated:,}" for run, row in short.iterrows()
        )
        if self.settings.queries == "common":
            return f"queries: compared on the {self.num_queries:,} every run ranks ({parts})"
        return f"queries: every qrels query, unranked ones scored 0 ({parts})"

    def _means_rows(
        self, percent: bool, decimals: int, bold: bool = False, aligned: bool = False
    ) -> tuple[list[str], list[list[str]]]:
        """The means with their letters; ``bold``: the best run of each measure in Markdown
        bold; ``aligned``: each column's letters padded to one width, so that in a
        right-aligned text table the numbers line up."""
        letters, beats = self.letters(), self.beats()
        best = self._best(False)
        headers = ["measure", *(f"{name} ({letters[name]})" for name in self.names)]
        marks = {
            name: ["".join(sorted(beats.get((m, name), []))) for m in self.means.index]
            for name in self.names
        }
        width = {name: max(map(len, column), default=0) for name, column in marks.items()}
        rows = []
        for i, (measure, row) in enumerate(self.means.iterrows()):
            cells = [measure]
            scale = percent_scale(measure, percent)
            for name in self.names:
                mark = marks[name][i].ljust(width[name]) if aligned else marks[name][i]
                text = f"{row[name] * scale:.{decimals}f}"
                cell = text + (f" {mark}" if mark else "")  # letters: inert in every format
                if bold and row[name] == best[measure] and len(self.names) > 1:
                    cell = Markup(f"**{text}**" + (f" {mark}" if mark else ""))
                cells.append(cell)
            rows.append(cells)
        return headers, rows

    def _pair_rows(self, percent: bool, decimals: int) -> tuple[list[str], list[list[str]]]:
        tests = ["randomisation", "t", "wilcoxon", "sign"]
        tests += ["tukey"] if "p_tukey" in self.pairs.columns else []
        headers = ["measure", "pair", "diff", f"{self.settings.confidence:.0%} CI", "d_z", "W/T/L"]
        headers += [P_COLUMNS[t] for t in tests] + ["p_adj", ""]
        rows = []
        for row in self.pairs.itertuples():
            scale = percent_scale(row.measure, percent)
            if math.isnan(row.ci_low):
                ci = "n/a"
            else:
                low, high = (signed(v * scale, decimals) for v in (row.ci_low, row.ci_high))
                ci = (FEW_MARK if row.ci_few else "") + f"[{low}, {high}]"
            cells = [
                row.measure,
                f"{row.system} - {row.baseline}",
                signed(row.diff * scale, decimals),
                ci,
                effect(row.effect_size),
                f"{row.wins}/{row.ties}/{row.losses}",
            ]
            cells += [format_p(getattr(row, f"p_{t}")) for t in tests]
            mark = "*" if row.significant else ""
            if not row.significant and not math.isnan(row.p_adj) and not row.reachable:
                mark = UNREACHABLE_MARK
            cells += [format_p(row.p_adj), mark]
            rows.append(cells)
        return headers, rows

    def _tukey_rows(self, tukey: pd.DataFrame, percent: bool, decimals: int) -> list[list[str]]:
        return [
            [
                row.measure,
                f"{row.system_b} - {row.system_a}",
                signed(row.diff * percent_scale(row.measure, percent), decimals),
                format_p(row.p_tukey),
            ]
            for row in tukey.itertuples()
        ]

    def _text(self, fmt: str, percent: bool, decimals: int) -> str:
        bullet = "- " if fmt == "markdown" else "  "
        out = [wrap(self._header(percent), "", fmt)]
        for line in (self._coverage_line(), self._rates_line()):
            if line:
                out.append(wrap(line, "", fmt))
        headers, rows = self._means_rows(
            percent, decimals, bold=fmt == "markdown", aligned=fmt == "table"
        )
        out.append(render(headers, rows, fmt))
        if fmt == "markdown" and len(self.names) > 1:
            note = "bold: the best of the runs compared here"
            if self.published is not None:
                note += " (the published systems, in their own table, are not ranked with them)"
            out.append(note)
        if len(self.pairs):
            headers, rows = self._pair_rows(percent, decimals)
            out.append(render(headers, rows, fmt, left=2))
        else:
            out.append(f"{bullet}one run: nothing to test")
        if self.tukey is not None and self.baseline is not None:
            out.append("randomised Tukey HSD, all pairs:")
            out.append(render(*self.table("tukey", percent, decimals), fmt, left=2))
        legend = self.legend()
        if legend:
            out.append("legend:")
            out += [wrap(line, bullet, fmt) for line in legend]
        if self.popularity is not None:
            from .facets import popularity_lines

            out += [
                wrap(line, bullet if n else "", fmt)
                for n, line in enumerate(popularity_lines(self.popularity))
            ]
        if self.published is not None:
            out.append("")
            out.append(self.published.format(fmt))
        return blocks(out, fmt)

    def _latex(self, percent: bool, decimals: int) -> str:
        letters, beats = self.letters(), self.beats()
        means = self.means
        published = self.published
        ranked_with = published is not None and published.like_for_like
        best = self._best(ranked_with)
        rows: list[list[str] | None] = []
        if published is not None:
            rows += published.latex_rows(self.measures, best if ranked_with else None)
            rows.append(None)
        for name in self.names:
            cells = [latex_text(f"({letters[name]}) {name}")]
            for measure in self.measures:
                value = means.at[measure, name]
                text = f"{value * percent_scale(measure, percent):.{decimals}f}"
                if value == best[measure]:
                    text = f"\\textbf{{{text}}}"
                mark = "".join(sorted(beats.get((measure, name), [])))
                cells.append(text + (f"$^{{{mark}}}$" if mark else ""))
            rows.append(cells)
        headers = ["System", *(latex_text(m) for m in self.measures)]
        caption = self._caption(percent, ranked_with)
        comment = latex_comment(
            f"citeval compare: {', '.join(self.names)} on {self.num_queries:,} queries"
        )
        return (
            comment
            + "\\begin{table}[t]\n\\centering\n"
            + latex_tabular(headers, rows)
            + f"\\caption{{{caption}}}\n\\label{{{self.label()}}}\n\\end{{table}}\n"
        )

    def _best(self, with_published: bool) -> dict[str, float]:
        """Each measure's best mean (a fraction) among the rows it is comparable with: the
        runs, and the published systems only when the comparison is like for like."""
        best = {m: self.means.loc[m].max() for m in self.measures}
        published = self.published
        if with_published and published is not None:
            unit = 100.0 if published.paper.percent else 1.0
            for measure in published.figures.index:
                top = published.figures.loc[measure].max() / unit
                best[measure] = max(best[measure], top)
        return best

    def _caption(self, percent: bool, ranked_with: bool) -> str:
        """What the table claims: the best in bold among which rows, the marks' test and its
        correction (over which family), the published table's like-for-like verdict."""
        s = self.settings
        unit = " (percent)" if percent else ""
        caption = f"Means over {self.num_queries:,} queries{unit}. "
        if self.published is None:
            caption += "Best run in bold. "
        elif ranked_with:
            caption += "Best in bold, published systems included (like for like). "
        else:
            caption += (
                "Best of the runs compared here in bold; the published systems are not ranked "
                f"with them ({latex_text(self._published_verdict(self.published))}). "
            )
        if len(self.pairs):
            if s.test == "tukey":
                family = (
                    "it controls the family-wise error over the pairs of each measure; not "
                    f"corrected across the {len(self.measures)} measures"
                )
            else:
                family = (
                    f"{CORRECTION_LABELS[s.correction]}-corrected over the "
                    f"{int(self.pairs['p_adj'].notna().sum())} tests of the table"
                )
            caption += (
                f"A superscript letter: significantly better than that system "
                f"({TEST_LABELS[s.test]}, {family}, $p < {s.alpha:g}$; "
                f"{s.permutations:,} permutations, seed {s.seed})."
            )
            tested = self.family
            if tested is not None and tested.unreachable:
                caption += (
                    f" {tested.unreachable} of the {tested.size} tests cannot reach "
                    f"significance on these data (too few non-zero differences; smallest "
                    f"possible corrected p {tested.lowest_floor:.4g})."
                )
        if self.published is not None:
            caption += f" Published figures {latex_text(self.published.paper.provenance)}."
        return caption

    @staticmethod
    def _published_verdict(published: PublishedComparison) -> str:
        """The like-for-like verdict and the aspects that differ, for a caption."""
        verdict = published.verdict()
        differ = list(dict.fromkeys(c.aspect for c in published.checks if c.status == "differs"))
        return verdict + (f": {', '.join(differ)} differ" if differ else "")


def _pair_lines(pairs: pd.DataFrame, s, family: Family, baseline: str | None) -> list[str]:
    """The lines on the pairs table: its columns, its tests, the correction, the marks and
    their caveats, the values no test could give."""
    test = TEST_LABELS[s.test]
    if baseline is not None:
        diff = f"each run minus the baseline ({baseline})"
    else:
        diff = "the pair's first run minus its second (each later run minus each earlier one)"
    lines = [
        f"diff: {diff}, the mean of the per-query differences; "
        f"{s.confidence:.0%} CI: paired bootstrap BCa interval (bias-corrected and "
        f"accelerated, Efron 1987; {s.bootstrap:,} resamples of the queries, "
        f"seed {s.seed})",
        "d_z: standardised mean difference (mean / standard deviation of the per-query "
        "differences); W/T/L: queries where the pair's first run does better / the same / "
        "worse",
        _randomisation_line(pairs, s),
        "p(t): paired t-test (scipy); p(sign): sign test, exact binomial of wins against "
        "losses (ties dropped); " + _wilcoxon_line(pairs),
        _p_adj_line(s, family),
        f"*: p_adj < {s.alpha:g}; a letter after a mean: significantly better than that "
        f"run, in the direction of the {test}'s own statistic ({TEST_DIRECTIONS[s.test]})",
    ]
    lines += _caveats(pairs, family, test)
    for reason, count in pairs["unavailable"].dropna().value_counts().items():
        tests = "test" if count == 1 else "tests"
        lines.append(f"n/a ({count} {tests}): {reason}")
    return lines


def _randomisation_line(pairs: pd.DataFrame, s) -> str:
    """How the randomisation test drew its flips: B (raised for the family, if it was),
    the seed, and the tests whose sign vectors were all enumerated."""
    exact = int(pairs["randomisation_exact"].sum())
    rand = (
        f"p(rand): randomisation test, paired and two-sided, sign flips of the per-query "
        f"differences, {s.permutations:,} random flips (seed {s.seed}), "
        "p = (b + 1) / (B + 1)"
    )
    if s.permutations_requested is not None:
        rand += (
            f" (B raised from {s.permutations_requested:,}: the family's smallest "
            "corrected p, at its floor, must be at most alpha / 2)"
        )
    if exact:
        rand += f"; exact (all sign vectors enumerated) for {exact} of {len(pairs)} tests"
    return rand


def _wilcoxon_line(pairs: pd.DataFrame) -> str:
    methods = pairs["wilcoxon_method"].value_counts()
    exact, normal = int(methods.get("exact", 0)), int(methods.get("normal", 0))
    return (
        "p(wsr): Wilcoxon signed-rank test on the non-zero differences (zeros dropped, "
        f"ties in magnitude given mid-ranks): exact distribution for {exact} of "
        f"{len(pairs)} tests (at most {EXACT_WILCOXON_MAX} non-zero "
        f"differences), normal approximation with tie correction and no continuity "
        f"correction for {normal}"
    )


def _p_adj_line(s, family: Family) -> str:
    """What ``p_adj`` is: the chosen test's p corrected over the family, or Tukey's own."""
    if s.test == "tukey":
        return (
            "p_adj: the Tukey HSD p-value (it controls the family-wise error over "
            "the pairs of a measure; not corrected across measures)"
        )
    return (
        f"p_adj: {TEST_LABELS[s.test]} p-values, {CORRECTION_LABELS[s.correction]}-"
        f"corrected over the {family.size} tests shown{family.left_note()}"
    )


def _caveats(pairs: pd.DataFrame, family: Family, test: str) -> list[str]:
    """The legend's lines on tests that cannot come out significant, on marks whose
    direction is not the mean's, and on intervals resting on few non-zero differences."""
    lines = family_notes(
        pairs, family, test, lambda row: f"{row.measure} {row.system} - {row.baseline}"
    )
    few = int(pairs["ci_few"].sum())
    if few:
        lines.append(few_line(few, len(pairs), "differences (W + L)"))
    return lines


def _tukey_line(tukey: pd.DataFrame, s) -> str:
    """How the Tukey HSD shuffled: every shuffling, or B random ones with their seed."""
    if tukey["exact"].any():
        method = "every shuffling enumerated"
    else:
        method = f"{s.permutations:,} random shufflings (seed {s.seed}), p = (b + 1) / (B + 1)"
    return (
        "p(tukey): Sakai's randomised Tukey HSD over all runs (scores shuffled within "
        f"each query; range of the run means), {method}"
    )
