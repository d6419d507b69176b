"""Each recipe against its paper's own script (transcribed in tests/oracles/), query by
query, on random runs and qrels: ties, several gold papers, gold not retrieved, a doc or a
gold paper listed twice, the citing paper in the list and as gold, queries missing from the
run, run queries without gold. Where the script raises, the cross-check must say that it
would have stopped, with the same exception."""

from __future__ import annotations

import importlib
import importlib.util

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeval_irm import crosscheck, parse_measures
from citeval_irm.papers import MODULES
from citeval_irm.papers.recipes import query_paper_of

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

CITING = ["P01-1001", "P02-1002", "P03-1003"]
DOCS = [*CITING, "D1", "D2", "D3", "D4", "D5", "D6"]

# every paper module of the package, by its name: each has its oracle, tests/oracles/<name>.py
PAPERS = {m.__name__.rpartition(".")[2]: m for m in MODULES}
RECIPE_PAPERS = sorted(name for name, module in PAPERS.items() if hasattr(module, "RECIPE"))
# the extra arguments of an oracle's ``score`` (its ``CHECK.extra``), drawn
EXTRA = {"pool": st.sets(st.sampled_from(DOCS), min_size=3).map(sorted)}


def oracle_of(paper: str):
    return importlib.import_module(f"oracles.{paper}")


def test_every_paper_module_has_an_oracle():
    """A paper added to ``citeval_irm.papers.MODULES`` needs its script transcribed in
    ``tests/oracles/<module>.py`` (a ``score`` driver and its ``CHECK``)."""
    missing = [name for name in PAPERS if importlib.util.find_spec(f"oracles.{name}") is None]
    assert not missing, f"no oracle in tests/oracles/ for the paper modules {missing}"
    for name in PAPERS:
        oracle = oracle_of(name)
        assert callable(oracle.score) and set(oracle.CHECK.extra) <= set(EXTRA), name


@st.composite
def cases(draw, papers_are_queries: bool):
    """A run (rows with tied scores and repeated docs) and qrels. Queries are citation
    contexts ``<citing>_<cited>_<n>`` (sometimes a bare id), or papers for MasterSet."""
    rows, qrels = [], {}
    for i, citing in enumerate(CITING[: draw(st.integers(1, 3))]):
        if papers_are_queries:
            query = citing
        else:
            cited = draw(st.sampled_from(DOCS))
            query = f"{citing}_{cited}_{i}" if draw(st.integers(0, 5)) else f"Q{i}"
        if draw(st.integers(0, 5)):  # most queries have a ranking
            for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9)):
                rows.append((query, doc, float(draw(st.integers(0, 4)))))
        if draw(st.integers(0, 5)):  # most have qrels, some only label 0
            qrels[query] = draw(
                st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1)
            )
    if not qrels:
        qrels[rows[0][0] if rows else CITING[0]] = {DOCS[3]: 1}
    if not {q for q, _, _ in rows} & set(qrels):  # trec_eval needs one query in common
        rows.append((next(iter(qrels)), DOCS[3], 1.0))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), qrels


def lists_as_the_script_sees_them(run: pd.DataFrame) -> dict[str, list[str]]:
    """Each query's docs by score, ties in the order of the rows (a stable sort)."""
    ordered = run.assign(row=range(len(run))).sort_values(["score", "row"], ascending=[False, True])
    return {q: list(group["doc_id"]) for q, group in ordered.groupby("query_id", sort=False)}


def check(paper: str, run: pd.DataFrame, qrels: dict, **extra) -> None:
    oracle = oracle_of(paper)
    cutoffs, measures, names = oracle.CHECK.cutoffs, oracle.CHECK.measures, oracle.CHECK.names
    recipe = PAPERS[paper].RECIPE.name
    lists = lists_as_the_script_sees_them(run)
    judged = {q: list(docs.items()) for q, docs in qrels.items()}
    papers = {q: query_paper_of(q) for q in qrels}
    report = crosscheck(run, qrels, parse_measures(measures), recipe=recipe, **extra)
    try:
        per_query, aggregate = oracle.score(lists, judged, papers, cutoffs, **extra)
    except (ValueError, IndexError, ZeroDivisionError) as exc:
        assert type(exc).__name__ in set(report.crashes["exception"]), (exc, report.crashes)
        return
    assert report.crashes.empty, report.crashes
    ours = report.recipe_per_query
    assert sorted(ours.index) == sorted(per_query), (list(ours.index), list(per_query))
    for query, row in per_query.items():
        for name, value in row.items():
            got = ours.loc[query, names.get(name, name)]
            assert got == pytest.approx(value, abs=1e-12), (query, name, got, value)
    if per_query:
        for name, value in aggregate.items():
            got = report.summary.loc[names.get(name, name), "recipe"]
            assert got == pytest.approx(value, abs=1e-12), (name, got, value)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("paper", RECIPE_PAPERS)
@SETTINGS
@given(data=st.data())
def test_each_recipe_is_its_paper_s_script(paper, data):
    """goyal2026: the description; duallcr: its evaluate.py; symtax: its per.py; hatten:
    its prefetch test.py; masterset2026: the SciBERT eval (see each oracle's docstring)."""
    check_ = oracle_of(paper).CHECK
    run, qrels = data.draw(cases(papers_are_queries=check_.papers_are_queries), label="case")
    extra = {name: data.draw(EXTRA[name], label=name) for name in check_.extra}
    check(paper, run, qrels, **extra)


def test_citeval_recipes_names_each_script_and_its_rules(capsys):
    """`citeval recipes` says, per recipe, the script it reproduces (repository, path,
    commit), its rules, what it averages and where it stops."""
    from citeval_irm.cli import main
    from citeval_irm.papers import RECIPES

    assert main(["recipes"]) == 0
    out = capsys.readouterr().out
    for commit in ("e0e96cd5cad6", "e3de5b2c9f0e", "e46cae55d8ac", "4f99ed557cf0"):
        assert commit in out
    for recipe in RECIPES.values():
        assert f"{recipe.name}: {recipe.reference}" in out
        assert all(rule in out for rule in recipe.rules)
    assert "stops with ValueError on gold not retrieved" in out


def test_masterset_drops_gold_outside_the_pool_and_says_when_it_cannot():
    run = pd.DataFrame([("P01-1001", "D1", 2.0), ("P01-1001", "D2", 1.0)],
                       columns=["query_id", "doc_id", "score"])  # fmt: skip
    qrels = {"P01-1001": {"D1": 1, "D9": 1}}  # D9 is not in the pool: no run can find it
    report = crosscheck(run, qrels, "R@5", recipe="masterset2026")
    assert report.summary.loc["R@5", "recipe"] == 0.5
    assert "pool_unknown" in {w.code for w in report.warnings}
    in_pool = crosscheck(run, qrels, "R@5", recipe="masterset2026", pool=["D1", "D2"])
    assert in_pool.summary.loc["R@5", ["trec_eval", "recipe"]].tolist() == [0.5, 1.0]
    assert in_pool.causes["cause"].tolist() == ["gold_outside_pool"]
