"""`compare` where IR data is unusual, through the API and the CLI: most differences zero,
one query, constant differences, NaN values, a test whose direction is not the mean's, a
family larger than B can resolve, and tables that say what they claim."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from compare_reference import flat

import citeval_irm
from citeval_irm.base import choices
from citeval_irm.base.measures import parse_measures
from citeval_irm.cli import main

DEMO = "citeval/demo/test"


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str) -> dict:
    """JSON as a strict parser reads it: NaN and Infinity are errors."""

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def evaluated(values: dict[str, np.ndarray], name: str = "run") -> citeval_irm.EvalResult:
    """A user-built EvalResult: per-query values by measure."""
    measures = parse_measures(" ".join(values))
    matrix = np.column_stack(list(values.values()))
    queries = [f"q{i}" for i in range(len(matrix))]
    return citeval_irm.EvalResult(
        measures=measures,
        query_ids=queries,
        values=matrix,
        aggregates={m: float(np.mean(v)) for m, v in values.items()},
        run_source=name,
    )


def rr_runs(write, first_ranks: dict[str, list[int]]) -> tuple[list, object]:
    """TREC runs whose relevant doc of query i sits at rank ``ranks[i]`` (0: not retrieved),
    and their qrels."""
    queries = len(next(iter(first_ranks.values())))
    qrels = write("qrels.txt", "".join(f"q{i} 0 rel{i} 1\n" for i in range(queries)))
    runs = []
    for name, ranks in first_ranks.items():
        lines = []
        for q, rank in enumerate(ranks):
            docs = [f"x{q}_{j}" for j in range(10)]
            if rank:
                docs.insert(rank - 1, f"rel{q}")
            lines += [f"q{q} Q0 {d} {r} {20 - r} {name}\n" for r, d in enumerate(docs[:10], 1)]
        runs.append(write(f"{name}.trec", "".join(lines)))
    return runs, qrels


# --------------------------------------------------------------------------- 1. Wilcoxon


def test_five_wins_among_a_hundred_are_not_significant_by_wilcoxon(capsys, write):
    """W/T/L 5/95/0, equal wins: exact p = 2/32 = 0.0625, not the normal 0.025."""
    runs, qrels = rr_runs(write, {"a": [2] * 100, "b": [1] * 5 + [2] * 95})
    comparison = citeval_irm.compare(
        runs, qrels, "RR", statistics=citeval_irm.StatisticsOptions(test="wilcoxon")
    )
    row = comparison.pairs.iloc[0]
    assert (row.wins, row.ties, row.losses) == (5, 95, 0)
    assert row.p_wilcoxon == 0.0625 and row.wilcoxon_method == "exact"
    assert not row.significant
    assert "exact distribution for 1 of 1 tests" in flat(str(comparison))
    code, out, _ = run_cli(
        capsys, "compare", *runs, "--qrels", qrels, "-m", "RR", "--test", "wilcoxon",
        "--format", "json",
    )  # fmt: skip
    pair = strict_json(out)["pairs"][0]
    assert code == 0 and pair["p_wilcoxon"] == 0.0625 and pair["significant"] is False


# --------------------------------------------------------------------------- 3. nothing


def test_one_query_has_no_inference_with_the_reason(capsys, write):
    runs, qrels = rr_runs(write, {"a": [2], "b": [1]})
    comparison = citeval_irm.compare(runs, qrels, "RR", tukey=True)
    row = comparison.pairs.iloc[0]
    for column in ("p_randomisation", "p_t", "p_wilcoxon", "p_sign", "p_tukey", "ci_low"):
        assert np.isnan(row[column]), column
    assert np.isnan(row.effect_size) and not row.significant
    assert "one query: no variation to infer from" in row.unavailable
    text = flat(str(comparison))
    assert (
        not re.search(r"\binf\b", text) and "n/a (1 test): p(rand), p(t), p(wsr), p(sign)" in text
    )
    code, out, _ = run_cli(
        capsys, "compare", *runs, "--qrels", qrels, "-m", "RR", "--format", "json"
    )
    pair = strict_json(out)["pairs"][0]
    assert code == 0 and pair["p_t"] is None and pair["effect_size"] is None
    assert pair["ci_low"] is None and "one query" in pair["unavailable"]


def test_a_constant_difference_has_no_t_d_z_or_interval(capsys, write):
    """Every query one rank better: the randomisation, Wilcoxon and sign tests have an
    exact p (all sign vectors), the t-test, d_z and the interval have no spread."""
    runs, qrels = rr_runs(write, {"a": [2] * 12, "b": [1] * 12})
    comparison = citeval_irm.compare(runs, qrels, "RR")
    row = comparison.pairs.iloc[0]
    assert row.p_randomisation == pytest.approx(2 / 2**12) and row.significant
    assert np.isnan(row.p_t) and np.isnan(row.effect_size) and np.isnan(row.ci_low)
    assert row.unavailable == (
        "p(t), d_z, CI: every query has the same difference (+0.5): no variation to infer from"
    )
    code, out, _ = run_cli(capsys, "compare", *runs, "--qrels", qrels, "-m", "RR")
    line = next(line for line in out.splitlines() if "b - a" in line)
    assert (
        code == 0
        and "n/a" in line
        and not re.search(r"\binf\b", out)
        and "[+50.00, +50.00]" not in out
    )


# --------------------------------------------------------------------------- 4. NaN


def test_a_nan_value_is_an_error_naming_run_measure_and_query():
    values = np.linspace(0.1, 0.9, 20)
    broken = values.copy()
    broken[7] = np.nan
    runs = {"base": evaluated({"RR": values}), "nan": evaluated({"RR": broken})}
    with pytest.raises(citeval_irm.InputError, match="nan: RR of query q7 is nan, not a number"):
        citeval_irm.compare(runs)
    all_nan = {"base": evaluated({"RR": values}), "nan": evaluated({"RR": values * np.nan})}
    with pytest.raises(citeval_irm.InputError, match=r"query q0 .* \(and 19 more values\)"):
        citeval_irm.compare(all_nan)


# --------------------------------------------------------------------------- 5. direction


def test_the_sign_test_marks_by_wins_not_by_the_mean(capsys, write):
    """b wins 40 of 50 queries by a little (rank 2 instead of 3) and loses 10 by a lot (not
    retrieved instead of rank 1): better by the sign test, worse on the mean."""
    runs, qrels = rr_runs(write, {"a": [3] * 40 + [1] * 10, "b": [2] * 40 + [0] * 10})
    comparison = citeval_irm.compare(
        runs, qrels, "RR", statistics=citeval_irm.StatisticsOptions(test="sign")
    )
    row = comparison.pairs.iloc[0]
    assert row["diff"] < 0 and row.direction == 1 and row.significant
    assert comparison.beats() == {("RR", "b"): ["a"]}
    by_mean = citeval_irm.compare(
        runs, qrels, "RR", statistics=citeval_irm.StatisticsOptions(test="t")
    )
    assert by_mean.pairs.iloc[0].direction == -1
    assert all(winner == "a" for _, winner in by_mean.beats())
    code, out, _ = run_cli(capsys, "compare", *runs, "--qrels", qrels, "-m", "RR", "--test", "sign")
    means = next(line for line in out.splitlines() if line.lstrip().startswith("RR "))
    assert code == 0 and means.split()[-1] == "a"  # b's mean carries the letter of a
    assert "in the direction of the sign test's own statistic (wins against losses)" in flat(out)


# --------------------------------------------------------------------------- 6. B


def clearly_different(runs: int, queries: int = 40) -> dict[str, citeval_irm.EvalResult]:
    rng = np.random.default_rng(8)
    base = rng.random(queries) * 0.2

    def noisy(shift: float) -> np.ndarray:
        return base + shift + rng.normal(0, 0.005, queries)

    return {
        f"s{i}": evaluated({"RR": noisy(0.03 * i), "R@10": noisy(0.03 * i + 0.01)}, f"s{i}")
        for i in range(runs)
    }


@pytest.mark.slow
def test_b_is_raised_to_what_the_family_needs():
    """23 runs, all pairs, 2 measures: 506 Holm-corrected tests, every pair clearly
    different. At B = 10,000 the smallest adjusted p would be 506 / 10,001 > 0.05."""
    comparison = citeval_irm.compare(clearly_different(23), tukey=False)
    assert len(comparison.pairs) == 506 and comparison.pairs["significant"].all()
    settings = comparison.settings
    assert (settings.permutations_requested, settings.permutations) == (10_000, 20_239)
    raised = [w for w in comparison.warnings if w.code == "permutations_raised"]
    assert raised and "raised to B = 20,239" in raised[0].message
    assert "B raised from 10,000" in flat(str(comparison))


def test_b_beyond_the_bound_warns_with_the_number_needed(monkeypatch):
    monkeypatch.setattr(choices, "MAX_AUTO_PERMUTATIONS", 1_100)  # read by family.py
    comparison = citeval_irm.compare(
        clearly_different(6),
        tukey=False,
        statistics=citeval_irm.StatisticsOptions(permutations=1_000),
    )
    assert comparison.settings.permutations == 1_000  # 30 tests need 1,199
    warning = next(w for w in comparison.warnings if w.code == "permutations_too_few")
    assert warning.count == 1_199 and "B = 1,199 is needed" in warning.message


def test_cli_raises_b_and_says_so(capsys, write):
    runs, qrels = rr_runs(
        write, {"a": [3] * 30, "b": [2] * 29 + [1], "c": [1] * 28 + [2, 3]}
    )  # 3 pairs x 2 measures = 6 tests: B = 100 puts the Holm floor at 6 / 101
    code, out, err = run_cli(
        capsys, "compare", *runs, "--qrels", qrels, "-m", "RR R@1", "--permutations", "100"
    )
    assert code == 0 and "raised to B = 239" in flat(err) and "B raised from 100" in flat(out)


# --------------------------------------------------------------------------- 7. tables


@pytest.fixture(scope="module")
def demo_runs(demo_home, tmp_path_factory):
    from citeval_irm.papers.baseline import bm25_run

    folder = tmp_path_factory.mktemp("inference_runs")
    bm25 = bm25_run(DEMO, 30, temporal=True)
    titles = bm25_run(DEMO, 30, temporal=True, fields=("title",))
    # the same ranking with coarse scores (ties) listed doc id ascending: trec_eval orders
    # ties doc id descending, the paper's script reads the list (write_run would re-sort)
    tied = bm25.frame.assign(score=bm25.frame["score"].round(0)).sort_values(
        ["query_id", "score", "doc_id"], ascending=[True, False, True]
    )
    lines = [
        f"{q} Q0 {d} 1 {s:g} tied\n"
        for q, d, s in tied[["query_id", "doc_id", "score"]].itertuples(index=False)
    ]
    (folder / "tied.trec").write_text("".join(lines), encoding="utf-8")
    runs = {"bm25": bm25, "titles": titles}
    paths = {
        name: citeval_irm.write_run(run, folder / f"{name}.trec") for name, run in runs.items()
    }
    return paths | {"tied": folder / "tied.trec"}


def test_latex_bold_caption_and_label_say_what_they_claim(demo_runs):
    runs = {name: demo_runs[name] for name in ("bm25", "titles")}
    comparison = citeval_irm.compare(runs, DEMO, "RR R@10", baseline="bm25", tukey=True)
    comparison.published = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    latex = comparison.format("latex")
    published_rows = [line for line in latex.splitlines() if "(published)" in line]
    assert published_rows and not any("textbf" in line for line in published_rows)
    bm25_row = next(line for line in latex.splitlines() if line.startswith("(a) bm25"))
    assert bm25_row.count("textbf") == 2  # the best of the runs, below PPM's 50.31
    caption = flat(latex[latex.index("\\caption") :])
    assert "Best of the runs compared here in bold; the published systems are not ranked" in caption
    assert "(like for like: NO: dataset, " in caption  # and the aspects that differ
    assert "Holm-corrected over the 2 tests of the table" in caption
    tukey = citeval_irm.compare(
        runs, DEMO, "RR R@10", statistics=citeval_irm.StatisticsOptions(test="tukey")
    ).format("latex")
    assert "not corrected across the 2 measures" in flat(tukey)
    labels = {comparison.label(), citeval_irm.compare(runs, DEMO, "RR").label()}
    assert len(labels) == 2 and all(label.startswith("tab:citeval-compare-") for label in labels)
    assert f"\\label{{{comparison.label()}}}" in latex
    markdown = comparison.format("markdown")
    assert "**" in markdown.split("| RR")[1].split("\n")[0]  # the best run of RR in bold
    assert "bold: the best of the runs compared here" in markdown


def test_the_published_verdict_weighs_the_scoring_method(capsys, demo_runs):
    runs = {name: demo_runs[name] for name in ("bm25", "tied")}
    comparison = citeval_irm.compare(runs, DEMO, protocol="goyal2026")
    comparison.published = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    checks = {(c.aspect, c.run): c for c in comparison.published.checks}
    assert checks[("scoring", "bm25")].status == "same"
    tied = checks[("scoring", "tied")]
    assert tied.status == "differs" and "script vs trec_eval" in tied.detail
    assert "the published figures are the script's, yours trec_eval's" in tied.detail
    assert "scoring differ" in flat(comparison.format("latex"))
    code, out, _ = run_cli(
        capsys, "compare", demo_runs["tied"], "--dataset", DEMO, "--protocol", "goyal2026",
        "--published-dataset", "ACL-200", "--format", "json",
    )  # fmt: skip
    published = strict_json(out)["published"]
    scoring = next(c for c in published["checks"] if c["aspect"] == "scoring")
    assert code == 0 and scoring["status"] == "differs" and published["like_for_like"] is False


def test_pairs_frame_keeps_its_columns_for_a_notebook(demo_runs):
    comparison = citeval_irm.compare(
        {"bm25": demo_runs["bm25"], "titles": demo_runs["titles"]}, DEMO, "RR", baseline="bm25"
    )
    assert {"wilcoxon_method", "direction", "unavailable"} <= set(comparison.pairs.columns)
    assert isinstance(comparison.to_frame(), pd.DataFrame)
