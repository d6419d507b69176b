"""What every command does around its one public function: its arguments read once into
what the function takes (:class:`Invocation`: the qrels, the measures, the protocol, the
options objects), the checks made before any work (the dataset id, the report path,
``--max-docs`` with what reads whole rankings), the runs named, and what is said after
(the warnings on standard error, the report written)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from ..base.errors import InputError
from ..base.options import EvalOptions, ExecutionOptions, StatisticsOptions, check_decimals
from ..base.progress import is_quiet
from ..printing.escaping import plain_text
from ..printing.printable import warning_line
from .flags import DEMO_REPORT, given_fields


def say(line: str) -> None:
    """A line of the command's own on standard error (``citeval: error: ...``), escaped as
    every terminal line is: a path or an id in it cannot drive the terminal."""
    print(plain_text(line), file=sys.stderr)


def inform(line: str) -> None:
    """A line that only informs (``citeval: report written to PATH``, ``wrote N lines``,
    the measures a dataset's protocol gave): :func:`say`, but not with ``--quiet``, which
    leaves a command its output, its warnings and its errors."""
    if not is_quiet():
        say(line)


class Invocation:
    """A command's arguments as the public functions take them, each read once.

    ``qrels`` is ``--qrels FILE`` or else ``--dataset ID``; ``options``, ``execution`` and
    ``statistics`` are built from the arguments the first time they are asked for (a bad
    option is the command's error at that point, before the function is called), then
    shared by every call the command makes (its evaluation, cross-check, validation and
    report); ``shown`` is how its results print.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    @property
    def qrels(self):
        """What the runs are scored against: the qrels file, else the dataset id."""
        args = self.args
        return args.qrels if args.qrels is not None else args.dataset

    @cached_property
    def measures(self):
        """``-m/--measures`` as given (``None``: the protocol's); with ``--protocol`` too, the
        protocol's measures in its order, then those of ``-m`` it lacks, in theirs (each
        once, however spelled: ``R@10`` and ``recall_10`` are one)."""
        given, protocol = self.args.measures, self.args.protocol
        if given is None or protocol is None:
            return given
        from ..evaluation.settings import resolve_measures
        from ..papers import PROTOCOLS, get_protocol

        own = list(get_protocol(protocol).measures)
        extra = resolve_measures(given, None if given.strip() in PROTOCOLS else protocol)[0]
        return own + [measure for measure in extra if measure not in own]

    def dataset_protocol(self) -> None:
        """With neither ``-m`` nor ``--protocol``: the protocol the ``--dataset`` documents
        (said in one line on standard error, as a report says what it was computed with;
        not with ``--quiet``), or an error saying what to give, before any work."""
        from ..papers import PROTOCOLS

        args = self.args
        if args.measures is not None or args.protocol is not None:
            return
        found = None
        if args.dataset is not None:
            from ..checks.protocol import dataset_protocol
            from ..datasets.registry import find_dataset, unknown_dataset

            dataset = find_dataset(args.dataset)
            if dataset is None:
                raise unknown_dataset(args.dataset)
            found = dataset_protocol(dataset[1])
        if found is None:
            names = f"{args.dataset} names no protocol: " if args.dataset else ""
            raise InputError(
                None,
                f'{names}give measures (-m "RR R@10 nDCG@10") or a '
                f"protocol (--protocol {', '.join(PROTOCOLS)})",
            )
        args.protocol = found
        others = "others: -m, --protocol"
        inform(f"citeval: measures: {found}, the protocol of {args.dataset} ({others})")

    @property
    def protocol(self) -> str | None:
        """``--protocol`` as given."""
        return self.args.protocol

    @cached_property
    def options(self) -> EvalOptions:
        """The command's :class:`EvalOptions`: what its numbers mean."""
        return EvalOptions(**given_fields(self.args, EvalOptions))

    @cached_property
    def execution(self) -> ExecutionOptions:
        """The command's :class:`ExecutionOptions` (``--quiet``: no progress bar;
        ``--jobs``: processes): how its numbers are computed."""
        args = self.args
        progress = False if getattr(args, "quiet", False) else None
        jobs = {"jobs": args.jobs} if getattr(args, "jobs", None) is not None else {}
        return ExecutionOptions(**given_fields(args, ExecutionOptions), progress=progress, **jobs)

    @cached_property
    def statistics(self) -> StatisticsOptions:
        """The command's :class:`StatisticsOptions`."""
        return StatisticsOptions(**given_fields(self.args, StatisticsOptions))

    @cached_property
    def shown(self) -> dict:
        """How values print (``--percent``, ``--decimals``): the keywords of a result's
        ``format`` (and of a report's ``shown``), checked."""
        decimals = check_decimals(getattr(self.args, "decimals", None))
        return {"percent": getattr(self.args, "percent", None), "decimals": decimals}

    def built(self) -> None:
        """Every option object and how values print, built now: a bad option is the
        command's error before any work."""
        self.options, self.execution, self.shown  # noqa: B018

    def check_dataset(self) -> None:
        """``--dataset`` must be a registered id (:func:`check_dataset`)."""
        check_dataset(self.args.dataset)

    def say_warnings(self, warnings) -> None:
        """The command's warnings on standard error, one line each (:func:`~citeval_irm.
        printing.printable.warning_line`, as a result's ``warnings_text``): each line once,
        however many steps of the command found it, and none of the codes
        ``--quiet-warning`` names."""
        hidden = set(getattr(self.args, "quiet_warning", None) or ())
        said: set[str] = set()
        for warning in warnings:
            line = warning_line(warning)
            if warning.code not in hidden and line not in said:
                said.add(line)
                print(line, file=sys.stderr)

    def write_report(self, runs: dict, measures=None, **given) -> None:
        """Build the report of ``runs`` from what the command computed (``given``: the
        evaluations, comparison, cross-checks), with the command's options, write it, say
        where."""
        from ..report import Computed, make_report

        args = self.args
        report = make_report(
            runs,
            self.qrels,
            measures if measures is not None else self.measures,
            protocol=self.protocol,
            options=self.options,
            execution=self.execution,
            same_year=getattr(args, "same_year", True),
            computed=Computed(**given),
        ).shown(**self.shown)
        report.command = args.command_line
        path = report.write(args.report)
        inform(f"citeval: report written to {path}")

    def write_result_report(self, result, **shown) -> None:
        """The result's warnings (on standard error) and, with ``--report PATH``, its own
        report (table, breakdown: ``shown``, what else it is printed with), written, and
        where."""
        self.say_warnings(result.warnings)
        if self.args.report:
            path = result.write_report(
                self.args.report, command=self.args.command_line, **self.shown, **shown
            )
            inform(f"citeval: report written to {path}")


def check_dataset(name: str) -> None:
    """A ``--dataset`` that is no registered id stops the command at once: "unknown
    dataset", with the close matches."""
    from ..datasets.registry import find_dataset, unknown_dataset

    if find_dataset(name) is None:
        raise unknown_dataset(name)


def check_report(args: argparse.Namespace) -> None:
    """A bad report path fails before any work (not after a long evaluation), and so does
    an existing one without ``--force`` (except the demo's own default report)."""
    report = report_path(args)
    if report:
        from ..base.outputs import report_format

        own = args.command == "demo" and args.report is None
        report_format(report, force=args.force or own)


def report_path(args: argparse.Namespace) -> str | None:
    """The report a command writes, if any: ``--report``, or the demo's default."""
    if getattr(args, "no_report", False):
        return None
    if args.command == "demo":
        return args.report or DEMO_REPORT
    return getattr(args, "report", None)


def check_max_docs(args: argparse.Namespace) -> None:
    """``--max-docs`` cuts the rankings the evaluation scores; a cross-check (a paper's
    script over the run as given) and a report's plots and tie ranges read whole rankings,
    so they are refused together with it rather than silently computed on another run."""
    if args.max_docs is None:
        return
    for option in ("crosscheck", "report"):
        if getattr(args, option, None):
            raise InputError(None, f"--max-docs cannot be combined with --{option}")


@contextlib.contextmanager
def quiet_ir_datasets() -> Iterator[None]:
    """No INFO messages (ir_datasets' store openings) while a report is made: the tables
    are the point."""
    logging.disable(logging.INFO)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def run_label(path: str) -> str:
    """The name a run file is shown by (its stem), or ``run``."""
    from ..comparison.compare import run_name

    return run_name(path) or "run"


def named_runs(values: list[str]) -> dict[str, str]:
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
