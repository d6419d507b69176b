"""How a number is written: the one text rule for run scores, relevance labels and the other
numbers read from data files.

trec_eval 10.0 reads a qrels label with C ``atol`` and a run score with ``atof``
(usnistgov/trec_eval, commit f4253652c8efd0d86ddffd0d163cc0a0f813111a, ``get_qrels.c``
line 192: ``text_qrels_ptr->rel = atol(lines[i].rel);``; ``get_trec_results.c`` line 210:
``text_results_ptr->sim = atof(lines[i].sim);``). ``atol`` skips leading white space, takes
an optional sign and the decimal digits that follow, and stops at the first other character
without a word: ``0x10`` is 0, ``1e1`` is 1, ``1.5`` is 1, ``abc`` is 0, ``+16`` and
``16.0`` are 16, and a number too long for a C ``long`` is ``LONG_MAX`` (checked with the
10.0 binary). A label whose text ``atol`` reads as another number than the one written is
therefore refused here, naming the line and what trec_eval would have read, never altered:
a label is a whole number in decimal digits, with an optional sign and an optional all-zero
fraction (``+16``, ``16.0``, ``16.``), between :data:`LABEL_RANGE`'s ends. A score is a
decimal number (``1``, ``-2.5``, ``.5``, ``1e-3``) that is finite. Space around a value
(the six C ``isspace`` characters, as ``atol`` skips them) is not part of it; any other
character (an underscore, a non-ASCII digit, a non-breaking space) makes it no number.
"""

from __future__ import annotations

import re

# C isspace in the "C" locale: trec_eval splits fields at these and atol skips them.
C_SPACE = " \t\n\v\f\r"
SCORE_TEXT = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
LABEL_TEXT = r"^[+-]?[0-9]+(\.0*)?$"
LABEL_RANGE = (-(2**31), 2**31 - 1)  # a C int, as trec_eval and pytrec_eval store labels
_ATOL = re.compile(r"[+-]?[0-9]*")


def atol_reading(text: str) -> int:
    """What C ``atol`` (trec_eval's reading of a label) makes of ``text``: the decimal
    digits after an optional sign at its start (after space), 0 when there are none; a
    number beyond 64 bits is clamped as glibc's ``strtol`` does."""
    found = _ATOL.match(text.lstrip(C_SPACE))
    digits = found.group() if found else ""
    value = int(digits) if digits.lstrip("+-") else 0
    return max(min(value, 2**63 - 1), -(2**63))


def decimal_number(text: str) -> float | None:
    """The finite number ``text`` writes by :data:`SCORE_TEXT` (space around it allowed),
    else ``None``."""
    text = text.strip(C_SPACE)
    if not re.fullmatch(SCORE_TEXT, text):
        return None
    number = float(text)
    return number if number - number == 0 else None  # inf - inf is nan
