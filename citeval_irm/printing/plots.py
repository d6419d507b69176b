"""The report's plots, drawn with matplotlib into PNG bytes.

Readable in grey-scale and by colour-blind readers: runs get the Okabe-Ito colours *and* a
line style, a marker and a hatch of their own, so no plot relies on hue alone; every axis
says its unit (percent or fraction, as the protocol prints). Figures are made with
:class:`matplotlib.figure.Figure` and the Agg canvas, never pyplot, so drawing a report
touches no global state and needs no display. matplotlib is imported only here, when a
report is drawn.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .escaping import plot_text

OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
"""Okabe and Ito's colour-blind-safe palette (yellow left out: too light on white)."""
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "--")
DPI = 110


@dataclass(frozen=True)
class Unit:
    """How values are shown: ``scale`` 100 for percent, 1 for fractions."""

    percent: bool

    @property
    def scale(self) -> float:
        return 100.0 if self.percent else 1.0

    @property
    def label(self) -> str:
        return "percent" if self.percent else "fraction"

    @property
    def difference_label(self) -> str:
        return "percentage points" if self.percent else "fraction"


def run_style(i: int) -> dict:
    """The colour, line style, marker and hatch of the ``i``-th run, in every plot."""
    n = len(OKABE_ITO)
    return {
        "color": OKABE_ITO[i % n],
        "linestyle": LINE_STYLES[i % n],
        "marker": MARKERS[i % n],
        "hatch": HATCHES[i % n],
    }


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def _tidy(ax) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


def recall_curve(curves: Mapping[str, tuple[Sequence[int], Sequence[float]]], unit: Unit) -> bytes:
    """Recall@K against K (log scale) for each run; ``curves``: run -> (K, fractions)."""
    figure = _figure(8.6, 4.4)
    ax = figure.add_subplot()
    for i, (name, (ks, values)) in enumerate(curves.items()):
        style = run_style(i)
        ax.plot(
            ks,
            np.asarray(values) * unit.scale,
            label=plot_text(name),
            color=style["color"],
            linestyle=style["linestyle"],
            marker=style["marker"],
            markersize=5,
            linewidth=2,
        )
    ax.set_xscale("log")
    all_ks = sorted({k for ks, _ in curves.values() for k in ks})
    ax.set_xticks(all_ks, [str(k) for k in all_ks])
    ax.minorticks_off()
    ax.set_ylim(0, unit.scale)
    ax.set_xlabel("cut-off K (documents ranked, log scale)")
    ax.set_ylabel(f"Recall@K ({unit.label})")
    ax.set_title("Recall@K against K", loc="left")
    _tidy(ax)
    ax.grid(True, axis="x", color="#eeeeee", linewidth=0.8)
    ax.legend(title="run", frameon=False, loc="lower right")
    return _png(figure)


def _grouped_bars(
    ax, labels: Sequence[str], data: Mapping[str, Sequence[float]], scale: float
) -> None:
    """One bar per run (``data``: run -> values in ``labels``' order, times ``scale``) in
    each group of ``labels``, each run in its own colour and hatch."""
    width = 0.8 / max(len(data), 1)
    x = np.arange(len(labels))
    for i, (name, values) in enumerate(data.items()):
        style = run_style(i)
        ax.bar(
            x + (i - (len(data) - 1) / 2) * width,
            np.asarray(values, dtype=float) * scale,
            width,
            label=plot_text(name),
            color=style["color"],
            hatch=style["hatch"],
            edgecolor="white" if not style["hatch"] else "#222222",
            linewidth=0.6,
        )
    ax.set_xticks(x, labels)


def first_rank_distribution(
    labels: Sequence[str], counts: Mapping[str, Sequence[int]], total: int
) -> bytes:
    """For each run, how many queries have their first relevant paper in each rank bin
    (``labels``; the last bin: none retrieved); grouped bars, a hatch per run."""
    figure = _figure(8.6, 4.2)
    ax = figure.add_subplot()
    _grouped_bars(ax, labels, counts, 1.0)
    ax.set_xlabel("rank of the first relevant paper (rank bins; last: none retrieved)")
    ax.set_ylabel(f"queries (count, of {total:,})")
    ax.set_title("Where the first relevant paper is ranked", loc="left")
    _tidy(ax)
    ax.legend(title="run", frameon=False)
    return _png(figure)


def sorted_differences(panels: Sequence[tuple[str, np.ndarray]], measure: str, unit: Unit) -> bytes:
    """Who wins where: per pair, the per-query differences of ``measure`` sorted, gains
    above zero (solid) and losses below (hatched), with the mean as a dashed line."""
    figure = _figure(8.6, 2.9 * len(panels) + 0.4)
    axes = figure.subplots(len(panels), 1, squeeze=False, sharey=True)[:, 0]
    better, worse = run_style(0), run_style(1)
    for ax, (title, diffs) in zip(axes, panels):
        values = np.sort(np.asarray(diffs, dtype=float))[::-1] * unit.scale
        x = np.arange(1, len(values) + 1)
        ax.fill_between(
            x,
            values,
            0,
            where=values > 0,
            step="mid",
            color=better["color"],
            linewidth=0,
            label=f"better: {int((values > 0).sum()):,} queries",
        )
        ax.fill_between(
            x,
            values,
            0,
            where=values < 0,
            step="mid",
            facecolor="white",
            edgecolor=worse["color"],
            hatch="////",
            linewidth=0.8,
            label=f"worse: {int((values < 0).sum()):,} queries",
        )
        mean = float(values.mean()) if len(values) else 0.0
        ax.axhline(0, color="#222222", linewidth=0.8)
        ax.axhline(mean, color="#222222", linestyle="--", linewidth=1.2, label=f"mean {mean:+.2f}")
        ties = int((values == 0).sum())
        ax.set_title(plot_text(f"{title}  (equal on {ties:,} queries)"), loc="left")
        ax.set_xlim(0.5, len(values) + 0.5)
        ax.set_ylabel(f"difference in {plot_text(measure)}\n({unit.difference_label})")
        _tidy(ax)
        ax.legend(frameon=False, loc="upper right", fontsize=9)
    axes[-1].set_xlabel("queries, sorted by the difference (largest gain first)")
    return _png(figure)


def tie_ranges(
    ranges: Mapping[str, Mapping[str, tuple[float, float, float, float]]],
    measures: Sequence[str],
    unit: Unit,
) -> bytes:
    """Per measure and run, the range of the mean over every order of tied scores (worst
    to best, a bar), its expectation (a marker), relative to trec_eval's value (zero)."""
    figure = _figure(8.6, 4.4)
    ax = figure.add_subplot()
    x = np.arange(len(measures))
    width = 0.8 / max(len(ranges), 1)
    handles, low, high = [], 0.0, 0.0
    for i, (name, by_measure) in enumerate(ranges.items()):
        style = run_style(i)
        offset = x + (i - (len(ranges) - 1) / 2) * width
        rows = np.array([by_measure[m] for m in measures], dtype=float) * unit.scale
        value, worst, expected, best = rows.T
        low, high = min(low, (worst - value).min()), max(high, (best - value).max())
        bars = ax.bar(
            offset,
            best - worst,
            width * 0.85,
            bottom=worst - value,
            color=style["color"],
            alpha=0.55,
            hatch=style["hatch"],
            edgecolor=style["color"],
            label=plot_text(f"{name}: worst to best"),
        )
        (marks,) = ax.plot(
            offset,
            expected - value,
            linestyle="none",
            marker=style["marker"],
            markersize=6,
            markerfacecolor="white",
            markeredgecolor="#111111",
            label=plot_text(f"{name}: expected (random order)"),
        )
        handles += [bars, marks]
    zero = ax.axhline(0, color="#222222", linewidth=1, label="reported value (the tie policy's)")
    margin = 0.08 * (high - low) or 0.01 * unit.scale
    ax.set_ylim(low - margin, high + margin)
    ax.set_xticks(x, measures, rotation=30 if len(measures) > 6 else 0)
    ax.set_xlabel("measure")
    ax.set_ylabel(f"value over all tie orders minus\nthe reported value ({unit.difference_label})")
    ax.set_title("How much of each score is the order of tied scores", loc="left")
    _tidy(ax)
    ax.legend(handles=[*handles, zero], frameon=False, fontsize=9, loc="best")
    return _png(figure)


def group_means(
    labels: Sequence[str],
    data: Mapping[str, Mapping[str, Sequence[float]]],
    measure: str,
    facet: str,
    unit: Unit,
) -> bytes:
    """A measure's mean per group of queries (``labels``, in the facet's order) for each
    run, with its interval as error bars; ``data``: run -> mean / low / high."""
    figure = _figure(8.6, 4.2)
    ax = figure.add_subplot()
    x = np.arange(len(labels))
    for i, (name, values) in enumerate(data.items()):
        style = run_style(i)
        mean = np.asarray(values["mean"]) * unit.scale
        errors = [
            mean - np.asarray(values["low"]) * unit.scale,
            np.asarray(values["high"]) * unit.scale - mean,
        ]
        ax.errorbar(
            x + (i - (len(data) - 1) / 2) * 0.08,
            mean,
            yerr=np.maximum(errors, 0),
            label=name,
            color=style["color"],
            linestyle=style["linestyle"],
            marker=style["marker"],
            markersize=5,
            linewidth=2,
            capsize=3,
        )
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 4 else 0)
    ax.set_xlabel(f"{facet} group")
    ax.set_ylabel(f"{measure} ({unit.label})")
    ax.set_title(f"{measure} by {facet}", loc="left")
    _tidy(ax)
    ax.legend(title="run", frameon=False)
    return _png(figure)


def system_scores(
    measures: Sequence[str], data: Mapping[str, Sequence[float]], dataset: str, unit: Unit
) -> bytes:
    """Each system's value of each measure on one dataset: grouped bars, a hatch per
    system; ``data``: system -> values (fractions) in ``measures``' order."""
    figure = _figure(8.6, 4.2)
    ax = figure.add_subplot()
    _grouped_bars(ax, measures, data, unit.scale)
    ax.set_ylabel(f"value ({unit.label})")
    ax.set_title(dataset, loc="left")
    _tidy(ax)
    ax.legend(title="system", frameon=False)
    return _png(figure)
