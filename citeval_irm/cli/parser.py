"""The ``citeval`` argument parser: one function per command, adding the options it takes
from :mod:`.flags` and its handler from :mod:`.commands` or :mod:`.data_commands`."""

from __future__ import annotations

import argparse
import difflib

from .. import __version__
from ..base.choices import (
    COMPARE_FORMATS,
    COMPARE_QUERY_POLICIES,
    EVAL_FORMATS,
    FACETS,
    LISTING_FORMATS,
    PLAIN_FORMATS,
    TABLE_ENGINES,
    TABLE_FORMATS,
    TIE_POLICIES,
)
from ..printing.escaping import plain_text
from .commands import (
    cmd_breakdown,
    cmd_compare,
    cmd_crosscheck,
    cmd_eval,
    cmd_resolve,
    cmd_table,
    cmd_validate,
)
from .data_commands import (
    cmd_audit,
    cmd_baseline_bm25,
    cmd_convert,
    cmd_datasets,
    cmd_demo,
    cmd_import,
    cmd_protocols,
    cmd_published,
    cmd_recipes,
    cmd_verify,
)
from .flags import (
    DEMO_REPORT,
    DISPLAY,
    EVALUATION,
    EXIT_STRICT_FAILURE,
    FLAGS,
    MEASURE_OPTIONS,
    REPORT,
    SOURCE,
    STATISTICS,
    VERBOSE_HELP,
    YEAR,
    add_jobs_option,
    add_options,
    add_published_options,
    add_quiet_option,
    add_resolution_options,
    add_statistics_options,
    corpus_help,
    section,
)
from .helptext import TREC_EVAL_HELP, WORKFLOW, HelpFormatter, add_examples, workflow_text


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
    add_options(cv, "memory", "force", memory={"help": "memory the conversion may take, e.g. 2G"})
    cv.set_defaults(handler=cmd_convert)


def add_compare_command(commands) -> None:
    """``citeval compare``: runs compared query by query (beside a published table)."""
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
    add_options(co, *SOURCE, *MEASURE_OPTIONS)
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
    add_options(
        co,
        *EVALUATION,
        *DISPLAY,
        "format",
        format={"choices": COMPARE_FORMATS, "help": "output format"},
    )
    add_published_options(
        co,
        published_help="also print the runs beside the published results for the dataset: the "
        "shipped ones (transcribed, not verified), or your own table FILE (a CSV with the "
        "shipped columns; give it after the runs)",
        dataset_help="compare with this table dataset instead (e.g. ACL-200); flagged not like "
        "for like when it is not the run's",
        paper_help="whose published results (default: the protocol's), or a CSV file",
    )
    co.add_argument("--stage", default="end-to-end", help="table stage (default end-to-end)")
    add_options(co, "same_year", *REPORT)
    co.set_defaults(handler=cmd_compare)


def add_published_command(commands) -> None:
    """``citeval published``: the shipped published tables, or one of the user's."""
    pu = commands.add_parser(
        "published",
        help="list the published results shipped, or show some",
        description="The shipped published tables (each labelled with where its figures come "
        "from: goyal2026's are transcribed from arXiv:2603.17361, not verified by the "
        "package), or a table of your own given with --paper FILE.",
    )
    pu.add_argument("--dataset", help="a dataset (ACL-200 or citeval/acl-200/test): its figures")
    pu.add_argument(
        "--paper",
        metavar="PAPER|FILE",
        help="one paper's results (e.g. goyal2026), or your own table (a CSV with "
        "the shipped columns)",
    )
    pu.add_argument("--setting", help="one setting (e.g. inductive)")
    pu.add_argument("--stage", help="one stage (end-to-end or retrieval)")
    pu.add_argument(
        "--check",
        action="store_true",
        help="judge every row possible or not as printed (a linear program over "
        "the gold paper's rank; docs/guides/published-check.md)",
    )
    add_options(pu, "format", format={"choices": TABLE_FORMATS})
    pu.set_defaults(handler=cmd_published)


def add_table_command(commands) -> None:
    """``citeval table``: a paper's results table from a manifest of runs."""
    ta = commands.add_parser(
        "table",
        help="a paper's results table from a manifest of runs (systems x datasets x measures)",
        description="Validates and evaluates every run a manifest lists (CSV or TSV: system, "
        "dataset, run; run paths relative to the manifest) with its dataset's protocol, "
        "compares each system with --baseline on each dataset (compare's tests, corrected "
        "over the whole table) and prints the table: systems as rows, datasets as column "
        "groups, measures as columns. A run file named .jsonl holds generated reference "
        "lists: resolved first (as citeval resolve), its rates are columns too.",
    )
    ta.add_argument("manifest", help="CSV or TSV with columns system, dataset, run")
    add_options(
        ta,
        *MEASURE_OPTIONS,
        measures={"help": "measures for every dataset (ir-measures syntax; repeatable)"},
        protocol={"help": "protocol for every dataset (default: each dataset's own)"},
    )
    ta.add_argument("--baseline", help="the system every other is compared with, per dataset")
    add_published_options(
        ta,
        published_help="interleave the published rows of --paper (default: --protocol's), "
        "or those of your own table FILE (a CSV with the shipped columns)",
        paper_help="whose published rows (e.g. goyal2026; implies --published), or a CSV file",
    )
    add_statistics_options(ta)
    add_options(ta, "same_year")
    add_jobs_option(ta, "evaluating runs at once")
    add_resolution_options(ta, table=True)
    engine = {
        "choices": TABLE_ENGINES,
        "help": "dask: evaluate the runs on a Dask cluster's workers",
    }
    output = {"choices": TABLE_FORMATS, "help": "output format"}
    add_options(
        ta, "engine", "scheduler", *DISPLAY, "format", *REPORT, engine=engine, format=output
    )
    ta.set_defaults(handler=cmd_table)


def add_breakdown_command(commands) -> None:
    """``citeval breakdown``: a measure per group of queries."""
    bd = commands.add_parser(
        "breakdown",
        help="a measure per group of queries (year, heading, gold count, venue, popularity)",
        description="Groups the dataset's queries by a facet and gives each group's size and "
        "each run's mean with a 95 % bootstrap interval; with several runs, the difference "
        "from the baseline per group with a paired test, corrected over all groups.",
    )
    bd.add_argument("runs", nargs="+", help="run files (named after their stem), or NAME=PATH")
    bd.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    bd.add_argument("--by", required=True, choices=FACETS, help="the facet to group by")
    which = bd.add_mutually_exclusive_group()
    which.add_argument("-m", "--measures", help="the measure, one (default: the protocol's first)")
    spellings, settings = FLAGS["protocol"]
    which.add_argument(*spellings, **{**settings, "help": "default: the dataset's"})
    bd.add_argument(
        "--bins", type=int, default=3, help="popularity bins (default 3: tail, torso, head)"
    )
    bd.add_argument(
        "--min-queries",
        type=int,
        default=30,
        help="groups smaller than this are flagged (default 30)",
    )
    bd.add_argument("--baseline", help="the run the others are compared with (default the first)")
    add_statistics_options(bd)
    add_options(bd, *DISPLAY, "format", *REPORT, format={"choices": LISTING_FORMATS})
    bd.set_defaults(handler=cmd_breakdown)


class Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors escaped as every terminal line is (an
    unrecognised argument is quoted as typed: it may hold ESC or U+202E), and a value
    outside an option's choices answered with the close ones ("did you mean", as git and
    pip answer a mistyped command; argparse's own ``suggest_on_error`` is Python 3.14's);
    each command's parser is one too (argparse makes them of the parent's class)."""

    def error(self, message: str):
        super().error(plain_text(message))

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # argparse's own error, with the options the command has that are close
            hint = _option_hint(self, parsed, extras)
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return parsed

    def _check_value(self, action: argparse.Action, value) -> None:
        if action.choices is None or value in action.choices:
            return
        names = [str(choice) for choice in action.choices]
        hint = (
            f"; did you mean {' or '.join(close)}?" if (close := _close(str(value), names)) else ""
        )
        if isinstance(action, argparse._SubParsersAction):  # "citeval: error: unknown command"
            staged = [name for _, stage in WORKFLOW for name in stage if name in names]
            names = staged + [name for name in names if name not in staged]
            metavar = action.metavar if isinstance(action.metavar, str) else None
            kind = (metavar or "command").lower()
            message = f"unknown {kind} {value!r}{hint} ({kind}s: {', '.join(names)})"
            raise argparse.ArgumentError(None, message)
        message = f"invalid choice: {value!r}{hint} (choose from {', '.join(names)})"
        raise argparse.ArgumentError(action, message)


def _option_hint(parser: argparse.ArgumentParser, parsed, extras: list[str]) -> str:
    """``; did you mean --protocol?`` for the first unrecognised option of ``extras`` that
    is close to an option of the command it was given to (``citeval eval ... --protocl``)."""
    command = parser
    for dest in ("command", "baseline"):  # down to the command the words were given to
        action = next((a for a in command._actions if a.dest == dest), None)
        choices = action.choices if action is not None else None  # a sub-command's parsers
        if not isinstance(choices, dict) or getattr(parsed, dest, None) not in choices:
            break
        command = choices[getattr(parsed, dest)]
    options = [o for o in command._option_string_actions if o.startswith("--")]
    for extra in extras:
        if extra.startswith("--"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=2, cutoff=0.7)
            if close:
                return f"; did you mean {' or '.join(close)}?"
    return ""


def _close(value: str, names: list[str]) -> list[str]:
    """The names ``value`` may have meant, the likeliest first: one it starts with or that
    starts with it (``evaluate``: ``eval``), then difflib's close matches, at most two."""
    prefixes = [
        name for name in names if value and (value.startswith(name) or name.startswith(value))
    ]
    similar = difflib.get_close_matches(value, names, n=3, cutoff=0.6)
    return list(dict.fromkeys(prefixes + similar))[:2]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """``citeval``'s parser: every command, or, given ``command`` (one of
    :data:`COMMANDS`), only that command's, which is all a command line naming it needs
    (building the other thirteen is most of the work of parsing one)."""
    parser = Parser(
        prog="citeval",
        description="Trustworthy citation-recommendation evaluation (ir-measures, trec_eval). "
        "citeval COMMAND --help shows a command's options and examples.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    adders = dict.fromkeys(COMMANDS.values()) if command is None else [COMMANDS[command]]
    nested = [adder(commands) for adder in adders]  # baseline's own commands; None: others
    add_quiet_option(commands, *filter(None, nested))
    for name, subparser in commands.choices.items():
        add_examples(subparser, name)
    if command is None:  # the list of commands, which only ``citeval --help`` shows
        parser.epilog = workflow_text(commands)
    return parser


def command_of(given: list[str]) -> str | None:
    """The command ``given`` names, if its first word after ``citeval``'s own ``-v`` is one
    (``None`` for anything else: ``--help``, ``--version``, a mistyped command, none)."""
    for word in given:
        if word not in ("-v", "--verbose"):
            return word if word in COMMANDS else None
    return None


def add_trec_eval_command(commands) -> None:
    """``citeval trec_eval``: trec_eval's own command line (:mod:`.trec_eval`), parsed by
    it, not by argparse: :func:`citeval_irm.cli.main` hands ``citeval trec_eval ...`` to it
    before this parser runs. The command is here so that it is one of the commands
    (``citeval --help``, the list a mistyped command is answered with) and so that a
    command line that reaches argparse still runs it: every word after it is passed on as
    typed (no prefix characters, so ``-q`` or ``-m`` are trec_eval's, not citeval's)."""
    te = commands.add_parser(
        "trec_eval",
        help=TREC_EVAL_HELP,
        usage="citeval trec_eval [trec_eval's options] QRELS RUN",
        description="trec_eval 10.0's command line (-q -c -n -J -l<n> -M<n> -N<n> -m "
        "name[.params], the nicknames official, all_trec, set; -R qrels, -T trec_results) and "
        "its output, byte for byte; `citeval trec_eval -h` says what it takes and what it "
        "refuses (docs/guides/trec-eval.md).",
        add_help=False,
        prefix_chars="\0",
    )
    te.add_argument("arguments", nargs="*", metavar="ARGUMENTS", help="trec_eval's arguments")
    te.set_defaults(handler=_trec_eval)


def _trec_eval(args: argparse.Namespace) -> int:
    from .trec_eval import main as trec_eval_main

    return trec_eval_main(args.arguments)


def add_eval_command(commands) -> None:
    """``citeval eval``: a run's scores (its validation above them, with ``--dataset``)."""
    ev = commands.add_parser("eval", help="evaluate a run against qrels or a dataset")
    add_options(ev, "run", *SOURCE, *MEASURE_OPTIONS, *EVALUATION)
    section(ev, "output").add_argument(
        "--per-query", action="store_true", help="also print per-query values"
    )
    add_options(ev, *DISPLAY, "format", format={"choices": EVAL_FORMATS, "help": "output format"})
    section(ev, "cross-check").add_argument(
        "--crosscheck",
        action="store_true",
        help="also recompute every measure with the paper's recipe and explain differences",
    )
    strict = (
        f"exit {EXIT_STRICT_FAILURE} with --dataset: if the run breaks the protocol (the "
        "validation printed above the scores)"
    )
    add_options(ev, "recipe", *REPORT, "strict", *YEAR, strict={"help": strict})
    ev.set_defaults(handler=cmd_eval)


def add_crosscheck_command(commands) -> None:
    """``citeval crosscheck``: trec_eval's semantics beside a paper's recipe."""
    cc = commands.add_parser(
        "crosscheck", help="compare trec_eval semantics with a paper's recipe, query by query"
    )
    add_options(cc, "run", *SOURCE, *MEASURE_OPTIONS, "recipe")  # a --recipe brings measures
    cc.add_argument(
        "--recipe-ties",
        choices=TIE_POLICIES,
        default="run_order",
        help="order in which the recipe sees tied scores (default: run_order, as a paper's "
        "script reads its list); the trec_eval side always uses trec_eval's order",
    )
    # a run above the memory is cross-checked in chunks
    add_options(cc, "format", "memory", *DISPLAY, format={"choices": PLAIN_FORMATS})
    cc.add_argument("--max-rows", type=int, default=10, help="differing queries to show")
    strict = (
        f"exit {EXIT_STRICT_FAILURE} if any difference is unexplained (or, with --tolerance, "
        "if an aggregate differs by more than it)"
    )
    add_options(cc, "strict", strict={"help": strict})
    cc.add_argument("--tolerance", type=float, help="largest aggregate difference --strict accepts")
    add_options(cc, *REPORT, "same_year")  # same_year: the rule of the --report's validation
    cc.set_defaults(handler=cmd_crosscheck)


def add_listing_commands(commands) -> None:
    """``citeval recipes`` and ``citeval protocols``."""
    rc = commands.add_parser("recipes", help="list the paper recipes and their quirks")
    rc.set_defaults(handler=cmd_recipes)
    pr = commands.add_parser("protocols", help="list the named protocols and their measures")
    pr.set_defaults(handler=cmd_protocols)


def add_dataset_commands(commands) -> None:
    """``citeval import``, ``citeval datasets`` and ``citeval verify``."""
    im = commands.add_parser(
        "import",
        help="check a downloaded dataset folder and install it into the ir_datasets home",
    )
    name_help, folder_help = corpus_help(importable=True)
    im.add_argument("name", help=name_help)
    im.add_argument("folder", help=folder_help)
    im.add_argument("--symlink", action="store_true", help="link the files instead of copying")
    im.add_argument(
        "--allow-count-mismatch",
        action="store_true",
        help="install even if the counts differ from the published ones (reported)",
    )
    im.set_defaults(handler=cmd_import)

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
    ds.set_defaults(handler=cmd_datasets)

    ve = commands.add_parser(
        "verify",
        help="check a dataset's files in full (sha256 against their records or published "
        "checksums) and its stores",
    )
    ve.add_argument("name", help=corpus_help(importable=False)[0])
    ve.set_defaults(handler=cmd_verify)

    au = commands.add_parser(
        "audit",
        help="what a dataset allows before any run: unreachable gold, the recall ceiling at "
        "each cut-off of the protocol, duplicate papers",
    )
    au.add_argument("dataset", help="a citeval dataset id: a split, or a corpus (every split)")
    au.add_argument("--protocol", default="goyal2026", help="whose cut-offs (default goyal2026)")
    add_options(au, "same_year", "format", format={"choices": PLAIN_FORMATS})
    au.set_defaults(handler=cmd_audit)


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
    add_options(bm, *YEAR)
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
    add_options(bm, "force")
    bm.set_defaults(handler=cmd_baseline_bm25)
    return baselines


def add_validate_command(commands) -> None:
    """``citeval validate``: a run against its dataset's protocol."""
    va = commands.add_parser(
        "validate",
        help="check a run against a dataset's protocol (later papers, the query paper, ...)",
    )
    va.add_argument("run", help="TREC run file (6 columns; .gz accepted) or Parquet")
    va.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    measures = (
        "the measures the run will be evaluated with: every ranking must reach their deepest "
        "cut-off (default: the dataset's protocol's)"
    )
    add_options(
        va,
        *MEASURE_OPTIONS,
        *YEAR,
        measures={"help": measures},
        protocol={"help": "or a named protocol's"},
    )
    max_docs_help = (
        "the evaluation will count only the first N docs of each ranking (trec_eval -M): the "
        "depth check reads the rankings so cut"
    )
    add_options(va, "memory", "max_docs", max_docs={"help": max_docs_help})
    strict = (
        f"exit {EXIT_STRICT_FAILURE} if any check fails, gold_always_present included "
        "(otherwise a warning)"
    )
    add_options(va, "format", "strict", format={"choices": PLAIN_FORMATS}, strict={"help": strict})
    va.set_defaults(handler=cmd_validate)


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
    add_options(de, "same_year")
    de.add_argument("-o", "--output", help="also write the BM25 run to this file")
    de.add_argument(
        "--report",
        metavar="PATH",
        help=f"the report with the scores, checks and plots (default {DEMO_REPORT} in the "
        f"current folder, the demo's own file, replaced on every run; .md for Markdown)",
    )
    de.add_argument("--no-report", action="store_true", help="write no report")
    add_options(de, "force")
    de.set_defaults(handler=cmd_demo)


def add_resolve_command(commands) -> None:
    """``citeval resolve``: generated reference lists (papers named) as a run of a dataset."""
    from ..resolving import REPORT_SUFFIXES

    rs = commands.add_parser(
        "resolve",
        help="match generated reference lists (titles, citations, ids) to a dataset's papers "
        "and write the run, with a resolution report (exact, fuzzy, ambiguous, unmatched)",
        description="Matches each generated reference to the dataset's papers by identifier "
        "(arXiv, ACL Anthology, DOI), then by normalised title, then fuzzily (RapidFuzz), and "
        "writes a TREC run in the generated order; prints how each was resolved, per query and "
        'overall, and the run\'s measures. GENERATED: JSONL ({"query_id": ..., '
        '"references": [...]}) or CSV (query_id, rank, reference).',
    )
    rs.add_argument("generated", help="the generated lists: JSONL or CSV")
    rs.add_argument("--dataset", required=True, help="ir_datasets id, e.g. citeval/demo/test")
    rs.add_argument("-o", "--output", required=True, help="run file to write (.gz: gzip)")
    add_resolution_options(rs)
    rs.add_argument(
        "--report",
        dest="resolution_report",
        metavar="FILE",
        help="also write the report: " + ", ".join(REPORT_SUFFIXES) + " (.html, "
        ".md: the page with the scores, the resolution and its rate by popularity "
        "with the plot; .csv: the decision for every reference)",
    )
    measures = {"help": "measures the run is evaluated with (default: the dataset's protocol)"}
    add_options(rs, *MEASURE_OPTIONS, measures=measures)
    rs.add_argument(
        "--by",
        choices=FACETS,
        help="also break a rate down by this facet (popularity: fabrication by the "
        "cited paper's popularity)",
    )
    rs.add_argument(
        "--by-measure",
        help="the rate or measure broken down (default: "
        "existence_rate with --catalogue, else in_pool_rate)",
    )
    rs.add_argument("--bins", type=int, default=3, help="popularity bins (default 3)")
    rs.add_argument("--tag", default="resolved", help="run tag, 6th column (default resolved)")
    add_jobs_option(rs, "resolving the references at once, each decided as in one")
    add_options(rs, "format", "force", format={"choices": ("table", "markdown", "json", "csv")})
    rs.set_defaults(handler=cmd_resolve)


COMMANDS = {
    "eval": add_eval_command,
    "crosscheck": add_crosscheck_command,
    "recipes": add_listing_commands,
    "protocols": add_listing_commands,
    "import": add_dataset_commands,
    "datasets": add_dataset_commands,
    "verify": add_dataset_commands,
    "audit": add_dataset_commands,
    "baseline": add_baseline_command,
    "validate": add_validate_command,
    "demo": add_demo_command,
    "compare": add_compare_command,
    "published": add_published_command,
    "table": add_table_command,
    "breakdown": add_breakdown_command,
    "convert": add_convert_command,
    "resolve": add_resolve_command,
    "trec_eval": add_trec_eval_command,
}
"""Each command with the function that adds its parser, in the order ``build_parser``
adds them (``recipes`` and ``protocols`` are added together, as are the dataset commands)."""
