"""Reading a small text file a user wrote (a manifest): UTF-8, or an error that says which
encoding it seems to be in and where the first byte that is not UTF-8 is."""

from __future__ import annotations

import codecs
from pathlib import Path

from .errors import InputError

_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def read_utf8(path: Path) -> str:
    """The text of ``path``, UTF-8 (a byte-order mark at its start dropped); text in
    another encoding (UTF-16 with its byte-order mark, Latin-1, Windows-1252) is an
    :class:`InputError` naming the file, the line and what to do, never a traceback."""
    data = Path(path).read_bytes()
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise InputError(
                str(path),
                f"is {name} text (it starts with a {name} byte-order mark): save it as UTF-8",
            )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        raise InputError(
            str(path),
            f"is not UTF-8 text: byte 0x{byte:02x} cannot start a character there (Latin-1 or "
            "Windows-1252 text?): save it as UTF-8",
            line,
        ) from None
