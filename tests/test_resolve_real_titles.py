"""citeval resolve on real titles (issue 40, item 1): the fabrication rate it reports is
the true one within 2 points, its matches are right 99.5 % of the time or more, every exact
title and every case or punctuation variant is found, and the candidate generator holds
every title the threshold would pass, on references made from 11,407 real ML paper records
the way language models get them wrong (``benchmarks/bench_resolve_quality.py``, whose full
run the resolve guide's table is; here a sample of it).

The records are not vendored (``../shared/data/titles`` beside the repository, Apache-2.0):
without them the test skips, saying where it looked; under CI (``CI`` set) it fails."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
from reference_data import REPO, SHARED_DATA

TITLES = SHARED_DATA / "titles"


@pytest.fixture(scope="module")
def bench():
    if not any(TITLES.glob("*.jsonl.gz")):
        message = (f"the real title records (*.jsonl.gz) are not in {TITLES}: they are not "
                   "vendored; set CITEVAL_SHARED_DATA to the folder holding titles/")  # fmt: skip
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    path = REPO / "benchmarks" / "bench_resolve_quality.py"
    spec = importlib.util.spec_from_file_location("bench_resolve_quality", path)
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # its dataclasses look their module up
    spec.loader.exec_module(script)
    papers = script.load_papers(TITLES)
    pool, outside = script.split(papers, 1)
    index, catalogue = script.indexes(pool, outside)
    cases = script.make_cases(pool, outside, 4000, 1, 90.0)
    rows, keys, _ = script.measure(cases, index, catalogue, 90.0)
    return {"script": script, "rows": rows, "keys": keys, "cases": cases,
            "indexes": (index, catalogue)}  # fmt: skip


def test_the_reported_fabrication_rate_is_the_true_one_within_two_points(bench):
    found = bench["script"].figures(bench["rows"], bench["cases"])
    assert abs(found["fabrication_reported"] - found["fabrication_true"]) <= 0.02, found
    assert found["precision"] >= 0.995, found
    assert found["recall_exact"] >= 0.999, found
    # what is found nowhere is mostly invented, and the near misses are mostly real
    rows = bench["rows"]
    assert rows["invented"]["nowhere"] >= 0.95 * rows["all"]["nowhere"]
    assert rows["invented"]["near-miss"] <= 0.3 * rows["all"]["near-miss"]


def test_the_candidates_hold_the_titles_the_threshold_passes(bench):
    keys = [key for found in bench["keys"].values() for key in found]
    held, found = bench["script"].candidate_recall(bench["indexes"], keys, 90.0)
    assert found > 500 and held / found >= 0.999, (held, found)
