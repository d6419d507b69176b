"""``resolve``: generated reference lists matched to a dataset's papers, as a TREC run.

Each reference is matched in this order, the first that finds a paper deciding:

1. **id**: an identifier the reference carries (its ``arxiv``, ``acl``, ``doi`` fields, or
   found in a string reference or a ``url``) that is a doc id of the corpus
   (:func:`~citeval_irm.resolving.normalise.identifiers`);
2. **exact**: its normalised title (:func:`~citeval_irm.resolving.normalise.title_key`) is
   a paper's; a string reference is tried whole, then each of its sentences (``Vaswani et
   al. 2017. Attention is all you need. NeurIPS``), or only what it quotes;
3. **fuzzy**: RapidFuzz's ``fuzz.ratio`` of the normalised titles at or above
   ``threshold`` (:data:`THRESHOLD`), among the titles sharing the reference's rarest words
   (:mod:`~citeval_irm.resolving.index`); a title cut short with ``...`` is also compared
   with each title's start.

Several papers at the best score (the same title in two years, a preprint and its
published version) are narrowed to those of the reference's year (its ``year``, else a year
its title or string ends with), then to those sharing most author names with it, where the
corpus has authors (MasterSet); more than one left is **ambiguous**: listed, never in the
run. A paper named again later in the same list is a **duplicate**: counted, and dropped
from the run. What matches nothing is **unmatched**; with a ``catalogue`` of known titles
it is split into ``outside_pool`` (a real paper the corpus lacks: the catalogue has it, by
id, title or the same fuzzy rule) and ``nowhere``; without one, the report says it cannot
tell.

The run ranks each query's resolved papers in the generated order (scores decreasing by
position), and is evaluated with the dataset's protocol (or ``measures``) by
:func:`citeval_irm.evaluate`, so its field measures stand beside the resolution's own.
"""

from __future__ import annotations

import re
from dataclasses import replace

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
from .generated import Catalogue, GeneratedLists, Reference, read_catalogue, read_generated
from .index import Found, TitleIndex
from .normalise import _plain, identifiers, title_key, undo_latex
from .result import (  # noqa: F401
    CATALOGUE_KINDS,
    KINDS,
    MATCHED,
    Resolution,
    outside_population,
    resolution_measures,
)

# Linear: a quoted text holds no quotation mark, so each attempt scans up to the next one;
# a separator's white space is matched from the start of its run only.
_QUOTED = re.compile(r"[\"\u201c\u00ab]([^\"\u201c\u201d\u00ab\u00bb]{8,})[\"\u201d\u00bb]")
_SENTENCE = re.compile(r"(?<=[^\s.A-Z])\.\s+|(?<!\s)\s+[-\u2013\u2014]\s+")
_ANY_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_NOT_NAMES = frozenset({"and", "et", "al", "the", "of", "in"})


def title_candidates(reference: Reference) -> list[str]:
    """The texts tried as the reference's title: its title; for a string, what it quotes,
    else the whole string and each of its sentences."""
    if not reference.citation:
        return [reference.title] if reference.title else []
    text = undo_latex(reference.text)  # \\"u is no quote
    quoted = _QUOTED.findall(text)
    if quoted:
        return quoted
    parts = [p.strip() for p in _SENTENCE.split(text) if p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


def check_threshold(threshold) -> float:
    """``threshold`` as a float in (0, 100], or an error naming the argument: a string or
    ``None`` would otherwise fail deep inside RapidFuzz, or compare as no number does."""
    import numbers

    if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool):
        raise ArgumentTypeError(None, "threshold: expected a number in (0, 100] (the fuzz.ratio "
                                f"a title must reach), not {type(threshold).__name__} "
                                f"{quoted(threshold)}")  # fmt: skip
    if not 0 < threshold <= 100:  # NaN fails too
        raise InputError(None, f"threshold: {threshold!r} is not in (0, 100]")
    return float(threshold)


def _names(text: str) -> frozenset[str]:
    return frozenset(w for w in _plain(text).split() if len(w) > 2 and w not in _NOT_NAMES)


class Resolver:
    """Decides each reference against ``index`` (and ``catalogue``, an index of known
    titles), caching fuzzy look-ups by normalised title."""

    def __init__(self, index: TitleIndex, threshold: float = THRESHOLD,
                 catalogue: TitleIndex | None = None):  # fmt: skip
        self.index, self.threshold, self.catalogue = index, check_threshold(threshold), catalogue
        self._fuzzy: dict[tuple[int, str, bool], Found | None] = {}
        self._authors: dict[int, frozenset[str]] = {}

    def decide(self, reference: Reference) -> tuple[str, tuple[int, ...], float]:
        """``(how, papers, score)`` of one reference (see the module docstring)."""
        index = self.index
        url = reference.fields.get("url", "") if reference.fields else ""
        ids = identifiers(reference.fields, reference.text if reference.citation else url)
        found = index.identifier(ids) if ids else None
        if found is not None:
            return "id", found.papers, found.score
        keys = [title_key(text) for text in title_candidates(reference)]
        year = reference.year() or next((k.year for k in keys if k.year), None)
        if year is None and reference.citation:
            years = _ANY_YEAR.findall(reference.text)
            year = int(years[0]) if years else None
        how, found = "exact", next((f for k in keys if (f := index.exact(k.text))), None)
        if found is None:
            how, found = "fuzzy", self._best_fuzzy(index, keys, 0)
        if found is None:
            return "unmatched", (), 0.0
        authors = reference.fields.get("authors", "") if not reference.citation else reference.text
        papers = self._tie_break(found.papers, year, authors)
        return (how if len(papers) == 1 else "ambiguous"), papers, found.score

    def _best_fuzzy(self, index: TitleIndex, keys, which: int) -> Found | None:
        best = None
        for key in keys:
            if len(key.text) < 4:
                continue
            cached = (which, key.text, key.truncated)
            if cached not in self._fuzzy:
                self._fuzzy[cached] = index.fuzzy(key.text, self.threshold, truncated=key.truncated)
            found = self._fuzzy[cached]
            if found is not None and (best is None or found.score > best.score):
                best = found
        return best

    def _tie_break(self, papers: tuple[int, ...], year: int | None, authors: str):
        if len(papers) > 1 and year is not None:
            same = tuple(p for p in papers if self.index.years[p] == year)
            papers = same or papers
        if len(papers) > 1 and authors and self.index.authors is not None:
            names = _names(authors)
            shared = [len(names & self._paper_authors(p)) for p in papers]
            if max(shared) > 0:
                papers = tuple(p for p, n in zip(papers, shared) if n == max(shared))
        return papers

    def _paper_authors(self, paper: int) -> frozenset[str]:
        if paper not in self._authors:
            self._authors[paper] = _names(self.index.authors[paper] or "")
        return self._authors[paper]

    def known_elsewhere(self, reference: Reference) -> bool:
        """Whether the catalogue knows an unmatched reference (id, title, or fuzzily)."""
        catalogue = self.catalogue
        url = reference.fields.get("url", "") if reference.fields else ""
        ids = identifiers(reference.fields, reference.text if reference.citation else url)
        if ids and catalogue.identifier(ids):
            return True
        keys = [title_key(text) for text in title_candidates(reference)]
        if any(catalogue.exact(k.text) for k in keys):
            return True
        return self._best_fuzzy(catalogue, keys, 1) is not None


def resolve_lists(lists: dict[str, list[Reference]], resolver: Resolver) -> dict[str, list]:
    """Every decision, as columns: ``query_id``, ``position`` (from 1), ``reference``,
    ``how``, ``doc_id`` (``""`` if none), ``candidates`` (an ambiguous reference's doc ids),
    ``score``, ``duplicate``, ``catalogue`` (``in_pool``, ``outside_pool``, ``nowhere`` or
    ``unknown``); the run's rows are the matched, first-named papers."""
    columns: dict[str, list] = {name: [] for name in (
        "query_id", "position", "reference", "how", "doc_id", "candidates", "score",
        "duplicate", "catalogue")}  # fmt: skip
    ids = resolver.index.ids
    for query, references in lists.items():
        seen: set[int] = set()
        for position, reference in enumerate(references, 1):
            how, papers, score = resolver.decide(reference)
            duplicate = how in MATCHED and papers[0] in seen
            if how in MATCHED:
                seen.add(papers[0])
            if how != "unmatched":
                status = "in_pool"
            elif resolver.catalogue is None:
                status = "unknown"
            else:
                status = "outside_pool" if resolver.known_elsewhere(reference) else "nowhere"
            columns["query_id"].append(query)
            columns["position"].append(position)
            columns["reference"].append(reference.text)
            columns["how"].append(how)
            columns["doc_id"].append(ids[papers[0]] if how in MATCHED else "")
            columns["candidates"].append(
                " ".join(ids[p] for p in papers) if how == "ambiguous" else ""
            )
            columns["score"].append(score)
            columns["duplicate"].append(duplicate)
            columns["catalogue"].append(status)
    return columns


def corpus_index(dataset) -> tuple[str, TitleIndex]:
    """The dataset's id and the index of its papers (ids, titles, years, authors where its
    docs have them)."""
    from ..reading.io import as_dataset

    found = as_dataset(dataset)
    if found is None:
        from ..checks.protocol import _not_a_dataset

        _not_a_dataset(dataset)
    name, data = found
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
        How they are computed, as in :func:`citeval_irm.evaluate` (no progress bar).

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
    others = TitleIndex([str(n) for n in range(len(known.titles))], known.titles,
                        extra_ids=known.ids) if known else None  # fmt: skip
    decisions = pd.DataFrame(resolve_lists(lists.lists, Resolver(index, threshold, others)))
    warnings = [*lists.warnings, *(known.warnings if known else [])]
    kept = decisions[decisions["how"].isin(MATCHED) & ~decisions["duplicate"]]
    run = None
    evaluation = None
    if len(kept):
        sizes = kept.groupby("query_id", sort=False)["position"].transform("size")
        rank = kept.groupby("query_id", sort=False).cumcount()
        frame = pd.DataFrame({"query_id": kept["query_id"].to_numpy(),
                              "doc_id": kept["doc_id"].to_numpy(),
                              "score": (sizes - rank).to_numpy(dtype=float)})  # fmt: skip
        run = Run.from_frame(frame, f"resolved {lists.source}")
        if protocol is None and measures is None:
            protocol = _protocol_of(name)
        with silenced():
            evaluation = evaluate(run, name, measures, protocol=protocol, options=options,
                                  execution=replace(execution, progress=False))  # fmt: skip
        warnings += evaluation.warnings
    else:
        warnings.append(EvalWarning(
            "empty_run", "no reference resolved to a paper of the dataset: the run is empty "
            "and no measure of the field is computed", len(lists.lists), examples_of(lists.lists),
            "queries"))  # fmt: skip
    per_query = resolution_measures(decisions, lists.lists, known is not None, evaluation, name)
    outside = outside_population(lists.lists, per_query.index)
    warnings += [outside] if outside is not None else []
    result = Resolution(
        dataset=name, source=lists.source, catalogue=known.source if known else None,
        threshold=float(threshold), listed=len(lists.lists), decisions=decisions,
        per_query=per_query,
        evaluation=evaluation, run=run, warnings=warnings,
    )  # fmt: skip
    issue(warnings)
    return result


def _protocol_of(name: str):
    from ..checks.protocol import dataset_protocol
    from ..reading.io import as_dataset

    return dataset_protocol(as_dataset(name)[1])
