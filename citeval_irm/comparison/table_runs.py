"""A results table's runs: each manifest entry validated then evaluated (generated lists
resolved first), fanned out over processes or a Dask cluster
(:mod:`citeval_irm.comparison.fanout`); the cells they make with their statuses and the
notes on them; every system that obeys the protocol tested against the baseline, one
family for the whole table; and the paper's published rows beside them, with a
like-for-like verdict per dataset."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning, InputError, silenced
from ..base.options import EvalOptions, ExecutionOptions
from ..checks.protocol import ValidationReport
from ..evaluation.results import EvalResult
from ..resolving.result import RATES, Resolution
from . import family
from .family import Tested
from .fanout import fan_out
from .manifest import Entry
from .resolutions import generated_validation, is_generated, resolved_entry, table_measures
from .runs import RunEvidence, run_validation, validated_evaluation
from .table_marks import BROKEN, FLAGGED, ORACLE, VIOLATION, cell_status


@dataclass(frozen=True)
class TableRuns:
    """A manifest's runs evaluated: its systems and datasets in manifest order, each
    (system, dataset)'s result (an EvalResult, or a Resolution for generated lists) and
    evidence, and each dataset's measures (the field's, then the rates)."""

    systems: list[str]
    datasets: list[str]
    results: dict[tuple[str, str], EvalResult | Resolution]
    facts: dict[tuple[str, str], RunEvidence]
    measures: dict[str, list[str]]

    def validation(self, system: str, dataset: str) -> ValidationReport | None:
        """The run's validation (``None``: no run of ``system`` on ``dataset``)."""
        return self.facts[system, dataset].validation if (system, dataset) in self.results else None


def evaluated_runs(
    entries: list[Entry],
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    same_year: bool,
    resolving: dict,
) -> TableRuns:
    """Every entry validated and evaluated: in this process (``jobs=1``), in ``jobs``
    processes, or on a Dask cluster (``engine="dask"``)."""
    each = execution.for_worker()
    work = [
        (
            entry,
            measures,
            _protocol_of(entry.dataset, protocol),
            options,
            each,
            same_year,
            resolving,
        )
        for entry in entries
    ]
    for entry, m, p, *_ in work:
        if m is None and p is None:
            raise InputError(
                None,
                f"{entry.dataset} (manifest line {entry.line}) names no protocol: give "
                "measures or a protocol",
            )
    done = fan_out(evaluate_entry, work, execution)
    results = {(e.system, e.dataset): r for e, (r, _) in zip(entries, done)}
    datasets = list(dict.fromkeys(e.dataset for e in entries))
    return TableRuns(
        systems=list(dict.fromkeys(e.system for e in entries)),
        datasets=datasets,
        results=results,
        facts={(e.system, e.dataset): f for e, (_, f) in zip(entries, done)},
        measures={
            d: table_measures([r for (_, dd), r in results.items() if dd == d]) for d in datasets
        },
    )


def evaluate_entry(
    entry: Entry,
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    same_year: bool,
    resolving: dict | None = None,
):
    """Validate then evaluate one run (in this process, a worker process or on a Dask
    worker), generated lists resolved first (``resolving``: resolve's keywords): its
    evaluation (a resolution, for generated lists) and what the comparison with published
    results needs."""
    if not is_generated(entry.run):
        return validated_evaluation(
            entry.run,
            entry.dataset,
            measures,
            protocol,
            options,
            execution,
            dataset=entry.dataset,
            same_year=same_year,
        )
    with silenced():  # the table carries the warnings, counted, once
        result = resolved_entry(
            entry.run, entry.dataset, measures, protocol, options, execution, resolving or {}
        )
        validation = run_validation(
            result.run, entry.dataset, measures, protocol, options, execution, same_year
        )
    return result, RunEvidence.ranked_by(result.evaluation, generated_validation(validation))


def _protocol_of(dataset: str, protocol):
    """The protocol a dataset's runs are evaluated with: the one given, else its own."""
    from ..checks.protocol import dataset_protocol
    from ..datasets.registry import find_dataset

    return protocol if protocol is not None else dataset_protocol(find_dataset(dataset)[1])


def cell_values(runs: TableRuns) -> tuple[pd.DataFrame, list[str], list[EvalWarning]]:
    """One row per (system, dataset, measure) with its ``value`` (a fraction, NaN where
    there is no run) and ``status``; the notes on the runs (broken, exempt, flagged, each
    dataset's ceiling); the runs' warnings, each named after its run."""
    rows, notes, warnings = [], [], []
    for system in runs.systems:
        for dataset in runs.datasets:
            result = runs.results.get((system, dataset))
            validation = runs.validation(system, dataset)
            status = cell_status(result, validation)
            for measure in runs.measures[dataset]:
                value = (
                    float("nan") if result is None else float(result.aggregate.get(measure, np.nan))
                )
                rows.append(
                    {
                        "system": system,
                        "dataset": dataset,
                        "measure": measure,
                        "value": value,
                        "status": status,
                    }
                )
            notes += _run_notes(f"{system} on {dataset}", status, validation)
            if result is not None:
                warnings += [
                    EvalWarning(w.code, f"{system} on {dataset}: {w.message}", w.count, w.examples)
                    for w in result.warnings
                ]
    for dataset in runs.datasets:  # the same for every run of a dataset: its year policy, measures
        checked = [
            runs.validation(s, dataset) for s in runs.systems if (s, dataset) in runs.results
        ]
        line = checked[0].ceiling_line() if checked and checked[0] is not None else None
        notes += [f"{dataset}: {line}"] if line else []
    return pd.DataFrame(rows), notes, warnings


def _run_notes(run: str, status: str, validation: ValidationReport | None) -> list[str]:
    """The notes on one run: the protocol it breaks, the checks generated lists are exempt
    from, the oracle flag."""
    notes: list[str] = []
    if validation is None:  # no run: nothing to note
        return notes
    if status == VIOLATION:
        notes.append(f"{BROKEN} {run}: {validation.summary()}")
    notes += [f"{run}: {w.message}" for w in validation.warnings if w.code == "generated_lists"]
    flag = validation.oracle_warning
    if status == FLAGGED and flag is not None:
        notes.append(f"{ORACLE} {run}: {flag.message}")
    return notes


_TESTED_COLUMNS = [
    "dataset",
    "measure",
    "system",
    "diff",
    "p",
    "wins",
    "losses",
    "direction",
    "p_adj",
    "significant",
    "p_adj_floor",
    "reachable",
    "unavailable",
]
"""What a tested cell carries of compare's pair: the difference and the test (``p``: the
chosen test's, ``direction``: its own statistic's), corrected over the table."""


def baseline_tests(runs: TableRuns, baseline: str, notes: list[str], settings) -> Tested:
    """Every system that obeys the protocol against ``baseline`` on each dataset, by
    compare's statistics over every qrels query (a query a run does not rank scores 0),
    with one B and one correction for the whole table
    (:func:`citeval_irm.comparison.family.tested`); a dataset without a usable baseline
    gets a note."""
    from .compare import compared_values
    from .resolutions import field_result, rate_blocks

    blocks, warnings, owner = {}, [], {}
    for dataset in runs.datasets:
        compared = {
            s: runs.results[s, dataset]
            for s in runs.systems
            if (validation := runs.validation(s, dataset)) is not None and validation.passed
        }
        if baseline not in compared:
            why = "has no run" if (baseline, dataset) not in runs.results else "breaks the protocol"
            notes.append(f"{dataset}: no test: the baseline {baseline} {why} there")
            continue
        if len(compared) < 2:
            continue
        fields = [m for m in runs.measures[dataset] if m not in RATES]
        field_runs = {s: field_result(s, r) for s, r in compared.items()}
        values, *_ = compared_values(field_runs, dict.fromkeys(compared), fields, "all")
        blocks[dataset] = (values, list(compared), fields)
        more, left_out = rate_blocks(compared, baseline, dataset)
        blocks.update(more)
        owner.update(dict.fromkeys([dataset, *more], dataset))
        warnings += left_out
    found = family.tested(blocks, baseline, settings, column="dataset")
    if len(found.pairs):  # the block's dataset (blocks: the field's, then each rate's)
        found.pairs["dataset"] = found.pairs["dataset"].map(owner)
    found.warnings += warnings
    return found


def with_tests(values: pd.DataFrame, found: Tested, test: str) -> pd.DataFrame:
    """The cells with their test against the baseline (:data:`_TESTED_COLUMNS`; the
    others: NaN)."""
    if not len(found.pairs):
        return values
    tested = found.pairs.rename(columns={f"p_{test}": "p"})[_TESTED_COLUMNS]
    return values.merge(tested, on=["system", "dataset", "measure"], how="left")


def published_rows(paper, runs: TableRuns, protocol) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The paper's published rows (fractions), their systems, and a like-for-like verdict
    per dataset (reusing :func:`citeval_irm.checks.published.beside_published`)."""
    from ..checks.published import beside_published, scoring_recipe, table_source
    from ..papers import PROTOCOLS

    given = paper  # a shipped paper's name, or the user's table (a CSV path or a DataFrame)
    paper, papers, _ = table_source(given)
    rows, published_systems, verdicts = [], [], []
    for dataset in runs.datasets:
        if papers[paper].table_dataset(dataset) is None:
            verdicts.append(f"published ({paper}): no table for {dataset}")
            continue
        ours = {s: runs.results[s, dataset] for s in runs.systems if (s, dataset) in runs.results}
        chosen = PROTOCOLS.get(protocol) if isinstance(protocol, str) else protocol
        chosen = chosen or next(iter(ours.values())).protocol
        recipe = scoring_recipe(given, chosen)
        kept = {s: _with_scoring(runs.facts[s, dataset], ours[s], dataset, recipe) for s in ours}
        try:
            side = beside_published(
                ours, kept, dataset, protocol=chosen, paper=given, measures=runs.measures[dataset]
            )
        except InputError as exc:
            verdicts.append(f"published ({paper}) on {dataset}: none shown: {exc}")
            continue
        scale = 100.0 if side.paper.percent else 1.0
        for system in side.figures.columns:
            published_systems += [system] if system not in published_systems else []
            for measure in side.figures.index:
                rows.append(
                    {
                        "system": system,
                        "dataset": dataset,
                        "measure": measure,
                        "value": side.figures.at[measure, system] / scale,
                        "status": "published",
                        "impossible": side.impossible.get(system, ""),
                    }
                )
        differing = [str(c) for c in side.checks if c.status != "same"]
        detail = f" ({'; '.join(differing)})" if differing else ""
        verdicts.append(f"published rows on {dataset}: {side.title()}; {side.verdict()}{detail}")
    clash = [s for s in published_systems if s in runs.systems]
    if clash:
        raise InputError(
            None,
            f"system(s) {', '.join(clash)} of the manifest share a name with published "
            f"rows of {paper}: rename them in the manifest",
        )
    return pd.DataFrame(rows), published_systems, verdicts


def _with_scoring(facts, result, dataset: str, recipe: str | None):
    """A run's facts with its cross-check by the paper's script, which the published rows'
    scoring check reads (the run is read again only when a paper is asked for)."""
    from .runs import scored_by_script

    if recipe is None or facts.scoring is not None:
        return facts
    if hasattr(result, "rates"):  # generated lists: the script scores a run file
        return replace(facts, unscored="generated lists: not scored by the paper's script")
    scoring, unscored = scored_by_script(result.run_source, dataset, recipe)
    return replace(facts, scoring=scoring, unscored=unscored)
