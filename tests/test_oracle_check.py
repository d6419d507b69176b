"""validate's gold_always_present check (oracle insertion of the gold paper), on the demo.

The rule (``checks.protocol.oracle_verdict``) reads only rankings that cover at most half of
their admissible pool and tolerates a few misses: the honest BM25 runs below, at every depth
from 10 docs to the whole pool, are never flagged; runs with the gold inserted into all or
all but one of their rankings are."""

from __future__ import annotations

import pytest
from datasets_fixtures import gold_inserted
from hypothesis import given
from hypothesis import strategies as st

import citeval_irm
from citeval_irm.checks.protocol import (
    ORACLE_HONEST_MISS,
    ORACLE_MAX_COVERAGE,
    ORACLE_MAX_MISSED,
    oracle_verdict,
)
from citeval_irm.cli import EXIT_STRICT_FAILURE, main

DEMO = "citeval/demo/test"
POOL = 404  # every demo query's admissible pool (checked below)
DEPTH = 100  # an oracle first stage's depth: a quarter of the pool


@pytest.fixture(scope="module")
def runs(demo_home, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oracle_runs")
    whole = citeval_irm.bm25_run(DEMO, POOL).frame
    titles = citeval_irm.bm25_run(DEMO, POOL, fields=("title",)).frame
    qrels = citeval_irm.read_qrels(DEMO).frame
    top = whole.groupby("query_id", sort=False).head(DEPTH)
    gold = qrels[qrels["relevance"] > 0][["query_id", "doc_id"]]
    hit = set(top.merge(gold, on=["query_id", "doc_id"])["query_id"])
    queries = list(whole["query_id"].drop_duplicates())
    missing = next(q for q in queries if q not in hit)  # BM25's top 100 misses its gold
    all_but_one = gold_inserted(whole, qrels, DEPTH, into=[q for q in queries if q != missing])
    return {
        "whole": whole,
        "titles": titles,
        "qrels": qrels,
        "inserted": citeval_irm.write_run(
            gold_inserted(whole, qrels, DEPTH), folder / "inserted.trec"
        ),
        "all_but_one": all_but_one,
    }


def codes(report) -> list[str]:
    return [w.code for w in report.warnings]


def holds_gold(run, qrels) -> int:
    gold = qrels[qrels["relevance"] > 0][["query_id", "doc_id"]]
    return run.merge(gold, on=["query_id", "doc_id"])["query_id"].nunique()


def test_the_demo_pool_is_what_the_tests_assume(demo_home):
    import ir_datasets

    from citeval_irm.datasets import admissible_candidates

    allowed = admissible_candidates(ir_datasets.load(DEMO), same_year=True, unknown_year="admit")
    assert set(allowed.pool_sizes()) == {POOL}


@pytest.mark.slow
@pytest.mark.parametrize("fields", ["whole", "titles"])
@pytest.mark.parametrize("depth", [10, 50, 100, 200, 300, 350, 400, POOL - 1, POOL])
def test_honest_first_stages_of_every_depth_are_not_flagged(runs, fields, depth):
    """BM25 over the whole text or titles alone, cut at every depth up to the whole pool:
    never flagged (a ranking of POOL - 1 docs holds the gold for all 163 queries and was
    flagged by the rule that read every ranking shorter than the pool)."""
    run = runs[fields].groupby("query_id", sort=False).head(depth)
    report = citeval_irm.validate(run, DEMO, strict=True)
    assert "gold_always_present" not in codes(report)
    assert report.count("gold_always_present") == 0
    if fields == "whole" and depth == POOL - 1:
        assert holds_gold(run, runs["qrels"]) == 163  # every ranking holds a gold paper


def test_the_gold_inserted_run_is_a_warning_with_counts_and_strict_a_violation(runs):
    report = citeval_irm.validate(runs["inserted"], DEMO)
    warning = next(w for w in report.warnings if w.code == "gold_always_present")
    with_gold = runs["qrels"].loc[runs["qrels"]["relevance"] > 0, "query_id"].nunique()
    assert warning.count == with_gold == 163
    assert "ranked for 163 of the 163 queries" in warning.message
    assert report.count("gold_always_present") == 0  # a warning, not a violation
    assert "warning: gold_always_present (163 queries)" in report.summary()
    strict = citeval_irm.validate(runs["inserted"], DEMO, strict=True)
    assert strict.count("gold_always_present") == warning.count and not strict.passed


def test_gold_inserted_into_all_but_one_ranking_is_flagged(runs):
    """A few misses are tolerated: the gold inserted into 162 of 163 rankings (the last keeps
    BM25's own top 100, which misses its gold) is flagged; the rule that wanted every ranking
    to hold the gold let it pass."""
    run = runs["all_but_one"]
    assert holds_gold(run, runs["qrels"]) == 162
    warning = next(w for w in citeval_irm.validate(run, DEMO).warnings
                   if w.code == "gold_always_present")  # fmt: skip
    assert warning.count == 162 and "(1 missed;" in warning.message


def test_the_check_through_the_cli(runs, capsys):
    assert main(["validate", str(runs["inserted"]), "--dataset", DEMO, "-q"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "warning: a gold paper is ranked for 163 of the 163 queries" in out
    assert "covers at most 50% of their candidate pool" in out
    code = main(["validate", str(runs["inserted"]), "--dataset", DEMO, "--strict", "-q"])
    assert code == EXIT_STRICT_FAILURE
    assert "gold_always_present)\n" in capsys.readouterr().out.split("result: VIOLATIONS")[1]


def test_the_rule_on_counts():
    assert oracle_verdict(163, 1).flagged and not oracle_verdict(163, 2).flagged
    assert not oracle_verdict(89, 0).flagged and oracle_verdict(90, 0).flagged
    assert not oracle_verdict(0, 0).flagged
    # at scale the share decides: 1 % missed is flagged, 1.1 % is not
    assert oracle_verdict(10_000, 100).flagged and not oracle_verdict(10_000, 110).flagged


@given(st.integers(1, 5_000), st.data())
def test_the_rule_is_monotone_in_the_misses(rankings, data):
    """Fewer misses never unflag a run; the flag needs at most ORACLE_MAX_MISSED missed and
    a binomial p-value below the level for an honest miss rate of ORACLE_HONEST_MISS."""
    from scipy.stats import binom

    missed = data.draw(st.integers(0, rankings))
    verdict = oracle_verdict(rankings, missed)
    if verdict.flagged and missed:
        assert oracle_verdict(rankings, missed - 1).flagged
    expected = (
        missed <= ORACLE_MAX_MISSED * rankings
        and binom.cdf(missed, rankings, ORACLE_HONEST_MISS) < 0.01
    )
    assert verdict.flagged == expected
    assert 0 < ORACLE_MAX_COVERAGE < 1


def test_the_readme_rates_script_on_a_small_configuration(runs):
    """scripts/oracle_rates.py, whose figures the README quotes: its exact false-positive
    rate is the binomial tail the rule flags, and its detection on the demo's BM25 finds
    every full insertion and none where the gold is inserted nowhere."""
    import importlib.util
    from pathlib import Path

    import numpy as np
    from scipy.stats import binom

    path = Path(__file__).resolve().parents[1] / "scripts" / "oracle_rates.py"
    spec = importlib.util.spec_from_file_location("oracle_rates", path)
    rates = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rates)
    assert list(rates.flagged_counts(163)) == [0, 1]
    assert rates.false_positive_rate(163, 0.05) == pytest.approx(binom.cdf(1, 163, 0.05))
    best = rates.gold_ranks(runs["whole"], runs["qrels"])
    assert int((best > DEPTH).sum()) == 16  # BM25's top 100 misses 16 of 163
    rng = np.random.default_rng(0)
    assert rates.detection_rate(best, DEPTH, 1.0, 20, rng) == 1.0
    assert rates.detection_rate(best, DEPTH, 0.0, 20, rng) == 0.0


def test_a_flagged_run_is_marked_in_the_table_and_never_bold(runs, tmp_path, capsys):
    """The inserted run scores best, but a table marks it ‡ with the warning as a footnote
    and bolds the best unflagged run instead (the oracle run was bold with no word); it is
    still tested against the baseline."""
    from datasets_fixtures import write_table_manifest

    honest = {
        (name, DEMO): runs[fields].groupby("query_id", sort=False).head(DEPTH)
        for name, fields in (("bm25", "whole"), ("titles", "titles"))
    }
    oracle = citeval_irm.read_run(runs["inserted"])
    manifest = write_table_manifest(tmp_path / "paper", {**honest, ("oracle", DEMO): oracle})
    measures = ["RR", "R@10", "nDCG@10"]
    table = citeval_irm.results_table(
        manifest,
        measures=measures,
        baseline="bm25",
        statistics=citeval_irm.StatisticsOptions(permutations=200, bootstrap=100),
    )
    assert table.value("oracle", DEMO, "RR") > table.value("bm25", DEMO, "RR")
    frame = table.values.set_index(["system", "measure"])
    assert set(frame.loc["oracle", "status"]) == {"flagged"}
    assert set(frame.loc["bm25", "status"]) == {"ok"}
    markdown = table.format("markdown")
    row = next(line for line in markdown.splitlines() if line.startswith("| oracle"))
    assert "**" not in row and row.count("‡") == len(measures) and "▲" in row
    bm25_row = next(line for line in markdown.splitlines() if line.startswith("| bm25"))
    assert bm25_row.count("**") == 2 * len(measures)
    assert "‡: the run holds the gold paper in nearly every ranking" in markdown
    assert "‡ oracle on citeval/demo/test: a gold paper is ranked for 163 of the 163" in markdown
    latex = table.format("latex")
    assert r"$^{\ddagger}$" in latex and "‡" not in latex
    assert main(["table", str(manifest), "-m", ",".join(measures), "-q"]) == 0
    out = capsys.readouterr().out
    assert "‡" in out and "oracle first stage?" in " ".join(out.split())


@pytest.mark.slow
def test_a_report_marks_a_flagged_run_in_its_scores(runs, tmp_path):
    """The report's scores table (one run, or the means of several) marks the flagged run
    with the table's mark and says why under it."""
    honest = runs["whole"].groupby("query_id", sort=False).head(DEPTH)
    oracle = citeval_irm.read_run(runs["inserted"])
    fast = citeval_irm.StatisticsOptions(permutations=200, bootstrap=100)
    both = citeval_irm.make_report(
        {"bm25": honest, "oracle": oracle}, DEMO, ["RR", "R@10"], statistics=fast
    )
    text = both.to_markdown()
    scores = text.split("## Scores")[1].split("\n## ")[0]
    assert "oracle (b) ‡" in scores and "bm25 (a) ‡" not in scores
    assert "‡: oracle: the run holds the gold paper in nearly every ranking" in scores
    alone = citeval_irm.make_report({"oracle": oracle}, DEMO, ["RR", "R@10"])
    assert "| measure | oracle ‡ |" in alone.to_markdown()
