"""The scoring core: one columnar form, one table of measures, vectorised kernels.

:func:`build_rankings` joins a ranked run with its qrels once; :data:`MEASURES` says, per
measure family, how it is computed; :func:`score_matrix` computes every requested measure
for every query at once, :func:`tie_range_matrix` their worst / expected / best values over
the orders of tied scores. :mod:`citeval_irm.evaluation.provider` offers the same kernels to
ir-measures as a provider.
"""

from .kernels import Params
from .rankings import Judgements, Rankings, build_rankings
from .table import (
    MEASURES,
    TREC_EVAL_ORDER,
    Derived,
    MeasureDef,
    aggregate,
    definition,
    params_of,
    percent_scale,
    reads_gains,
    require,
    score_matrix,
    sign_blind,
    tie_range_matrix,
    trec_eval_sort_key,
)
from .trec_names import is_integer_measure, is_summary_only, trec_eval_base_name, trec_eval_name

__all__ = [
    "MEASURES",
    "TREC_EVAL_ORDER",
    "Derived",
    "Judgements",
    "MeasureDef",
    "Params",
    "Rankings",
    "aggregate",
    "build_rankings",
    "definition",
    "is_integer_measure",
    "is_summary_only",
    "params_of",
    "reads_gains",
    "percent_scale",
    "require",
    "score_matrix",
    "sign_blind",
    "tie_range_matrix",
    "trec_eval_base_name",
    "trec_eval_name",
    "trec_eval_sort_key",
]
