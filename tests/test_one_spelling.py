"""Issue 43, one way to each thing: the readers' one spelling (``read_run``, ``read_qrels``),
the old ones warning for one release; the one-line repr of a Run and a Qrels; one way to the
numbers of an EvalResult (``result[...]`` warning)."""

from __future__ import annotations

import warnings

import pytest

import citeval_irm

RUN_TEXT = "".join(
    f"q{q} Q0 d{d} {d + 1} {10 - d} bm25\n" for q in range(1, 4) for d in range(4)
)  # 3 queries, 4 docs each
QRELS_TEXT = "q1 0 d0 1\nq2 0 d3 1\nq3 0 d9 1\nq4 0 d1 1\n"  # q4: judged, not ranked


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "bm25.trec", tmp_path / "qrels.txt"
    run.write_text(RUN_TEXT)
    qrels.write_text(QRELS_TEXT)
    return run, qrels


@pytest.mark.parametrize(
    ("old", "new", "which"),
    [("as_run", "read_run", 0), ("as_qrels", "read_qrels", 1)],
)
def test_old_reader_names_warn_naming_the_new_one_and_read_the_same(files, old, new, which):
    path = files[which]
    with pytest.warns(DeprecationWarning) as caught:
        table = getattr(citeval_irm, old)(path)
    [warning] = caught
    assert str(warning.message) == (
        f"citeval_irm.{old} is deprecated and will be removed in the next release; "
        f"use citeval_irm.{new} (the same reader)"
    )
    assert warning.filename == __file__  # at the caller's line, not inside the package
    with warnings.catch_warnings():
        warnings.filterwarnings(  # the new spelling says nothing
            "error", r".* is deprecated and will be removed in the next release", DeprecationWarning
        )
        expected = getattr(citeval_irm, new)(path)
    assert table.to_dict() == expected.to_dict() and table.source == expected.source


def test_as_run_keeps_its_duplicate_policy(tmp_path):
    path = tmp_path / "twice.trec"
    path.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    with pytest.warns(DeprecationWarning, match="use citeval_irm.read_run"):
        run = citeval_irm.as_run(path, duplicates="keep_best")
    assert run.to_dict() == citeval_irm.read_run(path, duplicates="keep_best").to_dict()
    rejected = pytest.raises(citeval_irm.InputError, match=r"twice.trec:2: duplicate")
    with pytest.warns(DeprecationWarning), rejected:
        citeval_irm.as_run(path)


def test_evaluating_through_the_new_names_warns_nothing(files):
    run, qrels = files
    with warnings.catch_warnings():
        # the package's own deprecations (ir_measures' use of ast.Num warns on Python 3.13)
        warnings.filterwarnings(
            "error", r".* is deprecated and will be removed in the next release", DeprecationWarning
        )
        result = citeval_irm.evaluate(run, qrels, "RR nDCG@10")
    assert result.aggregate["RR"] == pytest.approx((1 + 1 / 4 + 0 + 0) / 4)


def test_run_and_qrels_repr_is_one_line_of_what_they_hold(files):
    run, qrels = files
    assert repr(citeval_irm.read_run(run)) == "Run(source='bm25.trec', queries=3, rows=12)"
    assert repr(citeval_irm.read_qrels(qrels)) == "Qrels(source='qrels.txt', queries=4, rows=4)"
    in_memory = citeval_irm.read_qrels({"q1": {"d1": 1}, "q2": {}})  # q2: no judged doc
    assert repr(in_memory) == "Qrels(source='<dict>', queries=2, rows=1)"


def test_repr_of_a_large_run_stays_one_short_line(tmp_path):
    path = tmp_path / "big.trec"
    path.write_text(
        "".join(f"q{q} Q0 d{d} {d + 1} {-d} r\n" for q in range(200) for d in range(50))
    )
    text = repr(citeval_irm.read_run(path))
    assert text == "Run(source='big.trec', queries=200, rows=10000)"


def test_demo_qrels_repr_names_the_dataset():
    qrels = citeval_irm.read_qrels("citeval/demo/test")
    assert repr(qrels) == (
        f"Qrels(source='ir_datasets:citeval/demo/test', queries=163, rows={len(qrels)})"
    )


def test_result_subscript_warns_naming_the_aggregate_series(files):
    run, qrels = files
    result = citeval_irm.evaluate(run, qrels, "MRR HR@1")
    with pytest.warns(DeprecationWarning) as caught:
        value = result["MRR"]  # an alias: the message names the canonical column
    [warning] = caught
    assert str(warning.message) == (
        "EvalResult['MRR'] is deprecated and will be removed in the next release; "
        "use result.aggregate['RR'] (every aggregate, one Series)"
    )
    assert warning.filename == __file__
    assert value == result.aggregate["RR"]
    with pytest.warns(DeprecationWarning, match=r"result.aggregate\['Success@1'\]"):
        assert result["HR@1"] == result.aggregate["Success@1"]
    with pytest.warns(DeprecationWarning), pytest.raises(KeyError, match="was not computed"):
        result["AP"]


def test_bm25_run_takes_progress_in_execution_options_like_every_verb():
    execution = citeval_irm.ExecutionOptions(progress=False)
    expected = citeval_irm.bm25_run("citeval/demo/test", 5, execution=execution)
    with pytest.warns(DeprecationWarning) as caught:
        old = citeval_irm.bm25_run("citeval/demo/test", 5, progress=False)
    [warning] = caught
    assert str(warning.message) == (
        "bm25_run(progress=...) is deprecated and will be removed in the next release; "
        "use bm25_run(execution=ExecutionOptions(progress=...))"
    )
    assert warning.filename == __file__
    assert old.to_dict() == expected.to_dict()
    with pytest.raises(citeval_irm.InputError, match="progress"):
        citeval_irm.bm25_run(
            "citeval/demo/test", execution=citeval_irm.ExecutionOptions(progress="no")
        )


def test_convert_takes_memory_in_execution_options_and_never_overwrites_by_default(tmp_path):
    run = tmp_path / "deep.trec"  # 200 queries x 60 docs: more than 64K of memory holds
    run.write_text(
        "".join(f"q{q} Q0 d{d} {d + 1} {60 - d} bm25\n" for q in range(200) for d in range(60))
    )
    small = citeval_irm.ExecutionOptions(memory="64K")
    folder = citeval_irm.convert(run, tmp_path / "parts", execution=small)
    assert folder.path.is_dir() and folder.rows == 12_000  # streamed: a folder of parts
    assert citeval_irm.convert(run, tmp_path / "whole.parquet").path.is_file()  # it fits
    with pytest.warns(DeprecationWarning, match=r"use convert\(execution=ExecutionOptions"):
        old = citeval_irm.convert(run, tmp_path / "old-parts", memory="64K")
    assert (old.rows, old.queries, old.files) == (folder.rows, folder.queries, folder.files)
    target = tmp_path / "run.parquet"
    target.write_bytes(b"the user's own file")
    with pytest.raises(citeval_irm.InputError, match="run.parquet"):
        citeval_irm.convert(run, target)  # force=False by default, as every verb that writes
    assert target.read_bytes() == b"the user's own file"
    assert citeval_irm.convert(run, target, force=True).rows == 12_000


def test_audit_like_every_verb_assumes_no_paper(demo_home):
    plain = citeval_irm.audit("citeval/demo/test")
    assert plain.protocol is None and set(plain["test"].ceiling) == {"R"}
    paper = citeval_irm.audit("citeval/demo/test", protocol="goyal2026")
    assert paper.protocol == "goyal2026" and {"R@10", "R"} <= set(paper["test"].ceiling)
    assert paper["test"].ceiling["R"] == plain["test"].ceiling["R"]
    assert paper["test"].unreachable == plain["test"].unreachable
