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

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from ..base.errors import ArgumentTypeError, EvalWarning, InputError, examples_of, quoted
from ..base.texts import CsvRows, json_lines, text_lines

FIELDS = ("title", "authors", "year", "venue", "arxiv", "doi", "acl", "url")
"""What a reference object may hold."""
CSV_COLUMNS = ("query_id", "rank", "reference")
"""The columns a CSV of lists must have (with any of :data:`FIELDS` beside them)."""
ID_FIELDS = ("arxiv", "acl", "doi", "id")
"""A catalogue's identifier columns."""


NO_FIELDS: Mapping[str, str] = MappingProxyType({})
"""The fields of a string reference: none, one mapping shared by all of them."""


@dataclass(frozen=True, slots=True)
class Reference:
    """One generated reference. ``text``: as given (a string reference, or an object's
    title, else its url); ``fields``: an object's fields as strings (empty for a string);
    ``citation``: whether ``text`` is a whole citation to parse (a string reference) rather
    than a title. Slotted, its empty fields shared: millions are held at once (ArSyTa's
    test split at 20 references a query is 2.5 million)."""

    text: str
    fields: Mapping[str, str] = field(default_factory=lambda: NO_FIELDS)
    citation: bool = True

    @property
    def title(self) -> str:
        """What is matched as a title: the object's title, or the whole string."""
        return self.text if self.citation else self.fields.get("title", "")

    def year(self) -> int | None:
        given = self.fields.get("year", "")
        match = re.search(r"(?:19|20)\d\d", given) if given else None
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
        path = input_file(generated)
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
            _add(
                lists,
                lines,
                record.get("query_id"),
                record.get("references"),
                "<records>",
                number,
                ignored,
            )
        return GeneratedLists("<records>", lists, _ignored_warning(ignored, "<records>"))
    raise ArgumentTypeError(
        None,
        "generated: expected a JSONL or CSV path, a {query_id: [references]} dict or a list "
        f"of records, not {type(generated).__name__} {quoted(generated)}",
    )


def _is_csv(path: Path) -> bool:
    if path.suffix.lower() in (".csv", ".tsv"):
        return True
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return False
    for _, line in text_lines(path):
        if line.strip():
            return not line.lstrip().startswith("{")
    return False


def _read_jsonl(path: Path) -> GeneratedLists:
    source = str(path)
    lists: dict[str, list[Reference]] = {}
    lines: dict[str, int | None] = {}
    ignored: dict[str, int] = {}
    for number, record in json_lines(path):
        if "references" not in record:
            raise InputError(source, "no 'references' list", number)
        _add(lists, lines, record.get("query_id"), record["references"], source, number, ignored)
    return GeneratedLists(source, lists, _ignored_warning(ignored, source))


def _read_csv(path: Path) -> GeneratedLists:
    source = str(path)
    rows: dict[str, dict[int, Reference]] = {}
    first: dict[tuple[str, int], int] = {}
    ignored: dict[str, int] = {}
    for line, row in _csv_rows(path, CSV_COLUMNS):
        query = row["query_id"].strip()
        if not query:
            raise InputError(source, "query_id is empty", line)
        try:
            rank = int(row["rank"])
        except ValueError:
            raise InputError(
                source, f"rank {quoted(row['rank'])} is not a whole number", line
            ) from None
        if rank < 1:
            raise InputError(source, f"rank {rank} is below 1", line)
        if (query, rank) in first:
            earlier = first[query, rank]
            raise InputError(
                source, f"query {query!r} has rank {rank} twice (first at line {earlier})", line
            )
        first[query, rank] = line
        for name in row:
            if name not in CSV_COLUMNS and name not in FIELDS and row[name]:
                ignored[name] = ignored.get(name, 0) + 1
        fields = {n: row[n] for n in FIELDS if row.get(n)}
        rows.setdefault(query, {})[rank] = (
            Reference(fields["title"], fields, citation=False)
            if fields.get("title")
            else Reference(row["reference"], fields)
        )
    lists = {q: [ranked[r] for r in sorted(ranked)] for q, ranked in rows.items()}
    return GeneratedLists(source, lists, _ignored_warning(ignored, source))


# --------------------------------------------------------------------------- reading files
# Lines, CSV rows and JSON objects are read by the package's one reading of each
# (citeval_irm.base.texts: UTF-8 line by line, strict CSV, a JSON key given twice refused).


def input_file(path) -> Path:
    """``path`` as a :class:`Path` if it is a regular file; an error naming what it is
    otherwise (a pipe or a device as every reader names them, a folder, nothing), before
    anything opens it: a FIFO read twice hangs, ``/dev/zero`` never ends."""
    from ..reading.parquet import check_file_kind

    path = Path(path)
    check_file_kind(path)
    if path.is_dir():
        raise InputError(str(path), "is a folder, not a file")
    if not path.is_file():
        raise InputError(str(path), "no such file")
    return path


def _csv_rows(path: Path, required: tuple[str, ...]) -> CsvRows:
    """The rows of a CSV (``.tsv``: TSV) file of lists or titles, by the one CSV reading
    (:class:`~citeval_irm.base.texts.CsvRows`)."""
    return CsvRows(path, required, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")


# --------------------------------------------------------------------------- catalogue


@dataclass
class Catalogue:
    """Known titles (and identifiers) beyond the corpus; ``warnings``: the rows that hold
    neither, counted."""

    source: str
    titles: list[str]
    ids: list[list[str]]
    warnings: list[EvalWarning] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The line of each title in the file (a catalogue row is named ``catalogue:<line>``)."""


def read_catalogue(path) -> Catalogue:
    """The titles of a catalogue file (text, CSV or JSONL; see the module docstring)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(
            None,
            "catalogue: expected the path of a file of titles (text, CSV or JSONL), not "
            f"{type(path).__name__} {quoted(path)}",
        )
    path = input_file(path)
    source = str(path)
    titles: list[str] = []
    ids: list[list[str]] = []
    empty: list[str] = []
    lines: list[int] = []
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        for line, row in _csv_rows(path, ("title",)):
            found = [row[c].strip() for c in ID_FIELDS if row.get(c, "").strip()]
            if not row["title"].strip() and not found:
                empty.append(f"line {line}")
                continue
            titles.append(row["title"])
            ids.append(found)
            lines.append(line)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        for number, record in json_lines(path):
            if not isinstance(record.get("title"), str):
                raise InputError(source, "a line is an object with a 'title' string", number)
            found = [str(record[c]).strip() for c in ID_FIELDS if str(record.get(c) or "").strip()]
            if not record["title"].strip() and not found:
                empty.append(f"line {number}")
                continue
            titles.append(record["title"])
            ids.append(found)
            lines.append(number)
    else:
        for number, text in text_lines(path):
            if text.strip():
                titles.append(text.strip())
                ids.append([])
                lines.append(number)
    if not titles:
        raise InputError(source, "holds no titles")
    warnings = (
        [
            EvalWarning(
                "catalogue_rows_without_title",
                f"{source}: rows with neither a title nor an identifier were skipped",
                len(empty),
                examples_of(empty),
                "rows",
            )
        ]
        if empty
        else []
    )
    return Catalogue(source, titles, ids, warnings, lines)
