"""The statistics' arguments through the Python API: a wrong type is a TypeError, a value
out of range (a fraction of a permutation, an infinite bootstrap) an error naming the
argument; never a silently rounded or misread number."""

from __future__ import annotations

import numpy as np
import pytest

import citeval_irm
from citeval_irm.base.options import StatisticsOptions


def evaluated(values: np.ndarray, name: str) -> citeval_irm.EvalResult:
    measures = citeval_irm.parse_measures("RR")
    return citeval_irm.EvalResult(
        measures=measures,
        query_ids=[f"q{i}" for i in range(len(values))],
        values=values[:, None],
        aggregates={"RR": float(values.mean())},
        run_source=name,
    )


RUNS = {
    "a": evaluated(np.linspace(0.1, 0.9, 12), "a"),
    "b": evaluated(np.linspace(0.2, 1.0, 12), "b"),
}


@pytest.mark.parametrize(
    ("keywords", "error", "named"),
    [
        ({"alpha": "0.05"}, TypeError, "alpha"),
        ({"confidence": "95%"}, TypeError, "confidence"),
        ({"alpha": float("nan")}, ValueError, "alpha"),
        ({"alpha": 1.0}, ValueError, "alpha"),
        ({"bootstrap": float("inf")}, ValueError, "bootstrap"),
        ({"permutations": 2.5}, ValueError, "permutations"),
        ({"permutations": "1000"}, TypeError, "permutations"),
        ({"permutations": True}, TypeError, "permutations"),
        ({"permutations": 0}, ValueError, "permutations"),
        ({"seed": 1.5}, ValueError, "seed"),
        ({"seed": None}, TypeError, "seed"),
        ({"test": 3}, TypeError, "test"),
        ({"correction": None}, TypeError, "correction"),
    ],
)
def test_a_wrong_statistics_argument_names_itself(keywords, error, named):
    with pytest.raises(error, match=named):
        StatisticsOptions(**keywords)
    with pytest.raises(error, match=named):
        citeval_irm.compare(RUNS, statistics=StatisticsOptions(**keywords))


def test_whole_numbers_are_taken_and_never_rounded():
    assert StatisticsOptions(permutations=1e4).permutations == 10_000  # a whole float
    assert StatisticsOptions(bootstrap=np.int64(500)).bootstrap == 500
    assert StatisticsOptions(alpha=np.float64(0.01)).alpha == 0.01
    comparison = citeval_irm.compare(
        RUNS, statistics=citeval_irm.StatisticsOptions(permutations=2_000.0)
    )
    assert comparison.settings.permutations == 2_000


def test_compare_checks_its_own_switches():
    with pytest.raises(TypeError, match="tukey"):
        citeval_irm.compare(RUNS, tukey="no")
