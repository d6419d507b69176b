"""The Dask engine on a real ``distributed.LocalCluster`` of two workers."""

from __future__ import annotations

import numpy as np
import pytest
from test_streaming import citation_run, same_result

import citeval_irm

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


def test_partitioned_parquet_on_the_cluster(tmp_path, client):
    run, qrels = citation_run(tmp_path)
    folder = tmp_path / "parts"
    citeval_irm.convert(run, folder, partition_rows=1500)
    for ties in ("trec_eval", "run_order"):
        expected = citeval_irm.evaluate(
            run, qrels, protocol="goyal2026", options=citeval_irm.EvalOptions(ties=ties)
        )
        result = citeval_irm.evaluate(
            folder,
            qrels,
            protocol="goyal2026",
            options=citeval_irm.EvalOptions(ties=ties),
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
        )
        assert result.engine == "dask"
        expected.run_source = result.run_source
        same_result(expected, result)


def test_dask_dataframe_with_queries_split_between_partitions(tmp_path, client):
    run, qrels = citation_run(tmp_path, queries=50)
    frame = citeval_irm.read_run(run).frame
    # from_pandas cuts the rows in 7 even ranges: queries split between partitions
    pieces = dd.from_pandas(frame, npartitions=7)
    expected = citeval_irm.evaluate(
        frame, qrels, "RR R@10 nDCG@10 AP", options=citeval_irm.EvalOptions(ties="run_order")
    )
    result = citeval_irm.evaluate(
        pieces,
        qrels,
        "RR R@10 nDCG@10 AP",
        options=citeval_irm.EvalOptions(ties="run_order"),
        execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
    )
    assert np.array_equal(result.values, expected.values)
    assert result.query_ids == expected.query_ids
    assert [w.to_dict() for w in result.warnings] == [w.to_dict() for w in expected.warnings]


def test_a_trec_file_is_refused_with_the_way_out(tmp_path, client):
    run, qrels = citation_run(tmp_path, queries=5)
    with pytest.raises(citeval_irm.InputError, match="citeval convert"):
        citeval_irm.evaluate(
            run,
            qrels,
            "RR",
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
        )


def test_cli_engine_dask_with_a_scheduler_address(tmp_path, client, capsys):
    from citeval_irm.cli import main

    run, qrels = citation_run(tmp_path, queries=30)
    citeval_irm.convert(run, tmp_path / "parts", partition_rows=600)
    args = ["eval", "--qrels", str(qrels), "--protocol", "goyal2026", "--format", "json"]
    assert main([*args[:1], str(run), *args[1:]]) == 0
    expected = capsys.readouterr().out
    address = client.scheduler.address
    assert (
        main(
            [
                *args[:1],
                str(tmp_path / "parts"),
                *args[1:],
                "--engine",
                "dask",
                "--scheduler",
                address,
                "--quiet",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out.replace(str(tmp_path / "parts"), str(run))
    assert shown.replace('"engine": "dask"', '"engine": "citeval"') == expected


def test_compare_streamed_and_on_the_cluster(tmp_path, client):
    from compare_reference import planted_runs

    planted = planted_runs(tmp_path)
    runs = {name: planted[name] for name in ("base", "better", "null")}
    options = {
        "measures": "RR R@10 nDCG@10 AP",
        "baseline": "base",
        "statistics": citeval_irm.StatisticsOptions(permutations=2000),
    }
    expected = citeval_irm.compare(runs, planted["qrels"], **options)
    for extra in ({"memory": "64K"}, {"engine": "dask", "scheduler": client}):
        other = citeval_irm.compare(
            runs, planted["qrels"], **options, execution=citeval_irm.ExecutionOptions(**extra)
        )
        assert other.pairs.equals(expected.pairs)
        assert other.per_query.equals(expected.per_query)
        assert [str(w) for w in other.warnings] == [str(w) for w in expected.warnings]


def test_compare_on_the_cluster_issues_each_warning_once_from_the_client(tmp_path, client):
    """The workers issue nothing (in a process of their own they would print it raw);
    ``compare`` issues the comparison's warnings once, at the caller's line."""
    import warnings

    run, qrels = citation_run(tmp_path, queries=20, depth=20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparison = citeval_irm.compare(
            {"a": run, "b": run},
            qrels,
            "RR",
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
        )
    issued = [w for w in caught if issubclass(w.category, citeval_irm.EvalWarning)]
    assert [str(w.message) for w in issued] == [str(w) for w in comparison.warnings]
    assert {w.filename for w in issued} == {__file__}


def test_crosscheck_on_the_cluster_equals_in_memory(tmp_path, client):
    """The cross-check reads a partitioned run through the Dask source too."""
    from test_crosscheck_streamed import same_report

    run, qrels = citation_run(tmp_path)
    folder = tmp_path / "parts"
    citeval_irm.convert(run, folder, partition_rows=1500)
    for recipe in ("goyal2026", "symtax"):
        expected = citeval_irm.crosscheck(run, qrels, recipe=recipe)
        found = citeval_irm.crosscheck(
            folder,
            qrels,
            recipe=recipe,
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
        )
        same_report(expected, found)
