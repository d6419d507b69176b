"""The commands that evaluate, check and compare runs: each parses nothing itself, reads its
arguments once (:class:`~.invocation.Invocation`) and calls one public function, printing
its result on standard output and its warnings on standard error. The commands that list,
fetch, convert or make data are in :mod:`.data_commands`."""

from __future__ import annotations

import argparse
import json
import sys

from ..base.choices import PLAIN_FORMATS
from ..base.errors import InputError
from ..papers import PROTOCOLS, RECIPES
from ..printing.escaping import json_dumps
from .flags import EXIT_STRICT_FAILURE
from .invocation import (
    Invocation,
    check_max_docs,
    inform,
    named_runs,
    quiet_ir_datasets,
    run_label,
    say,
)


def _validation(given: Invocation):
    """The protocol validation of the run (``citeval validate``, and ``citeval eval
    --dataset`` before the scores), with the command's options."""
    from ..checks.protocol import validate

    args = given.args
    return validate(
        args.run,
        args.dataset,
        same_year=args.same_year,
        unknown_year=args.unknown_year,
        measures=given.measures,
        protocol=given.protocol,
        strict=args.strict,
        options=given.options,
        execution=given.execution,
    )


def _validate_first(given: Invocation) -> tuple[str, bool]:
    """``citeval eval --dataset``: the protocol validation of the run (its one-line summary,
    and whether it passed), before any score is printed."""
    given.check_dataset()
    # the options built first: a bad option is the command's error, not the validation's
    given.built()
    try:
        report = _validation(given)
    except InputError as exc:
        if exc.source == given.args.run:  # the run itself is bad: the evaluation says so
            raise
        return f"validation against {given.args.dataset}: not run: {exc}", False
    return report.summary(), report.passed


def cmd_eval(args: argparse.Namespace) -> int:
    """``citeval eval``: the run's validation (with ``--dataset``), its scores, what
    :func:`_eval_output` prints of them, and ``--strict``'s exit status."""
    from ..evaluation.evaluate import evaluate

    given = Invocation(args)
    check_max_docs(args)
    if args.strict and args.dataset is None:
        raise InputError(None, "--strict exits on a protocol violation: give --dataset")
    given.dataset_protocol()
    validation = _validate_first(given) if args.dataset is not None else None
    if validation is not None:  # above the scores; off stdout when that is for a program
        stream = sys.stdout if args.format == "table" else sys.stderr
        stream.write(validation[0] + "\n")
    given.built()
    result = evaluate(
        args.run,
        given.qrels,
        given.measures,
        protocol=given.protocol,
        options=given.options,
        execution=given.execution,
    )
    _eval_output(given, result)
    if validation is not None and args.strict and not validation[1]:
        print("citeval: strict: the run breaks the protocol", file=sys.stderr)
        return EXIT_STRICT_FAILURE
    return 0


def _eval_output(given: Invocation, result) -> None:
    """What ``citeval eval`` prints of ``result``: its scores (beside the cross-check with
    ``--crosscheck``), its warnings, and the ``--report`` of both."""
    args = given.args
    shown = {"per_query": args.per_query, "percent": given.shown["percent"]}
    decimals = given.shown["decimals"]
    report = None
    if not args.crosscheck:
        sys.stdout.write(result.format(args.format, **shown, decimals=decimals))
    elif args.format not in PLAIN_FORMATS:
        raise InputError(None, "--crosscheck prints with --format table or json")
    else:
        report = _crosscheck(given)
        if args.format == "json":
            evaluation = json.loads(result.format("json", **shown))
            payload = {"evaluation": evaluation, "crosscheck": report.to_dict()}
            sys.stdout.write(json_dumps(payload, indent=2) + "\n")
        else:
            sys.stdout.write(result.format("table", **shown, decimals=decimals))
            sys.stdout.write("\n" + report.format("table", **given.shown))
    given.say_warnings(result.warnings)
    if args.report:
        name = run_label(args.run)
        given.write_report(
            {name: args.run},
            evaluations={name: result},
            crosschecks={name: report} if report is not None else None,
        )


def _crosscheck(given: Invocation):
    """The cross-check of the run with the recipe (which sees tied scores in
    ``--recipe-ties``'s order in ``citeval crosscheck``, in the run's in ``citeval eval``)."""
    from ..checks.crosscheck import crosscheck

    args = given.args
    return crosscheck(
        args.run,
        given.qrels,
        given.measures,
        protocol=given.protocol,
        recipe=args.recipe,
        recipe_ties=getattr(args, "recipe_ties", "run_order"),
        options=given.options,
        execution=given.execution,
    )


def cmd_crosscheck(args: argparse.Namespace) -> int:
    given = Invocation(args)
    if args.recipe is None and args.protocol is None and args.measures not in PROTOCOLS:
        raise InputError(
            None,
            "name a recipe (--recipe goyal2026) or a protocol (--protocol goyal2026); "
            f"recipes: {', '.join(RECIPES)}",
        )
    report = _crosscheck(given)
    sys.stdout.write(report.format(args.format, **given.shown, max_rows=args.max_rows))
    given.say_warnings(report.warnings)
    if args.report:
        name = run_label(args.run)
        recipe_only = not (args.measures or args.protocol)  # the recipe's own measures
        measures = list(report.summary.index) if recipe_only else given.measures
        given.write_report({name: args.run}, measures, crosschecks={name: report})
    if args.strict:
        failures = report.failures(args.tolerance)
        for failure in failures:
            say(f"citeval: strict: {failure}")
        if failures:
            return EXIT_STRICT_FAILURE
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    given = Invocation(args)
    given.check_dataset()
    report = _validation(given)
    sys.stdout.write(report.format(args.format))
    if args.strict and not report.passed:
        print("citeval: strict: the run breaks the protocol", file=sys.stderr)
        return EXIT_STRICT_FAILURE
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from ..comparison.compare import compare

    given = Invocation(args)
    check_max_docs(args)
    runs = named_runs(args.runs)
    _check_published(args)
    if args.dataset is not None:
        given.check_dataset()
    given.dataset_protocol()
    with quiet_ir_datasets():
        comparison = compare(
            runs,
            given.qrels,
            given.measures,
            protocol=given.protocol,
            baseline=args.baseline,
            tukey=args.tukey,
            queries=args.queries,
            options=given.options,
            execution=given.execution,
            statistics=given.statistics,
        )
        if args.published_dataset or args.published:  # its own call over the comparison
            comparison.published = _published_rows(args, comparison, runs)
    sys.stdout.write(comparison.format(args.format, **given.shown))
    given.say_warnings(comparison.warnings)
    if args.report:
        with quiet_ir_datasets():
            given.write_report(runs, evaluations=comparison.results, comparison=comparison)
    return 0


def _check_published(args: argparse.Namespace) -> None:
    """``--published FILE`` and ``--paper`` both name the published table: one of them."""
    if isinstance(args.published, str) and args.paper is not None:
        raise InputError(None, "give your table with --published FILE or --paper, not both")


def _published_rows(args: argparse.Namespace, comparison, runs: dict):
    """``citeval compare --published``: the runs beside the paper's table."""
    from ..comparison.published_rows import compare_published

    return compare_published(
        comparison,
        runs,
        paper=args.published if isinstance(args.published, str) else args.paper,
        dataset=args.published_dataset,
        stage=args.stage,
        same_year=args.same_year,
    )


def cmd_table(args: argparse.Namespace) -> int:
    from ..comparison.results_table import results_table

    given = Invocation(args)
    paper = args.published if isinstance(args.published, str) else args.paper
    _check_published(args)
    if args.published is True and paper is None:
        paper = args.protocol or "goyal2026"
    with quiet_ir_datasets():
        table = results_table(
            args.manifest,
            measures=given.measures,
            protocol=given.protocol,
            baseline=args.baseline,
            paper=paper,
            same_year=args.same_year,
            resolving={"catalogue": args.catalogue, "threshold": args.threshold},
            options=given.options,
            execution=given.execution,
            statistics=given.statistics,
        )
    sys.stdout.write(table.format(args.format, **given.shown))
    given.write_result_report(table)
    return 0


def cmd_breakdown(args: argparse.Namespace) -> int:
    from ..comparison.breakdown import breakdown

    given = Invocation(args)
    given.check_dataset()
    with quiet_ir_datasets():
        result = breakdown(
            named_runs(args.runs),
            args.dataset,
            given.measures,
            by=args.by,
            protocol=given.protocol,
            bins=args.bins,
            baseline=args.baseline,
            options=given.options,
            execution=given.execution,
            statistics=given.statistics,
        )
    sys.stdout.write(result.format(args.format, **given.shown, min_queries=args.min_queries))
    given.write_result_report(result, min_queries=args.min_queries)
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from ..resolving.resolve import resolve

    given = Invocation(args)
    _check_resolve_outputs(args)
    given.check_dataset()
    with quiet_ir_datasets():
        result = resolve(
            args.generated,
            args.dataset,
            catalogue=args.catalogue,
            threshold=args.threshold,
            measures=given.measures,
            protocol=given.protocol,
            options=given.options,
            execution=given.execution,
        )
        by = _resolution_breakdown(given, result) if args.by else None
    _write_resolved_run(args, result)
    sys.stdout.write(result.format(args.format))
    if by is not None:
        sys.stdout.write("\n" + by.format(args.format if args.format != "markdown" else "table"))
    own = [w for w in by.warnings if w.code == "queries_without_value"] if by else []
    given.say_warnings([*result.warnings, *own])
    if args.resolution_report:
        path = _resolution_report(given, result)
        inform(f"citeval: report written to {path}")
    return 0


def _check_resolve_outputs(args: argparse.Namespace) -> None:
    """``citeval resolve``'s run and report paths, checked before the work, not after it."""
    from ..base.outputs import check_output
    from ..resolving.result import check_outputs, report_kind

    check_outputs(
        {"the run (-o)": args.output, "the report (--report)": args.resolution_report},
        {"the generated lists": args.generated, "the catalogue (--catalogue)": args.catalogue},
    )
    check_output(args.output, force=args.force)
    if args.resolution_report:
        report_kind(args.resolution_report, force=args.force)


def _write_resolved_run(args: argparse.Namespace, result) -> None:
    """The resolved run written to ``--output`` (and said), or why there is none."""
    from ..reading.io import write_run

    if result.run is not None:
        write_run(result.run, args.output, tag=args.tag)
        inform(
            f"citeval: wrote {len(result.run):,} lines for {result.run.num_queries:,} queries "
            f"to {args.output}"
        )
    else:
        print("citeval: no run written: no reference resolved to a paper", file=sys.stderr)


def _resolution_report(given: Invocation, result):
    """``citeval resolve --report FILE``: the page (``.html``, ``.md``: the scores, the
    resolution, its rate by popularity with the plot, the checks) or the resolution's own
    file (``.json``, ``.csv``, ``.txt``)."""
    from ..resolving.result import report_kind

    args = given.args
    if report_kind(args.resolution_report) != "page":
        return result.write_report(args.resolution_report)
    if result.run is None:
        raise InputError(
            args.resolution_report,
            "no page report: no reference resolved, so "
            "there is no run to report on (.json, .csv or .txt say so)",
        )
    from ..report import make_report

    with quiet_ir_datasets():
        report = make_report(
            {result.run_source: result},
            args.dataset,
            options=given.options,
            execution=given.execution,
        )
    report.command = args.command_line
    return report.write(args.resolution_report)


def _resolution_breakdown(given: Invocation, result):
    """``citeval resolve --by FACET``: a rate of the resolution per group of queries."""
    from ..comparison.breakdown import breakdown

    args = given.args
    measure = args.by_measure or ("existence_rate" if args.catalogue else "in_pool_rate")
    return breakdown(
        result,
        args.dataset,
        measure,
        by=args.by,
        bins=args.bins,
        options=given.options,
        execution=given.execution,
    )
