"""The cross-check: one crafted case per cause, property tests, trec_eval's files, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeval_irm import evaluate, read_qrels, read_run
from citeval_irm.base.choices import KEEP_ALL
from citeval_irm.base.choices import TIE_POLICIES as TIES
from citeval_irm.base.measures import parse_measures
from citeval_irm.base.options import EvalOptions
from citeval_irm.checks.crosscheck import CAUSES, crosscheck
from citeval_irm.cli import main
from citeval_irm.evaluation.evaluate import population
from citeval_irm.papers import RECIPES
from citeval_irm.papers.recipe_scorer import RecipeScorer
from citeval_irm.papers.recipes import Quirks, Recipe


def only_difference(report, measure):
    rows = report.differences[report.differences["measure"] == measure]
    assert len(rows) == 1, report.differences
    return rows.iloc[0]


def frame(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


THRESHOLD_RECIPE = Recipe(
    name="threshold2",
    reference="a test recipe",
    description="gold = label >= 2",
    quirks=Quirks(min_relevance=2, duplicates=(("R", "drop"),)),
    measures=tuple(parse_measures("R@1")),
    percent=False,
    queries="qrels",
    source="a test recipe",
)


@pytest.mark.parametrize(
    ("cause", "run", "qrels", "kwargs", "measure", "trec_eval", "recipe"),
    [
        (
            "tie_order",
            {"q": {"a": 1.0, "b": 1.0}},
            {"q": {"a": 1}},
            {"recipe": "goyal2026"},
            "RR",
            0.5,
            1.0,
        ),
        (  # goyal2026's DCG sums over the list: the copy of a counts again at rank 3
            "duplicate_doc",
            frame([("q", "a", 0.9), ("q", "b", 0.8), ("q", "a", 0.7)]),
            {"q": {"a": 1, "c": 1}},
            {"recipe": "goyal2026"},
            "nDCG@5",
            1 / (1 + 1 / math.log2(3)),
            (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)),
        ),
        (
            "query_paper_removed",
            {"P1": {"P1": 0.9, "g": 0.8}},
            {"P1": {"g": 1}},
            {"recipe": "masterset2026"},
            "RR",
            0.5,
            1.0,
        ),
        (
            "label_threshold",
            {"q": {"a": 0.9, "b": 0.8}},
            {"q": {"a": 1, "b": 2}},
            {"recipe": THRESHOLD_RECIPE},
            "R@1",
            0.5,
            0.0,
        ),
        (
            "single_gold",
            {"q": {"g2": 0.9, "x": 0.8, "g1": 0.7}},
            {"q": {"g1": 1, "g2": 1}},
            {"recipe": "symtax"},
            "R@1",
            0.5,
            0.0,
        ),
        (
            "first_listed_gold",
            {"q": {"g2": 0.9, "g1": 0.8}},
            {"q": {"g1": 1, "g2": 1}},
            {"recipe": "goyal2026"},
            "RR",
            1.0,
            0.5,
        ),
        (
            "gold_not_retrieved",
            {"q": {"g2": 0.9, "x": 0.8}},
            {"q": {"g1": 1, "g2": 1}},
            {"recipe": "goyal2026"},
            "RR",
            1.0,
            0.0,
        ),
        (
            "graded_labels",
            {"q": {"b": 0.9, "a": 0.8}},
            {"q": {"a": 2, "b": 1}},
            {"recipe": "goyal2026"},
            "nDCG@5",
            (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)),
            1.0,
        ),
        (
            "truncated_cutoff",
            {"P1_g_0": {f"d{i:02d}": 20.0 - i for i in range(10)} | {"g": 1.0}},
            {"P1_g_0": {"g": 1}},
            {"recipe": "duallcr"},
            "RR",
            1 / 11,
            0.0,
        ),
        (
            "unretrieved_rank",
            {"q": {"x": 0.9, "y": 0.8}},
            {"q": {"g": 1}},
            {"recipe": "symtax", "measures": "R@100"},
            "R@100",
            0.0,
            1.0,
        ),
    ],
)
def test_each_ranking_cause_is_detected(cause, run, qrels, kwargs, measure, trec_eval, recipe):
    report = crosscheck(run, qrels, kwargs.pop("measures", measure), **kwargs)
    row = only_difference(report, measure=measure)
    assert row["causes"] == cause
    assert row["trec_eval"] == pytest.approx(trec_eval)
    assert row["recipe"] == pytest.approx(recipe)
    assert report.unexplained == 0
    assert report.causes["cause"].tolist() == [cause]


def test_population_causes():
    run = {"P1_a_0": {"a": 1.0}, "P3_a_0": {"a": 1.0}, "P4_a_0": {"a": 1.0}}
    qrels = {"P1_a_0": {"a": 1}, "P2_a_0": {"a": 1}, "P4_a_0": {"a": 0}}
    # goyal2026 loops over the test set as trec_eval -c does: P2's missing ranking is an
    # empty list (0 both ways); P4 has no gold, where the script stops (relevant_docs[0])
    report = crosscheck(run, qrels, "RR", recipe="goyal2026")
    assert report.differences.empty
    assert report.summary.loc["RR", "recipe"] == pytest.approx(1 / 3)  # P1, P2, P4
    assert report.crashes[["query_id", "exception"]].values.tolist() == [["P4_a_0", "IndexError"]]
    assert "would have stopped on 1 queries" in report.format()
    # MasterSet averages the queries with gold and a ranking: P1 only
    masterset = crosscheck(run, qrels, "RR", recipe="masterset2026")
    causes = dict(zip(masterset.differences["query_id"], masterset.differences["causes"]))
    assert causes == {"P2_a_0": "missing_query", "P4_a_0": "query_without_relevant"}
    assert masterset.summary.loc["RR", "recipe"] == pytest.approx(1.0)
    # DualLCR loops over the predictions, with the gold paper read off the context id: P3 too
    duallcr = crosscheck(run, qrels, "R@1", recipe="duallcr")
    causes = dict(zip(duallcr.differences["query_id"], duallcr.differences["causes"]))
    assert causes == {
        "P2_a_0": "missing_query",
        "P3_a_0": "run_only_query",
        "P4_a_0": ("gold_from_context_id"),
    }
    assert duallcr.summary.loc["R@1", "recipe"] == pytest.approx(1.0)  # P1, P3, P4


def test_several_causes_on_one_query_are_all_named():
    # g1 and x tied (the run lists g1 first, trec_eval puts x first); g2 listed twice
    run = frame([("q", "g2", 0.9), ("q", "g1", 0.5), ("q", "x", 0.5), ("q", "g2", 0.4)])
    report = crosscheck(run, {"q": {"g1": 1, "g2": 1}}, "R@2 RR R@5 nDCG@5", recipe="goyal2026")
    assert only_difference(report, measure="R@2")["causes"] == "tie_order"
    assert only_difference(report, measure="RR")["causes"] == "tie_order;first_listed_gold"
    assert report.differences[report.differences["measure"] == "R@5"].empty  # a set: once
    row = only_difference(report, measure="nDCG@5")  # a sum over the list: every copy
    ideal = 1 + 1 / math.log2(3)
    assert row["causes"] == "tie_order;duplicate_doc"
    assert row["recipe"] == pytest.approx((1 + 1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert row["trec_eval"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert report.unexplained == 0


def test_tie_ranges_bracket_the_trec_eval_value():
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}
    report = crosscheck(run, {"q": {"a": 1}}, "RR R@1", recipe="goyal2026")
    ties = report.tie_queries.set_index("measure")
    assert ties.loc["RR", ["worst", "expected", "best"]].tolist() == pytest.approx(
        [1 / 3, (1 + 1 / 2 + 1 / 3) / 3, 1.0]
    )
    assert ties.loc["RR", "trec_eval"] == pytest.approx(1 / 3)  # c, b, a: a comes last
    assert report.summary.loc["R@1", "tie_expected"] == pytest.approx(1 / 3)


def test_a_recipe_alone_brings_its_measures():
    report = crosscheck({"q": {"a": 1.0}}, {"q": {"a": 1}}, recipe="hatten")
    assert list(report.summary.index) == [str(m) for m in RECIPES["hatten"].measures]


def test_unknown_recipe_and_unsupported_measure():
    from citeval_irm import InputError

    with pytest.raises(InputError, match="unknown recipe"):
        crosscheck({"q": {"a": 1.0}}, {"q": {"a": 1}}, "RR", recipe="nope")
    with pytest.raises(InputError, match="name a recipe"):
        crosscheck({"q": {"a": 1.0}}, {"q": {"a": 1}}, "RR")
    with pytest.raises(InputError, match="not one of them"):
        crosscheck({"q": {"a": 1.0}}, {"q": {"a": 1}}, "Bpref", recipe="goyal2026")


# --------------------------------------------------------------------------- properties

DOCS = [f"P{i:02d}-10{i:02d}" for i in range(12)]


@st.composite
def clean_case(draw):
    """One relevant doc per query, binary labels, no ties, no duplicates, every query in
    the run, the gold paper retrieved within the top 10, no query paper in its ranking."""
    run, qrels = {}, {}
    for q in range(draw(st.integers(1, 5))):
        ranking = draw(st.permutations(DOCS))[: draw(st.integers(1, 10))]
        gold = draw(st.sampled_from(ranking))
        run[f"Q{q}-1000_{gold}_0"] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        qrels[f"Q{q}-1000_{gold}_0"] = {gold: 1, **{d: 0 for d in ranking[:2] if d != gold}}
    return run, qrels


@settings(max_examples=60, deadline=None)
@given(case=clean_case())
def test_every_recipe_equals_ir_measures_on_clean_input(case):
    run, qrels = case
    for recipe in RECIPES.values():
        report = crosscheck(run, qrels, recipe=recipe.name, measures=list(recipe.measures))
        assert report.differences.empty, (recipe.name, report.differences)
        assert (report.summary["difference"].abs() < 1e-12).all()


@st.composite
def messy_case(draw):
    """Anything goes: ties, duplicates, graded labels, several gold, missing queries."""
    rows, qrels = [], {}
    for q in range(draw(st.integers(1, 4))):
        query = f"Q{q}-1000_{DOCS[q]}_0" if draw(st.booleans()) else DOCS[q]
        for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14)):
            rows.append((query, doc, float(draw(st.integers(0, 3)))))
        if draw(st.integers(0, 4)):
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1))
            qrels[query] = judged
    if not qrels:
        qrels["lonely"] = {DOCS[0]: 1}
    return frame(rows), qrels


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(case=messy_case(), recipe=st.sampled_from(sorted(RECIPES)))
def test_no_unexplained_difference_and_ties_within_range(case, recipe):
    run, qrels = case
    if not set(run["query_id"]) & set(qrels):
        return
    wanted = parse_measures("RR R@3 nDCG@5 AP Success@2 R@100")
    measures = [m for m in wanted if m.NAME in RECIPES[recipe].families]  # what its script has
    report = crosscheck(run, qrels, measures, recipe=recipe)
    assert report.unexplained == 0, report.differences
    assert set(report.causes["cause"]) <= set(CAUSES) - {"unexplained"}
    ties = report.tie_queries
    assert (ties["worst"] <= ties["trec_eval"] + 1e-12).all()
    assert (ties["trec_eval"] <= ties["best"] + 1e-12).all()
    assert (
        (ties["worst"] <= ties["expected"] + 1e-12) & (ties["expected"] <= ties["best"] + 1e-12)
    ).all()


@settings(max_examples=80, deadline=None)
@given(case=messy_case(), recipe=st.sampled_from(sorted(RECIPES)), ties=st.sampled_from(TIES))
def test_every_recipe_with_its_quirks_off_is_trec_eval(case, recipe, ties):
    """Switching every quirk of a recipe off leaves exactly trec_eval's values, per query,
    on messy input (ties, duplicates kept, graded labels, the query paper in its list)."""
    run, qrels = case
    if not set(run["query_id"]) & set(qrels):
        return
    measures = parse_measures("RR R@3 P@2 nDCG@5 nDCG AP Success@2 R@100")
    raw = read_run(run, duplicates=KEEP_ALL)
    table = read_qrels(qrels)
    reference = evaluate(raw, table, measures, options=EvalOptions(duplicates="keep_best"))
    query_ids = population(raw, table).query_ids
    scorer = RecipeScorer(raw, table, query_ids, [None] * len(query_ids), ties)
    every_quirk = RECIPES[recipe].quirks
    for name in every_quirk.active():
        every_quirk = every_quirk.without(name)
    assert every_quirk == Quirks()
    assert np.abs(scorer.values(measures, every_quirk) - reference.values).max() <= 1e-12


# --------------------------------------------------------------------------- trec_eval files


@pytest.mark.parametrize("recipe", sorted(RECIPES))
@pytest.mark.parametrize("results", ["results.test", "results.trunc"])
def test_trec_eval_files_have_no_unexplained_difference(trec_eval_dir, recipe, results):
    report = crosscheck(
        trec_eval_dir / results,
        trec_eval_dir / "qrels.test",
        recipe=recipe,
        measures=list(RECIPES[recipe].measures),
    )
    assert report.unexplained == 0
    # the trec_eval side is exactly trec_eval: RR over results.test is out.test's 0.4064
    if results == "results.test" and "RR" in report.summary.index:
        assert round(report.summary.loc["RR", "trec_eval"], 4) == 0.4064


# --------------------------------------------------------------------------- CLI


def test_cli_crosscheck_table_json_and_strict(capsys, trec_eval_dir):
    args = [
        "crosscheck",
        str(trec_eval_dir / "results.test"),
        "--qrels",
        str(trec_eval_dir / "qrels.test"),
        "--protocol",
        "goyal2026",
    ]
    assert main(args + ["--strict"]) == 0
    out = capsys.readouterr().out
    assert "gold_not_retrieved" in out and "unexplained differences: 0" in out
    assert main(args + ["--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["unexplained"] == 0 and payload["recipe"] == "goyal2026"
    assert {c["cause"] for c in payload["causes"]} == {"tie_order", "gold_not_retrieved"}
    assert main(args + ["--strict", "--tolerance", "0.01"]) == 3
    assert "RR: recipe and trec_eval differ by" in capsys.readouterr().err
    recipe_only = args[:4] + ["--recipe", "hatten", "--format", "json"]
    assert main(recipe_only) == 0
    assert [row["measure"] for row in json.loads(capsys.readouterr().out)["summary"]][0] == "R@10"
    assert main(args[:4]) == 2
    assert "name a recipe" in capsys.readouterr().err


def test_cli_eval_with_crosscheck(capsys, trec_eval_dir):
    code = main(
        [
            "eval",
            str(trec_eval_dir / "results.test"),
            "--qrels",
            str(trec_eval_dir / "qrels.test"),
            "-m",
            "RR R@10",
            "--crosscheck",
            "--recipe",
            "duallcr",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.index("  RR    0.4064") < out.index("cross-check: trec_eval vs recipe duallcr")
    assert (
        main(
            [
                "eval",
                str(trec_eval_dir / "results.test"),
                "--qrels",
                str(trec_eval_dir / "qrels.test"),
                "-m",
                "RR",
                "--crosscheck",
                "--format",
                "csv",
                "--recipe",
                "duallcr",
            ]
        )
        == 2
    )


def test_cutoffs_beyond_the_longest_ranking_print_as_one_row_and_stay_in_the_json():
    """A 300-deep run checked at R@500, R@1000, R@2000 (HAtten's cut-offs): those rows
    count the same 300 docs, so the table prints them as one row and says why; R@10 ...
    R@200, equal here too, are measured and keep their rows; the JSON keeps every row."""
    run = {"q": {f"d{i:03d}": 1000.0 - i for i in range(300)}, "r": {"d000": 1.0}}
    qrels = {"q": {"d005": 1, "d250": 1, "x": 1}, "r": {"d000": 1}}
    report = crosscheck(run, qrels, recipe="hatten")
    assert report.depth == 300
    table = report.format("table")
    rows = [line.split()[0] for line in table.splitlines()[3:12] if line.startswith("  R@")]
    assert rows == ["R@10", "R@20", "R@50", "R@100", "R@200", "R@500-2000"]
    assert "(R@500-2000: cut-offs beyond the longest ranking, 300 docs: the same values" in table
    payload = json.loads(report.format("json"))
    assert [row["measure"] for row in payload["summary"]] == [
        str(m) for m in RECIPES["hatten"].measures
    ]
    assert payload["deepest_ranking"] == 300
    # a family whose values differ beyond the depth (P@k divides by k) keeps its rows
    from citeval_irm.checks.crosscheck_report import beyond_depth

    shown = pd.DataFrame({"trec_eval": [0.5, 0.3, 0.3, 0.1, 0.05]},
                         index=["R@200", "R@500", "R@1000", "P@500", "P@1000"])  # fmt: skip
    kept, labels = beyond_depth(shown, 300)
    assert list(kept.index) == ["R@200", "R@500-1000", "P@500", "P@1000"]
    assert labels == ["R@500-1000"]
    assert beyond_depth(shown, None)[0] is shown


def test_a_protocol_without_a_recipe_is_named_in_the_error():
    """A protocol of the user's that names no recipe: the error says so, instead of
    "unknown recipe None" (mypy found the None reaching ``get_recipe``)."""
    import dataclasses

    from citeval_irm.base.errors import InputError
    from citeval_irm.papers import get_protocol

    mine = dataclasses.replace(get_protocol("goyal2026"), name="mine", recipe=None)
    with pytest.raises(InputError, match="protocol 'mine' names no recipe") as raised:
        crosscheck({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, protocol=mine)
    assert "None" not in str(raised.value)
