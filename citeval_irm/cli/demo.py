"""``citeval demo``: the whole job on the shipped demo benchmark, with no download.

Loads ``citeval/demo/test`` (a GENERATED corpus inside the package), ranks it with the BM25
baseline under the temporal protocol, evaluates the run with the ``goyal2026`` protocol,
validates it against the protocol, cross-checks it against the paper's recipe, and compares
it with a weaker baseline (BM25 over titles only), so the report (:meth:`DemoReport.report`)
has two systems to set side by side. Each step is the public function a user would call;
:func:`run_demo` only strings them together.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import InputError
from ..base.options import ExecutionOptions
from ..base.outputs import check_output
from ..checks.crosscheck import CrosscheckReport, crosscheck
from ..checks.protocol import ValidationReport, validate
from ..comparison.compare import compare, run_name
from ..comparison.model import Comparison
from ..evaluation.evaluate import evaluate
from ..evaluation.results import EvalResult
from ..papers.baseline import DEFAULT_K, bm25_run, ties_note
from ..printing.text_tables import text_width, wrap
from ..reading.io import as_dataset, write_run
from ..reading.tables import Run

DEMO_DATASET = "citeval/demo/test"
TITLES_RUN = "titles"  # the weaker baseline the demo compares with: BM25 over titles only


@dataclass
class DemoReport:
    """Everything :func:`run_demo` made: the runs and the four reports."""

    dataset: str
    description: str
    run: Run
    evaluation: EvalResult
    validation: ValidationReport
    crosscheck: CrosscheckReport
    settings: str
    k: int
    seconds: float
    run_path: Path | None = None
    titles: Run | None = None
    comparison: Comparison | None = None
    temporal: bool = True
    same_year: bool = True
    protocol: str = "goyal2026"

    def commands(self, report: str | Path | None = "report.html") -> list[str]:
        """The same steps one by one, with the options this demo used (``report``: where
        its report went, ``None`` for none)."""
        dataset, protocol = self.dataset, self.protocol
        run = shlex.quote(str(self.run_path)) if self.run_path else "bm25.trec"
        # --force: the steps can be run where the demo ran (its files are there), and again
        to_report = f" --report {shlex.quote(str(report))} --force" if report else ""
        years = "" if self.same_year else " --no-same-year"
        temporal = "" if self.temporal else " --no-temporal"
        return [
            f"citeval baseline bm25 --dataset {dataset} -k {self.k}{temporal}{years} -o {run} "
            "--force",
            f"citeval eval {run} --dataset {dataset} --protocol {protocol}{years}",
            f"citeval validate {run} --dataset {dataset} --protocol {protocol}{years}",
            f"citeval crosscheck {run} --dataset {dataset} --protocol {protocol}",
        ] + (
            [
                f"citeval baseline bm25 --dataset {dataset} -k {self.k}{temporal}{years} "
                "--fields title -o titles.trec --force",
                f"citeval compare {run} titles.trec --dataset {dataset} --protocol {protocol}"
                f"{years} --baseline {run_name(run)}{to_report}",
            ]
            if self.comparison is not None
            else []
        )

    def format(self, report: str | Path | None = "report.html") -> str:
        """The three tables with a line on what produced them, for a terminal; the
        evaluation's warnings under it, as ``citeval eval`` prints them; the steps one by
        one (``report``: where the report goes)."""
        queries = self.run.num_queries
        saved = f"; written to {self.run_path}" if self.run_path else ""
        if self.temporal:
            other = "`citeval demo --no-temporal` shows validation catching papers from the future."
        else:
            other = "without --no-temporal, the run ranks only what the protocol allows."
        warnings = "".join(
            wrap(line) + "\n" for line in self.evaluation.warnings_text().splitlines()
        )
        sections = [
            wrap(f"citeval demo on {self.dataset}: {self.description}"),
            wrap(
                f"1. run: BM25 ({self.settings}): {len(self.run):,} lines for {queries:,} "
                f"queries{saved}" + (f"; {ties}" if (ties := ties_note(self.run)) else "")
            ),
            "2. evaluation\n" + _heading_wrapped(self.evaluation.format("table")) + warnings,
            "3. protocol validation\n" + _heading_wrapped(self.validation.format("table")),
            "4. cross-check\n" + self.crosscheck.format("table", max_rows=5),
        ]
        if self.comparison is not None:
            sections.append(
                "5. comparison with BM25 over titles only\n"
                + self.comparison.format("table").split("\nlegend:")[0]
                + "\n"
                + wrap(
                    "(how each column is computed: the legend of `citeval compare`; the report)",
                    "  ",
                )
            )
        sections.append(
            wrap(
                f"ranked, evaluated, checked and compared in {self.seconds:.1f} s (start-up and "
                "the report not counted)."
            )
            + "\nThe same steps one by one:\n"
            + "".join(shell_lines(command, "  ") for command in self.commands(report))
            + wrap(f"and {other}")
        )
        return "\n\n".join(s.rstrip("\n") for s in sections) + "\n"

    def __str__(self) -> str:
        return self.format()

    def report(self, command: str | None = None):
        """The demo as a :class:`~citeval_irm.report.Report` (scores, comparison, checks,
        plots), from the objects already computed."""
        from ..report import Computed, make_report

        runs = {"bm25": self.run}
        if self.titles is not None:
            runs[TITLES_RUN] = self.titles
        report = make_report(
            runs,
            self.dataset,
            protocol=self.evaluation.protocol,
            computed=Computed(
                evaluations={"bm25": self.evaluation},
                comparison=self.comparison,
                crosschecks={"bm25": self.crosscheck},
                validations={"bm25": self.validation},
            ),
            same_year=self.same_year,
            descriptions={
                "bm25": self.settings,
                TITLES_RUN: self.settings.replace("title + abstract", "titles only"),
            },
        )
        report.title = f"citeval demo: BM25 on {self.dataset}"
        report.command = command
        return report


def _heading_wrapped(table: str) -> str:
    """A result's table with its first line, the heading (which names the run, the qrels
    and the settings: one line for a program reading it), wrapped for the terminal."""
    heading, _, rest = table.partition("\n")
    return wrap(heading) + "\n" + rest


def shell_lines(command: str, indent: str) -> str:
    """A shell command for a terminal: one line, or where wider than :func:`text_width` its
    words packed into lines continued with `` \\`` (a shell reads them as the one command,
    so it can still be copied as printed), never cut inside a word."""
    words = shlex.split(command)
    room = text_width() - len(indent) - 2
    lines, current = [], ""
    for word in map(shlex.quote, words):
        if current and len(current) + 1 + len(word) > room:
            lines.append(current)
            current = "    " + word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return " \\\n".join(indent + line for line in lines) + "\n"


def run_demo(
    dataset: str = DEMO_DATASET,
    k: int = DEFAULT_K,
    *,
    temporal: bool = True,
    same_year: bool = True,
    protocol: str = "goyal2026",
    output: str | Path | None = None,
    progress: bool = False,
    titles: bool = True,
) -> DemoReport:
    """BM25, evaluation, validation and cross-check of one dataset (the demo by default),
    and with ``titles`` a comparison with BM25 over titles only.

    ``temporal=False`` ranks every paper, so the validation shows what the temporal
    protocol forbids; ``output`` also writes the run as a TREC file.
    """
    if output is not None:
        check_output(output)  # before the ranking, not after it
    started = time.perf_counter()
    found = as_dataset(dataset)  # an unknown id: "unknown dataset", with the close matches
    if found is None:
        raise InputError(None, f"{dataset!r} is not a dataset id (e.g. {DEMO_DATASET})")
    data: Any  # an ir_datasets dataset (the library ships no types)
    data = found[1]
    documentation = data.documentation()
    description = documentation.get("pretty_name", dataset)
    if "desc" in documentation:  # its first sentence
        description += ". " + documentation["desc"].split(". ")[0].rstrip(".") + "."
    execution = ExecutionOptions(progress=progress)
    run = bm25_run(dataset, k, temporal=temporal, same_year=same_year, execution=execution)
    run_path = write_run(run, output, tag="bm25") if output is not None else None
    year_rule = "same-year papers admitted" if same_year else "earlier papers only"
    settings = (
        f"bm25s, title + abstract, top {k}, "
        + (f"temporal protocol, {year_rule}" if temporal else "NOT temporal: later papers ranked")
        + ", the citing paper never ranked"
    )
    evaluation = evaluate(run, dataset, protocol=protocol)
    weaker, comparison = None, None
    if titles:
        weaker = bm25_run(
            dataset,
            k,
            fields=("title",),
            temporal=temporal,
            same_year=same_year,
            execution=execution,
        )
        runs = {"bm25": evaluation, TITLES_RUN: evaluate(weaker, dataset, protocol=protocol)}
        comparison = compare(runs, protocol=protocol, baseline="bm25")
    return DemoReport(
        dataset=dataset,
        description=description,
        run=run,
        evaluation=evaluation,
        validation=validate(run, dataset, same_year=same_year, protocol=protocol),
        crosscheck=crosscheck(run, dataset, protocol=protocol),
        settings=settings,
        k=k,
        seconds=time.perf_counter() - started,
        run_path=run_path,
        titles=weaker,
        comparison=comparison,
        temporal=temporal,
        same_year=same_year,
        protocol=protocol,
    )
