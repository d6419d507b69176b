"""Whether a file's bytes can be the file its name says, judged by its first and last
bytes: an empty body, an HTML error page, a compressed body or a cut-off transfer is caught
before a download (:func:`citeval_irm.base.downloads.download`) is renamed into place and
recorded as trusted."""

from __future__ import annotations

import os
from pathlib import Path

FORMATS = {
    ".json": ("JSON", (b"{", b"["), {b"{": b"}", b"[": b"]"}),
    ".parquet": ("Parquet", (b"PAR1",), {b"PAR1": b"PAR1"}),
}
_HEAD = 4096


def content_problem(path: str | os.PathLike, name: str | None = None) -> str | None:
    """Why the file at ``path`` cannot be the file ``name`` (default: its own name) in its
    format, judged by its first and last bytes (``None`` if it can): an empty body, an HTML
    error page, a compressed body or a cut-off transfer is caught here before it is
    recorded as trusted. Formats are known by suffix (:data:`FORMATS`); others must only
    be non-empty."""
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        return "the body is empty (0 bytes)"
    suffix = Path(name or path.name).suffix.lower()
    if suffix not in FORMATS:
        return None
    label, openings, closings = FORMATS[suffix]
    with open(path, "rb") as handle:
        head = handle.read(_HEAD)
        handle.seek(max(size - _HEAD, 0))
        tail = handle.read()
    opened = head.lstrip() if label == "JSON" else head
    opening = next((o for o in openings if opened.startswith(o)), None)
    if opening is None:
        shown = head[:40].decode("utf-8", errors="replace")
        hint = ""
        if head[:2] == b"\x1f\x8b":
            hint = " (gzip-compressed)"
        elif head.lstrip()[:1] == b"<":
            hint = " (an HTML or XML page, not the file)"
        return f"not a {label} file{hint}: it starts with {shown!r}"
    closing = tail.rstrip() if label == "JSON" else tail
    if not closing.endswith(closings[opening]):
        return (
            f"a {label} file cut short: it does not end with {closings[opening].decode()!r} "
            f"({size:,} bytes)"
        )
    return None
