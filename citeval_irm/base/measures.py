"""Measures in ir-measures syntax, the field's aliases, and the named protocols.

Measures are ir-measures objects (``RR``, ``R@10``, ``nDCG@10``, ``AP``, ``Success@10``).
The citation-recommendation papers say ``MRR`` (already an ir-measures alias of ``RR``) and
``HR@K`` (hit rate, registered here as an alias of ``Success@K``). A protocol is a named list
of measures with the presentation its paper uses (percent or fraction, decimals).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import ir_measures
from ir_measures import measures as _im_measures

from . import families as _families
from .errors import ArgumentTypeError, InputError, quoted

for _alias in ("HR", "Hits"):  # hit rate, as recommendation papers name Success@K
    if _alias not in _im_measures.registry:
        _im_measures.register(_im_measures.Success, name=_alias)

Measure = ir_measures.Measure

# One measure per token: ir-measures syntax (``nDCG(dcg='log2')@10``), or trec_eval's
# ``name.k1,k2,...`` (``ndcg_cut.5,10,20``: one family at several cut-offs, as ``-m`` takes it).
_TOKEN = re.compile(
    r"[A-Za-z_]\w*[._]\d+(?:\.\d+)?(?:,\d+(?:\.\d+)?)+(?![\w.@(])"
    r"|[^\s,()]+(?:\([^)]*\))?(?:@[^\s,]+)?"
)
_NAME = re.compile(r"^([^\s@(]+)([@(].*)?$", re.S)  # a family name, its parameters
# a family at several cut-offs, written as trec_eval lists them: ``nDCG@10,20`` (no space)
_AT_LIST = re.compile(r"([A-Za-z_][^\s,@()]*(?:\([^)]*\))?)@(\d+(?:,\d+)+)(?![\d.])")
# a family and a cut-off joined by "_" or ".": ``R_10``, ``nDCG.10``
_JOINED = re.compile(r"^([A-Za-z]+)[_.](\d+)$")

# trec_eval 10.0's nicknames for lists of measures (``-m official``, ``-m all_trec``), from
# its measures.c; "runid" is a label and "relstring" a string, not measures.
TREC_NICKNAMES = {
    "official": (
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
    ),
    "all_trec": (
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
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
}


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


@lru_cache(maxsize=1)
def _names() -> tuple[dict[str, str], tuple[str, ...]]:
    """Measure names by their lower-case spelling, where that spelling names one family
    only (``ndcg`` -> ``nDCG``, ``mrr`` -> ``MRR``), and every name a user may write."""
    import pytrec_eval

    families: dict[str, set[str]] = {}
    spelled: dict[str, str] = {}
    for name, measure in _im_measures.registry.items():
        families.setdefault(name.lower(), set()).add(measure.NAME)
        spelled.setdefault(name.lower(), name)
    unique = {low: spelled[low] for low, found in families.items() if len(found) == 1}
    known = (*_im_measures.registry, *sorted(pytrec_eval.supported_measures), *TREC_NICKNAMES)
    return unique, tuple(dict.fromkeys(n for n in known if n != "runid"))


def _trec_measures(token: str) -> list[Measure] | None:
    """``token`` in trec_eval's spelling (``recip_rank``, ``P_10``, ``ndcg_cut.5,10``, a
    bare ``P`` for its default cut-offs, ``official``): its measures, else ``None``.

    A nickname's members that are not measures (``relstring``, a string per query) are an
    error naming them, not left out without a word."""
    if token in TREC_NICKNAMES:
        members = [m for m in TREC_NICKNAMES[token] if m != "runid"]
        found: list[Measure] = []
        missing = []
        for member in members:
            own = _families.parse_trec_name(member)
            try:
                found += own if own is not None else ir_measures.parse_trec_measure(member)
            except ValueError:
                missing.append(member)
        if missing:
            raise InputError(
                None,
                f"trec_eval's {token!r} includes {', '.join(missing)}, which is not a measure "
                f"(`citeval trec_eval -m {token}` prints it as trec_eval does); name the "
                f"measures you want instead, e.g. {' '.join(str(m) for m in found[:6])} ...",
            )
        return found
    own = _families.parse_trec_name(token)
    if own is not None:
        return own
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints what it skips
            return ir_measures.parse_trec_measure(token)
    except (NameError, ValueError, KeyError, AssertionError, IndexError, TypeError):
        return None


def _unknown(token: str, reason: str) -> InputError:
    """The error for a measure no spelling matches, naming the close names (difflib, in
    any case: ``ndgc@10`` -> ``nDCG``)."""
    joined = _JOINED.match(token)
    family = _names()[0].get(joined.group(1).lower()) if joined else None
    if joined is not None and family is not None:  # R_10: the cut-off written otherwise
        close = [f"{family}@{joined.group(2)}"]
    else:
        found = _NAME.match(token)
        name = (found.group(1) if found else token).split(".")[0].lower()
        spelled = {n.lower(): n for n in reversed(_names()[1])}  # the first spelling wins
        close = [spelled[c] for c in difflib.get_close_matches(name, spelled, n=3, cutoff=0.6)]
    return InputError(
        None,
        f"unknown measure {token!r} ({reason})"
        + (f"; did you mean {' or '.join(close)}?" if close else "")
        + "; use ir-measures syntax such as 'RR R@10 nDCG@10 AP Success@10' (MRR and HR@K "
        "are accepted too) or trec_eval's (recip_rank, ndcg_cut.5,10)",
    )


def _parse_one(token: str) -> list[Measure]:
    """The measures ``token`` names: ir-measures syntax, the same with the family name in
    any case where only one family is spelled so (``ndcg@10``, ``mrr``, ``r@10``), or
    trec_eval's spelling (``ndcg_cut.5,10``)."""
    try:
        return [check_params(ir_measures.parse_measure(token))]
    except InputError:
        trec = _trec_measures(token)  # a bare "P": trec_eval's default cut-offs
        if not trec:
            raise
        return [check_params(m) for m in trec]
    except (NameError, ValueError, AssertionError, SyntaxError, TypeError) as first_error:
        trec = _trec_measures(token)
        if trec:
            return [check_params(m) for m in trec]
        found = _NAME.match(token)
        if found:
            family = _names()[0].get(found.group(1).lower())
            if family is not None and family != found.group(1):
                return _parse_one(family + (found.group(2) or ""))
        raise _unknown(token, str(first_error)) from None


def parse_measures(spec: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Measures from ir-measures syntax, trec_eval's names or measure objects.

    Parameters
    ----------
    spec : str, Measure or iterable of str / Measure
        ``"RR R@10 nDCG@10"`` (space- or comma-separated; ``nDCG@10,20`` is nDCG@10 and
        nDCG@20, as trec_eval lists cut-offs), trec_eval's (``"recip_rank ndcg_cut.5,10"``), a
        list of strings or measure objects. Names are matched case-insensitively where that is
        unambiguous (``ndcg@10``, ``mrr``); an unknown name is an error naming close ones.

    Returns
    -------
    list of Measure
        The ir-measures measures, duplicates dropped, order kept.

    Examples
    --------
    >>> import citeval_irm
    >>> citeval_irm.parse_measures("RR R@10,20 recip_rank")
    [RR, R@10, R@20]
    """
    if isinstance(spec, (Measure, str)):
        items: list[str | Measure] = [spec]
    elif isinstance(spec, Iterable) and not isinstance(spec, (bytes, Mapping)):
        items = list(spec)
    else:
        raise ArgumentTypeError(
            None,
            "measures: expected ir-measures syntax such as 'RR R@10 nDCG@10', a measure "
            f"object or a list of them, not {type(spec).__name__} {quoted(spec)}",
        )
    out: list[Measure] = []
    for item in items:
        if isinstance(item, Measure):
            found = [check_params(item)]
        elif isinstance(item, str):
            item = _AT_LIST.sub(lambda m: " ".join(f"{m[1]}@{k}" for k in m[2].split(",")), item)
            found = [m for token in _TOKEN.findall(item) for m in _parse_one(token)]
        else:
            raise ArgumentTypeError(
                None,
                "measures: a measure must be a string or an ir-measures object, not "
                f"{type(item).__name__} {quoted(item)}",
            )
        for measure in found:
            if measure not in out:
                out.append(measure)
    if not out:
        raise InputError(None, f"no measure given in {spec!r}")
    return out


def one_measure(spec: str | Measure) -> Measure:
    """The one measure ``spec`` names, by :func:`parse_measures` (any spelling ``eval``
    takes: ``MRR``, ``recip_rank``, ``HR@10``, ``ndcg_cut_10``, ``r@10``); an error when it
    names none or several."""
    found = parse_measures(spec)
    if len(found) != 1:
        names = ", ".join(str(m) for m in found)
        raise InputError(
            None, f"measure: expected one measure, {spec!r} names {len(found)}: {names}"
        )
    return found[0]


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
