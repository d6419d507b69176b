"""Every CSV file a user gives (a ``table`` manifest, a ``--catalogue``, generated lists, a
published table of their own) is read by the one CSV reading, ``base.texts.CsvRows``
(issue 41, item 6): a field over the :mod:`csv` module's limit, an unclosed quote or a
row of another length is one ``citeval: error:`` line naming the file and the line, never
``_csv.Error``. The files are GENERATED."""

from __future__ import annotations

from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.base.texts import CsvRows, csv_records
from citeval_irm.cli import main

LONG = "x" * 140_000  # over the csv module's 131,072 characters


def error_of(capsys, *args) -> str:
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "_csv.Error" not in err
    return err


def test_a_manifest_field_over_the_limit(tmp_path: Path, capsys) -> None:
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(f"system,dataset,run\nbm25,citeval/demo/test,{LONG}\n")
    err = error_of(capsys, "table", manifest, "-m", "RR", "-q")
    assert f"{manifest}:2: not CSV: field larger than field limit (131072)" in err


def test_a_manifest_with_an_unclosed_quote_names_its_line(tmp_path: Path, capsys) -> None:
    manifest = tmp_path / "manifest.csv"
    manifest.write_text('system,dataset,run\n"bm25,citeval/demo/test,a.trec\nb,c,d\n')
    err = error_of(capsys, "table", manifest, "-m", "RR", "-q")
    assert f"{manifest}:2: " in err and "quote" in err


def test_a_catalogue_field_over_the_limit(demo_home: Path, tmp_path: Path, capsys) -> None:
    generated = tmp_path / "generated.jsonl"
    generated.write_text('{"query_id": "q", "references": ["a title"]}\n')
    catalogue = tmp_path / "catalogue.csv"
    catalogue.write_text(f"title\nA known title\n{LONG}\n")
    err = error_of(capsys, "resolve", generated, "--dataset", "citeval/demo/test",
                   "-o", tmp_path / "o.trec", "--catalogue", catalogue, "-q")  # fmt: skip
    assert f"{catalogue}:3: not CSV: field larger than field limit" in err
    assert not (tmp_path / "o.trec").exists()


def test_a_users_published_table_field_over_the_limit(tmp_path: Path, capsys) -> None:
    table = tmp_path / "mine.csv"
    table.write_text(
        "dataset,setting,stage,system,measure,value,source\n"
        f"ACL-200,inductive,end-to-end,BM25,RR,10.5,{LONG}\n"
    )
    err = error_of(capsys, "published", "--paper", table)
    assert f"{table}:2: not CSV: field larger than field limit" in err
    table.write_text(
        "dataset,setting,stage,system,measure,value,source\nACL-200,inductive,end-to-end,BM25\n"
    )
    with pytest.raises(citeval_irm.InputError, match=r"mine.csv:2: 4 fields, the header has 7"):
        citeval_irm.published(paper=str(table))


def test_records_keep_their_lines(tmp_path: Path) -> None:
    """The line a record starts on, past comments and blank lines, and a quoted field over
    two lines; the delimiter from the first line."""
    path = tmp_path / "rows.tsv"
    path.write_text('a\tb\n# a comment\n\n1\t"two\nlines"\n3\t4\n')
    records = list(csv_records(path, skip=lambda line: line.startswith("#")))
    assert records == [(1, ["a", "b"]), (4, ["1", "two\nlines"]), (6, ["3", "4"])]
    rows = CsvRows(path, ("a",), skip=lambda line: line.startswith("#"))
    assert rows.header == ["a", "b"] and list(rows)[-1] == (6, {"a": "3", "b": "4"})
