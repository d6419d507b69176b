"""Measures outside the table, handed to ir-measures' providers: ids they cannot take.

gdeval (``ERR@k``; ir-measures' ``nDCG(dcg='exp-log2')@k`` too, which the measure table
now computes) is a perl script that takes numeric ids only; citation-context ids such as
``P15-1001_N04-1019_0`` made it fail with "format error". ``evaluate`` hands numbered ids
over and maps the values back. gdeval prints five decimals: the table's exp-log2 nDCG
equals its value to those.
"""

from __future__ import annotations

import shutil

import ir_measures
import pytest

from citeval_irm import evaluate

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")

# ACL Anthology ids, as the citation-recommendation corpora have them
QRELS = {
    "P15-1001_N04-1019_0": {"N04-1019": 1, "P02-1040": 0},
    "P15-1001_W04-3250_1": {"W04-3250": 2, "J93-2004": 1},
    "D19-1410_P18-1031_3": {"P18-1031": 1},
}
RUN = {
    "P15-1001_N04-1019_0": {"N04-1019": 3.0, "P02-1040": 2.0, "J93-2004": 1.0},
    "P15-1001_W04-3250_1": {"P02-1040": 2.0, "W04-3250": 1.5, "J93-2004": 0.5},
    "D19-1410_P18-1031_3": {"N04-1019": 1.0, "P18-1031": 0.5, "W04-3250": 0.2},
}
MEASURES = [ir_measures.ERR @ 10, ir_measures.nDCG(dcg="exp-log2") @ 10]


def test_gdeval_measures_on_acl_ids_match_gdeval_on_numbers():
    result = evaluate(RUN, QRELS, [*MEASURES, ir_measures.RR])
    # gdeval itself, on the same data with ids numbered by hand
    number = {d: str(i) for i, d in enumerate(sorted({d for v in RUN.values() for d in v}))}
    qrels = {str(i): {number[d]: g for d, g in QRELS[q].items()} for i, q in enumerate(QRELS)}
    run = {str(i): {number[d]: s for d, s in RUN[q].items()} for i, q in enumerate(QRELS)}
    want = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)
    }
    for i, query in enumerate(QRELS):
        for measure in MEASURES:
            assert result.per_query.loc[query, str(measure)] == pytest.approx(
                want[(str(i), str(measure))], abs=5.001e-6
            )
    assert result.per_query.index.tolist() == list(QRELS)
    assert result.per_query["ERR@10"].gt(0).all()  # every query found its relevant doc


def test_cli_computes_err_on_acl_ids(tmp_path, capsys):
    from citeval_irm.cli import main

    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    run.write_text(
        "".join(
            f"{q} Q0 {d} {r} {s} sys\n"
            for q, docs in RUN.items()
            for r, (d, s) in enumerate(docs.items(), 1)
        )
    )
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    assert (
        main(["eval", str(run), "--qrels", str(qrels), "-m", "ERR@10 RR", "--format", "json"]) == 0
    )
    assert '"ERR@10"' in capsys.readouterr().out
