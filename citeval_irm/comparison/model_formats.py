"""The text formats of a :class:`~citeval_irm.Comparison`: the table a person reads (a
header, the means with significance letters, each pair's difference, interval, effect size,
win / tie / loss and p-values, the Tukey HSD, the legend), Markdown, LaTeX (booktabs, with a
caption that says what the table claims) and CSV."""

from __future__ import annotations

import math

from ..printing.escaping import Markup, csv_frame, latex_comment, latex_text
from ..printing.text_tables import blocks, latex_tabular, render, wrap
from ..resolving.result import LOWER_IS_BETTER
from ..scoring import percent_scale
from .family import CORRECTION_LABELS, FEW_MARK, UNREACHABLE_MARK
from .labels import P_COLUMNS, TEST_LABELS, effect, format_p, signed


class ComparisonFormats:
    """The formats a :class:`~citeval_irm.Comparison` prints in, over its fields (``names``,
    ``baseline``, ``measures``, ``pairs``, ``tukey``, ``settings``, ``family``, ``coverage``,
    ``published``, ``popularity``, ...) and its pieces (``means``, ``letters()``,
    ``beats()``, ``legend()``, ``table()``, ``label()``, ``shown()``)."""

    def _render(self, fmt: str, *, percent: bool | None = None, decimals: int | None = None) -> str:
        """``table``, ``markdown``, ``latex`` or ``csv`` (the pairs, or the means of a single
        run)."""
        percent, decimals = self.shown(percent, decimals)
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

    def _p_columns(self) -> list[str]:
        tests = ["randomisation", "t", "wilcoxon", "sign"]
        return tests + (["tukey"] if "p_tukey" in self.pairs.columns else [])

    def _pair_rows(self, percent: bool, decimals: int) -> tuple[list[str], list[list[str]]]:
        tests = self._p_columns()
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

    def _tukey_rows(self, percent: bool, decimals: int) -> list[list[str]]:
        return [
            [
                row.measure,
                f"{row.system_b} - {row.system_a}",
                signed(row.diff * percent_scale(row.measure, percent), decimals),
                format_p(row.p_tukey),
            ]
            for row in self.tukey.itertuples()
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
        if with_published:
            unit = 100.0 if self.published.paper.percent else 1.0
            for measure in self.published.figures.index:
                top = self.published.figures.loc[measure].max() / unit
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
                f"with them ({latex_text(self._published_verdict())}). "
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
            if self.family.unreachable:
                caption += (
                    f" {self.family.unreachable} of the {self.family.size} tests cannot reach "
                    f"significance on these data (too few non-zero differences; smallest "
                    f"possible corrected p {self.family.lowest_floor:.4g})."
                )
        if self.published is not None:
            caption += f" Published figures {latex_text(self.published.paper.provenance)}."
        return caption

    def _published_verdict(self) -> str:
        """The like-for-like verdict and the aspects that differ, for a caption."""
        verdict = self.published.verdict()
        differ = list(
            dict.fromkeys(c.aspect for c in self.published.checks if c.status == "differs")
        )
        return verdict + (f": {', '.join(differ)} differ" if differ else "")
