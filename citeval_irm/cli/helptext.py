"""What ``citeval --help`` and each command's help say beyond their options: the commands
grouped by the stage of a study that uses them, and examples under each command."""

from __future__ import annotations

import argparse
import textwrap

WORKFLOW = (
    ("start here", ("demo",)),
    ("datasets", ("datasets", "import", "verify", "audit")),
    ("runs", ("baseline", "resolve", "convert")),
    ("evaluate and check", ("eval", "validate", "crosscheck", "trec_eval")),
    ("compare and report", ("compare", "table", "breakdown", "published")),
    ("reference", ("protocols", "recipes")),
)
"""The commands in the order a study uses them, as ``citeval --help`` lists them."""

TREC_EVAL_HELP = (
    "trec_eval's own command line and output, byte for byte (citeval trec_eval [-q] [-c] "
    "[-m MEASURE] QRELS RUN; citeval trec_eval -h)"
)  # its options are trec_eval's, not argparse's: see parser.add_trec_eval_command

EXAMPLES = {
    "demo": ["citeval demo", "citeval demo --no-temporal -o run.trec --report demo.md"],
    "datasets": ["citeval datasets list", "citeval datasets export citeval/demo/test qrels"],
    "import": ["citeval import refseer ~/Downloads/RefSeer"],
    "verify": ["citeval verify acl-200"],
    "audit": [
        "citeval audit citeval/acl-200/test",
        "citeval audit citeval/demo/test --no-same-year",
    ],
    "baseline": ["citeval baseline bm25 --dataset citeval/demo/test -k 300 -o bm25.trec"],
    "resolve": [
        "citeval resolve generated.jsonl --dataset citeval/demo/test -o generated.trec "
        "--catalogue titles.txt --by popularity"
    ],
    "convert": ["citeval convert prefetch.trec.gz prefetch/ --partition-rows 4000000"],
    "eval": [
        'citeval eval run.trec --qrels qrels.txt -m "RR R@10 nDCG@10"',
        "citeval eval run.trec --dataset citeval/acl-200/test --protocol goyal2026 "
        "--format trec_eval --per-query",
    ],
    "trec_eval": ["citeval trec_eval -m official -m ndcg_cut.10 qrels.txt run.trec"],
    "validate": ["citeval validate run.trec --dataset citeval/acl-200/test --strict"],
    "crosscheck": ["citeval crosscheck run.trec --dataset citeval/acl-200/test --recipe hatten"],
    "compare": [
        "citeval compare bm25.trec new.trec --dataset citeval/acl-200/test --protocol goyal2026 "
        "--baseline bm25",
        "citeval compare new.trec --dataset citeval/acl-200/test --protocol goyal2026 --published",
    ],
    "table": ['citeval table manifest.csv --baseline bm25 -m "RR R@10 nDCG@10" --format latex'],
    "breakdown": [
        "citeval breakdown bm25.trec new.trec --dataset citeval/demo/test --by popularity"
    ],
    "published": ["citeval published", "citeval published --dataset citeval/acl-200/test"],
    "protocols": ["citeval protocols"],
    "recipes": ["citeval recipes"],
}
"""One or two command lines per command, printed under its ``--help`` (a test parses each)."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's wrapping, but a paragraph of indented lines (the command list, the
    examples) is kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        return "\n\n".join(
            p if "\n  " in p else super(HelpFormatter, self)._fill_text(p, width, indent)
            for p in paragraphs
        )


def workflow_text(commands) -> str:
    """The commands by stage, each with its one-line help (taken off argparse's own list,
    which has no groups)."""
    helps = {action.dest: action.help for action in commands._choices_actions}
    commands._choices_actions.clear()
    width = max(map(len, helps)) + 2
    lines: list[str] = []
    for title, names in WORKFLOW:
        lines += ["", f"{title}:"] if lines else [f"{title}:"]
        for name in names:
            text = textwrap.fill(
                helps.pop(name),
                96,
                initial_indent=f"  {name:<{width}}",
                subsequent_indent=" " * (width + 2),
            )
            lines.append(text)
    if helps:  # a command no stage names: listed all the same, and a test fails
        lines += ["", "other:", *(f"  {name:<{width}}{text}" for name, text in helps.items())]
    return "\n".join(lines)


def add_examples(parser: argparse.ArgumentParser, name: str) -> None:
    lines = EXAMPLES.get(name)
    if lines:
        parser.epilog = "Examples:\n" + "\n".join(f"  {line}" for line in lines)
        parser.formatter_class = HelpFormatter
