"""The commands: each parses nothing itself, builds its options once and calls one public
function, printing its result on standard output and its warnings on standard error."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

from ..base.choices import (
    PLAIN_FORMATS,
)
from ..base.errors import CitevalError, InputError
from ..base.options import EvalOptions
from ..papers import PROTOCOLS, RECIPES
from ..printing.escaping import json_dumps
from ..printing.printable import warning_line
from .flags import (
    DEMO_REPORT,
    EXIT_STRICT_FAILURE,
    eval_options,
    statistics_options,
)


def say_warnings(warnings, args: argparse.Namespace) -> None:
    """A command's warnings on standard error, one line each (:func:`~citeval_irm.printing.
    printable.warning_line`, as a result's ``warnings_text``): each line once, however
    many steps of the command found it, and none of the codes ``--quiet-warning`` names."""
    hidden = set(getattr(args, "quiet_warning", None) or ())
    said: set[str] = set()
    for warning in warnings:
        line = warning_line(warning)
        if warning.code not in hidden and line not in said:
            said.add(line)
            print(line, file=sys.stderr)


def check_report(args: argparse.Namespace) -> None:
    """A bad report path fails before any work (not after a long evaluation), and so does
    an existing one without ``--force`` (except the demo's own default report)."""
    report = _report_path(args)
    if report:
        from ..base.outputs import report_format

        own = args.handler is cmd_demo and args.report is None
        report_format(report, force=args.force or own)


def _report_path(args: argparse.Namespace) -> str | None:
    """The report a command writes, if any: ``--report``, or the demo's default."""
    if getattr(args, "no_report", False):
        return None
    if args.handler is cmd_demo:
        return args.report or DEMO_REPORT
    return getattr(args, "report", None)


def _write_report(args: argparse.Namespace, runs: dict, measures=None, **given) -> None:
    """Build the report of ``runs`` from what the command computed (``given``: the
    evaluations, comparison, cross-checks), with the command's options, write it, say
    where."""
    from ..report import Computed, make_report

    report = make_report(
        runs,
        args.qrels if args.qrels is not None else args.dataset,
        measures if measures is not None else args.measures,
        protocol=args.protocol,
        options=eval_options(args),
        same_year=getattr(args, "same_year", True),
        command=args.command_line,
        computed=Computed(**given),
    )
    path = report.write(args.report)
    print(f"citeval: report written to {path}", file=sys.stderr)


def _run_label(path: str) -> str:
    from ..comparison.compare import run_name

    return run_name(path) or "run"


def _validation(args: argparse.Namespace, options: EvalOptions):
    """The protocol validation of the run (``citeval validate``, and ``citeval eval
    --dataset`` before the scores), with the command's options."""
    from ..checks.protocol import validate

    return validate(
        args.run,
        args.dataset,
        same_year=args.same_year,
        unknown_year=args.unknown_year,
        measures=args.measures,
        protocol=args.protocol,
        strict=args.strict,
        options=options,
    )


def _validate_first(args: argparse.Namespace) -> tuple[str, bool]:
    """``citeval eval --dataset``: the protocol validation of the run (its one-line summary,
    and whether it passed), before any score is printed."""
    check_dataset(args.dataset)
    options = eval_options(args)  # a bad option is the command's error, not the validation's
    try:
        report = _validation(args, options)
    except InputError as exc:
        if exc.source == args.run:  # the run itself is bad: the evaluation says so
            raise
        return f"validation against {args.dataset}: not run: {exc}", False
    return report.summary(), report.passed


def check_dataset(name: str) -> None:
    """A ``--dataset`` that is no registered id stops the command at once: "unknown
    dataset", with the close matches."""
    from ..datasets.registry import find_dataset, unknown_dataset

    if find_dataset(name) is None:
        raise unknown_dataset(name)


def _check_max_docs(args: argparse.Namespace) -> None:
    """``--max-docs`` cuts the rankings the evaluation scores; a cross-check (a paper's
    script over the run as given) and a report's plots and tie ranges read whole rankings,
    so they are refused together with it rather than silently computed on another run."""
    if args.max_docs is None:
        return
    for option in ("crosscheck", "report"):
        if getattr(args, option, None):
            raise InputError(None, f"--max-docs cannot be combined with --{option}")


def cmd_eval(args: argparse.Namespace) -> int:
    _check_max_docs(args)
    if args.strict and args.dataset is None:
        raise InputError(None, "--strict exits on a protocol violation: give --dataset")
    validation = _validate_first(args) if args.dataset is not None else None
    if validation is not None:  # above the scores; off stdout when that is for a program
        stream = sys.stdout if args.format == "table" else sys.stderr
        stream.write(validation[0] + "\n")
    code = _eval_scores(args)
    if validation is not None and args.strict and not validation[1]:
        print("citeval: strict: the run breaks the protocol", file=sys.stderr)
        return EXIT_STRICT_FAILURE
    return code


def _eval_scores(args: argparse.Namespace) -> int:
    from ..evaluation.evaluate import evaluate

    options = eval_options(args)
    qrels = args.qrels if args.qrels is not None else args.dataset
    result = evaluate(args.run, qrels, args.measures, protocol=args.protocol, options=options)
    shown = {"per_query": args.per_query, "percent": options.percent}
    if not args.crosscheck:
        sys.stdout.write(result.format(args.format, **shown, decimals=options.decimals))
        say_warnings(result.warnings, args)
        _eval_report(args, result)
        return 0
    if args.format not in PLAIN_FORMATS:
        raise InputError(None, "--crosscheck prints with --format table or json")
    report = _crosscheck(args)
    if args.format == "json":
        evaluation = json.loads(result.format("json", **shown))
        payload = {"evaluation": evaluation, "crosscheck": report.to_dict()}
        sys.stdout.write(json_dumps(payload, indent=2) + "\n")
    else:
        sys.stdout.write(result.format("table", **shown, decimals=options.decimals))
        sys.stdout.write("\n" + report.format("table", **_shown(options)))
    say_warnings(result.warnings, args)
    _eval_report(args, result, report)
    return 0


def _shown(options: EvalOptions) -> dict:
    """How values print: the keywords of a result's ``format``."""
    return {"percent": options.percent, "decimals": options.decimals}


def _eval_report(args: argparse.Namespace, result, crosscheck=None) -> None:
    """``citeval eval --report``: the evaluation (and its cross-check) as a report."""
    if args.report:
        name = _run_label(args.run)
        _write_report(
            args,
            {name: args.run},
            evaluations={name: result},
            crosschecks={name: crosscheck} if crosscheck is not None else None,
        )


def _crosscheck(args: argparse.Namespace):
    """The cross-check of the run with the recipe (which sees tied scores in
    ``--recipe-ties``'s order in ``citeval crosscheck``, in the run's in ``citeval eval``)."""
    from ..checks.crosscheck import crosscheck

    return crosscheck(
        args.run,
        args.qrels if args.qrels is not None else args.dataset,
        args.measures,
        protocol=args.protocol,
        recipe=args.recipe,
        recipe_ties=getattr(args, "recipe_ties", "run_order"),
        options=eval_options(args),
    )


def cmd_crosscheck(args: argparse.Namespace) -> int:
    if args.recipe is None and args.protocol is None and args.measures not in PROTOCOLS:
        raise InputError(
            None,
            "name a recipe (--recipe goyal2026) or a protocol (--protocol goyal2026); "
            f"recipes: {', '.join(RECIPES)}",
        )
    report = _crosscheck(args)
    shown = _shown(eval_options(args))
    sys.stdout.write(report.format(args.format, **shown, max_rows=args.max_rows))
    say_warnings(report.warnings, args)
    if args.report:
        name = _run_label(args.run)
        recipe_only = not (args.measures or args.protocol)  # the recipe's own measures
        measures = list(report.summary.index) if recipe_only else args.measures
        _write_report(args, {name: args.run}, measures, crosschecks={name: report})
    if args.strict:
        failures = report.failures(args.tolerance)
        for failure in failures:
            print(f"citeval: strict: {failure}", file=sys.stderr)
        if failures:
            return EXIT_STRICT_FAILURE
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from ..reading.convert import convert

    done = convert(
        args.source,
        args.target,
        kind="qrels" if args.qrels else "run",
        partition_rows=args.partition_rows,
        memory=eval_options(args).memory,
        force=args.force,
    )
    sys.stderr.write(done.text())
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    for recipe in RECIPES.values():
        print(f"{recipe.name}: {recipe.reference}")
        print(textwrap.fill(recipe.description, 96, initial_indent="  ", subsequent_indent="  "))
        print(textwrap.fill(f"script: {recipe.source}", 96, initial_indent="  ",
                            subsequent_indent="    "))  # fmt: skip
        for rule in recipe.rules:
            print(f"    {rule}")
        print(f"  averages: {_POPULATIONS[recipe.queries]}")
        quirks = recipe.quirks.describe()
        print(textwrap.fill(f"quirks: {quirks}", 96, initial_indent="  ", subsequent_indent="    "))
        for crash in recipe.crashes:
            print(f"  stops with {crash.exception} on {crash.when.replace('_', ' ')}: {crash.line}")
        print(f"  measures: {' '.join(str(m) for m in recipe.measures)}")
    return 0


_POPULATIONS = {
    "qrels": "every qrels query (a loop over the test set; a missing ranking is an empty list)",
    "run": "every run query (a loop over the predictions)",
    "gold_and_run": "the queries with gold papers and a ranking",
}


def cmd_protocols(args: argparse.Namespace) -> int:
    for protocol in PROTOCOLS.values():
        scale = "percent" if protocol.percent else "fraction"
        measures = " ".join(str(m) for m in protocol.measures)
        print(f"{protocol.name}: {protocol.reference} ({scale}, {protocol.decimals} decimals)")
        print(f"  {measures}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..datasets import import_dataset

    report = import_dataset(
        args.name,
        args.folder,
        symlink=args.symlink,
        allow_count_mismatch=args.allow_count_mismatch,
    )
    sys.stdout.write(report.text())
    return 0


def cmd_baseline_bm25(args: argparse.Namespace) -> int:
    from ..base.outputs import check_output
    from ..papers.baseline import bm25_run
    from ..reading.io import write_run

    check_output(args.output, force=args.force)  # before the ranking, not after it
    check_dataset(args.dataset)
    run = bm25_run(
        args.dataset,
        args.k,
        temporal=args.temporal,
        same_year=args.same_year,
        unknown_year=args.unknown_year,
        k1=args.k1,
        b=args.b,
        stemmer=args.stemmer if args.stemmer != "none" else None,
        fields=tuple(args.fields.split(",")) if args.fields else None,
    )
    write_run(run, args.output, tag=args.tag)
    queries = run.num_queries
    print(
        f"citeval: wrote {len(run):,} lines for {queries:,} queries to {args.output}",
        file=sys.stderr,
    )
    say_warnings(run.warnings, args)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    check_dataset(args.dataset)
    report = _validation(args, eval_options(args))
    sys.stdout.write(report.format(args.format))
    if args.strict and not report.passed:
        print("citeval: strict: the run breaks the protocol", file=sys.stderr)
        return EXIT_STRICT_FAILURE
    return 0


@contextlib.contextmanager
def _quiet_ir_datasets() -> Iterator[None]:
    """No INFO messages (ir_datasets' store openings) while a report is made: the tables
    are the point."""
    logging.disable(logging.INFO)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    report_path = _report_path(args)  # checked before the ranking
    if args.output is not None:
        from ..base.outputs import check_output

        check_output(args.output, force=args.force)
    check_dataset(args.dataset)
    with _quiet_ir_datasets():
        report = run_demo(
            args.dataset,
            args.k,
            temporal=args.temporal,
            same_year=args.same_year,
            output=args.output,
        )
        sys.stdout.write(report.format(report=report_path))
        if report_path:
            written = report.report(command=args.command_line).write(report_path)
            print(f"report (scores, checks and plots in one page): {written.resolve()}")
    print(f"done in {time.perf_counter() - args.started:.1f} s (the whole command)")
    return 0


def _named_runs(values: list[str]) -> dict[str, str]:
    """``NAME=PATH`` or ``PATH`` (named after its stem) for each run argument."""
    from ..comparison.compare import run_name

    named: dict[str, str] = {}
    for value in values:
        name, path = (None, value)
        if "=" in value and not Path(value).exists():
            name, path = value.split("=", 1)
        name = name or run_name(path) or path
        if name in named:
            raise InputError(
                None, f"two runs are named {name!r}: write NAME=PATH to tell them apart"
            )
        named[name] = path
    return named


def cmd_compare(args: argparse.Namespace) -> int:
    from ..comparison.compare import compare

    _check_max_docs(args)
    runs = _named_runs(args.runs)
    if isinstance(args.published, str) and args.paper is not None:
        raise InputError(None, "give your table with --published FILE or --paper, not both")
    published = args.published_dataset or args.published
    if args.dataset is not None:
        check_dataset(args.dataset)
    with _quiet_ir_datasets():
        comparison = compare(
            runs,
            args.qrels if args.qrels is not None else args.dataset,
            args.measures,
            protocol=args.protocol,
            baseline=args.baseline,
            tukey=args.tukey,
            queries=args.queries,
            options=eval_options(args),
            statistics=statistics_options(args),
        )
        if published:  # the runs beside the paper's table: its own call over the comparison
            from ..comparison.published_rows import compare_published

            comparison.published = compare_published(
                comparison,
                runs,
                paper=args.published if isinstance(args.published, str) else args.paper,
                dataset=args.published_dataset,
                stage=args.stage,
                same_year=args.same_year,
            )
    sys.stdout.write(comparison.format(args.format))
    say_warnings(comparison.warnings, args)
    if args.report:
        with _quiet_ir_datasets():
            _write_report(args, runs, evaluations=comparison.results, comparison=comparison)
    return 0


def cmd_published(args: argparse.Namespace) -> int:
    from ..checks.published import published

    table = published(args.dataset, paper=args.paper, setting=args.setting, stage=args.stage)
    sys.stdout.write(table.format(args.format))
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    from ..comparison.results_table import results_table

    paper = args.published if isinstance(args.published, str) else args.paper
    if isinstance(args.published, str) and args.paper is not None:
        raise InputError(None, "give your table with --published FILE or --paper, not both")
    if args.published is True and paper is None:
        paper = args.protocol or "goyal2026"

    with _quiet_ir_datasets():
        table = results_table(
            args.manifest,
            measures=args.measures,
            protocol=args.protocol,
            baseline=args.baseline,
            paper=paper,
            same_year=args.same_year,
            jobs=args.jobs,
            resolving={"catalogue": args.catalogue, "threshold": args.threshold},
            options=eval_options(args),
            statistics=statistics_options(args),
        )
    sys.stdout.write(table.format(args.format))
    _write_result_report(args, table)
    return 0


def _write_result_report(args: argparse.Namespace, result) -> None:
    """The result's warnings (on standard error) and, with ``--report PATH``, its own
    report (table, breakdown), written, and where."""
    say_warnings(result.warnings, args)
    if args.report:
        path = result.report(command=args.command_line).write(args.report)
        print(f"citeval: report written to {path}", file=sys.stderr)


def cmd_breakdown(args: argparse.Namespace) -> int:
    from ..comparison.breakdown import breakdown

    check_dataset(args.dataset)
    with _quiet_ir_datasets():
        result = breakdown(
            _named_runs(args.runs),
            args.dataset,
            args.measures,
            by=args.by,
            protocol=args.protocol,
            bins=args.bins,
            min_queries=args.min_queries,
            baseline=args.baseline,
            options=eval_options(args),
            statistics=statistics_options(args),
        )
    sys.stdout.write(result.format(args.format))
    _write_result_report(args, result)
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    from ..datasets import ir_datasets_cli
    from ..datasets.importing import corpus_named
    from ..datasets.registry import find_dataset
    from ..datasets.sources import check_corpus

    if args.args[:1] == ["list"] and "--all" not in args.args:
        from ..datasets.listing import format_dataset_list

        sys.stdout.write(format_dataset_list())
        return 0
    if args.args[:1] == ["list"]:
        args.args.remove("--all")
    # check the id and the files first, so that a bad one stops the command before any output
    for name in [a for a in args.args[1:2] if "/" in a]:
        find_dataset(name)  # an unknown id of a known family: the close matches
        if name.startswith("citeval/"):
            check_corpus(corpus_named(name.split("/")[1]))
    try:
        return ir_datasets_cli(args.args)
    except CitevalError as exc:
        raise CitevalError(f"{exc} (any output above is incomplete)") from None


def cmd_verify(args: argparse.Namespace) -> int:
    from ..datasets.importing import verify_corpus

    sys.stdout.write(verify_corpus(args.name))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..checks.audit import audit

    result = audit(args.dataset, protocol=args.protocol, same_year=args.same_year)
    sys.stdout.write(result.format(args.format))
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from ..base.outputs import check_output
    from ..reading.io import write_run
    from ..resolving.resolve import resolve
    from ..resolving.result import report_kind

    check_output(args.output, force=args.force)  # before the work, not after it
    if args.resolution_report:
        report_kind(args.resolution_report, force=args.force)
    check_dataset(args.dataset)
    with _quiet_ir_datasets():
        result = resolve(
            args.generated,
            args.dataset,
            catalogue=args.catalogue,
            threshold=args.threshold,
            measures=args.measures,
            protocol=args.protocol,
            options=eval_options(args),
        )
        by = _resolution_breakdown(args, result) if args.by else None
    if result.run is not None:
        write_run(result.run, args.output, tag=args.tag)
        print(f"citeval: wrote {len(result.run):,} lines for {result.run.num_queries:,} queries "
              f"to {args.output}", file=sys.stderr)  # fmt: skip
    else:
        print("citeval: no run written: no reference resolved to a paper", file=sys.stderr)
    sys.stdout.write(result.format(args.format))
    if by is not None:
        sys.stdout.write("\n" + by.format(args.format if args.format != "markdown" else "table"))
    own = [w for w in by.warnings if w.code == "queries_without_value"] if by else []
    say_warnings([*result.warnings, *own], args)
    if args.resolution_report:
        path = _resolution_report(args, result)
        print(f"citeval: report written to {path}", file=sys.stderr)
    return 0


def _resolution_report(args: argparse.Namespace, result):
    """``citeval resolve --report FILE``: the page (``.html``, ``.md``: the scores, the
    resolution, its rate by popularity with the plot, the checks) or the resolution's own
    file (``.json``, ``.csv``, ``.txt``)."""
    from ..resolving.result import report_kind

    if report_kind(args.resolution_report) != "page":
        return result.write_report(args.resolution_report)
    if result.run is None:
        raise InputError(args.resolution_report, "no page report: no reference resolved, so "
                         "there is no run to report on (.json, .csv or .txt say so)")  # fmt: skip
    from ..report import make_report

    with _quiet_ir_datasets():
        report = make_report({result.run_source: result}, args.dataset,
                             options=eval_options(args), command=args.command_line)  # fmt: skip
    return report.write(args.resolution_report)


def _resolution_breakdown(args: argparse.Namespace, result):
    """``citeval resolve --by FACET``: a rate of the resolution per group of queries."""
    from ..comparison.breakdown import breakdown

    measure = args.by_measure or ("existence_rate" if args.catalogue else "in_pool_rate")
    return breakdown(result, args.dataset, measure, by=args.by, bins=args.bins,
                     options=eval_options(args))  # fmt: skip
