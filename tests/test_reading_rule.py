"""One reading rule for every input form (issue 19 §2, §4; issue 22 items 1 and 12).

The same rows give the same per-query values and the same counted warnings whether they
come as a TREC file (spaces or tabs, plain, gzip of one or several members, with a
byte-order mark or comment lines), streamed or read whole, Parquet (a file, a folder written
by ``convert``), a DataFrame, a dict or records; what cannot be read is an InputError naming
the file (and line), never a traceback.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_streaming import citation_run, same_result
from test_trec_eval_outputs import expected_lines

from citeval_irm import InputError, convert, evaluate, read_qrels, read_run
from citeval_irm.base.options import EvalOptions, ExecutionOptions
from citeval_irm.cli import main
from citeval_irm.reading.io import write_run
from citeval_irm.reading.streaming import plan_reading, text_size

MEASURES = "AP RR P@2 nDCG@3 NumRet R@5"
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")


# --------------------------------------------------------------------------- every form


@st.composite
def tables(draw):
    """Rows of a run (distinct docs per query, ties likely, numeric-looking ids) and the
    qrels they are scored on."""
    queries = draw(
        st.lists(st.sampled_from(["1", "2", "q3", "10", "7"]), min_size=1, max_size=4, unique=True)
    )
    rows, judged = [], []
    for query in queries:
        docs = draw(
            st.lists(
                st.sampled_from(["d1", "d2", "3", "d4", "d5", "66", "d7"]),
                min_size=1,
                max_size=6,
                unique=True,
            )
        )
        for doc in docs:
            rows.append((query, doc, draw(st.sampled_from([0.5, 1.0, 2.0, -3.25, 7.0]))))
        judged.append((query, docs[0], draw(st.integers(0, 2))))
        judged.append((query, "d-unretrieved", 1))
    return rows, judged


def trec_text(rows, separator: str = " ") -> str:
    return "".join(
        separator.join([q, "Q0", d, str(i + 1), repr(s), "sys"]) + "\n"
        for i, (q, d, s) in enumerate(rows)
    )


def every_form(rows, folder: Path) -> dict[str, object]:
    """The same rows in every form the readers take (and as ``convert`` writes them)."""
    text = trec_text(rows)
    forms: dict[str, object] = {}
    (folder / "plain.trec").write_text(text)
    (folder / "tabs.trec").write_text(trec_text(rows, "\t"))
    (folder / "bom.trec").write_bytes(b"\xef\xbb\xbf" + text.encode())
    lines = text.splitlines(keepends=True)
    commented = ["# header comment\n", *lines[:1], "  # indented comment\n", *lines[1:]]
    (folder / "comments.trec").write_text("".join(commented))
    (folder / "one.trec.gz").write_bytes(gzip.compress(text.encode()))
    half = len(lines) // 2
    members = gzip.compress("".join(lines[:half]).encode()) + gzip.compress(
        "".join(lines[half:]).encode()
    )
    (folder / "members.trec.gz").write_bytes(members)
    for name in (
        "plain.trec",
        "tabs.trec",
        "bom.trec",
        "comments.trec",
        "one.trec.gz",
        "members.trec.gz",
    ):
        forms[name] = folder / name
        forms[name + " streamed"] = (folder / name, 1)
    table = pa.table(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[1] for r in rows],
            "score": [r[2] for r in rows],
        }
    )
    pq.write_table(table, folder / "run.parquet")
    forms["parquet"] = folder / "run.parquet"
    forms["parquet streamed"] = (folder / "run.parquet", 1)
    convert(folder / "plain.trec", folder / "parts", partition_rows=2)
    forms["convert folder"] = folder / "parts"
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    forms["DataFrame"] = frame
    forms["PyTerrier frame"] = frame.rename(columns={"query_id": "qid", "doc_id": "docno"})
    nested: dict = {}
    for q, d, s in rows:
        nested.setdefault(q, {})[d] = s
    forms["dict"] = nested
    forms["records"] = [ScoredDoc(*r) for r in rows]
    write_run(read_run(folder / "parts"), folder / "back.trec")
    forms["convert and back"] = folder / "back.trec"
    return forms


def without_reading_notes(warnings):
    return [w.to_dict() for w in warnings if w.code not in {"run_comment_lines", "run_sorted"}]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@pytest.mark.slow
@given(table=tables())
def test_every_input_form_gives_the_same_values_and_warnings(tmp_path_factory, table):
    rows, judged = table
    folder = tmp_path_factory.mktemp("forms")
    qrels = {q: {} for q, _, _ in judged}
    for q, d, r in judged:
        qrels[q][d] = r
    forms = every_form(rows, folder)
    reference = evaluate(forms["plain.trec"], qrels, MEASURES)
    for name, form in forms.items():
        run, memory = form if isinstance(form, tuple) else (form, None)
        if memory is not None:
            assert plan_reading(run, memory).stream, name
        result = evaluate(run, qrels, MEASURES, execution=ExecutionOptions(memory=memory))
        assert result.query_ids == reference.query_ids, name
        assert np.array_equal(result.values, reference.values), name
        expected = without_reading_notes(reference.warnings)
        if name == "convert and back":  # write_run lists ties in trec_eval's order: no tie
            expected = [w for w in expected if w["code"] != "tied_scores"]  # left to dispute
        assert without_reading_notes(result.warnings) == expected, name
        comments = [w.count for w in result.warnings if w.code == "run_comment_lines"]
        assert comments == ([2] if "comments" in name else []), name


def test_float_ids_are_whole_numbers_and_booleans_are_errors_in_every_form(tmp_path):
    frame = pd.DataFrame({"query_id": [2.0, 2.0], "doc_id": [10.0, 2.5], "score": [1.0, 0.5]})
    frame.to_parquet(tmp_path / "floats.parquet")
    for source in (frame, tmp_path / "floats.parquet", {2.0: {10.0: 1.0, 2.5: 0.5}}):
        run = read_run(source)
        assert run.query_strings().to_pylist() == ["2", "2"]
        assert run.doc_strings().to_pylist() == ["10", "2.5"]
    flags = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [True, False]})
    flags.to_parquet(tmp_path / "flags.parquet")
    for source in (flags, tmp_path / "flags.parquet", {"q": {"a": True}}):
        with pytest.raises(InputError, match="True is not a"):
            read_run(source)
    for source in ({True: {"a": 1.0}}, {"q": {False: 1.0}}):
        with pytest.raises(InputError, match="is a boolean, not an id"):
            read_run(source)


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_an_empty_last_field_is_read_the_same_whatever_the_other_lines(tmp_path, separator):
    """trec_eval rejects a line whose last field is empty (5 fields and a separator)."""
    empty = separator.join(["q1", "Q0", "a", "1", "2.0", ""]) + "\n"
    alone = tmp_path / "alone.trec"
    alone.write_text(empty + separator.join(["q1", "Q0", "b", "2", "1.0", "t"]) + "\n")
    mixed = tmp_path / "mixed.trec"
    mixed.write_text(alone.read_text() + "q2 Q0 c 1 1.0 t and more words\n")
    for path in (alone, mixed):
        with pytest.raises(InputError, match="found 5") as caught:
            read_run(path)
        assert caught.value.line == 1


@pytest.mark.parametrize(
    ("bad_line", "odd_byte"),
    [
        ("qb Q0  d 1 2.0\n", 7),  # a doubled delimiter, the last two bytes of a block
        ("qb Q0 d 1 2.0 \n", 13),  # a delimiter ending the line, the first byte of a block
    ],
)
def test_an_empty_field_at_a_block_boundary_is_found(tmp_path, bad_line, odd_byte):
    """The fast parse reads 64 KB blocks when streamed, 4 MB whole: a 5-field line whose
    empty field sits at the edge of a block is trec_eval's error all the same, naming it."""
    block = 1 << 16
    filler = "qa Q0 d{:05d} 1 1.0 t\n"
    count, rest = divmod(block - odd_byte, len(filler.format(0)))
    lines = [filler.format(i) for i in range(count - 1)]
    lines.append("qa Q0 dlast 1 1.0 t" + "x" * (rest + 1) + "\n")  # bad_line[odd_byte] at 64K
    lines.append(bad_line)
    lines += [filler.format(i).replace("qa", "qc") for i in range(100)]
    run = tmp_path / "run.trec"
    run.write_text("".join(lines))
    assert "".join(lines).encode()[block - 2 : block + 2] in (b"  d ", b".0 \n")
    qrels = tmp_path / "qrels"
    qrels.write_text("qa 0 d00001 1\n")
    assert plan_reading(run, "1K").block_size == block
    for memory in (None, "1K"):
        with pytest.raises(InputError, match="found 5") as caught:
            evaluate(run, qrels, "RR", execution=ExecutionOptions(memory=memory))
        assert caught.value.line == count + 1


def test_a_byte_order_mark_is_dropped_on_both_paths(tmp_path):
    bom = b"\xef\xbb\xbf"
    fast = tmp_path / "fast.trec"
    fast.write_bytes(bom + b"q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5 t\n")
    lines = tmp_path / "lines.trec"  # a tab and text after the 6th column: the line path
    lines.write_bytes(bom + b"q1 Q0 a 1 1.0 t\nq1\tQ0 b 2 0.5 t more\n")
    qrels = tmp_path / "qrels"
    qrels.write_bytes(bom + b"q1 0 a 1\n")
    for path in (fast, lines):
        assert read_run(path).query_strings().to_pylist() == ["q1", "q1"]
        streamed = evaluate(path, qrels, "RR", execution=ExecutionOptions(memory="1K"))
        assert streamed.query_ids == ["q1"]
    assert read_qrels(qrels).query_strings().to_pylist() == ["q1"]


def test_write_run_refuses_ids_a_trec_file_cannot_hold(tmp_path):
    for run, tag, bad in (
        ({"q 1": {"a": 1.0}}, "t", "query_id 'q 1'"),
        ({"q": {"a\tb": 1.0}}, "t", "doc_id 'a\\tb'"),
        ({"#q": {"a": 1.0}}, "t", "query_id '#q'"),
        ({"q": {"a": 1.0}}, "my run", "tag 'my run'"),
    ):
        with pytest.raises(InputError, match=re.escape(bad)):
            write_run(run, tmp_path / "out.trec", tag=tag)
        assert not (tmp_path / "out.trec").exists()
    kept = {"q": {"a\u00a0": 1.0}}  # a non-breaking space is part of an id for trec_eval
    assert read_run(write_run(kept, tmp_path / "out.trec")).to_dict() == kept


# --------------------------------------------------------------------------- comments


def test_trec_eval_comment_files_match_its_output(capsys, trec_eval_dir):
    measures = "official"  # what trec_eval prints by default, as out.test holds it
    for run, qrels, out in (
        ("results.test", "qrels.test.with-comments", "out.test"),
        ("results.test.with-comments", "qrels.test", "out.test"),
        ("results.comment.test", "qrels.comment.test", "out.comment.test"),
    ):
        argv = ["eval", str(trec_eval_dir / run), "--qrels", str(trec_eval_dir / qrels)]
        assert main([*argv, "-m", measures, "--format", "trec_eval"]) == 0
        assert capsys.readouterr().out.splitlines() == expected_lines(trec_eval_dir / out)
    result = evaluate(
        trec_eval_dir / "results.test.with-comments",
        trec_eval_dir / "qrels.test.with-comments",
        "AP",
    )
    counted = {w.code: w.count for w in result.warnings}
    assert counted["run_comment_lines"] == 5 and counted["qrels_comment_lines"] == 3
    streamed = evaluate(
        trec_eval_dir / "results.test.with-comments",
        trec_eval_dir / "qrels.test.with-comments",
        "AP",
        execution=ExecutionOptions(memory="1K"),
    )
    same_result(result, streamed)


# --------------------------------------------------------------------------- streamed warnings


def test_a_sorted_run_keeps_every_warning_of_the_whole_file(tmp_path):
    run, qrels = citation_run(tmp_path, queries=60)
    lines = run.read_text().splitlines()
    lines[40] += " trailing words"  # run_extra_text
    lines[700] += " more"
    lines.insert(300, lines[290].replace(" sys", " dup"))  # a duplicate: keep_best
    lines.insert(10, "# a comment line")
    moved = lines[:100] + lines[400:] + lines[100:400]  # not grouped: sorted first
    mixed = tmp_path / "mixed.trec"
    mixed.write_text("\n".join(moved) + "\n")
    fields = {"duplicates": "keep_best", "ties": "run_order"}
    whole = evaluate(mixed, qrels, "AP RR P@10", options=EvalOptions(**fields))
    streamed = evaluate(
        mixed,
        qrels,
        "AP RR P@10",
        options=EvalOptions(**fields),
        execution=ExecutionOptions(memory="64K"),
    )
    assert [w.code for w in streamed.warnings if w.code == "run_sorted"] == ["run_sorted"]
    streamed.warnings = [w for w in streamed.warnings if w.code != "run_sorted"]
    codes = {w.code for w in whole.warnings}
    assert {"run_extra_text", "run_comment_lines", "duplicate_docs_dropped"} <= codes
    same_result(whole, streamed)


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    ("kind", "text", "hint"),
    [
        (
            "run",
            "qid Q0 docno rank score tag\nq1 Q0 a 1 1.0 t\n",
            "looks like a header line: remove it",
        ),
        ("qrels", "qid iter docno rel\nq1 0 a 1\n", "looks like a header line: remove it"),
        ("run", "q1 0 a 1\nq1 0 b 0\n", "4 columns: this looks like qrels"),
        ("qrels", "q1 Q0 a 1 1.0 t\n", "this looks like a run"),
        ("run", "q1 Q0 a 1 30,5 t\n", "a decimal comma? write '30.5'"),
        ("qrels", "q1 0 a 1\nq1 0 b 1,0\n", "a decimal comma? write '1.0'"),
    ],
)
def test_messages_guess_the_mistake(tmp_path, capsys, kind, text, hint):
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    good = tmp_path / "good.txt"
    good.write_text("q1 0 a 1\n" if kind == "run" else "q1 Q0 a 1 1.0 t\n")
    run, qrels = (bad, good) if kind == "run" else (good, bad)
    assert main(["eval", str(run), "--qrels", str(qrels), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: {bad}:") and hint in err and "Traceback" not in err


# --------------------------------------------------------------------------- corrupt input


def test_corrupt_input_is_an_error_naming_the_file_whole_streamed_and_converted(tmp_path, capsys):
    run, qrels = citation_run(tmp_path, queries=40)
    packed = gzip.compress(run.read_bytes())
    cases = {
        "cut.trec.gz": packed[: len(packed) // 2],
        "garbage.trec.gz": packed + b"this is not gzip\n" * 4,
        "tiny.parquet": b"PAR1",
    }
    pq.write_table(read_run(run).frame.pipe(pa.Table.from_pandas), tmp_path / "whole.parquet")
    whole = (tmp_path / "whole.parquet").read_bytes()
    cases["cut.parquet"] = whole[: len(whole) // 2]
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        for extra in ([], ["--memory", "64K"]):
            code = main(["eval", str(path), "--qrels", str(qrels), "-m", "AP", *extra])
            err = capsys.readouterr().err
            assert code == 2 and err.startswith(f"citeval: error: {path}"), (name, err)
            assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        if name.endswith(".gz"):
            target = tmp_path / f"{name}.parts"
            code = main(["convert", str(path), str(target), "--partition-rows", "100"])
            err = capsys.readouterr().err
            assert code == 2 and err.startswith(f"citeval: error: {path}"), (name, err)
            assert not target.exists()
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{target.name}")]


def test_a_damaged_page_of_a_converted_run_is_found(tmp_path):
    run, qrels = citation_run(tmp_path, queries=40)
    convert(run, tmp_path / "run.parquet")  # page checksums written
    data = bytearray((tmp_path / "run.parquet").read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)
    (tmp_path / "run.parquet").write_bytes(bytes(data))
    with pytest.raises(InputError, match="cannot be read as Parquet") as caught:
        evaluate(tmp_path / "run.parquet", qrels, "AP")
    assert caught.value.source.endswith("run.parquet")


def test_a_400_digit_label_is_an_error_naming_the_line(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 1" + "0" * 400 + "\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 1.0 t\n")
    assert main(["eval", str(run), "--qrels", str(qrels), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: {qrels}:2: relevance label") and "out of range" in err


# --------------------------------------------------------------------------- limits


def test_a_gzip_of_several_members_is_sized_by_its_text(tmp_path):
    run, qrels = citation_run(tmp_path, queries=120, depth=200)
    text = run.read_bytes()
    step = len(text) // 8
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    members = tmp_path / "members.trec.gz"
    members.write_bytes(b"".join(gzip.compress(piece) for piece in pieces))
    estimate = text_size(members)
    assert abs(estimate - len(text)) < len(text) / 4  # the trailer alone says 1/8
    plan = plan_reading(members, len(text) // 2)
    assert plan.stream
    same_result(
        evaluate(run, qrels, MEASURES),
        evaluate(members, qrels, MEASURES, execution=ExecutionOptions(memory=len(text) // 2)),
    )


def test_a_parquet_file_of_one_row_group_is_streamed_in_chunks(tmp_path):
    run, qrels = citation_run(tmp_path, queries=120)
    table = pa.Table.from_pandas(read_run(run).frame, preserve_index=False)
    pq.write_table(table, tmp_path / "one.parquet", row_group_size=len(table))
    assert pq.ParquetFile(tmp_path / "one.parquet").metadata.num_row_groups == 1
    from citeval_irm.reading.chunks import iter_run_chunks

    chunks = list(iter_run_chunks(tmp_path / "one.parquet", 500, block_size=1 << 16))
    assert len(chunks) > 5 and max(len(c) for c in chunks) < 2000
    same_result(
        evaluate(run, qrels, MEASURES),
        evaluate(
            tmp_path / "one.parquet", qrels, MEASURES, execution=ExecutionOptions(memory="64K")
        ),
    )


def test_a_killed_sort_leaves_a_folder_the_next_one_removes(tmp_path, monkeypatch):
    from citeval_irm.base.outputs import _HOST, WORK_MARK, temporary_folder

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    orphan = tmp_path / f".citeval-sort{WORK_MARK}{_HOST}-{int(dead.stdout)}-0123abcd"
    orphan.mkdir()
    (orphan / "spill.tmp").write_bytes(b"x")
    alive = tmp_path / f".citeval-sort{WORK_MARK}{_HOST}-{os.getppid()}-0123abcd"
    alive.mkdir()
    other = tmp_path / "citeval-sort-mine"  # not of that form: never touched
    other.mkdir()
    with temporary_folder("sort") as work:
        assert work.parent == tmp_path and work.is_dir()
    assert not work.exists() and not orphan.exists()
    assert alive.is_dir() and other.is_dir()
