"""Reading generated reference lists and a catalogue of known titles.

A list file is JSONL, one query a line: ``{"query_id": "q1", "references": [...]}``, each
reference a string (``"Vaswani et al. 2017. Attention is all you need. NeurIPS"``) or an
object with any of ``title``, ``authors`` (a string or a list), ``year``, ``venue``,
``arxiv``, ``doi``, ``acl`` and ``url``; or CSV with the columns ``query_id``, ``rank``,
``reference`` (and optionally ``title``, ``authors``, ``year``, ``venue``, ``arxiv``,
``doi``, ``acl``, ``url``), read with the :mod:`csv` module, a query's references in rank
order. In Python, a dict ``{query_id: [references]}`` or a list of such records too.

A catalogue (``--catalogue``) is a text file of titles, one a line, or CSV / JSONL with a
``title`` column (and optionally ``arxiv``, ``acl``, ``doi``, ``id``). Bad input is an
:class:`~citeval_irm.base.errors.InputError` naming the file, the line and the problem.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import EvalWarning, InputError, examples_of

FIELDS = ("title", "authors", "year", "venue", "arxiv", "doi", "acl", "url")
"""What a reference object may hold."""
ID_FIELDS = ("arxiv", "acl", "doi", "id")
"""A catalogue's identifier columns."""


@dataclass(frozen=True)
class Reference:
    """One generated reference. ``text``: as given (a string reference, or an object's
    title, else its url); ``fields``: an object's fields as strings (empty for a string);
    ``citation``: whether ``text`` is a whole citation to parse (a string reference) rather
    than a title."""

    text: str
    fields: Mapping[str, str] = field(default_factory=dict)
    citation: bool = True

    @property
    def title(self) -> str:
        """What is matched as a title: the object's title, or the whole string."""
        return self.text if self.citation else self.fields.get("title", "")

    def year(self) -> int | None:
        match = re.search(r"(?:19|20)\d\d", self.fields.get("year", ""))
        return int(match.group(0)) if match else None


@dataclass
class GeneratedLists:
    """The lists of a file, in its order: ``lists`` ``{query_id: [Reference]}``; ``lines``
    where each query was read; ``warnings`` what was ignored, counted."""

    source: str
    lists: dict[str, list[Reference]]
    warnings: list[EvalWarning] = field(default_factory=list)


def _reference(value, source: str, line: int | None, ignored: dict[str, int]) -> Reference:
    if isinstance(value, str):
        return Reference(value)
    if not isinstance(value, Mapping):
        raise InputError(
            source, f"a reference is a string or an object, not {type(value).__name__}", line
        )
    fields = {}
    for name, item in value.items():
        if name not in FIELDS:
            ignored[name] = ignored.get(name, 0) + 1
            continue
        if item is None:
            continue
        if name == "authors" and isinstance(item, list):
            item = "; ".join(str(a) for a in item)
        if isinstance(item, (dict, list)):
            raise InputError(source, f"reference field {name!r} is not a string or number", line)
        fields[name] = str(item)
    return Reference(fields.get("title", "") or fields.get("url", ""), fields, citation=False)


def _add(lists: dict, lines: dict, query, references, source: str, line: int | None, ignored):
    if isinstance(query, bool) or not isinstance(query, (str, int)) or str(query).strip() == "":
        raise InputError(source, "query_id is missing or not a string or number", line)
    query = str(query)
    if query in lists:
        first = lines[query]
        raise InputError(source, f"query {query!r} is listed twice (first at line {first})", line)
    if not isinstance(references, list):
        raise InputError(source, f"references of {query!r} is not a list", line)
    lists[query] = [_reference(r, source, line, ignored) for r in references]
    lines[query] = line


def _ignored_warning(ignored: dict[str, int], source: str) -> list[EvalWarning]:
    if not ignored:
        return []
    return [
        EvalWarning(
            "reference_fields_ignored",
            f"{source}: reference fields that are none of {', '.join(FIELDS)} were ignored",
            sum(ignored.values()),
            examples_of(sorted(ignored)),
            "fields",
        )
    ]


def read_generated(generated) -> GeneratedLists:
    """The lists of ``generated``: a JSONL or CSV path, a dict or a list of records."""
    if isinstance(generated, (str, os.PathLike)):
        path = Path(generated)
        if not path.is_file():
            raise InputError(str(path), "no such file")
        if _is_csv(path):
            return _read_csv(path)
        return _read_jsonl(path)
    lists: dict[str, list[Reference]] = {}
    lines: dict[str, int | None] = {}
    ignored: dict[str, int] = {}
    if isinstance(generated, Mapping):
        for number, (query, references) in enumerate(generated.items(), 1):
            _add(lists, lines, query, references, "<dict>", number, ignored)
        return GeneratedLists("<dict>", lists, _ignored_warning(ignored, "<dict>"))
    if isinstance(generated, (list, tuple)):
        for number, record in enumerate(generated, 1):
            if not isinstance(record, Mapping):
                raise InputError("<records>", "a record is an object", number)
            _add(lists, lines, record.get("query_id"), record.get("references"),
                 "<records>", number, ignored)  # fmt: skip
        return GeneratedLists("<records>", lists, _ignored_warning(ignored, "<records>"))
    raise InputError(None, f"cannot read generated lists from {type(generated).__name__}")


def _is_csv(path: Path) -> bool:
    if path.suffix.lower() in (".csv", ".tsv"):
        return True
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return False
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                return not line.lstrip().startswith("{")
    return False


def _read_jsonl(path: Path) -> GeneratedLists:
    source = str(path)
    lists: dict[str, list[Reference]] = {}
    lines: dict[str, int | None] = {}
    ignored: dict[str, int] = {}
    for number, record in _json_lines(path):
        if "references" not in record:
            raise InputError(source, "no 'references' list", number)
        _add(lists, lines, record.get("query_id"), record["references"], source, number, ignored)
    return GeneratedLists(source, lists, _ignored_warning(ignored, source))


def _json_lines(path: Path):
    """``(line number, object)`` of each non-blank line of a JSONL file."""
    source = str(path)
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(_lines(handle, source), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problem = f"not JSON: {exc.msg} (column {exc.colno})"
                raise InputError(source, problem, number) from None
            if not isinstance(record, dict):
                raise InputError(source, "a line is a JSON object", number)
            yield number, record


def _lines(handle, source: str):
    try:
        yield from handle
    except UnicodeDecodeError as exc:
        raise InputError(source, f"is not UTF-8 text ({exc.reason})") from None


def _csv_rows(path: Path, required: tuple[str, ...]):
    """``(line, row)`` of a CSV (or TSV) file with a header holding ``required``."""
    source = str(path)
    with open(path, encoding="utf-8", newline="") as handle:
        delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
        reader = csv.DictReader(_lines(handle, source), delimiter=delimiter)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(source, f"no column {', '.join(missing)} in the header", 1)
        for row in reader:
            if None in row:
                raise InputError(source, "more fields than the header", reader.line_num)
            yield reader.line_num, row


def _read_csv(path: Path) -> GeneratedLists:
    source = str(path)
    rows: dict[str, dict[int, Reference]] = {}
    first: dict[tuple[str, int], int] = {}
    for line, row in _csv_rows(path, ("query_id", "rank", "reference")):
        query = (row["query_id"] or "").strip()
        if not query:
            raise InputError(source, "query_id is empty", line)
        try:
            rank = int(row["rank"])
        except (TypeError, ValueError):
            raise InputError(source, f"rank {row['rank']!r} is not a whole number", line) from None
        if rank < 1:
            raise InputError(source, f"rank {rank} is below 1", line)
        if (query, rank) in first:
            earlier = first[query, rank]
            raise InputError(
                source, f"query {query!r} has rank {rank} twice (first at line {earlier})", line
            )
        first[query, rank] = line
        fields = {n: row[n] for n in FIELDS if row.get(n)}
        text = row["reference"] or ""
        rows.setdefault(query, {})[rank] = (
            Reference(fields["title"], fields, citation=False)
            if fields.get("title")
            else Reference(text, fields)
        )
    lists = {q: [ranked[r] for r in sorted(ranked)] for q, ranked in rows.items()}
    return GeneratedLists(source, lists)


# --------------------------------------------------------------------------- catalogue


@dataclass
class Catalogue:
    """Known titles (and identifiers) beyond the corpus."""

    source: str
    titles: list[str]
    ids: list[list[str]]


def read_catalogue(path) -> Catalogue:
    """The titles of a catalogue file (text, CSV or JSONL; see the module docstring)."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise InputError(source, "no such file")
    titles: list[str] = []
    ids: list[list[str]] = []
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        for _, row in _csv_rows(path, ("title",)):
            titles.append(row["title"] or "")
            ids.append([row[c] for c in ID_FIELDS if row.get(c)])
    elif suffix in (".jsonl", ".ndjson", ".json"):
        for number, record in _json_lines(path):
            if not isinstance(record.get("title"), str):
                raise InputError(source, "a line is an object with a 'title' string", number)
            titles.append(record["title"])
            ids.append([str(record[c]) for c in ID_FIELDS if record.get(c)])
    else:
        with open(path, encoding="utf-8") as handle:
            for line in _lines(handle, source):
                if line.strip():
                    titles.append(line.strip())
                    ids.append([])
    if not titles:
        raise InputError(source, "holds no titles")
    return Catalogue(source, titles, ids)
