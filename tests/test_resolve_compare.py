"""Resolutions beside runs: compare, table and the report take what citeval_irm.resolve made
of generated reference lists (two GENERATED "models" of the demo's test queries,
resolve_fixtures.demo_model_lists), with the field's measures and the resolution's rates
tested the same way everywhere."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from resolve_fixtures import DEMO, demo_model_lists
from scipy import stats

import citeval_irm
from citeval_irm.cli import main

FIELD = ["RR", "R@10"]
QUICK = {"statistics": citeval_irm.StatisticsOptions(bootstrap=200, permutations=500)}


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", citeval_irm.EvalWarning)
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def models(demo_home, tmp_path_factory):
    """Two models' lists (a: most cited papers named, few invented; b: fewer, many
    invented), as JSONL files and resolved."""
    folder = tmp_path_factory.mktemp("models")
    lists = {"llm-a": demo_model_lists(0.8, 0.1, 1), "llm-b": demo_model_lists(0.5, 0.4, 5)}
    paths, resolved = {}, {}
    for name, found in lists.items():
        paths[name] = folder / f"{name}.jsonl"
        paths[name].write_text("".join(json.dumps({"query_id": q, "references": r}) + "\n"
                                       for q, r in found.items()))  # fmt: skip
        resolved[name] = quiet(citeval_irm.resolve, paths[name], DEMO, measures=FIELD)
    return {"folder": folder, "paths": paths, "resolved": resolved}


def test_compare_tests_the_field_measures_as_the_runs_and_each_rate_on_its_queries(models):
    a, b = models["resolved"]["llm-a"], models["resolved"]["llm-b"]
    with pytest.warns(citeval_irm.EvalWarning) as caught:
        found = citeval_irm.compare({"llm-a": a, "llm-b": b}, DEMO, queries="all", **QUICK)
    assert found.measures == [*FIELD, "in_pool_rate", "duplicate_rate"]
    # the field measures: as compare gives them for the resolved runs written as files
    runs = {name: models["folder"] / f"{name}.trec" for name in ("llm-a", "llm-b")}
    for name, path in runs.items():
        citeval_irm.write_run(models["resolved"][name].run, path)
    files = quiet(citeval_irm.compare, runs, DEMO, FIELD, queries="all", **QUICK)
    ours = found.pairs.set_index("measure")
    theirs = files.pairs.set_index("measure")
    for measure in FIELD:
        for column in ("diff", "p_randomisation", "p_t", "p_sign", "ci_low", "wins", "losses"):
            assert ours.at[measure, column] == pytest.approx(theirs.at[measure, column])
    # each rate on the queries whose lists have references in both runs: the empty list's
    # query is left out of the rates' tests, and counted
    empty = [q for q, refs in demo_model_lists(0.8, 0.1, 1).items() if not refs]
    left = [w for w in caught if getattr(w.message, "code", "") == "queries_without_value"]
    # the same query for both rates: one warning naming both, not one per rate
    assert len(left) == 1 and left[0].message.count == len(empty) == 1
    assert "in_pool_rate, duplicate_rate" in left[0].message.message
    # the resolutions said their own warnings when resolved: compare does not repeat them
    assert not [w for w in caught if getattr(w.message, "code", "") == "short_ranking"]
    assert any(w.code == "short_ranking" for w in found.warnings)  # kept in the result
    for rate in ("in_pool_rate", "duplicate_rate"):
        diffs = (b.per_query[rate] - a.per_query[rate]).dropna()
        assert empty[0] not in diffs.index and len(diffs) == len(a.per_query) - 1
        assert ours.at[rate, "diff"] == pytest.approx(diffs.mean())
        wins, losses = int((diffs > 0).sum()), int((diffs < 0).sum())
        assert (ours.at[rate, "wins"], ours.at[rate, "losses"]) == (wins, losses)
        sign = stats.binomtest(wins, wins + losses).pvalue  # an independent sign test
        assert ours.at[rate, "p_sign"] == pytest.approx(sign)
        assert found.means.at[rate, "llm-a"] == pytest.approx(a.per_query[rate].mean())
    assert ours.at["in_pool_rate", "significant"] and ours.at["in_pool_rate", "diff"] < 0
    assert found.num_queries == len(a.per_query)  # the field's: every qrels query (all)
    text = found.format("table")
    assert "in_pool_rate on 162" in text and "lower is better for duplicate_rate" in text
    # a duplicate_rate's letter marks the lower rate as the better one
    beats = found.beats()
    if ours.at["duplicate_rate", "significant"]:
        lower = "llm-a" if ours.at["duplicate_rate", "diff"] > 0 else "llm-b"
        assert ("duplicate_rate", lower) in beats


def test_compare_takes_rates_by_name_and_only_when_every_run_has_them(models, tmp_path):
    a, b = models["resolved"]["llm-a"], models["resolved"]["llm-b"]
    only = quiet(citeval_irm.compare, {"a": a, "b": b}, DEMO, "in_pool_rate", **QUICK)
    assert only.measures == ["in_pool_rate"] and list(only.pairs["measure"]) == ["in_pool_rate"]
    run = tmp_path / "a.trec"
    citeval_irm.write_run(a.run, run)
    mixed = quiet(citeval_irm.compare, {"a": a, "run": run}, DEMO, FIELD, **QUICK)
    assert not any(m.endswith("_rate") for m in mixed.measures)
    with pytest.raises(citeval_irm.InputError, match="existence_rate needs a catalogue"):
        quiet(citeval_irm.compare, {"a": a, "b": b}, DEMO, "existence_rate")
    nothing = quiet(citeval_irm.resolve, {"q": ["An invented title about nothing at all"]}, DEMO)
    with pytest.raises(citeval_irm.InputError, match="no reference of <dict> resolved"):
        quiet(citeval_irm.compare, {"a": a, "none": nothing}, DEMO)


def test_table_resolves_a_manifests_jsonl_runs_and_tests_their_rates(models, capsys):
    folder = models["folder"]
    manifest = folder / "manifest.csv"
    manifest.write_text(f"system,dataset,run\nllm-a,{DEMO},llm-a.jsonl\nllm-b,{DEMO},llm-b.jsonl\n"
                        f"bm25,{DEMO},llm-a.trec\n")  # fmt: skip
    citeval_irm.write_run(models["resolved"]["llm-a"].run, folder / "llm-a.trec")
    assert main(["table", str(manifest), "--baseline", "llm-a", "-m", "RR R@10", "--format",
                 "json", "--bootstrap", "200", "--permutations", "500"]) == 0  # fmt: skip
    table = json.loads(capsys.readouterr().out)
    cells = {(c["system"], c["measure"]): c for c in table["cells"]}
    a, b = models["resolved"]["llm-a"], models["resolved"]["llm-b"]
    assert cells["llm-a", "in_pool_rate"]["value"] == pytest.approx(a.aggregate["in_pool_rate"])
    assert cells["llm-b", "RR"]["value"] == pytest.approx(b.aggregate["RR"])
    assert cells["bm25", "in_pool_rate"]["value"] is None  # a ranked run has no rate
    assert cells["bm25", "RR"]["status"] == "violation"  # the same run, short: validate says so
    assert cells["llm-a", "RR"]["status"] == cells["llm-b", "RR"]["status"] == "ok"
    assert any("generated lists: short_ranking in 162 queries" in n for n in table["notes"])
    # the rates and the field measures tested as compare tests them (every qrels query)
    compared = quiet(citeval_irm.compare, {"llm-a": a, "llm-b": b}, DEMO, queries="all",
                     baseline="llm-a", **QUICK)  # fmt: skip
    pairs = compared.pairs.set_index("measure")
    for measure in ("RR", "R@10", "in_pool_rate", "duplicate_rate"):
        cell = cells["llm-b", measure]
        assert cell["diff"] == pytest.approx(pairs.at[measure, "diff"])
        assert cell["p"] == pytest.approx(pairs.at[measure, "p_randomisation"])
        assert cell["p_adj"] == pytest.approx(pairs.at[measure, "p_adj"])
    assert any("lower is better for duplicate_rate" in line for line in table["legend"])


def test_a_jsonl_run_that_resolves_nothing_is_an_error_naming_it(models, tmp_path, capsys):
    (tmp_path / "nothing.jsonl").write_text('{"query_id": "q", "references": ["Invented"]}\n')
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"system,dataset,run\nnone,{DEMO},nothing.jsonl\n")
    assert main(["table", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert "nothing.jsonl" in err and "no reference resolved" in err and "Traceback" not in err


@pytest.mark.slow
def test_the_report_shows_the_resolution_and_its_rate_by_popularity(models, tmp_path, capsys):
    a, b = models["resolved"]["llm-a"], models["resolved"]["llm-b"]
    report = quiet(citeval_irm.make_report, {"llm-a": a, "llm-b": b}, DEMO, **QUICK)
    text = report.to_markdown()
    titles = re.findall(r"^## (.*)$", text, re.M)
    assert titles[:4] == ["What was evaluated", "Scores", "Resolution of the generated lists",
                          "in_pool_rate by popularity"]  # fmt: skip
    counts = a.counts()
    assert f"| exact | {counts['exact']:,} (" in text and "| references | " in text
    assert "![Plot of in_pool_rate by popularity group for llm-a, llm-b]" in text
    # the command: resolve --report x.html writes that page, with the catalogue's rate
    from pathlib import Path

    examples = Path(__file__).resolve().parents[1] / "examples"
    page, run = tmp_path / "resolution.html", tmp_path / "generated.trec"
    assert main(["resolve", str(examples / "generated.jsonl"), "--dataset", DEMO, "-o", str(run),
                 "--catalogue", str(examples / "catalogue.txt"), "--report", str(page),
                 "-q"]) == 0  # fmt: skip
    html = page.read_text(encoding="utf-8")
    assert "Resolution of the generated lists" in html and "existence_rate by popularity" in html
    assert re.search(r'<img[^>]+src="data:image/png;base64,', html)
    assert "outside pool" in html and "nowhere" in html
    capsys.readouterr()
    assert (
        main(
            [
                "resolve",
                str(examples / "generated.jsonl"),
                "--dataset",
                DEMO,
                "-o",
                str(run),
                "--report",
                str(page),
                "-q",
            ]
        )
        == 2
    )  # an existing page without --force
    assert "exists" in capsys.readouterr().err


def test_rates_print_as_fractions_in_percent():
    from citeval_irm.scoring import percent_scale

    assert percent_scale("existence_rate", True) == 100.0
    assert percent_scale("NumRet", True) == 1.0
    assert np.isclose(percent_scale("RR", True), 100.0)
