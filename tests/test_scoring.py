"""The scoring core against pytrec_eval, query by query, for every measure of the table.

pytrec_eval runs trec_eval's own C code on the *raw* run (ties and all), so this checks the
kernels, the tie policy and the query population at once. Every case has heavy ties,
graded, zero and negative labels, queries missing from the run (given to pytrec_eval as
empty rankings, which is what ``trec_eval -c`` does), run-only queries, and ids such as
"10" vs "9" or non-ASCII ones.
"""

from __future__ import annotations

import math
from dataclasses import replace

import ir_measures
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citeval_irm
from citeval_irm import InputError, evaluate, parse_measures
from citeval_irm.scoring import MEASURES, definition, trec_eval_name
from citeval_irm.scoring.reference import reference_values
from citeval_irm.scoring.table import aggregate

DOCS = ["9", "10", "d9", "d10", "D10", "é1", "ä", "x-1", "P15-1001", "P15-1001a", "z", "Z"]
QUERIES = ["9", "10", "q1", "é", "Q15-1_P15-1001_0", "∑"]
CUTOFFS = (1, 2, 3, 5, 10)


@st.composite
def cases(draw):
    """A run with heavy ties and duplicates removed, and qrels with every kind of label."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for query in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=5, unique=True)):
        if draw(st.integers(0, 5)):  # most queries have a ranking; some are missing
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=12, unique=True))
            if docs:
                run[query] = {d: float(draw(st.integers(0, 3))) for d in docs}
        if draw(st.integers(0, 5)):  # most have judgements; the rest are run-only
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 3), min_size=1))
            # pytrec_eval 0.5 can hang in ndcg on a query whose labels are all negative
            # (tested apart below): give each query one label >= 0
            if all(v < 0 for v in judged.values()):
                judged[draw(st.sampled_from(DOCS))] = draw(st.integers(0, 3))
            qrels[query] = judged
    if not qrels:
        qrels[QUERIES[0]] = {DOCS[0]: 1}
    if not set(run) & set(qrels):
        query = next(iter(qrels))
        run[query] = {DOCS[1]: 1.0, DOCS[0]: 1.0}
    return run, qrels


# values of the other parameters a family requires (trec_eval's own among them)
REQUIRED = {"recall": (0.0, 0.1, 0.25, 0.5, 0.75, 1.0), "mult": (0.2, 1.0, 1.5)}


def measures_for(rel: int, judged_only: bool) -> list:
    """Every family of the table with every parameter its row takes: each cut-off of
    ``CUTOFFS`` (and none, where it is optional), ``rel`` and ``judged_only`` as given
    (and ``rel`` left out where that is another measure: ``NumRet``, every retrieved doc),
    the ``REQUIRED`` values of a parameter the family cannot do without."""
    out = []
    for row in MEASURES.values():
        family = ir_measures.measures.registry[row.name]
        cutoff = family.SUPPORTED_PARAMS.get("cutoff")
        cutoffs = [] if cutoff is None else list(CUTOFFS)
        if cutoff is None or not cutoff.required:
            cutoffs.append(None)
        required = [n for n, i in family.SUPPORTED_PARAMS.items() if i.required and n in REQUIRED]
        for k in cutoffs:
            rels = [rel, None] if row.trec_eval_rel else [rel]
            for given_rel in rels if "rel" in row.params else [None]:
                for value in REQUIRED[required[0]] if required else [None]:
                    params = {"cutoff": k, "rel": given_rel}
                    if required:
                        params[required[0]] = value
                    if "judged_only" in row.params and judged_only:
                        params["judged_only"] = True
                    measure = family(**{n: v for n, v in params.items() if v is not None})
                    if measure not in out:
                        out.append(measure)
    return out


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(case=cases(), rel=st.sampled_from([1, 2, 3]), judged_only=st.booleans())
def test_every_measure_equals_pytrec_eval_per_query(case, rel, judged_only):
    """The reference of each measure is the table's own declaration: trec_eval's value by
    the name the table derives (pytrec_eval takes ``rel`` >= 1 only), or the row's
    declared reference where trec_eval has none."""
    run, qrels = case
    measures = measures_for(rel, judged_only)
    assert all(definition(m) is not None for m in measures)
    result = evaluate(run, qrels, measures)
    assert result.query_ids == list(qrels)  # every qrels query, in qrels order
    full = {q: dict(run.get(q, {})) for q in qrels}  # the raw run, ties and all
    reference = reference_values(measures, qrels, full, result.query_ids)
    for column, measure in enumerate(measures):
        per_query = reference[:, column].tolist()
        for row, want in enumerate(per_query):
            got = result.values[row, column]
            assert abs(got - want) <= 1e-12, (result.query_ids[row], str(measure), got, want)
        want = aggregate(measure, reference[:, column])  # mean, sum or geometric mean
        assert abs(result.aggregates[str(measure)] - want) <= 1e-12, str(measure)


@settings(max_examples=60, deadline=None)
@given(case=cases())
def test_default_engine_equals_the_pytrec_eval_engine(case):
    """The two engines agree, and ``verify`` checks exactly that."""
    run, qrels = case
    measures = parse_measures("RR RR@3 P@2 R@5 Success@1 AP AP@3 nDCG nDCG@3 Rprec NumRet NumQ")
    mine = evaluate(run, qrels, measures, execution=citeval_irm.ExecutionOptions(verify=True))
    theirs = evaluate(
        run, qrels, measures, execution=citeval_irm.ExecutionOptions(engine="pytrec_eval")
    )
    assert np.abs(mine.values - theirs.values).max() <= 1e-12
    assert mine.query_ids == theirs.query_ids


def test_queries_whose_labels_are_all_negative():
    """Negative labels are not relevant and gain nothing; under judged_only they are
    unjudged (trec_eval reads them so), so the doc is dropped from the ranking."""
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}, "r": {"a": 1.0}}
    qrels = {"q": {"a": -1, "c": 1}, "r": {"a": -2}}
    result = evaluate(run, qrels, "RR RR(judged_only=True) nDCG P(rel=0)@1 NumRet(rel=0)")
    assert result.values.tolist() == [[1 / 3, 1.0, 0.5, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]]


def test_a_measure_outside_the_table_goes_to_ir_measures():
    """Compat is not in the table: the default engine hands it to ir-measures, whose value
    for it is the one ir-measures gives itself."""
    run = {"q": {"a": 2.0, "b": 1.0, "c": 0.5}}
    qrels = {"q": {"b": 2, "c": 0}}
    compat = ir_measures.parse_measure("Compat(p=0.8)")
    assert definition(compat) is None
    result = evaluate(run, qrels, [compat, ir_measures.parse_measure("RR")])
    assert result.values[0, 0] == ir_measures.calc_aggregate([compat], qrels, run)[compat]
    assert result.values[0, 1] == 0.5


@pytest.mark.parametrize(
    "spec", ["R@0", "P@0", "nDCG@0", "Success@0", "RR@0", ir_measures.AP @ -1, "R@4294967296"]
)
def test_a_cut_off_below_one_is_an_error_before_any_engine(spec):
    with pytest.raises(InputError, match="cut-off must be a whole number from 1"):
        parse_measures(spec)


def test_non_string_measures_are_an_error():
    with pytest.raises(InputError, match="must be a string or an ir-measures object"):
        parse_measures(["RR", 10])


def test_trec_eval_names_come_from_the_table():
    names = {
        "RR": "recip_rank",
        "RR@10": None,
        "P@5": "P_5",
        "R@10": "recall_10",
        "Success@10": "success_10",
        "AP": "map",
        "AP@10": "map_cut_10",
        "nDCG": "ndcg",
        "nDCG@10": "ndcg_cut_10",
        "Rprec": "Rprec",
        "NumRet": "num_ret",
        "NumRet(rel=1)": "num_rel_ret",
        "NumRel": "num_rel",
        "NumQ": "num_q",
        "P(rel=2)@5": None,
        "R(judged_only=True)@5": None,
        "ERR@10": None,
    }
    for spec, name in names.items():
        assert trec_eval_name(ir_measures.parse_measure(spec)) == name, spec


def test_verify_names_the_query_and_measure(monkeypatch):
    """``verify`` raises on a difference; a kernel made wrong on purpose shows it does."""
    wrong = replace(MEASURES["P"], kernel=lambda rk, p: np.full(rk.n_queries, math.pi))
    monkeypatch.setitem(MEASURES, "P", wrong)
    with pytest.raises(citeval_irm.VerificationError, match=r"query 'q', P@1: citeval 3\.14"):
        evaluate(
            {"q": {"a": 1.0}},
            {"q": {"a": 1}},
            "P@1",
            execution=citeval_irm.ExecutionOptions(verify=True),
        )


@settings(max_examples=200, deadline=None)
@given(
    values=st.sets(st.text("abcd", max_size=3), max_size=20),
    dictionary=st.sets(st.text("abcd", max_size=3), max_size=80),
)
def test_lookup_of_unique_values_either_way_round(values, dictionary):
    """Probing the larger of two unique sets into the smaller finds what probing the
    smaller into the larger finds (a qrels' docs against a chunk's doc dictionary)."""
    from citeval_irm.reading.tables import lookup, lookup_unique

    a, b = pa.array(sorted(values), pa.string()), pa.array(sorted(dictionary), pa.string())
    assert lookup_unique(a, b).tolist() == lookup(a, b).tolist()
