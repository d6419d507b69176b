"""``citeval --help`` lists the commands in the order a study uses them; each command's
help groups its options (input, measures, evaluation, statistics, output) and ends with
examples that parse."""

from __future__ import annotations

import shlex

import pytest

from citeval_irm.cli.helptext import EXAMPLES, WORKFLOW
from citeval_irm.cli.parser import build_parser


def commands() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


def test_every_command_is_listed_once_in_its_stage(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    staged = [name for _, names in WORKFLOW for name in names]
    assert sorted(staged) == sorted([*commands(), "trec_eval"])  # each in one stage
    assert "other:" not in out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and
              line.split()[0] in staged]  # fmt: skip
    assert listed == staged  # in workflow order, each once, demo first


@pytest.mark.parametrize("name", sorted(commands()))
def test_each_command_ends_with_examples_that_parse(name, capsys):
    assert EXAMPLES.get(name), f"citeval {name} has no example"
    help_text = commands()[name].format_help()
    assert "\nExamples:\n" in help_text
    for line in EXAMPLES[name]:
        assert f"  {line}" in help_text
        argv = shlex.split(line)
        assert argv[:2] == ["citeval", name]
        build_parser().parse_args(argv[1:])  # exits (status 2) on a wrong option


def test_long_option_lists_read_in_groups():
    help_text = commands()["eval"].format_help()
    order = [help_text.index(f"\n{title}:\n") for title in
             ("input", "measures", "evaluation", "output")]  # fmt: skip
    assert order == sorted(order)
    compare = commands()["compare"].format_help()
    assert "\nstatistics:\n" in compare and "\n  --permutations" in compare.split("statistics:")[1]


@pytest.mark.parametrize("name", sorted(commands()))
def test_no_command_help_prints_a_doubled_percent(name):
    assert "%%" not in commands()[name].format_help()
