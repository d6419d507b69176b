"""The scoring core as an ir-measures provider: registered on import, used through
ir-measures' own calls, equal to its pytrec_eval provider."""

from __future__ import annotations

import subprocess
import sys

import ir_measures
import pytest
from ir_measures import AP, RR, R, Success, nDCG

import citeval_irm  # noqa: F401 (registers the provider)

RUN = {
    "q1": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0},
    "q2": {"a": 1.0, "x": 0.5},
    "q3": {"z": 1.0},  # run-only: ignored, as ir-measures does
}
QRELS = {"q1": {"c": 1, "d": 2, "e": 1}, "q2": {"x": 1}, "q4": {"a": 1}}
MEASURES = [RR, R @ 2, nDCG @ 3, AP, Success @ 1, ir_measures.P @ 2, ir_measures.Rprec]


def test_registered_with_ir_measures():
    assert ir_measures.providers.registry["citeval"] is ir_measures.citeval
    assert ir_measures.citeval.supports(nDCG @ 10)
    assert ir_measures.citeval.supports(nDCG(dcg="exp-log2") @ 10)  # gains 2^label - 1
    assert not ir_measures.citeval.supports(ir_measures.ERR @ 10)


def test_calc_aggregate_and_iter_calc_equal_pytrec_eval():
    ours = ir_measures.citeval.calc_aggregate(MEASURES, QRELS, RUN)
    theirs = ir_measures.pytrec_eval.calc_aggregate(MEASURES, QRELS, RUN)
    assert ours.keys() == theirs.keys()
    for measure in MEASURES:
        assert ours[measure] == pytest.approx(theirs[measure], abs=1e-12), measure
    per_query = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.citeval.iter_calc(MEASURES, QRELS, RUN)
    }
    reference = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.pytrec_eval.iter_calc(MEASURES, QRELS, RUN)
    }
    assert per_query.keys() == reference.keys()
    for key, value in reference.items():
        assert per_query[key] == pytest.approx(value, abs=1e-12), key


def test_an_evaluator_scores_many_runs_and_records():
    evaluator = ir_measures.citeval.evaluator(
        [RR, R @ 2], ir_measures.read_trec_qrels("q1 0 c 1\nq1 0 d 2\nq2 0 x 1\n")
    )
    first = evaluator.calc_aggregate(RUN)
    records = [ir_measures.ScoredDoc("q1", "c", 5.0), ir_measures.ScoredDoc("q2", "x", 1.0)]
    second = evaluator.calc_aggregate(records)
    # q1: a, then the tie b/c in trec_eval's order (c before b): c at rank 2; q2: x at 2
    assert first[RR] == pytest.approx(0.5)
    assert second[RR] == 1.0 and second[R @ 2] == pytest.approx((1 / 2 + 1) / 2)


def test_in_front_of_the_default_pipeline_every_measure_still_works():
    pipeline = ir_measures.providers.FallbackProvider(
        [ir_measures.citeval, ir_measures.DefaultPipeline]
    )
    bpref = ir_measures.Bpref
    values = pipeline.calc_aggregate([RR, bpref], QRELS, RUN)
    assert values[bpref] == ir_measures.calc_aggregate([bpref], QRELS, RUN)[bpref]
    assert values[RR] == pytest.approx(ir_measures.calc_aggregate([RR], QRELS, RUN)[RR])


def test_registration_waits_for_ir_measures_and_does_not_import_it():
    code = (
        "import sys, citeval_irm; assert 'ir_measures' not in sys.modules; "
        "import ir_measures; print(ir_measures.providers.registry['citeval'].NAME)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "citeval"


EDGE_QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RANKED = [RR, ir_measures.P @ 2, R @ 2, nDCG @ 10, AP, Success @ 1, ir_measures.Rprec]
COUNTS = [ir_measures.NumRet, ir_measures.NumRel, ir_measures.NumQ, ir_measures.NumRet(rel=1)]


def _per_query(provider, qrels, run, measures):
    return sorted(
        (m.query_id, str(m.measure), m.value) for m in provider.iter_calc(measures, qrels, run)
    )


@pytest.mark.parametrize(
    ("qrels", "run"),
    [
        (EDGE_QRELS, {}),
        (EDGE_QRELS, []),
        (EDGE_QRELS, iter([])),
        (EDGE_QRELS, {"q1": {}}),
        (EDGE_QRELS, {"zz": {"a": 1.0}}),  # no query in common
        ({}, {"q1": {"a": 1.0}}),
        ({}, {}),
        ([], [ir_measures.ScoredDoc("q1", "a", 1.0)]),
        ({"q1": {}}, {"q1": {"a": 1.0}}),  # no judged doc
    ],
    ids=["empty-run", "no-records", "empty-generator", "empty-ranking", "disjoint",
         "empty-qrels", "both-empty", "no-qrels-records", "unjudged-qrels"],
)  # fmt: skip
def test_edge_inputs_behave_as_the_pytrec_eval_provider(qrels, run):
    """No error where ir-measures' pytrec_eval provider gives none: the same queries, the
    same per-query values and aggregates (NaN means over no query included) for every
    ranked measure; the counts of a query without a ranking are trec_eval -c's."""
    run_once = run if isinstance(run, (dict, list)) else list(run)
    ours = _per_query(ir_measures.citeval, qrels, run_once, RANKED)
    assert ours == _per_query(ir_measures.pytrec_eval, qrels, run_once, RANKED)
    mine = ir_measures.citeval.calc_aggregate(RANKED, qrels, run_once)
    theirs = ir_measures.pytrec_eval.calc_aggregate(RANKED, qrels, run_once)
    assert {str(k): v for k, v in mine.items()} == pytest.approx(
        {str(k): v for k, v in theirs.items()}, nan_ok=True
    )
    counts = ir_measures.citeval.calc_aggregate(COUNTS, qrels, run_once)
    judged = {q: d for q, d in (qrels.items() if isinstance(qrels, dict) else []) if d}
    if judged and not any(q in judged and d for q, d in dict(_as_dict(run_once)).items()):
        # no ranked query: each qrels query counts once, with its relevant docs (trec_eval -c)
        assert counts[ir_measures.NumQ] == len(qrels)
        assert counts[ir_measures.NumRel] == sum(v > 0 for d in qrels.values() for v in d.values())
        assert counts[ir_measures.NumRet] == 0


def _as_dict(run):
    if isinstance(run, dict):
        return run
    out: dict = {}
    for doc in run:
        out.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    return out


def test_evaluate_keeps_its_error_for_no_query_in_common():
    from citeval_irm import InputError, evaluate

    with pytest.raises(InputError, match="no query in common"):
        evaluate({"zz": {"a": 1.0}}, EDGE_QRELS, "RR")


def _frame(rows, columns):
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


SD, QR = ir_measures.ScoredDoc, ir_measures.Qrel
RUN_COLUMNS, QRELS_COLUMNS = ["query_id", "doc_id", "score"], ["query_id", "doc_id", "relevance"]
LENIENT = {
    "run-repeat-records": (
        EDGE_QRELS, [SD("q1", "a", 3.0), SD("q1", "b", 2.0), SD("q1", "a", 1.0)]
    ),
    "run-repeat-frame": (
        EDGE_QRELS,
        _frame([("q1", "b", 2.0), ("q1", "a", 1.0), ("q1", "b", 0.5)], RUN_COLUMNS),
    ),
    "qrels-repeat-records": (
        [QR("q1", "a", 1), QR("q1", "b", 1), QR("q1", "a", 0)], {"q1": {"a": 2.0, "b": 1.0}}
    ),
    "qrels-repeat-frame": (
        _frame([("q1", "a", 0), ("q1", "b", 0), ("q1", "a", 2)], QRELS_COLUMNS),
        {"q1": {"a": 1.0, "b": 2.0}},
    ),
    "infinite-scores": (EDGE_QRELS, {"q1": {"a": float("-inf"), "b": float("inf"), "c": 1.0}}),
    "boolean-scores": (EDGE_QRELS, {"q1": {"a": False, "b": True}, "q2": {"c": True}}),
    "boolean-labels": ({"q1": {"a": True, "b": False}}, {"q1": {"a": 1.0, "b": 2.0}}),
    "empty-doc-id": (EDGE_QRELS, {"q1": {"": 3.0, "a": 1.0}, "q2": {"c": 1.0}}),
}  # fmt: skip


@pytest.mark.parametrize(("qrels", "run"), list(LENIENT.values()), ids=list(LENIENT))
def test_what_the_strict_reader_refuses_is_read_as_the_pytrec_eval_provider_reads_it(qrels, run):
    """The drop-in mirrors: a repeated (query, doc) in a run or qrels (its last copy, as
    ir-measures' converters keep it), an infinite or boolean score, a boolean label, an
    empty id are read as ir-measures' pytrec_eval provider reads them, the same per-query
    values and aggregates; citeval's own verb, ``evaluate``, still refuses each of them."""
    from citeval_irm import InputError, evaluate

    measures = RANKED
    ours = {(q, m): v for q, m, v in _per_query(ir_measures.citeval, qrels, run, measures)}
    theirs = {(q, m): v for q, m, v in _per_query(ir_measures.pytrec_eval, qrels, run, measures)}
    assert ours == pytest.approx(theirs)
    mine = ir_measures.citeval.calc_aggregate(measures, qrels, run)
    reference = ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)
    assert {str(k): v for k, v in mine.items()} == pytest.approx(
        {str(k): v for k, v in reference.items()}
    )
    with pytest.raises(InputError):
        evaluate(run, qrels, "RR")


def test_a_nan_score_is_ranked_and_a_bad_value_is_still_refused():
    """A NaN score has a rank of its own (trec_eval defines none): the provider answers.
    A score that is not a number is refused by both providers, citeval's error naming it."""
    values = ir_measures.citeval.calc_aggregate([RR], EDGE_QRELS, {"q1": {"a": float("nan")}})
    assert 0.0 <= values[RR] <= 1.0
    with pytest.raises(TypeError):
        ir_measures.pytrec_eval.calc_aggregate([RR], EDGE_QRELS, {"q1": {"a": "x"}})
    from citeval_irm import InputError

    with pytest.raises(InputError, match="score 'x'"):
        ir_measures.citeval.calc_aggregate([RR], EDGE_QRELS, {"q1": {"a": "x"}})
    with pytest.raises(InputError):  # a ranking that is no dict: the reader's error
        ir_measures.citeval.calc_aggregate([RR], EDGE_QRELS, {"q1": [1.0, 2.0]})
