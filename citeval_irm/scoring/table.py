"""The one table of measures: for each family, everything the package knows about it.

A row gives the family's ir-measures name, trec_eval's name for it, its kernel, its
expected value over random tie orders (``None``: the order of tied docs cannot change
it), the parameters it takes, what it reads from the qrels and how it is aggregated.
Evaluation, the recipes, the tie ranges, the ir-measures provider and the trec_eval
output format all read this table; a measure that is not in it is an error wherever a
kernel is asked for it, never a fallback to another formula.

Adding a measure is one declaration with named fields (the rest defaults)::

    MeasureDef(
        name="RR",  # its ir-measures family
        kernel=k.reciprocal_rank,  # per-query values, numpy over every query at once
        expected=k.expected_reciprocal_rank,  # over random orders of ties (default None)
        params=("cutoff", "rel", "judged_only"),  # the ir-measures parameters it takes
        needs="relevant docs",  # what it reads from the qrels, for the docs
        trec=(TrecName("recip_rank"),),  # trec_eval's names (none: trec_eval lacks it)
        reference=Derived(("recip_rank",), _rr_at_cutoff),  # where trec_eval has none
    )

The provider's ``SUPPORTED_MEASURES``, trec_eval's names (``-m``, ``--format trec_eval``),
the reference engine and the docs' table of measures are read from it. Where trec_eval
prints the measure, its name goes in ``TREC_EVAL_ORDER`` (trec_eval's own order, a fact of
trec_eval; ``tests/test_measure_table.py`` fails while it is missing). A family ir-measures
has no name for is declared in :mod:`citeval_irm.base.families` (layer 1: the parser reads
it without importing scoring), with its trec_eval spelling in ``TREC_SPELLINGS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import families  # the families the rows name, trec_eval's defaults
from ..base.errors import InputError
from . import kernels as k
from . import trec_kernels as tk
from . import trec_reference as tr
from .rankings import Rankings

if TYPE_CHECKING:
    from ..base.measures import Measure

Kernel = Callable[[Rankings, k.Params], np.ndarray]


@dataclass(frozen=True)
class Derived:
    """The reference value of a measure pytrec_eval cannot give, per query: from the
    trec_eval values it ``needs`` (computed under the measure's ``rel`` and ``judged_only``),
    the query's ranking ``{doc: score}`` and its judgements ``{doc: label}``. It serves
    where trec_eval has no such measure, where pytrec_eval cannot be given the measure's
    parameters (gains, negative coefficients) and, ``always``, where pytrec_eval (trec_eval
    9.x's code) lacks the measure or computes it otherwise than 10.0."""

    needs: tuple[str, ...]
    value: Callable[[Any, Mapping[str, float], Mapping[str, float], Mapping[str, int]], float]
    always: bool = False


@dataclass(frozen=True)
class TrecName:
    """One measure of trec_eval's table as a row gives it: its name as ``-m`` takes it;
    ``kind``, how ``-m name.values`` reads its values (``"plain"``: none; ``"long_cuts"``,
    ``"double_cuts"``: one measure per value, printed ``name_10`` / ``name_0.20``;
    ``"doubles"``, ``"pairs"``: one measure, printed ``name_<values as given>``); ``param``,
    the row's parameter those values set (``"pairs"``: a dict level: gain), ``defaults``
    trec_eval's own values; ``fixed`` the parameters the measure always has
    (``set_relative_P`` is ``SetP(relative=True)``), ``rel_given`` that it has ``rel``
    (``num_rel_ret`` is ``NumRet(rel=...)``); ``shown``: ``"long"`` (a count), ``"double"``,
    or ``"summary"`` (printed on the ``all`` row only)."""

    name: str
    _: KW_ONLY
    kind: str = "plain"
    param: str | None = None
    defaults: tuple = ()
    fixed: tuple = ()
    rel_given: bool = False
    shown: str = "double"


@dataclass(frozen=True, kw_only=True)
class MeasureDef:
    """One measure family (``RR``, ``R``, ``nDCG``, ...) and how it is computed.

    ``trec`` names trec_eval's measures the row computes (:class:`TrecName`); the reference
    the kernels are checked against (:mod:`.reference`, ``verify``) is trec_eval's value by
    that name, or ``reference`` where trec_eval has none. ``labels`` says how the family
    reads a label: ``"threshold"`` (relevant when >= ``rel``), ``"gains"`` (the label
    itself), ``"judged"`` (judged when >= 0, as trec_eval reads it) or ``"none"``;
    ``negative_unjudged``: a negative label is "in the pool, unjudged", not 0 (bpref,
    infAP). ``aggregate``: ``"mean"``, ``"sum"`` (trec_eval's counts) or ``"geometric"``.
    """

    name: str
    kernel: Kernel
    expected: Kernel | None = None
    params: tuple[str, ...]  # the ir-measures parameters it accepts
    choices: Mapping[str, tuple] = field(default_factory=dict)  # closed sets of values
    labels: str = "threshold"
    needs: str  # what it reads from the qrels, for people
    trec: tuple[TrecName, ...] = ()
    reference: Derived | None = None
    aggregate: str = "mean"
    negative_unjudged: bool = False

    @property
    def summed(self) -> bool:
        """Aggregated by sum over queries (trec_eval's counts), not by a mean."""
        return self.aggregate == "sum"

    def _trec(self, kind: str, rel_given: bool = False) -> TrecName | None:
        return next((t for t in self.trec if t.kind == kind and t.rel_given == rel_given), None)

    @property
    def trec_eval(self) -> str | None:
        """trec_eval's name for the family without parameters (``None``: it has none)."""
        found = self._trec("plain")
        return None if found is None or found.fixed else found.name

    @property
    def trec_eval_at(self) -> str | None:
        """trec_eval's name with a cut-off, ``{k}`` standing for it."""
        found = next((t for t in self.trec if t.param == "cutoff"), None)
        return None if found is None else found.name + "_{k}"

    @property
    def trec_eval_rel(self) -> str | None:
        """trec_eval's name when ``rel`` is given (``NumRet(rel=1)``: ``num_rel_ret``)."""
        found = self._trec("plain", rel_given=True)
        return None if found is None else found.name


def _rr_at_cutoff(measure: Measure, trec: Mapping[str, float], ranking, labels) -> float:
    """RR@K (trec_eval has no ``recip_rank_cut``): recip_rank when the first relevant doc
    is at rank <= K, else 0."""
    rr = trec.get("recip_rank", 0.0)
    return rr if rr > 0 and round(1 / rr) <= measure.params["cutoff"] else 0.0


def _judged_share(measure: Measure, trec, ranking: Mapping[str, float], labels) -> float:
    """Judged@K by ir-measures' definition: the share of the top min(K, ranked) docs, in
    trec_eval's order (score, then doc id, descending), that have a judgement (a label
    >= 0: trec_eval reads a negative one as unjudged)."""
    ranked = sorted(ranking, key=lambda doc: (ranking[doc], doc), reverse=True)
    top = ranked[: measure.params.get("cutoff") or len(ranked)]
    return sum(labels.get(doc, -1) >= 0 for doc in top) / len(top) if top else 0.0


_RJ = ("rel", "judged_only")
_REL = "relevant docs"
_NUMBER = "relevant docs and their number"
_JUDGED = "relevant and judged non-relevant docs, and their number"
_WHICH_JUDGED = "which docs are judged"
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cut-offs
_LEVELS = tuple(i / 10 for i in range(11))
_GAINS = "labels (gain = label, or the gains given; exp-log2: 2^gain - 1) of all docs"


def _cuts(name: str, defaults=_CUTS) -> TrecName:
    return TrecName(name, kind="long_cuts", param="cutoff", defaults=defaults)


MEASURES: dict[str, MeasureDef] = {
    row.name: row
    for row in (
        MeasureDef(
            name="RR",
            kernel=k.reciprocal_rank,
            expected=k.expected_reciprocal_rank,
            params=("cutoff", *_RJ),
            needs=_REL,
            trec=(TrecName("recip_rank"),),
            reference=Derived(("recip_rank",), _rr_at_cutoff),
        ),
        MeasureDef(
            name="P",
            kernel=k.precision,
            expected=k.expected_precision,
            params=("cutoff", *_RJ),
            needs=_REL,
            trec=(_cuts("P"),),
        ),
        MeasureDef(
            name="R",
            kernel=k.recall,
            expected=k.expected_recall,
            params=("cutoff", *_RJ),
            needs=_NUMBER,
            trec=(_cuts("recall"),),
        ),
        MeasureDef(
            name="Success",
            kernel=k.success,
            expected=k.expected_success,
            params=("cutoff", *_RJ),
            needs=_REL,
            trec=(_cuts("success", (1, 5, 10)),),
        ),
        MeasureDef(
            name="AP",
            kernel=k.average_precision,
            expected=k.expected_average_precision,
            params=("cutoff", *_RJ),
            needs=_NUMBER,
            trec=(TrecName("map"), _cuts("map_cut")),
        ),
        MeasureDef(
            name="nDCG",
            kernel=k.ndcg,
            expected=k.expected_ndcg,
            params=("cutoff", "judged_only", "dcg", "gains"),
            choices={"dcg": ("log2", "exp-log2")},
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("ndcg", kind="pairs", param="gains"), _cuts("ndcg_cut")),
            reference=Derived((), tr.ndcg),
        ),
        MeasureDef(
            name="Rprec",
            kernel=k.r_precision,
            expected=k.expected_r_precision,
            params=_RJ,
            needs=_NUMBER,
            trec=(TrecName("Rprec"),),
        ),
        MeasureDef(
            name="NumRet",
            kernel=k.num_ret,
            params=("rel",),
            needs="nothing (with rel: relevant docs)",
            trec=(
                TrecName("num_rel_ret", rel_given=True, shown="long"),
                TrecName("num_ret", shown="long"),
            ),
            aggregate="sum",
        ),
        MeasureDef(
            name="NumRel",
            kernel=k.num_rel,
            params=("rel",),
            needs=_REL,
            trec=(TrecName("num_rel", shown="long"),),
            aggregate="sum",
        ),
        MeasureDef(
            name="NumQ",
            kernel=k.num_q,
            params=(),
            labels="none",
            needs="nothing",
            trec=(TrecName("num_q", shown="summary"),),
            aggregate="sum",
        ),
        MeasureDef(
            name="Judged",
            kernel=k.judged,
            expected=k.expected_judged,
            params=("cutoff",),
            labels="judged",
            needs=_WHICH_JUDGED,
            reference=Derived((), _judged_share),
        ),
        MeasureDef(
            name="GM_MAP",
            kernel=tk.geometric_ap,
            params=_RJ,
            needs=_NUMBER,
            trec=(TrecName("gm_map", shown="summary"),),
            aggregate="geometric",
            reference=Derived(("map",), tr.same_as("map"), always=True),
        ),
        MeasureDef(
            name="Bpref",
            kernel=tk.bpref,
            params=("rel",),
            needs=_JUDGED,
            trec=(TrecName("bpref"),),
            negative_unjudged=True,
        ),
        MeasureDef(
            name="IPrec",
            kernel=tk.interpolated_precision,
            params=("recall", *_RJ),
            needs=_NUMBER,
            trec=(
                TrecName("iprec_at_recall", kind="double_cuts", param="recall", defaults=_LEVELS),
            ),
            reference=Derived((), tr.iprec_at_recall, always=True),
        ),
        MeasureDef(
            name="infAP",
            kernel=tk.inferred_ap,
            params=("rel",),
            needs=_JUDGED,
            trec=(TrecName("infAP"),),
            negative_unjudged=True,
        ),
        MeasureDef(
            name="GM_Bpref",
            kernel=tk.bpref,
            params=("rel",),
            needs=_JUDGED,
            trec=(TrecName("gm_bpref", shown="summary"),),
            aggregate="geometric",
            negative_unjudged=True,
            reference=Derived(("bpref",), tr.same_as("bpref"), always=True),
        ),
        MeasureDef(
            name="Rprec_mult",
            kernel=tk.r_precision_mult,
            params=("mult", *_RJ),
            needs=_NUMBER,
            trec=(
                TrecName(
                    "Rprec_mult",
                    kind="double_cuts",
                    param="mult",
                    defaults=families.TREC_DEFAULTS["Rprec_mult"],
                ),
            ),
        ),
        MeasureDef(
            name="Utility",
            kernel=tk.utility,
            params=("coefficients", "docs", "rel"),
            needs=_NUMBER,
            trec=(TrecName("utility", kind="doubles", param="coefficients"),),
            reference=Derived((), tr.utility),
        ),
        MeasureDef(
            name="IPrec_avg",
            kernel=tk.interpolated_average,
            params=("recalls", *_RJ),
            needs=_NUMBER,
            trec=(TrecName("11pt_avg", kind="doubles", param="recalls"),),
            reference=Derived((), tr.eleven_point_average, always=True),
        ),
        MeasureDef(
            name="binG",
            kernel=tk.binary_g,
            params=_RJ,
            needs=_NUMBER,
            trec=(TrecName("binG"),),
        ),
        MeasureDef(
            name="G",
            kernel=tk.g_measure,
            params=("gains",),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("G", kind="pairs", param="gains"),),
        ),
        MeasureDef(
            name="DCG",
            kernel=k.dcg,
            params=("gains",),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("dcg", kind="pairs", param="gains"),),
            reference=Derived((), tr.dcg, always=True),
        ),
        MeasureDef(
            name="IdealDCG",
            kernel=k.ideal_dcg,
            params=("gains",),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("ideal_dcg", kind="pairs", param="gains"),),
            reference=Derived((), tr.ideal_dcg, always=True),
        ),
        MeasureDef(
            name="nDCG_rel",
            kernel=tk.ndcg_rel,
            params=("gains",),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("ndcg_rel", kind="pairs", param="gains"),),
        ),
        MeasureDef(
            name="RnDCG",
            kernel=tk.r_ndcg,
            params=("gains", "rel"),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("Rndcg", kind="pairs", param="gains"),),
        ),
        MeasureDef(
            name="relative_P",
            kernel=tk.relative_precision,
            params=("cutoff", *_RJ),
            needs=_NUMBER,
            trec=(_cuts("relative_P", families.TREC_DEFAULTS["relative_P"]),),
        ),
        MeasureDef(
            name="SetP",
            kernel=tk.set_precision,
            params=("relative", *_RJ),
            needs=_NUMBER,
            trec=(
                TrecName("set_P", fixed=(("relative", False),)),
                TrecName("set_relative_P", fixed=(("relative", True),)),
            ),
        ),
        MeasureDef(
            name="SetR",
            kernel=tk.set_recall,
            params=("rel",),
            needs=_NUMBER,
            trec=(TrecName("set_recall"),),
        ),
        MeasureDef(
            name="SetAP",
            kernel=tk.set_ap,
            params=_RJ,
            needs=_NUMBER,
            trec=(TrecName("set_map"),),
        ),
        MeasureDef(
            name="SetF",
            kernel=tk.set_f,
            params=("beta", *_RJ),
            needs=_NUMBER,
            trec=(TrecName("set_F", kind="doubles", param="beta"),),
        ),
        MeasureDef(
            name="NumNonrelJudgedRet",
            kernel=tk.num_nonrel_judged_ret,
            params=("rel",),
            needs=_JUDGED,
            trec=(TrecName("num_nonrel_judged_ret", shown="long"),),
            aggregate="sum",
            negative_unjudged=True,
        ),
        MeasureDef(
            name="YAAP",
            kernel=tk.yaap,
            params=("rel",),
            needs=_NUMBER,
            trec=(TrecName("yaap"),),
            reference=Derived((), tr.yaap, always=True),
        ),
        MeasureDef(
            name="RBP_trec",
            kernel=tk.rbp,
            params=("p", "gains"),
            labels="gains",
            needs=_GAINS,
            trec=(TrecName("rbp", kind="pairs", param="gains"),),
            reference=Derived((), tr.rbp, always=True),
        ),
        MeasureDef(
            name="RBP_resid",
            kernel=tk.rbp_residual,
            params=("p",),
            labels="judged",
            needs=_WHICH_JUDGED,
            trec=(TrecName("rbp_resid", kind="pairs", param="p"),),
            reference=Derived((), tr.rbp_residual, always=True),
        ),
        MeasureDef(
            name="Unjudged",
            kernel=tk.unjudged,
            params=("cutoff",),
            labels="judged",
            needs=_WHICH_JUDGED,
            trec=(_cuts("unj", families.TREC_DEFAULTS["unj"]),),
            reference=Derived((), tr.unjudged, always=True),
        ),
    )
}

# trec_eval 10.0's own order of its measures (measures.c), the order it prints them in;
# runid and relstring are printed by ``citeval trec_eval`` (a label and a string)
TREC_EVAL_ORDER = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
)


POOL_LEVELS = ("nDCG", "DCG", "IdealDCG")
"""The families whose kernels take trec_eval's gains for levels -1 (a retrieved doc the
qrels do not list) and -2 (a doc labelled below 0): ``ndcg.-1=0.5``."""


def definition(measure: Measure) -> MeasureDef | None:
    """The table's row for ``measure`` (an ir-measures object), or ``None`` when the table
    cannot compute it with these parameters (e.g. ``ERR@10``, gains for a negative level)."""
    found = MEASURES.get(measure.NAME or "")  # a measure without a name is in no row
    if found is None:
        return None
    for name, value in measure.params.items():
        if name not in found.params or value not in found.choices.get(name, (value,)):
            return None
    gains_given = measure.params.get("gains")
    lowest = -2 if found.name in POOL_LEVELS else 0
    if gains_given is not None and not all(
        isinstance(level, int) and level >= lowest and isinstance(gain, (int, float))
        for level, gain in gains_given.items()
    ):
        return None
    return found


def require(measure: Measure) -> MeasureDef:
    """The table's row for ``measure``, or an error naming what the table computes."""
    found = definition(measure)
    if found is None:
        raise InputError(
            None,
            f"{measure} is not in the measure table ({', '.join(MEASURES)}, with the "
            "parameters trec_eval has); it cannot be computed here",
        )
    return found


_KERNEL_FIELDS = ("cutoff", "rel", "judged_only")


def params_of(measure: Measure, **recipe) -> k.Params:
    """The kernel parameters of an ir-measures measure, with a recipe's in ``recipe``
    replacing or adding to them (e.g. ``rel=2, binary_gains=True``); the family's other
    parameters go in ``other`` (a dict as its sorted items)."""
    params = measure.params
    other = tuple(
        (name, tuple(sorted(value.items())) if isinstance(value, dict) else value)
        for name, value in sorted(params.items())
        if name not in _KERNEL_FIELDS
    )
    found = k.Params(
        cutoff=params.get("cutoff"),
        rel=params.get("rel", 1),
        judged_only=bool(params.get("judged_only", False)),
        rel_given="rel" in params,
        other=other,
    )
    return replace(found, **recipe) if recipe else found


def trec_eval_family(trec_name: str) -> str | None:
    """The measure of trec_eval's table a printed name belongs to (``P_10`` -> ``P``,
    ``utility_2,-1,0,0`` -> ``utility``), or ``None``."""
    if trec_name in TREC_EVAL_ORDER:
        return trec_name
    bases = [b for b in TREC_EVAL_ORDER if trec_name.startswith(b + "_")]
    return max(bases, key=len) if bases else None


def trec_eval_sort_key(trec_name: str) -> tuple[int, float]:
    """Sort key giving trec_eval's output order: its measure table, then cutoffs ascending."""
    base = trec_eval_family(trec_name)
    if base is None:
        return len(TREC_EVAL_ORDER), 0.0
    rest = trec_name[len(base) + 1 :]
    try:
        cutoff = float(rest) if rest else 0.0
    except ValueError:
        cutoff = 0.0
    return TREC_EVAL_ORDER.index(base), cutoff


def sign_blind(measure: Measure) -> bool:
    """Whether a negative label means exactly what label 0 means for ``measure``: not when
    it compares labels with a ``rel`` below 1, nor when it tells judged docs from unjudged
    ones (``judged_only``, ``Judged``: trec_eval reads a negative label as unjudged)."""
    found = definition(measure)
    if found is None or found.labels == "judged" or measure.params.get("judged_only"):
        return False
    if found.negative_unjudged:
        return False
    return found.labels != "threshold" or measure.params.get("rel", 1) >= 1


def reads_gains(measure: Measure) -> bool:
    """Whether ``measure`` needs the labels themselves, not only how they compare with its
    ``rel`` and with 0 (nDCG's gains; any measure outside the table, to be safe)."""
    found = definition(measure)
    return found is None or found.labels == "gains"


def percent_scale(measure: Measure | str, percent: bool) -> float:
    """What ``measure``'s values are multiplied by when printed (``percent``: in percent):
    100 for a fraction, 1 for trec_eval's counts (the table's summed rows: NumRet, NumRel,
    NumQ, NumRet(rel=1)), which are never percentages. A measure outside the table is
    ir-measures' and a fraction; so is a name no measure has (a resolution's rates,
    ``in_pool_rate``: shares of a list's references)."""
    if not percent:
        return 1.0
    if isinstance(measure, str):
        from ..base.errors import InputError
        from ..base.measures import parse_measures

        try:
            measure = parse_measures(measure)[0]
        except InputError:
            return 100.0
    found = definition(measure)
    return 1.0 if found is not None and found.summed else 100.0


def score_matrix(measures: Sequence[Measure], rankings: Rankings, **recipe) -> np.ndarray:
    """Per-query values (one column per measure) of every measure, by its kernel."""
    out = np.empty((rankings.n_queries, len(measures)))
    for column, measure in enumerate(measures):
        out[:, column] = require(measure).kernel(rankings, params_of(measure, **recipe))
    return out


def aggregate(measure: Measure, values: np.ndarray) -> float:
    """The measure's aggregate over queries: the mean, the sum for trec_eval's counts, the
    geometric mean of trec_eval's ``gm_`` measures (of values at least 0.00001)."""
    found = definition(measure)
    if found is not None:
        if found.summed:
            return float(values.sum())
        if not len(values):
            return float("nan")
        if found.aggregate == "geometric":
            return float(np.exp(np.log(np.maximum(values, 1e-5)).mean()))
        return float(values.mean())
    aggregator = measure.aggregator()
    for value in values.tolist():
        aggregator.add(value)
    return float(aggregator.result())


def tie_range_matrix(
    measures: Sequence[Measure], rankings: Rankings
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
