"""One label rule, trec_eval 10.0's, in every form (issue 27 §4, §5): a relevance label
written as text is read the same from a TREC file (fast parse or line-aware), Parquet, a
DataFrame (object or pandas string dtype), a dict and records, and is either the number
trec_eval's ``atol`` reads (get_qrels.c:192) or an error naming the line; a missing id is
an error naming the column and the row, never a query named ``'<NA>'``."""

from __future__ import annotations

import json
import re
from collections import namedtuple
from pathlib import Path

import ir_datasets
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets_fixtures import masterset_rows, ms_ref, write_masterset_folder, write_parquet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeval_irm import InputError, evaluate, read_qrels, read_run
from citeval_irm.base.numbers import atol_reading

Qrel = namedtuple("Qrel", "query_id doc_id relevance")


def outcome(read):
    """``("value", labels)`` or ``("error", the problem from the value on)``: the same in
    every form (the place, a line or a row, is each form's own)."""
    try:
        return "value", tuple(read().relevance.tolist())
    except InputError as error:
        problem = error.problem
        return "error", re.sub(r"^row \d+: ", "", problem)


def label_forms(label: str, folder: Path) -> dict[str, object]:
    """Readers of the qrels ``q 0 a 1`` / ``q 0 b <label>`` in every form."""
    rows = [("q", "a", "1"), ("q", "b", label)]
    forms: dict[str, object] = {}
    if label and not re.search(r"\s", label):  # a TREC field holds no space
        text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in rows)
        (folder / "fast.qrels").write_text(text, encoding="utf-8")
        (folder / "lines.qrels").write_text("# judged\n" + text, encoding="utf-8")
        forms["TREC fast"] = lambda: read_qrels(folder / "fast.qrels")
        forms["TREC line-aware"] = lambda: read_qrels(folder / "lines.qrels")
    columns = {"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": ["1", label]}
    pq.write_table(pa.table(columns), folder / "labels.parquet")
    forms["Parquet"] = lambda: read_qrels(folder / "labels.parquet")
    forms["DataFrame"] = lambda: read_qrels(pd.DataFrame(columns))
    forms["DataFrame string dtype"] = lambda: read_qrels(pd.DataFrame(columns).astype("string"))
    forms["dict"] = lambda: read_qrels({"q": {"a": "1", "b": label}})
    forms["records"] = lambda: read_qrels([Qrel(*row) for row in rows])
    return forms


def same_in_every_form(label: str, folder: Path):
    outcomes = {name: outcome(read) for name, read in label_forms(label, folder).items()}
    first = next(iter(outcomes.values()))
    assert all(o == first for o in outcomes.values()), outcomes
    return first


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("0x10", None),  # atol: 0; Arrow's parser: 16
        ("1e1", None),  # atol: 1; Python's float: 10
        ("1.5", None),  # atol: 1
        ("1_0", None),  # Python's int: 10
        ("\u0663", None),  # ARABIC-INDIC DIGIT THREE: Python's float: 3
        ("9" * 400, None),
        ("+16", 16),
        ("16.0", 16),
        ("16.", 16),
        ("-1", -1),
        (" 3", 3),  # space around a value, as atol skips it (no TREC field holds it)
        ("007", 7),
        ("0", 0),  # plain digits, 1 to 9 of them: read without the rule's expressions
        ("999999999", 999_999_999),
        ("2147483647", 2**31 - 1),  # ten digits: by the rule
        ("2147483648", None),  # out of range
    ],
)
def test_the_issue_labels_read_alike_in_every_form(tmp_path, label, value):
    kind, found = same_in_every_form(label, tmp_path)
    if value is None:
        assert kind == "error", found
        if not label.strip().isdigit():
            assert f"trec_eval 10.0 would read it as {atol_reading(label)}" in found
    else:
        assert (kind, found) == ("value", (1, value))


def test_a_label_refused_names_its_line_with_or_without_a_comment(tmp_path):
    """The symptom: one '#' line used to turn a file read as 16 into an error."""
    for text, line in (("q 0 a 1\nq 0 b 0x10\n", 2), ("# c\nq 0 a 1\nq 0 b 0x10\n", 3)):
        (tmp_path / "q.txt").write_text(text)
        with pytest.raises(InputError, match=r"'0x10' is not a whole number") as caught:
            read_qrels(tmp_path / "q.txt")
        assert caught.value.line == line


LABEL_CHARACTERS = st.sampled_from(list("0123456789+-.eExX_ ab,") + ["\u0663", "\xa0"])


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    label=st.one_of(
        st.text(LABEL_CHARACTERS, min_size=1, max_size=7),
        st.integers(-(2**40), 2**40).map(str),
        st.from_regex(r"[+-]?[0-9]{1,12}(\.0{0,3})?", fullmatch=True),
    )
)
def test_random_label_strings_read_alike_in_every_form(tmp_path_factory, label):
    """Every form gives the same value or the same error; a value read is always the one
    trec_eval's atol reads (the rule refuses, never alters)."""
    kind, found = same_in_every_form(label, tmp_path_factory.mktemp("labels"))
    if kind == "value":
        assert found == (1, atol_reading(label))


def test_numbers_stored_as_numbers_follow_the_same_rule(tmp_path):
    """A label stored as a number: a whole one is read, any other is the same error in
    every form (a float column, nullable Int64, Parquet)."""
    for labels, expected in (([1, 16.0], (1, 16)), ([1, 2**31], None), ([1, 1.5], None)):
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": labels})
        frame.to_parquet(tmp_path / "n.parquet")
        nested = {"q": {"a": labels[0], "b": labels[1]}}
        outcomes = {
            outcome(lambda f=frame: read_qrels(f)),
            outcome(lambda: read_qrels(tmp_path / "n.parquet")),
            outcome(lambda d=nested: read_qrels(d)),
        }
        assert len(outcomes) == 1, outcomes
        kind, found = outcomes.pop()
        assert (kind, found if expected else None) == ("value" if expected else "error", expected)
    nullable = pd.DataFrame(
        {"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": pd.array([1, None], "Int64")}
    )
    with pytest.raises(InputError, match="missing relevance label") as caught:
        read_qrels(nullable)
    assert caught.value.line == 2
    with pytest.raises(InputError, match="is out of range"):
        read_qrels({"q": {"a": 10**400}})  # a Python int no float holds: not an OverflowError


def test_string_scores_follow_the_text_rule_in_every_form(tmp_path):
    """Scores as text: what a TREC file refuses (``1_0``, a non-ASCII digit) is refused
    from a dict or a frame too, not read by Python's float."""
    for score in ("1_0", "\u0663", "0x10", "infinity"):
        for run in ({"q": {"a": score}}, pd.DataFrame({"query_id": ["q"], "doc_id": ["a"],
                                                         "score": [score]})):  # fmt: skip
            with pytest.raises(InputError, match="is not a finite number"):
                read_run(run)
    assert read_run({"q": {"a": " 1e1 "}}).score.tolist() == [10.0]


# --------------------------------------------------------------------------- missing ids


@pytest.mark.parametrize(
    "column",
    [
        pd.array(["q1", None], dtype="string"),
        pd.array([1, None], dtype="Int64"),
        np.array(["q1", None], dtype=object),
        np.array([1.0, np.nan]),
    ],
    ids=["string <NA>", "Int64 <NA>", "None", "NaN"],
)
def test_a_missing_query_id_is_an_error_not_a_query_named_na(tmp_path, column):
    frame = pd.DataFrame({"query_id": column, "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = {"1": {"a": 1.0}, "q1": {"a": 1.0}}
    for qrels in (frame, frame.rename(columns={"query_id": "qid", "doc_id": "docno"})):
        with pytest.raises(InputError, match=r"missing or empty query_id") as caught:
            evaluate(run, qrels, "RR")
        assert caught.value.line == 2
    as_run_frame = frame.rename(columns={"relevance": "score"})
    with pytest.raises(InputError, match=r"missing or empty query_id"):
        read_run(as_run_frame)
    with pytest.raises(InputError, match=r"missing or empty doc_id"):
        read_qrels({"q": {pd.NA: 1}})
    frame.to_parquet(tmp_path / "na.parquet")
    with pytest.raises(InputError, match=r"row 2: missing or empty query_id"):
        read_qrels(tmp_path / "na.parquet")


# --------------------------------------------------------------------------- MasterSet


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        (int("9" * 400), "type_2_output 99999"),  # a JSON number: no OverflowError
        ("9" * 400, "type_2_output '99999"),
        ("0x10", "type_2_output '0x10' is not a number"),
        ("1_0", "type_2_output '1_0' is not a number"),
    ],
)
def test_masterset_labels_follow_the_number_rule(tmp_path, ir_home, monkeypatch, label, problem):
    folder = tmp_path / "masterset"
    write_masterset_folder(folder)
    monkeypatch.setenv("CITEVAL_MASTERSET_COREML_V1_DIR", str(folder))
    from datasets_fixtures import MASTERSET_QUERIES

    rows = masterset_rows(MASTERSET_QUERIES)
    rows[1]["references"] = json.dumps([ms_ref("P1", t2=label)])
    write_parquet(folder / "eval.parquet", rows)
    with pytest.raises(InputError) as caught:
        list(ir_datasets.load("citeval/masterset-coreml-v1/test/core").qrels_iter())
    message = str(caught.value)
    assert problem in message and "is not a number" in message and len(message) < 600
