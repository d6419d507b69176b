"""The text formats of a results table: text and Markdown (a column group per dataset, the
legend under it), LaTeX (booktabs, the published rows after a rule, in italics, the legend
as the caption) and CSV (its cells, tidy)."""

from __future__ import annotations

from ..printing.escaping import csv_frame, latex_label, latex_text
from ..printing.text_tables import blocks, render, wrap
from .labels import displayed
from .table_marks import LATEX_MARKS, best_systems, cell_text


class TableFormats:
    """The formats a ``ResultsTable`` prints in, over its fields (``datasets``,
    ``measures``, ``systems``, ``published_systems``, ``values``, ``percent``,
    ``decimals``) and its ``legend()``."""

    def _json(self, *, percent: bool | None = None, decimals: int | None = None) -> dict:
        return displayed(self, percent, decimals).to_dict()

    def _render(self, fmt: str, *, percent: bool | None = None, decimals: int | None = None) -> str:
        """The table in ``fmt``, in ``percent`` (default: as made, the protocol's unit)
        with ``decimals``."""
        if percent is not None or decimals is not None:
            return displayed(self, percent, decimals)._render(fmt)
        if fmt == "csv":
            return csv_frame(self.values)
        if fmt == "latex":
            return self._latex()
        bullet = "- " if fmt == "markdown" else "  "
        rows = self._cells(latex=False)
        if fmt == "markdown":
            headers = ["system"] + [f"{d} {m}" for d in self.datasets for m in self.measures[d]]
            table = render(headers, rows, "markdown")
        else:
            rows = [[cell.replace("**", "") for cell in row] for row in rows]
            groups = ["system"]
            for dataset in self.datasets:
                groups += [dataset] + [""] * (len(self.measures[dataset]) - 1)
            measures = [""] + [m for d in self.datasets for m in self.measures[d]]
            table = render(groups, [measures, *rows])
        return blocks([table] + [wrap(line, bullet, fmt) for line in self.legend()], fmt)

    def _latex(self) -> str:
        """A booktabs table: a column group per dataset (cmidrule under its name), the
        published rows after a rule, in italics; the legend as the caption."""
        widths = [len(self.measures[d]) for d in self.datasets]
        spec = "l" + "".join("r" * w for w in widths)
        groups, rules, start = ["system"], [], 2
        for dataset, width in zip(self.datasets, widths):
            groups.append(f"\\multicolumn{{{width}}}{{c}}{{{latex_text(dataset)}}}")
            rules.append(f"\\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        measures = [""] + [latex_text(m) for d in self.datasets for m in self.measures[d]]
        rows = self._cells(latex=True)
        ours, published = rows[: len(self.systems)], rows[len(self.systems) :]
        lines = [
            "\\begin{table}",
            "\\centering",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(groups) + " \\\\",
            " ".join(rules),
            " & ".join(measures) + " \\\\",
            "\\midrule",
            *(" & ".join(r) + " \\\\" for r in ours),
        ]
        if published:
            lines += ["\\midrule", *(" & ".join(r) + " \\\\" for r in published)]
        legend = latex_text("; ".join(self.legend()))  # the marks are no LaTeX specials
        for mark, latex in LATEX_MARKS.items():
            legend = legend.replace(mark, latex)
        label = latex_label("table", *self.systems, "", *self.datasets, repr(self.measures))
        lines += [
            "\\bottomrule",
            "\\end{tabular}",
            f"\\caption{{{legend}}}",
            f"\\label{{{label}}}",
            "\\end{table}",
        ]
        return "\n".join(lines) + "\n"

    def _cells(self, latex: bool) -> list[list[str]]:
        """One row of formatted cells per system (ours, then the published ones)."""
        scale = 100.0 if self.percent else 1.0
        indexed = self.values.set_index(["system", "dataset", "measure"])
        best = best_systems(self.values)
        rows = []
        for system in self.systems + self.published_systems:
            published = system in self.published_systems
            label = f"{system} (published)" if published else system
            cells = [latex_text(label) if latex else label]
            for dataset in self.datasets:
                for measure in self.measures[dataset]:
                    key = (system, dataset, measure)
                    cell = indexed.loc[key] if key in indexed.index else None
                    bold = best.get((dataset, measure)) == system
                    cells.append(cell_text(cell, scale, self.decimals, bold, latex, measure))
            rows.append(cells)
        return rows
