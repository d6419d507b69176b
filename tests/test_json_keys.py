"""A JSON key given twice in one object is refused by every JSON reading of the package
(issue 41, item 11): JSON readers keep the last value silently, so a context with
``"citing_id"`` twice would be imported as the second paper's without a word. The corpus
files streamed by ijson (``citeval import``), a MasterSet ``references`` cell, generated
lists and catalogues (JSONL) and a published table's sidecar all read JSON through
``base.texts``. The files are GENERATED."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeval_irm.base.errors import InputError
from citeval_irm.base.texts import json_lines, json_value
from citeval_irm.cli import main
from citeval_irm.datasets.jsonstream import iter_array, iter_object

NAME = "fulltextpeerread"
PER_SPLIT = 6


@pytest.fixture
def folder(importable_folder):
    """A good HAtten folder, imported as FullTextPeerRead (``importable_folder``)."""
    return importable_folder


def test_a_context_with_citing_id_twice_is_not_imported(folder, ir_home: Path, capsys) -> None:
    path, written = folder
    contexts = written["contexts"]
    first = next(iter(contexts))
    record = json.dumps(contexts[first])
    twice = record[:-1] + ', "citing_id": "X98-9001"}'
    text = json.dumps(contexts).replace(record, twice, 1)
    assert twice in text
    (path / "contexts.json").write_text(text, "utf-8")
    assert main(["import", NAME, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and err.count("\n") == 1, err
    assert f"contexts.json: record 1 ('{first}'): key 'citing_id' is given twice" in err
    assert not (ir_home / "citeval" / NAME).exists()  # nothing installed


def test_a_repeated_key_deep_in_a_streamed_record(tmp_path: Path) -> None:
    objects = tmp_path / "objects.json"
    objects.write_text('{"a": {"x": 1}, "b": {"y": [{"z": 1, "z": 2}]}}')
    with pytest.raises(InputError, match=r"objects\.json: record 2 \('b'\): key 'z' is given"):
        list(iter_object(objects))
    items = tmp_path / "items.json"
    items.write_text('[{"context_id": "c1"}, {"context_id": "c2", "context_id": "c3"}]')
    with pytest.raises(InputError, match=r"items\.json: record 2: key 'context_id' is given"):
        list(iter_array(items))
    items.write_text('[{"context_id": "c1", "positive_ids": ["p"]}]')
    assert list(iter_array(items)) == [{"context_id": "c1", "positive_ids": ["p"]}]


def test_every_reading_of_json_refuses_a_repeated_key(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"src:3: key 'a' is given twice in one object"):
        json_value('{"a": 1, "b": {"c": 2}, "a": 3}', "src", 3)
    with pytest.raises(InputError, match=r"'references' gives key 't' twice"):
        json_value('[{"t": "x", "t": "y"}]', "src", what="'references'")
    lines = tmp_path / "lists.jsonl"
    lines.write_text('{"query_id": "q1", "references": []}\n{"query_id": "q", "query_id": "r"}\n')
    with pytest.raises(InputError, match=r"lists\.jsonl:2: key 'query_id' is given twice"):
        list(json_lines(lines))


def test_a_masterset_references_cell_with_a_repeated_key() -> None:
    from citeval_irm.datasets.formats.masterset import parse_references
    from citeval_irm.datasets.jsonstream import Notes

    cell = json.dumps([{"paper_id": "a", "label": 1}])[:-2] + ', "label": 2}]'
    with pytest.raises(InputError, match="'references' gives key 'label' twice"):
        parse_references(Path("refs.parquet"), 1, "p1", cell, Notes({}))
