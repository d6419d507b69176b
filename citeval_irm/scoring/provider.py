"""The scoring core as an ir-measures provider.

``import citeval_irm`` registers it (once ir-measures is imported) as
``ir_measures.providers.registry["citeval"]`` and ``ir_measures.citeval``, so anyone who
speaks ir-measures can use the columnar kernels with the calls they already know::

    ir_measures.citeval.calc_aggregate([RR, R@10, nDCG@10], qrels, run)
    ir_measures.citeval.iter_calc(measures, qrels, run)
    evaluator = ir_measures.citeval.evaluator(measures, qrels)  # one qrels, many runs

It declares what it supports in ``SUPPORTED_MEASURES``, derived from the measure table
(each family with the parameters and values its row accepts), and computes with
trec_eval's semantics, ties broken as trec_eval breaks them. ir-measures' default
pipeline is left as it is; put the provider in front of it with
``ir_measures.providers.FallbackProvider([ir_measures.citeval, ir_measures.DefaultPipeline])``
to have every other measure computed as before.
"""

from __future__ import annotations

from collections.abc import Iterator

from ir_measures import Metric, measures, providers
from ir_measures.providers.base import Any, Choices

from .table import MEASURES, MeasureDef, require


def supported_measure(row: MeasureDef):
    """ir-measures' declaration of what a row of the table computes: its parameters (a
    closed set where the row has one), and ir-measures' others only at their default."""
    family = measures.registry[row.name]
    spec = {}
    for name, info in family.SUPPORTED_PARAMS.items():
        if name not in row.params:
            spec[name] = Choices(info.default)
        elif name in row.choices:
            spec[name] = Choices(*row.choices[name])
        else:
            spec[name] = Any(required=info.required)
    return family(**spec)


class CitevalProvider(providers.Provider):
    """citeval-irm's vectorised kernels (see :mod:`citeval_irm.scoring.table`)."""

    NAME = "citeval"
    SUPPORTED_MEASURES = [supported_measure(row) for row in MEASURES.values()]

    def _evaluator(self, measures, qrels) -> CitevalEvaluator:
        return CitevalEvaluator(list(measures), qrels)


class CitevalEvaluator(providers.Evaluator):
    """Scores runs against one qrels, read once into columns.

    A run may list a (query, doc) twice only in forms that allow it (a DataFrame, records):
    the best-scored copy counts, as a dict-of-dicts would keep one.
    """

    def __init__(self, measures, qrels):
        from ..io import as_qrels

        for measure in measures:
            require(measure)
        self._qrels = as_qrels(qrels)
        super().__init__(measures, self._qrels.query_id_list)

    def _iter_calc(self, run) -> Iterator[Metric]:
        from ..evaluation import evaluate

        result = evaluate(run, self._qrels, self.measures, duplicates="keep_best")
        values = result.values.tolist()
        for row, query_id in enumerate(result.query_ids):
            for column, measure in enumerate(self.measures):
                yield Metric(query_id=query_id, measure=measure, value=values[row][column])


def register() -> CitevalProvider:
    """Register the provider with ir-measures (once) and return it."""
    import ir_measures

    if "citeval" not in providers.registry:
        providers.register(CitevalProvider())
    provider = providers.registry["citeval"]
    ir_measures.citeval = provider
    return provider
