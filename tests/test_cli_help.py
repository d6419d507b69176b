"""``citeval --help`` lists the commands in the order a study uses them; each command's
help groups its options (input, measures, evaluation, statistics, output) and ends with
examples that parse."""

from __future__ import annotations

import shlex

import pytest

from citeval_irm.cli import main
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
    assert sorted(staged) == sorted(commands())  # each in one stage, trec_eval too
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


def test_a_command_line_builds_only_its_command_with_the_same_help_and_parse(capsys):
    """``citeval COMMAND ...`` builds that command's parser alone (issue 43: not the other
    thirteen), with the help and the parse the full parser gives it; anything that names no
    command (``--help``, ``--version``, a mistyped command) gets the full parser."""
    from citeval_irm.cli.parser import COMMANDS, command_of

    full = commands()
    assert sorted(COMMANDS) == sorted(full)
    for name in full:
        alone = build_parser(name)
        subparsers = next(a for a in alone._actions if a.dest == "command").choices
        assert name in subparsers and len(subparsers) <= 4  # the dataset commands together
        assert subparsers[name].format_help() == full[name].format_help()
        for line in EXAMPLES[name]:
            argv = shlex.split(line)[1:]
            assert vars(alone.parse_args(argv)) == vars(build_parser().parse_args(argv))
    assert command_of(["-v", "eval", "run"]) == command_of(["eval"]) == "eval"
    for given in (["--help"], ["--version"], ["evaluate"], [], ["-v"], ["--verb", "eval"]):
        assert command_of(given) is None
    with pytest.raises(SystemExit):
        main(["evaluate", "x"])
    said = capsys.readouterr().err  # every command named, as the full parser knows them
    assert "unknown command 'evaluate'; did you mean eval" in said
    assert all(name in said.split("(commands: ")[1] for name in full)


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


def usage_error(argv: list[str]) -> bool:
    """Whether ``citeval argv`` is a usage error (argparse's exit, status 2)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    return exited.value.code == 2


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("evaluate", "eval"), ("evla", "eval"), ("compre", "compare"), ("trec-eval", "trec_eval"),
     ("crosscheck2", "crosscheck"), ("resovle", "resolve")],
)  # fmt: skip
def test_a_mistyped_command_is_answered_with_the_close_ones(typed, meant, capsys):
    """As git and pip answer: the command meant first, then every command, trec_eval too,
    in the order of ``citeval --help``; one usage line, not the whole list of options."""
    assert usage_error([typed, "run.trec"])
    out, err = capsys.readouterr()
    assert out == ""
    usage, error = err.splitlines()
    assert usage == "usage: citeval [-h] [--version] [-v] COMMAND ..."
    assert error.startswith(f"citeval: error: unknown command {typed!r}; did you mean {meant}")
    staged = [name for _, names in WORKFLOW for name in names]
    assert error.endswith(f"(commands: {', '.join(staged)})")
    assert "trec_eval" in staged


def test_a_mistyped_choice_or_baseline_is_answered_too(capsys):
    assert usage_error(["eval", "run.trec", "--qrels", "q", "-m", "RR", "--format", "tabel"])
    err = capsys.readouterr().err
    assert "argument --format: invalid choice: 'tabel'; did you mean table? (choose from " in err
    assert usage_error(["baseline", "bm2"])
    err = capsys.readouterr().err
    assert (
        "citeval baseline: error: unknown baseline 'bm2'; did you mean bm25? (baselines: bm25)"
        in err
    )
    assert usage_error(["xyzzy"])
    assert "unknown command 'xyzzy' (commands: demo, " in capsys.readouterr().err  # no guess


def test_trec_eval_reached_through_the_parser_is_trec_eval(write, capsys):
    """``citeval trec_eval`` is handed to trec_eval's own parser before argparse; a command
    line that reaches argparse all the same runs it with every word as typed (its ``-q`` is
    trec_eval's per-query flag, not citeval's --quiet)."""
    args = build_parser().parse_args(["trec_eval", "-q", "-m", "P.5", "qrels", "run"])
    assert args.arguments == ["-q", "-m", "P.5", "qrels", "run"]
    qrels = write("qrels.txt", "q1 0 d1 1\n")
    run = write("run.trec", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    assert (
        args.handler(build_parser().parse_args(["trec_eval", "-m", "P.5", str(qrels), str(run)]))
        == 0
    )
    assert capsys.readouterr().out == "P_5                   \tall\t0.2000\n"


def test_a_mistyped_option_is_answered_with_the_commands_close_one(capsys):
    assert usage_error(["eval", "run.trec", "--dataset", "d", "--protocl", "goyal2026"])
    err = capsys.readouterr().err
    assert "error: unrecognized arguments: --protocl goyal2026; did you mean --protocol?" in err
    assert usage_error(["baseline", "bm25", "--dataset", "d", "-o", "r", "--stemer=none"])
    assert (
        "unrecognized arguments: --stemer=none; did you mean --stemmer?" in capsys.readouterr().err
    )
    assert usage_error(["eval", "run.trec", "--qrels", "q", "--zzzz"])
    assert capsys.readouterr().err.endswith("unrecognized arguments: --zzzz\n")  # no guess
