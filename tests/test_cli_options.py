"""Every option of `citeval eval` and `citeval crosscheck` changes what it says it changes,
with expected values worked out by hand (a one-line break in the plumbing fails here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeval_irm.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# q1: a relevant at rank 2 (b and a tied at 2.0: trec_eval puts b first, doc id descending);
# q2: only a label-0 judgement (no relevant doc); q3: in the qrels, not in the run;
# q4: in the run only; q1 lists b twice in the duplicated run
RUN = "q1 Q0 x 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 2.0 t\nq2 Q0 a 1 1.0 t\nq4 Q0 a 1 1.0 t\n"
QRELS = "q1 0 a 1\nq2 0 a 0\nq3 0 c 1\n"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(write):
    return write("run.trec", RUN), write("qrels.txt", QRELS)


def aggregate(out: str) -> dict:
    return json.loads(out)["aggregate"]


def test_empty_queries_zero_or_skip(capsys, files):
    run, qrels = map(str, files)
    code, out, _ = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "json")
    assert code == 0 and aggregate(out)["RR"] == pytest.approx((1 / 3 + 0 + 0) / 3)  # q1 q2 q3
    code, out, err = run_cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "json",
        "--empty-queries", "skip",
    )  # fmt: skip
    assert code == 0 and aggregate(out)["RR"] == pytest.approx((1 / 3 + 0) / 2)  # q1 q3
    assert "left out of the average" in err


def test_ties_option(capsys, files):
    run, qrels = map(str, files)
    _, out, _ = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "json")
    trec = aggregate(out)["RR"]
    _, out, _ = run_cli(
        capsys, "eval", run, "--qrels", qrels, "-m", "RR", "--format", "json", "--ties", "run_order"
    )
    assert (trec, aggregate(out)["RR"]) == pytest.approx(((1 / 3) / 3, (1 / 2) / 3))


def test_duplicates_option(capsys, write, files):
    _, qrels = files
    run = write("dup.trec", RUN + "q1 Q0 a 4 5.0 t\n")
    code, _, err = run_cli(capsys, "eval", str(run), "--qrels", str(qrels), "-m", "RR")
    assert code == 2 and "dup.trec:6: duplicate score for query 'q1' and doc 'a'" in err
    code, out, err = run_cli(
        capsys, "eval", str(run), "--qrels", str(qrels), "-m", "RR", "--format", "json",
        "--duplicates", "keep_best",
    )  # fmt: skip
    assert code == 0 and aggregate(out)["RR"] == pytest.approx(1 / 3)  # a's best copy: rank 1
    assert "kept the best-scored copy" in err


def test_percent_per_query_and_engines(capsys, files):
    run, qrels = map(str, files)
    base = ["eval", run, "--qrels", qrels, "-m", "RR P@2"]
    _, out, _ = run_cli(capsys, *base, "--percent", "--format", "csv")
    assert "all,RR,11.1111" in out.replace(" ", "")
    _, out, _ = run_cli(capsys, *base, "--per-query", "--format", "json")
    per_query = json.loads(out)["per_query"]
    assert per_query["q1"] == {"RR": pytest.approx(1 / 3), "P@2": 0.0}
    assert set(per_query) == {"q1", "q2", "q3"}
    for engine in ("citeval", "pytrec_eval"):
        code, out, _ = run_cli(capsys, *base, "--format", "json", "--engine", engine, "--verify")
        assert code == 0 and json.loads(out)["engine"] == engine


def test_crosscheck_options(capsys, files):
    run, qrels = map(str, files)
    base = ["crosscheck", run, "--qrels", qrels, "--recipe", "goyal2026", "-m", "RR"]
    code, out, _ = run_cli(capsys, *base, "--format", "json")
    report = json.loads(out)
    # the recipe sees the tie in the run's order (a before b): RR 1/2 for q1 where trec_eval
    # has 1/3; q2 (no gold) and q3 (no ranking) score 0 both ways
    assert code == 0 and report["recipe_ties"] == "run_order"
    assert [(d["query_id"], d["causes"]) for d in report["differences"]] == [("q1", "tie_order")]
    _, out, _ = run_cli(capsys, *base, "--format", "json", "--recipe-ties", "trec_eval")
    assert json.loads(out)["differences"] == []
    _, out, _ = run_cli(capsys, *base, "--percent")
    assert "(percent)" in out and "16.67" in out  # the recipe's RR, 0.5 / 3, in percent
    _, out, _ = run_cli(capsys, *base, "--max-rows", "0")
    assert "differing query x measure pairs (first 0 of 1, in 1 query)" in out


def test_crosscheck_strict_fails_on_an_unexplained_difference(capsys, files, monkeypatch):
    """A kernel broken on the recipe side only: the difference cannot be explained, and
    --strict exits 3."""
    from citeval_irm.papers import recipe_scorer

    run, qrels = map(str, files)
    scorer = recipe_scorer.RecipeScorer
    values = scorer.values
    monkeypatch.setattr(scorer, "values", lambda self, m, q: values(self, m, q) + 0.5)
    code, out, err = run_cli(
        capsys, "crosscheck", run, "--qrels", qrels, "--recipe", "goyal2026", "-m", "RR", "--strict"
    )
    assert code == 3 and "unexplained difference" in err
    assert "unexplained differences: 3" in out


def test_the_examples_files_evaluate_as_their_readme_says(capsys):
    """examples/: 40 contexts, ties in some, a cited paper missing one time in ten."""
    run, qrels = str(EXAMPLES / "run.trec"), str(EXAMPLES / "qrels.txt")
    code, out, err = run_cli(capsys, "eval", run, "--qrels", qrels, "--protocol", "goyal2026")
    assert code == 0 and "40 queries, protocol goyal2026" in " ".join(out.split())
    assert "tied scores broken by doc id" in err
    _, out, _ = run_cli(capsys, "eval", run, "--qrels", qrels, "-m", "R@300", "--format", "json")
    assert aggregate(out)["R@300"] < 1.0  # a cited paper missing from some rankings
