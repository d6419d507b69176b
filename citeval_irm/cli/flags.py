"""The command line's options, each declared once (:data:`FLAGS`, defaults read from
``EvalOptions`` / ``ExecutionOptions`` / ``StatisticsOptions``), the groups of them commands
share, and the fields of an options object a command's parsed arguments give
(:func:`given_fields`, from which :class:`~citeval_irm.cli.invocation.Invocation` builds
the objects)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from importlib import resources

from ..base.choices import (
    CORRECTIONS,
    DUPLICATE_POLICIES,
    EMPTY_QUERY_POLICIES,
    ENGINES,
    MAX_BOOTSTRAP,
    MAX_PERMUTATIONS,
    PRIMARY_TESTS,
    TESTS,
    TIE_POLICIES,
    UNKNOWN_YEAR_POLICIES,
    WARNING_CODES,
)
from ..base.errors import InputError
from ..base.options import EvalOptions, ExecutionOptions, StatisticsOptions
from ..base.outputs import FORCE_HELP
from ..papers import PROTOCOLS, RECIPES, named

EXIT_INPUT_ERROR = 2
EXIT_STRICT_FAILURE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
DEMO_REPORT = "demo-report.html"


def catalogue_corpora() -> list[dict]:
    """The corpora of ``datasets.catalogue.COLLECTIONS`` as ``datasets/catalogue.json``
    records them (generated from it, a test fails when stale): read as a file, so the
    help that lists them imports neither ir_datasets nor the datasets package."""
    index = resources.files("citeval_irm").joinpath("datasets").joinpath("catalogue.json")
    return json.loads(index.read_text(encoding="utf-8"))["corpora"]


def corpus_help(*, importable: bool) -> tuple[str, str]:
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


def section(parser: argparse.ArgumentParser, title: str):
    """The group of options ``title`` of a command's help (input, measures, evaluation,
    statistics, output), made the first time one of its options is added, so a long list
    of options reads in groups, in the order they first appear; ``source``: the qrels or the
    dataset, one of them required, in the input group."""
    sections = parser.__dict__.setdefault("_citeval_sections", {})
    if title not in sections:
        if title == "source":
            group = section(parser, "input").add_mutually_exclusive_group(required=True)
        else:
            group = parser.add_argument_group(title)
        sections[title] = group
    return sections[title]


MEASURES_HELP = (
    'measures in ir-measures syntax, e.g. "RR R@10 nDCG@10", or trec_eval\'s (recip_rank, '
    "ndcg_cut.5,10); repeatable, as trec_eval's -m; with --protocol: printed after the "
    "protocol's own, those it already has once"
)
PROTOCOL_HELP = (
    "a named protocol: its measures, unit and decimals (default, with neither option: the "
    "protocol the --dataset documents)"
)


def _name_of(kind: str, registry: dict):
    """An argparse type: a protocol's or recipe's name in any case, as its registry spells
    it; an unknown one is an error naming the close ones."""

    def spelled(text: str) -> str:
        try:
            return named(kind, text, registry)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    spelled.__name__ = kind  # what argparse calls the value in its messages
    return spelled


# --------------------------------------------------------------------------- the options
# Every option commands share is declared here once (its spellings, argparse settings, help;
# an option of an evaluation or a comparison has as default the field default of
# EvalOptions, ExecutionOptions or StatisticsOptions, whose field it sets; percent and
# decimals are no field: how values print) and added by name to each command that takes it
# (add_options), in the command's own words where it words it its own way;
# Invocation builds the three objects from any command's arguments (given_fields), and the
# keywords of a result's format.


def _field_default(kind, name: str):
    return next(f.default for f in dataclasses.fields(kind) if f.name == name)


def _eval_flag(name: str, *spellings: str, **settings) -> tuple[tuple[str, ...], dict]:
    """An option of the evaluation: a field of ``EvalOptions`` or ``ExecutionOptions`` (its
    default), else of how values print (no default)."""
    kind = next(
        (
            k
            for k in (EvalOptions, ExecutionOptions)
            if name in {f.name for f in dataclasses.fields(k)}
        ),
        None,
    )
    default = _field_default(kind, name) if kind is not None else None
    return spellings, {"dest": name, "default": default, **settings}


def _statistics_flag(name: str, **settings) -> tuple[tuple[str, ...], dict]:
    spelling = f"--{name}"
    return (spelling,), {
        "dest": name,
        "default": _field_default(StatisticsOptions, name),
        **settings,
    }


MEMORY_HELP = (
    "memory reading the run may take, e.g. 2G or 500M (default: half of what is available); a "
    "run file expected to need more is streamed in chunks of whole queries"
)
FLAGS: dict[str, tuple[tuple[str, ...], dict]] = {
    "run": (
        ("run",),
        {"help": "TREC run file (6 columns; .gz accepted) or Parquet (a file or a folder)"},
    ),
    "qrels": (("--qrels",), {"help": "TREC qrels file (4 columns; .gz accepted)"}),
    "dataset": (("--dataset",), {"help": "ir_datasets id whose qrels to use"}),
    "measures": (("-m", "--measures"), {"action": MeasuresAction, "help": MEASURES_HELP}),
    "protocol": (
        ("--protocol",),
        {
            "type": _name_of("protocol", PROTOCOLS),
            "choices": sorted(PROTOCOLS),
            "help": PROTOCOL_HELP,
        },
    ),
    "recipe": (
        ("--recipe",),
        {
            "type": _name_of("recipe", RECIPES),
            "choices": sorted(RECIPES),
            "help": "the paper recipe to compare with (default: the protocol's own; any case)",
        },
    ),
    "report": (
        ("--report",),
        {
            "metavar": "PATH",
            "help": "also write a self-contained report with the scores, checks and plots "
            "(PATH.html, or PATH.md for Markdown; opens offline; an existing file is replaced "
            "only with --force)",
        },
    ),
    # the one overwrite rule of every command that writes (an existing output is an error,
    # checked before any work, unless --force)
    "force": (("--force",), {"action": "store_true", "help": FORCE_HELP}),
    # one of what the command's result prints: its choices given by each command
    "format": (("--format",), {"default": "table"}),
    # exit EXIT_STRICT_FAILURE when the command's help says
    "strict": (("--strict",), {"action": "store_true"}),
    # the temporal protocol's explicit choices (see admissible_candidates)
    "same_year": (
        ("--same-year",),
        {
            "action": argparse.BooleanOptionalAction,
            "default": True,
            "help": "admit papers of the query paper's own year (default: yes)",
        },
    ),
    "unknown_year": (
        ("--unknown-year",),
        {
            "choices": UNKNOWN_YEAR_POLICIES,
            "default": "admit",
            "help": "docs without a year: admit (default) or exclude",
        },
    ),
    "ties": _eval_flag(
        "ties",
        "--ties",
        choices=TIE_POLICIES,
        help="order of tied scores (default: trec_eval = doc id descending)",
    ),
    "duplicates": _eval_flag(
        "duplicates",
        "--duplicates",
        choices=DUPLICATE_POLICIES,
        help="a repeated (query, doc) in the run: error (default) or keep the best score",
    ),
    "empty_queries": _eval_flag(
        "empty_queries",
        "--empty-queries",
        choices=EMPTY_QUERY_POLICIES,
        help="qrels queries with no relevant doc: score 0 (default, trec_eval) or skip",
    ),
    "engine": _eval_flag(
        "engine",
        "--engine",
        choices=ENGINES,
        help="citeval (default: the columnar kernels; any measure they lack goes to "
        "ir-measures), pytrec_eval (every measure through ir-measures) or dask (the "
        "kernels on a Dask cluster's workers, see --scheduler)",
    ),
    "verify": _eval_flag(
        "verify",
        "--verify",
        action="store_true",
        help="compute with both engines and fail on any per-query difference above 1e-9",
    ),
    "max_docs": _eval_flag(
        "max_docs",
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="only the first N docs of each ranking count (after the tie policy's sort), "
        "as trec_eval -M N",
    ),
    "memory": _eval_flag("memory", "--memory", help=MEMORY_HELP),
    "scheduler": _eval_flag(
        "scheduler",
        "--scheduler",
        help="with --engine dask: the Dask scheduler's address (tcp://HOST:8786); default: a "
        "local cluster",
    ),
    "percent": _eval_flag(
        "percent",
        "--percent",
        action="store_const",
        const=True,
        help="print values in percent (counts stay counts; default: the protocol's unit)",
    ),
    "decimals": _eval_flag(
        "decimals",
        "--decimals",
        type=int,
        metavar="N",
        help="decimals of printed values (default: the protocol's in its unit, else 2 in "
        "percent, 4 for fractions)",
    ),
    "test": _statistics_flag(
        "test",
        choices=PRIMARY_TESTS,
        help="the paired test behind the significance marks (default: randomisation)",
    ),
    "correction": _statistics_flag(
        "correction",
        choices=CORRECTIONS,
        help="multiple-comparison correction over every test of the output (default: holm)",
    ),
    "alpha": _statistics_flag("alpha", type=float, help="significance level (default 0.05)"),
    "permutations": _statistics_flag(
        "permutations",
        type=int,
        help=f"random permutations (default {_field_default(StatisticsOptions, 'permutations'):,}"
        f"; at most {MAX_PERMUTATIONS:,})",
    ),
    "bootstrap": _statistics_flag(
        "bootstrap",
        type=int,
        help=f"bootstrap resamples (default {_field_default(StatisticsOptions, 'bootstrap'):,}; "
        f"at most {MAX_BOOTSTRAP:,})",
    ),
    "seed": _statistics_flag(
        "seed", type=int, help=f"default {_field_default(StatisticsOptions, 'seed')}"
    ),
}
EVALUATION = (
    "ties",
    "duplicates",
    "empty_queries",
    "engine",
    "verify",
    "max_docs",
    "memory",
    "scheduler",
)
DISPLAY = ("percent", "decimals")
STATISTICS = ("test", "correction", "alpha", "permutations", "bootstrap", "seed")
SOURCE = ("qrels", "dataset")
"""The qrels (a file or a dataset) of the commands that score a run: one of them."""
MEASURE_OPTIONS = ("measures", "protocol")
"""The measures (a list, a protocol, or both: the protocol's measures, then the others,
:attr:`.invocation.Invocation.measures`): every command that scores runs."""
YEAR = ("same_year", "unknown_year")
REPORT = ("report", "force")
"""A self-contained report of the results, checks and plots, and --force to replace one."""
FLAG_SECTIONS = {
    "run": "input",
    **dict.fromkeys(SOURCE, "source"),
    **dict.fromkeys(MEASURE_OPTIONS, "measures"),
    "recipe": "cross-check",
    **dict.fromkeys(("report", "force", "format"), "output"),
    **dict.fromkeys(("strict", *YEAR), "protocol"),
    **dict.fromkeys(EVALUATION, "evaluation"),
    **dict.fromkeys(DISPLAY, "output"),
    **dict.fromkeys(STATISTICS, "statistics"),
}


def add_options(parser: argparse.ArgumentParser, *names: str, **changes: dict) -> None:
    """The options ``names`` of :data:`FLAGS` on ``parser``, each as declared there;
    ``changes``: by option name, the settings a command words its own way (its help, a
    narrower set of choices)."""
    for name in names:
        spellings, settings = FLAGS[name]
        target = section(parser, FLAG_SECTIONS[name])
        target.add_argument(*spellings, **{**settings, **changes.get(name, {})})


def given_fields(args: argparse.Namespace, kind) -> dict:
    """The fields of ``kind`` (an options class) the command has options for, as parsed:
    what :class:`~citeval_irm.cli.invocation.Invocation` builds the options objects of."""
    return {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(kind)
        if f.name in FLAGS and hasattr(args, f.name)
    }


def add_resolution_options(parser: argparse.ArgumentParser, *, table: bool = False) -> None:
    """``--catalogue FILE`` and ``--threshold``: how generated reference lists are resolved
    (``citeval resolve``; ``citeval table``, for a manifest's ``.jsonl`` runs)."""
    from ..resolving import THRESHOLD

    where = section(parser, "resolution" if table else "input")
    which = "a manifest's generated lists (.jsonl)" if table else "the lists"
    where.add_argument(
        "--catalogue",
        metavar="FILE",
        help="known titles (one a line, or CSV / JSONL with a title column): "
        "tells an unmatched reference outside the pool from one found nowhere "
        f"(for {which})",
    )
    where.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help=f"fuzzy match threshold for {which}, fuzz.ratio 0-100 (default {THRESHOLD:g})",
    )


def add_jobs_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--jobs N``: how many processes share the command's work (``what`` they do);
    :class:`~citeval_irm.base.options.ExecutionOptions`' ``jobs``, checked there (a whole
    number, 1 or more), the same figures whatever it is."""
    parser.add_argument("--jobs", type=int, default=1, help=f"processes {what} (default 1)")


def add_published_options(
    parser: argparse.ArgumentParser,
    *,
    published_help: str,
    paper_help: str,
    dataset_help: str | None = None,
) -> None:
    """``--published [FILE]`` (the runs beside a published table: the shipped one, or the
    user's FILE), ``--published-dataset`` (with ``dataset_help``: another dataset's table)
    and ``--paper PAPER|FILE`` (whose table), each in the command's own words:
    ``citeval compare`` and ``citeval table``."""
    parser.add_argument(
        "--published",
        nargs="?",
        const=True,
        default=False,
        metavar="FILE",
        help=published_help,
    )
    if dataset_help is not None:
        parser.add_argument("--published-dataset", help=dataset_help)
    parser.add_argument("--paper", metavar="PAPER|FILE", help=paper_help)


def add_statistics_options(parser: argparse.ArgumentParser) -> None:
    """The paired test (two runs), its correction and random draws, and how the runs are
    ranked and read: ``citeval table`` and ``citeval breakdown``."""
    add_options(parser, *STATISTICS, "ties", "memory", test={"choices": TESTS})


def warning_code(text: str) -> str:
    """A warning code for ``--quiet-warning``: one the package can warn with, or an error
    naming the close ones."""
    import difflib

    if text in WARNING_CODES:
        return text
    close = difflib.get_close_matches(text, WARNING_CODES, n=3, cutoff=0.5)
    codes = close or WARNING_CODES
    hint = f"did you mean {', '.join(codes)}?" if close else f"codes: {', '.join(codes)}"
    raise argparse.ArgumentTypeError(f"unknown warning code {text!r}; {hint}")


VERBOSE_HELP = (
    "an error's details under its line: the addresses tried, the underlying error, every "
    "way to install a dataset by hand"
)


def add_quiet_option(*groups) -> None:
    """``--quiet`` and ``--verbose`` on every command of ``groups`` (subparser groups; a
    command that has its own subcommands, ``baseline``, gets them on each of them): no
    progress bars, no INFO messages; an error's details. ``--verbose`` is ``citeval``'s
    own option too (``citeval --verbose datasets export ...``): a command's leaves it as
    given there unless given again."""
    for group in groups:
        for name, command in group.choices.items():
            if name in ("baseline", "trec_eval"):  # trec_eval's -q and -v are its own
                continue
            section(command, "output").add_argument(
                "-v",
                "--verbose",
                action="store_true",
                default=argparse.SUPPRESS,
                help=VERBOSE_HELP,
            )
            output = section(command, "output")
            output.add_argument(
                "-q",
                "--quiet",
                action="store_true",
                help="no progress bars and no INFO messages (warnings and errors still show)",
            )
            output.add_argument(
                "--quiet-warning",
                action="append",
                type=warning_code,
                metavar="CODE",
                help="do not print the warnings of this code, the one in [brackets] at the end "
                "of a warning line (e.g. tied_scores); may be repeated",
            )
