"""Reading and writing runs and qrels: every accepted form, and every bad input."""

from __future__ import annotations

import gzip
from collections import namedtuple

import ir_measures
import numpy as np
import pandas as pd
import pytest

from citeval_irm import InputError, read_qrels, read_run, write_run

RUN_TEXT = "q1 Q0 P15-1001 1 2.5 bm25\nq1 Q0 N12-1047 2 1.25 bm25\nq2 Q0 P15-1001 1 -0.5 bm25\n"


def frame_rows(table) -> list[tuple]:
    return list(table.frame.itertuples(index=False, name=None))


def test_run_single_space_file(write):
    run = read_run(write("run.trec", RUN_TEXT))
    assert frame_rows(run) == [
        ("q1", "P15-1001", 2.5),
        ("q1", "N12-1047", 1.25),
        ("q2", "P15-1001", -0.5),
    ]
    assert run.warnings == []


@pytest.mark.parametrize(
    "text",
    [
        RUN_TEXT.replace(" ", "\t"),  # tabs
        RUN_TEXT.replace("\n", "\r\n"),  # CRLF
        RUN_TEXT + "\n\n",  # trailing blank lines
        "  " + RUN_TEXT.replace(" Q0 ", "\tQ0   "),  # mixed whitespace, leading blanks
        RUN_TEXT.replace("\t", " ").replace(" 1 2.5 ", "\t1\t  2.5\t"),  # padded score
    ],
    ids=["tabs", "crlf", "blank-lines", "mixed-whitespace", "padded-score"],
)
def test_run_whitespace_variants_read_the_same(write, text):
    assert frame_rows(read_run(write("run.trec", text))) == frame_rows(
        read_run(write("ref.trec", RUN_TEXT))
    )


def test_run_text_after_sixth_column_is_ignored_and_counted(write):
    text = RUN_TEXT.replace("bm25\n", "bm25 more junk\n", 2)
    run = read_run(write("run.trec", text))
    assert len(run) == 3
    [warning] = run.warnings
    assert warning.code == "run_extra_text" and warning.count == 2


def test_gzip_run_and_qrels(tmp_path):
    path = tmp_path / "run.trec.gz"
    path.write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert len(read_run(path)) == 3
    qrels_path = tmp_path / "qrels"  # gzip is detected from the bytes, not the name
    qrels_path.write_bytes(gzip.compress(b"q1 0 P15-1001 1\nq2 0 N12-1047 0\n"))
    assert frame_rows(read_qrels(qrels_path)) == [("q1", "P15-1001", 1), ("q2", "N12-1047", 0)]


def test_ids_are_strings_even_when_numeric(write):
    run = read_run(write("run.trec", "007 Q0 0123 1 1.0 t\n10 Q0 1e5 1 2 t\n"))
    assert run.frame["query_id"].tolist() == ["007", "10"]
    assert run.frame["doc_id"].tolist() == ["0123", "1e5"]
    qrels = read_qrels(write("qrels", "007 0 0123 2\n"))
    assert qrels.frame["query_id"].tolist() == ["007"]
    assert qrels.frame["relevance"].tolist() == [2]


def test_qrels_negative_labels_and_dict(write):
    qrels = read_qrels(write("qrels", "q1 0 a -1\nq1 0 b 3\n"))
    assert qrels.to_dict() == {"q1": {"a": -1, "b": 3}}


def test_in_memory_run_forms_agree(write):
    expected = frame_rows(read_run(write("run.trec", RUN_TEXT)))
    frame = pd.DataFrame(expected, columns=["query_id", "doc_id", "score"])
    as_dict = {"q1": {"P15-1001": 2.5, "N12-1047": 1.25}, "q2": {"P15-1001": -0.5}}
    records = [ir_measures.ScoredDoc(q, d, s) for q, d, s in expected]
    for obj in (frame, as_dict, records, iter(records)):
        assert frame_rows(read_run(obj)) == expected


def test_in_memory_qrels_forms_agree():
    Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
    expected = [("1", "a", 1), ("1", "b", 0), ("2", "c", 2)]
    frame = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    as_dict = {1: {"a": 1, "b": 0}, 2: {"c": 2}}
    records = [Qrel(q, d, r, "0") for q, d, r in expected]
    for obj in (frame, as_dict, records):
        assert frame_rows(read_qrels(obj)) == expected


def test_dict_qrels_with_empty_query_keeps_the_query():
    qrels = read_qrels({"q1": {"a": 1}, "q2": {}})
    assert qrels.query_id_list == ["q1", "q2"]
    assert qrels.to_dict() == {"q1": {"a": 1}, "q2": {}}
    assert qrels.relevant_counts().to_dict() == {"q1": 1, "q2": 0}


def test_write_run_round_trip_ranks_by_score_then_doc_desc(tmp_path):
    run = {"q1": {"d10": 1.0, "d9": 1.0, "d100": 1.0, "a": 3.5}, "q2": {"x": 0.1}}
    path = write_run(run, tmp_path / "out.trec", tag="sys")
    lines = path.read_text().splitlines()
    assert lines == [
        "q1 Q0 a 1 3.5 sys",
        "q1 Q0 d9 2 1 sys",
        "q1 Q0 d100 3 1 sys",
        "q1 Q0 d10 4 1 sys",
        "q2 Q0 x 1 0.1 sys",
    ]
    assert read_run(path).to_dict() == run
    gz = write_run(run, tmp_path / "out.trec.gz")
    assert gzip.decompress(gz.read_bytes()).decode().splitlines()[0] == "q1 Q0 a 1 3.5 citeval"


# --------------------------------------------------------------------------- bad input


def error_of(call) -> InputError:
    with pytest.raises(InputError) as info:
        call()
    return info.value


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 t\n", 2, "expected 6 whitespace-separated columns"),
        ("q1 Q0 a 1 1.0 t\n\nq1 Q0 b 2 high t\n", 3, "score 'high' is not a finite number"),
        ("q1 Q0 a 1 nan t\n", 1, "score 'nan' is not a finite number"),
        ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 -inf t\n", 2, "score '-inf' is not a finite number"),
        ("q1 Q0 a 1 1e999 t\n", 1, "score '1e999' is not finite"),
        ("q1 Q0 a 1 1.0 t\nq2 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n", 3, "duplicate score"),
    ],
    ids=["columns", "non-numeric", "nan", "inf", "overflow", "duplicate"],
)
def test_bad_run_lines_name_file_line_and_problem(write, text, line, fragment):
    path = write("bad.trec", text)
    error = error_of(lambda: read_run(path))
    assert error.source == str(path)
    assert error.line == line
    assert fragment in error.problem
    assert str(error).startswith(f"{path}:{line}: ")


def test_duplicate_keep_best_keeps_highest_score_and_counts(write):
    text = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.7 t\nq1 Q0 a 3 0.9 t\nq1 Q0 a 4 0.1 t\n"
    run = read_run(write("dup.trec", text), duplicates="keep_best")
    assert run.to_dict() == {"q1": {"b": 0.7, "a": 0.9}}
    [warning] = run.warnings
    assert warning.code == "duplicate_docs_dropped" and warning.count == 2


def test_duplicate_in_dataframe_names_the_row():
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    error = error_of(lambda: read_run(frame))
    assert error.source == "<DataFrame>" and error.line == 2


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("q1 0 a 1\nq1 0 b\n", 2, "expected 4 whitespace-separated columns"),
        ("q1 0 a 1\nq1 0 b 1 extra\n", 2, "found more"),
        ("q1 0 a 1\nq1 0 b 0.5\n", 2, "relevance label '0.5' is not a whole number"),
        ("q1 0 a 1\nq1 0 a 0\n", 2, "duplicate judgement"),
    ],
    ids=["columns", "too-many", "float-label", "duplicate"],
)
def test_bad_qrels_lines(write, text, line, fragment):
    path = write("bad.qrels", text)
    error = error_of(lambda: read_qrels(path))
    assert (error.source, error.line) == (str(path), line)
    assert fragment in error.problem


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_and_missing_files(write, tmp_path, reader):
    assert "is empty" in str(error_of(lambda: reader(write("empty", "\n \n"))))
    assert "no such file" in str(error_of(lambda: reader(tmp_path / "absent")))


def test_dataframe_problems_are_named():
    missing = pd.DataFrame({"query_id": ["q"], "doc": ["a"], "score": [1.0]})
    assert "missing column(s) ['doc_id']" in str(error_of(lambda: read_run(missing)))
    nan = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, np.nan]})
    error = error_of(lambda: read_run(nan))
    assert error.line == 2 and "not a finite number" in error.problem
    graded = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [0.5]})
    assert "not a whole number" in str(error_of(lambda: read_qrels(graded)))


def test_unknown_object_is_rejected():
    assert "cannot read" in str(error_of(lambda: read_run(42)))
