"""The cross-check reads a run through the same sources of chunks as ``evaluate``: a run
larger than ``memory=`` is cross-checked a chunk of whole queries at a time (sorted out of
core first when it is not grouped by query), with the report of the run read whole."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_streaming import TINY, citation_run

import citeval_irm
from citeval_irm.base.options import EvalOptions, parse_memory
from citeval_irm.papers import RECIPES
from citeval_irm.reading.chunks import iter_run_chunks
from citeval_irm.reading.streaming import plan_reading
from citeval_irm.reading.tables import RunningCodes

crosscheck_module = importlib.import_module("citeval_irm.checks.crosscheck")  # not the function


def _blocks(lines: list[str]) -> list[list[str]]:
    """The lines of a grouped run, one list per query."""
    out: list[list[str]] = []
    for line in lines:
        if out and out[-1][0].split()[0] == line.split()[0]:
            out[-1].append(line)
        else:
            out.append([line])
    return out


@pytest.fixture
def quirky(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A generated run with what every recipe reacts to: ties, duplicates (a doc listed
    twice, some near the end of a query, so next to a chunk border), the query's own paper
    in its ranking, gold papers outside the pool, run-only and missing queries, a query
    without a relevant doc; its qrels, and the pool."""
    run, qrels = citation_run(tmp_path, queries=200)
    blocks = _blocks(run.read_text().splitlines())
    for number, block in enumerate(blocks):
        query, _, doc, rank, score, _ = block[-1].split()
        if number % 4 == 0:  # the last doc again, lower: a duplicate at the query's end
            block.append(f"{query} Q0 {doc} {int(rank) + 1} {float(score) - 0.5} dup")
        if number % 3 == 0:  # the citing paper ranked, tied with the doc above it
            citing = query.split("_")[0]
            _, _, _, _, above, _ = block[2].split()
            block.insert(3, f"{query} Q0 {citing} 3 {above} own")
    run.write_text("\n".join(line for block in blocks for line in block) + "\n")
    judged = [line.split() for line in qrels.read_text().splitlines()]
    gold = sorted({doc for _, _, doc, label in judged if int(label) > 0})
    ranked = {line.split()[2] for block in blocks for line in block}
    pool = sorted((ranked | {doc for _, _, doc, _ in judged}) - set(gold[::5]))
    return run, qrels, pool


def same_report(a, b) -> None:
    """Every table and warning of two cross-check reports, value for value."""
    for name in ("summary", "differences", "causes", "tie_queries", "crashes"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    pd.testing.assert_frame_equal(a.recipe_per_query, b.recipe_per_query, check_exact=True)
    assert [w.to_dict() for w in a.warnings] == [w.to_dict() for w in b.warnings]
    assert a.unexplained == b.unexplained


@pytest.mark.parametrize("slice_rows", [None, 40])
@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_streamed_crosscheck_equals_in_memory(quirky, recipe, slice_rows, monkeypatch):
    """Also with the chunks coded in slices of whole queries (``slice_rows``), their
    dictionaries listing a doc more than once: the query's own paper, dropped by the
    recipes that drop it, is found by its id in its query, under whichever code."""
    run, qrels, pool = quirky
    plan = plan_reading(run, TINY)
    assert plan.stream and not plan_reading(run).stream
    if slice_rows:
        monkeypatch.setattr(RunningCodes, "SLICE_ROWS", slice_rows)
        chunks = list(
            iter_run_chunks(run, plan.chunk_rows, duplicates="keep_all", block_size=plan.block_size)
        )
        assert any(len(set(c.doc_ids.to_pylist())) < len(c.doc_ids) for c in chunks)
    with warnings.catch_warnings(record=True) as whole_said:
        warnings.simplefilter("always")
        whole = citeval_irm.crosscheck(run, qrels, recipe=recipe, pool=pool)
    with warnings.catch_warnings(record=True) as streamed_said:
        warnings.simplefilter("always")
        streamed = citeval_irm.crosscheck(
            run,
            qrels,
            recipe=recipe,
            pool=pool,
            execution=citeval_irm.ExecutionOptions(memory=TINY),
        )
    same_report(whole, streamed)
    assert [str(w.message) for w in whole_said] == [str(w.message) for w in streamed_said]
    assert len(whole.differences) and len(whole.tie_queries)
    codes = {w.code for w in streamed.warnings}
    assert {"duplicate_docs_kept", "run_only_queries", "missing_queries"} <= codes


def test_an_ungrouped_run_is_sorted_out_of_core_and_cross_checked(quirky):
    run, qrels, pool = quirky
    lines = run.read_text().splitlines()
    moved = lines[:100] + lines[400:] + lines[100:400]  # the ends of early queries last
    mixed = run.with_name("mixed.trec")
    mixed.write_text("\n".join(moved) + "\n")
    for recipe in ("goyal2026", "symtax"):
        whole = citeval_irm.crosscheck(mixed, qrels, recipe=recipe, pool=pool)
        streamed = citeval_irm.crosscheck(
            mixed,
            qrels,
            recipe=recipe,
            pool=pool,
            execution=citeval_irm.ExecutionOptions(memory=TINY),
        )
        note = [w for w in streamed.warnings if w.code == "run_sorted"]
        assert len(note) == 1 and "DuckDB" in note[0].message
        streamed.warnings = [w for w in streamed.warnings if w.code != "run_sorted"]
        same_report(whole, streamed)


def test_a_run_far_above_memory_is_never_read_whole(tmp_path, monkeypatch):
    """The chunks the cross-check scores are each a small part of a run 20 times larger
    than the memory allowed."""
    run, qrels = citation_run(tmp_path, queries=200, depth=150)
    assert run.stat().st_size > 20 * parse_memory(TINY)
    seen: list[int] = []
    check_chunk = crosscheck_module.check_chunk

    def counting(raw, check):
        seen.append(len(raw))
        return check_chunk(raw, check)

    monkeypatch.setattr(crosscheck_module, "check_chunk", counting)
    citeval_irm.crosscheck(
        run, qrels, recipe="goyal2026", execution=citeval_irm.ExecutionOptions(memory=TINY)
    )
    rows = sum(1 for _ in run.open())
    assert sum(seen) == rows and len(seen) >= 15 and max(seen) < rows / 10
    seen.clear()
    citeval_irm.crosscheck(run, qrels, recipe="goyal2026")
    assert seen == [rows]  # it fits: one chunk, the whole run


def test_crosscheck_takes_the_reading_options_only(quirky):
    run, qrels, _ = quirky
    plain = citeval_irm.crosscheck(run, qrels, recipe="goyal2026")
    given = citeval_irm.crosscheck(  # the tie policy and duplicates are the sides' own
        run,
        qrels,
        recipe="goyal2026",
        options=citeval_irm.EvalOptions(ties="run_order", duplicates="keep_best"),
    )
    assert given.to_dict() == plain.to_dict()
    with pytest.raises(TypeError, match="unexpected keyword argument 'memory'"):
        citeval_irm.crosscheck(run, qrels, recipe="goyal2026", memory="1M")
    with pytest.raises(citeval_irm.InputError, match="max_docs"):
        citeval_irm.crosscheck(run, qrels, recipe="goyal2026", options=EvalOptions(max_docs=10))
    report = citeval_irm.crosscheck(
        run, qrels, recipe="duallcr", execution=citeval_irm.ExecutionOptions(engine="pytrec_eval")
    )
    assert np.isfinite(report.summary["trec_eval"]).all()


def test_the_crosscheck_command_streams_with_memory(quirky, capsys, monkeypatch):
    """``citeval crosscheck --memory``: the run in chunks (counted), the same output."""
    from test_cli_options import run_cli

    run, qrels, _ = quirky
    chunks: list[int] = []
    real = crosscheck_module.check_chunk
    monkeypatch.setattr(
        crosscheck_module,
        "check_chunk",
        lambda chunk, *a, **k: chunks.append(1) or real(chunk, *a, **k),
    )
    args = (
        "crosscheck",
        str(run),
        "--qrels",
        str(qrels),
        "--recipe",
        "duallcr",
        "--format",
        "json",
    )
    whole = run_cli(capsys, *args)
    read_whole = len(chunks)
    streamed = run_cli(capsys, *args, "--memory", TINY)
    assert read_whole == 1 and len(chunks) - read_whole > 5
    assert streamed == whole and whole[0] == 0


@pytest.mark.parametrize("memory", [None, TINY])
def test_what_reading_says_is_said_once(quirky, memory):
    """Text after the 6th column and comment lines: one warning each in the cross-check,
    counted over the whole run, read whole or in chunks (not again from the trec_eval side)."""
    run, qrels, _ = quirky
    lines = run.read_text().splitlines()
    lines = ["# made by a test"] + [
        line + " extra" if i % 7 == 0 else line for i, line in enumerate(lines)
    ]
    run.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = citeval_irm.crosscheck(
            run, qrels, recipe="duallcr", execution=citeval_irm.ExecutionOptions(memory=memory)
        )
    codes = [w.code for w in report.warnings]
    assert codes.count("run_extra_text") == 1 and codes.count("run_comment_lines") == 1
    extra = next(w for w in report.warnings if w.code == "run_extra_text")
    assert extra.count == len(range(1, len(lines), 7))
