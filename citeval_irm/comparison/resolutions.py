"""Generated reference lists in a comparison: a :class:`~citeval_irm.Resolution` (what
:func:`citeval_irm.resolve` made of them) compared, tabled or reported beside runs.

A resolution stands for its resolved run: its field measures are those of the run's
evaluation (checked and compared as any evaluated run's), its facts (the queries it ranks)
those of its run. Its rates (:data:`~citeval_irm.resolving.result.RATES`) are compared when
every run compared is a resolution: each rate on the queries every run has a value of it
for (a list with no reference has none), the others left out of that rate's tests and
counted in a warning, the same rule in :func:`citeval_irm.compare` and
:func:`citeval_irm.results_table`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning, InputError, examples_of
from ..resolving.result import LOWER_IS_BETTER, RATES, Resolution


def compared_rates(named: dict, measures) -> tuple[list[str], object]:
    """The resolution rates compared (those ``measures`` names, else every rate all the
    runs have; none unless every run is a :class:`~citeval_irm.Resolution`) and the measures
    left for the field (``[]`` when ``measures`` names rates only)."""
    items = list(named.values())
    if not all(isinstance(item, Resolution) for item in items):
        return [], measures
    shared = [r for r in RATES if all(r in item.rates for item in items)]
    if measures is None or not isinstance(measures, (str, list, tuple)):
        return shared, measures
    asked = measures.replace(",", " ").split() if isinstance(measures, str) else list(measures)
    named_rates = [str(m) for m in asked if str(m) in RATES]
    if not named_rates:
        return shared, measures
    missing = [r for r in named_rates if r not in shared]
    if missing:
        raise InputError(
            None,
            f"{', '.join(missing)}: not a rate of every resolution compared "
            "(existence_rate needs a catalogue)",
        )
    rest = [m for m in asked if str(m) not in RATES]
    return named_rates, rest


def field_result(name: str, item):
    """What a comparison evaluates or checks of ``item``: a resolution's evaluation of its
    resolved run, anything else as it is."""
    if not isinstance(item, Resolution):
        return item
    if item.evaluation is None:
        raise InputError(
            None,
            f"{name}: no reference of {item.source} resolved to a paper of "
            f"{item.dataset}: there is no run to compare",
        )
    return item.evaluation


def valued_rate(named: dict, rate: str) -> tuple[np.ndarray, list, pd.Index]:
    """A rate of every resolution in ``named`` (queries x runs x 1) on the queries they all
    have a value for (a list with no reference has none), those queries, and the queries
    left out (:func:`left_out_warnings` counts them)."""
    frame = pd.concat([item.per_query[rate] for item in named.values()], axis=1, join="inner")
    valued = frame.notna().all(axis=1)
    left = frame.index[~valued]
    kept = frame[valued]
    if kept.empty:
        raise InputError(None, f"no query has a value of {rate} in every run: nothing to compare")
    return kept.to_numpy(dtype=np.float64)[:, :, None], list(kept.index), left


def left_out_warnings(left_out: dict[str, pd.Index]) -> list[EvalWarning]:
    """The ``queries_without_value`` warnings of the rates' tests (``left_out``: the queries
    each rate leaves out): one per set of queries, naming every rate that leaves out those
    (a list with no reference has none of the rates: one line, not one per rate)."""
    by_queries: dict[tuple, list[str]] = {}
    for rate, left in left_out.items():
        if len(left):
            by_queries.setdefault(tuple(left), []).append(rate)
    return [
        EvalWarning(
            "queries_without_value",
            f"queries with no value of {', '.join(rates)} in some run "
            "(a list with no reference): left out of its tests",
            len(left),
            examples_of(left),
            "queries",
        )
        for left, rates in by_queries.items()
    ]


def per_query_frame(values: np.ndarray, queries: list, measures: list[str], runs: list[str]):
    """Values (queries x runs x measures) as a frame: ``queries`` by (measure, run)."""
    return pd.DataFrame(
        values.transpose(0, 2, 1).reshape(len(queries), -1),
        index=pd.Index(queries, name="query_id"),
        columns=pd.MultiIndex.from_product([measures, runs], names=["measure", "run"]),
    )


GENERATED_SUFFIXES = (".jsonl", ".ndjson")
"""A manifest's run file with one of these suffixes is a file of generated reference lists,
resolved (:func:`citeval_irm.resolve`) before it is validated and evaluated; no TREC run or
Parquet file is named so."""


def is_generated(path) -> bool:
    """Whether a manifest's run file holds generated reference lists (its suffix)."""
    return str(path).lower().endswith(GENERATED_SUFFIXES)


def resolved_entry(path, dataset: str, measures, protocol, options, execution, resolving: dict):
    """A manifest's generated lists resolved against ``dataset`` (``resolving``: resolve's
    ``catalogue`` and ``threshold``): the :class:`~citeval_irm.Resolution`, an error when
    nothing resolved (no run to validate or evaluate)."""
    from ..resolving.resolve import resolve

    found = resolve(
        path,
        dataset,
        measures=measures,
        protocol=protocol,
        options=options,
        execution=execution,
        **resolving,
    )
    if found.run is None:
        raise InputError(
            str(path), f"no reference resolved to a paper of {dataset}: no run to put in the table"
        )
    return found


def table_measures(results: list) -> list[str]:
    """A results table's measures on one dataset: the field's (the first run's), then the
    rates any resolution among ``results`` has."""
    first = results[0]
    if isinstance(first, Resolution):  # resolve evaluates the resolved run it made
        fields = first.evaluation.names if first.evaluation is not None else []
    else:
        fields = first.measures
    rates = [r for r in RATES if any(r in getattr(x, "rates", ()) for x in results)]
    return [str(m) for m in fields] + rates


def rate_blocks(compared: dict, baseline: str, key) -> tuple[dict, list[EvalWarning]]:
    """The test blocks of the rates on one dataset of a results table: for each rate the
    baseline has, the systems that have it too (``compared``: system -> result), keyed
    ``"<key> <rate>"``; and the warnings counting the queries each leaves out."""
    blocks: dict[str, tuple[np.ndarray, list[str], list[str]]] = {}
    left_out: dict[str, pd.Index] = {}
    if not isinstance(compared.get(baseline), Resolution):
        return blocks, []
    for rate in compared[baseline].rates:
        having = {s: r for s, r in compared.items() if rate in getattr(r, "rates", ())}
        if len(having) < 2:
            continue
        values, _, left_out[rate] = valued_rate(having, rate)
        blocks[f"{key} {rate}"] = (values, list(having), [rate])
    return blocks, [w.of_run(str(key)) for w in left_out_warnings(left_out)]


def rate_legend(rates: list[str]) -> str:
    """The legend line of a table's rate columns."""
    lower = [r for r in rates if r in LOWER_IS_BETTER]
    better = f"; lower is better for {', '.join(lower)}" if lower else ""
    return (
        f"{', '.join(rates)}: the resolution's rates, for a system whose run is generated "
        "reference lists (.jsonl, resolved first; - for a ranked run): each the mean over "
        "the queries whose lists have references, tested on the queries where the "
        f"baseline's and the system's both have{better}"
    )


NOT_VIOLATIONS = ("short_ranking", "missing_query")
"""Checks of :func:`citeval_irm.validate` that a resolved run of generated lists fails by
nature, not by breaking the protocol: a list is as long as the model made it, and a query
none of whose references resolved has no ranking (it scores 0, as trec_eval -c scores it).
A results table does not count them as violations of such a run (a note says how many);
``citeval validate`` of the written run still reports them."""


def generated_validation(report):
    """``report`` (a run of generated lists validated) without :data:`NOT_VIOLATIONS`'s
    violations, with a warning ``generated_lists`` counting the queries they were in."""
    from dataclasses import replace

    exempt = report.violations["check"].isin(NOT_VIOLATIONS)
    if not exempt.any():
        return report
    counts = report.checks.set_index("check")["queries"]
    said = ", ".join(
        f"{check} in {_queries(int(counts[check]))}"
        for check in NOT_VIOLATIONS
        if counts.get(check, 0)
    )
    warning = EvalWarning(
        "generated_lists",
        f"generated lists: {said}, not counted as "
        "violations (a list is as long as the model made it; a query with "
        "no resolved paper scores 0)",
        int(exempt.sum()),
    )
    checks = report.checks.copy()
    shown = checks["check"].isin(NOT_VIOLATIONS)
    checks.loc[shown, ["queries", "pairs"]] = 0
    return replace(
        report,
        violations=report.violations[~exempt],
        checks=checks,
        warnings=[*report.warnings, warning],
    )


def _queries(count: int) -> str:
    return f"{count:,} {'query' if count == 1 else 'queries'}"
