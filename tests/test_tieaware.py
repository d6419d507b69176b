"""Tie-aware values against brute force: every order of every tie group, enumerated, each
order scored by ir-measures (pytrec_eval; its judged provider for ``Judged``) as a query of
its own, for every family of the measure table."""

from __future__ import annotations

import itertools

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeval_irm.scoring import MEASURES as TABLE
from citeval_irm.scoring.tieaware import tie_ranges


def table_measures(cutoff: int = 3) -> list:
    """Every family of the measure table the order of tied docs can change (one with an
    expected value), at ``cutoff`` where it takes one and without one where it may."""
    out = []
    for row in TABLE.values():
        if row.expected is None:
            continue
        family = ir_measures.measures.registry[row.name]
        info = family.SUPPORTED_PARAMS.get("cutoff")
        if info is not None:
            out.append(family @ cutoff)
        if info is None or not info.required:
            out.append(family)
    return out


MEASURES = table_measures()


def groups_of(scores, docs):
    out, start = [], 0
    for end in range(1, len(docs) + 1):
        if end == len(docs) or scores[end] != scores[start]:
            out.append(docs[start:end])
            start = end
    return out


@settings(max_examples=150, deadline=None)
@given(
    scores=st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=1, max_size=7),
    labels=st.lists(st.sampled_from([None, 0, 1, 2]), min_size=7, max_size=7),
    unretrieved=st.sampled_from([None, 1, 2]),
)
@pytest.mark.slow
def test_worst_expected_best_equal_enumeration(scores, labels, unretrieved):
    scores = sorted(scores, reverse=True)
    docs = [f"d{i}" for i in range(len(scores))]
    judged = {d: label for d, label in zip(docs, labels) if label is not None}
    if unretrieved is not None:
        judged["not-retrieved"] = unretrieved
    ranges = tie_ranges(scores, docs, judged, MEASURES)
    run, qrels = {}, {}
    orders = itertools.product(*(itertools.permutations(g) for g in groups_of(scores, docs)))
    for n, order in enumerate(orders):
        ranking = [d for group in order for d in group]
        run[f"p{n}"] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        qrels[f"p{n}"] = judged
    values = {str(m): [] for m in MEASURES}
    for metric in ir_measures.iter_calc(MEASURES, qrels, run):
        values[str(metric.measure)].append(metric.value)
    for name, seen in values.items():
        r = ranges[name]
        assert r.worst == pytest.approx(min(seen), abs=1e-12), name
        assert r.best == pytest.approx(max(seen), abs=1e-12), name
        assert r.expected == pytest.approx(sum(seen) / len(seen), abs=1e-12), name


def test_every_measure_of_the_table_has_its_own_formula_and_others_are_an_error():
    """No fallback to another formula: Rprec is Rprec (R = 2 here: P@2 of the tie orders),
    and a measure outside the table is an error, not nDCG."""
    from citeval_irm import InputError

    ranges = tie_ranges([2.0, 1.0, 1.0, 1.0], ["a", "b", "c", "d"], {"a": 1, "d": 1}, "Rprec")
    assert (ranges["Rprec"].worst, ranges["Rprec"].best) == (0.5, 1.0)
    assert ranges["Rprec"].expected == pytest.approx(0.5 + 0.5 / 3)
    with pytest.raises(InputError, match="not in the measure table"):
        tie_ranges([1.0], ["a"], {"a": 1}, "ERR@10")
