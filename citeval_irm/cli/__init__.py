"""The ``citeval`` command line: a thin layer over the Python API.

Each subcommand parses its arguments and calls one public function. Results go to standard
output (so ``--format trec_eval`` output can be diffed), warnings and errors to standard
error; bad input exits with status 2 and a message naming the file, line and problem.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import shlex
import signal
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path

from .. import __version__
from ..base.choices import (
    COMPARE_FORMATS,
    COMPARE_QUERY_POLICIES,
    CORRECTIONS,
    DUPLICATE_POLICIES,
    EMPTY_QUERY_POLICIES,
    ENGINES,
    FACETS,
    LISTING_FORMATS,
    PLAIN_FORMATS,
    PRIMARY_TESTS,
    TABLE_ENGINES,
    TABLE_FORMATS,
    TESTS,
    TIE_POLICIES,
    UNKNOWN_YEAR_POLICIES,
)
from ..base.errors import CitevalError, EvalWarning, InputError
from ..base.options import EvalOptions, StatisticsOptions
from ..base.progress import set_quiet
from ..evaluation.results import FORMATS
from ..papers import PROTOCOLS, RECIPES
from ..printing.escaping import json_dumps, plain_text

EXIT_INPUT_ERROR = 2
EXIT_STRICT_FAILURE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
DEMO_REPORT = "demo-report.html"


def catalogue_corpora() -> list[dict]:
    """The corpora of ``datasets.catalogue.COLLECTIONS`` as ``datasets/catalogue.json``
    records them (generated from it, a test fails when stale): read as a file, so the
    help that lists them imports neither ir_datasets nor the datasets package."""
    index = resources.files("citeval_irm").joinpath("datasets", "catalogue.json")
    return json.loads(index.read_text(encoding="utf-8"))["corpora"]


def _corpus_help(*, importable: bool) -> tuple[str, str]:
    """The help of a corpus-name argument, and of the folder of its files."""
    corpora = [c for c in catalogue_corpora() if c["importable"] or not importable]
    names = ", ".join(c["name"] for c in corpora)
    by_files: dict[tuple[str, ...], list[str]] = {}
    for corpus in corpora:
        by_files.setdefault(tuple(corpus["files"]), []).append(corpus["pretty_name"])
    files = "; ".join(f"{', '.join(p)}: {', '.join(f)}" for f, p in by_files.items())
    return f"a corpus: {names}", f"folder holding the corpus's files ({files})"


class MeasuresAction(argparse.Action):
    """``-m`` given several times (``-m P.5,10 -m recip_rank``, as trec_eval takes it): the
    measures of every one, in order, as one list."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, f"{given} {values}" if given else values)


def add_run_options(parser: argparse.ArgumentParser, *, measures_required: bool = True) -> None:
    """The run, its qrels and the measures: shared by every command that scores a run."""
    parser.add_argument(
        "run", help="TREC run file (6 columns; .gz accepted) or Parquet (a file or a folder)"
    )
    add_source_options(parser, measures_required=measures_required)


def add_source_options(parser: argparse.ArgumentParser, *, measures_required: bool = True) -> None:
    """The qrels (a file or a dataset) and the measures (a list or a protocol)."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--qrels", help="TREC qrels file (4 columns; .gz accepted)")
    source.add_argument("--dataset", help="ir_datasets id whose qrels to use")
    which = parser.add_mutually_exclusive_group(required=measures_required)
    which.add_argument(
        "-m",
        "--measures",
        action=MeasuresAction,
        help='measures in ir-measures syntax, e.g. "RR R@10 nDCG@10", or trec_eval\'s '
        "(recip_rank, ndcg_cut.5,10); repeatable, as trec_eval's -m",
    )
    which.add_argument("--protocol", choices=sorted(PROTOCOLS), help="a named protocol")


def add_recipe_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--recipe",
        choices=sorted(RECIPES),
        help="the paper recipe to compare with (default: the protocol's own)",
    )


# --------------------------------------------------------------------------- the options
# Every option of an evaluation or a comparison is declared here once (its spellings,
# argparse settings, help; its default is the field default of EvalOptions or
# StatisticsOptions, whose field it sets) and added by name to each command that takes
# it; eval_options / statistics_options build the two objects from any command's
# arguments.


def _field_default(kind, name: str):
    return next(f.default for f in dataclasses.fields(kind) if f.name == name)


def _eval_flag(name: str, *spellings: str, **settings) -> tuple[tuple[str, ...], dict]:
    return spellings, {"dest": name, "default": _field_default(EvalOptions, name), **settings}


def _statistics_flag(name: str, **settings) -> tuple[tuple[str, ...], dict]:
    spelling = f"--{name}"
    return (spelling,), {"dest": name, "default": _field_default(StatisticsOptions, name),
                         **settings}  # fmt: skip


MEMORY_HELP = (
    "memory reading the run may take, e.g. 2G or 500M (default: half of what is available); a "
    "run file expected to need more is streamed in chunks of whole queries"
)
FLAGS: dict[str, tuple[tuple[str, ...], dict]] = {
    "ties": _eval_flag(
        "ties", "--ties", choices=TIE_POLICIES,
        help="order of tied scores (default: trec_eval = doc id descending)",
    ),
    "duplicates": _eval_flag(
        "duplicates", "--duplicates", choices=DUPLICATE_POLICIES,
        help="a repeated (query, doc) in the run: error (default) or keep the best score",
    ),
    "empty_queries": _eval_flag(
        "empty_queries", "--empty-queries", choices=EMPTY_QUERY_POLICIES,
        help="qrels queries with no relevant doc: score 0 (default, trec_eval) or skip",
    ),
    "engine": _eval_flag(
        "engine", "--engine", choices=ENGINES,
        help="citeval (default: the columnar kernels; any measure they lack goes to "
        "ir-measures), pytrec_eval (every measure through ir-measures) or dask (the "
        "kernels on a Dask cluster's workers, see --scheduler)",
    ),
    "verify": _eval_flag(
        "verify", "--verify", action="store_true",
        help="compute with both engines and fail on any per-query difference above 1e-9",
    ),
    "max_docs": _eval_flag(
        "max_docs", "-M", "--max-docs", type=int, metavar="N",
        help="only the first N docs of each ranking count (after the tie policy's sort), "
        "as trec_eval -M N",
    ),
    "memory": _eval_flag("memory", "--memory", help=MEMORY_HELP),
    "scheduler": _eval_flag(
        "scheduler", "--scheduler",
        help="with --engine dask: the Dask scheduler's address (tcp://HOST:8786); default: a "
        "local cluster",
    ),
    "percent": _eval_flag(
        "percent", "--percent", action="store_const", const=True,
        help="print values in percent (counts stay counts; default: the protocol's unit)",
    ),
    "decimals": _eval_flag(
        "decimals", "--decimals", type=int, metavar="N",
        help="decimals of printed values (default: the protocol's in its unit, else 2 in "
        "percent, 4 for fractions)",
    ),
    "test": _statistics_flag(
        "test", choices=PRIMARY_TESTS,
        help="the paired test behind the significance marks (default: randomisation)",
    ),
    "correction": _statistics_flag(
        "correction", choices=CORRECTIONS,
        help="multiple-comparison correction over every test of the output (default: holm)",
    ),
    "alpha": _statistics_flag("alpha", type=float, help="significance level (default 0.05)"),
    "permutations": _statistics_flag(
        "permutations", type=int,
        help=f"random permutations (default {_field_default(StatisticsOptions, 'permutations'):,})",
    ),
    "bootstrap": _statistics_flag(
        "bootstrap", type=int,
        help=f"bootstrap resamples (default {_field_default(StatisticsOptions, 'bootstrap'):,})",
    ),
    "seed": _statistics_flag(
        "seed", type=int, help=f"default {_field_default(StatisticsOptions, 'seed')}"
    ),
}  # fmt: skip
EVALUATION = ("ties", "duplicates", "empty_queries", "engine", "verify", "max_docs", "memory",
              "scheduler")  # fmt: skip
DISPLAY = ("percent", "decimals")
STATISTICS = ("test", "correction", "alpha", "permutations", "bootstrap", "seed")


def add_options(parser: argparse.ArgumentParser, *names: str, **changes: dict) -> None:
    """The options ``names`` of :data:`FLAGS` on ``parser``, each as declared there;
    ``changes``: by option name, the settings a command words its own way (its help, a
    narrower set of choices)."""
    for name in names:
        spellings, settings = FLAGS[name]
        parser.add_argument(*spellings, **{**settings, **changes.get(name, {})})


def _given(args: argparse.Namespace, kind) -> dict:
    """The fields of ``kind`` the command has options for, as parsed."""
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(kind)
            if f.name in FLAGS and hasattr(args, f.name)}  # fmt: skip


def eval_options(args: argparse.Namespace) -> EvalOptions:
    """The :class:`EvalOptions` of any command's arguments (``--quiet``: no progress bar):
    the one object the command hands on."""
    progress = False if getattr(args, "quiet", False) else None
    return EvalOptions(**_given(args, EvalOptions), progress=progress)


def statistics_options(args: argparse.Namespace) -> StatisticsOptions:
    """The :class:`StatisticsOptions` of any command's arguments."""
    return StatisticsOptions(**_given(args, StatisticsOptions))


def add_report_option(parser: argparse.ArgumentParser) -> None:
    """``--report PATH``: the results, checks and plots as one self-contained file."""
    parser.add_argument(
        "--report",
        metavar="PATH",
        help="also write a self-contained report with the scores, checks and plots "
        "(PATH.html, or PATH.md for Markdown; opens offline; an existing file is replaced "
        "only with --force)",
    )
    add_force_option(parser)


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """``--force``: the one overwrite rule of every command that writes (an existing output
    is an error, checked before any work, unless ``--force``)."""
    from ..base.outputs import FORCE_HELP

    parser.add_argument("--force", action="store_true", help=FORCE_HELP)


def _check_report(args: argparse.Namespace) -> None:
    """A bad report path fails before any work (not after a long evaluation), and so does
    an existing one without ``--force`` (except the demo's own default report)."""
    report = _report_path(args)
    if report:
        from ..base.outputs import report_format

        own = args.handler is _cmd_demo and args.report is None
        report_format(report, force=args.force or own)


def _report_path(args: argparse.Namespace) -> str | None:
    """The report a command writes, if any: ``--report``, or the demo's default."""
    if getattr(args, "no_report", False):
        return None
    if args.handler is _cmd_demo:
        return args.report or DEMO_REPORT
    return getattr(args, "report", None)


def _write_report(args: argparse.Namespace, runs: dict, measures=None, **given) -> None:
    """Build the report of ``runs`` from what the command computed (``given``: the
    evaluations, comparison, cross-checks), with the command's options, write it, say
    where."""
    from ..report import make_report

    report = make_report(
        runs,
        args.qrels if args.qrels is not None else args.dataset,
        measures if measures is not None else args.measures,
        protocol=args.protocol,
        options=eval_options(args),
        same_year=getattr(args, "same_year", True),
        command=args.command_line,
        **given,
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


def _cmd_eval(args: argparse.Namespace) -> int:
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
        sys.stderr.write(result.warnings_text())
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
    sys.stderr.write(result.warnings_text())
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
    ``--ties``'s order in ``citeval crosscheck``, in the run's in ``citeval eval``)."""
    from ..checks.crosscheck import crosscheck

    return crosscheck(
        args.run,
        args.qrels if args.qrels is not None else args.dataset,
        args.measures,
        protocol=args.protocol,
        recipe=args.recipe,
        ties=getattr(args, "recipe_ties", "run_order"),
        options=eval_options(args),
    )


def _cmd_crosscheck(args: argparse.Namespace) -> int:
    if args.recipe is None and args.protocol is None and args.measures not in PROTOCOLS:
        raise InputError(
            None,
            "name a recipe (--recipe goyal2026) or a protocol (--protocol goyal2026); "
            f"recipes: {', '.join(RECIPES)}",
        )
    report = _crosscheck(args)
    shown = _shown(eval_options(args))
    sys.stdout.write(report.format(args.format, **shown, max_rows=args.max_rows))
    for warning in report.warnings:
        sys.stderr.write(f"warning: {plain_text(str(warning))}\n")
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


def _cmd_convert(args: argparse.Namespace) -> int:
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


def add_convert_command(commands) -> None:
    """``citeval convert``: a TREC run (or qrels) as Parquet."""
    cv = commands.add_parser(
        "convert",
        help="write a TREC run (or qrels) as Parquet: one file, or for a large run a folder "
        "of files holding whole queries",
        description="Reads a TREC run in chunks of whole queries (sorting it out of core "
        "first if it is not grouped by query) and writes query_id, doc_id, score as Parquet. "
        "An existing TARGET is an error unless --force; a folder is replaced only if it holds "
        "nothing but the part-NNNNN.parquet files of an earlier conversion.",
    )
    cv.add_argument("source", help="TREC run or qrels file (.gz accepted), or Parquet")
    cv.add_argument("target", help="Parquet file, or folder for a partitioned run")
    cv.add_argument("--qrels", action="store_true", help="the source is qrels, not a run")
    cv.add_argument(
        "--partition-rows",
        type=int,
        help="write a folder of files of about this many rows each (whole queries); "
        "default: a folder only when the run is larger than --memory allows",
    )
    add_options(cv, "memory", memory={"help": "memory the conversion may take, e.g. 2G"})
    add_force_option(cv)
    cv.set_defaults(handler=_cmd_convert)


def _cmd_recipes(args: argparse.Namespace) -> int:
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


def _cmd_protocols(args: argparse.Namespace) -> int:
    for protocol in PROTOCOLS.values():
        scale = "percent" if protocol.percent else "fraction"
        measures = " ".join(str(m) for m in protocol.measures)
        print(f"{protocol.name}: {protocol.reference} ({scale}, {protocol.decimals} decimals)")
        print(f"  {measures}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from ..datasets import import_dataset

    report = import_dataset(
        args.name,
        args.folder,
        symlink=args.symlink,
        allow_count_mismatch=args.allow_count_mismatch,
    )
    sys.stdout.write(report.text())
    return 0


def _cmd_baseline_bm25(args: argparse.Namespace) -> int:
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
    for warning in run.warnings:
        print(f"warning: {plain_text(str(warning))}", file=sys.stderr)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
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


def _cmd_demo(args: argparse.Namespace) -> int:
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


def _cmd_compare(args: argparse.Namespace) -> int:
    from ..comparison.compare import compare

    _check_max_docs(args)
    runs = _named_runs(args.runs)
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
            published=args.published_dataset or args.published,
            paper=args.paper,
            stage=args.stage,
            same_year=args.same_year,
            options=eval_options(args),
            statistics=statistics_options(args),
        )
    sys.stdout.write(comparison.format(args.format))
    for warning in comparison.warnings:
        sys.stderr.write(f"warning: {plain_text(str(warning))}\n")
    if args.report:
        with _quiet_ir_datasets():
            _write_report(args, runs, evaluations=comparison.results, comparison=comparison)
    return 0


def _cmd_published(args: argparse.Namespace) -> int:
    from ..checks.published import published

    table = published(args.dataset, paper=args.paper, setting=args.setting, stage=args.stage)
    sys.stdout.write(table.format(args.format))
    return 0


def add_compare_commands(commands) -> None:
    """``citeval compare`` and ``citeval published``."""
    co = commands.add_parser(
        "compare",
        help="compare runs query by query: differences, intervals, effect sizes, paired tests",
        description="Evaluates every run the same way and compares them on the same queries: "
        "means, differences with a paired-bootstrap interval, effect size, win/tie/loss, "
        "randomisation / t / Wilcoxon / sign tests, a correction for multiple comparisons and, "
        "with three or more runs, Sakai's randomised Tukey HSD; --published puts the runs "
        "beside the shipped published results.",
    )
    co.add_argument("runs", nargs="+", help="run files (named after their stem), or NAME=PATH")
    add_source_options(co)
    co.add_argument("--baseline", help="the run every other is compared with (default: all pairs)")
    add_options(co, *STATISTICS)
    co.add_argument(
        "--tukey",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="randomised Tukey HSD over all runs (default: with three or more runs)",
    )
    co.add_argument(
        "--queries",
        choices=COMPARE_QUERY_POLICIES,
        default="common",
        help="compare on the queries every run ranks (default), or all qrels queries with "
        "unranked ones scored 0",
    )
    add_options(co, *EVALUATION, *DISPLAY)
    add_format_option(co, COMPARE_FORMATS, help="output format")
    co.add_argument(
        "--published",
        action="store_true",
        help="also print the runs beside the published results for the dataset",
    )
    co.add_argument(
        "--published-dataset",
        help="compare with this table dataset instead (e.g. ACL-200); flagged not like for like "
        "when it is not the run's",
    )
    co.add_argument("--paper", help="whose published results (default: the protocol's)")
    co.add_argument("--stage", default="end-to-end", help="table stage (default end-to-end)")
    add_year_options(co, unknown_year=False)
    add_report_option(co)
    co.set_defaults(handler=_cmd_compare)

    pu = commands.add_parser("published", help="list the published results shipped, or show some")
    pu.add_argument("--dataset", help="a dataset (ACL-200 or citeval/acl-200/test): its figures")
    pu.add_argument("--paper", help="one paper's results (e.g. goyal2026)")
    pu.add_argument("--setting", help="one setting (e.g. inductive)")
    pu.add_argument("--stage", help="one stage (end-to-end or retrieval)")
    add_format_option(pu, LISTING_FORMATS)
    pu.set_defaults(handler=_cmd_published)


def _cmd_table(args: argparse.Namespace) -> int:
    from ..comparison.results_table import results_table

    with _quiet_ir_datasets():
        table = results_table(
            args.manifest,
            measures=args.measures,
            protocol=args.protocol,
            baseline=args.baseline,
            published=args.published,
            same_year=args.same_year,
            jobs=args.jobs,
            options=eval_options(args),
            statistics=statistics_options(args),
        )
    sys.stdout.write(table.format(args.format))
    _write_result_report(args, table)
    return 0


def _write_result_report(args: argparse.Namespace, result) -> None:
    """The result's warnings (on standard error) and, with ``--report PATH``, its own
    report (table, breakdown), written, and where."""
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if args.report:
        path = result.report(command=args.command_line).write(args.report)
        print(f"citeval: report written to {path}", file=sys.stderr)


def _cmd_breakdown(args: argparse.Namespace) -> int:
    from ..comparison.breakdown import breakdown

    check_dataset(args.dataset)
    with _quiet_ir_datasets():
        result = breakdown(
            _named_runs(args.runs),
            args.dataset,
            args.by,
            args.measure,
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


def add_statistics_options(parser: argparse.ArgumentParser) -> None:
    """The paired test (two runs), its correction and random draws, and how the runs are
    ranked and read: ``citeval table`` and ``citeval breakdown``."""
    add_options(parser, *STATISTICS, "ties", "memory", test={"choices": TESTS})


def add_table_commands(commands) -> None:
    """``citeval table`` and ``citeval breakdown``."""
    ta = commands.add_parser(
        "table",
        help="a paper's results table from a manifest of runs (systems x datasets x measures)",
        description="Validates and evaluates every run a manifest lists (CSV or TSV: system, "
        "dataset, run; run paths relative to the manifest) with its dataset's protocol, "
        "compares each system with --baseline on each dataset (compare's tests, corrected "
        "over the whole table) and prints the table: systems as rows, datasets as column "
        "groups, measures as columns.",
    )
    ta.add_argument("manifest", help="CSV or TSV with columns system, dataset, run")
    which = ta.add_mutually_exclusive_group()
    which.add_argument("-m", "--measures", help="measures for every dataset (ir-measures syntax)")
    which.add_argument("--protocol", choices=sorted(PROTOCOLS),
                       help="protocol for every dataset (default: each dataset's own)")  # fmt: skip
    ta.add_argument("--baseline", help="the system every other is compared with, per dataset")
    ta.add_argument("--published", metavar="PAPER",
                    help="interleave this paper's published rows (e.g. goyal2026)")  # fmt: skip
    add_statistics_options(ta)
    add_year_options(ta, unknown_year=False)
    ta.add_argument("--jobs", type=int, default=1, help="runs evaluated at once, in processes")
    engine = {
        "choices": TABLE_ENGINES,
        "help": "dask: evaluate the runs on a Dask cluster's workers",
    }
    add_options(ta, "engine", "scheduler", *DISPLAY, engine=engine)
    add_format_option(ta, TABLE_FORMATS, help="output format")
    add_report_option(ta)
    ta.set_defaults(handler=_cmd_table)

    bd = commands.add_parser(
        "breakdown",
        help="a measure per group of queries (year, heading, gold count, venue, popularity)",
        description="Groups the dataset's queries by a facet and gives each group's size and "
        "each run's mean with a 95 %% bootstrap interval; with several runs, the difference "
        "from the baseline per group with a paired test, corrected over all groups.",
    )
    bd.add_argument("runs", nargs="+", help="run files (named after their stem), or NAME=PATH")
    bd.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    bd.add_argument("--by", required=True, choices=FACETS, help="the facet to group by")
    which = bd.add_mutually_exclusive_group()
    which.add_argument("-m", "--measure", help="the measure (default: the protocol's first)")
    which.add_argument("--protocol", choices=sorted(PROTOCOLS), help="default: the dataset's")
    bd.add_argument(
        "--bins", type=int, default=3, help="popularity bins (default 3: tail, torso, head)"
    )
    bd.add_argument("--min-queries", type=int, default=30,
                    help="groups smaller than this are flagged (default 30)")  # fmt: skip
    bd.add_argument("--baseline", help="the run the others are compared with (default the first)")
    add_statistics_options(bd)
    add_options(bd, *DISPLAY)
    add_format_option(bd, LISTING_FORMATS)
    add_report_option(bd)
    bd.set_defaults(handler=_cmd_breakdown)


def add_year_options(parser: argparse.ArgumentParser, *, unknown_year: bool = True) -> None:
    """The temporal protocol's explicit choices (see admissible_candidates)."""
    parser.add_argument(
        "--same-year",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="admit papers of the query paper's own year (default: yes)",
    )
    if unknown_year:
        parser.add_argument(
            "--unknown-year",
            choices=UNKNOWN_YEAR_POLICIES,
            default="admit",
            help="docs without a year: admit (default) or exclude",
        )


def _cmd_datasets(args: argparse.Namespace) -> int:
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


def _cmd_verify(args: argparse.Namespace) -> int:
    from ..datasets.importing import verify_corpus

    sys.stdout.write(verify_corpus(args.name))
    return 0


def _os_error(exc: OSError) -> str:
    """One line for an OSError no command expected (the file, the system's reason)."""
    from ..base.outputs import WRITE_ERRNOS, output_error

    if exc.errno in WRITE_ERRNOS:
        return str(output_error(exc.filename or "a file", exc))
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}".replace("\n", " ")


class Interrupted(BaseException):
    """Ctrl-C, raised in place of ``KeyboardInterrupt``, which ir_datasets' commands catch
    and turn into exit status 0."""


def _interrupt(signum, frame) -> None:
    raise Interrupted


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeval",
        description="Trustworthy citation-recommendation evaluation (ir-measures, trec_eval).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_eval_command(commands)
    add_crosscheck_command(commands)
    add_listing_commands(commands)
    add_dataset_commands(commands)
    baselines = add_baseline_command(commands)
    add_validate_command(commands)
    add_demo_command(commands)
    add_compare_commands(commands)
    add_table_commands(commands)
    add_convert_command(commands)
    add_quiet_option(commands, baselines)
    return parser


def add_format_option(parser: argparse.ArgumentParser, formats: Sequence[str], **more) -> None:
    """``--format``: one of what the command's result prints (default ``table``)."""
    parser.add_argument("--format", choices=formats, default="table", **more)


def add_strict_option(parser: argparse.ArgumentParser, when: str) -> None:
    """``--strict``: exit :data:`EXIT_STRICT_FAILURE` ``when``."""
    parser.add_argument("--strict", action="store_true", help=f"exit {EXIT_STRICT_FAILURE} {when}")


def add_eval_command(commands) -> None:
    """``citeval eval``: a run's scores (its validation above them, with ``--dataset``)."""
    ev = commands.add_parser("eval", help="evaluate a run against qrels or a dataset")
    add_run_options(ev)
    add_options(ev, *EVALUATION)
    ev.add_argument("--per-query", action="store_true", help="also print per-query values")
    add_options(ev, *DISPLAY)
    add_format_option(ev, FORMATS, help="output format")
    ev.add_argument(
        "--crosscheck",
        action="store_true",
        help="also recompute every measure with the paper's recipe and explain differences",
    )
    add_recipe_options(ev)
    add_report_option(ev)
    add_strict_option(
        ev, "with --dataset: if the run breaks the protocol (the validation printed above the "
        "scores)",
    )  # fmt: skip
    add_year_options(ev)
    ev.set_defaults(handler=_cmd_eval)


def add_crosscheck_command(commands) -> None:
    """``citeval crosscheck``: trec_eval's semantics beside a paper's recipe."""
    cc = commands.add_parser(
        "crosscheck", help="compare trec_eval semantics with a paper's recipe, query by query"
    )
    add_run_options(cc, measures_required=False)  # a --recipe alone brings its measures
    add_recipe_options(cc)
    cc.add_argument(
        "--ties",
        dest="recipe_ties",
        choices=TIE_POLICIES,
        default="run_order",
        help="order in which the recipe sees tied scores (default: run_order, as a paper's "
        "script reads its list); the trec_eval side always uses trec_eval's order",
    )
    add_format_option(cc, PLAIN_FORMATS)
    add_options(cc, "memory", *DISPLAY)  # a run above the memory is cross-checked in chunks
    cc.add_argument("--max-rows", type=int, default=10, help="differing queries to show")
    add_strict_option(
        cc, "if any difference is unexplained (or, with --tolerance, if an aggregate differs "
        "by more than it)",
    )  # fmt: skip
    cc.add_argument("--tolerance", type=float, help="largest aggregate difference --strict accepts")
    add_report_option(cc)
    add_year_options(cc, unknown_year=False)  # the rule of the --report's validation
    cc.set_defaults(handler=_cmd_crosscheck)


def add_listing_commands(commands) -> None:
    """``citeval recipes`` and ``citeval protocols``."""
    rc = commands.add_parser("recipes", help="list the paper recipes and their quirks")
    rc.set_defaults(handler=_cmd_recipes)
    pr = commands.add_parser("protocols", help="list the named protocols and their measures")
    pr.set_defaults(handler=_cmd_protocols)


def add_dataset_commands(commands) -> None:
    """``citeval import``, ``citeval datasets`` and ``citeval verify``."""
    im = commands.add_parser(
        "import",
        help="check a downloaded dataset folder and install it into the ir_datasets home",
    )
    name_help, folder_help = _corpus_help(importable=True)
    im.add_argument("name", help=name_help)
    im.add_argument("folder", help=folder_help)
    im.add_argument("--symlink", action="store_true", help="link the files instead of copying")
    im.add_argument(
        "--allow-count-mismatch",
        action="store_true",
        help="install even if the counts differ from the published ones (reported)",
    )
    im.set_defaults(handler=_cmd_import)

    ds = commands.add_parser(
        "datasets",
        help="the ir_datasets command line (export, lookup, ...) with the citeval datasets; "
        "`citeval datasets list` lists ours with counts and how each is obtained",
        description="Runs `ir_datasets ARGS` with the citeval/... datasets registered, e.g. "
        "`citeval datasets export citeval/acl-200/test qrels`. `citeval datasets list` lists "
        "the citeval datasets with their counts, how each is obtained and whether its files "
        "are here; `citeval datasets list --all` is ir_datasets' own list of every id.",
    )
    ds.add_argument("args", nargs=argparse.REMAINDER, help="arguments for ir_datasets")
    ds.set_defaults(handler=_cmd_datasets)

    ve = commands.add_parser(
        "verify",
        help="check a dataset's files in full (sha256 against their records or published "
        "checksums) and its stores",
    )
    ve.add_argument("name", help=_corpus_help(importable=False)[0])
    ve.set_defaults(handler=_cmd_verify)


def add_baseline_command(commands):
    """``citeval baseline bm25``; the group of baselines (each gets ``--quiet``)."""
    bl = commands.add_parser("baseline", help="make a baseline run for a dataset")
    baselines = bl.add_subparsers(dest="baseline", metavar="BASELINE", required=True)
    bm = baselines.add_parser(
        "bm25",
        help="BM25 (bm25s) over title + abstract, the citing paper never ranked",
        description="Ranks every doc of DATASET for each query with BM25 (bm25s, Snowball "
        "stemming, English stopwords) and writes the top K as a TREC run.",
    )
    bm.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    bm.add_argument("-k", type=int, default=300, help="docs per query (default 300)")
    bm.add_argument("-o", "--output", required=True, help="run file to write (.gz: gzip)")
    bm.add_argument(
        "--temporal",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rank only admissible candidates, nothing published after the query paper "
        "(default, the year rule of validate); --no-temporal ranks every paper",
    )
    add_year_options(bm)
    bm.add_argument("--k1", type=float, default=1.5, help="BM25 k1 (default 1.5)")
    bm.add_argument("--b", type=float, default=0.75, help="BM25 b (default 0.75)")
    bm.add_argument(
        "--stemmer", default="english", help="Snowball stemmer language, or none (default english)"
    )
    bm.add_argument(
        "--fields",
        help="doc fields to index, comma-separated, e.g. title (default: title + abstract)",
    )
    bm.add_argument("--tag", default="bm25", help="run tag, 6th column (default bm25)")
    add_force_option(bm)
    bm.set_defaults(handler=_cmd_baseline_bm25)
    return baselines


def add_validate_command(commands) -> None:
    """``citeval validate``: a run against its dataset's protocol."""
    va = commands.add_parser(
        "validate",
        help="check a run against a dataset's protocol (later papers, the query paper, ...)",
    )
    va.add_argument("run", help="TREC run file (6 columns; .gz accepted) or Parquet")
    va.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    depth = va.add_mutually_exclusive_group()
    depth.add_argument(
        "-m",
        "--measures",
        action=MeasuresAction,
        help="the measures the run will be evaluated with: every ranking must reach their "
        "deepest cut-off (default: the dataset's protocol's)",
    )
    depth.add_argument("--protocol", choices=sorted(PROTOCOLS), help="or a named protocol's")
    add_year_options(va)
    max_docs_help = (
        "the evaluation will count only the first N docs of each ranking (trec_eval -M): the "
        "depth check reads the rankings so cut"
    )
    add_options(va, "memory", "max_docs", max_docs={"help": max_docs_help})
    add_format_option(va, PLAIN_FORMATS)
    add_strict_option(va, "if any check fails, gold_always_present included (otherwise a warning)")
    va.set_defaults(handler=_cmd_validate)


def add_demo_command(commands) -> None:
    """``citeval demo``: the whole job on the shipped demo benchmark."""
    de = commands.add_parser(
        "demo",
        help="the whole job on the shipped demo benchmark: BM25, evaluation, validation, "
        "cross-check, a comparison and an HTML report",
        description="Runs the whole job on citeval/demo/test, a GENERATED benchmark shipped "
        "inside the package (no download): a BM25 run, its goyal2026 evaluation, protocol "
        "validation, the cross-check, a comparison with a weaker baseline (BM25 over titles "
        "only) and a report with plots (demo-report.html).",
    )
    de.add_argument("--dataset", default="citeval/demo/test", help="default citeval/demo/test")
    de.add_argument("-k", type=int, default=300, help="docs per query (default 300)")
    de.add_argument(
        "--temporal",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rank only admissible candidates (default); --no-temporal shows what "
        "validation catches",
    )
    add_year_options(de, unknown_year=False)
    de.add_argument("-o", "--output", help="also write the BM25 run to this file")
    de.add_argument(
        "--report",
        metavar="PATH",
        help=f"the report with the scores, checks and plots (default {DEMO_REPORT} in the "
        f"current folder, the demo's own file, replaced on every run; .md for Markdown)",
    )
    de.add_argument("--no-report", action="store_true", help="write no report")
    add_force_option(de)
    de.set_defaults(handler=_cmd_demo)


def add_quiet_option(*groups) -> None:
    """``--quiet`` on every command of ``groups`` (subparser groups; a command that has its
    own subcommands, ``baseline``, gets it on each of them): no progress bars, no INFO
    messages."""
    for group in groups:
        for name, command in group.choices.items():
            if name == "baseline":
                continue
            command.add_argument(
                "-q",
                "--quiet",
                action="store_true",
                help="no progress bars and no INFO messages (warnings and errors still show)",
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.command_line = shlex.join(["citeval", *(sys.argv[1:] if argv is None else argv)])
    args.started = time.perf_counter()
    handler: Callable[[argparse.Namespace], int] = args.handler
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _interrupt) if in_main_thread else None
    set_quiet(getattr(args, "quiet", False))
    try:
        _check_report(args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvalWarning)  # each command prints its own
            return handler(args)
    except CitevalError as exc:
        print(f"citeval: error: {plain_text(str(exc))}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:  # e.g. `citeval eval ... | head`
        return 0
    except OSError as exc:  # a full disk, a vanished file: said, not a traceback
        print(f"citeval: error: {_os_error(exc)}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except (Interrupted, KeyboardInterrupt):
        print("citeval: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        set_quiet(False)
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)


def run() -> None:
    """The ``citeval`` console script: :func:`main`, then an exit that runs the exit
    handlers but does not tear the interpreter down. Native reader threads (Arrow's parsing
    ahead of a file that turned out corrupt) can still be winding down then, and tearing
    down under them aborts the process after the error was said (exit 134, not 2)."""
    import atexit

    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)
