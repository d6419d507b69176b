"""The options split by what they are about: ``EvalOptions`` is what a number means
(recorded in every result), ``ExecutionOptions`` how it is computed (it never changes a
number and never travels inside a result), and ``percent`` / ``decimals`` only how it
prints (keywords of ``format()`` / ``to_frame()``)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import citeval_irm
from citeval_irm import EvalOptions, ExecutionOptions

RUN = "".join(
    f"q{q} Q0 d{d} {r + 1} {10 - r - (d % 2)}.0 t\n"
    for q in range(1, 6)
    for r, d in enumerate(range(q, q + 8))
)
QRELS = "q1 0 d1 1\nq2 0 d4 1\nq3 0 d9 1\nq4 0 d5 2\nq5 0 dx 1\nq6 0 d2 1\n"
MEASURES = "RR P@5 nDCG@10 R@5"
WAYS = {
    "citeval": ExecutionOptions(),
    "pytrec_eval": ExecutionOptions(engine="pytrec_eval"),
    "verify": ExecutionOptions(verify=True),
    "streamed": ExecutionOptions(memory="1K", progress=False),
    "large": ExecutionOptions(memory="4G", progress=True),
}


@pytest.fixture
def files(write):
    return str(write("run.trec", RUN)), str(write("qrels.txt", QRELS))


def test_each_object_holds_one_kind_of_option():
    meaning = {f.name for f in dataclasses.fields(EvalOptions)}
    execution = {f.name for f in dataclasses.fields(ExecutionOptions)}
    assert meaning == {"ties", "duplicates", "empty_queries", "max_docs"}
    assert execution == {"engine", "verify", "memory", "scheduler", "progress", "jobs"}
    assert not {"percent", "decimals"} & (meaning | execution)
    assert "ExecutionOptions" in citeval_irm._EXPORTS


@pytest.mark.parametrize("options", [EvalOptions(), EvalOptions(ties="run_order", max_docs=4)])
def test_execution_never_changes_a_number(files, options):
    run, qrels = files
    with pytest.warns(citeval_irm.EvalWarning):
        results = {
            way: citeval_irm.evaluate(run, qrels, MEASURES, options=options, execution=execution)
            for way, execution in WAYS.items()
        }
    first = results["citeval"]
    for way, result in results.items():
        assert result.query_ids == first.query_ids, way
        np.testing.assert_allclose(result.values, first.values, rtol=0, atol=1e-12)
        assert result.aggregates == pytest.approx(first.aggregates, abs=1e-12), way
        assert [w.code for w in result.warnings] == [w.code for w in first.warnings], way


def test_a_result_records_its_meaning_and_no_execution(files):
    run, qrels = files
    options = EvalOptions(ties="run_order", empty_queries="skip")
    for execution in WAYS.values():
        with pytest.warns(citeval_irm.EvalWarning):
            result = citeval_irm.evaluate(run, qrels, "RR", options=options, execution=execution)
        assert result.options == options
        assert not any(isinstance(v, ExecutionOptions) for v in vars(result).values())
        recorded = json.loads(result.format("json"))["options"]
        assert recorded == dataclasses.asdict(options)


def test_display_changes_only_the_printed_text(files):
    run, qrels = files
    with pytest.warns(citeval_irm.EvalWarning):
        result = citeval_irm.evaluate(run, qrels, MEASURES)
    values = result.values.copy()
    fractions = result.format("table")
    percent = result.format("table", percent=True, decimals=1)
    assert fractions != percent and "(percent)" in percent
    in_percent = result.to_frame(percent=True).loc["all", "RR"]
    assert in_percent == pytest.approx(100 * result.aggregate["RR"])
    assert result.format("table") == fractions  # nothing remembered
    np.testing.assert_array_equal(result.values, values)
