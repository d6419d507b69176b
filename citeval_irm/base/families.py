"""The measure families trec_eval 10.0 computes that ir-measures has no name for.

Each is an ir-measures measure (so ``parse_measures``, the provider and every format take
it in ir-measures syntax) named after trec_eval's own measure; ``import`` registers them
with ir-measures once. What each computes is trec_eval 10.0's definition (``m_<name>.c``
of usnistgov/trec_eval, tag v10.0), implemented by the kernels of
:mod:`citeval_irm.scoring.trec_kernels` and declared in :mod:`citeval_irm.scoring.table`.

=====================  ==============================  =========================================
ir-measures            trec_eval                       parameters
=====================  ==============================  =========================================
``GM_MAP``             ``gm_map``                      ``rel``, ``judged_only``
``GM_Bpref``           ``gm_bpref``                    ``rel``
``Rprec_mult@m``       ``Rprec_mult_m``                ``mult``, ``rel``, ``judged_only``
``Utility``            ``utility``                     ``coefficients`` (4), ``docs`` (``-N``)
``IPrec_avg``          ``11pt_avg``                    ``recalls``, ``rel``, ``judged_only``
``binG``               ``binG``                        ``rel``, ``judged_only``
``G``                  ``G``                           ``gains``
``DCG``                ``dcg``                         ``gains``
``IdealDCG``           ``ideal_dcg``                   ``gains``
``nDCG_rel``           ``ndcg_rel``                    ``gains``
``RnDCG``              ``Rndcg``                       ``gains``, ``rel``
``relative_P@k``       ``relative_P_k``                ``cutoff``, ``rel``, ``judged_only``
``NumNonrelJudgedRet`` ``num_nonrel_judged_ret``       ``rel``
``YAAP``               ``yaap``                        ``rel``
``RBP_trec``           ``rbp``                         ``p`` (0.9), ``gains``
``RBP_resid``          ``rbp_resid``                   ``p`` (0.9)
``Unjudged@k``         ``unj_k``                       ``cutoff``
=====================  ==============================  =========================================
"""

from __future__ import annotations

import math
import re

from ir_measures import measures as _m
from ir_measures.measures.base import Agg

_REL = _m.ParamInfo(dtype=int, default=1, desc="minimum relevance level (inclusive)")
_JUDGED = _m.ParamInfo(dtype=bool, default=False, desc="unjudged docs removed first (-J)")
_GAINS = _m.ParamInfo(dtype=dict, desc="gain of each relevance level (level: gain)")
_CUTOFF = _m.ParamInfo(dtype=int, required=True, desc="ranking cut-off")


class GeometricAgg(Agg):
    """trec_eval's geometric mean: exp of the mean of log(max(value, 0.00001))."""

    def __init__(self) -> None:
        self.total, self.count = 0.0, 0

    def add(self, value: float) -> None:
        self.total += math.log(max(value, 1e-5))
        self.count += 1

    def result(self) -> float:
        return math.exp(self.total / self.count) if self.count else float("nan")


def _family(name: str, doc: str, params: dict, at: str = "cutoff", agg=None, summed=False):
    """An ir-measures family class ``name`` with ``params``, aggregated by ``agg``."""

    def aggregator(self):
        if agg is not None:
            return agg()
        return _m.SumAgg() if summed else _m.MeanAgg()

    cls = type(
        f"_{name}",
        (_m.Measure,),
        {
            "__name__": name,
            "NAME": name,
            "__doc__": doc,
            "PRETTY_NAME": name,
            "SHORT_DESC": doc,
            "AT_PARAM": at,
            "SUPPORTED_PARAMS": params,
            "aggregator": aggregator,
        },
    )
    return cls()


FAMILIES = (
    _family(
        "GM_MAP",
        "AP, geometric mean over queries (trec_eval gm_map)",
        {"rel": _REL, "judged_only": _JUDGED},
        agg=GeometricAgg,
    ),
    _family(
        "GM_Bpref",
        "bpref, geometric mean over queries (trec_eval gm_bpref)",
        {"rel": _REL},
        agg=GeometricAgg,
    ),
    _family(
        "Rprec_mult",
        "precision at mult x R docs (trec_eval Rprec_mult)",
        {
            "mult": _m.ParamInfo(dtype=float, required=True, desc="multiple of R"),
            "rel": _REL,
            "judged_only": _JUDGED,
        },
        at="mult",
    ),
    _family(
        "Utility",
        "a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret",
        {
            "coefficients": _m.ParamInfo(
                dtype=tuple, default=(1.0, -1.0, 0.0, 0.0), desc="a, b, c, d"
            ),
            "docs": _m.ParamInfo(dtype=int, default=0, desc="docs in the collection (-N)"),
            "rel": _REL,
        },
    ),
    _family(
        "IPrec_avg",
        "mean interpolated precision over recall levels (11pt_avg)",
        {
            "recalls": _m.ParamInfo(
                dtype=tuple, default=tuple(i / 10 for i in range(11)), desc="recall levels"
            ),
            "rel": _REL,
            "judged_only": _JUDGED,
        },
    ),
    _family("binG", "binary G: trec_eval's binG", {"rel": _REL, "judged_only": _JUDGED}),
    _family("G", "trec_eval's G: gain over a cost-discounted ideal", {"gains": _GAINS}),
    _family(
        "DCG", "discounted cumulative gain of the whole ranking (trec_eval dcg)", {"gains": _GAINS}
    ),
    _family(
        "IdealDCG",
        "the best DCG any ranking of the judged docs reaches (trec_eval ideal_dcg)",
        {"gains": _GAINS},
    ),
    _family(
        "nDCG_rel", "nDCG averaged over the relevant docs (trec_eval ndcg_rel)", {"gains": _GAINS}
    ),
    _family(
        "RnDCG",
        "nDCG averaged over the ideal's level changes (trec_eval Rndcg)",
        {"gains": _GAINS, "rel": _REL},
    ),
    _family(
        "relative_P",
        "P@k over min(k, R) (trec_eval relative_P)",
        {"cutoff": _CUTOFF, "rel": _REL, "judged_only": _JUDGED},
    ),
    _family("NumNonrelJudgedRet", "judged non-relevant docs retrieved", {"rel": _REL}, summed=True),
    _family(
        "YAAP",
        "yet another AP: log((1 + S) / (1 + R - S)), S the sum of the relevant "
        "docs' precisions (trec_eval yaap)",
        {"rel": _REL},
    ),
    _family(
        "RBP_trec",
        "trec_eval's rank-biased precision (gains scaled into [0, 1])",
        {"p": _m.ParamInfo(dtype=float, default=0.9, desc="persistence"), "gains": _GAINS},
    ),
    _family(
        "RBP_resid",
        "trec_eval's RBP residual: the weight of the unjudged docs",
        {"p": _m.ParamInfo(dtype=float, default=0.9, desc="persistence")},
    ),
    _family(
        "Unjudged",
        "share of the top k docs without a judgement (trec_eval unj)",
        {"cutoff": _CUTOFF},
    ),
)

for _family_measure in FAMILIES:
    if _family_measure.NAME not in _m.registry:
        _m.register(_family_measure, name=_family_measure.NAME)


# trec_eval's names of these families, as ``parse_measures`` reads them (``-m rbp`` is
# trec_eval's rbp, not ir-measures' RBP); a family with a cut-off takes ``name_k`` and
# ``name.k1,k2``. tests/test_measure_table.py checks them against the measure table's rows.
TREC_SPELLINGS = {
    "gm_map": "GM_MAP",
    "gm_bpref": "GM_Bpref",
    "Rprec_mult": "Rprec_mult",
    "utility": "Utility",
    "11pt_avg": "IPrec_avg",
    "binG": "binG",
    "G": "G",
    "dcg": "DCG",
    "ideal_dcg": "IdealDCG",
    "ndcg_rel": "nDCG_rel",
    "Rndcg": "RnDCG",
    "relative_P": "relative_P",
    "num_nonrel_judged_ret": "NumNonrelJudgedRet",
    "yaap": "YAAP",
    "rbp": "RBP_trec",
    "rbp_resid": "RBP_resid",
    "unj": "Unjudged",
}
# trec_eval's own values of the families whose parameter is required (a bare ``-m unj``)
TREC_DEFAULTS = {
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "unj": (5, 10, 20),
}
_SPELLED = re.compile(r"(?P<name>.+?)(?:[._](?P<values>\d+(?:\.\d+)?(?:,\d+(?:\.\d+)?)*))?")


def parse_trec_name(token: str) -> list | None:
    """The measures ``token`` names in trec_eval's spelling of one of these families
    (``gm_map``, ``Rprec_mult_0.20``, ``unj.5,10``), else ``None``."""
    found = _SPELLED.fullmatch(token)
    if found is None or found["name"] not in TREC_SPELLINGS:
        return None
    family = _m.registry[TREC_SPELLINGS[found["name"]]]
    at = family.AT_PARAM if family.AT_PARAM in family.SUPPORTED_PARAMS else None
    if at is None:
        return None if found["values"] else [family]
    if found["values"] is None:
        defaults = TREC_DEFAULTS.get(found["name"])
        return [family] if defaults is None else [family(**{at: v}) for v in defaults]
    kind = family.SUPPORTED_PARAMS[at].dtype
    return [family(**{at: kind(value)}) for value in found["values"].split(",")]
