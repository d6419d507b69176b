"""compare, table and breakdown test significance the same way (issue 27): one family per
output, tests without a p left out and said, B raised for the family, marks in the test's
own direction, tests no data could make significant said, intervals resting on few
non-zero differences flagged. Runs on the demo built from its BM25 baseline with the gold
paper of each query placed at chosen ranks (every candidate admissible, so every run
passes validation), through the API and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from compare_reference import flat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citeval_irm
from citeval_irm.base import choices
from citeval_irm.cli import main

statsmodels_multitest = pytest.importorskip("statsmodels.stats.multitest")

DEMO = "citeval/demo/test"
FAST = {"permutations": 500, "bootstrap": 200}
ELEVEN = "RR R@1 R@5 R@10 R@20 nDCG@5 nDCG@10 nDCG@20 P@1 P@5 AP"  # no cut-off past 20
STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


@pytest.fixture(scope="module")
def demo(demo_home):
    """The demo's BM25 rankings (30 deep, temporal) and each query's gold paper."""
    bm25 = citeval_irm.bm25_run(DEMO, 30, temporal=True).frame
    gold = citeval_irm.read_qrels(DEMO).frame.set_index("query_id")["doc_id"]
    return {"bm25": bm25, "gold": gold, "queries": list(gold.index)}


def placed(demo, ranks) -> pd.DataFrame:
    """A run ranking each query's gold paper at ``ranks[i]`` (0: not retrieved) among
    BM25's own candidates for it."""
    frames = []
    rankings = dict(tuple(demo["bm25"].groupby("query_id", sort=False)))
    for query, rank in zip(demo["queries"], ranks):
        gold = demo["gold"][query]
        order = [d for d in rankings[query]["doc_id"] if d != gold][:20]
        if rank:
            order.insert(rank - 1, gold)
        frames.append(
            pd.DataFrame(
                {"query_id": query, "doc_id": order, "score": 100.0 - np.arange(len(order))}
            )
        )
    return pd.concat(frames, ignore_index=True)


def manifest(folder, runs: dict[str, pd.DataFrame]):
    """A manifest of ``runs`` on the demo, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = ["system,dataset,run"]
    for name, frame in runs.items():
        citeval_irm.write_run(frame, folder / f"{name}.trec")
        rows.append(f"{name},{DEMO},{name}.trec")
    (folder / "manifest.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder / "manifest.csv"


def wins_small_loses_big(demo) -> dict[str, pd.DataFrame]:
    """b beats a on 116 queries by a little (gold at rank 4 instead of 5) and loses 12 by a
    lot (not retrieved instead of rank 1): better by the sign test, worse on the mean."""
    n = len(demo["queries"])
    a = [5] * 116 + [1] * 12 + [2] * (n - 128)
    b = [4] * 116 + [0] * 12 + [2] * (n - 128)
    return {"a": placed(demo, a), "b": placed(demo, b)}


# --------------------------------------------------------------------------- 2. direction


def test_table_marks_a_cell_in_the_direction_of_the_test(demo, tmp_path, capsys):
    runs = wins_small_loses_big(demo)
    path = manifest(tmp_path / "direction", runs)
    comparison = citeval_irm.compare(
        {n: tmp_path / "direction" / f"{n}.trec" for n in runs},
        DEMO,
        "RR",
        baseline="a",
        queries="all",
        statistics=citeval_irm.StatisticsOptions(test="sign", **FAST),
    )
    pair = comparison.pairs.iloc[0]
    assert pair["diff"] < 0 and pair["direction"] == 1 and pair["significant"]
    table = citeval_irm.results_table(
        path,
        measures="RR",
        baseline="a",
        statistics=citeval_irm.StatisticsOptions(test="sign", **FAST),
    )
    cell = table.to_frame().set_index("system").loc["b"]
    assert cell["significant"] and cell["direction"] == 1 and cell["diff"] < 0
    row = next(line for line in str(table).splitlines() if line.strip().startswith("b "))
    assert row.rstrip().endswith("▲")  # better by wins against losses, as compare says
    text = flat(str(table))
    assert "in the direction of its own statistic: wins against losses" in text
    assert "b on citeval/demo/test RR: 116 queries won, 12 lost, mean difference -0.0" in text
    assert "points against the mean difference" in flat(table.format("latex"))
    assert main(["table", str(path), "-m", "RR", "--baseline", "a", "--test", "sign", "-q",
                 "--format", "json"]) == 0  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    cell = next(c for c in payload["cells"] if c["system"] == "b")
    assert cell["direction"] == 1 and cell["significant"] is True
    assert any("points against the mean" in line for line in payload["legend"])
    by_mean = citeval_irm.results_table(
        path,
        measures="RR",
        baseline="a",
        statistics=citeval_irm.StatisticsOptions(test="t", **FAST),
    )
    row = next(line for line in str(by_mean).splitlines() if line.strip().startswith("b "))
    assert "▲" not in row  # by the mean, b is not better


# --------------------------------------------------------------------------- 1. the family


def test_tests_without_a_p_are_left_out_of_the_table_family(demo, tmp_path):
    """A copy of the baseline has no t-test (no spread): with BH the other system's cells
    still get p_adj (they were all NaN), Holm multiplies by the 2 tests that have a p (not
    4), and the legend says so."""
    n = len(demo["queries"])
    rng = np.random.default_rng(3)
    base = list(rng.integers(1, 12, size=n))
    better = [max(1, r - int(rng.integers(0, 3))) for r in base]
    runs = {"base": placed(demo, base), "copy": placed(demo, base),
            "better": placed(demo, better)}  # fmt: skip
    path = manifest(tmp_path / "family", runs)
    for correction in ("bh", "holm"):
        table = citeval_irm.results_table(
            path,
            measures="RR R@5",
            baseline="base",
            statistics=citeval_irm.StatisticsOptions(test="t", correction=correction, **FAST),
        )
        cells = table.to_frame().set_index(["system", "measure"])
        assert cells.loc["copy", "p"].isna().all() and cells.loc["copy", "p_adj"].isna().all()
        tested = cells.loc["better"]
        expected = statsmodels_multitest.multipletests(tested["p"], method=STATSMODELS[correction])
        np.testing.assert_allclose(tested["p_adj"], expected[1], rtol=1e-12)
        assert tested["significant"].all()
        assert table.family.size == 2 and table.family.left_out == 2
        text = flat(str(table))
        assert (
            f"{correction} correction over all 2 tests of the table (2 tests without a p " in text
        )
        assert "left out: every query has the same difference (+0): no variation" in text


def test_groups_without_a_p_are_left_out_of_the_breakdown_family(demo):
    """The runs differ only on COLING's queries (the venue facet): in every other venue
    group the t-test has no p (no spread); the COLING group is corrected alone, and with BH
    its p_adj is no NaN (it was)."""
    from citeval_irm.comparison.facets import query_groups
    from citeval_irm.reading.io import as_dataset

    venues = query_groups(as_dataset(DEMO), "venue", citeval_irm.read_qrels(DEMO).frame, 3)
    coling = set(venues.index[venues == "COLING"])
    rng = np.random.default_rng(4)
    base = list(rng.integers(2, 12, size=len(demo["queries"])))
    other = [max(1, r - int(rng.integers(1, 3))) if q in coling else r
             for q, r in zip(demo["queries"], base)]  # fmt: skip
    runs = {"base": placed(demo, base), "other": placed(demo, other)}
    result = citeval_irm.breakdown(
        runs,
        DEMO,
        "RR",
        by="venue",
        statistics=citeval_irm.StatisticsOptions(test="t", correction="bh", **FAST),
    )
    pairs = result.pairs.set_index("group")
    assert pairs["p_t"].notna().sum() == 1 and pairs.loc["COLING", "p_t"] < 0.05
    assert pairs.loc["COLING", "p_adj"] == pairs.loc["COLING", "p_t"]  # a family of one
    assert pairs.loc["COLING", "significant"]
    left = len(pairs) - 1
    assert pairs.drop(index="COLING")["p_adj"].isna().all() and left >= 2
    text = flat(str(result))
    assert f"bh correction over all 1 (group, run) tests ({left} tests without a p left out" in text


# --------------------------------------------------------------------------- 3. B


def test_table_raises_b_for_its_family_and_says_so(demo, tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(5)
    n = len(demo["queries"])
    base = list(rng.integers(1, 12, size=n))
    runs = {"base": placed(demo, base), "better": placed(demo, [max(1, r - 3) for r in base])}
    path = manifest(tmp_path / "b", runs)
    args = ["table", str(path), "--baseline", "base", "-m", ELEVEN, "-q"]
    assert main([*args, "--permutations", "100", "--bootstrap", "100"]) == 0
    out, err = capsys.readouterr()
    # 11 Holm-corrected tests: B = 100 puts the floor at 11 / 101 > alpha / 2
    assert "raised to B = 439" in flat(err) and "B raised from 100 to 439" in flat(out)
    assert out.count("▲") >= 5
    monkeypatch.setattr(choices, "MAX_AUTO_PERMUTATIONS", 200)
    with pytest.warns(citeval_irm.EvalWarning, match="B = 439 is needed"):
        table = citeval_irm.results_table(
            path,
            baseline="base",
            measures=ELEVEN,
            statistics=citeval_irm.StatisticsOptions(permutations=100, bootstrap=100),
        )
    assert not table.to_frame()["significant"].any()
    text = flat(str(table))
    assert "cannot reach significance (11 of 11 tests" in text
    assert "the smallest possible p_adj is 0.1089" in text  # 11 / 101


# --------------------------------------------------------------------------- 4. unreachable


def test_too_few_non_zero_differences_are_said_in_every_output(demo, tmp_path, capsys):
    """5 queries differ, all one way: the sign test's smallest p is 2 / 2**5 = 0.0625."""
    n = len(demo["queries"])
    base = [3] * n
    runs = {"base": placed(demo, base), "five": placed(demo, [1] * 5 + [3] * (n - 5))}
    folder = tmp_path / "five"
    path = manifest(folder, runs)
    files = [str(folder / f"{name}.trec") for name in runs]
    comparison = citeval_irm.compare(
        files, DEMO, "RR", statistics=citeval_irm.StatisticsOptions(test="sign", **FAST)
    )
    pair = comparison.pairs.iloc[0]
    assert pair["p_sign"] == 0.0625 and pair["p_adj_floor"] == 0.0625
    assert not pair["reachable"] and not pair["significant"]
    assert "cannot reach significance (1 of 1 test: RR five - base)" in flat(str(comparison))
    assert "1 of the 1 tests cannot reach significance" in flat(comparison.format("latex"))
    assert main(["compare", *files, "--dataset", DEMO, "-m", "RR", "--test", "sign", "-q",
                 "--format", "json"]) == 0  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert payload["pairs"][0]["reachable"] is False and payload["family"]["unreachable"] == 1
    assert main(["compare", *files, "--dataset", DEMO, "-m", "RR", "--test", "sign", "-q",
                 "--format", "csv"]) == 0  # fmt: skip
    frame = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert not frame["reachable"].iloc[0]
    table = citeval_irm.results_table(
        path,
        measures="RR",
        baseline="base",
        statistics=citeval_irm.StatisticsOptions(test="sign", **FAST),
    )
    assert "cannot reach significance (1 of 1 test: five on citeval/demo/test RR)" in flat(
        str(table)
    )
    result = citeval_irm.breakdown(
        runs, DEMO, "RR", by="gold", statistics=citeval_irm.StatisticsOptions(test="sign", **FAST)
    )
    assert "cannot reach significance" in flat(str(result))
    assert "x" in result.table()[1][0][-1]


# --------------------------------------------------------------------------- 5. intervals


def test_an_interval_on_few_non_zero_differences_is_flagged_everywhere(demo, capsys, tmp_path):
    n = len(demo["queries"])
    runs = {"base": placed(demo, [3] * n), "some": placed(demo, [1] * 12 + [3] * (n - 12))}
    folder = tmp_path / "few"
    manifest(folder, runs)
    files = [str(folder / f"{name}.trec") for name in runs]
    comparison = citeval_irm.compare(
        files, DEMO, "RR R@30", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    rows = comparison.pairs.set_index("measure")
    assert rows.at["RR", "ci_few"] and not np.isnan(rows.at["RR", "ci_low"])
    text = flat(str(comparison))
    assert "~[" in text and "the interval rests on fewer than 30 non-zero differences" in text
    assert "\\~\\[" in comparison.format("markdown")  # escaped, shown as ~[
    for fmt, read in (
        ("json", lambda t: json.loads(t)["pairs"][0]["ci_few"]),
        ("csv", lambda t: bool(pd.read_csv(pd.io.common.StringIO(t))["ci_few"][0])),
    ):
        assert main(["compare", *files, "--dataset", DEMO, "-m", "RR", "-q", "--format", fmt]) == 0
        assert read(capsys.readouterr().out) is True
    result = citeval_irm.breakdown(
        runs, DEMO, "R@1", by="gold", statistics=citeval_irm.StatisticsOptions(**FAST)
    )  # 12 non-zero values
    assert result.pairs["ci_few"].all() and result.groups["some few"].all()
    assert "~[" in str(result) and "fewer than 30 non-zero values" in flat(str(result))
    assert result.to_frame()["some ci_few"].all()


# --------------------------------------------------------------------------- the property


@st.composite
def families(draw):
    """2-4 runs on the demo: each a copy of the baseline or the baseline with the gold
    moved on a random share of the queries (often few: many ties), a test, a correction."""
    n = 163
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    base = rng.integers(1, 15, size=n)
    runs = {"base": base}
    for i in range(draw(st.integers(1, 3))):
        share = draw(st.sampled_from([0.0, 0.03, 0.2, 0.6]))
        moved = rng.random(n) < share
        runs[f"s{i}"] = np.where(moved, np.maximum(1, base + rng.integers(-6, 4, size=n)), base)
    test = draw(st.sampled_from(choices.TESTS))
    correction = draw(st.sampled_from(sorted(STATSMODELS)))
    return runs, test, correction


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(family=families())
def test_table_and_breakdown_correct_like_statsmodels_and_test_like_compare(
    demo, tmp_path_factory, family
):
    ranks, test, correction = family
    runs = {name: placed(demo, list(r)) for name, r in ranks.items()}
    path = manifest(tmp_path_factory.mktemp("property"), runs)
    common = {"statistics": citeval_irm.StatisticsOptions(test=test, correction=correction, **FAST)}
    table = citeval_irm.results_table(path, measures="RR R@5", baseline="base", **common)
    result = citeval_irm.breakdown(runs, DEMO, "RR", by="gold", baseline="base", **common)
    for pairs, p_column in ((table.to_frame().dropna(subset=["diff"]), "p"),
                            (result.pairs, f"p_{test}")):  # fmt: skip
        has_p = pairs[p_column].notna()
        if has_p.any():
            expected = statsmodels_multitest.multipletests(
                pairs.loc[has_p, p_column], method=STATSMODELS[correction]
            )[1]
            np.testing.assert_allclose(pairs.loc[has_p, "p_adj"], expected, rtol=1e-12)
        assert pairs.loc[~has_p, "p_adj"].isna().all()
        marked = (pairs["p_adj"] < 0.05) & (pairs["direction"] != 0)
        assert (pairs["significant"].astype(bool) == marked).all()
    # the same runs through compare (B as the table used it, no correction): the same p
    alone = citeval_irm.compare(
        runs,
        DEMO,
        "RR R@5",
        baseline="base",
        queries="all",
        tukey=False,
        statistics=citeval_irm.StatisticsOptions(
            test=test, correction="none", permutations=table.settings.permutations, bootstrap=200
        ),
    ).pairs.set_index(["system", "measure"])
    cells = table.to_frame().dropna(subset=["diff"]).set_index(["system", "measure"])
    np.testing.assert_array_equal(cells["p"], alone.loc[cells.index, f"p_{test}"])
    np.testing.assert_array_equal(cells["direction"], alone.loc[cells.index, "direction"])


# --------------------------------------------------------------------------- 6. provenance


def test_a_result_made_on_other_judgements_or_settings_is_refused(demo, tmp_path):
    """compare({"a": evaluate(run, "qa.txt"), "b": run}, "qb.txt"): the scores of a were
    made against other judgements; an error names both. The same judgements in another
    form and order (a dict) are the same."""
    n = len(demo["queries"])
    runs = {"a": placed(demo, [2] * n), "b": placed(demo, [1] * 60 + [3] * (n - 60))}
    qrels = citeval_irm.read_qrels(DEMO).frame
    qa, qb = tmp_path / "qa.txt", tmp_path / "qb.txt"
    rows = [f"{q} 0 {d} {r}\n" for q, d, r in qrels[["query_id", "doc_id", "relevance"]].values]
    qa.write_text("".join(rows), encoding="utf-8")
    changed = rows[:-1] + [rows[-1].replace(" 1\n", " 2\n")]  # one label differs
    qb.write_text("".join(changed), encoding="utf-8")
    made = citeval_irm.evaluate(
        runs["a"], qa, "RR", execution=citeval_irm.ExecutionOptions(progress=False)
    )
    with pytest.raises(citeval_irm.InputError, match=r"a was evaluated on other judgements "
                       r"\(.*qa.txt\) than the comparison's qrels \(.*qb.txt\)"):  # fmt: skip
        citeval_irm.compare(
            {"a": made, "b": runs["b"]}, qb, "RR", statistics=citeval_irm.StatisticsOptions(**FAST)
        )
    both = {
        "a": made,
        "b": citeval_irm.evaluate(
            runs["b"], qb, "RR", execution=citeval_irm.ExecutionOptions(progress=False)
        ),
    }
    with pytest.raises(citeval_irm.InputError, match="b was evaluated on other judgements"):
        citeval_irm.compare(both, measures="RR", statistics=citeval_irm.StatisticsOptions(**FAST))
    as_dict = {}
    for q, d, r in reversed(qrels[["query_id", "doc_id", "relevance"]].values.tolist()):
        as_dict.setdefault(q, {})[d] = r
    same = citeval_irm.compare(
        {"a": made, "b": runs["b"]}, as_dict, "RR", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    assert same.pairs.iloc[0]["diff"] > 0
    for option, value in (("max_docs", 1), ("ties", "run_order"), ("empty_queries", "skip")):
        other = citeval_irm.evaluate(
            runs["a"],
            qa,
            "RR",
            options=citeval_irm.EvalOptions(**{option: value}),
            execution=citeval_irm.ExecutionOptions(progress=False),
        )
        with pytest.raises(citeval_irm.InputError, match=f"a was evaluated with {option}="):
            citeval_irm.compare(
                {"a": other, "b": runs["b"]},
                qa,
                "RR",
                statistics=citeval_irm.StatisticsOptions(**FAST),
            )
    protocol = citeval_irm.evaluate(
        runs["a"],
        DEMO,
        protocol="goyal2026",
        execution=citeval_irm.ExecutionOptions(progress=False),
    )
    with pytest.raises(citeval_irm.InputError, match="protocol goyal2026, the comparison uses"):
        citeval_irm.compare({"a": protocol, "b": runs["b"]}, DEMO, protocol="masterset2026")
