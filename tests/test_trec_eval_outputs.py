"""Validation against trec_eval's own expected outputs (shared/data/trec_eval).

For every measure the package maps to trec_eval, ``citeval eval ... --format trec_eval
--per-query`` must print exactly the lines trec_eval printed, per query and ``all``.
"""

from __future__ import annotations

import ir_measures
import pytest

from citeval_irm import InputError, parse_measures
from citeval_irm.base.measures import TREC_NICKNAMES
from citeval_irm.cli import main
from citeval_irm.scoring import MEASURES, trec_eval_name


def _to_measure(trec_name: str) -> str | None:
    """The measure the table prints as ``trec_name`` (``P_10`` -> ``P@10``), or ``None``."""
    try:
        found = parse_measures(trec_name)
    except InputError:  # runid, relstring: not measures
        return None
    if len(found) == 1 and trec_eval_name(found[0]) == trec_name:
        return str(found[0])
    return None


def expected_lines(path) -> list[str]:
    lines = path.read_text().splitlines()
    return [line for line in lines if _to_measure(line.split("\t")[0].strip())]


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
    # every family of the table that trec_eval prints under -m all_trec is among them
    # (dcg, ideal_dcg and yaap are trec_eval measures outside all_trec)
    families = {ir_measures.parse_measure(_to_measure(n)).NAME for n in names}
    all_trec = set(TREC_NICKNAMES["all_trec"])
    assert families == {
        r.name for r in MEASURES.values() if any(t.name in all_trec for t in r.trec)
    }
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
        *(f"iprec_at_recall_{r}" for r in ("0.10", "0.20", "0.25", "0.50", "0.75")),
        *("P_3", "P_5", "P_7", "recall_20", "recall_2000"),
        *("Rprec_mult_0.20", "Rprec_mult_0.35", "Rprec_mult_5.00"),
        *("ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23", "success_2", "success_5", "success_20"),
    }
    got = citeval_trec_eval(
        capsys,
        trec_eval_dir / "results.test",
        trec_eval_dir / "qrels.test",
        [_to_measure(n) for n in names],
    )
    assert got == want


def test_aggregate_lines_of_default_output(capsys, trec_eval_dir):
    """trec_eval's default measures (``-m official``), every line but ``runid``."""
    want = expected_lines(trec_eval_dir / "out.test")
    lines = (trec_eval_dir / "out.test").read_text().splitlines()
    assert [line for line in lines if not line.startswith("runid ")] == want
    args = [str(trec_eval_dir / "results.test"), "--qrels", str(trec_eval_dir / "qrels.test")]
    assert main(["eval", *args, "-m", "official", "--format", "trec_eval"]) == 0
    assert capsys.readouterr().out.splitlines() == want


def test_relevance_level_two_matches(trec_eval_dir):
    """``trec_eval -l2`` (out.test.aql, on qrels.rel_level) is ``rel=2`` on every measure
    that takes it; nDCG and the counts of docs ignore it."""
    from citeval_irm import evaluate

    lines = [line.split("\t") for line in expected_lines(trec_eval_dir / "out.test.aql")]
    names = list(dict.fromkeys(name.strip() for name, _, _ in lines))

    def with_rel(trec_name: str):
        """The measure with ``rel=2`` where it takes one (not ``NumRet`` without ``rel``,
        which counts every retrieved doc)."""
        measure = ir_measures.parse_measure(_to_measure(trec_name))
        row = MEASURES[measure.NAME]
        takes = "rel" in row.params and ("rel" in measure.params or not row.trec_eval_rel)
        return measure(rel=2) if takes else measure

    measures = [with_rel(n) for n in names]
    result = evaluate(trec_eval_dir / "results.test", trec_eval_dir / "qrels.rel_level", measures)
    per_query = result.per_query
    for name, query, value in lines:
        measure = with_rel(name.strip())
        got = (
            result.aggregate[str(measure)] if query == "all" else per_query.loc[query, str(measure)]
        )
        shown = f"{int(round(got))}" if name.startswith("num_") else f"{got:6.4f}"
        assert shown == value, (name, query)


def _per_query(path) -> dict[tuple[str, str], float]:
    lines = [line.split("\t") for line in path.read_text().splitlines()]
    return {(name.strip(), query): float(value) for name, query, value in lines}


def test_judged_is_trec_eval_s_share_of_judged_docs(trec_eval_dir):
    """``Judged@K`` (ir-measures' judgement rate: judged docs among the top min(K, ranked))
    from trec_eval's ``unj_K`` (unjudged docs in the top K, over K), and ``Judged`` from
    ``num_rel_ret`` under ``-l 0``; trec_eval reads a negative label as unjudged."""
    from citeval_irm import evaluate

    unj = _per_query(trec_eval_dir / "out.judged")
    level0 = _per_query(trec_eval_dir / "out.judged.l0")
    cutoffs = (1, 2, 3, 5, 10)
    measures = [f"Judged@{k}" for k in cutoffs] + ["Judged"]
    result = evaluate(trec_eval_dir / "judged.run", trec_eval_dir / "judged.qrels", measures)
    queries = {q for _, q in unj} - {"all"}
    assert sorted(result.query_ids) == sorted(queries)
    short = 0
    for row, query in enumerate(result.query_ids):
        ranked = level0[("num_ret", query)]
        for column, k in enumerate(cutoffs):
            shown = min(k, ranked)
            short += shown < k
            judged = shown - round(unj[(f"unj_{k}", query)] * k)
            want = judged / shown if shown else 0.0
            assert result.values[row, column] == pytest.approx(want, abs=1e-12), (query, k)
        want = level0[("num_rel_ret", query)] / ranked if ranked else 0.0
        assert result.values[row, -1] == pytest.approx(want, abs=1e-12), query
    assert short  # rankings shorter than the cut-off, where the two denominators differ
