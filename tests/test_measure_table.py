"""The measure table is the one declaration of the measures: everything else that
describes them (the ir-measures provider, trec_eval's names and order, sign-blindness,
the labels pytrec_eval may be given) is derived from it, and these tests fail when a
derivation and what it describes disagree."""

from __future__ import annotations

import itertools

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_scoring import cases, measures_for

from citeval_irm import evaluate, parse_measures
from citeval_irm.base.options import EvalOptions, ExecutionOptions
from citeval_irm.evaluation.provider import CitevalProvider
from citeval_irm.scoring import (
    MEASURES,
    TREC_EVAL_ORDER,
    definition,
    is_integer_measure,
    reads_gains,
    sign_blind,
    trec_eval_base_name,
    trec_eval_name,
)
from citeval_irm.scoring.reference import reference_names
from citeval_irm.scoring.table import trec_eval_family

# a few values of each parameter ir-measures has, to ask both declarations about
PARAM_VALUES = {
    "cutoff": (5,),
    "rel": (0, 2),
    "judged_only": (True,),
    "dcg": ("log2", "exp-log2"),
    "gains": ({0: 0, 1: 1},),
    "recall": (0.2,),
    "mult": (0.4,),
}


def every_variant():
    """Every ir-measures family with each combination of a few parameter values."""
    seen = set()
    for family in dict.fromkeys(ir_measures.measures.registry.values()):
        if family.NAME in seen:
            continue
        seen.add(family.NAME)
        params = [p for p in family.SUPPORTED_PARAMS if p in PARAM_VALUES]
        for size in range(len(params) + 1):
            for chosen in itertools.combinations(params, size):
                for values in itertools.product(*(PARAM_VALUES[p] for p in chosen)):
                    measure = family(**dict(zip(chosen, values, strict=True)))
                    try:
                        measure.validate_params()
                    except AssertionError:  # e.g. P without its required cut-off
                        continue
                    yield measure


def test_the_provider_supports_exactly_what_the_table_computes():
    provider = CitevalProvider()
    variants = list(every_variant())
    assert len({m.NAME for m in variants}) > len(MEASURES)  # families outside the table too
    disagree = [m for m in variants if provider.supports(m) != (definition(m) is not None)]
    assert not disagree, disagree
    for row in MEASURES.values():  # every row is reachable, with every parameter it takes
        assert any(definition(m) is not None and row.name == m.NAME for m in variants), row.name


def test_each_row_takes_parameters_its_ir_measures_family_has():
    for row in MEASURES.values():
        family = ir_measures.measures.registry[row.name]
        assert set(row.params) <= set(family.SUPPORTED_PARAMS), row.name
        assert set(row.choices) <= set(row.params), row.name
        assert row.labels in ("threshold", "gains", "judged", "none"), row.name
        # a family reading labels as a threshold takes rel; one reading gains may take it
        # too, for trec_eval's "no relevant doc" (Rndcg is 0 when none is labelled >= rel)
        assert ("rel" in row.params) >= (row.labels == "threshold"), row.name
        assert "rel" not in row.params or row.labels in ("threshold", "gains"), row.name


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("rel", [1, 2])
def test_every_measure_has_a_reference(rel, judged_only):
    """trec_eval's value by the derived name, or the row's declared reference."""
    for measure in measures_for(rel, judged_only):
        names = reference_names(measure)
        assert all(isinstance(n, str) for n in names), measure
        assert trec_eval_base_name(measure) or MEASURES[measure.NAME].reference, measure


def test_trec_eval_names_round_trip_through_ir_measures():
    """The measure parser reads trec_eval's names (``rbp`` is trec_eval's, not ir-measures'
    RBP), and so does ir-measures (``parse_trec_measure``) for the families it knows: each
    name the table derives must read back as the measure it was derived from."""
    known = 0
    for measure in measures_for(1, False):
        name = trec_eval_name(measure)
        if name is None:
            continue
        assert [str(m) for m in parse_measures(name)] == [str(measure)], name
        try:
            theirs = ir_measures.parse_trec_measure(name)
        except ValueError:  # "known trec name gm_map, but not yet supported"
            continue
        known += 1
        assert [str(m) for m in theirs] == [str(measure)], name
    assert known > 20


def test_trec_eval_order_and_counts_are_trec_eval_s(trec_eval_dir):
    """Every name the table derives is in trec_eval's measure order, and that order is the
    one trec_eval prints (out.test.a, -m all_trec); the counts print as integers there."""
    lines = [line.split("\t") for line in (trec_eval_dir / "out.test.a").read_text().splitlines()]
    printed = list(dict.fromkeys(name.strip() for name, _, _ in lines))
    assert printed, "no lines read"
    bases, derived = [], set()
    for measure in measures_for(1, False):
        name = trec_eval_name(measure)
        if name is None:
            continue
        bases.append(trec_eval_family(name))
        derived.add(name)
        assert is_integer_measure(name) == MEASURES[measure.NAME].summed, name
    assert set(bases) <= set(TREC_EVAL_ORDER)
    first = {}
    for name in printed:
        base = name if name in TREC_EVAL_ORDER else name.rpartition("_")[0]
        if base in TREC_EVAL_ORDER:
            first.setdefault(base, len(first))
    assert sorted(first, key=first.get) == [n for n in TREC_EVAL_ORDER if n in first]
    integers = {name.strip() for name, _, value in lines if "." not in value}
    shown = derived & set(printed)
    assert shown & integers == {n for n in shown if is_integer_measure(n)}
    assert len(shown) > len(MEASURES)  # most of them, at trec_eval's default cut-offs


def _with_labels(qrels, change):
    return {q: {d: change(v) for d, v in docs.items()} for q, docs in qrels.items()}


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(case=cases(), rel=st.sampled_from([0, 1, 2]), judged_only=st.booleans())
def test_sign_blind_is_what_the_kernels_do(case, rel, judged_only):
    """A sign-blind measure gives the same values when every negative label becomes 0;
    a measure that does not read gains gives the same values when each label becomes
    the largest threshold it reaches (what pytrec_eval is given for huge labels)."""
    run, qrels = case
    measures = measures_for(rel, judged_only)
    values = evaluate(run, qrels, measures, options=EvalOptions(empty_queries="zero")).values
    zeroed = evaluate(run, _with_labels(qrels, lambda v: max(v, 0)), measures).values
    thresholds = sorted({0} | {int(m.params.get("rel", 1)) for m in measures})

    def level(label: int) -> int:
        reached = [t for t in thresholds if t <= label]
        return reached[-1] if reached else thresholds[0] - 1

    levelled = evaluate(run, _with_labels(qrels, level), measures).values
    for column, measure in enumerate(measures):
        if sign_blind(measure):
            np.testing.assert_array_equal(values[:, column], zeroed[:, column], str(measure))
        if not reads_gains(measure):
            np.testing.assert_array_equal(values[:, column], levelled[:, column], str(measure))


def test_a_measure_that_is_not_sign_blind_is_declared_so():
    """The converse, on one case: labels -1 and 0 differ for these measures."""
    run = {"q": {"a": 2.0, "b": 1.0}}
    minus, zero = {"q": {"a": -1, "b": 1}}, {"q": {"a": 0, "b": 1}}
    measures = ["P(rel=0)@1", "RR(judged_only=True)", "nDCG(judged_only=True)@1"]
    for spec in measures:
        measure = ir_measures.parse_measure(spec)
        assert not sign_blind(measure), spec
        assert evaluate(run, minus, spec).values[0, 0] != evaluate(run, zero, spec).values[0, 0]


def test_a_measure_trec_eval_lacks_is_verified_by_its_declared_reference(tmp_path, capsys):
    """Judged@K: ir-measures' judged provider divides by zero on a query the run does not
    rank; the table's own reference serves ``engine="pytrec_eval"``, ``verify`` and the
    command line's ``--verify``."""
    from citeval_irm.cli import main

    run = {"q": {"a": 3.0, "b": 2.0, "x": 2.0}, "r": {"a": 1.0}}
    qrels = {"q": {"a": 1, "b": -1}, "r": {"b": 1}, "s": {"a": 0}}
    mine = evaluate(run, qrels, "Judged@2 Judged", execution=ExecutionOptions(verify=True))
    theirs = evaluate(
        run, qrels, "Judged@2 Judged", execution=ExecutionOptions(engine="pytrec_eval")
    )
    assert mine.values.tolist() == theirs.values.tolist() == [[0.5, 1 / 3], [0, 0], [0, 0]]
    assert ir_measures.citeval.calc_aggregate([ir_measures.Judged @ 2], qrels, run) == {
        ir_measures.Judged @ 2: 0.5 / 3
    }
    (tmp_path / "run").write_text("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 x 3 2 t\nr Q0 a 1 1 t\n")
    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b -1\nr 0 b 1\ns 0 a 0\n")
    args = ["eval", str(tmp_path / "run"), "--qrels", str(tmp_path / "qrels"), "-m", "Judged@2"]
    assert main([*args, "--verify", "--format", "csv"]) == 0
    assert "Judged@2" in capsys.readouterr().out
