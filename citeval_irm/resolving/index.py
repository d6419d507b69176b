"""The index a reference is looked up in: a corpus's papers (or a catalogue's titles).

Identifiers and normalised titles are hash look-ups (a dict each), and so are the parts of
each title (its main part and its subtitle, :func:`~.citations.title_parts`); the fuzzy
search runs only for what they leave, and never against every title: it is blocked by the
reference's rare words (:meth:`TitleIndex.candidates`). Each word of a normalised title has
a posting list (one CSR array over the whole corpus, built with numpy, 4 bytes a posting);
titles whose length cannot reach the threshold are dropped before any string is compared
(the Indel similarity of strings of lengths ``a`` and ``b`` is at most ``2 min(a, b) / (a +
b)``); the rest are scored by RapidFuzz's ``fuzz.ratio`` (normalised Indel similarity,
0-100), in C.

The blocking must not lose a title the threshold would pass, so it tolerates the words a
close reference spoils: a candidate may lack two of the reference's four rarest words (a
word misspelt or in the other spelling, ``Maximisation``, is often a rare word of other
titles, and a citation's author names are rare words the title lacks); a reference whose
words are all unknown or common has its unknown words repaired against the vocabulary
first. Measured against a brute-force search over every title on 40,000 references made
from 11,407 real titles (``benchmarks/bench_resolve_quality.py``), the candidates hold
99.97 % of the (reference, title) pairs at or above the threshold (98.9 % before this
tolerance); what is left are titles whose words were run together (``robotlbaby``).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from .citations import title_parts
from .near import abbreviations
from .normalise import corpus_id_keys, title_key

RARE_WORDS = 4
"""How many of a reference's rarest known words (of two letters or more) give its
candidates."""
SPOILED = 2
"""How many of those a candidate may lack, when it has three or more (one of one or two)."""
COMMON_PATH = 4
"""A reference of common words only is searched among the titles holding them all when its
rarest word is in at most 4 times :data:`COMMON`'s share of the titles."""
VOLUME = 1500
"""The most postings the rare words of a key may have between them: beyond it, the least rare
is left out (keeping two), so a key of middling words costs no more than a rare one (the
counting of postings is most of the search's time); it and :data:`COMMON_PATH` keep the
search of a reference of middling words near that of a rare one."""
MIN_REPAIRED, REPAIRED, REPAIR_SCORE = 4, 3, 75.0
"""A reference with fewer than two known rare words has its (at most 3) longest unknown
words of 4 letters or more looked up in the vocabulary (``fuzz.ratio`` at least 75): a
title whose every word is misspelt can still be within the threshold of its own."""
COMMON = 0.02
"""A word in more than this share of the titles is no blocking key while a rarer one is."""
MAX_CANDIDATES = 20_000
"""A reference of common words only that leaves more candidates than this is not searched
fuzzily (stop words and misspellings: too little to tell one title from thousands)."""
PREFIX_LONGER = 4
"""A title cut short is compared with the start of titles at most 4 times its length."""
MIN_TRUNCATED = 12
"""A title cut short (``...``) is compared with the start of each candidate only when it
keeps at least this many characters."""

TARGETS = ("full", "main", "subtitle", "single")
"""What of a title a key is compared with: the whole normalised title, its main part, its
subtitle, or the whole title of a title that has no parts."""


_NONE = np.zeros(0, np.int32)


def _intersection(one: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The values two sorted arrays of unique values share, by binary search of the longer
    (no sort of both, as ``np.intersect1d`` does)."""
    if len(one) > len(other):
        one, other = other, one
    if not len(one):
        return one
    at = np.searchsorted(other, one)
    at[at == len(other)] = 0
    return one[other[at] == one]


MERGED = 1500
"""Postings beyond this many are merged as sorted runs (a stable sort), fewer sorted afresh:
measured, each is the faster there."""


FEW = 16
"""Candidates up to this many are scored one call each: for so few, RapidFuzz's ``cdist``
costs more to set up than the comparisons (most searches leave one or two)."""


def _ratios(key: str, texts: list[str], cutoff: float) -> np.ndarray:
    """``fuzz.ratio`` of ``key`` and each of ``texts`` (0 below ``cutoff``), as float32:
    ``process.cdist``'s numbers, by one call each when there are :data:`FEW` or fewer."""
    if len(texts) <= FEW:
        ratio = fuzz.ratio
        return np.array([ratio(key, t, score_cutoff=cutoff) for t in texts], np.float32)
    return process.cdist([key], texts, scorer=fuzz.ratio, dtype=np.float32, score_cutoff=cutoff)[0]


def _held(every: np.ndarray, times: int) -> np.ndarray:
    """The values of the sorted ``every`` found ``times`` times or more, each once (a value
    ``k`` times in a row starts where it equals the value ``k - 1`` places on)."""
    if times <= 1:
        return every[np.concatenate(([True], every[1:] != every[:-1]))] if len(every) else every
    runs = every[times - 1 :] == every[: len(every) - times + 1]
    found = every[: len(every) - times + 1][runs]
    return found[np.concatenate(([True], found[1:] != found[:-1]))] if len(found) else found


@dataclass(frozen=True)
class Found:
    """What a look-up found: the papers (positions in the index) and the score (100 for an
    exact or identifier match)."""

    papers: tuple[int, ...]
    score: float


def _grouped(keys: Sequence[str]) -> dict[str, int | tuple[int, ...]]:
    """Each non-empty key to its position, or to its positions when several share it."""
    found: dict[str, int | tuple[int, ...]] = {}
    for position, key in enumerate(keys):
        if not key:
            continue
        before = found.get(key)
        if before is None:
            found[key] = position
        elif isinstance(before, tuple):
            if before[-1] != position:
                found[key] = (*before, position)
        elif before != position:
            found[key] = (before, position)
    return found


def _papers(value: int | tuple[int, ...] | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    return value if isinstance(value, tuple) else (value,)


class TitleIndex:
    """Papers by identifier, by normalised title (and title part) and by title word.

    ``ids``: each paper's id (the corpus's doc id; a catalogue's row id); ``titles``: its
    title; ``years`` and ``authors`` (optional): for breaking ties; ``extra_ids``: more
    identifiers per paper (a catalogue's ``arxiv``, ``acl``, ``doi`` columns).
    """

    def __init__(
        self,
        ids: Sequence[str],
        titles: Sequence[str],
        years: Sequence[int | None] | None = None,
        authors: Sequence[str | None] | None = None,
        extra_ids: Sequence[Sequence[str]] | None = None,
    ):
        self.ids = list(ids)
        self.titles = list(titles)
        self.years = list(years) if years is not None else [None] * len(self.ids)
        self.authors = list(authors) if authors is not None else None
        keyed: list[tuple[str, int]] = []
        for position, doc_id in enumerate(self.ids):
            keyed += [(key, position) for key in corpus_id_keys(doc_id)]
        for position, more in enumerate(extra_ids or ()):
            keyed += [(key, position) for value in more for key in corpus_id_keys(value)]
        self.by_id: dict[str, int | tuple[int, ...]] = {}
        for key, position in sorted(keyed, key=lambda pair: pair[1]):
            before = _papers(self.by_id.get(key)) or ()
            if position not in before:  # a key shared (versions of one arXiv id): all listed
                self.by_id[key] = (*before, position) if before else position
        keys, mains, subtitles = [], [], []
        for title in self.titles:
            keys.append(title_key(title).text if title else "")
            split = title_parts(title) if title else None
            mains.append(title_key(split[0]).text if split else "")
            subtitles.append(title_key(split[1]).text if split else "")
        self.keys = np.array(keys, dtype=object)
        self.lengths = np.fromiter((len(k) for k in keys), dtype=np.int32, count=len(keys))
        self.initials = np.fromiter((ord(k[0]) if k else 0 for k in keys), np.int32, len(keys))
        self.parts = {
            "main": np.array(mains, dtype=object),
            "subtitle": np.array(subtitles, dtype=object),
        }
        self.part_lengths = {
            which: np.fromiter((len(p) for p in parts), np.int32, len(parts))
            for which, parts in (("main", mains), ("subtitle", subtitles))
        }
        self.with_parts = np.fromiter((bool(m) for m in mains), dtype=bool, count=len(mains))
        self.abbreviated = np.fromiter(
            (bool(abbreviations(t)) if t else False for t in self.titles), bool, len(self.titles)
        )
        self.any_parts = bool(self.with_parts.any())
        self.by_key = _grouped(keys)
        self.by_part = {"main": _grouped(mains), "subtitle": _grouped(subtitles)}
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
        self._starts = self._offsets.tolist()  # Python ints: a slice of one costs less
        self._vocabulary = vocabulary
        sizes = counts.tolist()
        self._slots = {  # a blocking word's slot: (titles holding it, its number), made once
            word: (sizes[n], (n,)) for word, n in vocabulary.items() if len(word) > 1
        }
        self._common = max(50, int(COMMON * len(keys)))
        self._repairs: dict[str, tuple[int, ...]] = {}
        self._by_length: tuple[list[str], list[int], list[tuple[str, int]]] | None = None
        self._blocked: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._scored: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def identifier(self, keys: Sequence[str]) -> Found | None:
        """The papers the first known identifier names (several: the versions of an arXiv
        id given without one)."""
        for key in keys:
            papers = _papers(self.by_id.get(key))
            if papers is not None:
                return Found(papers, 100.0)
        return None

    def exact(self, key: str, target: str = "full") -> Found | None:
        """The papers whose normalised title (``target="full"``; ``"single"``: of a title
        without parts), main part or subtitle is ``key``."""
        table = self.by_key if target in ("full", "single") else self.by_part[target]
        papers = _papers(table.get(key)) if key else None
        if papers is not None and target == "single":
            papers = tuple(p for p in papers if not self.parts["main"][p]) or None
        return Found(papers, 100.0) if papers is not None else None

    def word_count(self, word: str) -> int:
        """How many titles hold ``word``."""
        number = self._vocabulary.get(word)
        return 0 if number is None else int(self._offsets[number + 1] - self._offsets[number])

    def candidates(self, key: str) -> np.ndarray:
        """The blocked candidates of ``key`` (see the module docstring): the titles holding
        enough of its :data:`RARE_WORDS` rarest known words (:data:`SPOILED` of them may be
        missing: a word misspelt, in the other spelling, or an author's name in a citation
        is often a rare word the title lacks), and, when it has at most one rare word, the
        titles holding all of its common words too. A key with fewer than two known words,
        or no rare one, has its unknown words repaired first (:data:`MIN_REPAIRED`): each
        stands for the words of the vocabulary it may be. The last few keys' candidates
        are kept (a key is searched for a title, its parts and near misses)."""
        return self.tiers(key)[1]

    def tiers(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """``(strict, candidates)``: the candidates of ``key`` (:meth:`candidates`) and those
        of them that hold all its rare words: a close title is nearly always among the few
        strict ones, scored first (the rest only when they hold no match)."""
        found = self._blocked.get(key)
        if found is None:
            if len(self._blocked) >= 64:
                self._blocked.clear()
            found = self._blocked[key] = self._block(key)
        return found

    def _block(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        common, words = self._common, set(key.split())
        get = self._slots.get  # one look-up a word: this runs for every reference searched
        slots: list[tuple[int, tuple[int, ...]]] = [  # (titles holding it, its words)
            slot for word in words if (slot := get(word)) is not None
        ]
        if len(slots) < 2 or min(slots)[0] > common:
            starts, vocabulary = self._starts, self._vocabulary
            unknown = [w for w in words if len(w) >= MIN_REPAIRED and w not in vocabulary]
            for word in sorted(unknown, key=len, reverse=True)[:REPAIRED]:
                numbers = self._repaired(word)
                if numbers:
                    slots.append((sum(starts[n + 1] - starts[n] for n in numbers), numbers))
        if not slots:
            return _NONE, _NONE
        slots.sort()
        rare = [slot for slot in slots if slot[0] <= common][:RARE_WORDS]
        volume = sum(size for size, _ in rare)
        while len(rare) > 2 and volume > VOLUME:
            volume -= rare.pop()[0]  # the least rare of them: the others tell titles apart
        if not rare:  # only common words: the titles holding them all, rarest first
            if slots[0][0] > COMMON_PATH * common:
                return _NONE, _NONE  # words most titles hold: too little to go on
            papers = self._holding(slots[0][1])
            for _, numbers in slots[1:]:
                if len(papers) <= common:
                    break
                papers = _intersection(papers, self._holding(numbers))
            papers = papers if len(papers) <= MAX_CANDIDATES else _NONE
            return papers, papers
        postings = [self._holding(numbers) for _, numbers in rare]
        if len(postings) == 1:
            return postings[0], postings[0]
        need = max(1, len(rare) - SPOILED, (len(rare) + 1) // 2)
        if need == 1 and len(rare) == 2 and rare[0][0] + rare[1][0] > VOLUME:
            need = 2  # two words that many titles hold: a title holds both
        strict = len(rare)
        if need == strict == 2:  # two words a title holds both of: no merge of their titles
            candidates = _intersection(postings[0], postings[1])
            return candidates, candidates
        every = np.concatenate(postings)  # sorted runs: merged when long, else sorted
        every.sort(kind="stable" if len(every) > MERGED else None)
        candidates = _held(every, need)
        if strict == need or not len(candidates):  # none held by enough: none by all
            return candidates, candidates
        return _held(every, strict), candidates

    def _holding(self, numbers: tuple[int, ...]) -> np.ndarray:
        """The titles holding any of the words ``numbers`` (each once, in order)."""
        starts = self._starts
        if len(numbers) == 1:
            return self._postings[starts[numbers[0]] : starts[numbers[0] + 1]]
        every = np.sort(
            np.concatenate([self._postings[starts[n] : starts[n + 1]] for n in numbers]),
            kind="stable",
        )
        return _held(every, 1)

    def _repaired(self, word: str) -> tuple[int, ...]:
        """The words of the vocabulary a misspelt ``word`` may be (``fuzz.ratio`` at least
        :data:`REPAIR_SCORE`, the closest three), among those of its first letter (a typo
        there is rare; the other words are repaired too) and of a length it can reach;
        remembered."""
        found = self._repairs.get(word)
        if found is None:
            if self._by_length is None:  # by first letter, then length
                ordered = sorted(self._vocabulary.items(), key=lambda w: (w[0][0], len(w[0])))
                shapes = [(w[0], len(w)) for w, _ in ordered]
                self._by_length = ([w for w, _ in ordered], [n for _, n in ordered], shapes)
            words, numbers, shapes = self._by_length
            share = REPAIR_SCORE / 100.0
            low = bisect_left(shapes, (word[0], len(word) * share / (2 - share)))
            high = bisect_right(shapes, (word[0], len(word) * (2 - share) / share))
            best = process.extract(
                word, words[low:high], scorer=fuzz.ratio, score_cutoff=REPAIR_SCORE, limit=3
            )
            found = self._repairs[word] = tuple(numbers[low + at] for _, _, at in best)
        return found

    def scores(
        self,
        key: str,
        papers: np.ndarray,
        threshold: float,
        *,
        target: str = "full",
        truncated: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(papers, scores)``: ``fuzz.ratio`` of ``key`` and the ``target`` of each of
        ``papers`` whose length can reach ``threshold`` (0 below it); a title cut short
        (``truncated``) is also compared with each title's start."""
        choices = self.keys if target in ("full", "single") else self.parts[target]
        if target != "full":
            papers = papers[
                ~self.with_parts[papers] if target == "single" else self.with_parts[papers]
            ]
        if target in ("full", "single"):
            lengths = self.lengths[papers]
        else:
            lengths = self.part_lengths[target][papers]
        size, share = len(key), threshold / 100.0
        low, high = size * share / (2.0 - share), size * (2.0 - share) / share
        prefix = truncated and size >= MIN_TRUNCATED and target == "full"
        keep = (lengths >= low) & (lengths <= (PREFIX_LONGER * size if prefix else high))
        papers = papers[keep]
        if not len(papers):
            return papers, np.zeros(0, np.float32)
        if not prefix:
            return papers, _ratios(key, choices[papers].tolist(), threshold)
        found = np.zeros(len(papers), np.float32)  # only the texts compared are fetched
        whole = lengths[keep] <= high  # a title longer than that is compared by its start
        if whole.any():
            found[whole] = _ratios(key, choices[papers[whole]].tolist(), threshold)
        same = self.initials[papers] == ord(key[0])  # a title cut short keeps its start
        if same.any():
            starts = [c[:size] for c in choices[papers[same]].tolist()]
            found[same] = np.maximum(found[same], _ratios(key, starts, threshold))
        return papers, found

    def scored(self, key: str, floor: float, *, truncated: bool = False):
        """``(papers, scores)``: the candidates of ``key`` at or above ``floor`` against
        whole titles (and their starts, for a title cut short), kept for the key's next
        look-ups (a match at the threshold, its near misses)."""
        cached = (key, floor, truncated)
        found = self._scored.get(cached)
        if found is None:
            papers = self.candidates(key) if key else _NONE
            if len(papers):
                papers, scores = self.scores(key, papers, floor, truncated=truncated)
                keep = scores >= floor
                papers, scores = papers[keep], scores[keep]
            else:
                scores = np.zeros(0, np.float32)
            if len(self._scored) >= 64:
                self._scored.clear()
            found = self._scored[cached] = (papers, scores)
        return found

    def fuzzy(
        self,
        key: str,
        threshold: float,
        *,
        truncated: bool = False,
        target: str = "full",
        papers: np.ndarray | None = None,
    ) -> Found | None:
        """The best-scoring papers at or above ``threshold`` (every one at the best score),
        among ``papers`` (default: the blocked candidates of ``key``)."""
        if not key:
            return None
        papers = self.candidates(key) if papers is None else papers
        if not len(papers):
            return None
        papers, scores = self.scores(key, papers, threshold, target=target, truncated=truncated)
        if not len(papers):
            return None
        best = float(scores.max())
        if best < threshold:
            return None
        return Found(tuple(np.sort(papers[scores == best]).tolist()), round(best, 2))
