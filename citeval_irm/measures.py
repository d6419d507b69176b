"""Measures in ir-measures syntax, the field's aliases, and the named protocols.

Measures are ir-measures objects (``RR``, ``R@10``, ``nDCG@10``, ``AP``, ``Success@10``).
The citation-recommendation papers say ``MRR`` (already an ir-measures alias of ``RR``) and
``HR@K`` (hit rate, registered here as an alias of ``Success@K``). A protocol is a named list
of measures with the presentation its paper uses (percent or fraction, decimals).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import ir_measures
from ir_measures import measures as _im_measures

from .errors import InputError

if "HR" not in _im_measures.registry:
    _im_measures.register(_im_measures.Success, name="HR")

Measure = ir_measures.Measure

_TOKEN = re.compile(r"[^\s,()]+(?:\([^)]*\))?(?:@[^\s,]+)?")


def check_params(measure: Measure, source: str | None = None) -> Measure:
    """``measure`` if its parameters are ones any engine can take; a clear error otherwise.

    Checked here, before any engine sees them: pytrec_eval aborts the interpreter on a
    cut-off of 0, and a cut-off too large for a C int cannot be passed at all.
    """
    try:
        measure.validate_params()
    except AssertionError as exc:
        raise InputError(source, f"measure {measure}: {exc}") from None
    cutoff = measure.params.get("cutoff")
    if cutoff is not None and not (isinstance(cutoff, int) and 1 <= cutoff < 2**31):
        raise InputError(
            source, f"measure {measure}: the cut-off must be a whole number from 1 to 2^31 - 1"
        )
    rel = measure.params.get("rel")
    if rel is not None and not (isinstance(rel, int) and -(2**31) <= rel < 2**31):
        raise InputError(source, f"measure {measure}: rel must be a whole number")
    return measure


def _parse_one(token: str) -> Measure:
    try:
        return check_params(ir_measures.parse_measure(token))
    except InputError:
        raise
    except (NameError, ValueError, AssertionError, SyntaxError, TypeError) as first_error:
        try:  # trec_eval spelling, e.g. "recip_rank" or "ndcg_cut.10"
            parsed = ir_measures.parse_trec_measure(token)
            if len(parsed) == 1:
                return check_params(parsed[0])
        except (NameError, ValueError, KeyError, AssertionError, IndexError):
            pass
        raise InputError(
            None,
            f"unknown measure {token!r} ({first_error}); use ir-measures syntax such as "
            "'RR R@10 nDCG@10 AP Success@10' (MRR and HR@K are accepted too)",
        ) from None


def parse_measures(spec: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Measures from ir-measures syntax: ``"RR R@10 nDCG@10"`` (space- or comma-separated),
    a list of strings or measure objects. Duplicates are dropped, order is kept."""
    if isinstance(spec, Measure):
        items: list[str | Measure] = [spec]
    elif isinstance(spec, str):
        items = _TOKEN.findall(spec)
    else:
        items = list(spec)
    out: list[Measure] = []
    for item in items:
        if isinstance(item, Measure):
            measure = check_params(item)
        elif isinstance(item, str):
            measure = _parse_one(item.strip())
        else:
            raise InputError(
                None, f"a measure must be a string or an ir-measures object, not {item!r}"
            )
        if measure not in out:
            out.append(measure)
    if not out:
        raise InputError(None, f"no measure given in {spec!r}")
    return out


# --------------------------------------------------------------------------- protocols


@dataclass(frozen=True)
class Protocol:
    """A paper's evaluation protocol: which measures, and how the paper prints them."""

    name: str
    title: str
    reference: str
    measures: tuple[Measure, ...]
    percent: bool
    decimals: int
    recipe: str | None = None  # the name of the recipe of the paper's own scoring
    description: str = ""

    def __str__(self) -> str:
        return self.name


def at_cutoffs(family: str, cutoffs: Iterable[int]) -> str:
    """``"R@5 R@10"`` from ``("R", (5, 10))``: a family at several cut-offs."""
    return " ".join(f"{family}@{k}" for k in cutoffs)
