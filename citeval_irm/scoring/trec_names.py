"""The names trec_eval prints, read from the measure table: a measure's name
(``recip_rank``, ``P_10``, ``utility_2,-1,0,0``; ``None`` where trec_eval has no such
measure), a parameter's values as trec_eval writes them, and how trec_eval prints a
measure's value (a whole number, on the ``all`` row only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .table import MEASURES, MeasureDef, TrecName, definition

if TYPE_CHECKING:
    from ..base.measures import Measure


def _number(value) -> str:
    """A parameter value as trec_eval's ``-m`` would take it back (``%g``)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def printable(value) -> str:
    """A parameter's values in trec_eval's ``name_<values>`` form: ``2,-1,0,0``,
    ``1=3,2=9``."""
    if isinstance(value, dict):
        return ",".join(f"{_number(a)}={_number(b)}" for a, b in value.items())
    if isinstance(value, (tuple, list)):
        return ",".join(_number(v) for v in value)
    return _number(value)


def trec_name_of(trec: TrecName, value) -> str:
    """The name trec_eval prints for ``trec`` given one value of its parameter (a cut-off,
    a recall level) or all of them (``"doubles"``, ``"pairs"``: a tuple, a dict)."""
    if trec.kind == "long_cuts":
        return f"{trec.name}_{int(value)}"
    if trec.kind == "double_cuts":  # meas_init.c's append_double: 8 bytes for the value
        return f"{trec.name}_{value:3.2f}"[: len(trec.name) + 9]
    return f"{trec.name}_{printable(value)}"


def _matching_trec(found: MeasureDef, measure: Measure) -> tuple[TrecName, object] | None:
    """The row's trec_eval measure that ``measure`` is, and its parameter's value."""
    family = measure.SUPPORTED_PARAMS
    params = measure.params
    for trec in found.trec:
        if trec.rel_given != ("rel" in params) and any(t.rel_given for t in found.trec):
            continue
        if any(params.get(n, family[n].default) != v for n, v in trec.fixed):
            continue
        rest = set(params) - {"rel", "judged_only"} - {n for n, _ in trec.fixed}
        if trec.param is not None and trec.param in params:
            if rest - {trec.param}:
                continue
            value = params[trec.param]
            default = family[trec.param].default
            if trec.kind in ("doubles", "pairs") and value == default:
                return trec, None
            if trec.kind == "pairs" and trec.param == "p":
                value = {"p": value}
            return trec, value
        if rest or trec.kind in ("long_cuts", "double_cuts"):
            continue
        return trec, None
    return None


def trec_eval_base_name(measure: Measure) -> str | None:
    """trec_eval's name for ``measure`` once its ``rel`` and ``judged_only`` are set for
    the whole run (``-l``, ``-J``: pytrec_eval's ``relevance_level`` and
    ``judged_docs_only_flag``), or ``None`` when trec_eval has no such measure."""
    found = definition(measure)
    if found is None:
        return None
    matched = _matching_trec(found, measure)
    if matched is None:
        return None
    trec, value = matched
    return trec.name if value is None else trec_name_of(trec, value)


def trec_eval_name(measure: Measure) -> str | None:
    """The name trec_eval prints for ``measure`` (``recip_rank``, ``recall_10``, ...), or
    ``None`` when trec_eval has no such measure (``RR@10``, a non-default ``rel`` or
    ``judged_only``: trec_eval sets those once per run, with ``-l`` and ``-J``)."""
    if measure.params.get("judged_only") or measure.params.get("rel", 1) != 1:
        return None
    return trec_eval_base_name(measure)


def is_integer_measure(trec_name: str) -> bool:
    """Whether trec_eval prints the measure as a whole number: the table's counts."""
    return any(t.name == trec_name and d.summed for d in MEASURES.values() for t in d.trec)


def is_summary_only(trec_name: str) -> bool:
    """Whether trec_eval prints the measure on its ``all`` row only (``num_q``, ``gm_map``,
    ``gm_bpref``), never per query."""
    return any(
        t.name == trec_name and t.shown == "summary" for d in MEASURES.values() for t in d.trec
    )
