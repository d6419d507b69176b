"""``citeval trec_eval``: trec_eval 10.0's command line and output, byte for byte.

The seven command lines of trec_eval's own quicktest (its Makefile; the expected outputs
are trec_eval's, in tests/data/trec_eval with the NIST licence), and against a trec_eval
10.0 binary built from its source (the ``trec_eval_binary`` fixture): random qrels and runs
with -c, -J, -l2, -M, every line equal. The differential property test over every option
and input trec_eval takes is ``test_trec_eval_differential.py``.
"""

from __future__ import annotations

import random
import subprocess

import pytest

from citeval_irm.cli import main

QUICKTEST = [
    ("qrels.test results.test", "out.test"),
    ("-m all_trec qrels.test results.test", "out.test.a"),
    ("-m all_trec -q qrels.test results.test", "out.test.aq"),
    ("-m all_trec -q -c qrels.test results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 qrels.test results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", "out.test.aql"),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
        "out.test.meas_params",
    ),
]


def _ours(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(["trec_eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("command", "expected"), QUICKTEST, ids=[e for _, e in QUICKTEST])
def test_trec_eval_quicktest_is_byte_identical(capsys, monkeypatch, trec_eval_dir, command,
                                               expected):  # fmt: skip
    monkeypatch.chdir(trec_eval_dir)
    code, out, err = _ours(capsys, command.split())
    assert code == 0, err
    assert out == (trec_eval_dir / expected).read_text()


def test_missing_query_without_c_stops_as_trec_eval_10_does(capsys, monkeypatch, trec_eval_dir):
    monkeypatch.chdir(trec_eval_dir)
    code, out, err = _ours(capsys, ["qrels.test", "results.trunc"])
    assert code == 4 and out == ""
    assert err == "trec_eval: result qid '302' not found in qrels\n"


def test_all_negative_query_stops_only_when_first(capsys, tmp_path):
    """trec_eval 10.0 cannot form the ranking of a query whose labels are all negative
    while its buffer of relevance levels is unallocated (no query before it had a label
    >= 0): it stops there (exit 4, after the -q lines of the queries before); later, such
    a query is evaluated."""
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b -1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    code, out, err = _ours(capsys, ["-q", "-m", "P.1", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 0 and out.splitlines() == ["P_1                   \t1\t1.0000",
        "P_1                   \t2\t0.0000", "P_1                   \tall\t0.5000"]  # fmt: skip
    (tmp_path / "q").write_text("1 0 a -1\n2 0 b 1\n")
    code, out, err = _ours(capsys, ["-q", "-m", "P.1", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 4 and out == "" and err == "trec_eval: Can't calculate measure 'P'\n"


def test_bad_options_exit_as_trec_eval(capsys, trec_eval_dir):
    assert _ours(capsys, ["-m", "nonsense", "a", "b"])[0] == 1
    assert _ours(capsys, ["-R", "prefs", "a", "b"])[0] == 1
    assert _ours(capsys, ["onlyone"])[0] == 1


def _random_case(rng: random.Random, folder):
    qrels, run = [], []
    for q in range(rng.randint(1, 6)):
        docs = [f"d{rng.randint(0, 30)}" for _ in range(rng.randint(1, 15))]
        for n, doc in enumerate(dict.fromkeys(docs)):  # a label >= 0 first: see above
            qrels.append(f"q{q} 0 {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3]) if n else 0}")
        if rng.random() < 0.8:
            ranked = dict.fromkeys(f"d{rng.randint(0, 40)}" for _ in range(rng.randint(1, 25)))
            run += [f"q{q} Q0 {d} 0 {rng.choice([1, 2, 2.5, 3, 7])} tag" for d in ranked]
    if not run:
        run.append("q0 Q0 d1 0 1 tag")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")


@pytest.mark.parametrize("flags", [["-c"], ["-c", "-J"], ["-c", "-l2"], ["-c", "-M5"],
                                   ["-c", "-J", "-l2", "-M7"], ["-c", "-q", "-l0"]])  # fmt: skip
@pytest.mark.slow
def test_random_inputs_match_the_trec_eval_binary(capsys, tmp_path, trec_eval_binary, flags):
    rng = random.Random(" ".join(flags))
    for case in range(40):
        _random_case(rng, tmp_path)
        args = [*flags, "-q", "-m", "all_trec", str(tmp_path / "qrels"), str(tmp_path / "run")]
        theirs = subprocess.run([trec_eval_binary, *args], capture_output=True, text=True)
        code, out, err = _ours(capsys, args)
        if theirs.returncode != 0:
            assert code == theirs.returncode, (case, theirs.stderr, err)
            continue
        assert code == 0, err
        assert out.splitlines() == theirs.stdout.splitlines(), (case, flags)


@pytest.mark.parametrize(
    ("flags", "names"),
    [
        (["-c"], "every qrels query"),
        (["-J"], "judged_only=True"),
        (["-l2"], "rel=2"),
        (["-q", "--format", "trec_eval"], "--per-query"),
        (["--format=trec_eval", "-q"], "--per-query"),
    ],
)
def test_eval_names_the_equivalent_of_trec_eval_flags(capsys, trec_eval_dir, flags, names):
    """``citeval eval`` keeps its options; trec_eval's flags there are an error naming
    what citeval takes instead (``-q`` is --quiet there: trec_eval's per-query would
    otherwise be lost silently)."""
    files = [str(trec_eval_dir / "results.test"), "--qrels", str(trec_eval_dir / "qrels.test")]
    code = main(["eval", *files, *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("citeval: error: ") and names in err
    assert "citeval trec_eval" in err
    assert main(["eval", *files, "-q", "-m", "P@5"]) == 0  # -q alone: --quiet, as before
    assert capsys.readouterr().out.count("P@5") == 1
