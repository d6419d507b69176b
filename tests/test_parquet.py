"""Parquet runs and qrels, and ``citeval convert``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_streaming import TINY, citation_run, same_result

import citeval_irm
from citeval_irm.cli import main


def test_convert_and_evaluate_parquet(tmp_path, capsys):
    run, qrels = citation_run(tmp_path)
    expected = citeval_irm.evaluate(run, qrels, protocol="goyal2026")
    assert main(["convert", str(run), str(tmp_path / "run.parquet")]) == 0
    assert "rows of 120 queries" in capsys.readouterr().err
    assert main(["convert", str(qrels), str(tmp_path / "qrels.parquet"), "--qrels"]) == 0
    from_parquet = citeval_irm.evaluate(
        tmp_path / "run.parquet", tmp_path / "qrels.parquet", protocol="goyal2026"
    )
    assert np.array_equal(from_parquet.values, expected.values)
    assert from_parquet.query_ids == expected.query_ids
    assert [w.to_dict() for w in from_parquet.warnings] == [w.to_dict() for w in expected.warnings]


def test_partitioned_run_holds_whole_queries_and_streams(tmp_path, capsys):
    run, qrels = citation_run(tmp_path)
    folder = tmp_path / "parts"
    assert main(["convert", str(run), str(folder), "--partition-rows", "1000"]) == 0
    assert "files in" in capsys.readouterr().err
    files = sorted(folder.glob("part-*.parquet"))
    assert len(files) > 5
    seen: set[str] = set()
    for name in files:  # every query in one file only, each file one row group per chunk
        queries = set(pq.read_table(name, columns=["query_id"])["query_id"].to_pylist())
        assert not queries & seen
        seen |= queries
    expected = citeval_irm.evaluate(
        run, qrels, protocol="goyal2026", options=citeval_irm.EvalOptions(ties="run_order")
    )
    for memory in (None, TINY):
        result = citeval_irm.evaluate(
            folder,
            qrels,
            protocol="goyal2026",
            options=citeval_irm.EvalOptions(ties="run_order"),
            execution=citeval_irm.ExecutionOptions(memory=memory),
        )
        assert result.run_source == str(folder)
        expected.run_source = result.run_source
        same_result(expected, result)


def test_pyterrier_columns(tmp_path):
    run, qrels = citation_run(tmp_path, queries=30)
    frame = citeval_irm.read_run(run).frame.rename(columns={"query_id": "qid", "doc_id": "docno"})
    frame["rank"] = frame.groupby("qid").cumcount()
    frame.to_parquet(tmp_path / "pt.parquet")
    labels = citeval_irm.read_qrels(qrels).frame
    labels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}).to_parquet(
        tmp_path / "pt_qrels.parquet"
    )
    ours = citeval_irm.evaluate(tmp_path / "pt.parquet", tmp_path / "pt_qrels.parquet", "RR AP")
    assert ours.aggregates == citeval_irm.evaluate(run, qrels, "RR AP").aggregates


def test_bad_parquet_names_file_and_row(tmp_path):
    table = pa.table(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "score": [1.0, None, 2.0]}
    )
    pq.write_table(table, tmp_path / "nulls.parquet")
    with pytest.raises(citeval_irm.InputError, match=r"nulls\.parquet: row 2: missing score"):
        citeval_irm.read_run(tmp_path / "nulls.parquet")
    empty = table.set_column(1, "doc_id", pa.array(["d1", "", "d3"]))
    pq.write_table(empty, tmp_path / "empty_id.parquet")  # strings: read as a dictionary
    with pytest.raises(citeval_irm.InputError, match=r"row 2: missing or empty doc_id"):
        citeval_irm.read_run(tmp_path / "empty_id.parquet")
    pq.write_table(table.drop(["score"]), tmp_path / "cols.parquet")
    with pytest.raises(citeval_irm.InputError, match=r"missing column\(s\) \['score'\]"):
        citeval_irm.read_run(tmp_path / "cols.parquet")
    pd.DataFrame({"query_id": [1, 1], "doc_id": [7, 7], "score": [1.0, 2.0]}).to_parquet(
        tmp_path / "dup.parquet"
    )
    with pytest.raises(citeval_irm.InputError, match=r"duplicate score for query '1' and doc '7'"):
        citeval_irm.read_run(tmp_path / "dup.parquet")
    (tmp_path / "empty").mkdir()
    with pytest.raises(citeval_irm.InputError, match="no Parquet file"):
        citeval_irm.read_run(tmp_path / "empty")


def test_convert_groups_a_run_that_is_not_grouped(tmp_path):
    run, qrels = citation_run(tmp_path, queries=40)
    lines = run.read_text().splitlines()
    mixed = tmp_path / "mixed.trec"
    mixed.write_text("\n".join(lines[:50] + lines[300:] + lines[50:300]) + "\n")
    folder = tmp_path / "grouped"
    done = citeval_irm.convert(mixed, folder, partition_rows=500)
    assert done.rows == len(lines) and done.files > 1
    first_seen = list(dict.fromkeys(line.split()[0] for line in mixed.read_text().splitlines()))
    order = pq.read_table(folder)["query_id"].to_pylist()
    assert list(dict.fromkeys(order)) == first_seen  # first-appearance order kept
    same = citeval_irm.evaluate(
        folder, qrels, "RR nDCG@10", options=citeval_irm.EvalOptions(ties="run_order")
    )
    assert (
        same.aggregates
        == citeval_irm.evaluate(
            mixed, qrels, "RR nDCG@10", options=citeval_irm.EvalOptions(ties="run_order")
        ).aggregates
    )
