"""Where a title sits in a citation string, and its parts.

A language model writes a reference as one string in any style (``Vaswani et al. 2017.
Attention is all you need. NeurIPS``, ``A. Vaswani, "Attention is all you need," in Proc.
NIPS``, ``ATTENTION IS ALL YOU NEED. UAI 2017``, ``Title. https://arxiv.org/abs/...``), so
its title is found by trying texts of it (:func:`title_texts`): the whole string, what it
quotes, and every run of one to :data:`MAX_SPAN` of its sentences. Sentences end at a full
stop before a space, except after an abbreviation that does not end a sentence (``vs.``,
``e.g.``, ``Proc.``: :data:`NO_BREAK`), and around a link (``https://...``, ``doi:...``),
itself never a title; a spaced dash or a ``?`` ends none (they part a title from its
subtitle). A title cut wrongly (``Shallow vs. Deep Sum-Product Networks`` at ``vs.``, an
initial taken for a sentence's end) is whole again in a run of its pieces, so a rule that
splits too often costs a few more look-ups, never the title. Pieces that are only a venue,
a year, pages or ``In Proceedings of ...`` are no title and end a run.

A title's parts (:func:`title_parts`): its main part and subtitle, split at its first
colon, spaced dash or ``?`` followed by more words: a model drops a subtitle (``GloVe``),
adds one, or drops the first part (``Global Vectors for Word Representation``).

Everything here is linear in the string's length: one pass over its words and one over its
quotation marks, with at most :data:`MAX_PIECES` pieces kept.
"""

from __future__ import annotations

import re

from .normalise import VENUES, title_key, undo_latex

MAX_SPAN = 3
"""Pieces joined at most into one title (a title cut at two wrong places is whole again)."""
MAX_PIECES = 16
"""Pieces of a string considered (a citation has a handful; a run of ``. `` has thousands)."""
MAX_QUOTED = 4
"""Quoted texts considered."""
MIN_QUOTED = 8
"""Characters a quoted text needs to be tried as a title (not ``"small"``)."""
NO_BREAK = frozenset(
    {
        "vs",
        "v",
        "e.g",
        "i.e",
        "cf",
        "proc",
        "vol",
        "no",
        "pp",
        "eds",
        "ed",
        "jr",
        "sr",
        "st",
        "dr",
        "mr",
        "ms",
        "prof",
        "fig",
        "eq",
        "sec",
        "approx",
        "resp",
        "ca",
        "viz",
    }
)
"""Abbreviations whose full stop ends no sentence (with single letters: initials)."""

_WORD = re.compile(r"\S+")
_LINK = re.compile(r"[(\[<]?(?:https?://|www\.|doi:|arxiv:|urn:)", re.IGNORECASE)
_CLOSERS = "\"'\u201d\u2019\u00bb)]}"
_OPENERS = "\"'\u201c\u2018\u00ab([{"
_MAYBE_LINK = re.compile(r"://|www\.|doi:|arxiv:|urn:", re.IGNORECASE)
_QUOTE = re.compile(r"[\"\u201c\u201d\u00ab\u00bb]")
_VENUE_KEYS = frozenset(re.sub(r"[^a-z0-9]+", " ", v).strip() for v in VENUES)
_NOT_TITLE_START = (
    ("in", "proceedings"),
    ("in", "proc"),
    ("proceedings",),
    ("arxiv", "preprint"),
    ("advances", "in", "neural"),
    ("pp",),
    ("pages",),
    ("vol",),
    ("volume",),
)
_PART = re.compile(r":\s?|\s[-\u2013\u2014]\s|\?\s")


def _ends_sentence(word: str) -> bool:
    """Whether a word ends a sentence: a full stop last (before closing quotes or brackets),
    not after a dotted abbreviation (``U.S.``, ``e.g.``) or :data:`NO_BREAK`. An initial
    ends one: ``Apsitis, K. Asymmetric Team Learning`` has its title after it, and ``J.
    Smith`` cut at ``J.`` is whole again in a run. A ``?`` or ``!`` ends none: it ends the
    main part of many a title (``Can We Automate Scientific Reviewing? ...``)."""
    bare = word.rstrip(_CLOSERS)
    if not bare or bare[-1] != ".":
        return False
    stem = bare[:-1].lstrip(_OPENERS)
    if len(stem) > 2 and stem[-2] == "." and stem[-1].isalpha():
        return False  # U.S., e.g., i.e.
    return stem.lower() not in NO_BREAK


def pieces(text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, is_link)`` of the sentences and links of ``text``, in order (at most
    :data:`MAX_PIECES`)."""
    found: list[tuple[int, int, bool]] = []
    start: int | None = None
    end = 0
    for match in _WORD.finditer(text):
        if len(found) >= MAX_PIECES:
            break
        word = match.group()
        if _LINK.match(word):
            if start is not None:
                found.append((start, end, False))
            start = None
            found.append((match.start(), match.end(), True))
            continue
        if start is None:
            start = match.start()
        end = match.end()
        if _ends_sentence(word):
            found.append((start, end, False))
            start = None
    if start is not None and len(found) < MAX_PIECES:
        found.append((start, end, False))
    return found


def quoted(text: str) -> list[str]:
    """The texts between quotation marks (``"..."``, ``\u201c...\u201d``, ``\u00ab...\u00bb``)
    of at least :data:`MIN_QUOTED` characters (at most :data:`MAX_QUOTED`)."""
    found: list[str] = []
    opened = None
    for match in _QUOTE.finditer(text):
        mark, at = match.group(), match.start()
        closes = mark in "\u201d\u00bb" or (mark == '"' and opened is not None)
        if closes and opened is not None:
            if at - opened - 1 >= MIN_QUOTED:
                found.append(text[opened + 1 : at])
                if len(found) >= MAX_QUOTED:
                    break
            opened = None
        elif not closes:
            opened = at
    return found


def _no_title(text: str) -> bool:
    """Whether a piece is no title: nothing but a year, pages, a venue or its preamble."""
    key = title_key(text).text
    if not key or key in _VENUE_KEYS:
        return True
    words = key.split()
    if all(w.isdigit() for w in words):
        return True
    return any(tuple(words[: len(start)]) == start for start in _NOT_TITLE_START)


def title_texts(text: str) -> list[str]:
    """The texts of a citation string tried as its title, the whole string first, then
    what it quotes, then each run of one to :data:`MAX_SPAN` of its pieces (see the module
    docstring); each text once."""
    text = undo_latex(text)  # \\"u is no quotation mark
    found = [text, *quoted(text)] if _QUOTE.search(text) else [text]
    if ". " not in text and (
        ":" not in text and "www." not in text.lower() or not _MAYBE_LINK.search(text)
    ):
        return found  # one piece: a title alone (most references), parsed no further
    found_set = set(found)
    parts = pieces(text)
    if len(parts) > 1:
        titles = [(s, e) if not link and not _no_title(text[s:e]) else None for s, e, link in parts]
        for first, head in enumerate(titles):
            if head is None:
                continue
            for last in range(first, min(first + MAX_SPAN, len(titles))):
                tail = titles[last]
                if tail is None:
                    break
                span = text[head[0] : tail[1]]
                if span not in found_set:
                    found_set.add(span)
                    found.append(span)
    return found


def title_parts(title: str) -> tuple[str, str] | None:
    """A title's main part and subtitle (see the module docstring), each with a word, or
    ``None``."""
    match = _PART.search(title)
    if match is None:
        return None
    main, subtitle = title[: match.start()].strip(), title[match.end() :].strip()
    if match.group().startswith("?"):
        main += "?"
    return (
        (main, subtitle)
        if any(c.isalnum() for c in main) and any(c.isalnum() for c in subtitle)
        else None
    )
