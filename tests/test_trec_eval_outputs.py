"""Validation against trec_eval's own expected outputs (shared/data/trec_eval).

For every measure the package maps to trec_eval, ``citeval eval ... --format trec_eval
--per-query`` must print exactly the lines trec_eval printed, per query and ``all``.
"""

from __future__ import annotations

import re

import pytest

from citeval_irm.cli import main

_MAPPED = re.compile(r"^(map|recip_rank|P_\d+|recall_\d+|ndcg_cut_\d+|success_\d+)$")


def _to_measure(trec_name: str) -> str:
    if trec_name == "map":
        return "AP"
    if trec_name == "recip_rank":
        return "RR"
    base, cutoff = trec_name.rsplit("_", 1)
    return {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "success": "Success"}[base] + f"@{cutoff}"


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
    assert len(names) == 1 + 1 + 9 + 9 + 9 + 3  # map, recip_rank, P, recall, ndcg_cut, success
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
        "map",
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
            "AP RR " + " ".join(f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            "--format",
            "trec_eval",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.splitlines() == want
