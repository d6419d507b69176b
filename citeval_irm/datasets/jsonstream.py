"""Streaming reads of big JSON files (one top-level object or array).

The arXiv corpus's ``papers.json`` and ``contexts.json`` are single JSON objects of gigabytes:
``json.load`` would hold all of it in memory. ijson yields one entry at a time instead.
Errors name the file and the record where reading stopped; a key given twice in one of a
record's objects is one (ijson, as every JSON reader, keeps the last silently:
:class:`~citeval_irm.base.texts.UniqueKeys` notes it).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base.errors import EvalWarning, InputError
from ..base.texts import UniqueKeys, repeated_key

_EXAMPLES = 5


def _ijson():
    """ijson, imported when a file is first read, not when the datasets are registered."""
    import ijson

    return ijson


def _check_opening(handle, path: Path, opening: bytes) -> None:
    """Fail clearly unless the file's first non-blank byte opens the expected container
    (ijson would otherwise yield nothing for, say, a list where an object is expected)."""
    while True:
        byte = handle.read(1)
        if not byte:
            raise InputError(str(path), "is empty: expected a JSON " + _container(opening))
        if byte in b" \t\r\n":
            continue
        if byte != opening:
            raise InputError(
                str(path),
                f"expected a JSON {_container(opening)} (starting with {opening.decode()!r}), "
                f"found {byte.decode(errors='replace')!r} first",
            )
        handle.seek(0)
        return


def _container(opening: bytes) -> str:
    return "object {id: record, ...}" if opening == b"{" else "array [record, ...]"


def _stream(path: Path, opening: bytes, reader: str, prefix: str) -> Iterator:
    """The entries of a file whose first byte is ``opening``, read by ijson's ``reader``
    (``kvitems`` or ``items``) at ``prefix``."""
    if not path.is_file():
        raise InputError(str(path), "no such file")
    count = 0
    with open(path, "rb") as handle:
        _check_opening(handle, path, opening)
        try:
            read = getattr(_ijson(), reader)
            for item in read(handle, prefix, use_float=True, map_type=UniqueKeys):
                count += 1
                repeated = repeated_key(item)  # JSON readers keep the last value silently
                if repeated:
                    key = f" ({item[0]!r})" if isinstance(item, tuple) else ""
                    raise InputError(str(path), f"record {count}{key}: {repeated}")
                yield item
        except _ijson().JSONError as exc:
            raise InputError(
                str(path), f"invalid JSON after record {count} (byte {handle.tell()}): {exc}"
            ) from None


def iter_object(path: str | os.PathLike) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` pairs of a file holding one JSON object, streamed."""
    return _stream(Path(path), b"{", "kvitems", "")


def iter_array(path: str | os.PathLike) -> Iterator[Any]:
    """The items of a file holding one JSON array, streamed."""
    return _stream(Path(path), b"[", "items", "item")


def kind(value: Any) -> str:
    """A JSON type name for an error message."""
    if value is None:
        return "null"
    kinds = ((bool, "a boolean"), (dict, "an object"), (list, "an array"), (str, "a string"))
    found = next((name for cls, name in kinds if isinstance(value, cls)), None)
    return found or ("a number" if isinstance(value, (int, float)) else "?")


class Notes:
    """Counts of things a reader tolerated, with a few examples each: reported as
    :class:`EvalWarning` objects, never dropped silently."""

    def __init__(self, messages: dict[str, str]):
        self._messages = messages
        self.counts: Counter[str] = Counter()
        self._examples: defaultdict[str, list[str]] = defaultdict(list)

    def add(self, code: str, example: str) -> None:
        if code not in self._messages:
            raise KeyError(f"no message for note {code!r}")
        self.counts[code] += 1
        if len(self._examples[code]) < _EXAMPLES:
            self._examples[code].append(example)

    def warnings(self) -> list[EvalWarning]:
        return [
            EvalWarning(code, self._messages[code], count, tuple(self._examples[code]))
            for code, count in self.counts.items()
        ]
