"""``resolve``: generated reference lists matched to a dataset's papers, as a TREC run.

Each reference is matched in this order, the first that finds a paper deciding:

1. **id**: an identifier the reference carries (its ``arxiv``, ``acl``, ``doi`` fields, or
   found in a string reference or a ``url``) that is a doc id of the corpus
   (:func:`~citeval_irm.resolving.normalise.identifiers`; an arXiv id with its version
   names that version's doc where the corpus holds versions, without one every version);
   unless the reference's title names another paper clearly better (by
   :data:`CONFLICT_MARGIN`): then it is a **conflict**, both papers named, neither in the
   run, counted (models make identifiers up);
2. **exact**: a normalised title (:func:`~citeval_irm.resolving.normalise.title_key`) that
   is a paper's; a string reference is tried whole, then what it quotes and each run of its
   sentences (:func:`~citeval_irm.resolving.citations.title_texts`), the longest exact one
   deciding; an exact title of the catalogue, if one is given, comes next;
3. **fuzzy**: RapidFuzz's ``fuzz.ratio`` of the normalised titles at or above
   ``threshold`` (:data:`THRESHOLD`), among the titles sharing the reference's rare words
   (:mod:`~citeval_irm.resolving.index`); a title cut short with ``...`` is also compared
   with each title's start; then, like for like, a part of a title for the whole (a
   subtitle dropped or added, the first part dropped, :data:`PART_WORDS`). The pool and
   the catalogue are both searched at each step: the higher score decides.

Several papers at the best score (the same title in two years, a preprint and its
published version) are narrowed to those of the reference's year (its ``year``, else a year
its title or string ends with), then to those sharing most author names with it, where the
corpus has authors (MasterSet); more than one left is **ambiguous**: listed, never in the
run. A paper named again later in the same list is a **duplicate**: counted, and dropped
from the run. What matches nothing is **unmatched**; with a ``catalogue`` of known titles
it is split into ``outside_pool`` (a real paper the corpus lacks: the catalogue has it, by
id, title or the same fuzzy rule) and ``nowhere``; without one, the report says it cannot
tell. A reference with no title, text or identifier is **empty**: counted, in no rate.

The run ranks each query's resolved papers in the generated order (scores decreasing by
position), and is evaluated with the dataset's protocol (or ``measures``) by
:func:`citeval_irm.evaluate`, so its field measures stand beside the resolution's own.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple, cast

import numpy as np
from rapidfuzz import fuzz

from ..base.errors import (
    ArgumentTypeError,
    EvalWarning,
    InputError,
    examples_of,
    issue,
    quoted,
    silenced,
)
from ..base.options import EvalOptions, ExecutionOptions, options_from
from . import THRESHOLD
from .citations import title_parts, title_texts
from .generated import (
    NO_FIELDS,
    Catalogue,
    GeneratedLists,
    Reference,
    read_catalogue,
    read_generated,
)
from .index import Found, TitleIndex
from .near import TOP, abbreviations, bridged, near_reason
from .normalise import Key, _plain, identifiers, title_key
from .result import (  # noqa: F401
    CATALOGUE_KINDS,
    IN_POOL,
    KINDS,
    MATCHED,
    STATUSES,
    Resolution,
    decision_warnings,
    outside_population,
    resolution_measures,
)

_ANY_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_NOT_NAMES = frozenset({"and", "et", "al", "the", "of", "in"})
NEAR_FLOOR = 60.0
"""The lowest ``fuzz.ratio`` a candidate is scored at (one scoring serves the match at the
threshold, abbreviations and near misses)."""
REMEMBERED = 50_000
"""Fuzzy look-ups remembered (a list names a paper again, lists share references); the
memory is emptied when full."""
CONFLICT_MARGIN = 5.0
"""How much better a reference's title must fit another paper than the paper its identifier
names for the two to disagree (a conflict); closer, the identifier decides."""
PART_SHARE = 0.6
"""A part of a reference stands for a whole title only when it is this share of the
reference or more: ``Products of Hidden Markov Models: Robust classification via MOM
minimization`` is two real titles' halves, not either paper with a subtitle added."""
PART_WORDS, PART_NAME_TITLES = 4, 5
"""A part of a title stands for the whole (a subtitle dropped or added, the first part
dropped) when it has at least 4 words, or a word of 3 characters or more that at most 5
titles of the index hold (a name: ``GloVe``, ``XGBoost``, ``CCA-Flow``): ``Open Problem``,
``A Bayesian Approach``, ``An Experimental Comparison`` are parts of many titles and name
none."""


def title_candidates(reference: Reference) -> list[str]:
    """The texts tried as the reference's title: an object's title; for a string, the
    whole string, what it quotes and its runs of sentences
    (:func:`~citeval_irm.resolving.citations.title_texts`)."""
    if not reference.citation:
        return [reference.title] if reference.title.strip() else []
    return title_texts(reference.text) if reference.text.strip() else []


def check_threshold(threshold) -> float:
    """``threshold`` as a float in (0, 100], or an error naming the argument: a string or
    ``None`` would otherwise fail deep inside RapidFuzz, or compare as no number does."""
    import numbers

    if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool):
        raise ArgumentTypeError(
            None,
            "threshold: expected a number in (0, 100] (the fuzz.ratio "
            f"a title must reach), not {type(threshold).__name__} "
            f"{quoted(threshold)}",
        )
    if not 0 < cast(float, threshold) <= 100:  # NaN fails too
        raise InputError(None, f"threshold: {threshold!r} is not in (0, 100]")
    return float(threshold)


def _names(text: str) -> frozenset[str]:
    return frozenset(w for w in _plain(text).split() if len(w) > 2 and w not in _NOT_NAMES)


class Decision(NamedTuple):
    """How one reference was decided: ``how`` (:data:`~.result.KINDS`), the papers of the
    index it names (matched, or the candidates of an ambiguous or conflicting reference),
    the score, its ``status`` (:data:`~.result.STATUSES`) and the catalogue rows it names
    (an outside paper, a conflict's other side)."""

    how: str
    papers: tuple[int, ...]
    score: float
    status: str
    elsewhere: tuple[str, ...] = ()


class Titles:
    """A reference's title texts and their keys, made once and only when asked for."""

    def __init__(self, reference: Reference):
        self.reference = reference
        self._texts: list[str] | None = None
        self._keys: list[Key] | None = None
        self._by_text: dict[str, Key] = {}
        self._parts: list[tuple[str, Key]] | None = None
        self._whole: list[Key] = []
        self._every_part: list[tuple[str, Key]] = []
        self._abbreviations: frozenset[str] | None = None

    @property
    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = title_candidates(self.reference)
        return self._texts

    @property
    def keys(self) -> list[Key]:
        """The keys of its texts, each once, the whole text's first."""
        if self._keys is None:
            seen: set[tuple[str, bool]] = set()
            self._keys = []
            for text in self.texts:
                key = self._by_text[text] = title_key(text)
                if key.text and (key.text, key.truncated) not in seen:
                    seen.add((key.text, key.truncated))
                    self._keys.append(key)
        return self._keys

    @property
    def parts(self) -> list[tuple[str, Key]]:
        """``(which, key)`` of the main part and subtitle of each text that has both and
        whose part is most of it (:data:`PART_SHARE`): the part for a whole title, the rest
        a subtitle added to it or a name before it."""
        self._split()
        assert self._parts is not None  # made by _split
        return self._parts

    @property
    def whole(self) -> list[Key]:
        """The keys of the texts that have no parts (a title without a subtitle)."""
        self._split()
        return self._whole

    @property
    def abbreviations(self) -> frozenset[str]:
        """The abbreviations its texts write in capitals (:func:`~.near.abbreviations`)."""
        if self._abbreviations is None:
            self._abbreviations = frozenset().union(*(abbreviations(t) for t in self.texts))
        return self._abbreviations

    @property
    def every_part(self) -> list[tuple[str, Key]]:
        """``(which, key)`` of the main part and subtitle of each text that has both."""
        self._split()
        return self._every_part

    def _split(self) -> None:
        if self._parts is None:
            self.keys  # noqa: B018 (each text's key, made once)
            self._parts, self._whole, self._every_part = [], [], []
            for text in self.texts:
                split = title_parts(text)
                if split:
                    keys = [("main", title_key(split[0])), ("subtitle", title_key(split[1]))]
                    size = sum(len(key.text) for _, key in keys) or 1
                    self._every_part += keys
                    self._parts += [
                        (which, key) for which, key in keys if len(key.text) >= PART_SHARE * size
                    ]
                elif self._by_text[text].text:
                    self._whole.append(self._by_text[text])


class Resolver:
    """Decides each reference against ``index`` (and ``catalogue``, an index of known
    titles), caching fuzzy look-ups by normalised title."""

    def __init__(
        self, index: TitleIndex, threshold: float = THRESHOLD, catalogue: TitleIndex | None = None
    ):
        self.index, self.threshold, self.catalogue = index, check_threshold(threshold), catalogue
        self.floor = min(NEAR_FLOOR, self.threshold)
        self._fuzzy: dict[tuple, Found | None] = {}
        self._authors: dict[int, frozenset[str]] = {}

    def decide(self, reference: Reference) -> tuple[str, tuple[int, ...], float]:
        """``(how, papers, score)`` of one reference (see the module docstring)."""
        found = self.judge(reference)
        return found.how, found.papers, found.score

    def known_elsewhere(self, reference: Reference) -> bool:
        """Whether the catalogue knows an unmatched reference (id, title, or fuzzily)."""
        return self.judge(reference).status == "outside_pool"

    def judge(self, reference: Reference) -> Decision:
        """The :class:`Decision` on one reference (see the module docstring)."""
        index, catalogue = self.index, self.catalogue
        url = reference.fields.get("url", "") if reference.fields else ""
        ids = identifiers(reference.fields, reference.text if reference.citation else url)
        titles = Titles(reference)
        found = index.identifier(ids) if ids else None
        if found is not None:
            return self._by_identifier(reference, found, titles)
        elsewhere = catalogue.identifier(ids) if ids and catalogue is not None else None
        if elsewhere is not None:
            return self._outside_by_identifier(reference, elsewhere, titles)
        if not titles.keys:
            status = "empty" if not ids else ("unknown" if catalogue is None else "nowhere")
            return Decision("unmatched", (), 0.0, status)
        how, match, where = self._title(titles)
        if match is None:
            near, where = self._near(titles)
            if near is not None:
                named = near.papers if where == "index" else ()
                outside = self._named(catalogue, near.papers) if where == "catalogue" else ()
                return Decision("near_miss", named, near.score, "near_miss", outside)
            return Decision("unmatched", (), 0.0, "unknown" if catalogue is None else "nowhere")
        if where == "catalogue":
            return Decision(
                "unmatched", (), match.score, "outside_pool", self._named(catalogue, match.papers)
            )
        papers = self._tie_break(match.papers, reference, titles)
        return Decision(how if len(papers) == 1 else "ambiguous", papers, match.score, "in_pool")

    # ------------------------------------------------------------ identifiers
    def _by_identifier(self, reference: Reference, found: Found, titles: Titles) -> Decision:
        """An identifier of the pool: its paper, unless the reference's title names another
        paper clearly better (a conflict: both named, neither in the run)."""
        papers = self._tie_break(found.papers, reference, titles)
        how = "id" if len(papers) == 1 else "ambiguous"
        if not titles.keys:
            return Decision(how, papers, 100.0, "in_pool")
        agreement = self._fit(self.index, found.papers, titles)
        other_how, other, where = self._title(titles)
        if other is None or other.score < agreement + CONFLICT_MARGIN:
            return Decision(how, papers, 100.0, "in_pool")
        if where == "index" and set(other.papers) & set(found.papers):
            return Decision(how, papers, 100.0, "in_pool")
        named = other.papers if where == "index" else ()
        elsewhere = self._named(self.catalogue, other.papers) if where == "catalogue" else ()
        return Decision("conflict", (*found.papers, *named), other.score, "in_pool", elsewhere)

    def _outside_by_identifier(
        self, reference: Reference, found: Found, titles: Titles
    ) -> Decision:
        """An identifier only the catalogue knows: outside the pool, unless the title names
        a pool paper clearly better (a conflict)."""
        catalogue = self.catalogue
        assert catalogue is not None  # the identifier was found in it
        named = self._named(catalogue, found.papers)
        if titles.keys:
            agreement = self._fit(catalogue, found.papers, titles)
            how, other, where = self._title(titles)
            if (
                other is not None
                and where == "index"
                and (other.score >= agreement + CONFLICT_MARGIN)
            ):
                return Decision("conflict", other.papers, other.score, "in_pool", named)
        return Decision("unmatched", (), 100.0, "outside_pool", named)

    def _fit(self, index: TitleIndex, papers: tuple[int, ...], titles: Titles) -> float:
        """How well the reference's title texts fit ``papers`` (best ``fuzz.ratio`` with a
        title, its main part or subtitle; 100 when a text holds the title)."""
        best = 0.0
        for paper in papers:
            title = index.keys[paper]
            targets = [
                t for t in (title, index.parts["main"][paper], index.parts["subtitle"][paper]) if t
            ]
            for key in titles.keys:
                if title and f" {title} " in f" {key.text} ":
                    return 100.0
                best = max(best, *(fuzz.ratio(key.text, t) for t in targets))
        return best

    # ------------------------------------------------------------ titles
    def _title(self, titles: Titles) -> tuple[str, Found | None, str]:
        """``(how, found, where)``: the best title match, ``where`` ``"index"`` or
        ``"catalogue"``: an exact title of the pool, else of the catalogue; else the
        higher fuzzy score of the two (the pool on a tie); else the higher score of a part
        of a title standing for the whole (the catalogue on a tie: a part is weaker
        evidence than a title, and one an outside paper shares names no pool paper)."""
        index, catalogue = self.index, self.catalogue
        found = self._exact(index, titles)
        if found is not None:
            return "exact", found, "index"
        if catalogue is not None:
            found = self._exact(catalogue, titles)
            if found is not None:
                return "exact", found, "catalogue"
        stages = ((self._best_fuzzy, True), (self._by_part, False), (self._abbreviated, True))
        for search, pool_on_tie in stages:
            pool = search(index, titles)
            outside = self._outside(search(catalogue, titles)) if catalogue is not None else None
            if pool is not None and (
                outside is None
                or pool.score > outside.score
                or (pool_on_tie and pool.score == outside.score)
            ):
                return "fuzzy", pool, "index"
            if outside is not None:
                return "fuzzy", outside, "catalogue"
        return "unmatched", None, ""

    def _outside(self, found: Found | None) -> Found | None:
        """``found`` in the catalogue without the papers that are the pool's (the same
        normalised title): a catalogue may list every paper, the pool's too."""
        if found is None:
            return None
        assert self.catalogue is not None  # found in it
        keys, pool = self.catalogue.keys, self.index.by_key
        papers = tuple(p for p in found.papers if keys[p] not in pool)
        return Found(papers, found.score) if papers else None

    @staticmethod
    def _exact(index: TitleIndex, titles: Titles) -> Found | None:
        """The papers of the longest text whose normalised title is a title of ``index``."""
        found = [(len(k.text), f) for k in titles.keys if (f := index.exact(k.text))]
        return max(found, key=lambda pair: pair[0])[1] if found else None

    def _cached(self, index: TitleIndex, key: Key, target: str) -> Found | None:
        """The fuzzy match of ``key`` to ``target``, remembered (a list names a paper again,
        and lists share references)."""
        cached = (id(index), key.text, key.truncated, target)
        if cached in self._fuzzy:
            return self._fuzzy[cached]
        if target == "full":  # the strict candidates first: most close titles are there
            strict, every = index.tiers(key.text)
            found = index.fuzzy(key.text, self.threshold, truncated=key.truncated, papers=strict)
            if found is None and len(every) > len(strict):  # all, scored once for all
                papers, scores = index.scored(key.text, self.floor, truncated=key.truncated)
                best = float(scores.max()) if len(scores) else 0.0
                at_best = tuple(sorted(int(p) for p in papers[scores == best]))
                found = Found(at_best, round(best, 2)) if best >= self.threshold else None
        else:
            found = index.fuzzy(key.text, self.threshold, truncated=key.truncated, target=target)
        if len(self._fuzzy) >= REMEMBERED:
            self._fuzzy.clear()
        self._fuzzy[cached] = found
        return found

    def _top(self, index: TitleIndex, key: Key) -> list[tuple[int, float]]:
        """The :data:`~.near.TOP` best candidates of ``key`` and their scores."""
        papers, scores = index.scored(key.text, self.floor, truncated=key.truncated)
        if not len(papers):
            return []
        order = np.argsort(-scores, kind="stable")[:TOP]
        return [(int(papers[at]), float(scores[at])) for at in order]

    def _abbreviated(self, index: TitleIndex, titles: Titles) -> Found | None:
        """The best match at the threshold once abbreviations stand for the words they
        abbreviate (:func:`~.near.bridged`), among each text's best candidates."""
        best: list[int] = []
        score = 0.0
        for key in titles.keys:
            if len(key.text) < 4:
                continue
            for paper, _ in self._top(index, key):
                if not titles.abbreviations and not index.abbreviated[paper]:
                    continue
                theirs = abbreviations(index.titles[paper])
                found = bridged(
                    key.text.split(), index.keys[paper].split(), titles.abbreviations, theirs
                )
                if found >= self.threshold and found >= score:
                    best = [*best, paper] if found == score else [paper]
                    score = found
        return Found(tuple(sorted(set(best))), round(score, 2)) if best else None

    def _near(self, titles: Titles) -> tuple[Found | None, str]:
        """The nearest real title of a reference nothing matched, if it is a near miss
        (:func:`~.near.near_reason`): in the pool, else in the catalogue (the higher score;
        the pool on a tie)."""
        found: list[tuple[float, int, str]] = []
        for where, index in (("index", self.index), ("catalogue", self.catalogue)):
            if index is None:
                continue
            for key in titles.whole:  # a part too plain to stand for the whole
                for target in ("main", "subtitle"):
                    part = index.exact(key.text, target)
                    found += [(100.0, p, where) for p in part.papers] if part else []
            for _, key in titles.every_part:
                whole = index.exact(key.text, "single")
                found += [(100.0, p, where) for p in whole.papers] if whole else []
            for key in titles.keys:
                if len(key.text) < 4:
                    continue
                for paper, score in self._top(index, key):
                    if near_reason(key.text, index.keys[paper], score):
                        found.append((score, paper, where))
        if not found:
            return None, ""
        score = max(s for s, _, _ in found)
        where = "index" if any(w == "index" for s, _, w in found if s == score) else "catalogue"
        papers = sorted({p for s, p, w in found if s == score and w == where})
        return Found(tuple(papers), round(score, 2)), where

    def _best_fuzzy(self, index: TitleIndex, titles: Titles) -> Found | None:
        """The best fuzzy match of the reference's whole title texts (a longer text on a
        tie)."""
        best = None
        for key in titles.keys:
            if len(key.text) < 4:
                continue
            found = self._cached(index, key, "full")
            if found is not None and (best is None or found.score > best.score):
                best = found
        return best

    def _by_part(self, index: TitleIndex, titles: Titles) -> Found | None:
        """The best match of a part for a whole, like for like: a text without a subtitle
        is a title's main part (its subtitle dropped) or subtitle (its first part dropped),
        or a text's main part or subtitle is a whole title that has none (one added); the
        part must be distinctive (:data:`PART_WORDS`). A subtitle replaced by another
        matches nothing here: a real main part with an invented subtitle is what a
        fabricated title often is."""
        best = None
        tries = [
            (key, target)
            for key in titles.whole
            for target in ("main", "subtitle")
            if index.any_parts
        ]
        tries += [(key, "single") for _, key in titles.parts]
        for key, target in tries:
            if not self._distinctive(index, key.text):
                continue
            found = index.exact(key.text, target)
            if found is None:
                found = self._cached(index, key, target)
            if found is not None and (best is None or found.score > best.score):
                best = found
        return best

    @staticmethod
    def _distinctive(index: TitleIndex, key: str) -> bool:
        words = key.split()
        return len(words) >= PART_WORDS or any(
            len(w) >= 3 and 0 < index.word_count(w) <= PART_NAME_TITLES for w in words
        )

    @staticmethod
    def _named(index: TitleIndex | None, papers: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(index.ids[p] for p in papers) if index is not None else ()

    # ------------------------------------------------------------ ties
    @staticmethod
    def _year(reference: Reference, titles: Titles) -> int | None:
        year = reference.year() or next((k.year for k in titles.keys if k.year), None)
        if year is None and reference.citation:
            years = _ANY_YEAR.findall(reference.text[:10_000])
            year = int(years[0]) if years else None
        return year

    def _tie_break(self, papers: tuple[int, ...], reference: Reference, titles: Titles):
        """``papers`` narrowed to the reference's year, then to its authors (see the module
        docstring); one paper is left as it is."""
        if len(papers) < 2:
            return papers
        year = self._year(reference, titles)
        if year is not None:
            same = tuple(p for p in papers if self.index.years[p] == year)
            papers = same or papers
        authors = reference.fields.get("authors", "") if not reference.citation else reference.text
        if len(papers) > 1 and authors and self.index.authors is not None:
            names = _names(authors)
            shared = [len(names & self._paper_authors(p)) for p in papers]
            if max(shared) > 0:
                papers = tuple(p for p, n in zip(papers, shared) if n == max(shared))
        return papers

    def _paper_authors(self, paper: int) -> frozenset[str]:
        if paper not in self._authors:
            authors = self.index.authors
            self._authors[paper] = _names((authors[paper] if authors else None) or "")
        return self._authors[paper]


COLUMNS = (
    "query_id",
    "position",
    "reference",
    "how",
    "doc_id",
    "candidates",
    "score",
    "duplicate",
    "catalogue",
)
"""The decisions' columns (:func:`resolve_lists`)."""
PARALLEL_ABOVE = 20_000
"""Lists with fewer distinct references are resolved in this process whatever ``jobs`` says
(a process costs more than they take)."""
SPANS = 32
"""Runs of distinct references per worker: small enough that the last leaves the other
workers little time idle, large enough that sending each costs nothing to speak of."""
_FORKED: tuple[Resolver] | None = None  # what the forked workers inherit: (resolver,)


def resolve_lists(
    lists: dict[str, list[Reference]], resolver: Resolver, *, jobs: int = 1
) -> dict[str, list | np.ndarray]:
    """Every decision, as columns: ``query_id``, ``position`` (from 1), ``reference``,
    ``how``, ``doc_id`` (the matched paper, ``""`` if none), ``candidates`` (the papers an
    ambiguous or conflicting reference could be, and the catalogue rows a reference names,
    ``catalogue:<line>``), ``score``, ``duplicate``, ``catalogue`` (its status,
    :data:`~.result.STATUSES`); the run's rows are the matched, first-named papers.

    Each distinct reference (the same text, fields and kind) is decided once, however many
    lists name it: a decision depends on the reference alone, and generated lists repeat
    the papers models know (a duplicate, a paper named again in its query, is found after,
    per query). ``jobs`` processes share the distinct references: forked from this one, so
    the index is shared, not copied or pickled; the decisions are the same whatever
    ``jobs`` is (where processes cannot be forked, or other threads run, one process does
    it all)."""
    queries = list(lists)
    sizes = np.fromiter((len(lists[q]) for q in queries), np.int64, len(queries))
    distinct, slots = _distinct(lists, queries)
    if jobs > 1 and len(distinct) >= PARALLEL_ABOVE and len(distinct) > 1 and _can_fork():
        decided = _in_processes(distinct, resolver, jobs)
    else:
        decided = _decide(distinct, resolver)
    del distinct
    how, papers, candidates, score, status = decided
    matched = np.isin(how, [KINDS.index(kind) for kind in MATCHED])[slots]
    papers = papers[slots]
    ids = resolver.index.ids
    columns: dict[str, list | np.ndarray] = {
        "query_id": [q for q in queries for _ in lists[q]],
        "position": (
            np.arange(1, len(slots) + 1, dtype=np.int64)
            - np.repeat(np.cumsum(sizes) - sizes, sizes)
        ).astype(np.int32),
        "reference": [r.text for q in queries for r in lists[q]],
        "how": _spread(KINDS, how[slots]),
        "doc_id": [ids[p] if p >= 0 else "" for p in papers.tolist()],
        "candidates": _spread(candidates, slots),
        "score": score[slots],
        "duplicate": _named_again(np.repeat(np.arange(len(queries)), sizes), papers, matched),
        "catalogue": _spread(STATUSES, status[slots]),
    }
    return columns


def _identity(reference: Reference):
    """What makes two references the same reference: a string's text; an object's text,
    kind and fields."""
    if reference.citation and not reference.fields:
        return reference.text
    return (reference.text, reference.citation, tuple(sorted(reference.fields.items())))


def _distinct(lists: dict, queries: list[str]) -> tuple[list[Reference], np.ndarray]:
    """The distinct references of ``queries`` (each first as named) and, for every
    reference in order, the position of its distinct one."""
    seen: dict = {}
    distinct: list[Reference] = []
    slots = array("i")
    for query in queries:
        for reference in lists[query]:
            identity = _identity(reference)
            slot = seen.get(identity)
            if slot is None:
                slot = seen[identity] = len(distinct)
                distinct.append(reference)
            slots.append(slot)
    return distinct, np.frombuffer(slots, np.int32) if len(slots) else np.zeros(0, np.int32)


def _spread(values: Sequence, slots: np.ndarray) -> list:
    """``values[slot]`` for each of ``slots``: the distinct references' values (or the
    names their codes stand for), one per reference."""
    held = np.empty(len(values), dtype=object)
    held[:] = values
    return held[slots].tolist()


def _named_again(query: np.ndarray, papers: np.ndarray, matched: np.ndarray) -> np.ndarray:
    """Whether each reference is matched to a paper its query named before (a duplicate):
    every (query, paper) pair of the matched references but its first."""
    duplicate = np.zeros(len(papers), bool)
    rows = np.flatnonzero(matched)
    if len(rows):
        pairs = query[rows].astype(np.int64) * (int(papers.max()) + 1) + papers[rows]
        first = np.zeros(len(rows), bool)
        first[np.unique(pairs, return_index=True)[1]] = True  # the first of each pair
        duplicate[rows[~first]] = True
    return duplicate


def _decide(references: list[Reference], resolver: Resolver) -> tuple:
    """``(how, paper (-1: none), candidates, score, status)`` of each of ``references``, in
    order: ``how`` and ``status`` as codes (positions in :data:`~.result.KINDS` and
    :data:`~.result.STATUSES`), the numbers as arrays (millions are held, and pickled from
    a worker)."""
    kinds = {kind: code for code, kind in enumerate(KINDS)}
    statuses = {name: code for code, name in enumerate(STATUSES)}
    how, papers, candidates, score, status = array("B"), array("i"), [], array("d"), array("B")
    ids = resolver.index.ids
    for reference in references:
        decision = resolver.judge(reference)
        how.append(kinds[decision.how])
        if decision.how in MATCHED:
            papers.append(decision.papers[0])
            candidates.append(" ".join(decision.elsewhere))
        else:
            papers.append(-1)
            candidates.append(" ".join([*(ids[p] for p in decision.papers), *decision.elsewhere]))
        score.append(decision.score)
        status.append(statuses[decision.status])
    return (
        np.array(how, np.uint8),
        np.array(papers, np.int32),
        candidates,
        np.array(score, np.float64),
        np.array(status, np.uint8),
    )


def _can_fork() -> bool:
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _in_processes(references: list[Reference], resolver: Resolver, jobs: int) -> tuple:
    """:func:`_decide` in ``jobs`` forked processes, over runs of the references
    (:data:`SPANS` per process, so a slow run does not hold the rest). Each run is sent to
    its worker as plain values (the reference objects stay here: a worker that read this
    process's would copy every page of them it touched)."""
    import gc
    import multiprocessing

    global _FORKED
    size = max(1, len(references) // (jobs * SPANS))
    spans = [
        (start, min(start + size, len(references))) for start in range(0, len(references), size)
    ]

    def sent():  # a string reference as its text, any other as (text, fields, citation)
        for first, last in spans:
            yield [
                r.text
                if r.citation and not r.fields
                else (r.text, dict(r.fields) or None, r.citation)
                for r in references[first:last]
            ]

    _FORKED = (resolver,)
    gc.freeze()  # what exists now is never collected in the workers: their pages stay shared
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = list(pool.imap(_decide_span, sent()))
    finally:
        _FORKED = None
        gc.unfreeze()
    columns: list[list | np.ndarray] = []
    for column in range(5):  # each column's parts let go as soon as they are joined
        pieces = [part[column] for part in parts]
        for part in parts:
            part[column] = None
        if isinstance(pieces[0], np.ndarray):
            columns.append(np.concatenate(pieces))
        else:
            columns.append([value for piece in pieces for value in piece])
        del pieces
    return tuple(columns)


def _decide_span(sent: list) -> list:
    """A forked worker's share: the references ``sent`` (a string reference's text, any
    other's ``(text, fields, citation)``), decided with the resolver it inherited; the
    decisions as :func:`_decide` gives them."""
    assert _FORKED is not None  # set before the workers are forked
    (resolver,) = _FORKED
    references = [
        Reference(value)
        if isinstance(value, str)
        else Reference(value[0], value[1] or NO_FIELDS, value[2])
        for value in sent
    ]
    return list(_decide(references, resolver))


def corpus_index(dataset) -> tuple[str, TitleIndex]:
    """The dataset's id and the index of its papers (ids, titles, years, authors where its
    docs have them)."""
    from ..reading.io import as_dataset

    found = as_dataset(dataset)
    if found is None:
        from ..checks.protocol import _not_a_dataset

        _not_a_dataset(dataset)  # raises
    name, data = cast("tuple[str, Any]", found)
    if not data.has_docs():
        raise InputError(name, "has no papers (docs) to resolve references against")
    ids, titles, years, authors = [], [], [], []
    for doc in data.docs_iter():
        ids.append(doc.doc_id)
        titles.append(getattr(doc, "title", "") or "")
        years.append(getattr(doc, "year", None))
        authors.append(getattr(doc, "authors", None))
    has_authors = any(a for a in authors)
    return name, TitleIndex(ids, titles, years, authors if has_authors else None)


def resolve(
    generated,
    dataset,
    measures=None,
    *,
    protocol=None,
    catalogue=None,
    threshold: float = THRESHOLD,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
):
    """Resolve generated reference lists against ``dataset``'s papers into a run.

    A language model names papers, not corpus ids: before its list can be scored, each
    reference must be matched to a paper of the benchmark, and what cannot be matched must
    be counted (not in the pool is not the same as fabricated), so that models are compared
    on the same footing.

    Parameters
    ----------
    generated : path, dict or list of records
        The lists: a JSONL file (``{"query_id": ..., "references": [...]}``, each reference a
        string or an object with any of ``title``, ``authors``, ``year``, ``venue``,
        ``arxiv``, ``doi``, ``acl``), a CSV file (``query_id, rank, reference``), a dict
        ``{query_id: [references]}`` or a list of records.
    dataset : str or ir_datasets dataset
        The dataset whose papers the references name (``"citeval/demo/test"``).
    measures : str, Measure or iterable, optional
        What the resolved run is evaluated with. Default: the dataset's protocol.
    protocol : str or Protocol, optional
        A paper's protocol, instead of ``measures``.
    catalogue : path, optional
        Known titles (one a line, or CSV / JSONL with a ``title`` column): an unmatched
        reference it knows is outside the pool, one it does not know is found nowhere;
        without it the report says it cannot tell.
    threshold : float, default THRESHOLD
        The fuzzy title match's threshold (RapidFuzz ``fuzz.ratio``, 0-100).
    options : EvalOptions, optional
        What the resolved run's numbers mean, as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        How they are computed, as in :func:`citeval_irm.evaluate` (no progress bar); its
        ``jobs`` is also how many processes resolve the references (of lists of
        :data:`PARALLEL_ABOVE` references or more), with the same decisions.

    Returns
    -------
    Resolution
        The decision for every reference, counts and rates per query and overall, the
        resolved ``run`` (write it with :func:`citeval_irm.write_run`) and its evaluation.

    Examples
    --------
    >>> import citeval_irm
    >>> lists = {"C15-1988_Q09-1593_0": [
    ...     "Improving information extraction with entity linking and gazetteers (2009)",
    ...     "An invented title about nothing",
    ... ]}
    >>> citeval_irm.resolve(lists, "citeval/demo/test", "RR")  # doctest: +ELLIPSIS
    Resolution(dataset='citeval/demo/test', queries=1, references=2, id=0, exact=1, ...)
    """
    import pandas as pd

    from ..evaluation.evaluate import evaluate
    from ..reading.tables import Run

    options, execution = options_from(
        "resolve", (options, EvalOptions), (execution, ExecutionOptions)
    )
    threshold = check_threshold(threshold)
    known: Catalogue | None = read_catalogue(catalogue) if catalogue is not None else None
    lists: GeneratedLists = read_generated(generated)
    name, index = corpus_index(dataset)
    others = (
        TitleIndex([f"catalogue:{line}" for line in known.lines], known.titles, extra_ids=known.ids)
        if known
        else None
    )
    resolver = Resolver(index, threshold, others)
    decisions = pd.DataFrame(resolve_lists(lists.lists, resolver, jobs=execution.jobs))
    warnings = [*lists.warnings, *(known.warnings if known else []), *decision_warnings(decisions)]
    kept = decisions[decisions["how"].isin(MATCHED) & ~decisions["duplicate"]]
    run = None
    evaluation = None
    if len(kept):
        sizes = kept.groupby("query_id", sort=False)["position"].transform("size")
        rank = kept.groupby("query_id", sort=False).cumcount()
        frame = pd.DataFrame(
            {
                "query_id": kept["query_id"].to_numpy(),
                "doc_id": kept["doc_id"].to_numpy(),
                "score": (sizes - rank).to_numpy(dtype=float),
            }
        )
        run = Run.from_frame(frame, f"resolved {lists.source}")
        if protocol is None and measures is None:
            protocol = _protocol_of(name)
        with silenced():
            evaluation = evaluate(
                run,
                name,
                measures,
                protocol=protocol,
                options=options,
                execution=replace(execution, progress=False),
            )
        # generated lists are short by design: the report says so once, beside the field's
        # measures (Resolution.legend); the evaluation keeps the short_ranking warning
        warnings += [w for w in evaluation.warnings if w.code != "short_ranking"]
    else:
        warnings.append(
            EvalWarning(
                "empty_run",
                "no reference resolved to a paper of the dataset: the run is empty "
                "and no measure of the field is computed",
                len(lists.lists),
                examples_of(lists.lists),
                "queries",
            )
        )
    per_query = resolution_measures(decisions, lists.lists, known is not None, evaluation, name)
    outside = outside_population(lists.lists, per_query.index)
    warnings += [outside] if outside is not None else []
    result = Resolution(
        dataset=name,
        source=lists.source,
        catalogue=known.source if known else None,
        threshold=float(threshold),
        listed=len(lists.lists),
        decisions=decisions,
        per_query=per_query,
        evaluation=evaluation,
        run=run,
        warnings=warnings,
    )
    issue(warnings)
    return result


def _protocol_of(name: str):
    from ..checks.protocol import dataset_protocol
    from ..reading.io import as_dataset

    return dataset_protocol(cast("tuple[str, Any]", as_dataset(name))[1])
