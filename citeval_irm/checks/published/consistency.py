"""Whether a published row can be right, and what it leaves open: a linear program over the
rank of the gold paper.

With one gold paper per query, every measure the field reports is a linear function of the
distribution of that paper's rank. Let ``p_r`` be the share of queries whose gold paper is
at rank ``r`` (``r = 1 .. N``, ``N`` the row's deepest cut-off) and ``t`` the share with it
deeper or not retrieved (``p_1 + ... + p_N + t = 1``, all >= 0):

- ``R@K`` = ``Success@K`` = ``HR@K`` = ``p_1 + ... + p_K``;
- ``nDCG@K`` = ``p_1 / log2(2) + ... + p_K / log2(K + 1)`` (the ideal DCG is 1);
- ``RR`` = ``AP`` = ``p_1 / 1 + ... + p_N / N + u``, where ``u``, what the queries beyond
  ``N`` add, lies in ``[0, t / (N + 1)]``.

A value printed with ``d`` decimals stands for every value within half a unit of its last
digit. A row is possible exactly when some distribution gives every value of the row inside
its interval: a linear program (HiGHS, through :func:`scipy.optimize.linprog`; the shares
are real numbers, so a row of a few queries may be judged possible when no whole number of
queries gives it). For an impossible row the same program gives, measure by measure, the
interval the others leave it, hence the smallest change of one printed value that makes the
row possible, and the sets of values that cannot hold together (every pair in conflict; a
smallest conflicting set when no pair is). For a measure a row does not report, it gives the
interval of every value the reported ones allow (:func:`row_bounds`).

Which datasets have one gold paper per query is known from their ids: a HAtten-format query
is a citation context whose id names the one paper it cites (``<citing>_<cited>_<n>``:
ACL-200, FullTextPeerRead, RefSeer, arXiv, ArSyTa, the demo). With several gold papers per
query (MasterSet) the rank distribution no longer fixes the values, and only bounds that hold
whatever the number of gold papers are checked (:data:`SEVERAL_GOLD_CHECKS`); an unknown
dataset is checked so too, and said so.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

ONE_GOLD = (
    "citeval/acl-200",
    "citeval/fulltextpeerread",
    "citeval/refseer",
    "citeval/arxiv",
    "citeval/arsyta",
    "citeval/demo",
)
"""The datasets with one gold paper per query (a context id names the paper it cites)."""

SEVERAL_GOLD_CHECKS = (
    "every value within [0, 1]",
    "R@K, HR@K and Success@K non-decreasing in K",
    "R@K <= HR@K (recall is 0 where nothing relevant is retrieved, at most 1 elsewhere)",
    "nDCG@K <= HR@K (the same for nDCG)",
    "RR >= HR@K / K (a hit in the top K is at rank K or better)",
    "RR <= HR@K + (1 - HR@K) / (K + 1) (without a hit in the top K, RR is at most 1 / (K + 1))",
)
"""What is checked of a row with several gold papers per query (or an unknown dataset)."""

_MEASURE = re.compile(r"(RR|MRR|AP|MAP|R|Recall|nDCG|NDCG|Success|HR|P)(?:@(\d+))?")
_HITS = ("R", "Recall", "Success", "HR")
_EPSILON = 1e-9


@dataclass(frozen=True)
class Measure:
    """A reported measure as the program reads it: its family and cut-off."""

    name: str
    family: str
    cutoff: int | None

    @classmethod
    def parse(cls, name: str) -> Measure | None:
        found = _MEASURE.fullmatch(name.strip())
        if found is None:
            return None
        family = {"MRR": "RR", "MAP": "AP", "Recall": "R", "NDCG": "nDCG"}.get(
            found.group(1), found.group(1)
        )
        cutoff = int(found.group(2)) if found.group(2) else None
        if (family in (*_HITS, "nDCG", "P")) != (cutoff is not None) or cutoff == 0:
            return None
        return cls(name, family, cutoff)

    @property
    def k(self) -> int:
        """Its cut-off, which a measure of a family with cut-offs always has (:meth:`parse`)."""
        if self.cutoff is None:
            raise ValueError(f"{self.name} has no cut-off")
        return self.cutoff

    def coefficients(self, depth: int) -> tuple[np.ndarray, float]:
        """Its value as a linear form of ``p_1 .. p_depth`` and ``u`` (the coefficients)."""
        ranks = np.arange(1, depth + 1, dtype=np.float64)
        if self.family in _HITS:
            return (ranks <= self.k).astype(np.float64), 0.0
        if self.family == "nDCG":
            return np.where(ranks <= self.k, 1.0 / np.log2(ranks + 1), 0.0), 0.0
        if self.family == "P":  # one gold: P@K is R@K / K
            return (ranks <= self.k) / float(self.k), 0.0
        return 1.0 / ranks, 1.0  # RR, AP


@dataclass(frozen=True)
class Value:
    """A printed value: the measure, the text as printed, and the interval it stands for
    (as a fraction)."""

    measure: Measure
    printed: float
    decimals: int
    scale: float  # 100 for percent

    @property
    def half(self) -> float:
        return 0.5 * 10.0**-self.decimals / self.scale

    @property
    def low(self) -> float:
        return self.printed / self.scale - self.half

    @property
    def high(self) -> float:
        return self.printed / self.scale + self.half

    def text(self, value: float | None = None) -> str:
        return f"{self.printed if value is None else value:.{self.decimals}f}"


@dataclass(frozen=True)
class Fix:
    """The smallest change of one printed value that makes the row possible."""

    measure: str
    printed: str
    suggested: str
    digits: int  # characters of the printed value that change


@dataclass(frozen=True)
class Verdict:
    """What the check found of one row: ``possible``, and when not, ``reason`` (one line),
    ``conflicts`` (sets of measures whose values cannot hold together) and ``fixes``
    (smallest first); ``method`` says which check was made (``"one gold"``: the program;
    ``"several gold"``: the bounds of :data:`SEVERAL_GOLD_CHECKS`)."""

    possible: bool
    method: str
    reason: str = ""
    conflicts: tuple[tuple[str, ...], ...] = ()
    fixes: tuple[Fix, ...] = ()


def values_of(row: dict[str, float], decimals: int, percent: bool) -> list[Value]:
    """The row's values the check reads (measures it does not know are left out)."""
    scale = 100.0 if percent else 1.0
    out = []
    for name, printed in row.items():
        measure = Measure.parse(name)
        if measure is not None and math.isfinite(printed):
            out.append(Value(measure, float(printed), decimals, scale))
    return out


def _depth(measures: list[Measure]) -> int:
    return max([m.cutoff or 1 for m in measures] or [1])


def _program(values: list[Value], depth: int):
    """The constraints: rows of ``A x <= b`` over ``x = (p_1 .. p_depth, t, u)``."""
    n = depth + 2
    rows, bounds = [], []
    for value in values:
        coefficients, tail = value.measure.coefficients(depth)
        a = np.zeros(n)
        a[:depth], a[depth + 1] = coefficients, tail
        rows += [a, -a]
        bounds += [value.high, -value.low]
    u = np.zeros(n)
    u[depth + 1], u[depth] = 1.0, -1.0 / (depth + 1)  # u <= t / (depth + 1)
    rows.append(u)
    bounds.append(0.0)
    equal = np.zeros((1, n))
    equal[0, : depth + 1] = 1.0
    return np.array(rows), np.array(bounds), equal


def _solve(values: list[Value], depth: int, objective: np.ndarray | None = None):
    from scipy.optimize import linprog

    rows, bounds, equal = _program(values, depth)
    cost = np.zeros(depth + 2) if objective is None else objective
    return linprog(
        cost,
        A_ub=rows,
        b_ub=bounds + _EPSILON,
        A_eq=equal,
        b_eq=[1.0],
        bounds=[(0, None)] * (depth + 2),
        method="highs",
    )


def possible(values: list[Value], depth: int | None = None) -> bool:
    """Whether some rank distribution of one gold paper gives every value in its interval."""
    depth = depth or _depth([v.measure for v in values])
    return _solve(values, depth).status == 0


def interval(measure: Measure, given: list[Value], depth: int | None = None):
    """The values ``measure`` can take when the ``given`` values hold (one gold paper per
    query), as fractions: ``(low, high)``, or ``None`` when the given ones cannot hold."""
    depth = depth or _depth([measure, *[v.measure for v in given]])
    coefficients, tail = measure.coefficients(depth)
    form = np.zeros(depth + 2)
    form[:depth], form[depth + 1] = coefficients, tail
    low, high = _solve(given, depth, form), _solve(given, depth, -form)
    if low.status != 0 or high.status != 0:
        return None
    return max(low.fun, 0.0), min(-high.fun, 1.0)


def _nearest_printed(value: Value, low: float, high: float) -> str | None:
    """The printed value closest to ``value`` whose interval meets ``[low, high]``."""
    step = 10.0**-value.decimals
    units_low = math.ceil(round((low * value.scale) / step - 0.5, 6))
    units_high = math.floor(round((high * value.scale) / step + 0.5, 6))
    if units_low > units_high:
        return None
    units = min(max(round(value.printed / step), units_low), units_high)
    return value.text(units * step)


def _changed_digits(before: str, after: str) -> int:
    if len(before) != len(after):
        return max(len(before), len(after))
    return sum(a != b for a, b in zip(before, after))


def _conflicts(values: list[Value], depth: int) -> tuple[tuple[str, ...], ...]:
    """The pairs of values that cannot hold together; when none, one smallest set that
    cannot (removing any one of its values makes the rest possible)."""
    pairs = tuple(
        (a.measure.name, b.measure.name)
        for a, b in itertools.combinations(values, 2)
        if not possible([a, b], depth)
    )
    if pairs:
        return pairs
    kept = list(values)
    for value in values:
        rest = [v for v in kept if v is not value]
        if not possible(rest, depth):
            kept = rest
    return (tuple(v.measure.name for v in kept),)


def check_one_gold(values: list[Value]) -> Verdict:
    """The program's verdict on a row (one gold paper per query)."""
    if not values:
        return Verdict(True, "one gold", "no measure the check reads")
    depth = _depth([v.measure for v in values])
    if possible(values, depth):
        return Verdict(True, "one gold")
    fixes = []
    for value in values:
        others = [v for v in values if v is not value]
        room = interval(value.measure, others, depth)
        if room is not None:
            fixes += _fixes(value, *room)
    fixes.sort(key=lambda f: (f.digits, abs(float(f.suggested) - float(f.printed))))
    conflicts = _conflicts(values, depth)
    named = "; ".join(_listed(c) for c in conflicts)
    reason = (
        f"{named} cannot hold together within their rounding (no distribution of the gold "
        "paper's rank gives them)"
    )
    if not fixes:
        reason += "; no change of one value makes the row possible"
    return Verdict(False, "one gold", reason, conflicts, tuple(fixes))


def _fixes(value: Value, low: float, high: float) -> list[Fix]:
    """The changes of ``value`` that make its row possible (``[low, high]``: what the other
    values leave it): the nearest printed value, and the nearest that differs in one
    character (a typo), when they exist."""
    found = []
    nearest = _nearest_printed(value, low, high)
    if nearest is not None:
        found.append(
            Fix(value.measure.name, value.text(), nearest, _changed_digits(value.text(), nearest))
        )
    printed = value.text()
    typos = []
    for position, character in enumerate(printed):
        if not character.isdigit():
            continue
        for digit in "0123456789":
            candidate = printed[:position] + digit + printed[position + 1 :]
            number = float(candidate) / value.scale
            if digit != character and number + value.half >= low and number - value.half <= high:
                typos.append(candidate)
    if typos:
        best = min(typos, key=lambda c: abs(float(c) - value.printed))
        if best != nearest:
            found.append(Fix(value.measure.name, printed, best, 1))
    return found


def _listed(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_several_gold(values: list[Value]) -> Verdict:
    """The bounds that hold whatever the number of gold papers (:data:`SEVERAL_GOLD_CHECKS`)."""
    broken: list[tuple[tuple[str, ...], str]] = []

    def above(a: Value, b: Value) -> bool:  # a > b whatever their rounding
        return a.low > b.high + _EPSILON

    for v in values:
        if v.high < -_EPSILON or v.low > 1 + _EPSILON:
            broken.append(((v.measure.name,), f"{v.measure.name} is outside [0, 1]"))
    hits = [v for v in values if v.measure.family in _HITS]
    for a, b in itertools.permutations(hits, 2):
        same = a.measure.family == b.measure.family
        if same and a.measure.k < b.measure.k and above(a, b):
            broken.append(
                ((a.measure.name, b.measure.name), f"{a.measure.name} > {b.measure.name}")
            )
    hit_rates = [v for v in values if v.measure.family in ("HR", "Success")]
    for h in hit_rates:
        k = h.measure.k
        for v in values:
            if v.measure.cutoff == k and v.measure.family in ("R", "nDCG") and above(v, h):
                broken.append(
                    ((v.measure.name, h.measure.name), f"{v.measure.name} > {h.measure.name}")
                )
            if v.measure.family == "RR":
                if v.high + _EPSILON < h.low / k:
                    broken.append(
                        (
                            (v.measure.name, h.measure.name),
                            f"{v.measure.name} < {h.measure.name} / {k}",
                        )
                    )
                if v.low > h.high + (1 - h.high) / (k + 1) + _EPSILON:
                    broken.append(
                        (
                            (v.measure.name, h.measure.name),
                            f"{v.measure.name} > {h.measure.name} + (1 - "
                            f"{h.measure.name}) / {k + 1}",
                        )
                    )
    if not broken:
        return Verdict(True, "several gold")
    reason = "; ".join(text for _, text in broken) + " (whatever their rounding)"
    return Verdict(False, "several gold", reason, tuple(names for names, _ in broken))


def one_gold(dataset_id: str | None) -> bool:
    """Whether the dataset (a citeval id, with or without its split) has one gold paper per
    query."""
    if not dataset_id:
        return False
    return any(dataset_id == d or dataset_id.startswith(d + "/") for d in ONE_GOLD)


def check_row(row: dict[str, float], decimals: int, percent: bool, gold_one: bool) -> Verdict:
    """The verdict on one printed row (``{measure: value}``)."""
    values = values_of(row, decimals, percent)
    return check_one_gold(values) if gold_one else check_several_gold(values)


def row_bounds(
    row: dict[str, float], measure: str, decimals: int, percent: bool
) -> tuple[float, float] | None:
    """The interval (in the row's unit) a measure the row does not report can take, given
    the values it does report (one gold paper per query); ``None`` when the row is
    impossible or the measure is not one the program reads."""
    wanted = Measure.parse(measure)
    if wanted is None:
        return None
    given = values_of(row, decimals, percent)
    found = interval(wanted, given)
    if found is None:
        return None
    scale = 100.0 if percent else 1.0
    return found[0] * scale, found[1] * scale


# --------------------------------------------------------------------------- published rows

ROW_KEYS = ("paper", "dataset", "split", "setting", "stage", "system")
MARK = "[impossible]"
"""What follows the system's name of an impossible row in every output that shows it."""


@functools.lru_cache(maxsize=4096)
def _verdict(row: tuple[tuple[str, float], ...], decimals: int, percent: bool, gold: bool):
    return check_row(dict(row), decimals, percent, gold)


def row_verdicts(frame, papers) -> dict[tuple, Verdict]:
    """The verdict on each row (:data:`ROW_KEYS`) of a published frame."""
    out = {}
    for key, part in frame.groupby(list(ROW_KEYS), sort=False):
        paper = papers[key[0]]
        row = tuple(zip(part["measure"], part["value"].astype(float)))
        gold = one_gold(paper.datasets.get(key[1], key[1]))
        out[key] = _verdict(row, paper.decimals, paper.percent, gold)
    return out


def impossible_rows(frame, papers) -> dict[tuple, str]:
    """The impossible rows of a published frame (``papers``: its papers, by name) and, for
    each, the text every output shows: why, and the smallest one-value change that would
    make it possible."""
    return {key: explained(v) for key, v in row_verdicts(frame, papers).items() if not v.possible}


def explained(verdict: Verdict) -> str:
    """An impossible row's reason, with its best fix when one value can make it possible."""
    if verdict.possible:
        return ""
    if not verdict.fixes:
        return verdict.reason
    fix = verdict.fixes[0]
    change = "one digit" if fix.digits == 1 else f"{fix.digits} characters"
    return f"{verdict.reason}; {fix.measure} = {fix.suggested} ({change}) would make it possible"
