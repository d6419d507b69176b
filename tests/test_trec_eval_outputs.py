"""Validation against trec_eval's own expected outputs (shared/data/trec_eval).

For every measure the package maps to trec_eval, ``citeval eval ... --format trec_eval
--per-query`` must print exactly the lines trec_eval printed, per query and ``all``.
"""

from __future__ import annotations

import re

import pytest

from citeval_irm.cli import main

_MAPPED = re.compile(
    r"^(num_q|num_ret|num_rel|num_rel_ret|map|map_cut_\d+|Rprec|recip_rank|P_\d+|recall_\d+"
    r"|ndcg|ndcg_cut_\d+|success_\d+)$"
)
_UNCUT = {
    "map": "AP",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "ndcg": "nDCG",
    "num_q": "NumQ",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRet(rel=1)",
}
_CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "success": "Success", "map_cut": "AP"}


def _to_measure(trec_name: str) -> str:
    if trec_name in _UNCUT:
        return _UNCUT[trec_name]
    base, cutoff = trec_name.rsplit("_", 1)
    return f"{_CUT[base]}@{cutoff}"


def expected_lines(path) -> list[str]:
    lines = path.read_text().splitlines()
    return [line for line in lines if _MAPPED.match(line.split("\t")[0].strip())]


def citeval_trec_eval(capsys, run, qrels, measures: list[str]) -> list[str]:
    code = main(
        [
            "eval",
            str(run),
            "--qrels",
            str(qrels),
            "-m",
            " ".join(measures),
            "--format",
            "trec_eval",
            "--per-query",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out.splitlines()


@pytest.mark.parametrize(
    ("expected", "results"),
    [("out.test.aq", "results.test"), ("out.test.aqc", "results.trunc")],
    ids=["aq", "aqc-truncated-run"],
)
def test_all_trec_per_query_lines_match(capsys, trec_eval_dir, expected, results):
    want = expected_lines(trec_eval_dir / expected)
    names = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    # num_q, num_ret, num_rel, num_rel_ret, map, map_cut, Rprec, recip_rank, P, recall,
    # ndcg, ndcg_cut, success
    assert len(names) == 4 + 1 + 9 + 1 + 1 + 9 + 9 + 1 + 9 + 3
    got = citeval_trec_eval(
        capsys,
        trec_eval_dir / results,
        trec_eval_dir / "qrels.test",
        [_to_measure(n) for n in names],
    )
    assert got == want


def test_measure_parameters_file_matches(capsys, trec_eval_dir):
    # -m P.5,7,3 -m recall.20,2000 -mndcg_cut.10,20,23.4 -msuccess.2,5,20
    want = expected_lines(trec_eval_dir / "out.test.meas_params")
    names = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    assert set(names) == {
        "P_3",
        "P_5",
        "P_7",
        "recall_20",
        "recall_2000",
        "ndcg_cut_10",
        "ndcg_cut_20",
        "ndcg_cut_23",
        "success_2",
        "success_5",
        "success_20",
    }
    got = citeval_trec_eval(
        capsys,
        trec_eval_dir / "results.test",
        trec_eval_dir / "qrels.test",
        [_to_measure(n) for n in names],
    )
    assert got == want


def test_aggregate_lines_of_default_output(capsys, trec_eval_dir):
    want = expected_lines(trec_eval_dir / "out.test")
    assert [line.split("\t")[0].strip() for line in want] == [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "Rprec",
        "recip_rank",
        "P_5",
        "P_10",
        "P_15",
        "P_20",
        "P_30",
        "P_100",
        "P_200",
        "P_500",
        "P_1000",
    ]
    code = main(
        [
            "eval",
            str(trec_eval_dir / "results.test"),
            "--qrels",
            str(trec_eval_dir / "qrels.test"),
            "-m",
            "NumQ NumRet NumRel NumRet(rel=1) AP Rprec RR "
            + " ".join(f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            "--format",
            "trec_eval",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.splitlines() == want


def test_relevance_level_two_matches(trec_eval_dir):
    """``trec_eval -l2`` (out.test.aql, on qrels.rel_level) is ``rel=2`` on every measure
    that takes it; nDCG and the counts of docs ignore it."""
    from citeval_irm import evaluate

    lines = [line.split("\t") for line in expected_lines(trec_eval_dir / "out.test.aql")]
    names = list(dict.fromkeys(name.strip() for name, _, _ in lines))

    def with_rel(trec_name: str) -> str:
        measure = _to_measure(trec_name)
        if measure.startswith(("nDCG", "NumQ")) or measure == "NumRet":
            return measure
        if measure == "NumRet(rel=1)":
            return "NumRet(rel=2)"
        family, _, cutoff = measure.partition("@")
        return f"{family}(rel=2)" + (f"@{cutoff}" if cutoff else "")

    measures = [with_rel(n) for n in names]
    result = evaluate(trec_eval_dir / "results.test", trec_eval_dir / "qrels.rel_level", measures)
    per_query = result.per_query
    for name, query, value in lines:
        measure = with_rel(name.strip())
        got = result[measure] if query == "all" else per_query.loc[query, measure]
        shown = f"{int(round(got))}" if name.startswith("num_") else f"{got:6.4f}"
        assert shown == value, (name, query)
