"""The one table of measures: for each family, everything the package knows about it.

A row gives the family's ir-measures name, trec_eval's name for it, its kernel, its
expected value over random tie orders (``None``: the order of tied docs cannot change
it), the parameters it takes, what it reads from the qrels and how it is aggregated.
Evaluation, the recipes, the tie ranges, the ir-measures provider and the trec_eval
output format all read this table; a measure that is not in it is an error wherever a
kernel is asked for it, never a fallback to another formula.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from . import kernels as k
from .rankings import Rankings

Kernel = Callable[[Rankings, k.Params], np.ndarray]


@dataclass(frozen=True)
class MeasureDef:
    """One measure family (``RR``, ``R``, ``nDCG``, ...) and how it is computed."""

    name: str
    trec_eval: str  # trec_eval's name (``P`` is printed ``P_10`` with its cut-off)
    kernel: Kernel
    expected: Kernel | None
    params: tuple[str, ...]  # the ir-measures parameters it accepts
    cutoff: str  # "required", "optional" or "none"
    needs: str  # what it reads from the qrels
    summed: bool = False  # aggregated by sum over queries (trec_eval's counts), not mean


_RJ = ("rel", "judged_only")

MEASURES: dict[str, MeasureDef] = {
    d.name: d
    for d in (
        MeasureDef(
            "RR", "recip_rank", k.reciprocal_rank, k.expected_reciprocal_rank,
            ("cutoff", *_RJ), "optional", "relevant docs",
        ),
        MeasureDef(
            "P", "P", k.precision, k.expected_precision,
            ("cutoff", *_RJ), "required", "relevant docs",
        ),
        MeasureDef(
            "R", "recall", k.recall, k.expected_recall,
            ("cutoff", *_RJ), "required", "relevant docs and their number",
        ),
        MeasureDef(
            "Success", "success", k.success, k.expected_success,
            ("cutoff", *_RJ), "required", "relevant docs",
        ),
        MeasureDef(
            "AP", "map", k.average_precision, k.expected_average_precision,
            ("cutoff", *_RJ), "optional", "relevant docs and their number",
        ),
        MeasureDef(
            "nDCG", "ndcg", k.ndcg, k.expected_ndcg,
            ("cutoff", "judged_only", "dcg"), "optional", "labels (gain = label) of all docs",
        ),
        MeasureDef(
            "Rprec", "Rprec", k.r_precision, k.expected_r_precision,
            _RJ, "none", "relevant docs and their number",
        ),
        MeasureDef(
            "NumRet", "num_ret", k.num_ret, None, ("rel",), "none",
            "nothing (with rel: relevant docs)", summed=True,
        ),
        MeasureDef("NumRel", "num_rel", k.num_rel, None, ("rel",), "none",
                   "relevant docs", summed=True),
        MeasureDef("NumQ", "num_q", k.num_q, None, (), "none", "nothing", summed=True),
    )
}  # fmt: skip


def definition(measure) -> MeasureDef | None:
    """The table's row for ``measure`` (an ir-measures object), or ``None`` when the table
    cannot compute it with these parameters (e.g. ``nDCG(dcg='exp-log2')``, ``ERR@10``)."""
    found = MEASURES.get(measure.NAME)
    if found is None:
        return None
    for name, value in measure.params.items():
        if name not in found.params:
            return None
        if name == "dcg" and value != "log2":
            return None
    return found


def supports(measure) -> bool:
    return definition(measure) is not None


def require(measure) -> MeasureDef:
    """The table's row for ``measure``, or an error naming what the table computes."""
    found = definition(measure)
    if found is None:
        raise InputError(
            None,
            f"{measure} is not in the measure table ({', '.join(MEASURES)}, with the "
            "parameters trec_eval has); it cannot be computed here",
        )
    return found


def params_of(measure, **recipe) -> k.Params:
    """The kernel parameters of an ir-measures measure, with a recipe's in ``recipe``
    replacing or adding to them (e.g. ``rel=2, binary_gains=True``)."""
    params = measure.params
    found = k.Params(
        cutoff=params.get("cutoff"),
        rel=params.get("rel", 1),
        judged_only=bool(params.get("judged_only", False)),
        rel_given="rel" in params,
    )
    return replace(found, **recipe) if recipe else found


def trec_eval_name(measure) -> str | None:
    """The name trec_eval prints for ``measure`` (``recip_rank``, ``recall_10``, ...), or
    ``None`` when trec_eval has no such measure (``RR@10``, a non-default ``rel`` or
    ``judged_only``: trec_eval sets those once per run, with ``-l`` and ``-J``)."""
    found = definition(measure)
    if found is None:
        return None
    params = measure.params
    cutoff = params.get("cutoff")
    if params.get("judged_only") or "gains" in params:
        return None
    if found.name == "NumRet" and "rel" in params:
        return "num_rel_ret" if params["rel"] == 1 else None
    if params.get("rel", 1) != 1:
        return None
    if found.cutoff == "required":
        return f"{found.trec_eval}_{cutoff}"
    if found.cutoff == "optional" and cutoff is not None:
        if found.name == "RR":
            return None
        return f"{found.trec_eval}_cut_{cutoff}"
    return found.trec_eval


def sign_blind(measure) -> bool:
    """Whether a negative label means exactly what label 0 means for ``measure``: true
    when only labels >= 1 are relevant and unjudged docs are not removed (under
    ``judged_only`` trec_eval reads a negative label as unjudged, unlike label 0)."""
    found = definition(measure)
    if found is None or measure.params.get("judged_only"):
        return False
    return found.name in ("nDCG", "NumQ") or measure.params.get("rel", 1) >= 1


def percent_scale(measure, percent: bool) -> float:
    """What ``measure``'s values are multiplied by when printed (``percent``: in percent):
    100 for a fraction, 1 for trec_eval's counts (the table's summed rows: NumRet, NumRel,
    NumQ, NumRet(rel=1)), which are never percentages. A measure outside the table is
    ir-measures' and a fraction."""
    if not percent:
        return 1.0
    if isinstance(measure, str):
        from ..measures import parse_measures

        measure = parse_measures(measure)[0]
    found = definition(measure)
    return 1.0 if found is not None and found.summed else 100.0


def score_matrix(measures, rankings: Rankings, **recipe) -> np.ndarray:
    """Per-query values (one column per measure) of every measure, by its kernel."""
    out = np.empty((rankings.n_queries, len(measures)))
    for column, measure in enumerate(measures):
        out[:, column] = require(measure).kernel(rankings, params_of(measure, **recipe))
    return out


def aggregate(measure, values: np.ndarray) -> float:
    """The measure's aggregate over queries: the mean, or the sum for trec_eval's counts."""
    found = definition(measure)
    if found is not None:
        if found.summed:
            return float(values.sum())
        return float(values.mean()) if len(values) else float("nan")
    aggregator = measure.aggregator()
    for value in values.tolist():
        aggregator.add(value)
    return float(aggregator.result())


def tie_range_matrix(measures, rankings: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query and measure: the worst value over every order of the tied scores, the
    expected value under a uniformly random order, and the best value."""
    worst = score_matrix(measures, rankings.with_ties_resolved(best=False))
    best = score_matrix(measures, rankings.with_ties_resolved(best=True))
    expected = np.empty_like(worst)
    for column, measure in enumerate(measures):
        row = require(measure)
        formula = row.expected or row.kernel
        expected[:, column] = formula(rankings, params_of(measure))
    return worst, expected, best
