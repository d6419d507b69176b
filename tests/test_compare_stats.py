"""The statistics behind `compare`, each against an independent computation: a direct
enumeration for the randomisation test and the Tukey HSD, scipy for the classic tests and
statsmodels for the corrections."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from compare_reference import direct_tukey_p, enumerated_sign_flip_p, enumerated_tukey_p
from scipy import stats as scipy_stats

from citeval_irm import stats

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
    p, exact = stats.randomised_tukey_hsd(values, 10_000, np.random.default_rng(0))
    assert exact  # 3 varying rows: 6**3 = 216 shufflings; the constant row is left out
    np.testing.assert_allclose(p[:, :, 0], enumerated_tukey_p(values), atol=1e-15)


def test_tukey_sampled_against_direct_implementation():
    values = np.random.default_rng(4).random((8, 3))
    values[:, 2] += 0.25
    p, exact = stats.randomised_tukey_hsd(values, 20_000, np.random.default_rng(1), exact=False)
    direct = direct_tukey_p(values, 20_000, seed=2)
    assert not exact
    np.testing.assert_allclose(p[:, :, 0], direct, atol=0.015)


def test_tukey_many_systems_sorted_keys_path():
    """Nine systems (9! orders: too many to tabulate) use sorted random keys."""
    values = np.random.default_rng(6).random((40, 9))
    values[:, 8] += 0.5
    p, exact = stats.randomised_tukey_hsd(values, 2_000, np.random.default_rng(2))
    direct = direct_tukey_p(values, 2_000, seed=3)
    assert not exact
    np.testing.assert_allclose(p[:, :, 0], direct, atol=0.05)
    assert p[0, 8, 0] < 0.01 and p[0, 1, 0] > 0.2


def test_tukey_is_the_stricter_test():
    """Over all pairs at once, Tukey's p is at least the pair's own randomisation p."""
    values = np.random.default_rng(8).random((60, 4))
    values[:, 3] += 0.08
    tukey, _ = stats.randomised_tukey_hsd(values, 5_000, np.random.default_rng(0))
    pair, _ = stats.randomisation_test(values[:, 3] - values[:, 0], 5_000, np.random.default_rng(0))
    assert tukey[0, 3, 0] >= pair[0]


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
    assert stats.correction_name("fdr_bh") == stats.correction_name("Benjamini-Hochberg") == "bh"
    assert stats.adjust(np.array([0.2, 0.01]), "none").tolist() == [0.2, 0.01]
    with pytest.raises(ValueError, match="unknown correction"):
        stats.correction_name("sidak")
