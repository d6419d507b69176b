"""One row of a MasterSet Parquet file, checked: a pool paper's record, a paper's references
and their must-cite tiers (:mod:`.masterset` reads the files and makes the datasets).

Each reference has ``matched_paper_id`` (empty when the reference was not matched to a paper
of the corpus) and three LLM labels stored as strings ("1.0", "4.0", "nan", ""). The
benchmark's tiers, as its evaluation code defines them, over references with a non-empty
``matched_paper_id``: ``baseline`` (``type_1_output == 1.0``), ``core`` (``type_2_output >=
4.0``), ``frequent`` (``type_3_output >= 3.0``), ``must-cite`` (any of the three). A bad
value is an :class:`InputError` naming the file, the row index (0-based, as pyarrow and
pandas count) and the paper id.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NamedTuple, cast

from ...base.errors import InputError, quoted
from ...base.numbers import C_SPACE, decimal_number
from ...base.texts import json_value
from ..jsonstream import Notes, kind
from ..records import MasterSetDoc

LABELS = ("type_1_output", "type_2_output", "type_3_output")
TIERS = ("baseline", "core", "frequent")
MUST_CITE = "must-cite"


def _meets(tier: str, labels: tuple[float | None, ...]) -> bool:
    """Whether labels ``(type_1, type_2, type_3)`` put a reference in ``tier``."""
    type_1, type_2, type_3 = labels
    if tier == "baseline":
        return type_1 is not None and type_1 == 1.0
    if tier == "core":
        return type_2 is not None and type_2 >= 4.0
    if tier == "frequent":
        return type_3 is not None and type_3 >= 3.0
    raise ValueError(f"unknown tier {tier!r}; use one of {TIERS}")


TIER_RULES = {
    "baseline": "type_1_output == 1.0",
    "core": "type_2_output >= 4.0",
    "frequent": "type_3_output >= 3.0",
    MUST_CITE: "any of the three",
}


class Reference(NamedTuple):
    """One reference of a paper: its position in the list, the matched paper ("" if none)
    and the three labels as numbers (``None`` for "nan", "" or a missing label)."""

    position: int
    matched_paper_id: str
    labels: tuple[float | None, ...]  # one per LABELS

    def tiers(self) -> tuple[str, ...]:
        return tuple(t for t in TIERS if _meets(t, self.labels))


def where_in(row: int, paper_id: Any) -> str:
    return f"row index {row} (paper_id {paper_id!r})"


def row_paper_id(path: Path, row: int, values: dict) -> str:
    paper_id = values["paper_id"]
    if not isinstance(paper_id, str) or not paper_id:
        raise InputError(
            str(path), f"row index {row}: 'paper_id' must be a non-empty string, got {paper_id!r}"
        )
    return paper_id


def row_string(path: Path, row: int, values: dict, column: str, notes: Notes, note: str | None):
    value = values[column]
    if value is None:
        if note:
            notes.add(note, values["paper_id"])
        return ""
    if not isinstance(value, str):
        where = where_in(row, values["paper_id"])
        raise InputError(str(path), f"{where}: {column!r} must be a string, got {kind(value)}")
    return value


def row_year(path: Path, row: int, values: dict, notes: Notes) -> int | None:
    """The row's ``year``: a whole number (an integer column, or a float one holding whole
    values); null or NaN is the unknown year (``None``, noted); anything else, an infinity
    included, is an :class:`InputError` naming the file and the row."""
    year = values["year"]
    if year is None or (isinstance(year, float) and math.isnan(year)):
        notes.add("no_year", values["paper_id"])
        return None
    whole = isinstance(year, int) or (isinstance(year, float) and year.is_integer())
    if isinstance(year, bool) or not whole:  # float.is_integer(): False for an infinity
        where = where_in(row, values["paper_id"])
        raise InputError(str(path), f"{where}: 'year' must be a whole number, got {year!r}")
    return int(year)


def label_value(path: Path, where: str, key: str, value: Any) -> float | None:
    """A label as a number; ``None`` for a missing one ("", "nan", null). A string is read
    by the one rule for numbers in text (:func:`~citeval_irm.base.numbers.decimal_number`:
    decimal digits, no ``0x10`` or ``1_0``); a JSON number too large for a float is an
    error, as any other value that is no finite number."""
    if value is None:
        return None
    number = None
    if isinstance(value, str):
        text = value.strip(C_SPACE)
        if text == "" or text.lower() == "nan":
            return None
        number = decimal_number(text)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return None
        try:
            number = float(value)
        except OverflowError:  # a 400-digit JSON integer
            number = None
    if number is None or not math.isfinite(number):
        raise InputError(
            str(path), f"{where}: {key} {quoted(value)} is not a number (nor 'nan' or empty)"
        )
    return number


def parse_references(path: Path, row: int, paper_id: str, value: Any, notes: Notes) -> list:
    """The :class:`Reference` list of one row; a value that is not a JSON list, a reference
    that is not an object, or an unparsable label is an :class:`InputError`."""
    where = where_in(row, paper_id)
    if value is None:
        notes.add("no_references", paper_id)
        return []
    references = value
    if isinstance(value, str):  # by the one JSON reading: a key given twice refused too
        try:
            references = json_value(value, str(path), what="'references'")
        except InputError as exc:
            raise InputError(str(path), f"{where}: {exc.problem}") from None
    if not isinstance(references, list):
        raise InputError(
            str(path), f"{where}: 'references' must be a JSON list, got {kind(references)}"
        )
    out = []
    for position, reference in enumerate(references):
        at = f"{where}, reference {position}"
        if not isinstance(reference, dict):
            raise InputError(str(path), f"{at}: expected an object, got {kind(reference)}")
        matched = reference.get("matched_paper_id")
        if matched is not None and not isinstance(matched, str):
            raise InputError(
                str(path), f"{at}: 'matched_paper_id' must be a string, got {kind(matched)}"
            )
        labels = tuple(label_value(path, at, key, reference.get(key)) for key in LABELS)
        out.append(Reference(position, matched or "", labels))
    return out


def parse_doc(path: Path, row: int, values: dict, notes: Notes, seen: set[str]) -> MasterSetDoc:
    """The :class:`MasterSetDoc` of one row, checked; its id must not be in ``seen`` (and
    is added to it)."""
    paper_id = row_paper_id(path, row, values)
    if paper_id in seen:
        raise InputError(str(path), f"{where_in(row, paper_id)}: the paper_id occurs twice")
    seen.add(paper_id)
    return MasterSetDoc(
        paper_id,
        row_string(path, row, values, "title", notes, "no_title"),
        row_string(path, row, values, "abstract", notes, "no_abstract"),
        # None when unknown: the field is annotated int for ir_datasets' exporters
        cast(int, row_year(path, row, values, notes)),
        row_string(path, row, values, "venue", notes, None),
        row_string(path, row, values, "authors", notes, None),
    )


class QueryGold(NamedTuple):
    """The matched references of one query paper: ``(doc_id, tiers)`` per cited paper, in
    reference order, repeated cited papers merged."""

    query_id: str
    cited: list[tuple[str, frozenset[str]]]


def query_gold(path: Path, row: int, paper_id: str, references: Any, notes: Notes) -> QueryGold:
    """The :class:`QueryGold` of one row, from its raw ``references`` value."""
    merged: dict[str, set[str]] = {}
    for reference in parse_references(path, row, paper_id, references, notes):
        doc_id = reference.matched_paper_id
        if not doc_id:
            notes.add("reference_unmatched", f"{paper_id}#{reference.position}")
            continue
        if doc_id in merged:
            notes.add("reference_repeated", f"{paper_id} -> {doc_id}")
        merged.setdefault(doc_id, set()).update(reference.tiers())
    return QueryGold(paper_id, [(doc, frozenset(tiers)) for doc, tiers in merged.items()])


def tier_gold(gold: QueryGold, tier: str) -> list[tuple[str, str]]:
    """``(doc_id, tier label)`` of the papers of ``gold`` in ``tier`` (``must-cite``: any
    tier, labelled with every tier it meets, joined by ``+``)."""
    wanted = TIERS if tier == MUST_CITE else (tier,)
    out = []
    for doc_id, tiers in gold.cited:
        met = [t for t in wanted if t in tiers]
        if met:
            out.append((doc_id, "+".join(met)))
    return out
