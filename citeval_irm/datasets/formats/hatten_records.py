"""The files of the HAtten layout read record by record, each record checked: a papers
entry (:func:`parse_paper`), a contexts entry (:func:`parse_context`), a ``{id: record}``
file streamed with its keys unique (:func:`parse_object_file`) and a split file's entries
(:func:`iter_split`). What they tolerate is counted in a :class:`~..jsonstream.Notes`
under the codes of :data:`NOTE_MESSAGES`; anything else is an :class:`InputError` naming
the file and the record. :mod:`.hatten` makes the datasets of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ...base.errors import InputError
from ..jsonstream import Notes, iter_array, iter_object, kind
from ..records import TARGET_MARKER, CitationContext, CitationDoc, RecordClass
from ..years import paper_date

NOTE_MESSAGES = {
    "paper_no_title": "papers without a title (read as an empty string)",
    "paper_no_abstract": "papers without an abstract (read as an empty string)",
    "paper_no_year": "papers whose id gives no publication year (year None)",
    "paper_no_categories": "papers without categories (read as an empty tuple)",
    "context_no_marker": f"contexts without {TARGET_MARKER} "
    "(left_context is the whole text, right_context empty)",
    "context_many_markers": f"contexts with more than one {TARGET_MARKER} "
    "(left/right context split at the first)",
    "context_no_year": "contexts whose citing id gives no year (year None)",
    "context_no_heading": "contexts without a section heading (read as an empty string)",
}


def _text(
    value: dict, key: str, source: Path, where: str, notes: Notes, note: str, paper_id: str
) -> str:
    """A text field; a missing or null one reads as "" and is counted under ``note``."""
    text = value.get(key)
    if text is None:
        notes.add(note, paper_id)
        return ""
    if not isinstance(text, str):
        raise InputError(str(source), f"{where}: {key!r} must be a string, got {kind(text)}")
    return text


def _categories(value: dict, source: Path, where: str, notes: Notes, paper_id: str) -> tuple:
    categories = value.get("categories")
    if categories is None:
        notes.add("paper_no_categories", paper_id)
        return ()
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise InputError(
            str(source), f"{where}: 'categories' must be a list of strings, got {kind(categories)}"
        )
    return tuple(categories)


def parse_paper(
    key: str,
    value: Any,
    source: Path,
    scheme: str,
    notes: Notes,
    *,
    record: int,
    doc_cls: RecordClass = CitationDoc,
) -> CitationDoc:
    """A ``doc_cls`` record (:class:`CitationDoc` or a richer one such as
    :class:`ArsytaDoc`) from one papers-file entry; keys the record has no field for are
    ignored."""
    where = f"record {record} (paper {key!r})"
    if not isinstance(value, dict):
        raise InputError(
            str(source), f"{where}: expected an object with title and abstract, got {kind(value)}"
        )
    title = _text(value, "title", source, where, notes, "paper_no_title", key)
    abstract = _text(value, "abstract", source, where, notes, "paper_no_abstract", key)
    date = paper_date(key, scheme)
    if date is None and scheme != "none":
        notes.add("paper_no_year", key)
    fields: dict[str, object] = {
        "doc_id": key,
        "title": title,
        "abstract": abstract,
        "year": date.year if date else None,
        "month": date.month if date else None,
    }
    if "categories" in doc_cls._fields:
        fields["categories"] = _categories(value, source, where, notes, key)
    return doc_cls(**{name: fields[name] for name in doc_cls._fields})


def _required(value: dict, keys: tuple[str, ...], source: Path, where: str) -> str:
    for key in keys:
        if key in value:
            text = value[key]
            if not isinstance(text, str) or not text:
                raise InputError(
                    str(source), f"{where}: {key!r} must be a non-empty string, got {kind(text)}"
                )
            return text
    raise InputError(str(source), f"{where}: missing {' or '.join(map(repr, keys))}")


def parse_context(
    key: str,
    value: Any,
    source: Path,
    scheme: str,
    notes: Notes,
    *,
    record: int,
    context_cls: RecordClass = CitationContext,
) -> CitationContext:
    """A ``context_cls`` record (:class:`CitationContext`, or :class:`ArsytaContext` with
    the section ``heading``) from one contexts-file entry."""
    where = f"record {record} (context {key!r})"
    if not isinstance(value, dict):
        raise InputError(str(source), f"{where}: expected an object, got {kind(value)}")
    text = value.get("masked_text")
    if not isinstance(text, str):
        raise InputError(str(source), f"{where}: 'masked_text' must be a string, got {kind(text)}")
    own_id = value.get("context_id", key)
    if own_id != key:
        raise InputError(str(source), f"{where}: its 'context_id' is {own_id!r}, not its key")
    citing = _required(value, ("citing_id",), source, where)
    cited = _required(value, ("refid", "ref_id"), source, where)
    markers = text.count(TARGET_MARKER)
    if markers != 1:
        notes.add("context_no_marker" if markers == 0 else "context_many_markers", key)
    if scheme != "none" and paper_date(citing, scheme) is None:
        notes.add("context_no_year", key)
    if "heading" not in context_cls._fields:
        return context_cls(key, citing, cited, text)
    heading = _text(value, "heading", source, where, notes, "context_no_heading", key)
    return context_cls(key, citing, cited, text, heading)


def parse_object_file(source: Path, parse: Callable[..., Any], scheme: str, notes: Notes):
    """The records of a ``{id: record}`` file, streamed, each checked by ``parse``
    (:func:`parse_paper` or :func:`parse_context`). A repeated key is an error: JSON
    readers keep one of the two records, silently, and a store would hold fewer records
    than the file. Every reader (loaders, store builds, ``citeval import``) goes through
    here, so all of them agree; the keys seen are held as a set."""
    seen: set[str] = set()
    for record, (key, value) in enumerate(iter_object(source), start=1):
        if key in seen:
            raise InputError(str(source), f"record {record}: the key {key!r} occurs twice")
        seen.add(key)
        yield parse(key, value, source, scheme, notes, record=record)


class SplitEntry(NamedTuple):
    """One entry of a split file; ``record`` is its 1-based position."""

    record: int
    context_id: str
    positive_ids: tuple[str, ...]


def iter_split(path: Path) -> Iterator[SplitEntry]:
    """The entries of a split file, streamed and checked."""
    for record, value in enumerate(iter_array(path), start=1):
        if not isinstance(value, dict):
            raise InputError(str(path), f"record {record}: expected an object, got {kind(value)}")
        where = f"record {record}"
        context_id = _required(value, ("context_id",), path, where)
        positives = value.get("positive_ids")
        if not isinstance(positives, list) or not all(isinstance(p, str) and p for p in positives):
            raise InputError(
                str(path),
                f"{where} (context {context_id!r}): 'positive_ids' must be a list of paper ids",
            )
        yield SplitEntry(record, context_id, tuple(positives))
