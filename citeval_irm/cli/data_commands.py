"""The commands that list, fetch, convert or make data: the recipes and protocols, the
published tables, the datasets (import, the ir_datasets command line, verify, audit), a
run converted to Parquet, the BM25 baseline and the demo. Each reads its arguments once
(:class:`~.invocation.Invocation`) and calls one public function."""

from __future__ import annotations

import argparse
import sys
import textwrap
import time

from ..base.errors import CitevalError, InputError, with_details
from ..base.options import ExecutionOptions
from ..papers import PROTOCOLS, RECIPES
from ..printing.text_tables import wrap
from .invocation import Invocation, check_dataset, inform, quiet_ir_datasets, report_path


def cmd_convert(args: argparse.Namespace) -> int:
    from ..reading.convert import convert

    done = convert(
        args.source,
        args.target,
        kind="qrels" if args.qrels else "run",
        partition_rows=args.partition_rows,
        force=args.force,
        execution=Invocation(args).execution,
    )
    inform(done.text().rstrip("\n"))
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    for recipe in RECIPES.values():
        print(f"{recipe.name}: {recipe.reference}")
        print(textwrap.fill(recipe.description, 96, initial_indent="  ", subsequent_indent="  "))
        print(
            textwrap.fill(
                f"script: {recipe.source}", 96, initial_indent="  ", subsequent_indent="    "
            )
        )
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


def cmd_published(args: argparse.Namespace) -> int:
    from ..checks.published import check_published, published

    verb = check_published if args.check else published
    result = verb(args.dataset, paper=args.paper, setting=args.setting, stage=args.stage)
    if args.format not in result.FORMATS:
        raise InputError(
            None,
            f"--format {args.format}: the published listing prints "
            f"{', '.join(result.FORMATS)} (--check prints every format)",
        )
    sys.stdout.write(result.format(args.format))
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
        incomplete = CitevalError(f"{exc} (any output above is incomplete)")
        raise with_details(incomplete, *exc.details) from None


def cmd_verify(args: argparse.Namespace) -> int:
    from ..datasets.importing import verify_corpus

    sys.stdout.write(verify_corpus(args.name))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..checks.audit import audit

    result = audit(args.dataset, protocol=args.protocol, same_year=args.same_year)
    sys.stdout.write(result.format(args.format))
    return 0


def cmd_baseline_bm25(args: argparse.Namespace) -> int:
    from ..base.outputs import check_output
    from ..papers.baseline import bm25_run, ties_note
    from ..reading.io import write_run

    given = Invocation(args)
    check_output(args.output, force=args.force)  # before the ranking, not after it
    given.check_dataset()
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
        execution=ExecutionOptions(progress=True),  # its bars as a download's (--quiet: none)
    )
    write_run(run, args.output, tag=args.tag)
    queries = run.num_queries
    inform(f"citeval: wrote {len(run):,} lines for {queries:,} queries to {args.output}")
    note = ties_note(run)
    if note:
        inform(f"citeval: {note}")
    given.say_warnings(run.warnings)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    report_file = report_path(args)  # checked before the ranking
    if args.output is not None:
        from ..base.outputs import check_output

        check_output(args.output, force=args.force)
    check_dataset(args.dataset)
    with quiet_ir_datasets():
        report = run_demo(
            args.dataset,
            args.k,
            temporal=args.temporal,
            same_year=args.same_year,
            output=args.output,
        )
        sys.stdout.write(report.format(report=report_file))
        if report_file:
            written = report.report(command=args.command_line).write(report_file)
            said = f"report (scores, checks and plots in one page): {written.resolve()}"
            sys.stdout.write(wrap(said) + "\n")  # a long path on a line of its own
    print(f"done in {time.perf_counter() - args.started:.1f} s (the whole command)")
    return 0
