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


@pytest.mark.slow
def test_the_candidates_hold_the_titles_the_threshold_passes(bench):
    keys = [key for found in bench["keys"].values() for key in found]
    held, found = bench["script"].candidate_recall(bench["indexes"], keys, 90.0)
    assert found > 500 and held / found >= 0.999, (held, found)


def test_a_reference_named_again_is_decided_as_when_named_once(bench):
    """resolve_lists decides each distinct reference once and spreads the decision to every
    reference that repeats it: on the real-title sample (every way models err, objects with
    ids, years and authors) named again in other lists and within a list, in another order
    of an object's fields, every column is what deciding each reference alone gives, and a
    duplicate is a paper its own list named before."""
    import random

    from citeval_irm.resolving import resolve as resolving
    from citeval_irm.resolving.generated import read_generated

    index, catalogue = bench["indexes"]
    made = [case.reference for case in bench["cases"]]
    rng = random.Random(5)
    lists = {}
    for query in range(600):
        picked = [rng.choice(made[:300]) if rng.random() < 0.5 else rng.choice(made)
                  for _ in range(rng.randint(1, 25))]  # fmt: skip
        picked = [dict(reversed(list(r.items()))) if isinstance(r, dict) and rng.random() < 0.5
                  else r for r in picked]  # fmt: skip
        lists[f"q{query}"] = picked
    lists = read_generated(lists).lists
    resolver = resolving.Resolver(index, catalogue=catalogue)
    columns = resolving.resolve_lists(lists, resolver)
    total = sum(len(r) for r in lists.values())
    assert len({resolving._identity(r) for q in lists for r in lists[q]}) < 0.8 * total
    alone = resolving.Resolver(index, catalogue=catalogue)  # nothing remembered from above
    row = 0
    for query, references in lists.items():
        named: set[str] = set()
        for position, reference in enumerate(references, 1):
            decision = alone.judge(reference)
            matched = decision.how in resolving.MATCHED
            doc = index.ids[decision.papers[0]] if matched else ""
            others = [] if matched else [index.ids[p] for p in decision.papers]
            expected = {"query_id": query, "position": position, "reference": reference.text,
                        "how": decision.how, "doc_id": doc,
                        "candidates": " ".join([*others, *decision.elsewhere]),
                        "score": decision.score, "duplicate": matched and doc in named,
                        "catalogue": decision.status}  # fmt: skip
            assert {name: columns[name][row] for name in expected} == expected, row
            named |= {doc} if matched else set()
            row += 1
    assert row == total and sum(columns["duplicate"]) > 0
