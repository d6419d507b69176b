"""MasterSet-CoreML-v1 through the full loader, on SYNTHETIC Parquet files in its exact
schema: tiers at their thresholds, out-of-pool gold both ways, schema errors naming the
row, evaluation with the masterset2026 protocol and cross-check, downloads, import."""

from __future__ import annotations

import json
from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import (
    MASTERSET_COLUMNS,
    MASTERSET_POOL,
    MASTERSET_QUERIES,
    masterset_rows,
    ms_id,
    ms_ref,
    write_masterset_folder,
    write_parquet,
)
from hub_server import hub  # noqa: F401 (the loopback Hub fixture)

import citeval_irm
from citeval_irm.base.downloads import read_record
from citeval_irm.base.errors import InputError
from citeval_irm.cli import main
from citeval_irm.datasets import (
    MASTERSET_CORPORA,
    DataNotFoundError,
    MasterSetDoc,
    MasterSetQuery,
    MustCiteQrel,
    admissible_candidates,
    import_dataset,
    out_of_pool_gold,
    query_papers,
)
from citeval_irm.datasets import hub as hub_module

MS = "citeval/masterset-coreml-v1"
Q1, Q2, Q3 = ms_id("Q1"), ms_id("Q2"), ms_id("Q3")
P = {f"P{n}": ms_id(f"P{n}") for n in range(1, 9)}
OUT1, OUT2 = ms_id("OUT1"), ms_id("OUT2")


@pytest.fixture
def ms_folder(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch):
    """The fixture files, read in place through CITEVAL_MASTERSET_COREML_V1_DIR."""
    folder = tmp_path / "masterset"
    written = write_masterset_folder(folder)
    monkeypatch.setenv("CITEVAL_MASTERSET_COREML_V1_DIR", str(folder))
    return folder, written


def _qrels(dataset_id: str) -> list[tuple]:
    return [
        (q.query_id, q.doc_id, q.relevance, q.tier, q.in_pool)
        for q in ir_datasets.load(dataset_id).qrels_iter()
    ]


def test_tiers_at_their_thresholds(ms_folder) -> None:
    # Q1: P1 "1.0"/"4.0"/"nan" then again "nan"/"nan"/"5.0"; P2 "0.0"/"3.99"/"3.0";
    # P3 ""/""/"2.99"; an unmatched reference labelled 1.0/5.0/5.0; OUT1 "1.0"/"2.0"/"1.0".
    # Q2: P4 "0.0"/"5.0"/"1.0"; P5 1.0 (a number)/null/"2.0"; OUT2 ""/"4.0"/"". Q3: none.
    assert _qrels(f"{MS}/test/baseline") == [
        (Q1, P["P1"], 1, "baseline", 1),
        (Q1, OUT1, 1, "baseline", 0),
        (Q2, P["P5"], 1, "baseline", 1),
    ]
    assert _qrels(f"{MS}/test/core") == [  # 4.0 is in, 3.99 is not
        (Q1, P["P1"], 1, "core", 1),
        (Q2, P["P4"], 1, "core", 1),
        (Q2, OUT2, 1, "core", 0),
    ]
    assert _qrels(f"{MS}/test/frequent") == [  # 3.0 is in, 2.99 is not; "nan" never
        (Q1, P["P1"], 1, "frequent", 1),
        (Q1, P["P2"], 1, "frequent", 1),
    ]
    assert _qrels(f"{MS}/test/must-cite") == [
        (Q1, P["P1"], 1, "baseline+core+frequent", 1),  # one judgement for two references
        (Q1, P["P2"], 1, "frequent", 1),
        (Q1, OUT1, 1, "baseline", 0),
        (Q2, P["P4"], 1, "core", 1),
        (Q2, P["P5"], 1, "baseline", 1),
        (Q2, OUT2, 1, "core", 0),
    ]
    dataset = ir_datasets.load(f"{MS}/test/core")
    assert dataset.qrels_cls() is MustCiteQrel
    assert "type_2_output >= 4.0" in dataset.qrels_defs()[1]


def test_out_of_pool_gold_both_ways(ms_folder, capfd) -> None:
    kept = _qrels(f"{MS}/test/must-cite")
    dropped = _qrels(f"{MS}/test/must-cite/in-pool")
    assert dropped == [q for q in kept if q[4] == 1]
    assert {q[1] for q in kept} - {q[1] for q in dropped} == {OUT1, OUT2}
    err = capfd.readouterr().err
    assert "gold papers outside the candidate pool, kept" in err
    assert f"{MS}/test/must-cite/in-pool qrels: gold papers outside the candidate pool, " in err
    assert "query papers with no gold paper in this tier (no qrels) (1)" in err  # Q3
    loss = out_of_pool_gold(f"{MS}/test/must-cite")
    assert list(loss.index) == [Q1, Q2, Q3]
    assert loss.loc[Q1].tolist() == [3, 2, 1] and loss.loc[Q2].tolist() == [3, 2, 1]
    assert loss.loc[Q3].tolist() == [0, 0, 0]
    assert (
        out_of_pool_gold(ir_datasets.load(f"{MS}/test/frequent/in-pool"))["out_of_pool"].sum() == 0
    )
    with pytest.raises(InputError, match="not a MasterSet tier dataset"):
        out_of_pool_gold("citeval/acl-200/test")


def test_docs_queries_and_docstore(ms_folder, ir_home: Path) -> None:
    _, written = ms_folder
    corpus = ir_datasets.load(MS)
    docs = list(corpus.docs_iter())
    assert [d.doc_id for d in docs] == [row["paper_id"] for row in written["pool"]]
    assert docs[0] == MasterSetDoc(
        P["P1"],
        "Synthetic title P1",
        "Synthetic abstract of P1.",
        2018,
        "neurips",
        '["Author of P1"]',
    )
    assert corpus.docs_store().get(P["P6"]).year == 2023
    assert (ir_home / "citeval" / "masterset-coreml-v1" / "docs.pklz4").is_dir()

    test = ir_datasets.load(f"{MS}/test/core")
    assert test.queries_cls() is MasterSetQuery
    assert MasterSetQuery._fields == ("query_id", "title", "abstract", "citing_id", "year")
    queries = list(test.queries_iter())
    assert [q.query_id for q in queries] == [Q1, Q2, Q3]  # every query paper, gold or not
    assert queries[0] == MasterSetQuery(
        Q1, "Synthetic title Q1", "Synthetic abstract of Q1.", Q1, 2025
    )
    assert queries[0].default_text() == "Synthetic title Q1 Synthetic abstract of Q1."
    assert query_papers(test) == {q: q for q in (Q1, Q2, Q3)}
    train = ir_datasets.load(f"{MS}/train/baseline")
    assert [q.query_id for q in train.queries_iter()] == [P[f"P{n}"] for n in range(1, 9)]
    assert _qrels(f"{MS}/train/baseline") == [
        (P["P7"], P["P7"], 1, "baseline", 1),  # a paper citing itself: kept, never retrievable
        (P["P8"], P["P1"], 1, "baseline", 1),
    ]


def test_metadata_and_documentation(monkeypatch) -> None:
    monkeypatch.delenv("HF_ENDPOINT", raising=False)  # the Hub's own address, not a mirror
    corpus = ir_datasets.load(MS)
    assert corpus.docs_metadata() == {"count": 67_761}
    test = ir_datasets.load(f"{MS}/test/core/in-pool")
    assert test.metadata()["queries"] == {"count": 7_028}
    assert ir_datasets.load(f"{MS}/train/frequent").queries_metadata() == {"count": 67_761}
    doc = test.documentation()
    assert doc["pretty_name"] == "MasterSet-CoreML-v1"
    assert doc["split"].startswith("Test") and "type_2_output >= 4.0" in doc["tier"]
    assert "dropped" in doc["gold"] and "masterset2026" in doc["official_measures"]
    assert "protocol violation" in doc["queries"]
    assert "gold" not in ir_datasets.load(f"{MS}/test/core").documentation()
    assert MASTERSET_CORPORA["masterset-coreml-v1"].url("eval.parquet") == (
        "https://huggingface.co/datasets/trratul/MasterSet/resolve/main/"
        "data/train_eval_set/v1.0/eval.parquet"
    )


def test_evaluate_with_the_masterset2026_protocol(ms_folder, tmp_path: Path, capsys) -> None:
    run = {
        Q1: {P["P3"]: 0.9, P["P1"]: 0.8, P["P2"]: 0.1},  # core gold P1 at rank 2
        Q2: {P["P4"]: 0.7, P["P5"]: 0.6},  # core gold P4 at 1; OUT2 unreachable
        Q3: {P["P1"]: 0.5},  # no core gold: not a qrels query
    }
    kept = citeval_irm.evaluate(run, f"{MS}/test/core", protocol="masterset2026")
    assert kept.aggregate["RR"] == pytest.approx(0.75)
    assert kept.aggregate["R@10"] == pytest.approx((1 + 0.5) / 2)
    assert {w.code: w.count for w in kept.warnings}["run_only_queries"] == 1
    in_pool = citeval_irm.evaluate(run, f"{MS}/test/core/in-pool", protocol="masterset2026")
    assert in_pool.aggregate["R@10"] == pytest.approx(1.0)
    assert in_pool.aggregate["RR"] == pytest.approx(0.75)

    path = tmp_path / "run.trec"
    citeval_irm.write_run(run, path)
    assert (
        main(["eval", str(path), "--dataset", f"{MS}/test/core", "--protocol", "masterset2026"])
        == 0
    )
    assert "R@10" in capsys.readouterr().out


def test_crosscheck_removes_the_query_paper(ms_folder) -> None:
    # P7 cites itself (baseline) and P2 (core); a run that ranks P7 first for P7
    dataset = f"{MS}/train/must-cite"
    run = {P["P7"]: {P["P7"]: 0.9, P["P2"]: 0.8}, P["P8"]: {P["P1"]: 0.9, P["P6"]: 0.1}}
    report = citeval_irm.crosscheck(
        run, dataset, "RR R@10", recipe="masterset2026", query_papers=query_papers(dataset)
    )
    differing = report.differences.set_index(["query_id", "measure"])
    # trec_eval counts the self-citation at rank 1; the recipe removes the query paper, so
    # P2 moves up (RR unchanged) and recall loses the self-citation (1/2): the query paper
    # was gold, and the script removes it anyway
    assert differing.loc[(P["P7"], "R@10"), "causes"] == "query_paper_gold_removed"
    assert differing.loc[(P["P7"], "R@10"), "recipe"] == pytest.approx(0.5)
    assert report.unexplained == 0


def test_admissible_candidates_exclude_the_query_paper(ms_folder) -> None:
    allowed = admissible_candidates(f"{MS}/train/core", same_year=True)
    assert P["P7"] not in allowed.doc_ids(P["P7"]) and P["P8"] in allowed.doc_ids(P["P7"])
    assert allowed.doc_ids(P["P1"]) == []  # nothing earlier than 2018 but itself
    strict = admissible_candidates(f"{MS}/train/core", same_year=False)
    assert P["P8"] not in strict.doc_ids(P["P7"])
    test = admissible_candidates(f"{MS}/test/core", same_year=False)
    assert len(test.doc_ids(Q1)) == len(MASTERSET_POOL)  # every pool paper is older


# --------------------------------------------------------------------------- schema errors


def _queries_with(folder: Path, *, references: str | None = None, drop: str | None = None):
    rows = masterset_rows(MASTERSET_QUERIES)
    if references is not None:
        rows[1]["references"] = references
    columns = [c for c in MASTERSET_COLUMNS if c != drop]
    write_parquet(folder / "eval.parquet", rows, columns)


@pytest.mark.parametrize(
    ("references", "problem"),
    [
        ('{"matched_paper_id": "x"}', "'references' must be a JSON list, got an object"),
        ("[{", "'references' is not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "'references' is JSON nested too deeply"),
        ("[1]", "reference 0: expected an object, got a number"),
        (
            json.dumps([ms_ref("P1"), ms_ref("P2", t2="high")]),
            "reference 1: type_2_output 'high' is not a number",
        ),
        (json.dumps([ms_ref("P1", t3="inf")]), "reference 0: type_3_output 'inf' is not a number"),
        (
            json.dumps([{"matched_paper_id": 7}]),
            "'matched_paper_id' must be a string, got a number",
        ),
    ],
)
def test_bad_references_name_the_row(ms_folder, references: str, problem: str) -> None:
    folder, _ = ms_folder
    _queries_with(folder, references=references)
    with pytest.raises(InputError) as info:
        list(ir_datasets.load(f"{MS}/test/core").qrels_iter())
    message = str(info.value)
    assert message.startswith(str(folder / "eval.parquet"))
    assert f"row index 1 (paper_id '{Q2}')" in message and problem in message


def test_missing_column_is_an_error(ms_folder) -> None:
    folder, _ = ms_folder
    _queries_with(folder, drop="venue")
    with pytest.raises(InputError, match=r"eval\.parquet: missing column\(s\) venue; the file has"):
        list(ir_datasets.load(f"{MS}/test/core").queries_iter())
    (folder / "eval.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        list(ir_datasets.load(f"{MS}/test/core").queries_iter())


def test_bad_pool_rows(ms_folder) -> None:
    folder, _ = ms_folder
    rows = masterset_rows(MASTERSET_POOL)
    rows[3]["paper_id"] = rows[1]["paper_id"]
    write_parquet(folder / "train.parquet", rows)
    with pytest.raises(
        InputError, match=rf"row index 3 \(paper_id '{P['P2']}'\): the paper_id occurs"
    ):
        list(ir_datasets.load(MS).docs_iter())
    rows = masterset_rows(MASTERSET_POOL)
    rows[2]["title"], rows[2]["year"] = None, None
    write_parquet(folder / "train.parquet", rows)
    doc = ir_datasets.load(MS).docs_store().get(P["P3"])
    assert (doc.title, doc.year) == ("", None)


@pytest.mark.parametrize("year", [float("inf"), float("-inf")])
@pytest.mark.parametrize(("file", "what"), [("train.parquet", "docs"), ("eval.parquet", "queries")])
def test_an_infinite_year_is_an_error_naming_the_row(ms_folder, capsys, year, file, what) -> None:
    """A float ``year`` column holding an infinity: not a whole number, so an error naming
    the file and the row as any other bad year (NaN is the unknown year), not an
    OverflowError."""
    folder, _ = ms_folder
    rows = masterset_rows(MASTERSET_POOL if file == "train.parquet" else MASTERSET_QUERIES)
    rows[1]["year"] = year
    write_parquet(folder / file, rows, year_type="float64")
    dataset_id = MS if what == "docs" else f"{MS}/test/core"
    assert main(["datasets", "export", dataset_id, what]) == 2
    err = capsys.readouterr().err
    (line,) = [e for e in err.splitlines() if e.startswith("citeval: error:")]
    assert str(folder / file) in line and f"row index 1 (paper_id '{rows[1]['paper_id']}')" in line
    assert f"'year' must be a whole number, got {year!r}" in line and "Traceback" not in err


# --------------------------------------------------------------------------- downloads, import


def test_download_and_missing_file(
    hub,  # noqa: F811 (the loopback Hub)
    tmp_path: Path,
    ir_home: Path,
) -> None:
    served = tmp_path / "served"
    write_masterset_folder(served)
    folder = "data/train_eval_set/v1.0"
    hub.revision = "main"
    hub.repos["trratul/MasterSet"] = {
        f"{folder}/train.parquet": (served / "train.parquet").read_bytes()
    }
    dataset = ir_datasets.load(f"{MS}/test/core")
    with pytest.raises(DataNotFoundError) as info:
        list(dataset.queries_iter())
    message = " ".join([str(info.value), *info.value.details])
    for needle in (
        "eval.parquet not found in",
        f"{hub.endpoint}/datasets/trratul/MasterSet/tree/main/{folder}",
        "(host not verified)",
        f"the repository holds: {folder}/train.parquet",
        "citeval import masterset-coreml-v1 DIR",
        "CITEVAL_MASTERSET_COREML_V1_DIR",
    ):
        assert needle in message
    assert hub.gets() == []
    hub.repos["trratul/MasterSet"][f"{folder}/eval.parquet"] = (
        served / "eval.parquet"
    ).read_bytes()
    hub_module._LISTINGS.clear()
    assert len(list(dataset.qrels_iter())) == 3
    installed = ir_home / "citeval" / "masterset-coreml-v1"
    for name in ("train.parquet", "eval.parquet"):
        origin = f"{hub.endpoint}/datasets/trratul/MasterSet/resolve/main/{folder}/{name}"
        assert read_record(installed / name)["origin"] == origin
        assert read_record(installed / name)["published"].startswith("sha256:")
    transfers = list(hub.gets())
    assert len(list(dataset.queries_iter())) == 3 and hub.gets() == transfers


def test_an_empty_tier_is_an_error_naming_the_likely_cause(tmp_path: Path, ir_home, monkeypatch):
    """A release built with the toolkit's 3-add-three-labels.py has type_2_output "" in
    every reference: its core tier is empty, an error at load (not an INFO line)."""

    def blank_core(papers):
        return [
            (name, year, [{**ref, "type_2_output": ""} for ref in refs])
            for name, year, refs in papers
        ]

    folder = tmp_path / "no-core"
    write_masterset_folder(folder, blank_core(MASTERSET_POOL), blank_core(MASTERSET_QUERIES))
    monkeypatch.setenv("CITEVAL_MASTERSET_COREML_V1_DIR", str(folder))
    with pytest.raises(InputError) as info:
        list(ir_datasets.load(f"{MS}/test/core").qrels_iter())
    message = str(info.value)
    assert message.startswith(f"{MS}/test/core: the core tier is empty: none of the 3 query")
    assert "3-add-three-labels.py" in message and "line 78" in message
    assert len(list(ir_datasets.load(f"{MS}/test/baseline").qrels_iter())) == 3
    assert main(["eval", "--dataset", f"{MS}/test/core", "-m", "R@10", str(folder / "x")]) == 2


def test_import_folder(tmp_path: Path, ir_home: Path, capsys) -> None:
    folder = tmp_path / "by-hand"
    write_masterset_folder(folder, queries=[*MASTERSET_QUERIES, ("P8", 2024, [])])
    assert main(["import", "masterset-coreml-v1", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "not the published MasterSet-CoreML-v1: pool papers 8 (published 67,761)" in err
    assert main(["import", "masterset-coreml-v1", str(folder), "--allow-count-mismatch"]) == 0
    out = capsys.readouterr().out
    for line in (
        "pool papers: 8 (published 67,761)",
        "query papers: 4 (published 7,028)",
        "test baseline gold: 3",
        "test baseline gold outside the pool: 1",
        "test must-cite gold: 6",
        "query papers that are also in the candidate pool (1)",
    ):
        assert line in out
    assert [q.query_id for q in ir_datasets.load(f"{MS}/test/core").queries_iter()][-1] == P["P8"]
    bad = tmp_path / "bad"
    write_masterset_folder(bad)
    _queries_with(bad, references=json.dumps([ms_ref("P1", t1="yes")]))
    with pytest.raises(InputError, match=rf"row index 1 \(paper_id '{Q2}'\), reference 0: type_1"):
        import_dataset("masterset-coreml-v1", bad, allow_count_mismatch=True)
    (bad / "eval.parquet").unlink()
    with pytest.raises(InputError, match="missing eval.parquet"):
        import_dataset("masterset-coreml-v1", bad)
