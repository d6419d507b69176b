"""The tie policy: one declared order, applied once, that every tool then reproduces."""

from __future__ import annotations

from collections import Counter

import ir_measures
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, R, Success, nDCG

from citeval_irm import InputError, evaluate, read_run
from citeval_irm.base.options import EvalOptions
from citeval_irm.reading.ties import rank_run


def order(run, ties):
    ranked, _ = rank_run(read_run(run), ties)
    return {q: list(g["doc_id"]) for q, g in ranked.frame.groupby("query_id", sort=False)}


def test_trec_eval_order_is_doc_id_descending_as_strings():
    run = {"q": {"d10": 1.0, "d9": 1.0, "d100": 1.0, "top": 2.0, "low": 0.0}}
    assert order(run, "trec_eval") == {"q": ["top", "d9", "d100", "d10", "low"]}


def test_run_order_keeps_input_order_within_ties():
    run = {"q": {"d10": 1.0, "d9": 1.0, "d100": 1.0, "top": 2.0, "low": 0.0}}
    assert order(run, "run_order") == {"q": ["top", "d10", "d9", "d100", "low"]}


def test_rank_column_is_ignored_like_trec_eval(write):
    # rank column says b first, scores say a first: trec_eval goes by score
    path = write("run.trec", "q Q0 b 1 0.5 t\nq Q0 a 2 0.9 t\n")
    assert order(path, "trec_eval") == {"q": ["a", "b"]}
    assert order(path, "run_order") == {"q": ["a", "b"]}


def test_scores_become_strictly_decreasing_and_ties_are_counted():
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}, "q2": {"x": 3.0, "y": 2.0}}
    ranked, report = rank_run(read_run(run), "trec_eval")
    assert ranked.to_dict() == {"q1": {"b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"x": 2.0, "y": 1.0}}
    assert (report.tied_queries, report.tied_docs, report.examples) == (1, 2, ("q1",))
    assert report.warning().count == 1


def test_unknown_policy_is_an_error():
    with pytest.raises(InputError, match="ties must be one of"):
        rank_run(read_run({"q": {"a": 1.0}}), "random")


def test_policy_changes_the_number_and_the_choice_is_reported():
    qrels = {"q": {"d10": 1}}
    run = {"q": {"d10": 1.0, "d9": 1.0}}
    trec = evaluate(run, qrels, "RR", options=EvalOptions(ties="trec_eval"))
    listed = evaluate(run, qrels, "RR", options=EvalOptions(ties="run_order"))
    assert trec.aggregate["RR"] == 0.5 and listed.aggregate["RR"] == 1.0
    assert [w.code for w in trec.warnings] == ["tied_scores"]


@settings(max_examples=200, deadline=None)
@given(
    run=st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(
            st.sampled_from(["a", "b", "c", "d9", "d10", "D1"]),
            st.sampled_from([0.0, 1.0, 1.0, 2.0]),
            min_size=1,
        ),
        min_size=1,
    ),
    ties=st.sampled_from(["trec_eval", "run_order"]),
)
@pytest.mark.slow
def test_the_tie_warning_counts_the_ties_the_policies_order_differently(run, ties):
    """Ties listed in trec_eval's order already are ranked alike by every tool and either
    policy: only the others (whole groups of tied docs) are warned about."""
    _, report = rank_run(read_run(run), ties)
    trec, listed = order(run, "trec_eval"), order(run, "run_order")
    differ = {q for q in trec if trec[q] != listed[q]}
    assert report.contested_ids == differ
    contested = 0
    for q in differ:
        scores = [run[q][d] for d in listed[q]]
        moved = {s for s, a, b in zip(scores, trec[q], listed[q]) if a != b}
        contested += sum(scores.count(s) for s in moved)
    assert report.contested_docs == contested
    assert (report.warning() is None) == (not differ)
    tied = sum(n for q in run for n in Counter(run[q].values()).values() if n > 1)
    assert report.tied_docs == tied


def test_after_canonicalisation_msmarco_provider_agrees_with_trec_eval():
    # RR@10 goes to ir-measures' msmarco provider, which breaks ties by doc id ascending;
    # on the rewritten run there are no ties left, so it sees trec_eval's order.
    qrels = {"q": {"d2": 1}}
    run = {"q": {"d1": 1.0, "d2": 1.0}}
    raw = ir_measures.calc_aggregate([RR @ 10], qrels, run)[RR @ 10]
    assert raw == 0.5  # msmarco: d1 before d2
    assert evaluate(run, qrels, "RR@10").aggregate["RR@10"] == 1.0  # trec_eval: d2 before d1
    assert evaluate(run, qrels, "RR").aggregate["RR"] == 1.0


doc_ids = st.sampled_from(["a", "b", "c", "d9", "d10", "d100", "D1", "z", "10", "9"])
scores = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, -1.0])


@settings(max_examples=200, deadline=None)
@given(
    run=st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(doc_ids, scores, min_size=1),
        min_size=1,
    ),
    qrels=st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(doc_ids, st.integers(0, 3), min_size=1),
        min_size=1,
    ),
)
@pytest.mark.slow
def test_trec_eval_policy_reproduces_pytrec_eval_on_the_raw_run(run, qrels):
    """With heavy ties, the canonicalised run gives what trec_eval's C code gives on the
    original scores, query by query."""
    if not set(run) & set(qrels):
        return
    names = {
        "recip_rank": RR,
        "map": AP,
        "ndcg_cut_3": nDCG @ 3,
        "recall_2": R @ 2,
        "success_1": Success @ 1,
    }
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    result = evaluate(run, qrels, list(names.values()))
    for query, values in expected.items():
        for trec_name, measure in names.items():
            assert result.per_query.loc[query, str(measure)] == pytest.approx(
                values[trec_name], abs=1e-12
            ), (query, trec_name)
