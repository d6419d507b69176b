"""The provider ``ir_measures.citeval`` against ir-measures' pytrec_eval provider and the
trec_eval 10.0 binary, on drawn qrels, runs and lists of measures.

Per query and in aggregate, every measure pytrec_eval computes as trec_eval does is equal to
1e-9; ``nDCG(dcg='exp-log2')`` (which pytrec_eval's provider computes as ``log2``, silently)
equals the binary's ``ndcg`` given the gains 2^label - 1 (``-m ndcg.1=1,2=3,3=7``) and its
``ndcg_cut.K`` on the qrels relabelled so, to its four printed decimals. A measure given twice,
or under two spellings ir-measures holds equal (``NumRelRet`` and ``NumRet(rel=1)``, ``RR`` and
``RR(rel=1)``), is answered as pytrec_eval's provider answers it: one key of the aggregate
dict (the same object), one value per query.

pytrec_eval's own values are taken one measure at a time: its provider shares one pytrec_eval
call between measures, and a measure put into another's call is computed under that call's
settings (``NumRet`` under the ``-J`` of a ``judged_only`` measure listed first, ``nDCG``
under the gains of an ``nDCG(gains=...)`` listed first, ``nDCG(dcg='exp-log2')@K`` and
``nDCG@K`` as one name, the value of one lost).
"""

from __future__ import annotations

import collections
import itertools
import math
import subprocess
import tempfile
import warnings
from pathlib import Path

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures import (
    AP,
    RR,
    Bpref,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    R,
    Rprec,
    SetAP,
    SetP,
    SetR,
    Success,
    infAP,
    nDCG,
)

import citeval_irm  # noqa: F401 (registers the provider)

EXP = nDCG(dcg="exp-log2")
# measures of the families pytrec_eval's provider takes (so the shape of its answer can be
# compared for the whole list), equal spellings side by side
POOL = [
    P @ 5, P(rel=1) @ 5, P @ 1, P(rel=2) @ 3, P(judged_only=True) @ 5,
    RR, RR(rel=1), RR(rel=2), RR(judged_only=True),
    AP, AP @ 3, AP(rel=2), AP(judged_only=True),
    nDCG, nDCG @ 3, nDCG(dcg="log2") @ 3, nDCG @ 5, nDCG(judged_only=True) @ 3,
    nDCG(gains={0: 0, 1: 1, 2: 5}) @ 3,
    EXP, EXP @ 3, EXP @ 5, EXP(judged_only=True) @ 3, EXP(judged_only=True),
    EXP(gains={1: 2, 2: 1}), EXP(gains={1: 2, 2: 1}) @ 2,
    R @ 3, R @ 10, R(rel=2) @ 5, R(judged_only=True) @ 3,
    Success @ 1, Success @ 3, Success(rel=2) @ 2,
    Rprec, Rprec(rel=2), Bpref, Bpref(rel=2), infAP,
    NumRet, NumRelRet, NumRet(rel=1), NumRet(rel=2), NumRel, NumQ,
    SetP, SetP(relative=True), SetR, SetAP,
]  # fmt: skip
COUNTS = {"NumRet", "NumRel", "NumQ"}
# doc ids whose order as strings is not their order as numbers (trec_eval breaks ties by it)
DOCS = ["d1", "d10", "d2", "d9", "d100", "a", "b", "c"]
SCORES = [0.5, 1.0, 1.5, 2.0, 3.0]  # few values, exact in float32: many ties, none lost


@st.composite
def qrels_and_runs(draw):
    """Small qrels (graded, 0 and negative labels, a query with no judged doc now and then)
    and a run (ties, docs not judged, queries the qrels lack, qrels queries it lacks). Every
    judged query has a label >= 0: the binary crashes on a query whose labels are all
    negative, and pytrec_eval can hang on one."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    qrels: dict[str, dict[str, int]] = {}
    for query in queries:
        if draw(st.integers(0, 9)) == 0:
            qrels[query] = {}  # named, nothing judged (a dict-of-dicts can say so)
            continue
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        labels = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for d in docs}
        if max(labels.values()) < 0:
            labels[docs[0]] = 0
        qrels[query] = labels
    run: dict[str, dict[str, float]] = {}
    for query in [*queries, "run-only"]:
        if draw(st.integers(0, 4)) == 0:
            continue  # a qrels query the run does not rank
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        run[query] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    return qrels, run


measure_lists = st.lists(st.sampled_from(POOL), min_size=1, max_size=7)


def quietly(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the provider's counted warnings (queries left out)
        out = call(*args)
        return list(out) if not isinstance(out, dict) else out


def pytrec_eval_computes(measure) -> bool:
    """Whether pytrec_eval's provider computes ``measure`` as trec_eval does (it takes
    ``nDCG(dcg='exp-log2')`` but returns the ``log2`` value)."""
    return measure["dcg"] != "exp-log2" if measure.NAME == "nDCG" else True


def comparable(measure, query: str, qrels, run) -> bool:
    """Whether pytrec_eval's value of ``measure`` for ``query`` is trec_eval's: not the
    counts of a query pytrec_eval does not score (not ranked, or nothing judged), which its
    provider reports as 0, where ours are ``trec_eval -c``'s (NumQ 1, NumRel the count)."""
    if measure.NAME not in COUNTS:
        return True
    return bool(run.get(query)) and bool(qrels.get(query))


def assert_same_shape(measures, qrels, run):
    """The answer pytrec_eval's provider gives, key for key: the aggregate's keys (the same
    objects, the first given of equal ones) and one metric per query and distinct measure."""
    ours = quietly(ir_measures.citeval.calc_aggregate, measures, qrels, run)
    theirs = quietly(ir_measures.pytrec_eval.calc_aggregate, measures, qrels, run)
    assert [id(m) for m in ours] == [id(m) for m in theirs]
    assert list(ours) == list(dict.fromkeys(measures))
    our_metrics = quietly(ir_measures.citeval.iter_calc, measures, qrels, run)
    their_metrics = quietly(ir_measures.pytrec_eval.iter_calc, measures, qrels, run)
    counted = collections.Counter((m.query_id, m.measure) for m in our_metrics)
    assert counted == collections.Counter((m.query_id, m.measure) for m in their_metrics)
    assert set(counted.values()) <= {1}
    first = {m: m for m in reversed(measures)}  # each measure's first spelling
    assert all(m.measure is first[m.measure] for m in our_metrics)
    return ours, our_metrics


def check_against_pytrec_eval(measures, qrels, run):
    aggregate, metrics = assert_same_shape(measures, qrels, run)
    per_query = {(m.query_id, m.measure): m.value for m in metrics}
    for measure in dict.fromkeys(measures):
        if not pytrec_eval_computes(measure):
            continue
        # one measure at a time: pytrec_eval's provider shares its calls between measures
        theirs = quietly(ir_measures.pytrec_eval.iter_calc, [measure], qrels, run)
        seen = 0
        for metric in theirs:
            if comparable(measure, metric.query_id, qrels, run):
                seen += 1
                ours = per_query[(metric.query_id, measure)]
                assert ours == pytest.approx(metric.value, abs=1e-9), (metric, ours)
        assert seen or measure.NAME in COUNTS or not qrels
        if all(comparable(measure, q, qrels, run) for q in qrels):
            want = quietly(ir_measures.pytrec_eval.calc_aggregate, [measure], qrels, run)
            assert aggregate[measure] == pytest.approx(want[measure], abs=1e-9, nan_ok=True)


# --------------------------------------------------------------------------- the binary


def exp_gains(measure, top: int) -> dict[int, float]:
    """The gain trec_eval is given for each level 0 .. ``top`` to compute ``measure`` (an
    ``nDCG(dcg='exp-log2')``): 2^g - 1 of the level's gain g (itself, or ``gains``')."""
    given = measure["gains"] if isinstance(measure["gains"], dict) else {}
    return {level: 2.0 ** given.get(level, level) - 1 for level in range(top + 1)}


def trec_eval_lines(binary: Path, qrels, run, args: list[str]) -> dict[tuple[str, str], float]:
    """``trec_eval -c -q ARGS`` on ``qrels`` and ``run``: {(measure name, query): value}."""
    with tempfile.TemporaryDirectory() as folder:
        qrels_file, run_file = Path(folder, "qrels"), Path(folder, "run")
        qrels_file.write_text(
            "".join(
                f"{q} 0 {d} {label}\n" for q, docs in qrels.items() for d, label in docs.items()
            )
        )
        run_file.write_text(
            "".join(
                f"{q} Q0 {d} 0 {score} run\n"
                for q, docs in run.items()
                for d, score in docs.items()
            )
        )
        done = subprocess.run(
            [str(binary), "-c", "-q", *args, str(qrels_file), str(run_file)],
            capture_output=True,
            text=True,
            check=True,
        )
    out = {}
    for line in done.stdout.splitlines():
        name, query, value = line.split()
        out[(name, query)] = float(value)
    return out


def check_exp_log2_against_trec_eval(binary: Path, measures, qrels, run):
    """Every ``nDCG(dcg='exp-log2')`` of ``measures``, per query and in aggregate, equal to
    trec_eval 10.0's ``ndcg`` given its gains (``-m ndcg.1=1,2=3``) and, cut, to its
    ``ndcg_cut.K`` on the qrels relabelled by them (it takes no gains)."""
    exp = [m for m in dict.fromkeys(measures) if m.NAME == "nDCG" and m["dcg"] == "exp-log2"]
    judged = {q: docs for q, docs in qrels.items() if docs}  # a qrels file names no other
    if not exp or not judged or not any(run.values()):
        return  # trec_eval cannot read an empty file (the provider gives 0s: test_provider)
    aggregate = quietly(ir_measures.citeval.calc_aggregate, exp, qrels, run)
    per_query = {
        (m.query_id, m.measure): m.value
        for m in quietly(ir_measures.citeval.iter_calc, exp, qrels, run)
    }
    top = max(label for docs in judged.values() for label in docs.values())
    for measure in exp:
        gains = exp_gains(measure, top)
        flags = ["-J"] if measure["judged_only"] else []
        if "cutoff" not in measure.params:
            pairs = ",".join(f"{level}={gain:g}" for level, gain in gains.items())
            found = trec_eval_lines(binary, judged, run, [*flags, "-m", f"ndcg.{pairs}"])
            name = f"ndcg_{pairs}"
        else:
            relabelled = {
                q: {d: int(gains[v]) if v >= 0 else v for d, v in docs.items()}
                for q, docs in judged.items()
            }
            cutoff = measure.params["cutoff"]
            found = trec_eval_lines(binary, relabelled, run, [*flags, "-m", f"ndcg_cut.{cutoff}"])
            name = f"ndcg_cut_{cutoff}"
        for query in qrels:
            want = found.get((name, query), 0.0)  # a query with nothing judged: 0
            assert per_query[(query, measure)] == pytest.approx(want, abs=5.001e-5), (
                measure,
                query,
            )
        if len(judged) == len(qrels):  # trec_eval -c: the mean over the qrels queries
            assert aggregate[measure] == pytest.approx(found[(name, "all")], abs=5.001e-5)


# --------------------------------------------------------------------------- the tests

QUICK = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(data=qrels_and_runs(), measures=measure_lists)
def test_the_provider_answers_as_pytrec_eval(data, measures):
    check_against_pytrec_eval(measures, *data)


@pytest.mark.slow
@QUICK
@given(data=qrels_and_runs(), measures=measure_lists)
def test_exp_log2_ndcg_equals_trec_eval_with_exponential_gains(trec_eval_binary, data, measures):
    check_exp_log2_against_trec_eval(trec_eval_binary, [*measures, EXP, EXP @ 3], *data)


@pytest.mark.slow
@LONG
@given(data=qrels_and_runs(), measures=measure_lists)
def test_the_provider_answers_as_pytrec_eval_long(trec_eval_binary, data, measures):
    check_against_pytrec_eval(measures, *data)
    check_exp_log2_against_trec_eval(trec_eval_binary, [*measures, EXP, EXP @ 3], *data)


# --------------------------------------------------------------------------- issue 39

QRELS = {"q1": {"a": 1, "b": 2, "c": 0, "d": 3, "e": -1}, "q2": {"x": 1}}
RUN = {"q1": {"a": 1.0, "b": 2.0, "z": 3.0, "e": 0.5}, "q3": {"x": 1.0}}


@pytest.mark.parametrize(
    "measures",
    [
        [P @ 5, P @ 5],
        [NumRelRet, NumRet(rel=1)],
        [RR, RR(rel=1)],
        [P @ 5, AP, P(rel=1) @ 5, NumQ, NumQ],
        [nDCG @ 3, nDCG(dcg="log2") @ 3, EXP @ 3, EXP @ 3],
    ],
    ids=["repeated", "NumRelRet-NumRet(rel=1)", "RR-RR(rel=1)", "mixed", "nDCG"],
)
def test_repeated_and_equivalent_measures_are_answered_as_pytrec_eval(measures):
    """Issue 39, item 11: an IndexError before (the repeated column dropped, then indexed)."""
    check_against_pytrec_eval(measures, QRELS, RUN)
    aggregate, metrics = assert_same_shape(measures, QRELS, RUN)
    assert len(aggregate) == len(set(measures))
    assert len(metrics) == len(set(measures)) * len(QRELS)
    evaluator = ir_measures.citeval.evaluator(measures, QRELS)
    assert quietly(evaluator.calc_aggregate, RUN) == aggregate
    # the counts summed once, not once per spelling
    if NumRelRet in measures:
        assert aggregate[NumRelRet] == 2.0  # q1: a and b relevant and retrieved


def test_exp_log2_ndcg_is_computed_with_gains_two_to_the_label_minus_one():
    """Issue 39, item 12: refused before ("not in the measure table"); pytrec_eval's provider
    returns the log2 value. q1 ranks z (unjudged), b (2: gain 3), a (1: gain 1), e (-1: 0);
    the ideal is d, b, a (gains 7, 3, 1)."""
    assert ir_measures.citeval.supports(EXP @ 10)
    dcg = 3 / math.log2(3) + 1 / math.log2(4)
    ideal = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    measures = [EXP, EXP @ 2, EXP(judged_only=True) @ 2, EXP(gains={1: 2}), nDCG @ 2]
    values = {
        (m.query_id, str(m.measure)): m.value
        for m in quietly(ir_measures.citeval.iter_calc, measures, QRELS, RUN)
    }
    assert values[("q1", "nDCG(dcg='exp-log2')")] == pytest.approx(dcg / ideal, abs=1e-12)
    assert values[("q1", "nDCG(dcg='exp-log2')@2")] == pytest.approx(
        (3 / math.log2(3)) / (7 + 3 / math.log2(3)), abs=1e-12
    )
    # judged only: z is left out, b and a move up
    assert values[("q1", "nDCG(dcg='exp-log2',judged_only=True)@2")] == pytest.approx(
        (3 + 1 / math.log2(3)) / (7 + 3 / math.log2(3)), abs=1e-12
    )
    # gains relabel, then 2^g - 1: level 1 gains 3, as level 2 does
    assert values[("q1", "nDCG(dcg='exp-log2',gains={1:2})")] == pytest.approx(
        (3 / math.log2(3) + 3 / 2) / (7 + 3 / math.log2(3) + 3 / 2), abs=1e-12
    )
    assert values[("q2", "nDCG(dcg='exp-log2')")] == 0.0  # not ranked (trec_eval -c)
    # the log2 one is unchanged: pytrec_eval's
    theirs = quietly(ir_measures.pytrec_eval.iter_calc, [nDCG @ 2], QRELS, RUN)
    assert values[("q1", "nDCG@2")] == pytest.approx(
        next(m.value for m in theirs if m.query_id == "q1"), abs=1e-12
    )


def test_exp_log2_ndcg_through_evaluate_and_the_reference_engine():
    """``evaluate`` computes it with the kernels, and the reference engine (trec_eval 10.0's
    ``m_ndcg.c`` given the gains) agrees: ``verify=True`` compares the two."""
    both = citeval_irm.ExecutionOptions(verify=True)
    measures = [EXP, EXP @ 2, EXP(judged_only=True) @ 2, EXP(gains={1: 2}) @ 3]
    result = citeval_irm.evaluate(RUN, QRELS, measures, execution=both)
    assert result.per_query.loc["q1", "nDCG(dcg='exp-log2')"] == pytest.approx(
        (3 / math.log2(3) + 1 / 2) / (7 + 3 / math.log2(3) + 1 / 2), abs=1e-12
    )
    reference = citeval_irm.ExecutionOptions(engine="pytrec_eval")
    again = citeval_irm.evaluate(RUN, QRELS, measures, execution=reference)
    assert again.per_query.to_numpy() == pytest.approx(result.per_query.to_numpy(), abs=1e-12)


def test_exp_log2_ndcg_on_the_binary(trec_eval_binary):
    """The example of item 12 on trec_eval 10.0 itself: ``-m ndcg.1=1,2=3,3=7``."""
    found = trec_eval_lines(trec_eval_binary, QRELS, RUN, ["-m", "ndcg.1=1,2=3,3=7"])
    values = quietly(ir_measures.citeval.calc_aggregate, [EXP], QRELS, RUN)
    assert values[EXP] == pytest.approx(found[("ndcg_1=1,2=3,3=7", "all")], abs=5.001e-5)
    check_exp_log2_against_trec_eval(
        trec_eval_binary, [EXP, EXP @ 2, EXP @ 10, EXP(judged_only=True) @ 3], QRELS, RUN
    )


@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=1, max_size=6),
    labels=st.lists(st.sampled_from([None, -1, 0, 1, 2, 3]), min_size=6, max_size=6),
)
def test_exp_log2_ndcg_tie_range_equals_enumeration(scores, labels):
    """Its worst, expected and best value over the orders of tied docs (the closed forms
    read the gains, so 2^label - 1 too) are those of every order, enumerated."""
    from citeval_irm.scoring.tieaware import tie_ranges

    measures = [EXP, EXP @ 2]
    scores = sorted(scores, reverse=True)
    docs = [f"d{i}" for i in range(len(scores))]
    judged = {d: label for d, label in zip(docs, labels, strict=False) if label is not None}
    judged["not-retrieved"] = 2
    ranges = tie_ranges(scores, docs, judged, measures)
    groups = [[d for d, s in zip(docs, scores, strict=True) if s == v] for v in sorted(set(scores))]
    run, qrels = {}, {}
    for n, order in enumerate(itertools.product(*map(itertools.permutations, reversed(groups)))):
        ranking = [d for group in order for d in group]
        run[f"p{n}"] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        qrels[f"p{n}"] = judged
    seen = collections.defaultdict(list)
    for metric in quietly(ir_measures.citeval.iter_calc, measures, qrels, run):
        seen[str(metric.measure)].append(metric.value)
    for name, values in seen.items():
        assert ranges[name].worst == pytest.approx(min(values), abs=1e-12), name
        assert ranges[name].best == pytest.approx(max(values), abs=1e-12), name
        assert ranges[name].expected == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_exp_log2_ndcg_refuses_gains_beyond_a_double():
    """2^label - 1 of a label above 1000 would sum to infinity (NaN values, or a wrong 1.0):
    an error naming the limit, not a number."""
    run = {"q": {"b": 1.0, "a": 0.5}}
    with pytest.raises(citeval_irm.InputError, match="up to 1000"):
        quietly(ir_measures.citeval.calc_aggregate, [EXP @ 10], {"q": {"a": 2000, "b": 1}}, run)
    values = quietly(
        ir_measures.citeval.calc_aggregate, [EXP @ 10], {"q": {"a": 1000, "b": 1}}, run
    )
    assert values[EXP @ 10] == pytest.approx(1 / math.log2(3), abs=1e-12)  # b's 1 is nothing
