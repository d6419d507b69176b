"""citeval resolve's inputs and outputs (issue 40, items 7-9): no output lands on another
or on an input, whatever --force says; no row of a list or a catalogue is lost or counted as
what it is not (an unclosed quote, a short row, a repeated key, a very long field); every
bad input is one error naming the file, the line and the problem, and every bad argument
of resolve() a TypeError or ValueError naming the argument."""

from __future__ import annotations

import json
import os
import sys

import pytest
from test_resolve import cli, corpus, quiet_resolve  # noqa: F401 (corpus: the trap corpus)

import citeval_irm

ACL = "citeval/acl-200/test"
GLOVE = "GloVe: Global Vectors for Word Representation"


@pytest.fixture
def query(corpus):  # noqa: F811 (the fixture imported)
    """A test query of the trap corpus (it cites GloVe)."""
    return corpus["queries"][0]


def lists_file(folder, query: str, name: str = "generated.jsonl"):
    path = folder / name
    path.write_text(json.dumps({"query_id": query, "references": [GLOVE, "An invented one"]})
                    + "\n")  # fmt: skip
    return path


def error_of(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


# --------------------------------------------------------------------------- item 7


@pytest.mark.parametrize("suffix", [".csv", ".json", ".txt"])
def test_the_run_and_the_report_never_share_a_path(query, tmp_path, capsys, suffix):
    lists = lists_file(tmp_path, query)
    same = tmp_path / f"same{suffix}"
    for force in ((), ("--force",)):
        assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(same), "--report",
                   str(tmp_path / "." / same.name), *force) == 2  # fmt: skip
        err = error_of(capsys)
        assert "is both the run (-o) and the report (--report)" in err, err
        assert not same.exists()


def test_force_never_replaces_an_input_of_the_same_command(query, tmp_path, capsys):
    lists = lists_file(tmp_path, query, "g.jsonl")
    catalogue = tmp_path / "cat.txt"
    catalogue.write_text("Language Models are Few-Shot Learners\n")
    before = lists.read_bytes(), catalogue.read_bytes()
    assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(lists), "--force") == 2
    assert "is the generated lists, which this command reads" in error_of(capsys)
    link = tmp_path / "link.txt"
    link.symlink_to(catalogue)
    for report in (catalogue, link):
        run = str(tmp_path / "run.trec")
        assert cli("resolve", str(lists), "--dataset", ACL, "-o", run, "--catalogue",
                   str(catalogue), "--report", str(report), "--force") == 2  # fmt: skip
        assert "is the catalogue (--catalogue), which this command reads" in error_of(capsys)
    assert (lists.read_bytes(), catalogue.read_bytes()) == before
    assert not (tmp_path / "run.trec").exists()
    # in Python too: a report is never written over what the resolution read
    resolution = quiet_resolve(lists, ACL, catalogue=catalogue)
    for path in (lists, catalogue):
        with pytest.raises(citeval_irm.InputError, match="which this command reads"):
            resolution.write_report(path.with_suffix(path.suffix))
    assert (lists.read_bytes(), catalogue.read_bytes()) == before


# --------------------------------------------------------------------------- item 8


def csv_lists(folder, text: str, name: str = "lists.csv"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        # an unclosed quote on line 3 swallowed lines 4-6: 2 references read instead of 5
        ('{q},1,a\n{q},2,"unclosed\n{q},3,c\n{q},4,d\n{q},5,"e"\n', "lists.csv:3: not CSV: ',' "
         "expected after '\"' on line 6: the row that starts here runs on to it: is a quote"),
        ('{q},1,a\n{q},2,"unclosed\n{q},3,c\n{q},4,d\n{q},5,e"\n',
         "lists.csv:3: a quoted field runs from line 3 to line 6"),
        ('{q},1,a\n{q},2,"unclosed\n{q},3,c\n', "lists.csv:3: not CSV: unexpected end of data "
         "on line 4: the row that starts here runs on to it: is a quote left open?"),
        ('{q},1,"a"b\n', "lists.csv:2: not CSV: ',' expected after '\"'"),
        ('{q},1,a\n{q},2\n', "lists.csv:3: 2 fields, the header has 3"),
        ('{q},1,' + "x" * 140_000 + '\n', "lists.csv:2: not CSV: field larger than field limit"),
    ],
)  # fmt: skip
def test_no_csv_row_is_lost_or_made_up(query, tmp_path, capsys, rows, problem):
    path = csv_lists(tmp_path, "query_id,rank,reference\n" + rows.format(q=query))
    run = tmp_path / "run.trec"
    assert cli("resolve", str(path), "--dataset", ACL, "-o", str(run)) == 2
    assert problem in error_of(capsys)
    assert not run.exists()


def test_a_quoted_line_break_without_rows_in_it_is_a_field(query, tmp_path):
    path = csv_lists(tmp_path, f'query_id,rank,reference\n{query},1,"GloVe: Global Vectors\n'
                     f'for Word Representation"\n{query},2,An invented one\n')  # fmt: skip
    result = quiet_resolve(path, ACL)
    assert list(result.decisions["how"]) == ["exact", "unmatched"]


def test_a_header_naming_a_column_twice_and_unknown_columns(query, tmp_path, capsys):
    path = csv_lists(tmp_path, f"query_id,rank,reference,reference\n{query},1,a,b\n")
    assert cli("resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "r.trec")) == 2
    assert "lists.csv:1: the header names reference more than once" in error_of(capsys)
    path = csv_lists(tmp_path, f"query_id,rank,reference,model\n{query},1,{GLOVE},gpt\n")
    with pytest.warns(citeval_irm.EvalWarning, match="fields that are none of") as caught:
        citeval_irm.resolve(path, ACL)
    assert [w.message.count for w in caught if w.message.code == "reference_fields_ignored"] == [1]


def test_a_repeated_json_key_is_an_error_not_the_last_value(query, tmp_path, capsys):
    path = tmp_path / "lists.jsonl"
    twice = '{"query_id": "q3", "references": [{"title": "a", "title": "b"}]}\n'
    path.write_text(json.dumps({"query_id": query, "references": [GLOVE]}) + "\n"
                    + f'{{"query_id": "q2", "references": ["{GLOVE}"], "references": []}}\n'
                    + twice)  # fmt: skip
    assert cli("resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "r.trec")) == 2
    assert "lists.jsonl:2: key 'references' is given twice in one object" in error_of(capsys)
    catalogue = tmp_path / "known.jsonl"
    catalogue.write_text('{"title": "A known paper", "title": "Another"}\n')
    good = lists_file(tmp_path, query)
    assert cli("resolve", str(good), "--dataset", ACL, "-o", str(tmp_path / "r.trec"),
               "--catalogue", str(catalogue)) == 2  # fmt: skip
    assert "known.jsonl:1: key 'title' is given twice" in error_of(capsys)


def test_catalogue_rows_are_read_strictly_and_empty_ones_counted(query, tmp_path, capsys):
    good = lists_file(tmp_path, query)
    catalogue = tmp_path / "known.csv"
    catalogue.write_text('title,doi\n"A known paper\nAnother,10.1/x\nThird",\n')
    assert cli("resolve", str(good), "--dataset", ACL, "-o", str(tmp_path / "r.trec"),
               "--catalogue", str(catalogue)) == 2  # fmt: skip
    assert "known.csv:2: a quoted field runs from line 2 to line 4" in error_of(capsys)
    catalogue.write_text("title,doi\nA known paper,\n,\n , \nAnother,10.1/x\n")
    with pytest.warns(citeval_irm.EvalWarning, match="neither a title nor an identifier") as caught:
        citeval_irm.resolve(good, ACL, catalogue=catalogue)
    found = [w.message for w in caught if w.message.code == "catalogue_rows_without_title"]
    assert [(w.count, w.examples) for w in found] == [(2, ("line 3", "line 4"))]


# --------------------------------------------------------------------------- item 9


def test_a_byte_that_is_not_utf8_is_named_by_line_and_column(query, tmp_path, capsys):
    good = json.dumps({"query_id": query, "references": [GLOVE]}).encode()
    jsonl = good + b"\n" + good.replace(query.encode(), b"q2") + b"\n" + (
        b'{"query_id": "q3", "references": ["Caf\xe9"]}\n')  # fmt: skip
    csv = b"query_id,rank,reference\nq,1,a\nq,2,Caf\xe9\n"
    for name, data in [("lists.jsonl", jsonl), ("lists.csv", csv)]:
        path = tmp_path / name
        path.write_bytes(data)
        assert cli("resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "r.trec")) == 2
        err = error_of(capsys)
        assert f"{name}:3: is not UTF-8 text: byte 0xe9 at column" in err, err
    path = tmp_path / "utf16.jsonl"
    path.write_bytes(good.decode().encode("utf-16"))
    assert cli("resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "r.trec")) == 2
    assert "utf16.jsonl: is UTF-16 text" in error_of(capsys)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
def test_a_pipe_a_device_or_a_folder_is_named_as_what_it_is(query, tmp_path, capsys):
    good = lists_file(tmp_path, query)
    fifo = tmp_path / "lists.fifo"
    os.mkfifo(fifo)
    run = str(tmp_path / "r.trec")
    for path, said in [(fifo, "is a pipe (FIFO)"), ("/dev/zero", "is a character device"),
                       (tmp_path, "is a folder, not a file"),
                       (tmp_path / "missing.jsonl", "no such file")]:  # fmt: skip
        assert cli("resolve", str(path), "--dataset", ACL, "-o", run) == 2
        assert f"citeval: error: {path}: {said}" in error_of(capsys)
        assert cli("resolve", str(good), "--dataset", ACL, "-o", run, "--catalogue",
                   str(path)) == 2  # fmt: skip
        assert f"citeval: error: {path}: {said}" in error_of(capsys)


@pytest.mark.parametrize(
    ("keywords", "error", "message"),
    [
        ({"threshold": "90"}, TypeError, r"^threshold: expected a number in \(0, 100\]"),
        ({"threshold": None}, TypeError, "^threshold: expected a number"),
        ({"threshold": True}, TypeError, "^threshold: expected a number"),
        ({"threshold": 150}, ValueError, r"^threshold: 150 is not in \(0, 100\]"),
        ({"threshold": float("nan")}, ValueError, "^threshold: nan is not in"),
        ({"catalogue": 123}, TypeError, "^catalogue: expected the path of a file of titles"),
        ({"generated": 123}, TypeError, "^generated: expected a JSONL or CSV path"),
        ({"dataset": 123}, TypeError, "^dataset: expected an ir_datasets dataset"),
    ],
)
def test_a_bad_argument_is_named(query, keywords, error, message):
    given = {"generated": {"q": [GLOVE]}, "dataset": ACL, **keywords}
    with pytest.raises(error, match=message) as caught:
        citeval_irm.resolve(given.pop("generated"), given.pop("dataset"), **given)
    assert isinstance(caught.value, citeval_irm.InputError)  # the command line says it too
