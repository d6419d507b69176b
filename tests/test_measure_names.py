"""Measure names as users type them: trec_eval's spellings with lists of cut-offs (its
``-m name.k1,k2``, repeatable), any case where one family is spelled so, and close names
suggested for the rest: one parser (``citeval_irm.base.measures``) for Python and the CLI."""

from __future__ import annotations

import pytest
from ir_measures import AP, RR, R, Success, nDCG
from test_trec_eval_outputs import expected_lines

from citeval_irm import InputError, evaluate, parse_measures
from citeval_irm.cli import main


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("ndcg_cut.5,10,20", [nDCG @ 5, nDCG @ 10, nDCG @ 20]),
        ("recall.10,300 recip_rank", [R @ 10, R @ 300, RR]),
        ("success.1,5,10", [Success @ 1, Success @ 5, Success @ 10]),
        ("map_cut.5,10, RR", [AP @ 5, AP @ 10, RR]),
        ("P_5,10 map", ["P@5", "P@10", AP]),
        ("success", [Success @ 1, Success @ 5, Success @ 10]),  # trec_eval's defaults
        ("ndcg@10 mrr success@5 r@10", [nDCG @ 10, RR, Success @ 5, R @ 10]),
        ("NDCG@10 Mrr@10 hr@5 ap rprec", [nDCG @ 10, RR @ 10, Success @ 5, AP, "Rprec"]),
        ("ndcg(judged_only=True)@10", ["nDCG(judged_only=True)@10"]),
    ],
)
def test_trec_eval_and_any_case_spellings(spec, want):
    assert [str(m) for m in parse_measures(spec)] == [str(m) for m in want]


def test_a_bare_cut_off_family_is_trec_eval_default_list():
    assert [str(m) for m in parse_measures("P")] == [
        f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    ]


@pytest.mark.parametrize(
    ("spec", "close"),
    [("ndgc@10", "nDCG"), ("reciprank", "recip_rank"), ("Sucess@5", "Success"), ("MAPP", "MAP")],
)
def test_unknown_names_suggest_the_close_ones(spec, close):
    with pytest.raises(InputError, match=f"unknown measure '{spec}'.*did you mean {close}"):
        parse_measures(spec)


def test_bad_cut_offs_in_a_list_are_errors_not_truncated():
    with pytest.raises(InputError, match="nDCG@0: the cut-off must be a whole number"):
        parse_measures("ndcg_cut.0,5")
    with pytest.raises(InputError, match="unknown measure 'ndcg_cut.10,23.4'.*ndcg_cut"):
        parse_measures("ndcg_cut.10,23.4")  # trec_eval's atol would make it 23 silently


def test_trec_eval_nicknames_name_what_cannot_be_computed():
    """Every measure of trec_eval 10.0's nicknames is in the table; relstring is not a
    measure, and says where it is printed."""
    assert "GM_MAP" in [str(m) for m in parse_measures("official")]
    with pytest.raises(InputError, match="'all_trec' includes relstring.*citeval trec_eval"):
        parse_measures("all_trec")


def test_repeated_m_as_trec_eval_takes_it_gives_its_lines(capsys, trec_eval_dir):
    """trec_eval's own ``-m P.5,7,3 -m recall.20,2000 -mndcg_cut.10,20 -msuccess.2,5,20``
    (out.test.meas_params) given to ``citeval eval`` as such prints trec_eval's lines."""
    want = [
        line
        for line in expected_lines(trec_eval_dir / "out.test.meas_params")
        if line.startswith(("P_", "recall_", "ndcg_cut_1", "ndcg_cut_2", "success_"))
        and not line.startswith("ndcg_cut_23")
    ]
    args = ["eval", str(trec_eval_dir / "results.test"), "--qrels"]
    args += [str(trec_eval_dir / "qrels.test"), "--format", "trec_eval", "--per-query"]
    for spec in ("P.5,7,3", "recall.20,2000", "ndcg_cut.10,20", "success.2,5,20"):
        args += ["-m", spec]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == want


def test_cli_unknown_measure_is_one_error_line_with_suggestion(capsys, trec_eval_dir):
    args = ["eval", str(trec_eval_dir / "results.test"), "--qrels"]
    code = main([*args, str(trec_eval_dir / "qrels.test"), "-m", "RR", "-m", "ndgc@10"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("citeval: error: unknown measure 'ndgc@10'") and "nDCG" in err


def test_python_any_case_scores_as_the_canonical_name(trec_eval_dir):
    run, qrels = trec_eval_dir / "results.test", trec_eval_dir / "qrels.test"
    lower = evaluate(run, qrels, "ndcg@10 mrr success@5")
    canonical = evaluate(run, qrels, [nDCG @ 10, RR, Success @ 5])
    assert lower.aggregates == canonical.aggregates
