"""Sanity checks of the oracles on tiny cases computed by hand.

Each oracle is checked on the ordinary case, a doc listed twice, a gold paper not retrieved
and the citing paper in the list, plus the inputs on which the author code raises. The
expected values are worked out in the comments, from the author code's rules, not from the
oracle.
"""

from __future__ import annotations

from math import log2

import pytest

from . import duallcr, goyal2026, hatten, masterset2026, symtax

approx = pytest.approx

# 1 / log2(r + 1) for r = 2, 3, 4
D2 = 1 / log2(3)  # 0.6309297535714575
D3 = 1 / log2(4)  # 0.5
D4 = 1 / log2(5)  # 0.43067655807339306


# --------------------------------------------------------------------------- DualLCR


def test_duallcr_ordinary():
    # A_G_0: gold G (from the id) at rank 2 -> R@10 1, RR@10 1/2, nDCG@10 1/log2(3)
    # B_H_1: gold H at rank 1 -> 1, 1, 1
    # C_K_2: gold K at rank 12 (> 10) -> 0, 0, 0
    run = {
        "A_G_0": ["x", "G", "y"],
        "B_H_1": ["H"],
        "C_K_2": [f"n{i}" for i in range(11)] + ["K"],
    }
    per_query, aggregate = duallcr.score(run, {})
    assert per_query["A_G_0"] == approx({"R@10": 1.0, "RR@10": 0.5, "nDCG@10": D2})
    assert per_query["B_H_1"] == approx({"R@10": 1.0, "RR@10": 1.0, "nDCG@10": 1.0})
    assert per_query["C_K_2"] == approx({"R@10": 0.0, "RR@10": 0.0, "nDCG@10": 0.0})
    # means over the three predictions: R 2/3, RR (1/2 + 1)/3 = 1/2, nDCG (0.6309 + 1)/3
    assert aggregate == approx({"R@10": 2 / 3, "RR@10": 0.5, "nDCG@10": (D2 + 1) / 3})


def test_duallcr_gold_comes_from_the_context_id_not_the_qrels():
    # the qrels name Z; the script reads G off "A_G_0": rank 1
    per_query, _ = duallcr.score({"A_G_0": ["G", "Z"]}, {"A_G_0": [("Z", 1)]})
    assert per_query["A_G_0"]["RR@10"] == 1.0


def test_duallcr_duplicate_counts_through_the_first_copy():
    # x, x, G, G: .index(G) = 2 -> rank 3 (both copies of x push it down; the second G is
    # never seen): RR@10 1/3, nDCG@10 1/log2(4) = 0.5, R@10 1 (never 2)
    per_query, _ = duallcr.score({"A_G_0": ["x", "x", "G", "G"]})
    assert per_query["A_G_0"] == approx({"R@10": 1.0, "RR@10": 1 / 3, "nDCG@10": D3})


def test_duallcr_gold_not_retrieved_crashes():
    # sorted_preds.index("G") on a list without G
    with pytest.raises(ValueError):
        duallcr.score({"A_G_0": ["x", "y"]})


def test_duallcr_citing_paper_is_not_removed():
    # A is the citing paper of A_G_0 and stays at rank 1: G at rank 2, RR@10 1/2
    per_query, _ = duallcr.score({"A_G_0": ["A", "G"]}, {}, {"A_G_0": "A"})
    assert per_query["A_G_0"]["RR@10"] == 0.5


def test_duallcr_other_crashes():
    with pytest.raises(IndexError):  # no "_" in the context id
        duallcr.score({"nounderscore": ["x"]})
    with pytest.raises(ZeroDivisionError):  # no predictions: len(ranks) == 0
        duallcr.score({})


def test_duallcr_loops_over_the_predictions():
    # a context only in the qrels is not averaged: one prediction, rank 1 -> RR@10 1
    _, aggregate = duallcr.score({"A_G_0": ["G"]}, {"A_G_0": [("G", 1)], "B_H_1": [("H", 1)]})
    assert aggregate["RR@10"] == 1.0


# --------------------------------------------------------------------------- SymTax


def test_symtax_ordinary():
    # gold G at rank 2: R@5..50 1, nDCG@10 1/log2(3), RR@10 1/2
    per_query, aggregate = symtax.score({"A_G_0": ["x", "G"]}, {"A_G_0": [("G", 1)]})
    expected = {"R@5": 1, "R@10": 1, "R@20": 1, "R@50": 1, "nDCG@10": D2, "RR@10": 0.5}
    assert per_query["A_G_0"] == approx(expected)
    assert aggregate == approx(expected)


def test_symtax_gold_not_retrieved_gets_rank_100():
    # G missing -> rank 100: 0 for every printed measure (k <= 50), a hit at k = 100
    qrels = {"A_G_0": [("G", 1)]}
    per_query, _ = symtax.score({"A_G_0": ["x"]}, qrels, cutoffs={"R": (50, 100), "RR": (10,)})
    assert per_query["A_G_0"] == approx({"R@50": 0.0, "R@100": 1.0, "RR@10": 0.0})
    # a gold paper retrieved at rank 150 is not a hit at 100, a missing one is
    long_list = [f"n{i}" for i in range(149)] + ["G"]
    per_query, _ = symtax.score({"A_G_0": long_list}, qrels, cutoffs={"R": (100,)})
    assert per_query["A_G_0"]["R@100"] == 0.0


def test_symtax_loops_over_the_test_set():
    # B_H_1 has no ranking: rank 100, averaged as 0 -> R@10 (1 + 0) / 2
    qrels = {"A_G_0": [("G", 1)], "B_H_1": [("H", 1)]}
    per_query, aggregate = symtax.score({"A_G_0": ["G"]}, qrels)
    assert per_query["B_H_1"]["R@10"] == 0.0
    assert aggregate["R@10"] == 0.5


def test_symtax_duplicate_counts_through_the_first_copy():
    # x, x, G, G: rank 3 -> RR@10 1/3, R@5 1, nDCG@10 0.5
    per_query, _ = symtax.score({"A_G_0": ["x", "x", "G", "G"]}, {"A_G_0": [("G", 1)]})
    assert per_query["A_G_0"] == approx(
        {"R@5": 1, "R@10": 1, "R@20": 1, "R@50": 1, "nDCG@10": D3, "RR@10": 1 / 3}
    )


def test_symtax_citing_paper_is_not_removed():
    per_query, _ = symtax.score({"A_G_0": ["A", "G"]}, {"A_G_0": [("G", 1)]}, {"A_G_0": "A"})
    assert per_query["A_G_0"]["RR@10"] == 0.5


def test_symtax_single_gold_is_the_first_listed_relevant_doc():
    # ref_id = G1 (N is judged 0): G2 at rank 1 does not count, G1 at rank 2 -> RR@10 1/2
    qrels = {"q": [("N", 0), ("G1", 1), ("G2", 1)]}
    per_query, _ = symtax.score({"q": ["G2", "G1"]}, qrels)
    assert per_query["q"]["RR@10"] == 0.5


def test_symtax_crashes():
    with pytest.raises(IndexError):  # no relevant doc: no ref_id
        symtax.score({"q": ["x"]}, {"q": [("x", 0)]})
    with pytest.raises(ZeroDivisionError):  # empty test set
        symtax.score({}, {})


# --------------------------------------------------------------------------- HAtten


def test_hatten_ordinary():
    # K_list 1, 2 -> max_K 2: candidates x, G, y -> [:2] = x, G: R@1 0, R@2 1
    per_query, aggregate = hatten.score(
        {"A_G_0": ["x", "G", "y"]}, {"A_G_0": [("G", 1)]}, {"A_G_0": "A"}, {"R": (1, 2)}
    )
    assert per_query["A_G_0"] == {"R@1": 0.0, "R@2": 1.0}
    assert aggregate == {"R@1": 0.0, "R@2": 1.0}


def test_hatten_duplicate_counts_once():
    # gold G1, G2; top 2 = G1, G1 -> set intersection {G1}: R@2 1/2 (a list sum would say 1)
    per_query, _ = hatten.score(
        {"q": ["G1", "G1", "G2"]}, {"q": [("G1", 1), ("G2", 1)]}, {"q": "P"}, {"R": (2, 3)}
    )
    assert per_query["q"] == {"R@2": 0.5, "R@3": 1.0}


def test_hatten_gold_not_retrieved_and_missing_query():
    # q1: G not retrieved -> 0; q2: no ranking -> empty candidates -> 0; both averaged
    qrels = {"q1": [("G", 1)], "q2": [("H", 1)], "q3": [("K", 1)]}
    run = {"q1": ["x"], "q3": ["K"]}
    per_query, aggregate = hatten.score(run, qrels, {"q1": "a", "q2": "b", "q3": "c"}, {"R": (10,)})
    assert [per_query[q]["R@10"] for q in ("q1", "q2", "q3")] == [0.0, 0.0, 1.0]
    assert aggregate["R@10"] == approx(1 / 3)


def test_hatten_citing_paper_removed_before_truncation():
    # max_K 2: candidates = run[:3] = x, A, G; remove A -> x, G; [:2] -> x, G: R@2 1
    per_query, _ = hatten.score(
        {"A_G_0": ["x", "A", "G"]}, {"A_G_0": [("G", 1)]}, {"A_G_0": "A"}, {"R": (2,)}
    )
    assert per_query["A_G_0"]["R@2"] == 1.0


def test_hatten_citing_paper_removed_once():
    # max_K 3: candidates = A, x, A, G; remove the first A -> x, A, G: R@2 0, R@3 1
    # (removing every copy would give x, G: R@2 1)
    per_query, _ = hatten.score(
        {"A_G_0": ["A", "x", "A", "G"]}, {"A_G_0": [("G", 1)]}, {"A_G_0": "A"}, {"R": (2, 3)}
    )
    assert per_query["A_G_0"] == {"R@2": 0.0, "R@3": 1.0}


def test_hatten_citing_paper_kept_when_gold():
    # A is gold: not removed; top 1 = A -> R@1 1/2
    per_query, _ = hatten.score(
        {"q": ["A", "G"]}, {"q": [("A", 1), ("G", 1)]}, {"q": "A"}, {"R": (1,)}
    )
    assert per_query["q"]["R@1"] == 0.5


def test_hatten_crashes_and_empty():
    with pytest.raises(ZeroDivisionError):  # no positive id
        hatten.score({"q": ["x"]}, {"q": [("x", 0)]}, {"q": "P"})
    with pytest.raises(KeyError):  # no citing paper for q
        hatten.score({"q": ["x"]}, {"q": [("x", 1)]}, {})
    _, aggregate = hatten.score({}, {}, {}, {"R": (10,)})
    assert aggregate["R@10"] != aggregate["R@10"]  # NaN, as np.mean([])


# --------------------------------------------------------------------------- MasterSet


def test_masterset_ordinary():
    # gold {g1, g2}; list x, g1, y, g2
    # AP = (1/2 + 2/4) / 2 = 0.5; RR = 1/2; R@10 = 1; Success@10 = 1
    # nDCG@10 = (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3)) = 1.0616063 / 1.6309298 = 0.6509209
    per_query, aggregate = masterset2026.score(
        {"Q": ["x", "g1", "y", "g2"]}, {"Q": [("g1", 1), ("g2", 1)]}
    )
    row = per_query["Q"]
    assert row["AP"] == 0.5
    assert row["RR"] == 0.5
    assert row["R@10"] == row["R@500"] == row["Success@10"] == 1.0
    assert row["nDCG@10"] == approx((D2 + D4) / (1 + D2))
    assert set(row) == {"AP", "RR", "R@10", "R@50", "R@100", "R@500", "nDCG@10", "nDCG@20"} | {
        "nDCG@30",
        "nDCG@50",
        "Success@10",
        "Success@20",
    }
    assert aggregate == approx(row)


def test_masterset_duplicate():
    # gold {g1, g2}; list g1, g1, x
    # R@10 = |{g1}| / 2 = 0.5 (scibert_utils, set); the SPECTER and CiteRoute recall count
    # both copies: 2 / 2 = 1.0
    # AP = (1/1 + 2/2) / 2 = 1.0 (every copy is a hit); nDCG@10 = (1 + 1/log2(3)) / (1 +
    # 1/log2(3)) = 1.0; RR = 1; Success@10 = 1
    per_query, _ = masterset2026.score({"Q": ["g1", "g1", "x"]}, {"Q": [("g1", 1), ("g2", 1)]})
    row = per_query["Q"]
    assert row["R@10"] == 0.5
    assert row["AP"] == 1.0
    assert row["nDCG@10"] == approx(1.0)
    assert row["RR"] == row["Success@10"] == 1.0
    ranking, gold = ["g1", "g1", "x"], {"g1", "g2"}
    assert masterset2026.specter_compute_recall(gold, ranking, 10) == 1.0
    assert masterset2026.citeroute_compute_recall_at_k(gold, ranking, 10) == 1.0
    # P@2: set intersection 1 / 2 (scibert_utils) against list sum 2 / 2 (metrics.py)
    assert masterset2026.precision_at_k(ranking, gold, 2) == 0.5
    assert masterset2026.citeroute_compute_precision_at_k(gold, ranking, 2) == 1.0


def test_masterset_gold_not_retrieved():
    per_query, _ = masterset2026.score({"Q": ["x", "y"]}, {"Q": [("g1", 1)]})
    assert set(per_query["Q"].values()) == {0.0}


def test_masterset_query_paper_removed_every_copy_even_when_gold():
    # Q, x, Q, g1 -> x, g1: RR 1/2
    per_query, _ = masterset2026.score({"Q": ["Q", "x", "Q", "g1"]}, {"Q": [("g1", 1)]})
    assert per_query["Q"]["RR"] == 0.5
    # Q is gold but still removed: Q, g1 -> g1; R@10 = 1/2, AP = (1/1) / 2 = 0.5, RR 1
    per_query, _ = masterset2026.score({"Q": ["Q", "g1"]}, {"Q": [("Q", 1), ("g1", 1)]})
    assert per_query["Q"]["R@10"] == 0.5
    assert per_query["Q"]["AP"] == 0.5
    assert per_query["Q"]["RR"] == 1.0


def test_masterset_query_paper_removed_after_truncation():
    # R cut-offs (2,) -> max_k 2: Q, x, g1 -> [:2] = Q, x -> x: R@2 0, RR 0, AP 0
    # (removing first would give x, g1: R@2 1)
    per_query, _ = masterset2026.score(
        {"Q": ["Q", "x", "g1"]}, {"Q": [("g1", 1)]}, cutoffs={"R": (2,)}
    )
    assert per_query["Q"] == {"AP": 0.0, "RR": 0.0, "R@2": 0.0}


def test_masterset_queries_averaged():
    # E: no gold -> not scored; M: gold but no ranking -> not scored; P: RR 1
    qrels = {"E": [("d", 0)], "M": [("g", 1)], "P": [("g", 1)]}
    per_query, aggregate = masterset2026.score({"E": ["d"], "P": ["g"]}, qrels)
    assert list(per_query) == ["P"]
    assert aggregate["RR"] == 1.0
    # nothing scored: every mean is 0.0
    _, aggregate = masterset2026.score({}, qrels)
    assert set(aggregate.values()) == {0.0}


def test_masterset_gold_outside_the_pool_dropped():
    # gold {g1, out}; pool without "out": gold {g1} -> R@10 1; without the pool 1/2
    qrels = {"Q": [("g1", 1), ("out", 1)]}
    per_query, _ = masterset2026.score({"Q": ["g1"]}, qrels, pool={"g1", "x"})
    assert per_query["Q"]["R@10"] == 1.0
    per_query, _ = masterset2026.score({"Q": ["g1"]}, qrels)
    assert per_query["Q"]["R@10"] == 0.5


# --------------------------------------------------------------------------- goyal2026


def test_goyal2026_ordinary():
    # relevant g1, g2 (in qrels order); list x, g1, g2
    # RR = 1 / (index(g1) + 1) = 1/2; R@1 0, R@2 1/2, R@3 1
    # nDCG@3 = (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3)) = 1.1309298 / 1.6309298 = 0.6934264
    per_query, aggregate = goyal2026.score(
        {"q": ["x", "g1", "g2"]},
        {"q": [("g1", 1), ("g2", 1)]},
        cutoffs={"R": (1, 2, 3), "nDCG": (3,)},
    )
    expected = {"RR": 0.5, "R@1": 0.0, "R@2": 0.5, "R@3": 1.0, "nDCG@3": (D2 + D3) / (1 + D2)}
    assert per_query["q"] == approx(expected)
    assert aggregate == approx(expected)


def test_goyal2026_rr_from_the_first_listed_gold():
    # g2 at rank 1 does not count; g1 at rank 2 -> RR 1/2
    per_query, _ = goyal2026.score({"q": ["g2", "g1"]}, {"q": [("g1", 1), ("g2", 1)]})
    assert per_query["q"]["RR"] == 0.5


def test_goyal2026_duplicates():
    # relevant g1, g2; list g1, g1, x: R@2 = |{g1}| / 2 = 1/2 (set); nDCG@2 = (1 +
    # 1/log2(3)) / (1 + 1/log2(3)) = 1; RR = 1 (first copy)
    cut = {"R": (2,), "nDCG": (2,)}
    per_query, _ = goyal2026.score(
        {"q": ["g1", "g1", "x"]}, {"q": [("g1", 1), ("g2", 1)]}, None, cut
    )
    assert per_query["q"] == approx({"RR": 1.0, "R@2": 0.5, "nDCG@2": 1.0})
    # relevant g1 alone; list g1, g1: dcg = 1 + 1/log2(3), idcg = 1 -> nDCG@2 = 1.6309 > 1
    per_query, _ = goyal2026.score({"q": ["g1", "g1"]}, {"q": [("g1", 1)]}, None, cut)
    assert per_query["q"] == approx({"RR": 1.0, "R@2": 1.0, "nDCG@2": 1 + D2})


def test_goyal2026_gold_not_retrieved():
    # the first listed gold g1 is absent, g2 is at rank 1: RR 0, R@1 1/2
    per_query, _ = goyal2026.score(
        {"q": ["g2"]}, {"q": [("g1", 1), ("g2", 1)]}, cutoffs={"R": (1,)}
    )
    assert per_query["q"] == {"RR": 0.0, "R@1": 0.5}


def test_goyal2026_citing_paper_not_removed_and_missing_query():
    # A (the citing paper) stays at rank 1: RR 1/2; B_H_1 has no ranking: 0, still averaged
    qrels = {"A_G_0": [("G", 1)], "B_H_1": [("H", 1)]}
    per_query, aggregate = goyal2026.score({"A_G_0": ["A", "G"]}, qrels, {"A_G_0": "A"})
    assert per_query["A_G_0"]["RR"] == 0.5
    assert per_query["B_H_1"]["RR"] == 0.0
    assert aggregate["RR"] == 0.25


def test_goyal2026_crashes_without_relevant_doc():
    with pytest.raises(IndexError):  # relevant_docs[0]
        goyal2026.score({"q": ["x"]}, {"q": [("x", 0)]})
