"""``Resolution``: what :func:`~citeval_irm.resolving.resolve.resolve` found, per reference,
per query and overall, with the resolved run's field measures beside the resolution's own.

Per query (``per_query``, one row per query the evaluation counts: every qrels query):
the counts ``references``, ``id``, ``exact``, ``fuzzy``, ``ambiguous``, ``conflict``,
``unmatched``, ``duplicates``, ``empty`` (and with a catalogue ``outside_pool``,
``nowhere``), the rates ``in_pool_rate`` (references naming a paper of the pool, ambiguous
and conflicting ones included), ``existence_rate`` (with a catalogue: all but those found
nowhere) and ``duplicate_rate`` (each over the list's references but the empty ones; no
value for a query with none), then the field's measures of the resolved run. It reads like an
:class:`~citeval_irm.EvalResult` (``per_query``, ``aggregate``, ``measures``), so
:func:`citeval_irm.breakdown` takes it as it is: ``breakdown(resolution, dataset,
"popularity", "existence_rate")`` is fabrication by the cited paper's popularity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning, InputError, examples_of
from ..printing.escaping import csv_frame
from ..printing.printable import Printable
from ..printing.text_tables import blocks, number, render, wrap
from . import REPORT_SUFFIXES

if TYPE_CHECKING:
    from ..evaluation.results import EvalResult

KINDS = ("id", "exact", "fuzzy", "ambiguous", "conflict", "near_miss", "unmatched")
"""How a reference was resolved, in the order tried (ambiguous: several papers remain;
conflict: its identifier names one paper, its title another; near_miss: a real title
within the stated looser distance, :mod:`~citeval_irm.resolving.near`)."""
MATCHED = ("id", "exact", "fuzzy")
"""The kinds that put a paper in the run."""
IN_POOL = ("id", "exact", "fuzzy", "ambiguous", "conflict")
"""The kinds that name a paper of the pool (not all of them one paper)."""
CATALOGUE_KINDS = ("outside_pool", "nowhere")
"""What an unmatched reference is with a catalogue: a real paper outside the pool, or
found nowhere."""
STATUSES = ("in_pool", "near_miss", "outside_pool", "nowhere", "unknown", "empty")
"""A reference's status (the decisions' ``catalogue`` column): in the pool, a near miss of
a real title (the pool's or the catalogue's: counted apart, not as fabricated), outside the
pool (the catalogue knows it), nowhere (neither: the fabrication rate counts these),
unknown (unmatched, no catalogue given), empty (no title, text or identifier: nothing to
look up, counted apart and in no rate)."""
RATES = ("in_pool_rate", "existence_rate", "duplicate_rate")
LOWER_IS_BETTER = ("duplicate_rate",)
"""The rates a system does better by keeping low: a significance mark (a letter, a table's
arrow) points to the lower one."""


def resolution_measures(
    decisions: pd.DataFrame, lists: dict, catalogue: bool, evaluation, dataset: str
) -> pd.DataFrame:
    """The per-query table (see the module docstring)."""
    queries = pd.Index(list(lists), name="query_id")
    counts = pd.crosstab(decisions["query_id"], decisions["how"]) if len(decisions) else None
    table = pd.DataFrame(index=queries)
    table["references"] = [len(lists[q]) for q in queries]
    for kind in KINDS:
        column = counts[kind] if counts is not None and kind in counts else None
        table[kind] = column.reindex(queries, fill_value=0) if column is not None else 0
    by_query = decisions.groupby("query_id", sort=False)
    table["duplicates"] = by_query["duplicate"].sum().reindex(queries, fill_value=0)
    for kind in (*CATALOGUE_KINDS, "empty") if catalogue else ("empty",):
        table[kind] = (decisions["catalogue"] == kind).groupby(decisions["query_id"]).sum()
        table[kind] = table[kind].reindex(queries, fill_value=0)
    table = table.fillna(0).astype(np.int64)
    named = table["references"] - table["empty"]
    size = named.where(named > 0)
    table["in_pool_rate"] = table[list(IN_POOL)].sum(axis=1) / size
    if catalogue:
        table["existence_rate"] = (named - table["nowhere"]) / size
    table["duplicate_rate"] = table["duplicates"] / size
    if evaluation is not None:
        population = evaluation.per_query.index
    else:
        from ..reading.io import read_qrels

        population = pd.Index(pd.unique(read_qrels(dataset).frame["query_id"]), name="query_id")
    counted = table.reindex(population)
    count_columns = [c for c in table.columns if c not in RATES]
    counted[count_columns] = counted[count_columns].fillna(0).astype(np.int64)
    if evaluation is not None:
        counted = counted.join(evaluation.per_query)
    counted.index.name = "query_id"
    return counted


@dataclass
class Resolution(Printable):
    """What :func:`~citeval_irm.resolving.resolve.resolve` found.

    ``decisions``: one row per reference (``query_id``, ``position``, ``reference``,
    ``how``, ``doc_id``, ``candidates``, ``score``, ``duplicate``, ``catalogue``);
    ``per_query``: the counts, rates and field measures per query (module docstring);
    ``evaluation``: the resolved run's :class:`~citeval_irm.EvalResult` (``None`` when the
    run is empty); ``run``: the resolved :class:`~citeval_irm.Run` (write it with
    :func:`citeval_irm.write_run`).
    """

    dataset: str
    source: str
    catalogue: str | None
    threshold: float
    listed: int
    decisions: pd.DataFrame = field(repr=False)
    per_query: pd.DataFrame = field(repr=False)
    evaluation: EvalResult | None = field(default=None, repr=False)
    run: object = field(default=None, repr=False)
    warnings: list[EvalWarning] = field(default_factory=list, repr=False)

    FORMATS = ("table", "markdown", "json", "csv")

    # ------------------------------------------------------------ what breakdown reads
    @property
    def rates(self) -> list[str]:
        return [r for r in RATES if r in self.per_query.columns]

    @property
    def measures(self) -> list[str]:
        """The resolution's rates, then the field's measures of the run."""
        return self.rates + (self.evaluation.names if self.evaluation is not None else [])

    @property
    def aggregate(self) -> pd.Series:
        """Each rate's mean over the queries with references, each field measure's
        aggregate (as :func:`~citeval_irm.evaluate` gives it)."""
        values = {r: float(self.per_query[r].mean()) for r in self.rates}
        if self.evaluation is not None:
            values.update(self.evaluation.aggregate.to_dict())
        return pd.Series(values, name="value", dtype=float)

    @property
    def protocol(self):
        return self.evaluation.protocol if self.evaluation is not None else None

    @property
    def run_source(self) -> str:
        """The run's name: the generated file's stem (``generated`` for
        ``generated.jsonl``)."""
        return Path(self.source).stem if not self.source.startswith("<") else "resolved"

    # ------------------------------------------------------------ counts
    def counts(self) -> dict[str, int]:
        """Overall counts: queries, lists with no reference, references, each kind,
        duplicates, with a catalogue outside_pool and nowhere, and the empty references."""
        how = self.decisions["how"].value_counts()
        lists = self.decisions.groupby("query_id").size()
        out = {
            "queries": self.listed,
            "empty_lists": self.listed - len(lists),
            "references": len(self.decisions),
        }
        out.update({kind: int(how.get(kind, 0)) for kind in KINDS})
        out["duplicates"] = int(self.decisions["duplicate"].sum())
        status = self.decisions["catalogue"].value_counts()
        if self.catalogue is not None:
            out.update({kind: int(status.get(kind, 0)) for kind in CATALOGUE_KINDS})
        out["empty"] = int(status.get("empty", 0))
        return out

    def __repr__(self) -> str:
        counts = self.counts()
        shown = ", ".join(f"{k}={v}" for k, v in counts.items() if k != "empty_lists")
        return f"Resolution(dataset={self.dataset!r}, {shown}, threshold={self.threshold:g})"

    def to_frame(self) -> pd.DataFrame:
        """The per-query table (counts, rates, field measures), ``query_id`` the index."""
        return self.per_query.copy()

    def ambiguous(self) -> pd.DataFrame:
        """The ambiguous references and the papers each could be."""
        return self.decisions[self.decisions["how"] == "ambiguous"]

    # ------------------------------------------------------------ formats
    def to_dict(self) -> dict:
        decisions = self.decisions.assign(
            candidates=[c.split() for c in self.decisions["candidates"]]
        )
        return {
            "dataset": self.dataset,
            "generated": self.source,
            "catalogue": self.catalogue,
            "threshold": self.threshold,
            "counts": self.counts(),
            "aggregate": self.aggregate.to_dict(),
            "per_query": self.per_query.reset_index().to_dict(orient="records"),
            "decisions": decisions.to_dict(orient="records"),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(self, fmt: str, **options) -> str:
        if fmt == "csv":
            return csv_frame(self.per_query.reset_index())
        counts = self.counts()
        total = counts["references"]
        share = lambda n: f"{100.0 * n / total:.1f} %" if total else "-"  # noqa: E731
        rows = [[kind, f"{counts[kind]:,}", share(counts[kind])] for kind in KINDS]
        if self.catalogue is not None:
            rows += [
                [f"  {kind.replace('_', ' ')}", f"{counts[kind]:,}", share(counts[kind])]
                for kind in CATALOGUE_KINDS
            ]
        if counts["empty"]:
            rows.append(["  empty", f"{counts['empty']:,}", share(counts["empty"])])
        rows.append(["duplicates", f"{counts['duplicates']:,}", share(counts["duplicates"])])
        lines = [
            wrap(
                f"resolution of {self.source} against {self.dataset}: {total:,} references "
                f"in {counts['queries']:,} lists ({counts['empty_lists']:,} empty); fuzzy "
                f"threshold {self.threshold:g} (fuzz.ratio of normalised titles)",
                "",
                fmt,
            ),
            render(["how", "references", "share"], rows, fmt, left=1),
        ]
        lines += [wrap(line, "- " if fmt == "markdown" else "  ", fmt) for line in self.legend()]
        return blocks(lines, fmt)

    def legend(self) -> list[str]:
        """The lines under the counts: what unmatched means here, the rates, the measures,
        the ambiguous references."""
        lines = [
            "id / exact / fuzzy: matched by an identifier, the normalised title, or "
            "fuzzily (the whole title, or its main part or subtitle for the whole); "
            "ambiguous: several papers remain; conflict: the identifier names one paper, "
            "the title clearly another (both named, neither in the run, counted); "
            "duplicates: a paper named again in the same list (dropped from the "
            "run)"
        ]
        counts = self.counts()
        named = counts["references"] - counts["empty"]
        if counts["empty"]:
            lines.append(
                "empty: a reference with no title, text or identifier: nothing to "
                "look up; counted here, in no rate"
            )
        lines.append(
            "near_miss: a real title (of the pool or the catalogue) within a looser, "
            "stated distance (fuzz.ratio 85 or more, one word away, its first words, "
            "or a part of it too plain to name it): counted apart, neither in the run "
            "nor as fabricated (candidates: the title's paper)"
        )
        if self.catalogue is None:
            lines.append(
                "unmatched: no catalogue given, so a real paper outside the pool cannot be "
                "told from a fabricated one (give --catalogue FILE)"
            )
        else:
            share = lambda n: f"{100 * n / named:.1f} %" if named else "-"  # noqa: E731
            lines.append(
                f"unmatched, by the catalogue {self.catalogue}: outside pool = a "
                "paper it knows, nowhere = found in neither; the fabrication rate "
                f"(found nowhere) is {share(counts['nowhere'])} of the references, "
                f"with {share(counts['near_miss'])} near misses beside it: what each "
                "share holds on real titles is measured in the resolve guide"
            )
        aggregate = self.aggregate
        with_values = int(self.per_query["references"].gt(0).sum())
        lines.append(
            f"mean per query (the {with_values:,} counted queries with references): "
            + ", ".join(f"{r} {number(100 * aggregate[r], 1)} %" for r in self.rates)
        )
        if self.evaluation is not None:
            result = self.evaluation
            percent = result.default_percent()
            decimals, scales = result.decimals(percent), result.scales(percent)
            name = result.protocol.name if result.protocol else "the measures given"
            values = ", ".join(
                f"{m} {number(aggregate[m] * scales[m], decimals)}" for m in result.names
            )
            lines.append(
                f"the resolved run, evaluated with {name} over every qrels query "
                f"({'percent' if percent else 'fractions'}): {values}" + short_lists(result)
            )
        for kind in ("ambiguous", "conflict"):
            listed = self.decisions[self.decisions["how"] == kind]
            for _, row in listed.head(5).iterrows():
                lines.append(
                    f"{kind}: {row['query_id']} #{row['position']} "
                    f"{row['reference']!r}: {row['candidates']}"
                )
            if len(listed) > 5:
                lines.append(f"... {len(listed) - 5:,} more {kind} references (decisions)")
        return lines

    def write_report(self, path, *, force: bool = True) -> Path:
        """The report as a file, by suffix (:data:`REPORT_SUFFIXES`: ``.json``, ``.csv``,
        ``.txt``), written atomically; the page (``.html``, ``.md``) is
        ``citeval_irm.make_report({name: resolution}, dataset).write(path)``."""
        from ..base.outputs import atomic_output

        read = {"the generated lists": self.source, "the catalogue": self.catalogue}
        check_outputs({"the report": path}, read)
        kind = report_kind(path, force=force)
        if kind == "page":
            raise InputError(
                str(path),
                "the page report is made by citeval_irm.make_report("
                "{name: resolution}, dataset).write(path)",
            )
        text = csv_frame(self.decisions) if kind == "decisions" else self.format(kind)
        with atomic_output(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
        return Path(path)


def short_lists(evaluation) -> str:
    """What the field's measures of a resolved run mean for lists shorter than their
    cut-offs, said once where the lists are resolved (generated lists are short by design:
    ``evaluate``'s ``short_ranking`` warning, which the evaluation keeps, is not issued
    again); empty when no list is shorter than a cut-off."""
    short = [w for w in evaluation.warnings if w.code == "short_ranking"]
    if not short or evaluation.ranked is None or not len(evaluation.ranked.sizes):
        return ""
    low, high = int(evaluation.ranked.sizes.min()), int(evaluation.ranked.sizes.max())
    lengths = f"{low}" if low == high else f"{low} to {high}"
    return (
        f"; the resolved lists hold {lengths} papers: a cut-off beyond a list counts only its "
        f"papers (short_ranking: {short[0].count:,} lists shorter than the deepest cut-off)"
    )


def check_outputs(outputs: dict, inputs: dict) -> None:
    """An error unless every output path (``{what: path or None}``) is its own: two outputs
    on one path leave only the last written, and an output on an input replaces what the
    command read, which ``--force`` never allows (it replaces a previous output). Paths are
    compared as the file system resolves them (links, ``./``, hard links)."""
    given = {what: path for what, path in outputs.items() if _a_file(path)}
    read = {what: path for what, path in inputs.items() if _a_file(path)}
    named = list(given.items())
    for at, (what, path) in enumerate(named):
        for other, other_path in named[at + 1 :]:
            if _same_file(path, other_path):
                raise InputError(
                    str(path), f"is both {what} and {other}: give each output a path of its own"
                )
        for source, source_path in read.items():
            if _same_file(path, source_path):
                raise InputError(
                    str(path),
                    f"is {source}, which this command reads: --force "
                    "replaces a previous output, never an input: give another "
                    f"path for {what}",
                )


def _a_file(path) -> bool:
    return path is not None and not str(path).startswith("<") and str(path) != "-"


def _same_file(one, other) -> bool:
    import os

    if os.path.realpath(one) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist (yet)
        return False


def report_kind(path, *, force: bool = True) -> str:
    """What a report path writes (its suffix), checked before any work."""
    from ..base.outputs import check_output

    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_SUFFIXES:
        raise InputError(
            str(path),
            "a resolution report is written as .html or .md (the "
            "page), .json, .csv (a row a reference) or .txt: name it so",
        )
    check_output(path, force=force)
    return REPORT_SUFFIXES[suffix]


def decision_warnings(decisions: pd.DataFrame) -> list[EvalWarning]:
    """The counted warnings of the decisions: identifiers and titles that disagree, and
    references with nothing to look up."""
    found = []
    for code, chosen, message in (
        (
            "id_title_conflicts",
            decisions["how"] == "conflict",
            "references whose identifier "
            "names one paper and whose title clearly another: both named (candidates), neither "
            "in the run",
        ),
        (
            "empty_references",
            decisions["catalogue"] == "empty",
            "references with no title, "
            "text or identifier: nothing to look up, counted apart and in no rate",
        ),
    ):
        rows = decisions[chosen]
        if len(rows):
            where = [f"{q} #{p}" for q, p in zip(rows["query_id"], rows["position"])]
            found.append(EvalWarning(code, message, len(rows), examples_of(where), "references"))
    return found


def outside_population(lists: dict, population) -> EvalWarning | None:
    """Listed queries the evaluation does not count (not qrels queries)."""
    outside = [q for q in lists if q not in population]
    if not outside:
        return None
    return EvalWarning(
        "queries_not_in_dataset",
        "queries of the generated lists that the "
        "dataset's qrels do not hold: resolved and counted in the totals, not "
        "per query",
        len(outside),
        examples_of(outside),
        "queries",
    )
