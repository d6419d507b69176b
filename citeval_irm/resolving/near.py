"""Titles that are close but not equal: abbreviations, and the near misses.

A model writes ``RL`` for *Reinforcement Learning* or spells out ``MDPs``: an abbreviation
in capitals in one title that the initials of a run of the other's words spell
(:func:`bridged`, skipping ``of``, ``and``, ``for``, ``the`` inside the run: *Alternating
Direction Method of Multipliers*) is put in place of the run before the two are compared,
so the comparison is of like with like.

A **near miss** is a reference that names a real title with an error the threshold does not
bridge: it is counted apart, neither in the run nor as fabricated, so that what is reported
as found nowhere is what the matcher cannot tie to any real title (:func:`near_reason`, the
stated distance): a title (whole) at ``fuzz.ratio`` :data:`NEAR_MISS` or more, one word
away from a title of :data:`NEAR_WORDS` words or more (a word dropped, added or replaced),
the first words of a title (cut short without ``...``), or exactly a title's main part or
subtitle too plain to stand for the whole (``Beta calibration``, matched to a part of
several titles or of a title whose part names nothing). Its error, measured on real titles,
is in the resolve guide (``benchmarks/bench_resolve_quality.py``).
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

NEAR_MISS = 85.0
"""The ``fuzz.ratio`` of a near miss (below the threshold)."""
NEAR_WORDS = 4
"""A title one word away from a reference is a near miss when it has this many words or
more (and the reference three or more): two words of three are not one title."""
NEAR_PREFIX = 4
"""A reference that is the first words of a title is a near miss with this many words or
more."""
TOP = 8
"""The candidates, by ``fuzz.ratio``, looked at for an abbreviation or a near miss."""

_ABBREVIATION = re.compile(r"\b[A-Z][A-Z0-9]{1,5}s?\b")
_INSIDE = frozenset({"of", "and", "for", "the", "in", "on", "to", "a"})


def abbreviations(text: str) -> frozenset[str]:
    """The abbreviations a title writes (``RL``, ``MDPs``, ``POMDP``: 2-6 capitals, a plural
    ``s``), lower case; none in a title written in capitals throughout."""
    if text.isupper() or not any(c.isupper() for c in text):
        return frozenset()
    return frozenset(m.lower() for m in _ABBREVIATION.findall(text[:2_000]))


def _contracted(words: list[str], abbreviation: str) -> list[str] | None:
    """``words`` with the first run whose initials spell ``abbreviation`` (its plural ``s``
    aside) replaced by it, or ``None``."""
    letters = (
        abbreviation[:-1]
        if abbreviation.endswith("s") and len(abbreviation) > 2
        else (abbreviation)
    )
    for start in range(len(words)):
        at, matched = start, 0
        while at < len(words) and matched < len(letters):
            word = words[at]
            if word[0] == letters[matched]:
                matched += 1
            elif not (matched and word in _INSIDE):
                break
            at += 1
        if matched == len(letters) and at - start >= 2:
            return [*words[:start], abbreviation, *words[at:]]
    return None


def bridged(
    words: list[str], other: list[str], ours: frozenset[str], theirs: frozenset[str]
) -> float:
    """``fuzz.ratio`` of two titles' words once each abbreviation one writes (``ours``,
    ``theirs``) stands for the run of the other's words it abbreviates; 0 when none does."""
    changed = False
    for mine, yours, given in ((words, other, ours), (other, words, theirs)):
        present = set(yours)
        for abbreviation in given:
            if abbreviation in present or abbreviation not in mine:
                continue
            contracted = _contracted(yours, abbreviation)
            if contracted is not None:
                yours[:] = contracted
                present = set(yours)
                changed = True
    return fuzz.ratio(" ".join(words), " ".join(other)) if changed else 0.0


def near_reason(key: str, title: str, score: float) -> str | None:
    """Why ``key`` is a near miss of the normalised ``title`` it scores ``score`` with
    (``"close"``, ``"one word"``, ``"first words"``), or ``None``."""
    if score >= NEAR_MISS:
        return "close"
    words, other = key.split(), title.split()
    if len(words) >= 3 and len(other) >= NEAR_WORDS and Levenshtein.distance(words, other) <= 1:
        return "one word"
    if len(words) >= NEAR_PREFIX and len(other) > len(words) and other[: len(words)] == words:
        return "first words"
    return None
