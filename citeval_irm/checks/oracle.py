"""``gold_always_present``: was the gold paper inserted into the candidates before
reranking (an oracle first stage)?

A run that holds the gold in nearly every ranking that could miss it is flagged: the rule
(:func:`oracle_verdict`, on counts) reads only the rankings of queries with gold that cover
at most :data:`ORACLE_MAX_COVERAGE` of their admissible pool, and flags the run when so few of
them miss their gold that an honest first stage would hardly do it (a one-sided binomial
test); :func:`oracle_check` applies it to a run's rankings for
:func:`~citeval_irm.checks.protocol.validate`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..base.errors import EvalWarning
from ..evaluation.results import RankedQueries

ORACLE_MAX_COVERAGE = 0.5
"""``gold_always_present`` reads only the rankings that cover at most this share of their
query's admissible pool: a ranking of most of the pool holds the gold whoever made it (an
honest BM25 ranking of 99 % of the demo's pool holds it for 162 of 163 queries)."""

ORACLE_MAX_MISSED = 0.01
"""... and flags a run only when at most this share of those rankings miss their gold ..."""

ORACLE_HONEST_MISS = 0.05
ORACLE_ALPHA = 0.01
"""... and when so few misses would come with probability below ``ORACLE_ALPHA`` from an
honest first stage that misses the gold of ``ORACLE_HONEST_MISS`` of such rankings (one-sided
binomial test): with no miss at all that takes at least 90 rankings (0.95**90 < 0.01); of
163, one miss is flagged (p = 0.002) and two are not (p = 0.011)."""


@dataclass(frozen=True)
class OracleVerdict:
    """What ``gold_always_present`` found: ``rankings`` (of queries with gold, covering at most
    :data:`ORACLE_MAX_COVERAGE` of their admissible pool), how many of them ``missed`` their
    gold, the binomial ``pvalue`` of so few misses from an honest first stage, and whether
    the run is ``flagged``."""

    rankings: int
    missed: int
    pvalue: float
    flagged: bool


def oracle_verdict(rankings: int, missed: int) -> OracleVerdict:
    """The rule of ``gold_always_present``, on counts: flagged when at most
    :data:`ORACLE_MAX_MISSED` of ``rankings`` missed their gold and the one-sided binomial
    p-value of ``missed`` or fewer misses, for an honest first stage that misses
    :data:`ORACLE_HONEST_MISS` of them, is below :data:`ORACLE_ALPHA`.

    Parameters
    ----------
    rankings : int
        Rankings of queries with a gold paper that cover at most
        :data:`ORACLE_MAX_COVERAGE` of their admissible pool.
    missed : int
        How many of them hold no gold paper.

    Returns
    -------
    OracleVerdict

    Examples
    --------
    >>> oracle_verdict(163, 1).flagged, oracle_verdict(163, 2).flagged
    (True, False)
    >>> oracle_verdict(60, 0).flagged  # 0.95**60 = 0.046: too few rankings to tell
    False
    """
    from scipy.stats import binom

    if rankings <= 0:
        return OracleVerdict(0, 0, 1.0, False)
    pvalue = float(binom.cdf(missed, rankings, ORACLE_HONEST_MISS))
    flagged = missed <= ORACLE_MAX_MISSED * rankings and pvalue < ORACLE_ALPHA
    return OracleVerdict(rankings, missed, pvalue, flagged)


def oracle_check(
    ranked: RankedQueries, allowed, gold: pd.MultiIndex, found: pd.Index
) -> tuple[pd.Index, EvalWarning | None]:
    """``gold_always_present``: the queries whose ranking could miss their gold (it covers at
    most :data:`ORACLE_MAX_COVERAGE` of their admissible pool) and holds one, and the warning
    when :func:`oracle_verdict` flags the run."""
    sizes = pd.Series(ranked.sizes, index=pd.Index(ranked.query_ids))
    with_gold = sizes.index.intersection(pd.Index(gold.get_level_values(0).unique()))
    pool = allowed.pool_sizes().reindex(with_gold)
    coverage = sizes.reindex(with_gold).to_numpy() / pool.to_numpy(dtype=float)
    could_miss = with_gold[np.nan_to_num(coverage, nan=np.inf) <= ORACLE_MAX_COVERAGE]
    present = could_miss.intersection(found)
    verdict = oracle_verdict(len(could_miss), len(could_miss) - len(present))
    if not verdict.flagged:
        return present[:0], None
    message = (
        f"a gold paper is ranked for {len(present):,} of the {verdict.rankings:,} queries whose "
        f"ranking covers at most {ORACLE_MAX_COVERAGE:.0%} of their candidate pool "
        f"({verdict.missed:,} missed; an honest first stage misses more, binomial "
        f"p = {verdict.pvalue:.2g}): was the gold inserted into the candidates (oracle first "
        "stage)?"
    )
    return present, EvalWarning("gold_always_present", message, len(present))


def oracle_rule(strict: bool) -> str:
    """What ``gold_always_present`` means, and whether it counts as a violation."""
    kind = "a violation (strict)" if strict else "a warning; a violation with --strict"
    return (
        f"of the rankings covering at most {ORACLE_MAX_COVERAGE:.0%} of their candidate pool, "
        f"at most {ORACLE_MAX_MISSED:.0%} miss their gold, fewer than an honest first stage "
        f"missing {ORACLE_HONEST_MISS:.0%} would (binomial p < {ORACLE_ALPHA}) ({kind})"
    )
