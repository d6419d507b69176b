"""The one table of measures: for each family, everything the package knows about it.

A row gives the family's ir-measures name, trec_eval's name for it, its kernel, its
expected value over random tie orders (``None``: the order of tied docs cannot change
it), the parameters it takes, what it reads from the qrels and how it is aggregated.
Evaluation, the recipes, the tie ranges, the ir-measures provider and the trec_eval
output format all read this table; a measure that is not in it is an error wherever a
kernel is asked for it, never a fallback to another formula.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..base.errors import InputError
from . import kernels as k
from .rankings import Rankings

Kernel = Callable[[Rankings, k.Params], np.ndarray]


@dataclass(frozen=True)
class Derived:
    """The reference value of a measure trec_eval does not print, per query: from the
    trec_eval values it ``needs`` (computed under the measure's ``rel`` and ``judged_only``),
    the query's ranking ``{doc: score}`` and its judgements ``{doc: label}``."""

    needs: tuple[str, ...]
    value: Callable[[Any, Mapping[str, float], Mapping[str, float], Mapping[str, int]], float]


@dataclass(frozen=True)
class MeasureDef:
    """One measure family (``RR``, ``R``, ``nDCG``, ...) and how it is computed.

    ``trec_eval`` / ``trec_eval_at`` are trec_eval's names for it without and with a
    cut-off (``{k}`` stands for it; ``None``: trec_eval has none), ``trec_eval_rel`` its
    name when ``rel`` is given (``NumRet(rel=1)`` is ``num_rel_ret``); the reference the
    kernels are checked against (:mod:`.reference`, ``verify``) is trec_eval's value by
    that name, or ``reference`` where trec_eval has none. ``labels`` says how the family
    reads a label: ``"threshold"`` (relevant when >= ``rel``), ``"gains"`` (the label
    itself), ``"judged"`` (judged when >= 0, as trec_eval reads it) or ``"none"``.
    """

    name: str
    kernel: Kernel
    expected: Kernel | None
    params: tuple[str, ...]  # the ir-measures parameters it accepts
    choices: dict[str, tuple]  # the values it accepts of those that are a closed set
    labels: str
    needs: str  # what it reads from the qrels, for people
    trec_eval: str | None
    trec_eval_at: str | None
    trec_eval_rel: str | None = None
    reference: Derived | None = None
    summed: bool = False  # aggregated by sum over queries (trec_eval's counts), not mean


def _rr_at_cutoff(measure, trec: Mapping[str, float], ranking, labels) -> float:
    """RR@K (trec_eval has no ``recip_rank_cut``): recip_rank when the first relevant doc
    is at rank <= K, else 0."""
    rr = trec.get("recip_rank", 0.0)
    return rr if rr > 0 and round(1 / rr) <= measure.params["cutoff"] else 0.0


def _judged_share(measure, trec, ranking: Mapping[str, float], labels) -> float:
    """Judged@K by ir-measures' definition: the share of the top min(K, ranked) docs, in
    trec_eval's order (score, then doc id, descending), that have a judgement (a label
    >= 0: trec_eval reads a negative one as unjudged)."""
    ranked = sorted(ranking, key=lambda doc: (ranking[doc], doc), reverse=True)
    top = ranked[: measure.params.get("cutoff") or len(ranked)]
    return sum(labels.get(doc, -1) >= 0 for doc in top) / len(top) if top else 0.0


_RJ = ("rel", "judged_only")
_REL = "relevant docs"
_NUMBER = "relevant docs and their number"

MEASURES: dict[str, MeasureDef] = {
    d.name: d
    for d in (
        MeasureDef("RR", k.reciprocal_rank, k.expected_reciprocal_rank, ("cutoff", *_RJ), {},
                   "threshold", _REL, "recip_rank", None,
                   reference=Derived(("recip_rank",), _rr_at_cutoff)),
        MeasureDef("P", k.precision, k.expected_precision, ("cutoff", *_RJ), {},
                   "threshold", _REL, None, "P_{k}"),
        MeasureDef("R", k.recall, k.expected_recall, ("cutoff", *_RJ), {},
                   "threshold", _NUMBER, None, "recall_{k}"),
        MeasureDef("Success", k.success, k.expected_success, ("cutoff", *_RJ), {},
                   "threshold", _REL, None, "success_{k}"),
        MeasureDef("AP", k.average_precision, k.expected_average_precision, ("cutoff", *_RJ),
                   {}, "threshold", _NUMBER, "map", "map_cut_{k}"),
        MeasureDef("nDCG", k.ndcg, k.expected_ndcg, ("cutoff", "judged_only", "dcg"),
                   {"dcg": ("log2",)}, "gains", "labels (gain = label) of all docs",
                   "ndcg", "ndcg_cut_{k}"),
        MeasureDef("Rprec", k.r_precision, k.expected_r_precision, _RJ, {},
                   "threshold", _NUMBER, "Rprec", None),
        MeasureDef("NumRet", k.num_ret, None, ("rel",), {}, "threshold",
                   "nothing (with rel: relevant docs)", "num_ret", None,
                   trec_eval_rel="num_rel_ret", summed=True),
        MeasureDef("NumRel", k.num_rel, None, ("rel",), {}, "threshold", _REL,
                   "num_rel", None, summed=True),
        MeasureDef("NumQ", k.num_q, None, (), {}, "none", "nothing", "num_q", None,
                   summed=True),
        MeasureDef("Judged", k.judged, k.expected_judged, ("cutoff",), {}, "judged",
                   "which docs are judged", None, None,
                   reference=Derived((), _judged_share)),
    )
}  # fmt: skip

# trec_eval's own order of its measures in its output, for the names the table derives
TREC_EVAL_ORDER = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "Rprec",
    "recip_rank",
    "P",
    "recall",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
)


def definition(measure) -> MeasureDef | None:
    """The table's row for ``measure`` (an ir-measures object), or ``None`` when the table
    cannot compute it with these parameters (e.g. ``nDCG(dcg='exp-log2')``, ``ERR@10``)."""
    found = MEASURES.get(measure.NAME)
    if found is None:
        return None
    for name, value in measure.params.items():
        if name not in found.params or value not in found.choices.get(name, (value,)):
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


def trec_eval_base_name(measure) -> str | None:
    """trec_eval's name for ``measure`` once its ``rel`` and ``judged_only`` are set for
    the whole run (``-l``, ``-J``: pytrec_eval's ``relevance_level`` and
    ``judged_docs_only_flag``), or ``None`` when trec_eval has no such measure."""
    found = definition(measure)
    if found is None:
        return None
    cutoff = measure.params.get("cutoff")
    if cutoff is not None:
        return None if found.trec_eval_at is None else found.trec_eval_at.format(k=cutoff)
    if "rel" in measure.params and found.trec_eval_rel is not None:
        return found.trec_eval_rel
    return found.trec_eval


def trec_eval_name(measure) -> str | None:
    """The name trec_eval prints for ``measure`` (``recip_rank``, ``recall_10``, ...), or
    ``None`` when trec_eval has no such measure (``RR@10``, a non-default ``rel`` or
    ``judged_only``: trec_eval sets those once per run, with ``-l`` and ``-J``)."""
    if measure.params.get("judged_only") or measure.params.get("rel", 1) != 1:
        return None
    return trec_eval_base_name(measure)


def trec_eval_sort_key(trec_name: str) -> tuple[int, float]:
    """Sort key giving trec_eval's output order: its measure table, then cutoffs ascending."""
    base, _, cutoff = trec_name.rpartition("_")
    if base in TREC_EVAL_ORDER and cutoff.replace(".", "", 1).isdigit():
        return TREC_EVAL_ORDER.index(base), float(cutoff)
    known = trec_name in TREC_EVAL_ORDER
    return (TREC_EVAL_ORDER.index(trec_name) if known else len(TREC_EVAL_ORDER)), 0.0


def is_integer_measure(trec_name: str) -> bool:
    """Whether trec_eval prints the measure as a whole number: the table's counts."""
    counts = {n for d in MEASURES.values() if d.summed for n in (d.trec_eval, d.trec_eval_rel)}
    return trec_name in counts


def sign_blind(measure) -> bool:
    """Whether a negative label means exactly what label 0 means for ``measure``: not when
    it compares labels with a ``rel`` below 1, nor when it tells judged docs from unjudged
    ones (``judged_only``, ``Judged``: trec_eval reads a negative label as unjudged)."""
    found = definition(measure)
    if found is None or found.labels == "judged" or measure.params.get("judged_only"):
        return False
    return found.labels != "threshold" or measure.params.get("rel", 1) >= 1


def reads_gains(measure) -> bool:
    """Whether ``measure`` needs the labels themselves, not only how they compare with its
    ``rel`` and with 0 (nDCG's gains; any measure outside the table, to be safe)."""
    found = definition(measure)
    return found is None or found.labels == "gains"


def percent_scale(measure, percent: bool) -> float:
    """What ``measure``'s values are multiplied by when printed (``percent``: in percent):
    100 for a fraction, 1 for trec_eval's counts (the table's summed rows: NumRet, NumRel,
    NumQ, NumRet(rel=1)), which are never percentages. A measure outside the table is
    ir-measures' and a fraction."""
    if not percent:
        return 1.0
    if isinstance(measure, str):
        from ..base.measures import parse_measures

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
