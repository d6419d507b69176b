"""The paired statistics of runs on the same queries: for each measure and pair of runs
(each against a baseline, or every pair) the means, the difference, its bootstrap interval,
d_z, wins / ties / losses and the four paired tests (:mod:`citeval_irm.comparison.stats`),
and the randomised Tukey HSD over all runs (:mod:`citeval_irm.comparison.tukey`). The
p-values are not corrected here: the caller corrects its whole family at once
(:func:`citeval_irm.comparison.family.correct`). Random draws are seeded, with separate
streams for the randomisation test, the bootstrap and the Tukey HSD, so one never changes
another's numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import stats, tukey

TEST_FUNCTIONS = {"t": stats.paired_t, "wilcoxon": stats.wilcoxon, "sign": stats.sign_test}
"""The paired tests every comparison computes besides the randomisation test."""


def pairs_of(names: list[str], baseline: str | None) -> list[tuple[int, int]]:
    """(reference, system) positions: each run against the baseline, else every pair."""
    if baseline is not None:
        base = names.index(baseline)
        return [(base, other) for other in range(len(names)) if other != base]
    return [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]


def paired_statistics(
    values: np.ndarray,
    names: list[str],
    measures: list[str],
    baseline: str | None,
    settings,
    use_tukey: bool,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The pairs table (one row per measure and pair, uncorrected: the caller corrects its
    family with :func:`citeval_irm.comparison.family.correct`) and the Tukey HSD table.
    ``p_floor``: the smallest p the primary test can give on the pair's data;
    ``ci_few``: the interval rests on fewer than ``FEW_NONZERO`` non-zero differences."""
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(settings.seed).spawn(3)]
    keys = [(m, a, b) for m in range(len(measures)) for a, b in pairs_of(names, baseline)]
    single = len(values) < 2  # one query: nothing to infer, whatever the test
    tukey_p, tukey_table, tukey_floor = None, None, np.nan
    if use_tukey and len(names) >= 2:
        tukey_p, tukey_table, tukey_floor = _tukey(
            values, names, measures, settings.permutations, streams[2], single
        )
    if not keys:
        return pd.DataFrame(columns=PAIR_COLUMNS), tukey_table
    diffs = np.stack([values[:, b, m] - values[:, a, m] for m, a, b in keys], axis=1)
    p_rand, exact = stats.randomisation_test(diffs, settings.permutations, streams[0])
    low, high = stats.bootstrap_ci(diffs, settings.bootstrap, streams[1], settings.confidence)
    rows = []
    for column, (m, a, b) in enumerate(keys):
        d = diffs[:, column]
        nonzero = int((d != 0).sum())
        row = {
            "measure": measures[m],
            "baseline": names[a],
            "system": names[b],
            "baseline_mean": values[:, a, m].mean(),
            "system_mean": values[:, b, m].mean(),
            "diff": d.mean(),
            "ci_low": low[column],
            "ci_high": high[column],
            "ci_few": bool(nonzero < stats.FEW_NONZERO and not np.isnan(low[column])),
            "effect_size": stats.effect_size(d),
            "wins": int((d > 0).sum()),
            "ties": int((d == 0).sum()),
            "losses": int((d < 0).sum()),
            "p_randomisation": np.nan if single else p_rand[column],
            "randomisation_exact": bool(exact[column]),
        }
        floors = {
            "randomisation": stats.p_floor(
                "randomisation",
                nonzero,
                exact=bool(exact[column]),
                permutations=settings.permutations,
            ),
            "tukey": tukey_floor,
        }
        p_tukey = None if tukey_p is None else tukey_p[a, b, m]
        rows.append(_with_tests(row, d, nonzero, settings.test, floors, p_tukey))
    return pd.DataFrame(rows), tukey_table


def _tukey(
    values: np.ndarray,
    names: list[str],
    measures: list[str],
    permutations: int,
    stream: np.random.Generator,
    single: bool,
) -> tuple[np.ndarray, pd.DataFrame, float]:
    """The randomised Tukey HSD over all runs: its p per (run a, run b, measure) (NaN with
    one query), its table and the smallest p it can give."""
    p, exact = tukey.randomised_tukey_hsd(values, permutations, stream)
    if single:
        p[:] = np.nan
    return (
        p,
        _tukey_table(values, names, measures, p, exact),
        _tukey_floor(values, permutations, exact),
    )


def _with_tests(
    row: dict, d: np.ndarray, nonzero: int, test: str, floors: dict, p_tukey: float | None
) -> dict:
    """``row`` (a pair's differences ``d`` described, its randomisation test) with the
    other paired tests, the Tukey HSD's p (``None``: not run), and for the chosen ``test``
    its own direction, its floor (``floors``: the randomisation test's and Tukey's; the
    others' are added) and what the row cannot show."""
    directions = {"randomisation": _sign(row["diff"]), "tukey": _sign(row["diff"])}
    for name, function in TEST_FUNCTIONS.items():
        outcome = function(d)
        row[f"p_{name}"] = outcome.p
        directions[name] = outcome.direction
        floors[name] = stats.p_floor(name, nonzero, method=outcome.method)
        if name == "wilcoxon":
            row["wilcoxon_method"] = outcome.method
    if p_tukey is not None:
        row["p_tukey"] = p_tukey
    row["direction"] = directions[test]
    row["p_floor"] = np.nan if np.isnan(row[f"p_{test}"]) else floors[test]
    row["unavailable"] = _unavailable(row, stats.degenerate(d), test)
    return row


def _tukey_floor(values: np.ndarray, permutations: int, exact: bool) -> float:
    """The smallest p the Tukey HSD can give: 1 / (B + 1) sampled, at least 1 / S for
    the S shufflings enumerated."""
    if not exact:
        return stats.p_floor("tukey", 0, exact=False, permutations=permutations)
    varying = int((values != values[:, :1, :]).any(axis=(1, 2)).sum())
    return 1.0 / float(math.factorial(values.shape[1]) ** varying)


def _sign(value: float) -> int:
    return int(np.sign(value))


def _unavailable(row: dict, reason: str | None, test: str) -> str | None:
    """What the row cannot show and why (``None``: everything is there)."""
    missing = [label for label, column in _INFERENCE_COLUMNS if np.isnan(row.get(column, 0.0))]
    if not missing:
        return None
    if reason is None:
        reason = "the bootstrap gives no interval (zero width, or BCa undefined)"
    return f"{', '.join(missing)}: {reason}"


_INFERENCE_COLUMNS = [
    ("p(rand)", "p_randomisation"),
    ("p(t)", "p_t"),
    ("p(wsr)", "p_wilcoxon"),
    ("p(sign)", "p_sign"),
    ("p(tukey)", "p_tukey"),
    ("d_z", "effect_size"),
    ("CI", "ci_low"),
]


PAIR_COLUMNS = [
    "measure",
    "baseline",
    "system",
    "baseline_mean",
    "system_mean",
    "diff",
    "ci_low",
    "ci_high",
    "ci_few",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "p_randomisation",
    "randomisation_exact",
    "p_t",
    "p_wilcoxon",
    "p_sign",
    "wilcoxon_method",
    "direction",
    "p_floor",
    "unavailable",
    "p_adj",
    "significant",
    "p_adj_floor",
    "reachable",
]


def _tukey_table(
    values: np.ndarray, names: list[str], measures: list[str], p: np.ndarray, exact: bool
) -> pd.DataFrame:
    """One row per measure and pair of runs (b minus a, for every a before b)."""
    means = values.mean(axis=0)
    rows = [
        {
            "measure": measure,
            "system_a": names[a],
            "system_b": names[b],
            "diff": means[b, m] - means[a, m],
            "p_tukey": p[a, b, m],
            "exact": exact,
        }
        for m, measure in enumerate(measures)
        for a in range(len(names))
        for b in range(a + 1, len(names))
    ]
    return pd.DataFrame(rows)
