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


def _parse_one(token: str) -> Measure:
    try:
        measure = ir_measures.parse_measure(token)
        measure.validate_params()
        return measure
    except (NameError, ValueError, AssertionError, SyntaxError) as first_error:
        try:  # trec_eval spelling, e.g. "recip_rank" or "ndcg_cut.10"
            parsed = ir_measures.parse_trec_measure(token)
            if len(parsed) == 1:
                return parsed[0]
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
        measure = item if isinstance(item, Measure) else _parse_one(item.strip())
        if measure not in out:
            out.append(measure)
    if not out:
        raise InputError(None, f"no measure given in {spec!r}")
    return out


# --------------------------------------------------------------------------- trec_eval names

# trec_eval's own order of measures in its output (its measure table), for the ones we map.
_TREC_ORDER = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P",
    "recall",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
)
_INTEGER_MEASURES = {"num_q", "num_ret", "num_rel", "num_rel_ret"}


def _default_params(measure: Measure, allowed: set[str]) -> bool:
    for name, info in measure.SUPPORTED_PARAMS.items():
        if name in allowed:
            continue
        if measure.params.get(name, info.default) != info.default:
            return False
    return True


def trec_eval_name(measure: Measure) -> str | None:
    """The name trec_eval prints for ``measure`` (``recip_rank``, ``recall_10``, ...), or
    ``None`` when trec_eval has no such measure (e.g. ``RR@10`` or a non-default ``rel``)."""
    name = measure.NAME
    cutoff = measure.params.get("cutoff")
    simple = {
        "RR": "recip_rank",
        "Rprec": "Rprec",
        "Bpref": "bpref",
        "NumQ": "num_q",
        "NumRel": "num_rel",
    }
    cut = {"P": "P", "R": "recall", "Success": "success"}
    if not _default_params(measure, {"cutoff"}):
        if name == "NumRet" and measure.params.get("rel") == 1 and cutoff is None:
            return "num_rel_ret"
        return None
    if name in simple and cutoff is None:
        return simple[name]
    if name in cut and cutoff is not None:
        return f"{cut[name]}_{cutoff}"
    if name == "AP":
        return "map" if cutoff is None else f"map_cut_{cutoff}"
    if name == "nDCG":
        return "ndcg" if cutoff is None else f"ndcg_cut_{cutoff}"
    if name == "NumRet" and cutoff is None:
        return "num_ret"
    return None


def trec_eval_sort_key(trec_name: str) -> tuple[int, float]:
    """Sort key giving trec_eval's output order: its measure table, then cutoffs ascending."""
    base, _, cutoff = trec_name.rpartition("_")
    if base in _TREC_ORDER and cutoff.replace(".", "", 1).isdigit():
        return _TREC_ORDER.index(base), float(cutoff)
    return (_TREC_ORDER.index(trec_name) if trec_name in _TREC_ORDER else len(_TREC_ORDER)), 0.0


def is_integer_measure(trec_name: str) -> bool:
    return trec_name in _INTEGER_MEASURES


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
    description: str = ""

    def __str__(self) -> str:
        return self.name


def _cut(measure: str, cutoffs: Iterable[int]) -> str:
    return " ".join(f"{measure}@{k}" for k in cutoffs)


GOYAL2026 = Protocol(
    name="goyal2026",
    title="Public Profile Matters",
    reference="Goyal et al. 2026, arXiv:2603.17361",
    measures=tuple(
        parse_measures(f"RR {_cut('R', (5, 10, 20, 50, 300))} {_cut('nDCG', (5, 10, 20, 50, 300))}")
    ),
    percent=True,
    decimals=2,
    description="Local citation recommendation (ACL-200, FullTextPeerRead, RefSeer, arXiv): "
    "MRR, Recall@K and nDCG@K for K in 5, 10, 20, 50, 300, in percent with two decimals.",
)

MASTERSET2026 = Protocol(
    name="masterset2026",
    title="MasterSet",
    reference="Ratul et al. 2026, arXiv:2604.17680",
    measures=tuple(
        parse_measures(
            f"{_cut('R', (10, 50, 100, 500))} AP RR {_cut('nDCG', (10, 20, 30, 50))} "
            f"{_cut('Success', (10, 20))}"
        )
    ),
    percent=False,
    decimals=4,
    description="Must-cite retrieval from title and abstract: Recall@K (primary, K in 10, 50, "
    "100, 500), MAP, MRR, nDCG@K (10, 20, 30, 50) and HR@K (= Success@K, 10, 20), in [0, 1].",
)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (GOYAL2026, MASTERSET2026)}


def get_protocol(protocol: str | Protocol) -> Protocol:
    """A protocol by name (``"goyal2026"``, ``"masterset2026"``) or the object itself."""
    if isinstance(protocol, Protocol):
        return protocol
    try:
        return PROTOCOLS[protocol]
    except KeyError:
        raise InputError(
            None, f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}"
        ) from None
