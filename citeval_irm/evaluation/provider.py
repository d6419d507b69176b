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

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, cast

from ir_measures import Metric, measures, providers
from ir_measures.providers.base import Any, Choices

from ..base import families  # noqa: F401 (trec_eval's families, registered first)
from ..base.errors import InputError
from ..base.options import EvalOptions

if TYPE_CHECKING:
    from ..scoring.table import MeasureDef


def supported_measure(row: MeasureDef):
    """ir-measures' declaration of what a row of the table computes: its parameters (a
    closed set where the row has one), and ir-measures' others only at their default."""
    family = measures.registry[row.name]
    spec: dict[str, object] = {}
    for name, info in family.SUPPORTED_PARAMS.items():
        if name not in row.params:
            spec[name] = Choices(info.default)
        elif name in row.choices:
            spec[name] = Choices(*row.choices[name])
        else:
            spec[name] = Any(required=info.required)
    return family(**spec)


class _FromTheTable:
    """``SUPPORTED_MEASURES``, read from the measure table when first asked for: the provider
    is registered as soon as ir-measures is imported, which the table's own import may be
    doing (its families are ir-measures families), so it cannot read the table then."""

    def __get__(self, provider, owner) -> list:
        from ..scoring.table import MEASURES

        owner.SUPPORTED_MEASURES = [supported_measure(row) for row in MEASURES.values()]
        return owner.SUPPORTED_MEASURES


class CitevalProvider(providers.Provider):
    """citeval-irm's vectorised kernels (see :mod:`citeval_irm.scoring.table`)."""

    NAME = "citeval"
    SUPPORTED_MEASURES = _FromTheTable()

    def _evaluator(self, measures, qrels) -> CitevalEvaluator:
        return CitevalEvaluator(list(measures), qrels)


class CitevalEvaluator(providers.Evaluator):
    """Scores runs against one qrels, read once into columns.

    A drop-in for ir-measures' pytrec_eval provider: what that provider accepts is no error
    here. The qrels and each run are read by the package's one reader first (the fast
    path); what it refuses because citeval's own verbs are strict is read again as the
    pytrec_eval provider reads it (:func:`_as_pytrec_eval`): a (query, doc) given twice
    keeps its last copy (ir-measures' converters build a dict of dicts), a score may be
    infinite or NaN (NaN has a rank of its own, as in ``citeval trec_eval``: trec_eval
    defines none), a boolean is the number it stands for, an id may be empty. An empty run,
    a run sharing no query with the qrels and qrels with no judged doc are no error either:
    every qrels query is scored on an empty ranking (0, as ``trec_eval -c``), and qrels with
    no query give no value at all.
    """

    def __init__(self, measures, qrels):
        from ..reading.io import read_qrels
        from ..reading.tables import Qrels
        from ..scoring.table import require

        measures = list(measures)
        for measure in measures:
            require(measure)
        # a measure given twice, or under two spellings ir-measures holds equal
        # (``NumRelRet``, ``NumRet(rel=1)``; ``RR``, ``RR(rel=1)``), is one measure: one
        # value per query, one aggregate, as the pytrec_eval provider answers (its first
        # spelling, the one its ``calc_aggregate`` keys the aggregate by)
        self._distinct = list(dict.fromkeys(measures))
        # qrels with no judged doc (``{}``, ``{"q1": {}}``, no record) are the queries they
        # name, with no judgement, as ir-measures takes them
        qrels, empty = _given(qrels)
        if empty:
            unjudged = tuple(map(str, qrels)) if isinstance(qrels, Mapping) else ()
            self._qrels = Qrels.from_columns([], [], [], "<qrels>", unjudged=unjudged)
        else:
            try:
                self._qrels = read_qrels(qrels)
            except InputError as refused:
                queries, docs, labels, unjudged = _as_pytrec_eval(qrels, "relevance", refused)
                self._qrels = Qrels.from_columns(queries, docs, labels, unjudged=unjudged)
        super().__init__(measures, self._qrels.all_query_ids.to_pylist())

    def _iter_calc(self, run) -> Iterator[Metric]:
        from ..base.errors import issue
        from ..reading.io import read_run
        from ..reading.tables import Run, lookup
        from .parts import result_of, score_part, unranked_values
        from .population import counted_queries
        from .settings import Settings

        qrels, measures = self._qrels, self._distinct
        if not len(qrels.all_query_ids):
            return
        # a run with no row (``{}``, ``{"q1": {}}``, no record, an empty frame) ranks no query
        run, empty = _given(run)
        table = None
        if not empty:
            try:
                table = read_run(run)
            except InputError as refused:
                queries, docs, scores, _ = _as_pytrec_eval(run, "score", refused)
                table = Run.from_columns(queries, docs, scores)
        if table is not None and (lookup(table.query_ids, qrels.all_query_ids) >= 0).any():
            # the run is read and the measures checked: the in-memory evaluation itself,
            # its warnings said at the caller's line
            settings = Settings(measures, EvalOptions())
            result = result_of(
                score_part(table, qrels, settings), qrels, settings, None, table.source
            )
            issue(result.warnings)
            query_ids, values = result.query_ids, result.values.tolist()
        else:
            counted = counted_queries(qrels)
            values = unranked_values(Settings(measures), qrels, counted).tolist()
            query_ids = qrels.all_query_ids.to_pylist()
        for row, query_id in enumerate(query_ids):
            for column, measure in enumerate(measures):
                yield Metric(query_id=query_id, measure=measure, value=values[row][column])


def _as_pytrec_eval(obj, column: str, refused: InputError) -> tuple[list, list, list, tuple]:
    """The columns (query ids, doc ids, scores or labels, queries with no judgement) of a
    run (``column="score"``) or qrels the package's reader refused, read as ir-measures'
    pytrec_eval provider reads it, its converter's records into a dict of dicts (a (query,
    doc) given twice: its last copy, the others counted in a warning issued here), each
    score a float (an infinity, NaN or a boolean too), each label an integer (a boolean
    too), ids as text (an empty one too). A value that provider refuses as well (a label
    that is not a whole number, a score that is not a number) is the reader's error,
    ``refused``."""
    from ir_measures.util import QrelsConverter, RunConverter

    from ..base.errors import EvalWarning, examples_of, issue

    read: dict[str, dict[str, float | int]] = {}
    repeated = []
    try:
        if isinstance(obj, Mapping):  # a dict of dicts already: no repeat possible
            records = ((q, d, v) for q, ranking in obj.items() for d, v in ranking.items())
            read = {str(q): {} for q in obj}
        else:
            converter = RunConverter(obj) if column == "score" else QrelsConverter(obj)
            records = (tuple(record)[:3] for record in converter.as_namedtuple_iter())
        for query, doc, value in records:
            ranking = read.setdefault(str(query), {})
            if str(doc) in ranking:
                repeated.append(f"{query}/{doc}")
            ranking[str(doc)] = float(value) if column == "score" else _label(value)
    except (TypeError, ValueError, AttributeError):  # not a form that provider reads either
        raise refused from None
    if repeated:
        what = "run" if column == "score" else "qrels"
        code = "duplicate_docs_dropped" if column == "score" else "duplicate_judgements_dropped"
        message = f"duplicate (query, doc) rows in the {what}: kept the last copy, as "
        message += "ir-measures' pytrec_eval provider does, dropped the others"
        issue([EvalWarning(code, message, len(repeated), examples_of(repeated))])
    queries = [q for q, ranking in read.items() for _ in ranking]
    docs = [d for ranking in read.values() for d in ranking]
    values = [v for ranking in read.values() for v in ranking.values()]
    return queries, docs, values, tuple(q for q, ranking in read.items() if not ranking)


def _label(value) -> int:
    """A label as pytrec_eval takes it, an integer (a boolean is one), in the range the
    package's labels have (pytrec_eval reads a larger one as a C ``int``: not imitated)."""
    import numbers

    from ..base.numbers import LABEL_RANGE

    if not isinstance(value, numbers.Integral):
        raise TypeError(f"a label must be an integer, not {value!r}")
    if not LABEL_RANGE[0] <= int(value) <= LABEL_RANGE[1]:
        raise ValueError(f"label {value!r} out of range")
    return int(value)


def _given(obj) -> tuple[object, bool]:
    """A run or qrels as given to the provider, and whether it has no row (``{}``,
    ``{"q1": {}}``, no record, an empty frame). A one-pass iterable of records (a
    generator, ir-measures' ``read_trec_run``) is made a list first, so that it can be
    looked at before it is read."""
    from ..reading.io import as_dataset

    if isinstance(obj, (str, bytes, os.PathLike, Mapping)) or hasattr(obj, "columns"):
        pass
    elif isinstance(obj, Iterable) and as_dataset(obj) is None:
        obj = list(obj)
    if isinstance(obj, Mapping):
        return obj, not any(obj.values())
    if not isinstance(obj, (str, os.PathLike)) and hasattr(obj, "__len__"):
        return obj, not len(obj)
    return obj, False


def register() -> CitevalProvider:
    """Register the provider with ir-measures (once) and return it."""
    import ir_measures

    if "citeval" not in providers.registry:
        providers.register(CitevalProvider())
    provider = providers.registry["citeval"]
    ir_measures.citeval = provider  # type: ignore[attr-defined]
    return cast(CitevalProvider, provider)


register()  # on import: the hook that imports this module when ir-measures is imported
