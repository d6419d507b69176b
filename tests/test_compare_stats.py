"""The statistics behind `compare`, each against an independent computation: a direct
enumeration for the randomisation test and the Tukey HSD, scipy for the classic tests and
statsmodels for the corrections."""

from __future__ import annotations

import importlib.util
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from compare_reference import (
    direct_tukey_p,
    drawn_tukey_p,
    enumerated_sign_flip_p,
    enumerated_signed_rank_p,
    enumerated_tukey_p,
)
from scipy import stats as scipy_stats

from citeval_irm.base import choices
from citeval_irm.comparison import stats, tukey

statsmodels_multitest = pytest.importorskip("statsmodels.stats.multitest")


# --------------------------------------------------------------------------- randomisation


def test_randomisation_exact_equals_direct_enumeration():
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(0.1, 0.3, size=11), 3)
    d[[2, 7]] = 0.0  # zero differences: irrelevant to the sign flips, enumeration skips them
    p, exact = stats.randomisation_test(d, 10_000, np.random.default_rng(0))
    assert exact.tolist() == [True]  # 9 non-zero differences: 512 sign vectors <= 10,000
    assert p[0] == pytest.approx(enumerated_sign_flip_p(d), abs=1e-15)


def test_randomisation_sampled_form_against_enumeration():
    """The Monte Carlo form (b + 1) / (B + 1) estimates the exact p within its error."""
    d = np.array([0.5, 0.25, -0.2, 0.33, 0.1, 0.9, -0.05, 0.4, 0.15, -0.3, 0.6, 0.2])
    exact_p = enumerated_sign_flip_p(d)
    sampled, exact = stats.randomisation_test(d, 40_000, np.random.default_rng(5), exact=False)
    assert not exact[0]
    assert abs(sampled[0] - exact_p) < 4 * np.sqrt(exact_p * (1 - exact_p) / 40_000) + 1 / 40_001


def test_randomisation_never_zero_and_seeded():
    d = np.full(200, 0.2) + np.random.default_rng(1).normal(0, 0.01, 200)
    p1, _ = stats.randomisation_test(d, 999, np.random.default_rng(9))
    p2, _ = stats.randomisation_test(d, 999, np.random.default_rng(9))
    assert p1[0] == p2[0] == 1 / 1000  # nothing as extreme: the observed labelling counts once


def test_randomisation_all_zero_is_one():
    p, exact = stats.randomisation_test(np.zeros((50, 2)), 1000, np.random.default_rng(0))
    assert p.tolist() == [1.0, 1.0] and exact.all()


@pytest.mark.slow
def test_randomisation_large_is_bounded_in_memory():
    """120,000 queries x 10,000 permutations in batches: tens of MB, not the 10 GB of one
    sign matrix."""
    d = np.random.default_rng(0).normal(0.0, 0.3, size=(120_000, 2))
    d[:, 1] += 0.01
    tracemalloc.start()
    p, _ = stats.randomisation_test(d, 10_000, np.random.default_rng(1))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 150 * 2**20
    assert p[1] < 0.001 < p[0]  # the shifted column is significant, the null one is not


# --------------------------------------------------------------------------- Tukey HSD


def test_tukey_exact_equals_direct_enumeration():
    values = np.array([[0.1, 0.5, 0.3], [0.2, 0.9, 0.4], [0.0, 1.0, 0.5], [0.3, 0.3, 0.3]])
    p, exact = tukey.randomised_tukey_hsd(values, 10_000, np.random.default_rng(0))
    assert exact  # 3 varying rows: 6**3 = 216 shufflings; the constant row is left out
    np.testing.assert_allclose(p[:, :, 0], enumerated_tukey_p(values), atol=1e-15)


def test_tukey_sampled_against_direct_implementation():
    values = np.random.default_rng(4).random((8, 3))
    values[:, 2] += 0.25
    p, exact = tukey.randomised_tukey_hsd(values, 20_000, np.random.default_rng(1), exact=False)
    direct = direct_tukey_p(values, 20_000, seed=2)
    assert not exact
    np.testing.assert_allclose(p[:, :, 0], direct, atol=0.015)


def test_tukey_many_systems_against_direct_implementation():
    """Nine systems (9! orders: too many to tabulate): Fisher-Yates above the eighth slot."""
    values = np.random.default_rng(6).random((40, 9))
    values[:, 8] += 0.5
    p, exact = tukey.randomised_tukey_hsd(values, 2_000, np.random.default_rng(2))
    direct = direct_tukey_p(values, 2_000, seed=3)
    assert not exact
    np.testing.assert_allclose(p[:, :, 0], direct, atol=0.05)
    assert p[0, 8, 0] < 0.01 and p[0, 1, 0] > 0.2


@pytest.mark.parametrize("systems", [2, 3, 5, 8, 9, 12])
def test_tukey_equals_its_draws_redone_with_plain_loops(systems, monkeypatch):
    """The vectorised HSD (every measure, every shuffling of a batch at once) gives exactly
    the p-values of the same documented draws applied one query and one shuffling at a
    time, whatever the batch size; queries where every system scores the same (here 4 of
    15) are left out of the draws, as documented."""
    rng = np.random.default_rng(systems)
    values = np.round(rng.random((15, systems, 3)), 1)
    values[:4] = 0.5
    values[:, -1] += 0.1
    expected = drawn_tukey_p(values, 300, seed=5)
    p, exact = tukey.randomised_tukey_hsd(values, 300, np.random.default_rng(5), exact=False)
    assert not exact
    np.testing.assert_array_equal(p, expected)
    monkeypatch.setattr(tukey, "BATCH_ELEMENTS", 7 * systems)  # batches of a few shufflings
    again, _ = tukey.randomised_tukey_hsd(values, 300, np.random.default_rng(5), exact=False)
    np.testing.assert_array_equal(again, expected)


def test_tukey_shufflings_are_uniform_over_the_orders():
    """Every order of 10 systems' slots equally likely: each system lands in each slot a
    tenth of the time, within 4 standard errors."""
    slots = tukey._random_slots(np.random.default_rng(0), 10, 2_000, 50)  # 100,000 rows
    counts = np.stack([(slots == system).mean(axis=(1, 2)) for system in range(10)])
    assert np.abs(counts - 0.1).max() < 4 * np.sqrt(0.1 * 0.9 / 100_000)
    assert (np.sort(slots, axis=0) == np.arange(10)[:, None, None]).all()  # permutations


# --------------------------------------------------------------------------- scipy's tests


@pytest.fixture
def paired():
    rng = np.random.default_rng(11)
    base = rng.random(80)
    system = np.clip(base + rng.normal(0.04, 0.15, 80), 0, 1)
    system[:10] = base[:10]  # ties
    return base, system


def test_classic_tests_equal_scipy(paired):
    base, system = paired
    d = system - base
    assert stats.paired_t(d).p == scipy_stats.ttest_rel(system, base).pvalue
    nonzero = d[d != 0]  # 70 non-zero differences: the exact distribution
    wilcoxon = stats.wilcoxon(d)
    assert wilcoxon.method == "exact"
    assert wilcoxon.p == pytest.approx(scipy_stats.wilcoxon(nonzero, method="exact").pvalue)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    assert stats.sign_test(d).p == scipy_stats.binomtest(wins, wins + losses).pvalue


def test_classic_tests_without_any_difference():
    assert stats.wilcoxon(np.zeros(5)).p == stats.sign_test(np.zeros(5)).p == 1.0
    assert stats.wilcoxon(np.zeros(5)).direction == 0
    t = stats.paired_t(np.zeros(5))
    assert np.isnan(t.p) and "same difference" in t.reason


def test_effect_size_is_cohens_dz(paired):
    base, system = paired
    d = system - base
    assert stats.effect_size(d) == pytest.approx(d.mean() / d.std(ddof=1))
    assert np.isnan(stats.effect_size(np.zeros(4)))
    assert np.isnan(stats.effect_size(np.full(4, 0.5)))  # never +inf
    assert np.isnan(stats.effect_size(np.array([0.3])))


def test_percentile_bootstrap_equals_direct_resampling(paired):
    base, system = paired
    d = system - base
    low, high = stats.bootstrap_ci(d, 3_000, np.random.default_rng(7), 0.95, "percentile")
    picks = np.random.default_rng(7).integers(0, len(d), size=(3_000, len(d)))
    direct = np.quantile(d[picks].mean(axis=1), [0.025, 0.975])
    np.testing.assert_allclose([low[0], high[0]], direct, rtol=1e-12)
    reference = scipy_stats.bootstrap(
        (d,), np.mean, n_resamples=3_000, method="percentile", rng=np.random.default_rng(1)
    ).confidence_interval
    assert abs(low[0] - reference.low) < 0.01 and abs(high[0] - reference.high) < 0.01


# --------------------------------------------------------------------------- Wilcoxon, exactly


def tied_cases():
    """Few queries, many zeros, ties in the magnitudes (R@k-like steps): n queries, m of
    them non-zero (small enough to enumerate 2**m sign assignments)."""
    rng = np.random.default_rng(21)
    steps = np.array([-1.0, -0.5, -0.25, 0.25, 0.5, 0.5, 1.0])
    cases = []
    for n, m in ((3, 2), (8, 5), (20, 8), (40, 11), (100, 12)):
        d = np.zeros(n)
        d[rng.choice(n, m, replace=False)] = rng.choice(steps, size=m)
        cases.append(d)
    return cases


@pytest.mark.parametrize("d", tied_cases(), ids=lambda d: f"n{len(d)}-m{np.count_nonzero(d)}")
def test_wilcoxon_exact_equals_enumeration_and_scipys_permutation_null(d):
    ours = stats.wilcoxon(d)
    assert ours.method == "exact"
    assert ours.p == pytest.approx(enumerated_signed_rank_p(d), abs=1e-12)
    nonzero = d[d != 0]
    if len(nonzero) > 1:  # scipy needs two observations
        exact_null = scipy_stats.PermutationMethod(n_resamples=np.inf)
        reference = scipy_stats.wilcoxon(nonzero, method=exact_null).pvalue
        assert ours.p == pytest.approx(reference, abs=1e-12)


def test_wilcoxon_counts_only_the_non_zero_differences():
    """5 equal wins among 100 queries: the exact p is 2 / 2**5 = 0.0625 (scipy's auto on
    the full vector takes the normal approximation: p = 0.025)."""
    d = np.zeros(100)
    d[:5] = 0.2
    result = stats.wilcoxon(d)
    assert (result.p, result.method, result.direction) == (2 / 32, "exact", 1)
    assert scipy_stats.wilcoxon(d).pvalue < 0.05  # what the count of zeros used to cost


def test_wilcoxon_exact_without_ties_equals_scipy_exact():
    d = np.random.default_rng(4).normal(0.1, 0.3, size=90)  # 90 distinct magnitudes
    result = stats.wilcoxon(d)
    assert result.method == "exact"
    assert result.p == pytest.approx(scipy_stats.wilcoxon(d, method="exact").pvalue, rel=1e-9)


def test_wilcoxon_normal_above_the_limit_equals_scipy_with_tie_correction():
    d = np.round(np.random.default_rng(5).normal(0.02, 0.3, size=400), 1)
    d[:150] = 0.0
    result = stats.wilcoxon(d)
    assert result.method == "normal"
    nonzero = d[d != 0]
    expected = scipy_stats.wilcoxon(nonzero, method="approx", correction=False).pvalue
    assert result.p == pytest.approx(expected, rel=1e-12)


def test_each_test_has_its_own_direction():
    d = np.concatenate([np.full(40, 1 / 6), np.full(10, -1.0)])  # wins 40 of 50, mean < 0
    assert d.mean() < 0
    assert stats.sign_test(d).direction == 1
    assert stats.paired_t(d).direction == -1
    ranks = scipy_stats.rankdata(np.abs(d))
    expected = np.sign(ranks[d > 0].sum() - ranks[d < 0].sum())
    assert stats.wilcoxon(d).direction == expected


# --------------------------------------------------------------------------- BCa, no inference


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bca_equals_scipy(seed):
    """Against scipy.stats.bootstrap(method="BCa") on many zeros: equal within the Monte
    Carlo error of 20,000 resamples each."""
    rng = np.random.default_rng(seed)
    d = np.where(rng.random(120) < 0.85, 0.0, np.round(rng.normal(0.05, 0.3, 120), 2))
    low, high = stats.bootstrap_ci(d, 20_000, np.random.default_rng(seed + 10))
    reference = scipy_stats.bootstrap(
        (d,), np.mean, n_resamples=20_000, method="BCa", rng=np.random.default_rng(seed + 20)
    ).confidence_interval
    width = reference.high - reference.low
    assert abs(low[0] - reference.low) < 0.05 * width
    assert abs(high[0] - reference.high) < 0.05 * width


@pytest.mark.parametrize(
    ("d", "why"),
    [
        (np.array([0.4]), "one query"),
        (np.full(6, 0.25), "every query has the same difference (+0.25)"),
        (np.zeros(6), "every query has the same difference (+0)"),
    ],
)
def test_no_inference_from_nothing(d, why):
    low, high = stats.bootstrap_ci(d, 500, np.random.default_rng(0))
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert np.isnan(stats.effect_size(d))
    t = stats.paired_t(d)
    assert np.isnan(t.p) and why in t.reason
    assert stats.degenerate(d).startswith(why)


def test_a_nan_difference_is_an_error():
    d = np.array([0.1, np.nan, 0.2])
    for call in (
        lambda: stats.randomisation_test(d, 100, np.random.default_rng(0)),
        lambda: stats.bootstrap_ci(d, 100, np.random.default_rng(0)),
    ):
        with pytest.raises(ValueError, match="nan at row 1, column 0: not a number"):
            call()


def test_permutations_needed_for_a_family():
    """23 runs, all pairs, 2 measures: 506 tests; Holm's floor 506 / (B + 1) must be at most
    alpha / 2."""
    needed = stats.permutations_needed(23 * 22 // 2 * 2, 0.05)
    assert 506 / (needed + 1) <= 0.025 < 506 / needed
    assert stats.permutations_needed(1, 0.05) == 39


# --------------------------------------------------------------------------- simulation


def simulation():
    path = Path(__file__).resolve().parents[1] / "scripts" / "simulate_stats.py"
    spec = importlib.util.spec_from_file_location("simulate_stats", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_simulated_coverage_and_type_one_error_with_90_percent_ties():
    """Seeded and small (seconds), 90 % of the differences zero, the others skewed. With
    100 non-zero differences (1,000 queries) BCa covers within three standard errors of
    95 %; with 10 (100 queries) no bootstrap interval does, but BCa covers more often than
    the percentile interval on the same draws (at 4,000 replications: 0.891 against 0.861,
    +- 0.005; see the README). Every test keeps its level on null differences."""
    sim = simulation()
    bca, se, count = sim.coverage(1_000, 300, resamples=1_000, seed=3)
    assert count == 300 and abs(bca - 0.95) < 3 * se
    bca, _, _ = sim.coverage(100, 1_000, resamples=1_000, seed=3)
    percentile, _, _ = sim.coverage(100, 1_000, resamples=1_000, method="percentile", seed=3)
    assert bca > percentile
    for name, (rate, se) in sim.type_one_error(200, 400, permutations=1_000, seed=4).items():
        assert rate < 0.05 + 3 * se, name


# --------------------------------------------------------------------------- corrections


@pytest.mark.parametrize(
    ("ours", "theirs"), [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]
)
def test_corrections_equal_statsmodels(ours, theirs):
    rng = np.random.default_rng(2)
    p = np.concatenate([rng.random(15) * 0.05, rng.random(10), [0.01, 0.01, 1.0]])
    expected = statsmodels_multitest.multipletests(p, method=theirs)[1]
    np.testing.assert_allclose(stats.adjust(p, ours), expected, rtol=1e-12)


def test_correction_names():
    assert (
        choices.correction_name("fdr_bh") == choices.correction_name("Benjamini-Hochberg") == "bh"
    )
    assert stats.adjust(np.array([0.2, 0.01]), "none").tolist() == [0.2, 0.01]
    with pytest.raises(ValueError, match="unknown correction"):
        choices.correction_name("sidak")
