"""evaluate(): measures, query populations, protocols and result formats."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from ir_measures import RR, R, Success, nDCG

from citeval_irm import PROTOCOLS, InputError, evaluate, parse_measures
from citeval_irm.base.options import EvalOptions

GOYAL2026, MASTERSET2026 = PROTOCOLS["goyal2026"], PROTOCOLS["masterset2026"]

QRELS = {"c1": {"P15-1001": 1}, "c2": {"N12-1047": 1}, "c3": {"D14-1162": 1, "P14-1062": 1}}
RUN = {
    "c1": {"P15-1001": 0.9, "N12-1047": 0.8, "D14-1162": 0.1},  # hit at 1
    "c2": {"P15-1001": 0.9, "D14-1162": 0.8, "N12-1047": 0.7},  # hit at 3
    "c3": {"P15-1001": 0.9, "P14-1062": 0.5, "X": 0.4, "D14-1162": 0.3},  # hits at 2, 4
}


def test_measure_syntax_and_aliases():
    assert parse_measures("MRR HR@10 R@10, nDCG@10") == [
        RR,
        Success @ 10,
        R @ 10,
        nDCG @ 10,
    ]
    assert parse_measures([RR, "nDCG@10", RR]) == [RR, nDCG @ 10]
    assert parse_measures("recip_rank ndcg_cut.10") == [RR, nDCG @ 10]  # trec_eval spelling
    with pytest.raises(InputError, match="unknown measure 'Foo@3'"):
        parse_measures("RR Foo@3")


def test_values_per_query_and_aggregate():
    result = evaluate(RUN, QRELS, "MRR R@2 HR@1 nDCG@3 AP")
    per_query = result.per_query
    assert list(per_query.index) == ["c1", "c2", "c3"]
    assert per_query["RR"].tolist() == [1.0, 1 / 3, 1 / 2]
    assert per_query["R@2"].tolist() == [1.0, 0.0, 0.5]
    assert per_query["Success@1"].tolist() == [1.0, 0.0, 0.0]
    assert per_query.loc["c3", "AP"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert result.aggregate["RR"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    assert result.aggregate["Success@1"] == pytest.approx(1 / 3)
    assert result.warnings == []


def test_run_only_queries_are_ignored_and_reported():
    run = dict(RUN, extra={"P15-1001": 1.0}, extra2={"a": 1.0})
    result = evaluate(run, QRELS, "RR")
    assert result.aggregate["RR"] == evaluate(RUN, QRELS, "RR").aggregate["RR"]
    [warning] = result.warnings
    assert (warning.code, warning.count, warning.examples) == (
        "run_only_queries",
        2,
        ("extra", "extra2"),
    )


def test_missing_queries_score_zero_like_trec_eval_c():
    run = {k: v for k, v in RUN.items() if k != "c2"}
    result = evaluate(run, QRELS, "RR nDCG@3")
    assert result.per_query.loc["c2"].tolist() == [0.0, 0.0]
    assert result.aggregate["RR"] == pytest.approx((1 + 0 + 1 / 2) / 3)
    assert [(w.code, w.count) for w in result.warnings] == [("missing_queries", 1)]


def test_queries_without_relevant_doc_zero_by_default_or_skipped():
    qrels = dict(QRELS, c4={"P15-1001": 0})
    run = dict(RUN, c4={"P15-1001": 1.0})
    zero = evaluate(run, qrels, "RR")
    assert zero.num_queries == 4 and zero.per_query.loc["c4", "RR"] == 0.0
    assert zero.aggregate["RR"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 4)
    assert [w.code for w in zero.warnings] == ["queries_without_relevant"]
    skip = evaluate(run, qrels, "RR", options=EvalOptions(empty_queries="skip"))
    assert skip.num_queries == 3 and skip.aggregate["RR"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    # an empty inner dict is a query too
    empty = evaluate(RUN, dict(QRELS, c5={}), "RR")
    assert empty.num_queries == 4 and empty.per_query.loc["c5", "RR"] == 0.0
    assert {w.code for w in empty.warnings} == {"queries_without_relevant", "missing_queries"}


def test_no_common_query_is_an_error():
    with pytest.raises(InputError, match="no query in common"):
        evaluate({"x": {"a": 1.0}}, QRELS, "RR")


def test_unknown_options_are_errors():
    with pytest.raises(InputError, match="empty_queries"):
        evaluate(RUN, QRELS, "RR", options=EvalOptions(empty_queries="drop"))
    with pytest.raises(InputError, match="unknown protocol"):
        evaluate(RUN, QRELS, protocol="nope")
    with pytest.raises(InputError, match="give measures"):
        evaluate(RUN, QRELS)


def test_protocols_measures_and_presentation():
    assert [str(m) for m in GOYAL2026.measures] == [
        "RR",
        "R@5",
        "R@10",
        "R@20",
        "R@50",
        "R@300",
        "nDCG@5",
        "nDCG@10",
        "nDCG@20",
        "nDCG@50",
        "nDCG@300",
    ]
    assert [str(m) for m in MASTERSET2026.measures] == [
        "R@10",
        "R@50",
        "R@100",
        "R@500",
        "AP",
        "RR",
        "nDCG@10",
        "nDCG@20",
        "nDCG@30",
        "nDCG@50",
        "Success@10",
        "Success@20",
    ]
    goyal = evaluate(RUN, QRELS, protocol="goyal2026")
    assert goyal.protocol is GOYAL2026
    table = goyal.format("table")
    assert "  RR        61.11\n" in table  # percent, two decimals
    by_name = evaluate(RUN, QRELS, "goyal2026")  # a protocol name works as the measures
    assert by_name.aggregate.equals(goyal.aggregate)
    masterset = evaluate(RUN, QRELS, protocol=MASTERSET2026)
    assert "  RR          0.6111\n" in masterset.format("table")


def test_formats():
    result = evaluate(RUN, QRELS, "RR R@2")
    frame = result.to_frame(percent=True)
    assert list(frame.index) == ["c1", "c2", "c3", "all"]
    assert frame.loc["c2", "RR"] == pytest.approx(100 / 3)
    csv = result.format("csv", per_query=True)
    parsed = pd.read_csv(pd.io.common.StringIO(csv), dtype={"query_id": str})
    assert list(parsed.columns) == ["query_id", "measure", "value"]
    assert len(parsed) == 8 and parsed.iloc[-1].tolist() == ["all", "R@2", 0.5]
    payload = json.loads(result.format("json", per_query=True))
    assert payload["aggregate"]["R@2"] == 0.5 and payload["num_queries"] == 3
    assert payload["per_query"]["c1"]["RR"] == 1.0
    with pytest.raises(InputError, match="unknown format"):
        result.format("xml")
    with pytest.raises(InputError, match="trec_eval has no measure for RR@10"):
        evaluate(RUN, QRELS, "RR@10").format("trec_eval")


def test_dataframe_and_file_inputs_give_same_result(write):
    run_lines = "".join(
        f"{q} Q0 {d} {i} {s} t\n"
        for q, docs in RUN.items()
        for i, (d, s) in enumerate(docs.items())
    )
    qrels_lines = "".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items())
    from_files = evaluate(write("run", run_lines), write("qrels", qrels_lines), "RR nDCG@3")
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    from_frame = evaluate(frame, QRELS, "RR nDCG@3")
    pd.testing.assert_frame_equal(from_files.per_query, from_frame.per_query)


def test_negative_labels_do_not_hang_pytrec_eval():
    """pytrec_eval's ndcg hangs on a query with only negative labels after an earlier
    evaluator ran in the same process; evaluate() must finish (checked in a child process
    with a time limit, so a regression fails instead of hanging the suite)."""
    import subprocess
    import sys

    code = (
        "import citeval_irm as ci\n"
        "ranking = ['d6', 'd3', 'd2', 'd1', 'd0', 'd4', 'd5']\n"
        "run = {'q': {d: float(7 - i) for i, d in enumerate(ranking)}}\n"
        "qrels = {'q': {'d1': 2, 'd2': 3, 'd3': 2, 'd5': 2, 'd6': 1, 'u': 1}}\n"
        "ci.evaluate(run, qrels, 'nDCG R@3')\n"
        "r = ci.evaluate({'q': {'d2': 3.0, 'd1': 2.0}}, {'q': {'d2': -1}}, 'nDCG R@3')\n"
        "print(r.aggregate.tolist())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0.0, 0.0]"
    mixed = evaluate({"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": -1, "b": 2}}, "nDCG@2 AP RR")
    assert mixed.aggregate.tolist() == pytest.approx([1 / math.log2(3), 0.5, 0.5])


def test_counted_warnings_are_python_warnings_that_filters_control():
    import warnings

    from citeval_irm import EvalWarning

    run, qrels = {"q": {"a": 1.0}, "other": {"a": 1.0}}, {"q": {"a": 1}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EvalWarning)
        result = evaluate(run, qrels, "RR")
    assert [w.message for w in caught] == result.warnings
    assert result.warnings[0].code == "run_only_queries" and result.warnings[0].count == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvalWarning)
        with pytest.raises(EvalWarning, match="run queries absent from the qrels"):
            evaluate(run, qrels, "RR")


def test_a_counted_warning_survives_pickling():
    """Warnings cross process boundaries (Dask workers, multiprocessing) intact."""
    import pickle

    from citeval_irm import EvalWarning

    warning = EvalWarning("missing_queries", "qrels queries with no ranking", 3, ("q1", "q2"))
    assert pickle.loads(pickle.dumps(warning)) == warning
