"""Every public result prints in one short line, scipy's way (``repr``), and keeps its full
tables for ``str`` / ``format()``: what a notebook or a REPL shows first is a summary, not
pages of a DataFrame's repr (issue 30)."""

from __future__ import annotations

import inspect

import pytest

import citeval_irm
from citeval_irm.printing.printable import (
    REPR_LIMIT,
    Printable,
    Shown,
    file_name,
    short_repr,
)

DEMO = "citeval/demo/test"
FAST = citeval_irm.StatisticsOptions(permutations=500, bootstrap=200)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One of each public result, made by the public verbs on the demo dataset."""
    folder = tmp_path_factory.mktemp("runs")
    bm25 = citeval_irm.write_run(citeval_irm.bm25_run(DEMO), folder / "bm25.trec")
    titles = citeval_irm.bm25_run(DEMO, fields=("title",))
    titles = citeval_irm.write_run(titles, folder / "titles.trec")
    runs = {"bm25": bm25, "titles": titles}
    comparison = citeval_irm.compare(runs, DEMO, protocol="goyal2026", statistics=FAST)
    rows = [{"system": name, "dataset": DEMO, "run": str(run)} for name, run in runs.items()]
    return {
        "EvalResult": citeval_irm.evaluate(bm25, DEMO, protocol="goyal2026"),
        "Comparison": comparison,
        "CrosscheckReport": citeval_irm.crosscheck(bm25, DEMO, protocol="goyal2026"),
        "ValidationReport": citeval_irm.validate(bm25, DEMO),
        "Breakdown": citeval_irm.breakdown(runs, DEMO, "RR", by="year", statistics=FAST),
        "ResultsTable": citeval_irm.results_table(rows, baseline="bm25", statistics=FAST),
        "PublishedResults": citeval_irm.published("ACL-200"),
        "PublishedComparison": citeval_irm.compare_published(comparison, runs, dataset="ACL-200"),
        "PublishedCheck": citeval_irm.check_published("arXiv"),
        "DatasetAudit": citeval_irm.audit(DEMO),
        "Report": citeval_irm.make_report(runs, DEMO, protocol="goyal2026", statistics=FAST),
    }


def public_results() -> list[str]:
    """The public names of the classes the verbs return (those with a format or a write)."""
    names = []
    for name, module in citeval_irm._EXPORTS.items():
        value = getattr(citeval_irm, name) if module else None
        if inspect.isclass(value) and (issubclass(value, Printable) or name == "Report"):
            names.append(name)
    return names


def test_every_public_result_is_made_here(results):
    # Resolution (generated reference lists) has its own one-line repr test in test_resolve
    assert set(public_results()) - {"Resolution"} == set(results)


@pytest.mark.parametrize("name", sorted(set(public_results()) - {"Resolution"}))
def test_repr_is_one_short_line_naming_its_class(results, name):
    text = repr(results[name])
    assert "\n" not in text, text
    assert len(text) < REPR_LIMIT, (len(text), text)
    assert text.startswith(f"{name}(") and text.endswith(")"), text


def test_the_repr_says_what_matters(results):
    """scipy's way: the facts, then the numbers (``EvalResult(run=..., RR=0.3003, ...)``)."""
    result = results["EvalResult"]
    assert repr(result).startswith(
        f"EvalResult(run='bm25.trec', queries={result.num_queries}, measures=11, "
        f"RR={result.aggregate['RR']:.4f}, "
    )
    comparison = results["Comparison"]
    marked = int(comparison.pairs["significant"].sum())
    assert repr(comparison) == (
        f"Comparison(runs=['bm25', 'titles'], queries={comparison.num_queries}, measures=11, "
        f"test='randomisation', significant={marked} of {len(comparison.pairs)})"
    )


def test_str_and_format_keep_the_full_tables(results):
    for name in ("EvalResult", "Comparison", "CrosscheckReport", "ResultsTable"):
        result = results[name]
        assert str(result) == result.format() and str(result).count("\n") > 5, name
    # a notebook shows a table, not the one line
    for name in sorted(set(results) - {"Report"}):
        assert "<table" in results[name]._repr_html_(), name


def test_a_long_summary_is_cut_at_the_limit():
    facts = {"run": "x" * 50, **{f"M@{k}": k / 1000 for k in range(100)}, "done": Shown("yes")}
    text = short_repr("EvalResult", facts)
    assert len(text) <= REPR_LIMIT and text.endswith(", ...)")
    assert text.startswith("EvalResult(run='" + "x" * 50 + "', M@0=0.0000, M@1=0.0010")
    assert (
        short_repr("A", {"n": 3, "s": "a\nb", "ok": Shown("2 of 3")})
        == "A(n=3, s='a b', ok=2 of 3)"
    )


def test_a_source_is_named_by_its_file_name():
    assert file_name("/data/runs/bm25.trec") == "bm25.trec" and file_name("<run>") == "<run>"
    assert file_name("https://h/x.parquet") == "https://h/x.parquet"
    assert file_name("ir_datasets:citeval/demo/test") == "ir_datasets:citeval/demo/test"


@pytest.mark.parametrize("name", sorted(set(public_results()) - {"Resolution", "Report"}))
def test_every_result_has_to_frame_with_one_meaning(results, name):
    """``to_frame()``: per query where the result holds per-query values, else one row per
    what it reports; ``to_dataframe`` / ``kind=`` are gone."""
    import pandas as pd

    result = results[name]
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0, name
    assert not hasattr(result, "to_dataframe"), name
    assert list(inspect.signature(type(result).to_frame).parameters) in (
        ["self"],
        ["self", "percent"],
    )
    if name == "EvalResult":
        assert list(frame.index) == [*result.query_ids, "all"]
        assert frame.at["all", "RR"] == pytest.approx(
            100 * result.aggregate["RR"]
        )  # goyal2026: percent
    if name == "Comparison":
        assert frame.index.name == "query_id" and len(frame) == result.num_queries
    if name == "CrosscheckReport":
        assert len(frame) == 11
    if name == "ValidationReport":
        assert "check" in frame.columns
