"""What a results table's cell says beside its value: its status (no run, a run that breaks
the protocol, one flagged as a possible oracle first stage), its marks (significantly better
or worse than the baseline, broken, flagged; in LaTeX too), bold for the best own system of
a column, and the legend that says what each mark means."""

from __future__ import annotations

import pandas as pd

from ..printing.escaping import Markup
from ..printing.text_tables import number
from ..resolving.result import LOWER_IS_BETTER, RATES
from .family import Family, family_notes
from .labels import TEST_DIRECTIONS, TEST_LABELS
from .resolutions import rate_legend

OK, MISSING, VIOLATION, FLAGGED = "ok", "missing", "violation", "flagged"
# significance against the baseline; protocol broken; gold possibly inserted (a warning)
BETTER, WORSE, BROKEN, ORACLE, IMPOSSIBLE = "▲", "▼", "†", "‡", "§"
ORACLE_MEANS = (
    "the run holds the gold paper in nearly every ranking that could miss it (validate's "
    "gold_always_present: an oracle first stage?)"
)  # what ORACLE stands for, in every table that shows a flagged run
LATEX_MARKS = {
    BETTER: r"$^{\uparrow}$",
    WORSE: r"$^{\downarrow}$",
    BROKEN: r"$^{\dagger}$",
    ORACLE: r"$^{\ddagger}$",
    IMPOSSIBLE: r"$^{\S}$",
}


def cell_status(result, validation) -> str:
    """A cell's status: no run, a run that breaks the protocol, one that obeys it but is
    flagged by ``gold_always_present`` (a warning: its values may come from an oracle first
    stage), or one that obeys it."""
    if result is None:
        return MISSING
    if not validation.passed:
        return VIOLATION
    return FLAGGED if validation.oracle_warning is not None else OK


def cell_text(cell, scale: float, decimals: int, bold: bool, latex: bool, measure: str = "") -> str:
    """A cell as printed (``cell``: its row of the table's values, ``None`` for no run):
    the value, bold or (published) italic in LaTeX, then its marks."""
    if cell is None or pd.isna(cell["value"]):
        return "--" if latex else "-"
    text = number(cell["value"] * scale, decimals)
    marks = ""
    marks += {VIOLATION: BROKEN, FLAGGED: ORACLE}.get(cell["status"], "")
    marks += IMPOSSIBLE if isinstance(cell.get("impossible"), str) and cell["impossible"] else ""
    significant = cell.get("significant")
    if not pd.isna(significant) and bool(significant):  # NaN: not tested
        better = cell["direction"] > 0  # the test's own direction; lower is better for
        better = not better if measure in LOWER_IS_BETTER else better  # duplicate_rate
        marks += BETTER if better else WORSE
    if latex:
        text = f"\\textbf{{{text}}}" if bold else text
        text = f"\\textit{{{text}}}" if cell["status"] == "published" else text
        return text + "".join(LATEX_MARKS[m] for m in marks)
    return Markup(f"**{text}**{marks}") if bold else text + marks  # marks: ▲ ▼ † ‡


def best_systems(values: pd.DataFrame) -> dict[tuple[str, str], str]:
    """The best own system per (dataset, measure): obeying the protocol and not flagged
    by ``gold_always_present``, never a published row; none where two tie."""
    ours = values[(values["status"] == OK) & values["value"].notna()]
    best = {}
    for (dataset, measure), group in ours.groupby(["dataset", "measure"], sort=False):
        low = measure in LOWER_IS_BETTER
        top = group[group["value"] == (group["value"].min() if low else group["value"].max())]
        if len(top) == 1 and len(group) > 1:
            best[dataset, measure] = top["system"].iloc[0]
    return best


def table_legend(table) -> list[str]:
    """What a results table's values and marks mean (``table``: a ``ResultsTable``), then
    its notes."""
    scale = "percent" if table.percent else "fraction"
    lines = [
        f"values: {scale}, trec_eval semantics; best own system per column in bold "
        "(Markdown, LaTeX)"
    ]
    family = table.family
    if table.baseline is not None and family is not None and family.size + family.left_out > 0:
        lines += _test_lines(
            table.values,
            table.baseline,
            table.test,
            table.correction,
            table.alpha,
            family,
            table.settings,
        )
    statuses = table.values["status"]
    if (statuses == VIOLATION).any():
        lines.append(f"{BROKEN}: the run breaks the dataset's protocol: not compared, not bold")
    if (statuses == FLAGGED).any():
        lines.append(f"{ORACLE}: {ORACLE_MEANS}: compared, not bold")
    if "impossible" in table.values:
        found = table.values[table.values["impossible"].fillna("").astype(bool)]
        for (system, dataset), why in found.groupby(["system", "dataset"], sort=False):
            lines.append(
                f"{IMPOSSIBLE}: the published row of {system} on {dataset} is "
                f"impossible as printed: {why['impossible'].iloc[0]}"
            )
    if (statuses == MISSING).any():
        lines.append("-: no run of that system on that dataset")
    rates = [m for m in RATES if (table.values["measure"] == m).any()]
    if rates:
        lines.append(rate_legend(rates))
    return lines + table.notes


def _test_lines(
    values: pd.DataFrame,
    baseline: str,
    test: str,
    correction: str,
    alpha: float,
    family: Family,
    settings,
) -> list[str]:
    """The legend's lines on the significance marks: the test, its direction, the
    correction over the table, and the family's notes."""
    label = TEST_LABELS[test]
    lines = [
        f"{BETTER} / {WORSE}: significantly better / worse than {baseline} on that "
        f"dataset ({label} over every qrels query, in the direction of its own "
        f"statistic: {TEST_DIRECTIONS[test]}; p < {alpha} after "
        f"{correction} correction over all {family.size} tests of the "
        f"table{family.left_note()})"
    ]
    if "p" in values:
        lines += family_notes(values[values["p"].notna()], family, label, _cell_label, settings)
    return lines


def _cell_label(row) -> str:
    return f"{row.system} on {row.dataset} {row.measure}"
