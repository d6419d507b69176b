"""The index a reference is looked up in: a corpus's papers (or a catalogue's titles).

Identifiers and normalised titles are hash look-ups (a dict each); the fuzzy search runs
only for what they leave, and never against every title: it is blocked by the reference's
rarest words. Each word of a normalised title has a posting list (one CSR array over the
whole corpus, built with numpy, 4 bytes a posting); a reference's candidates are the titles
holding all but one of its four rarest known words (both, when it has two; the titles of
the one, when it has one), words in more than :data:`COMMON` of the titles being no
blocking key (a reference of common words only: the titles holding its rarest, then also
the next, ... until at most :data:`COMMON` remain, or none beyond :data:`MAX_CANDIDATES`);
titles whose length cannot reach the threshold are dropped before any string is compared (the Indel
similarity of strings of lengths ``a`` and ``b`` is at most ``2 min(a, b) / (a + b)``); the
rest are scored by RapidFuzz's ``fuzz.ratio`` (normalised Indel similarity, 0-100), in C.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from .normalise import corpus_id_keys, title_key

RARE_WORDS = 4
"""How many of a reference's rarest known words give its candidates."""
COMMON = 0.02
"""A word in more than this share of the titles is no blocking key while a rarer one is."""
MAX_CANDIDATES = 20_000
"""A reference of common words only that leaves more candidates than this is not searched
fuzzily (stop words and misspellings: too little to tell one title from thousands)."""
MIN_TRUNCATED = 12
"""A title cut short (``...``) is compared with the start of each candidate only when it
keeps at least this many characters."""


@dataclass(frozen=True)
class Found:
    """What a look-up found: the papers (positions in the index) and the score (100 for an
    exact or identifier match)."""

    papers: tuple[int, ...]
    score: float


class TitleIndex:
    """Papers by identifier, by normalised title and by title word.

    ``ids``: each paper's id (the corpus's doc id; a catalogue's row id); ``titles``: its
    title; ``years`` and ``authors`` (optional): for breaking ties; ``extra_ids``: more
    identifiers per paper (a catalogue's ``arxiv``, ``acl``, ``doi`` columns).
    """

    def __init__(
        self,
        ids: Sequence[str],
        titles: Sequence[str],
        years: Sequence[int | None] | None = None,
        authors: Sequence[str] | None = None,
        extra_ids: Sequence[Sequence[str]] | None = None,
    ):
        self.ids = list(ids)
        self.years = list(years) if years is not None else [None] * len(self.ids)
        self.authors = list(authors) if authors is not None else None
        self.by_id: dict[str, int] = {}
        for position, doc_id in enumerate(self.ids):
            for key in corpus_id_keys(doc_id):
                self.by_id.setdefault(key, position)
        for position, more in enumerate(extra_ids or ()):
            for value in more:
                for key in corpus_id_keys(value):
                    self.by_id.setdefault(key, position)
        keys = [title_key(t).text if t else "" for t in titles]
        self.keys = np.array(keys, dtype=object)
        self.lengths = np.fromiter((len(k) for k in keys), dtype=np.int32, count=len(keys))
        self.by_key: dict[str, int | tuple[int, ...]] = {}
        for position, key in enumerate(keys):
            if not key:
                continue
            before = self.by_key.get(key)
            if before is None:
                self.by_key[key] = position
            else:
                self.by_key[key] = (
                    (*before, position) if isinstance(before, tuple) else (before, position)
                )
        self._build_postings(keys)

    def _build_postings(self, keys: list[str]) -> None:
        vocabulary: dict[str, int] = {}
        words, papers = array("i"), array("i")
        for position, key in enumerate(keys):
            for word in set(key.split()):
                words.append(vocabulary.setdefault(word, len(vocabulary)))
                papers.append(position)
        word_array = np.frombuffer(words, dtype=np.int32) if len(words) else np.zeros(0, np.int32)
        paper_array = (
            np.frombuffer(papers, dtype=np.int32) if len(papers) else np.zeros(0, np.int32)
        )
        order = np.argsort(word_array, kind="stable")
        self._postings = paper_array[order]
        counts = np.bincount(word_array, minlength=len(vocabulary))
        self._offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._vocabulary = vocabulary
        self._common = max(50, int(COMMON * len(keys)))

    def __len__(self) -> int:
        return len(self.ids)

    def identifier(self, keys: Sequence[str]) -> Found | None:
        """The paper the first known identifier names."""
        for key in keys:
            position = self.by_id.get(key)
            if position is not None:
                return Found((position,), 100.0)
        return None

    def exact(self, key: str) -> Found | None:
        """The papers whose normalised title is ``key``."""
        found = self.by_key.get(key) if key else None
        if found is None:
            return None
        return Found(found if isinstance(found, tuple) else (found,), 100.0)

    def candidates(self, key: str) -> np.ndarray:
        """The blocked candidates of ``key`` (see the module docstring)."""
        known = []
        for word in set(key.split()):
            number = self._vocabulary.get(word)
            if number is not None:
                known.append((int(self._offsets[number + 1] - self._offsets[number]), number))
        if not known:
            return np.zeros(0, np.int32)
        known.sort()
        rare = [k for k in known if k[0] <= self._common][:RARE_WORDS]
        if len(rare) == 1:  # its titles (at most COMMON of them)
            return self._posting(rare[0][1])
        if not rare:  # only common words: the titles holding the rarest, then the next ...
            papers = self._posting(known[0][1]) if len(known) > 1 else np.zeros(0, np.int32)
            for _, word in known[1:]:
                if len(papers) <= self._common:
                    break
                papers = np.intersect1d(papers, self._posting(word), assume_unique=True)
            return papers if len(papers) <= MAX_CANDIDATES else np.zeros(0, np.int32)
        papers, counts = np.unique(
            np.concatenate([self._posting(n) for _, n in rare]), return_counts=True
        )
        return papers[counts >= (len(rare) - 1 if len(rare) > 2 else len(rare))]

    def _posting(self, word: int) -> np.ndarray:
        return self._postings[self._offsets[word] : self._offsets[word + 1]]

    def fuzzy(self, key: str, threshold: float, *, truncated: bool = False) -> Found | None:
        """The best-scoring papers at or above ``threshold`` (every one at the best score),
        among the blocked candidates; a title cut short (``truncated``) is also compared
        with each candidate's start."""
        if not key:
            return None
        papers = self.candidates(key)
        if not len(papers):
            return None
        size, share = len(key), threshold / 100.0
        lengths = self.lengths[papers]
        low, high = size * share / (2.0 - share), size * (2.0 - share) / share
        prefix = truncated and size >= MIN_TRUNCATED
        keep = lengths >= low if prefix else (lengths >= low) & (lengths <= high)
        papers = papers[keep]
        if not len(papers):
            return None
        choices = self.keys[papers]
        ratio = {"scorer": fuzz.ratio, "dtype": np.float32, "score_cutoff": threshold}
        scores = process.cdist([key], choices, **ratio)[0]
        if prefix:
            starts = [c[:size] for c in choices]
            scores = np.maximum(scores, process.cdist([key], starts, **ratio)[0])
        best = float(scores.max())
        if best < threshold:
            return None
        return Found(tuple(int(p) for p in np.sort(papers[scores == best])), round(best, 2))
