"""`compare` through the public API and the CLI, on TREC runs with a planted difference."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from compare_reference import QUERIES, enumerated_sign_flip_p, flat, planted_runs
from scipy import stats as scipy_stats

import citeval_irm
from citeval_irm.cli import main

MEASURES = "RR R@10 nDCG@10 AP"
EXPECTED_LATEX = Path(__file__).parent / "data" / "compare_expected.tex"


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> dict[str, Path]:
    return planted_runs(tmp_path_factory.mktemp("planted"))


@pytest.fixture(scope="module")
def comparison(planted):
    runs = {name: planted[name] for name in ("base", "better", "null")}
    return citeval_irm.compare(runs, planted["qrels"], MEASURES, baseline="base")


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_planted_difference_is_found_and_the_null_is_not(comparison):
    pairs = comparison.pairs.set_index(["system", "measure"])
    alpha = comparison.settings.alpha
    for measure in ("RR", "R@10", "nDCG@10", "AP"):
        better, null = pairs.loc[("better", measure)], pairs.loc[("null", measure)]
        assert better["diff"] > 0 and better["ci_low"] > 0 and better["losses"] == 0
        assert better["significant"] and better["p_randomisation"] < 0.001
        assert better["p_tukey"] < alpha
        assert not null["significant"] and null["p_randomisation"] > alpha
        assert null["ci_low"] < 0 < null["ci_high"] and null["p_tukey"] > alpha
    assert comparison.num_queries == QUERIES


def test_every_p_value_equals_scipy(comparison):
    values = comparison.per_query
    for row in comparison.pairs.itertuples():
        system, base = values[(row.measure, row.system)], values[(row.measure, row.baseline)]
        d = (system - base).to_numpy()
        assert row.diff == pytest.approx(d.mean(), abs=1e-15)
        assert row.p_t == scipy_stats.ttest_rel(system, base).pvalue
        assert row.p_wilcoxon == scipy_stats.wilcoxon(system, base).pvalue
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        assert (row.wins, row.losses, row.ties) == (wins, losses, len(d) - wins - losses)
        assert row.p_sign == scipy_stats.binomtest(wins, wins + losses).pvalue
        assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1))


@pytest.mark.parametrize(
    ("ours", "theirs"), [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]
)
@pytest.mark.slow
def test_correction_equals_statsmodels(planted, ours, theirs):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    runs = [planted["base"], planted["better"], planted["null"]]  # all three pairs
    result = citeval_irm.compare(
        runs, planted["qrels"], MEASURES, statistics=citeval_irm.StatisticsOptions(correction=ours)
    )
    expected = multitest.multipletests(result.pairs["p_randomisation"], method=theirs)[1]
    np.testing.assert_allclose(result.pairs["p_adj"], expected, rtol=1e-12)
    assert result.settings.correction == ours


def test_tiny_case_randomisation_is_the_exact_enumeration(write):
    qrels = write("q.txt", "".join(f"q{i} 0 rel{i} 1\n" for i in range(7)))
    ranks_a, ranks_b = [1, 2, 3, 1, 5, 2, 4], [2, 1, 1, 1, 2, 3, 1]

    def run(ranks, name):
        lines = []
        for q, rank in enumerate(ranks):
            docs = [f"x{q}_{j}" for j in range(5)]
            docs.insert(rank - 1, f"rel{q}")
            lines += [f"q{q} Q0 {doc} {r} {10 - r} {name}\n" for r, doc in enumerate(docs, 1)]
        return write(f"{name}.trec", "".join(lines))

    result = citeval_irm.compare([run(ranks_a, "a"), run(ranks_b, "b")], qrels, "RR")
    row = result.pairs.iloc[0]
    d = [1 / b - 1 / a for a, b in zip(ranks_a, ranks_b)]
    assert row["randomisation_exact"]
    assert row["p_randomisation"] == pytest.approx(enumerated_sign_flip_p(d), abs=1e-15)
    assert "exact (all sign vectors enumerated) for 1 of 1 tests" in flat(str(result))


def test_names_from_file_stems_and_all_pairs(planted):
    result = citeval_irm.compare([planted["base"], planted["null"]], planted["qrels"], "RR")
    assert result.names == ["base", "null"] and result.baseline is None
    row = result.pairs.iloc[0]
    assert (row["baseline"], row["system"]) == ("base", "null")  # later minus earlier
    assert result.tukey is None  # two runs: the Tukey HSD is only asked for with three or more
    with pytest.raises(ValueError, match="two runs are named 'base'"):
        citeval_irm.compare([planted["base"], planted["base"]], planted["qrels"], "RR")
    with pytest.raises(ValueError, match="baseline 'x' is not one of the runs"):
        citeval_irm.compare([planted["base"]], planted["qrels"], "RR", baseline="x")


def test_runs_covering_different_queries_are_compared_on_the_common_ones(planted, tmp_path):
    frame = citeval_irm.read_run(planted["null"]).frame
    dropped = sorted(frame["query_id"].unique())[:25]
    partial = citeval_irm.write_run(frame[~frame["query_id"].isin(dropped)], tmp_path / "p.trec")
    runs = {"base": planted["base"], "partial": partial}
    common = citeval_irm.compare(runs, planted["qrels"], "RR", baseline="base")
    assert common.num_queries == QUERIES - 25
    warning = next(w for w in common.warnings if w.code == "unranked_queries")
    assert warning.count == 25 and "left out of the comparison" in warning.message
    assert common.coverage.loc["partial", "unranked"] == 25
    assert "compared on the 375 every run ranks (partial ranks 375 of 400)" in str(common)
    every = citeval_irm.compare(runs, planted["qrels"], "RR", baseline="base", queries="all")
    assert every.num_queries == QUERIES
    assert every.per_query.loc[dropped, ("RR", "partial")].eq(0).all()


def test_evaluated_results_compare_like_runs(planted, comparison):
    results = {
        name: citeval_irm.evaluate(planted[name], planted["qrels"], MEASURES)
        for name in ("base", "better", "null")
    }
    again = citeval_irm.compare(results, measures=MEASURES, baseline="base")
    pd.testing.assert_frame_equal(again.pairs, comparison.pairs)
    other = citeval_irm.evaluate(
        planted["base"],
        planted["qrels"],
        MEASURES,
        options=citeval_irm.EvalOptions(ties="run_order"),
    )
    with pytest.raises(ValueError, match="evaluated with ties='run_order'"):
        citeval_irm.compare({"a": other, "b": results["null"]})


@pytest.mark.slow
def test_seeds_and_counts_are_reported_and_repeatable(planted, comparison):
    runs = {name: planted[name] for name in ("base", "better", "null")}
    settings = comparison.settings
    assert (settings.seed, settings.permutations, settings.bootstrap) == (42, 10_000, 10_000)
    text = flat(str(comparison))
    assert "10,000 random flips (seed 42)" in text and "10,000 resamples" in text
    same = citeval_irm.compare(runs, planted["qrels"], MEASURES, baseline="base")
    pd.testing.assert_frame_equal(same.pairs, comparison.pairs)
    other = citeval_irm.compare(
        runs,
        planted["qrels"],
        MEASURES,
        baseline="base",
        statistics=citeval_irm.StatisticsOptions(seed=1),
    )
    assert not other.pairs["ci_low"].equals(comparison.pairs["ci_low"])


def test_table_marks_and_legend(comparison):
    lines = str(comparison).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  measure"))
    means = lines[start : start + 5]
    text = flat(str(comparison))
    assert means[0].split() == ["measure", "base", "(a)", "better", "(b)", "null", "(c)"]
    assert re.search(r"RR\s+0\.\d{4}\s+0\.\d{4} a\s+0\.\d{4}$", means[1])
    assert "p_adj: randomisation test p-values, Holm-corrected over the 8 tests shown" in text
    assert "*: p_adj < 0.05" in text and "not whether it matters" in text
    assert "randomised Tukey HSD, all pairs:" in text and "null - better" in text


def test_tidy_frames_csv_json_markdown(comparison):
    pairs = comparison.pairs
    assert list(pairs[["measure", "baseline", "system"]].iloc[0]) == ["RR", "base", "better"]
    assert comparison.means.size == 12 and len(comparison.tukey) == 12
    frame = comparison.to_frame()  # the compared per-query values
    assert frame.index.name == "query_id" and len(frame) == comparison.num_queries
    assert frame.columns.names == ["measure", "run"] and frame.shape[1] == 12
    assert frame[("RR", "base")].mean() == pytest.approx(comparison.means.loc["RR", "base"])
    csv = pd.read_csv(io.StringIO(comparison.format("csv")))
    assert len(csv) == 8 and csv["significant"].sum() == 4
    payload = json.loads(comparison.format("json"))
    assert payload["settings"]["test"] == "randomisation" and len(payload["pairs"]) == 8
    assert payload["means"]["RR"]["better"] == pytest.approx(comparison.means.at["RR", "better"])
    markdown = comparison.format("markdown")
    assert "| measure | base (a) | better (b) | null (c) |" in markdown
    assert "- p_adj:" in markdown


def test_latex_is_balanced_booktabs_and_as_stored(comparison):
    latex = comparison.format("latex")
    assert latex.count("{") == latex.count("}")
    for environment in ("table", "tabular"):
        assert (
            latex.count(f"\\begin{{{environment}}}") == latex.count(f"\\end{{{environment}}}") == 1
        )
    rules = [latex.index(rule) for rule in ("\\toprule", "\\midrule", "\\bottomrule")]
    assert rules == sorted(rules)
    rows = [line for line in latex.splitlines() if line.endswith("\\\\")]
    assert {row.count("&") for row in rows} == {4}  # System + four measures
    assert latex == EXPECTED_LATEX.read_text(encoding="utf-8")


def test_primary_test_tukey(planted):
    runs = {name: planted[name] for name in ("base", "better", "null")}
    result = citeval_irm.compare(
        runs,
        planted["qrels"],
        "RR",
        baseline="base",
        statistics=citeval_irm.StatisticsOptions(test="tukey"),
    )
    assert result.settings.correction == "none"
    np.testing.assert_array_equal(result.pairs["p_adj"], result.pairs["p_tukey"])
    assert "p_adj: the Tukey HSD p-value" in flat(str(result))


# --------------------------------------------------------------------------- CLI


def test_cli_compare_table_and_warnings(capsys, planted, tmp_path):
    code, out, err = run_cli(
        capsys,
        "compare",
        planted["base"],
        f"mine={planted['better']}",
        "--qrels",
        planted["qrels"],
        "-m",
        "RR R@10",
        "--baseline",
        "base",
        "--permutations",
        "2000",
        "--bootstrap",
        "2000",
    )
    assert code == 0 and "compare 2 runs (base, mine) on 400 queries" in flat(out)
    assert "mine - base" in out and "2,000 random flips (seed 42)" in flat(out)
    assert err == ""


@pytest.mark.parametrize("fmt", ["csv", "json", "latex", "markdown"])
def test_cli_compare_formats(capsys, planted, fmt):
    code, out, _ = run_cli(
        capsys, "compare", planted["base"], planted["null"], "--qrels", planted["qrels"],
        "-m", "RR", "--format", fmt, "--test", "t", "--correction", "bonferroni",
    )  # fmt: skip
    assert code == 0
    if fmt == "json":
        assert json.loads(out)["settings"]["correction"] == "bonferroni"
    elif fmt == "csv":
        assert pd.read_csv(io.StringIO(out), keep_default_na=False)["system"].tolist() == ["null"]
    elif fmt == "latex":
        assert "\\toprule" in out and "paired t-test, Bonferroni-corrected" in out
    else:
        assert out.count("| RR |") == 2


def test_cli_compare_bad_input(capsys, planted):
    code, _, err = run_cli(
        capsys, "compare", planted["base"], "--qrels", planted["qrels"], "-m", "RR", "--published"
    )
    assert code == 2 and "has no table without a dataset id" in err
    code, _, err = run_cli(
        capsys,
        "compare",
        planted["base"],
        "--qrels",
        planted["qrels"],
        "-m",
        "RR",
        "--baseline",
        "z",
    )
    assert code == 2 and "baseline 'z' is not one of the runs" in err


def test_one_spelling_of_the_unit_and_of_format_keywords(comparison):
    """issue 43: Comparison.default_percent() and decimals() as EvalResult spells them; the
    old percent_default() and shown() warn naming the new spelling; a keyword no format
    takes is a TypeError at format's call, naming those it takes."""
    assert comparison.default_percent() is False
    assert comparison.decimals(False) == 4 and comparison.decimals(True, 1) == 1
    with pytest.warns(DeprecationWarning, match=r"Comparison\.default_percent\(\)"):
        assert comparison.percent_default() is False
    with pytest.warns(DeprecationWarning, match=r"Comparison\.decimals\(\)"):
        assert comparison.shown(True) == (True, comparison.decimals(True))
    with pytest.raises(TypeError, match="'pct'; it takes percent, decimals"):
        comparison.format("table", pct=True)
    with pytest.raises(TypeError, match="'pct'; it takes percent, decimals"):
        comparison.format("json", pct=True)
    assert comparison.format("json", percent=True) == comparison.format("json")
    assert comparison.format("table", percent=True) != comparison.format("table")
