"""``citeval datasets lookup ID --qid QID`` (issue 41, item 9): ir_datasets' lookup asks the
dataset for a queries store, which none of ir_datasets' datasets has; a citeval dataset
answers it (the queries by id, read once), so a query is printed as ir_datasets prints a
doc, and an unknown id is ir_datasets' "not found" warning, never ``AttributeError``."""

from __future__ import annotations

from pathlib import Path

from citeval_irm.cli import main

QUERY = "C15-1988_Q09-1593_0"  # a query of the demo split (in the package's demo files)


def test_a_query_is_looked_up_by_its_id(demo_home: Path, capfd) -> None:
    assert main(["datasets", "lookup", "citeval/demo/test", "--qid", QUERY, "no-such-query"]) == 0
    out, err = capfd.readouterr()
    rows = out.splitlines()
    assert len(rows) == 1 and rows[0].split("\t")[0] == QUERY and "TARGETCIT" in rows[0]
    assert "query_id no-such-query not found" in err and "Traceback" not in err


def test_a_doc_is_still_looked_up_by_its_id(demo_home: Path, capfd) -> None:
    assert main(["datasets", "lookup", "citeval/demo/test", "Q09-1593"]) == 0
    out, err = capfd.readouterr()
    assert out.split("\t")[0] == "Q09-1593" and "Traceback" not in err
