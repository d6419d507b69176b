"""Each option checked once, where it is read (issue 41, items 3, 8 and 13): a count beyond
what the work can hold is an error naming the bound, not a ``MemoryError`` or an
``OverflowError`` from numpy; a boolean option takes a bool (``"no"`` is no False); a
dataset argument that is no id is named; an id that names no dataset is one clear error
saying how to list them. The inputs are GENERATED."""

from __future__ import annotations

from pathlib import Path

import pytest

import citeval_irm
from citeval_irm import EvalOptions, ExecutionOptions, InputError, StatisticsOptions
from citeval_irm.base.choices import MAX_BINS, MAX_BOOTSTRAP, MAX_PERMUTATIONS
from citeval_irm.cli import main

RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0, "d3": 0.5}}
QRELS = {"q1": {"d1": 1}, "q2": {"d3": 1}}


@pytest.mark.parametrize(
    ("build", "bound"),
    [
        (lambda: StatisticsOptions(bootstrap=10**12), f"{MAX_BOOTSTRAP:,}"),
        (lambda: StatisticsOptions(bootstrap=99999999999999999999999), f"{MAX_BOOTSTRAP:,}"),
        (lambda: StatisticsOptions(permutations=10**12), f"{MAX_PERMUTATIONS:,}"),
        (lambda: EvalOptions(max_docs=2**70), "2**63 - 1"),
        (lambda: EvalOptions(max_docs=2**63), "2**63 - 1"),
    ],
)
def test_a_count_beyond_its_bound_is_an_error_naming_it(build, bound: str) -> None:
    with pytest.raises(InputError, match="must be a whole number from 1 to") as caught:
        build()
    assert bound in str(caught.value)


@pytest.mark.parametrize("memory", ["1" + "0" * 400, 10**400, "9999999999T", 2**63])
def test_memory_beyond_what_a_size_holds(memory) -> None:
    with pytest.raises(InputError, match=r"must be at most 8 EiB \(2\*\*63 - 1 bytes\)"):
        ExecutionOptions(memory=memory)


def test_the_bounds_themselves_are_taken() -> None:
    assert StatisticsOptions(bootstrap=MAX_BOOTSTRAP).bootstrap == MAX_BOOTSTRAP
    assert StatisticsOptions(permutations=MAX_PERMUTATIONS).permutations == MAX_PERMUTATIONS
    assert EvalOptions(max_docs=2**63 - 1).max_docs == 2**63 - 1
    assert ExecutionOptions(memory=2**63 - 1).memory == 2**63 - 1


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d3 1\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d3 1 1.0 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d3 1 1.0 b\n")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["compare", "a", "b", "--bootstrap", "1000000000000"], f"{MAX_BOOTSTRAP:,}"),
        (["compare", "a", "b", "--bootstrap", "99999999999999999999999"], f"{MAX_BOOTSTRAP:,}"),
        (["compare", "a", "b", "--permutations", str(10**15)], f"{MAX_PERMUTATIONS:,}"),
        (["eval", "a", "-M", str(2**70)], "2**63 - 1"),
        (["breakdown", "a", "--by", "popularity", "--bins", str(10**20)], f"{MAX_BINS:,}"),
    ],
)
def test_the_command_line_says_the_bound(
    files: Path, ir_home: Path, capsys, monkeypatch, args, said
) -> None:
    monkeypatch.chdir(files)
    given = ["--dataset", "citeval/demo/test"] if args[0] == "breakdown" else ["--qrels", "qrels"]
    assert main([*args, *given, "-m", "RR", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and err.count("\n") == 1, err
    assert said in err and "Traceback" not in err


BOOLEANS = {
    "ExecutionOptions(verify=)": lambda v: ExecutionOptions(verify=v),
    "ExecutionOptions(progress=)": lambda v: ExecutionOptions(progress=v),
    "audit(same_year=)": lambda v: citeval_irm.audit("citeval/demo/test", same_year=v),
    "validate(same_year=)": lambda v: citeval_irm.validate(RUN, "citeval/demo/test", same_year=v),
    "validate(strict=)": lambda v: citeval_irm.validate(RUN, "citeval/demo/test", strict=v),
    "compare(tukey=)": lambda v: citeval_irm.compare({"a": RUN, "b": RUN}, QRELS, "RR", tukey=v),
    "bm25_run(temporal=)": lambda v: citeval_irm.bm25_run("citeval/demo/test", temporal=v),
    "bm25_run(same_year=)": lambda v: citeval_irm.bm25_run("citeval/demo/test", same_year=v),
    "convert(force=)": lambda v: citeval_irm.convert(RUN, "never.parquet", force=v),
    "make_report(same_year=)": lambda v: citeval_irm.make_report(
        {"a": RUN}, "citeval/demo/test", "RR", same_year=v
    ),
    "results_table(same_year=)": lambda v: citeval_irm.results_table(
        [{"system": "a", "dataset": "citeval/demo/test", "run": "a"}], "RR", same_year=v
    ),
    "compare_published(same_year=)": lambda v: citeval_irm.compare_published(None, same_year=v),
}


@pytest.mark.parametrize("value", ["no", "false", 0, 1, "True"])
@pytest.mark.parametrize("call", BOOLEANS)
def test_a_boolean_option_takes_a_bool(call: str, value, tmp_path, ir_home, monkeypatch) -> None:
    """Checked first, before any dataset is read or file written: ``"no"`` was taken as
    True by some verbs."""
    monkeypatch.chdir(tmp_path)
    name = call.split("(")[1].rstrip("=)")
    with pytest.raises(TypeError, match=rf"^{name} must be True") as caught:
        BOOLEANS[call](value)
    assert isinstance(caught.value, InputError)  # the command line says it as bad input
    assert not [p for p in tmp_path.iterdir() if p != ir_home]


def test_a_numpy_bool_is_a_bool() -> None:
    import numpy as np

    assert ExecutionOptions(verify=np.True_, progress=np.False_).verify is True


@pytest.mark.parametrize("dataset", [None, 42, b"citeval/demo/test", ["citeval/demo/test"]])
def test_audit_names_its_argument(dataset) -> None:
    with pytest.raises(TypeError, match=r"^dataset: expected a dataset id"):
        citeval_irm.audit(dataset)


@pytest.mark.parametrize("dataset", ["", "../../etc/passwd", "/etc/passwd", "no-such-family/x"])
def test_audit_of_no_dataset_id_is_one_error(dataset: str, capsys) -> None:
    assert main(["audit", dataset]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: unknown dataset {dataset!r}") and err.count("\n") == 1
    assert "citeval datasets list" in err and "Traceback" not in err
