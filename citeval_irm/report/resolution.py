"""The report's pages on generated reference lists: what :func:`citeval_irm.resolve` made
of each list (the counts by how each reference was resolved, per run), and the resolution's
rate by the cited paper's popularity (fabrication by popularity), with its plot.

:func:`~citeval_irm.report.make_report` takes a :class:`~citeval_irm.Resolution` as a run:
its resolved run is the run (scored, validated, plotted as any), these sections say how it
was made.
"""

from __future__ import annotations

from ..base.errors import CitevalError, issue, silenced
from ..base.options import EvalOptions, ExecutionOptions, StatisticsOptions
from ..comparison.breakdown import breakdown
from ..printing.blocks import Items, Section, Text, table
from ..resolving.result import CATALOGUE_KINDS, KINDS, Resolution


def resolution_section(resolutions: dict[str, Resolution]) -> Section:
    """How each run's references were resolved: counts and shares, one column per run,
    and each resolution's legend."""
    counts = {name: r.counts() for name, r in resolutions.items()}
    kinds = [*KINDS]
    if any(r.catalogue is not None for r in resolutions.values()):
        kinds += [*CATALOGUE_KINDS]
    rows = []
    for kind in [*kinds, "duplicates"]:
        cells = [kind.replace("_", " ")]
        for found in counts.values():
            total = found["references"]
            if kind not in found:
                cells.append("-")
                continue
            share = f" ({100.0 * found[kind] / total:.1f} %)" if total else ""
            cells.append(f"{found[kind]:,}{share}")
        rows.append(cells)
    rows.append(["references", *(f"{c['references']:,}" for c in counts.values())])
    rows.append(
        ["lists (empty)", *(f"{c['queries']:,} ({c['empty_lists']:,})" for c in counts.values())]
    )
    section = Section("resolution", "Resolution of the generated lists")
    sources = "; ".join(
        f"{name}: {r.source} against {r.dataset}, fuzzy threshold {r.threshold:g}"
        for name, r in resolutions.items()
    )
    section.add(
        Text(
            f"Each generated reference matched to the dataset's papers by "
            f"identifier, normalised title, then fuzzily ({sources})."
        ),
        table(
            "resolution",
            ["how", *resolutions],
            rows,
            left=1,
            caption="References by how they were resolved",
        ),
    )
    for name, resolution in resolutions.items():
        prefix = f"{name}: " if len(resolutions) > 1 else ""
        section.add(Items(tuple(prefix + line for line in resolution.legend())))
    return section


def popularity_rate_section(
    resolutions: dict[str, Resolution],
    dataset: str,
    given: tuple[EvalOptions, ExecutionOptions],
    statistics: StatisticsOptions,
    *,
    percent: bool | None = None,
    decimals: int | None = None,
) -> Section:
    """The resolution rate (``existence_rate`` when every resolution had a catalogue, else
    ``in_pool_rate``) by the cited paper's popularity, per run, with the plot, in ``percent``
    with ``decimals``; a text saying why when the dataset cannot tell popularity.
    ``given``: the options and the execution options."""
    every = all("existence_rate" in r.rates for r in resolutions.values())
    rate = "existence_rate" if every else "in_pool_rate"
    options, execution = given
    try:
        with silenced():
            found = breakdown(
                resolutions,
                dataset,
                rate,
                by="popularity",
                options=options,
                execution=execution,
                statistics=statistics,
            )
    except CitevalError as exc:
        section = Section("resolution-popularity", f"{rate} by popularity")
        return section.add(Text(f"No breakdown by popularity: {exc}"))
    issue(w for w in found.warnings if w.code == "queries_without_value")
    meaning = (
        "existence_rate: the share of a list's references that name a real paper (in "
        "the pool or in the catalogue): 1 - the fabrication rate"
        if rate == "existence_rate"
        else "in_pool_rate: the share of a list's references "
        "that name a paper of the pool (give a catalogue to tell fabricated references "
        "from real papers outside it)"
    )
    return found.section("resolution-popularity", (meaning,), percent=percent, decimals=decimals)
