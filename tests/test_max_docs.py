"""``max_docs`` / ``--max-docs`` / ``-M``: only the first N docs of each ranking count, cut
after the tie policy's sort, as trec_eval's ``-M N`` cuts after its sort by score then doc
id. Checked against trec_eval's own ``out.test.aqcM``, against the trec_eval binary on
generated runs with ties (built by the suite), and path against path (in memory,
streamed, pytrec_eval, Dask)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from test_streaming import TINY, citation_run, same_result
from test_trec_eval_outputs import _to_measure, expected_lines

import citeval_irm
from citeval_irm import InputError
from citeval_irm.cli import main


def _citeval_lines(capsys, run, qrels, names, max_docs: int) -> list[str]:
    measures = " ".join(_to_measure(n) for n in names)
    args = ["eval", str(run), "--qrels", str(qrels), "-m", measures, "-M", str(max_docs)]
    assert main([*args, "--format", "trec_eval", "--per-query"]) == 0
    return capsys.readouterr().out.splitlines()


def test_trec_eval_own_minus_m_100_output_line_by_line(capsys, trec_eval_dir):
    """``trec_eval -m all_trec -q -c -M100 qrels.test results.trunc`` (out.test.aqcM)."""
    want = expected_lines(trec_eval_dir / "out.test.aqcM")
    names = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    got = _citeval_lines(
        capsys, trec_eval_dir / "results.trunc", trec_eval_dir / "qrels.test", names, 100
    )
    assert got == want
    # and the cut changes something here: without it the numbers are out.test.aqc's
    assert expected_lines(trec_eval_dir / "out.test.aqc") != want


@pytest.mark.slow
@pytest.mark.parametrize("max_docs", [1, 4, 6, 33])
def test_generated_runs_with_ties_match_the_trec_eval_binary(
    tmp_path, capsys, max_docs, trec_eval_binary
):
    # ties at ranks 4-7 of every seventh query: the cut at 4 and 6 falls inside them
    run, qrels = citation_run(tmp_path, queries=40, depth=40)
    out = subprocess.run(
        [
            str(trec_eval_binary),
            "-c",
            "-q",
            "-m",
            "all_trec",
            "-M",
            str(max_docs),
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    want = [line for line in out.splitlines() if _to_measure(line.split("\t")[0].strip())]
    names = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    assert _citeval_lines(capsys, run, qrels, names, max_docs) == want


def test_every_path_cuts_the_same(tmp_path):
    run, qrels = citation_run(tmp_path)
    options = {"protocol": "goyal2026", "options": citeval_irm.EvalOptions(max_docs=5)}
    whole = citeval_irm.evaluate(run, qrels, **options)
    cut = citeval_irm.evaluate(citeval_irm.read_run(run).frame, qrels, **options)
    options = {"protocol": "goyal2026"}
    assert np.array_equal(whole.values, cut.values)
    same_result(
        whole,
        citeval_irm.evaluate(
            run,
            qrels,
            **options,
            options=citeval_irm.EvalOptions(max_docs=5),
            execution=citeval_irm.ExecutionOptions(memory=TINY),
        ),
    )
    reference = citeval_irm.evaluate(
        run,
        qrels,
        **options,
        options=citeval_irm.EvalOptions(max_docs=5),
        execution=citeval_irm.ExecutionOptions(engine="pytrec_eval", verify=True),
    )
    assert np.allclose(whole.values, reference.values, atol=1e-9)
    # the cut is the run's first 5 docs of each ranking in the tie policy's order
    full = citeval_irm.evaluate(run, qrels, protocol="goyal2026")
    assert not np.array_equal(whole.values, full.values)
    assert (whole.per_query["R@5"] == full.per_query["R@5"]).all()
    assert (whole.per_query["R@300"] == full.per_query["R@5"]).all()
    assert any(w.code == "short_ranking" for w in whole.warnings)  # R@10 on 5 docs


def test_dask_cuts_the_same(tmp_path):
    distributed = pytest.importorskip("distributed")
    run, qrels = citation_run(tmp_path, queries=30)
    folder = tmp_path / "parts"
    citeval_irm.convert(run, folder, partition_rows=500)
    expected = citeval_irm.evaluate(
        run, qrels, "RR R@10 nDCG@10 NumRet", options=citeval_irm.EvalOptions(max_docs=3)
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        result = citeval_irm.evaluate(
            folder,
            qrels,
            "RR R@10 nDCG@10 NumRet",
            options=citeval_irm.EvalOptions(max_docs=3),
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
        )
    expected.run_source = result.run_source
    same_result(expected, result)


def test_compare_scores_each_run_cut(tmp_path):
    run, qrels = citation_run(tmp_path, queries=30)
    other = tmp_path / "other.trec"
    lines = run.read_text().splitlines()
    other.write_text("\n".join(lines[::-1]) + "\n")  # the same rankings, rows reversed
    comparison = citeval_irm.compare(
        {"a": run, "b": other},
        qrels,
        "RR NumRet R@10",
        options=citeval_irm.EvalOptions(max_docs=2),
        statistics=citeval_irm.StatisticsOptions(permutations=99),
    )
    alone = citeval_irm.evaluate(
        run, qrels, "RR NumRet R@10", options=citeval_irm.EvalOptions(max_docs=2)
    )
    assert comparison.results["a"].aggregates == alone.aggregates
    assert alone.aggregates["NumRet"] == 2 * 25  # 25 ranked qrels queries, 2 docs each


def test_bad_max_docs_are_errors(tmp_path, capsys):
    run, qrels = citation_run(tmp_path, queries=5)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InputError, match="max_docs"):
            citeval_irm.evaluate(run, qrels, "RR", options=citeval_irm.EvalOptions(max_docs=bad))
    base = ["eval", str(run), "--qrels", str(qrels), "-m", "RR"]
    assert main([*base, "--max-docs", "0"]) == 2
    assert "citeval: error: max_docs 0" in capsys.readouterr().err
    assert main([*base, "-M", "5", "--crosscheck", "--recipe", "goyal2026"]) == 2
    assert "cannot be combined with --crosscheck" in capsys.readouterr().err
    report = tmp_path / "r.html"
    assert main([*base, "-M", "5", "--report", str(report)]) == 2
    assert not report.exists()


def test_validate_reads_the_rankings_cut(tmp_path, demo_home, capsys):
    """The depth check sees what the evaluation will score; the pairs are all checked."""
    run = citeval_irm.bm25_run("citeval/demo/test", k=40, temporal=False)  # later papers in it
    path = citeval_irm.write_run(run, tmp_path / "bm25.trec")
    whole = citeval_irm.validate(path, "citeval/demo/test", measures="RR R@20")
    cut = citeval_irm.validate(
        path, "citeval/demo/test", measures="RR R@20", options=citeval_irm.EvalOptions(max_docs=10)
    )
    assert whole.count("short_ranking") == 0
    assert cut.count("short_ranking") == whole.num_queries  # 10 docs, for R@20
    assert cut.count("later_paper") == whole.count("later_paper") > 0
    base = ["validate", str(path), "--dataset", "citeval/demo/test", "-m", "R@20"]
    assert main([*base, "-M", "10", "--format", "json"]) == 0
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["short_ranking"]["queries"] == whole.num_queries
    with pytest.raises(InputError, match="max_docs"):
        citeval_irm.validate(path, "citeval/demo/test", options=citeval_irm.EvalOptions(max_docs=0))
