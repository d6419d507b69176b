"""One options object per kind, built once: ``EvalOptions`` / ``ExecutionOptions`` /
``StatisticsOptions`` passed whole, a typo fails before any run is read, the decimals rule
reaches every printed value (the cross-check's protocol decimals, ``--decimals``), and
``--percent`` / ``--decimals`` reach the report. The split itself (meaning, execution,
display) is tested in ``test_options_split.py``."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest
from test_cli_options import run_cli

import citeval_irm
from citeval_irm.base.measures import Protocol, parse_measures
from citeval_irm.base.options import EvalOptions, ExecutionOptions, StatisticsOptions

MAX_PARAMETERS = 14  # every public function; the verbs: 10 (test_public_signatures)

# q1: the relevant doc a at rank 3 (tied with b, which trec_eval puts first); q2: at rank
# 1; q3: unranked
RUN = "q1 Q0 x 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 2.0 t\nq2 Q0 a 1 1.0 t\n"
WEAKER = "q1 Q0 x 1 3.0 t\nq1 Q0 y 2 2.0 t\nq1 Q0 a 3 1.0 t\nq2 Q0 z 1 2.0 t\nq2 Q0 a 2 1.0 t\n"
QRELS = "q1 0 a 1\nq2 0 a 1\nq3 0 c 1\n"
DRAWS = {"permutations": 200, "bootstrap": 200, "seed": 7}


@pytest.fixture
def files(write):
    return (
        str(write("run.trec", RUN)),
        str(write("weaker.trec", WEAKER)),
        str(write("qrels.txt", QRELS)),
    )


def _public_callables():
    """Every public function of the package's modules (and the public methods of their
    classes), by qualified name. A dataclass's generated ``__init__`` lists the record's
    fields, not a function's options, and is left out."""
    found = {}
    for info in pkgutil.walk_packages(citeval_irm.__path__, "citeval_irm."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (PyTerrier ...) absent here
            continue
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value):
                found[f"{module.__name__}.{name}"] = value
            elif inspect.isclass(value):
                for method, function in vars(value).items():
                    if not method.startswith("_") and inspect.isfunction(function):
                        found[f"{module.__name__}.{name}.{method}"] = function
    for name in citeval_irm.__all__:
        value = getattr(citeval_irm, name)
        if inspect.isfunction(value):
            found[f"citeval_irm.{name}"] = value
    return found


def test_no_public_function_takes_more_than_14_parameters():
    callables = _public_callables()
    assert "citeval_irm.compare" in callables and "citeval_irm.report.make_report" in callables
    too_many = {
        name: len(inspect.signature(function).parameters)  # **keywords counts as one
        for name, function in callables.items()
        if len(inspect.signature(function).parameters) > MAX_PARAMETERS
    }
    assert too_many == {}


def test_an_options_field_is_no_keyword_of_a_verb(files):
    """Every option is visible in the signature: an options object, never its fields as
    hidden keywords (``compare(..., ties=...)`` was one of 18 invisible keywords)."""
    run, weaker, qrels = files
    runs = {"run": run, "weaker": weaker}
    with pytest.raises(TypeError, match="unexpected keyword argument 'ties'"):
        citeval_irm.compare(runs, qrels, "RR", ties="run_order")
    with pytest.raises(TypeError, match="unexpected keyword argument 'memory'"):
        citeval_irm.evaluate(run, qrels, "RR", memory="1G")
    found = citeval_irm.compare(
        runs,
        qrels,
        "RR P@2",
        options=EvalOptions(ties="run_order"),
        statistics=StatisticsOptions(test="t", **DRAWS),
    )
    assert found.settings.test == "t" and found.settings.ties == "run_order"
    with pytest.raises(citeval_irm.InputError, match="expected EvalOptions, got dict"):
        citeval_irm.evaluate(run, qrels, "RR", options={"ties": "run_order"})


def test_a_typo_fails_before_any_run_is_read(files):
    _, _, qrels = files
    with pytest.raises(TypeError, match="'permutation'"):
        StatisticsOptions(permutation=10)
    with pytest.raises(citeval_irm.InputError, match="test must be one of"):
        citeval_irm.compare(
            {"a": "missing.trec"},
            qrels,
            "RR",
            statistics=citeval_irm.StatisticsOptions(test="ttest"),
        )
    with pytest.raises(citeval_irm.InputError, match="jobs must be a whole number"):
        citeval_irm.results_table("missing.csv", execution=citeval_irm.ExecutionOptions(jobs=0))
    with pytest.raises(citeval_irm.InputError, match="engine must be one of"):
        citeval_irm.ExecutionOptions(engine="spark")


def test_a_correction_alias_is_still_taken(files):
    run, weaker, qrels = files
    found = citeval_irm.compare(
        [run, weaker],
        qrels,
        "RR",
        statistics=citeval_irm.StatisticsOptions(correction="fdr_bh", **DRAWS),
    )
    assert found.settings.correction == "bh"


def test_the_crosscheck_table_prints_the_protocol_decimals():
    three = Protocol("three", "three decimals", "-", tuple(parse_measures("RR R@2")), True, 3)
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0, "c": 1.0}}
    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    with pytest.warns(citeval_irm.EvalWarning):
        report = citeval_irm.crosscheck(run, qrels, protocol=three, recipe="goyal2026")

    def rows(text: str) -> dict[str, list[str]]:  # the summary's rows, however the heading wraps
        return {line.split()[0]: line.split()[1:3] for line in text.splitlines()
                if line.split()[:1] in (["RR"], ["R@2"])}  # fmt: skip

    assert rows(report.format()) == {"RR": ["100.000", "75.000"], "R@2": ["100.000", "100.000"]}
    fractions = rows(report.format(percent=False))["RR"]
    assert fractions == ["1.0000", "0.7500"]  # not the protocol's unit: 4 decimals
    assert rows(report.format(decimals=1))["RR"] == ["100.0", "75.0"]


def test_decimals_option_on_the_commands_that_print_values(capsys, files):
    run, weaker, qrels = files
    code, out, _ = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "RR P@2", "--decimals", "2")
    assert code == 0 and out.splitlines()[1:] == ["  RR   0.44", "  P@2  0.17"]
    code, out, _ = run_cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "RR P@2", "--percent", "--decimals", "0"
    )
    assert code == 0 and out.splitlines()[1:] == ["  RR   44", "  P@2  17"]
    code, out, _ = run_cli(
        capsys, "compare", run, weaker, "--qrels", qrels, "-m", "RR", "--decimals", "3",
        "--permutations", "200", "--bootstrap", "200",
    )  # fmt: skip
    assert code == 0 and "0.667" in out and "0.6667" not in out  # q1: 1/3, q2: 1 (q3 unranked)
    code, _, err = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--decimals", "13")
    assert code == 2 and "citeval: error: decimals 13: must be a whole number, 0 to 12" in err


@pytest.mark.slow
def test_percent_and_decimals_reach_the_report(capsys, tmp_path, files):
    run, _, qrels = files
    base = ["eval", run, "--qrels", qrels, "-m", "RR P@2"]
    code, _, _ = run_cli(capsys, *base, "--report", str(tmp_path / "fractions.md"))
    text = (tmp_path / "fractions.md").read_text(encoding="utf-8")
    assert code == 0 and "**values in**: fraction, 4 decimals" in text and "| RR | 0.4444 |" in text
    code, _, _ = run_cli(
        capsys, *base, "--percent", "--decimals", "3", "--report", str(tmp_path / "percent.md")
    )
    text = (tmp_path / "percent.md").read_text(encoding="utf-8")
    assert code == 0 and "**values in**: percent, 3 decimals" in text and "| RR | 44.444 |" in text


@pytest.mark.slow
def test_a_report_is_shown_in_another_unit(files):
    """``make_report`` formats in the protocol's unit; ``shown(percent=, decimals=)`` gives
    the same report in another, its title and command kept (``decimals`` checked)."""
    run, _, qrels = files
    report = citeval_irm.make_report({"run": run}, qrels, "RR")
    report.title, report.command = "mine", "citeval eval run.trec"
    assert report.tables()["scores"].rows == (("RR", "0.4444"),)
    shown = report.shown(percent=True, decimals=1)
    assert shown.tables()["scores"].rows == (("RR", "44.4"),)
    assert (shown.title, shown.command) == ("mine", "citeval eval run.trec")
    assert report.shown(percent=True).tables()["scores"].rows == (("RR", "44.44"),)
    assert "citeval eval run.trec" in shown.to_markdown()
    with pytest.raises(citeval_irm.InputError, match="decimals 13"):
        report.shown(decimals=13)


def test_the_command_line_defaults_are_the_options_defaults():
    from citeval_irm.cli import build_parser
    from citeval_irm.cli.invocation import Invocation

    args = build_parser().parse_args(["compare", "a.trec", "b.trec", "--qrels", "q", "-m", "RR"])
    given = Invocation(args)
    assert given.options == EvalOptions()
    assert dataclasses.replace(given.execution, progress=None) == ExecutionOptions()
    assert given.statistics == StatisticsOptions()
    assert given.shown == {"percent": None, "decimals": None}


def test_a_result_prints_as_format_is_asked(files):
    """``format(percent=True, decimals=1)``: how values print is the format's keywords,
    the protocol's unit by default (no result remembers a display)."""
    run, _, qrels = files
    with pytest.warns(citeval_irm.EvalWarning):
        plain = citeval_irm.evaluate(run, qrels, "RR P@2")
    assert plain.format("table", percent=True, decimals=1).splitlines()[1:] == [
        "  RR   44.4",
        "  P@2  16.7",
    ]
    assert plain.format("table").splitlines()[1:] == ["  RR   0.4444", "  P@2  0.1667"]
    assert plain.format("table", decimals=2).splitlines()[1:] == ["  RR   0.44", "  P@2  0.17"]
    assert plain.to_frame(percent=True).loc["all", "RR"] == pytest.approx(44.444, abs=1e-3)
    with pytest.raises(citeval_irm.InputError, match="decimals 13"):
        plain.format("table", decimals=13)


@pytest.mark.parametrize(
    "command",
    [["eval", "run.trec", "--qrels", "q"], ["crosscheck", "run.trec", "--qrels", "q"],
     ["compare", "a.trec", "b.trec", "--qrels", "q"], ["table", "m.csv"],
     ["validate", "run.trec", "--dataset", "citeval/demo/test"]],
)  # fmt: skip
def test_every_command_that_scores_takes_m_as_trec_eval_does(command):
    """One declaration of ``-m`` / ``--protocol``: repeatable everywhere, either or both
    (the protocol's measures, then those of ``-m``: Invocation.measures)."""
    from citeval_irm.cli import build_parser
    from citeval_irm.cli.invocation import Invocation

    parser = build_parser()
    assert parser.parse_args([*command, "-m", "RR", "-m", "R@10"]).measures == "RR R@10"
    both = parser.parse_args([*command, "-m", "P@5 RR", "--protocol", "goyal2026"])
    assert (both.measures, both.protocol) == ("P@5 RR", "goyal2026")
    measures = [str(m) for m in Invocation(both).measures]
    assert measures[0] == "RR" and measures[-1] == "P@5" and measures.count("RR") == 1
