"""The reference the kernels are checked against: each measure of the table computed
without them, on the dict-of-dicts form.

A measure trec_eval has is computed by trec_eval's own C code (pytrec_eval), by the name
the table derives, with its ``rel`` and ``judged_only`` as trec_eval's ``-l`` and ``-J``;
a measure trec_eval lacks (``RR@K``, ``Judged@K``), one pytrec_eval cannot be given
(``ndcg`` with gains, ``utility`` with a negative coefficient) and one pytrec_eval (trec_eval
9.x's code) lacks or computes otherwise than 10.0 (``rbp``, ``iprec_at_recall``: see
:mod:`.trec_reference`) by its row's declared :class:`~.table.Derived` reference.
``engine="pytrec_eval"``, ``verify=True`` and the property test of the kernels all go
through :func:`reference_values`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..base.errors import InputError
from .table import require, trec_eval_family
from .trec_names import trec_eval_base_name

# the parameters pytrec_eval reads from a measure's name (its _combine_measures): numbers
# >= 0, comma separated; it would read ``ndcg_1=3`` as ``ndcg.1``, so that name is not given
_PYTREC_EVAL_PARAMS = re.compile(r"[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*")


def trec_eval_settings(measure) -> tuple[int, bool]:
    """The ``-l`` and ``-J`` trec_eval computes ``measure`` under."""
    return int(measure.params.get("rel", 1)), bool(measure.params.get("judged_only", False))


def pytrec_eval_name(measure) -> str | None:
    """The name pytrec_eval computes ``measure``'s reference by, or ``None`` where the
    row's :class:`~.table.Derived` reference gives it."""
    row = require(measure)
    if row.reference is not None and row.reference.always:
        return None
    name = trec_eval_base_name(measure)
    if name is not None:
        family = trec_eval_family(name)
        assert family is not None, name  # a trec_eval name is of a family
        given = name[len(family) + 1 :]
        if not given or _PYTREC_EVAL_PARAMS.fullmatch(given):
            return name
    if row.reference is None:
        has = "pytrec_eval cannot be given it" if name else "trec_eval has no such measure"
        raise InputError(None, f"{measure}: {has}, and it has no other reference")
    return None


def reference_names(measure) -> tuple[str, ...]:
    """The trec_eval measures whose values give ``measure``'s reference."""
    name = pytrec_eval_name(measure)
    if name is not None:
        return (name,)
    derived = require(measure).reference
    assert derived is not None  # pytrec_eval_name raised otherwise
    return derived.needs


def reference_values(
    measures: Sequence,
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    query_ids: Sequence[str],
) -> np.ndarray:
    """Per-query reference values (one row per ``query_ids``, one column per measure). A
    query the run does not rank should be given as an empty ranking (what ``trec_eval -c``
    scores)."""
    import pytrec_eval

    out = np.zeros((len(query_ids), len(measures)))
    by_settings: dict[tuple[int, bool], list[int]] = {}
    for column, measure in enumerate(measures):
        by_settings.setdefault(trec_eval_settings(measure), []).append(column)
    for (rel, judged_only), columns in by_settings.items():
        names = {n for c in columns for n in reference_names(measures[c])}
        trec: dict = {}
        if names:
            try:
                evaluator = pytrec_eval.RelevanceEvaluator(
                    dict(qrels), names, relevance_level=rel, judged_docs_only_flag=judged_only
                )
            except (ValueError, TypeError) as exc:
                shown = ", ".join(str(measures[c]) for c in columns)
                raise InputError(None, f"pytrec_eval could not compute {shown}: {exc}") from None
            trec = evaluator.evaluate(dict(run))
        for column in columns:
            measure = measures[column]
            name = pytrec_eval_name(measure)
            derived = require(measure).reference
            assert name is not None or derived is not None  # pytrec_eval_name raised otherwise
            for row, query in enumerate(query_ids):
                values = trec.get(query, {})
                if name is not None:
                    out[row, column] = values.get(name, measure.DEFAULT)
                elif derived is not None:
                    ranking, labels = run.get(query, {}), qrels.get(query, {})
                    out[row, column] = derived.value(measure, values, ranking, labels)
    return out
