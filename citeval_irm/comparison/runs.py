"""The runs a comparison is given: their names, whether one came evaluated already (and
made as the comparison makes the others), and each one validated (against a dataset, when
one is given) then evaluated, the one way ``compare`` and ``results_table`` do it
(:func:`validated_evaluation`), with the evidence kept of it (:class:`RunEvidence`); the
runs are fanned out by :mod:`citeval_irm.comparison.fanout`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ..base.errors import CitevalError, EvalWarning, InputError, silenced
from ..base.options import EvalOptions, ExecutionOptions
from ..checks.protocol import ValidationReport, validate
from ..evaluation.evaluate import evaluate
from ..evaluation.results import EvalResult
from ..reading.tables import Qrels


@dataclass(frozen=True)
class RunEvidence:
    """What a comparison keeps of a run once it is evaluated (the run itself may be
    millions of rows): the queries it ranks, its shortest ranking and, for a comparison with
    published results, its validation against the dataset (or why there is none) and, when
    the published table was scored by the paper's own script, the means of that script
    beside trec_eval's on this run (:func:`citeval_irm.crosscheck`'s summary: ``trec_eval``,
    ``recipe`` and ``difference`` by measure), or why there are none."""

    ranked: pd.Index
    shortest: int
    validation: ValidationReport | None = None
    unvalidated: str | None = None
    scoring: pd.DataFrame | None = None
    unscored: str | None = None

    @classmethod
    def of(
        cls,
        result: EvalResult,
        run,
        dataset: str | None,
        same_year: bool,
        memory=None,
        recipe: str | None = None,
    ) -> RunEvidence:
        """The facts of ``run`` from its evaluation ``result``; the run validated with
        :func:`citeval_irm.validate` when ``dataset`` is given, and cross-checked with
        ``recipe`` (the paper's script) there."""
        validation, unvalidated = None, None
        scoring, unscored = None, None
        if dataset is not None:
            try:
                validation = validate(
                    run, dataset, same_year=same_year, execution=ExecutionOptions(memory=memory)
                )
            except CitevalError as exc:
                unvalidated = f"cannot validate: {exc}"
            if recipe is not None:
                scoring, unscored = scored_by_script(run, dataset, recipe)
        found = cls.ranked_by(result, validation)
        return replace(found, unvalidated=unvalidated, scoring=scoring, unscored=unscored)

    @classmethod
    def ranked_by(
        cls, result: EvalResult, validation: ValidationReport | None = None
    ) -> RunEvidence:
        """The queries ``result``'s run ranks and its shortest ranking, with ``validation``."""
        ranked = result.ranked
        if ranked is None:  # a result made by evaluate always has its rankings' facts
            raise InputError(
                result.run_source, "this evaluation holds no rankings: evaluate the run again"
            )
        return cls(pd.Index(ranked.query_ids), int(ranked.sizes.min()), validation)


def scored_by_script(run, dataset: str, recipe: str) -> tuple[pd.DataFrame | None, str | None]:
    """The means of ``recipe`` (a paper's script) beside trec_eval's on ``run`` (the
    cross-check's summary), or why there are none: what a published table's scoring check
    reads."""
    from ..checks.crosscheck import crosscheck

    try:
        summary = crosscheck(run, dataset, recipe=recipe).summary
    except CitevalError as exc:
        return None, f"cannot cross-check with the paper's script: {exc}"
    return summary[["trec_eval", "recipe", "difference"]], None


def is_evaluated(item) -> bool:
    """Whether ``item`` is an evaluation already made (an EvalResult or alike: per-query
    values and their aggregate), not a run to evaluate."""
    return not isinstance(item, pd.DataFrame) and all(
        hasattr(item, attribute) for attribute in ("per_query", "aggregate", "measures")
    )


RUN_FILE_SUFFIXES = (".gz", ".bz2", ".trec", ".run", ".txt", ".tsv", ".parquet", ".pq")


def run_name(source) -> str | None:
    """The one name of a run made from its source: ``bm25`` for ``runs/bm25.trec.gz``,
    ``bm25.parquet`` or the folder ``bm25.parquet/``; ``None`` for ``<DataFrame>`` and the
    like."""
    text = str(source)
    if text.startswith("<") or not text:
        return None
    name = Path(text.rstrip("/")).name
    while (suffix := Path(name).suffix.lower()) in RUN_FILE_SUFFIXES and name != suffix:
        name = name[: -len(suffix)]
    return name or None


def named_inputs(runs) -> dict[str, object]:
    """Runs by name: the dict's keys, or file stems (``run1``, ``run2`` ... otherwise)."""
    if isinstance(runs, Mapping):
        named = {str(name): item for name, item in runs.items()}
    else:
        if isinstance(runs, (str, os.PathLike, pd.DataFrame)) or is_evaluated(runs):
            runs = [runs]
        named = {}
        for position, item in enumerate(runs, 1):
            if is_evaluated(item):
                stem = run_name(item.run_source)
            elif isinstance(item, (str, os.PathLike)):
                stem = run_name(item)
            else:
                stem = run_name(getattr(item, "source", ""))
            name = stem or f"run{position}"
            if name in named:
                raise InputError(
                    None, f"two runs are named {name!r}: pass {{name: run}} to tell them apart"
                )
            named[name] = item
    if not named:
        raise InputError(None, "give at least one run to compare")
    return named


SCORING_OPTIONS = ("ties", "max_docs", "empty_queries")
"""The options that change a run's per-query values (besides the qrels and the protocol)."""


def check_evaluated(
    named: dict, qrels_table: Qrels | None, protocol, options: EvalOptions
) -> list[EvalWarning]:
    """Every run given evaluated already must have been made as the comparison makes the
    others: on the same judgements (its qrels fingerprint against ``qrels_table``'s, or
    against the other evaluated runs' when no qrels are given), with the same protocol and
    the same :data:`SCORING_OPTIONS`; an error names both otherwise. A result that keeps
    no record of them (one built by hand) cannot be checked: a warning says so."""
    from ..evaluation.fingerprint import qrels_fingerprint

    wanted = protocol if protocol is None or isinstance(protocol, str) else protocol.name
    reference = (qrels_fingerprint(qrels_table), qrels_table.source) if qrels_table else None
    first: tuple[str, str, str] | None = None  # the first run with a record of its qrels
    unchecked = []
    for name, item in (pair for pair in named.items() if is_evaluated(pair[1])):
        _check_scoring(name, item, options)
        _check_protocol(name, item, wanted)
        fingerprint = getattr(item, "qrels_fingerprint", None)
        if fingerprint is None:
            unchecked.append(name)
            continue
        source = getattr(item, "qrels_source", "<qrels>")
        _check_qrels(name, fingerprint, source, reference, first)
        first = first or (name, fingerprint, source)
    if not unchecked or (reference is None and first is None):  # nothing to check against
        return []
    against = f"against {reference[1]}" if reference else "against the others"
    message = (
        f"given evaluated without a record of their qrels (built by hand?): not checked "
        f"{against}: {', '.join(unchecked)}"
    )
    return [EvalWarning("unchecked_qrels", message, len(unchecked))]


def _check_scoring(name: str, item, options: EvalOptions) -> None:
    """An evaluated run's :data:`SCORING_OPTIONS` (its tie policy, when it has no options
    on record) must be the comparison's."""
    made = getattr(item, "options", None)
    for option in SCORING_OPTIONS:
        theirs = getattr(made, option) if made is not None else None
        if option == "ties":
            theirs = getattr(getattr(item, "ties", None), "policy", None) or theirs
        if (made is not None or option == "ties") and theirs is not None:
            ours = getattr(options, option)
            if theirs != ours:
                raise InputError(
                    None,
                    f"{name} was evaluated with {option}={theirs!r}, the comparison uses "
                    f"{option}={ours!r}: every run must be evaluated the same way",
                )


def _check_protocol(name: str, item, wanted: str | None) -> None:
    """An evaluated run's protocol, when it has one, must be the comparison's."""
    own = getattr(getattr(item, "protocol", None), "name", None)
    if wanted is not None and own is not None and own != wanted:
        raise InputError(
            None,
            f"{name} was evaluated with protocol {own}, the comparison uses {wanted}: "
            "every run must be evaluated the same way",
        )


def _check_qrels(
    name: str,
    fingerprint: str,
    source: str,
    reference: tuple[str, str] | None,
    first: tuple[str, str, str] | None,
) -> None:
    """An evaluated run's qrels (its ``fingerprint``, made from ``source``) must be the
    comparison's (``reference``: fingerprint, source), or without them those of the
    ``first`` evaluated run (name, fingerprint, source)."""
    if reference is not None and fingerprint != reference[0]:
        raise InputError(
            None,
            f"{name} was evaluated on other judgements ({source}) than the comparison's "
            f"qrels ({reference[1]}): evaluate every run on the same qrels",
        )
    if reference is None and first is not None and fingerprint != first[1]:
        raise InputError(
            None,
            f"{name} was evaluated on other judgements ({source}) than {first[0]} "
            f"({first[2]}): evaluate every run on the same qrels",
        )


def run_validation(
    run,
    dataset: str,
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    same_year: bool,
) -> ValidationReport:
    """``run`` validated against ``dataset`` with the measures and protocol it is evaluated
    with (no progress bar)."""
    return validate(
        run,
        dataset,
        same_year=same_year,
        measures=measures,
        protocol=protocol,
        options=options,
        execution=replace(execution, progress=False),
    )


def validated_evaluation(
    run,
    qrels,
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    *,
    dataset: str | None = None,
    same_year: bool = True,
) -> tuple[EvalResult, RunEvidence]:
    """One run validated against ``dataset`` (when given, :func:`run_validation`), then
    evaluated on ``qrels``, and the evidence kept of it; nothing issued (the caller issues
    the warnings of what it returns, once): in this process, a worker process or on a Dask
    worker."""
    with silenced():
        validation = None
        if dataset is not None:
            validation = run_validation(
                run, dataset, measures, protocol, options, execution, same_year
            )
        result = evaluate(
            run, qrels, measures, protocol=protocol, options=options, execution=execution
        )
    return result, RunEvidence.ranked_by(result, validation)


def evaluate_run(
    name: str,
    item,
    measures,
    protocol,
    options: EvalOptions,
    execution: ExecutionOptions,
    qrels_table: Qrels | None = None,
) -> tuple[EvalResult, RunEvidence | None]:
    """One run of a comparison: its evaluation and evidence (none when it came evaluated
    already; a resolution's run is at hand, its field measures evaluated already)."""
    from ..resolving.result import Resolution

    if isinstance(item, Resolution):
        from .resolutions import field_result

        result = field_result(name, item)
        return result, RunEvidence.ranked_by(result)
    if is_evaluated(item):  # checked by check_evaluated
        return item, None
    return validated_evaluation(item, qrels_table, measures, protocol, options, execution)


def dataset_id(qrels) -> str | None:
    """The ir_datasets id the qrels came from, when they did."""
    if isinstance(qrels, str) and not Path(qrels).exists():
        import ir_datasets

        if qrels in ir_datasets.registry:
            return qrels
    return None
