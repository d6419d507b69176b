"""One reading rule on every path: trec_eval's tokenisation, one label rule for files and
frames, and every bad input an InputError naming its line (a fuzz test of the readers)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeval_irm import InputError, evaluate, read_qrels, read_run
from citeval_irm.base.options import ExecutionOptions

# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("label", "value"), [("+1", 1), ("1.0", 1), ("2.00", 2), ("-1", -1), ("2147483647", 2**31 - 1)]
)
def test_whole_number_labels_are_read_in_any_spelling(tmp_path, label, value):
    path = tmp_path / "qrels.txt"
    path.write_text(f"q 0 a 1\nq 0 b {label}\n")
    assert read_qrels(path).relevance.tolist() == [1, value]


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        ("2147483648", "out of range"),
        ("4294967296", "out of range"),
        ("99999999999999999999", "out of range"),
        ("-2147483649", "out of range"),
        ("1.5", "not a whole number"),
        ("1e3", "not a whole number"),
    ],
)
def test_labels_outside_the_range_are_an_error_naming_the_line(tmp_path, label, problem):
    path = tmp_path / "qrels.txt"
    path.write_text(f"q 0 a 1\nq 0 b {label}\nq 0 c 1\n")
    with pytest.raises(InputError, match=problem) as caught:
        read_qrels(path)
    assert caught.value.line == 2 and caught.value.source == str(path)


def test_the_same_label_rule_for_frames():
    ok = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1.0, 2.0]})
    assert read_qrels(ok).relevance.tolist() == [1, 2]
    for bad in (1e20, 2.0**31, -(2.0**31) - 1):
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, bad]})
        with pytest.raises(InputError, match="out of range") as caught:
            read_qrels(frame)
        assert caught.value.line == 2
    huge = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": np.array([2**40])})
    with pytest.raises(InputError, match="out of range"):
        read_qrels(huge)


def test_a_huge_label_changes_no_other_query(tmp_path):
    """The largest label allowed: RR of the other query is untouched, on both engines."""
    qrels = {"q1": {"a": 2**31 - 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 2.0, "b": 1.0}}
    assert evaluate(run, qrels, "RR").values[:, 0].tolist() == [1.0, 0.5]
    assert evaluate(run, qrels, "RR", execution=ExecutionOptions(engine="pytrec_eval")).values[
        :, 0
    ].tolist() == [1.0, 0.5]
    # nDCG needs the label itself: the default engine computes it, pytrec_eval would take
    # 17 GB for that one label, so that engine says what to do instead
    assert evaluate(run, qrels, "nDCG").values[:, 0].tolist() == [1.0, 1 / np.log2(3)]
    with pytest.raises(InputError, match="use the default engine"):
        evaluate(run, qrels, "nDCG", execution=ExecutionOptions(engine="pytrec_eval"))


def test_judged_only_with_negative_labels_is_exact_on_the_pytrec_eval_engine():
    """A label of -1 is unjudged under judged_only (trec_eval -J): it must not be mapped to
    0 on the way to pytrec_eval, where it would become a judged non-relevant doc."""
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q": {"a": -1, "b": 0, "c": 1}}
    measures = "P(judged_only=True)@1 P(judged_only=True)@2 RR(judged_only=True) P@2"
    ours = evaluate(run, qrels, measures)
    theirs = evaluate(run, qrels, measures, execution=ExecutionOptions(engine="pytrec_eval"))
    assert ours.values.tolist() == theirs.values.tolist() == [[0.0, 0.5, 0.5, 0.0]]


# --------------------------------------------------------------------------- tokenisation


def test_a_line_reads_the_same_whatever_the_other_lines(tmp_path):
    """A tab-separated file whose id holds a space (trec_eval splits it there) and an id
    ending in a non-breaking space (part of the id for trec_eval): the same tokens with or
    without an unrelated line that sends the file down the other reader path."""
    lines = ["q1\tQ0\td 1\t1\t2.0\ttag\n", "q1\tQ0\tx\u00a0\t2\t1.0\ttag\n"]
    alone = tmp_path / "alone.trec"
    alone.write_text("".join(lines), encoding="utf-8")
    mixed = tmp_path / "mixed.trec"
    mixed.write_text("".join(lines) + "q2 Q0 y 1 3.0 other tag with words\n", encoding="utf-8")
    first, second = read_run(alone), read_run(mixed)
    assert first.doc_strings().to_pylist() == ["d", "x\u00a0"]  # "d 1" split: doc "d"
    assert second.doc_strings().to_pylist()[:2] == ["d", "x\u00a0"]
    # line 1's tokens: q1 Q0 d 1 1 2.0 tag: the score is its 5th, "1"
    assert first.score.tolist() == second.score.tolist()[:2] == [1.0, 1.0]


ASCII_SPACE = rb"[ \t\n\v\f\r]+"


def reference_rows(data: bytes, width: int, allow_extra: bool):
    """trec_eval's tokenisation, written plainly: lines end at \\n, \\r\\n or \\r, fields are
    runs of anything but ASCII whitespace; None when the file must be rejected."""
    rows = []
    for line in re.split(rb"\r\n|\n|\r", data):
        fields = [f for f in re.split(ASCII_SPACE, line) if f]
        if not fields:
            continue
        if len(fields) < width or (len(fields) > width and not allow_extra):
            return None
        try:
            rows.append([f.decode("utf-8") for f in fields[:width]])
        except UnicodeDecodeError:
            return None
    return rows or None


FIELD = st.sampled_from(["q1", "q2", "d1", "d2", "Q0", "0", "1", "2.5", "-1", "x\u00a0", "é"])
SEP = st.sampled_from([" ", "\t", "  ", " \t", "\v", "\f"])
END = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])


@st.composite
def files(draw):
    """Mostly well-formed TREC lines, with odd separators, line ends and junk bytes."""
    out = b""
    for _ in range(draw(st.integers(1, 6))):
        fields = draw(st.lists(FIELD, min_size=3, max_size=8))
        line = "".join(f + draw(SEP) for f in fields[:-1]) + fields[-1] + draw(END)
        out += line.encode("utf-8")
    if draw(st.integers(0, 4)) == 0:
        out += draw(st.binary(max_size=12))
    return out


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=files(), kind=st.sampled_from(["run", "qrels"]))
def test_any_bytes_give_the_reference_table_or_an_error_naming_a_line(tmp_path_factory, data, kind):
    path = tmp_path_factory.mktemp("fuzz") / "file.txt"
    path.write_bytes(data)
    width, value = (6, 4) if kind == "run" else (4, 3)
    expected = reference_rows(data, width, allow_extra=kind == "run")
    try:
        table = read_run(path) if kind == "run" else read_qrels(path)
    except InputError as exc:
        assert exc.source == str(path)
        # a rejected file: bad shape, bad number, repeated pair or bad UTF-8, at a line
        assert exc.line is not None or "empty" in exc.problem, exc
        return
    assert expected is not None, (data, table.frame)
    assert table.query_strings().to_pylist() == [r[0] for r in expected]
    assert table.doc_strings().to_pylist() == [r[2] for r in expected]
    got = table.values().tolist()
    want = [float(r[value]) for r in expected]
    assert got == want


@pytest.mark.parametrize(
    ("measure", "engine", "problem"),
    [
        ("R(rel=0)@10", "pytrec_eval", "pytrec_eval could not compute .*relevance_level should be"),
        ("alpha_nDCG@10", "citeval", "ir-measures could not compute .*Unsupported measures"),
    ],
)
def test_a_measure_no_provider_can_take_is_an_error_not_a_traceback(measure, engine, problem):
    run = {"q": {"a": 1.0}}
    with pytest.raises(InputError, match=problem):
        evaluate(run, {"q": {"a": 1}}, measure, execution=ExecutionOptions(engine=engine))


def test_frames_with_missing_ids_or_repeated_columns_are_errors_naming_the_row():
    nan_query = pd.DataFrame({"query_id": ["q", np.nan], "doc_id": ["a", "b"], "score": [1, 2]})
    with pytest.raises(InputError, match="missing or empty query_id") as caught:
        evaluate(nan_query, {"q": {"a": 1}}, "RR")
    assert caught.value.line == 2
    none_doc = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", None], "relevance": [1, 0]})
    with pytest.raises(InputError, match="missing or empty doc_id"):
        read_qrels(none_doc)
    twice = pd.DataFrame([["q", "a", 1.0, 2.0]], columns=["query_id", "doc_id", "score", "score"])
    with pytest.raises(InputError, match="repeated column name"):
        evaluate(twice, {"q": {"a": 1}}, "RR")
