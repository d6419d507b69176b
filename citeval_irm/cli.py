"""The ``citeval`` command line: a thin layer over the Python API.

Each subcommand parses its arguments and calls one public function. Results go to standard
output (so ``--format trec_eval`` output can be diffed), warnings and errors to standard
error; bad input exits with status 2 and a message naming the file, line and problem.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from . import __version__
from .errors import CitevalError
from .evaluation import EMPTY_QUERY_POLICIES, evaluate
from .io import DUPLICATE_POLICIES
from .measures import PROTOCOLS
from .results import FORMATS
from .ties import TIE_POLICIES

EXIT_INPUT_ERROR = 2


def add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that evaluates a run."""
    parser.add_argument("run", help="TREC run file (6 columns; .gz accepted)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--qrels", help="TREC qrels file (4 columns; .gz accepted)")
    source.add_argument("--dataset", help="ir_datasets id whose qrels to use")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "-m", "--measures", help='measures in ir-measures syntax, e.g. "RR R@10 nDCG@10"'
    )
    which.add_argument("--protocol", choices=sorted(PROTOCOLS), help="a named protocol")
    parser.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default="trec_eval",
        help="order of tied scores (default: trec_eval = doc id descending)",
    )
    parser.add_argument(
        "--duplicates",
        choices=DUPLICATE_POLICIES,
        default="error",
        help="a repeated (query, doc) in the run: error (default) or keep the best score",
    )
    parser.add_argument(
        "--empty-queries",
        choices=EMPTY_QUERY_POLICIES,
        default="zero",
        help="qrels queries with no relevant doc: score 0 (default, trec_eval) or skip",
    )


def _cmd_eval(args: argparse.Namespace) -> int:
    result = evaluate(
        args.run,
        args.qrels if args.qrels is not None else args.dataset,
        args.measures,
        protocol=args.protocol,
        ties=args.ties,
        duplicates=args.duplicates,
        empty_queries=args.empty_queries,
    )
    percent = True if args.percent else None
    sys.stdout.write(result.format(args.format, per_query=args.per_query, percent=percent))
    sys.stderr.write(result.warnings_text())
    return 0


def _cmd_protocols(args: argparse.Namespace) -> int:
    for protocol in PROTOCOLS.values():
        scale = "percent" if protocol.percent else "fraction"
        measures = " ".join(str(m) for m in protocol.measures)
        print(f"{protocol.name}: {protocol.reference} ({scale}, {protocol.decimals} decimals)")
        print(f"  {measures}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from .datasets import import_dataset

    report = import_dataset(
        args.name,
        args.folder,
        symlink=args.symlink,
        allow_count_mismatch=args.allow_count_mismatch,
    )
    sys.stdout.write(report.text())
    return 0


def _cmd_datasets(args: argparse.Namespace) -> int:
    from .datasets import ir_datasets_cli

    return ir_datasets_cli(args.args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeval",
        description="Trustworthy citation-recommendation evaluation (ir-measures, trec_eval).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    ev = commands.add_parser("eval", help="evaluate a run against qrels or a dataset")
    add_evaluation_options(ev)
    ev.add_argument("--per-query", action="store_true", help="also print per-query values")
    ev.add_argument("--percent", action="store_true", help="print values in percent")
    ev.add_argument("--format", choices=FORMATS, default="table", help="output format")
    ev.set_defaults(handler=_cmd_eval)

    pr = commands.add_parser("protocols", help="list the named protocols and their measures")
    pr.set_defaults(handler=_cmd_protocols)

    im = commands.add_parser(
        "import",
        help="check a downloaded dataset folder and install it into the ir_datasets home",
    )
    im.add_argument("name", help="acl-200, fulltextpeerread, refseer or arxiv")
    im.add_argument("folder", help="folder holding contexts.json, papers.json, train/val/test.json")
    im.add_argument("--symlink", action="store_true", help="link the files instead of copying")
    im.add_argument(
        "--allow-count-mismatch",
        action="store_true",
        help="install even if the counts differ from the published ones (reported)",
    )
    im.set_defaults(handler=_cmd_import)

    ds = commands.add_parser(
        "datasets",
        help="the ir_datasets command line (export, lookup, ...) with the citeval datasets",
        description="Runs `ir_datasets ARGS` with the citeval/... datasets registered, e.g. "
        "`citeval datasets export citeval/acl-200/test qrels`.",
    )
    ds.add_argument("args", nargs=argparse.REMAINDER, help="arguments for ir_datasets")
    ds.set_defaults(handler=_cmd_datasets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except CitevalError as exc:
        print(f"citeval: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:  # e.g. `citeval eval ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
