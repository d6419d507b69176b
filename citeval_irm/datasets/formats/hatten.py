"""The HAtten JSON layout of ACL-200, FullTextPeerRead, RefSeer, arXiv, ArSyTa and the demo.

Gu et al. (2022, "HAtten", repository nianlonggu/Local-Citation-Recommendation) distribute
the four classic local-citation-recommendation benchmarks as one folder each:

- ``papers.json``: ``{paper_id: {"title", "abstract", ...}}``, the candidate papers;
- ``contexts.json``: ``{context_id: {"masked_text", "context_id", "citing_id", "refid"}}``
  (some releases spell ``ref_id``), ``context_id = <citing>_<cited>_<n>``;
- ``train.json`` / ``val.json`` / ``test.json``: ``[{"context_id", "positive_ids": [id]}]``.

One class of each ir_datasets component serves all four corpora, ArSyTa (SymTax, 2024),
which is the same layout under other file names with two more fields (a context's section
``heading``, a paper's arXiv ``categories``), and the generated ``citeval/demo`` corpus
shipped inside the package. A :class:`HattenCorpus` says only what differs (name, file
names, record types, id scheme for dates, published counts, where the files come from);
the corpora themselves are entries of the collection modules (``hatten_corpora``,
``arsyta``, ``demo_corpus``). Papers and contexts are read with a streaming parser into
disk-backed stores, so even arXiv's 1.66 million papers (or ArSyTa's 8 million contexts)
never sit in a Python dict; each record is checked as it is read (what is tolerated is
counted under the codes of :data:`NOTE_MESSAGES`; anything else is an
:class:`InputError` naming the file and the record).
"""

from __future__ import annotations

from ...base import irhome  # noqa: F401 (first: ir_datasets with a read-only home)

# isort: split
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

import ir_datasets
from ir_datasets.formats import BaseQrels, BaseQueries, TrecQrel

from ...base.errors import EvalWarning, InputError
from ..jsonstream import Notes, iter_array, iter_object, kind
from ..records import (
    TARGET_MARKER,
    CitationContext,
    CitationDoc,
    CitationQuery,
    RecordClass,
    split_context,
)
from ..sources import CorpusSource, ImportReport, corpus_file
from ..stores import StoredDocs, StoredRecords
from ..years import paper_date

# --------------------------------------------------------------------------- reading records


NOTE_MESSAGES = {
    "paper_no_title": "papers without a title (read as an empty string)",
    "paper_no_abstract": "papers without an abstract (read as an empty string)",
    "paper_no_year": "papers whose id gives no publication year (year None)",
    "paper_no_categories": "papers without categories (read as an empty tuple)",
    "context_no_marker": f"contexts without {TARGET_MARKER} "
    "(left_context is the whole text, right_context empty)",
    "context_many_markers": f"contexts with more than one {TARGET_MARKER} "
    "(left/right context split at the first)",
    "context_no_year": "contexts whose citing id gives no year (year None)",
    "context_no_heading": "contexts without a section heading (read as an empty string)",
}


def _text(
    value: dict, key: str, source: Path, where: str, notes: Notes, note: str, paper_id: str
) -> str:
    """A text field; a missing or null one reads as "" and is counted under ``note``."""
    text = value.get(key)
    if text is None:
        notes.add(note, paper_id)
        return ""
    if not isinstance(text, str):
        raise InputError(str(source), f"{where}: {key!r} must be a string, got {kind(text)}")
    return text


def _categories(value: dict, source: Path, where: str, notes: Notes, paper_id: str) -> tuple:
    categories = value.get("categories")
    if categories is None:
        notes.add("paper_no_categories", paper_id)
        return ()
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise InputError(
            str(source), f"{where}: 'categories' must be a list of strings, got {kind(categories)}"
        )
    return tuple(categories)


def parse_paper(
    key: str,
    value: Any,
    source: Path,
    scheme: str,
    notes: Notes,
    *,
    record: int,
    doc_cls: RecordClass = CitationDoc,
) -> CitationDoc:
    """A ``doc_cls`` record (:class:`CitationDoc` or a richer one such as
    :class:`ArsytaDoc`) from one papers-file entry; keys the record has no field for are
    ignored."""
    where = f"record {record} (paper {key!r})"
    if not isinstance(value, dict):
        raise InputError(
            str(source), f"{where}: expected an object with title and abstract, got {kind(value)}"
        )
    title = _text(value, "title", source, where, notes, "paper_no_title", key)
    abstract = _text(value, "abstract", source, where, notes, "paper_no_abstract", key)
    date = paper_date(key, scheme)
    if date is None and scheme != "none":
        notes.add("paper_no_year", key)
    fields: dict[str, object] = {
        "doc_id": key,
        "title": title,
        "abstract": abstract,
        "year": date.year if date else None,
        "month": date.month if date else None,
    }
    if "categories" in doc_cls._fields:
        fields["categories"] = _categories(value, source, where, notes, key)
    return doc_cls(**{name: fields[name] for name in doc_cls._fields})


def _required(value: dict, keys: tuple[str, ...], source: Path, where: str) -> str:
    for key in keys:
        if key in value:
            text = value[key]
            if not isinstance(text, str) or not text:
                raise InputError(
                    str(source), f"{where}: {key!r} must be a non-empty string, got {kind(text)}"
                )
            return text
    raise InputError(str(source), f"{where}: missing {' or '.join(map(repr, keys))}")


def parse_context(
    key: str,
    value: Any,
    source: Path,
    scheme: str,
    notes: Notes,
    *,
    record: int,
    context_cls: RecordClass = CitationContext,
) -> CitationContext:
    """A ``context_cls`` record (:class:`CitationContext`, or :class:`ArsytaContext` with
    the section ``heading``) from one contexts-file entry."""
    where = f"record {record} (context {key!r})"
    if not isinstance(value, dict):
        raise InputError(str(source), f"{where}: expected an object, got {kind(value)}")
    text = value.get("masked_text")
    if not isinstance(text, str):
        raise InputError(str(source), f"{where}: 'masked_text' must be a string, got {kind(text)}")
    own_id = value.get("context_id", key)
    if own_id != key:
        raise InputError(str(source), f"{where}: its 'context_id' is {own_id!r}, not its key")
    citing = _required(value, ("citing_id",), source, where)
    cited = _required(value, ("refid", "ref_id"), source, where)
    markers = text.count(TARGET_MARKER)
    if markers != 1:
        notes.add("context_no_marker" if markers == 0 else "context_many_markers", key)
    if scheme != "none" and paper_date(citing, scheme) is None:
        notes.add("context_no_year", key)
    if "heading" not in context_cls._fields:
        return context_cls(key, citing, cited, text)
    heading = _text(value, "heading", source, where, notes, "context_no_heading", key)
    return context_cls(key, citing, cited, text, heading)


def parse_object_file(source: Path, parse: Callable[..., Any], scheme: str, notes: Notes):
    """The records of a ``{id: record}`` file, streamed, each checked by ``parse``
    (:func:`parse_paper` or :func:`parse_context`). A repeated key is an error: JSON
    readers keep one of the two records, silently, and a store would hold fewer records
    than the file. Every reader (loaders, store builds, ``citeval import``) goes through
    here, so all of them agree; the keys seen are held as a set."""
    seen: set[str] = set()
    for record, (key, value) in enumerate(iter_object(source), start=1):
        if key in seen:
            raise InputError(str(source), f"record {record}: the key {key!r} occurs twice")
        seen.add(key)
        yield parse(key, value, source, scheme, notes, record=record)


class SplitEntry(NamedTuple):
    """One entry of a split file; ``record`` is its 1-based position."""

    record: int
    context_id: str
    positive_ids: tuple[str, ...]


def iter_split(path: Path) -> Iterator[SplitEntry]:
    """The entries of a split file, streamed and checked."""
    for record, value in enumerate(iter_array(path), start=1):
        if not isinstance(value, dict):
            raise InputError(str(path), f"record {record}: expected an object, got {kind(value)}")
        where = f"record {record}"
        context_id = _required(value, ("context_id",), path, where)
        positives = value.get("positive_ids")
        if not isinstance(positives, list) or not all(isinstance(p, str) and p for p in positives):
            raise InputError(
                str(path),
                f"{where} (context {context_id!r}): 'positive_ids' must be a list of paper ids",
            )
        yield SplitEntry(record, context_id, tuple(positives))


# --------------------------------------------------------------------------- the corpus


_logger = ir_datasets.log.easy("citeval_irm")  # see citeval_irm.base.progress

SPLITS = ("train", "val", "test")
PAPERS = "papers.json"
CONTEXTS = "contexts.json"
QRELS_DEFS = {1: "the paper cited at the context's TARGETCIT position"}
_LOOKUP_BATCH = 5000


@dataclass(frozen=True)
class HattenLayout:
    """The file names of a HAtten-layout folder: papers, contexts, and ``split_pattern``
    (``{split}`` filled in) for the split files."""

    papers: str = PAPERS
    contexts: str = CONTEXTS
    split_pattern: str = "{split}.json"

    def split(self, split: str) -> str:
        return self.split_pattern.format(split=split)

    @property
    def files(self) -> tuple[str, ...]:
        return (self.contexts, self.papers, *(self.split(s) for s in SPLITS))


HATTEN_LAYOUT = HattenLayout()


@dataclass(frozen=True)
class PublishedCounts:
    """Sizes as published by the dataset's authors: papers and contexts per split."""

    docs: int
    train: int
    val: int
    test: int

    def split(self, split: str) -> int:
        return getattr(self, split)


@dataclass(frozen=True)
class HattenCorpus(CorpusSource):
    """What distinguishes one HAtten-layout corpus from another.

    ``id_scheme`` says how paper ids give dates (see :mod:`..years`); ``layout`` names the
    files; ``doc_cls`` / ``context_cls`` / ``query_cls`` are the record types (richer ones
    carry extra fields such as ArSyTa's ``heading``). Downloads, checksums, hand
    installation and the licence notice are those of :class:`..sources.CorpusSource`.
    """

    id_scheme: str
    counts: PublishedCounts
    _: KW_ONLY
    layout: HattenLayout = HATTEN_LAYOUT
    doc_cls: RecordClass = CitationDoc
    context_cls: RecordClass = CitationContext
    query_cls: RecordClass = CitationQuery

    def file_names(self) -> tuple[str, ...]:
        return self.layout.files

    def components(self) -> dict[str, tuple]:
        return corpus_components(self)

    def read_folder(self, folder: Path) -> ImportReport:
        return validate_hatten_folder(self, folder)

    def published_metadata(self) -> dict[str, dict]:
        metadata: dict[str, dict] = {self.dataset_id: {"docs": {"count": self.counts.docs}}}
        for split in SPLITS:
            count = self.counts.split(split)
            relevance = {"relevance": {"counts_by_value": {"1": count}}}
            metadata[f"{self.dataset_id}/{split}"] = {
                "docs": {"_ref": self.dataset_id},
                "queries": {"count": count},
                "qrels": {"count": count, "fields": relevance},
            }
        return metadata


# --------------------------------------------------------------------------- stores


class JsonObjectRecords(StoredRecords):
    """The records of one ``{id: record}`` file of a corpus (papers or contexts), checked by
    ``parse`` (:func:`parse_paper` or :func:`parse_context`, bound to the record type)."""

    def __init__(
        self,
        corpus: HattenCorpus,
        file_name: str,
        store_name: str,
        record_cls: RecordClass,
        parse: Callable[..., Any],
        count_hint: int,
    ):
        super().__init__(corpus, file_name, store_name, record_cls, self._read_logged, count_hint)
        self.corpus: HattenCorpus = corpus
        self._parse_record = parse

    def _read_logged(self, source: Path) -> Iterator:
        """Stream and check the records of ``source``; tolerated oddities are logged,
        counted, once the file has been read: at INFO, as facts of the data rather than
        problems, so ``--quiet`` drops them."""
        notes = Notes(NOTE_MESSAGES)
        records = 0
        for record in parse_object_file(source, self._parse_record, self.corpus.id_scheme, notes):
            records += 1
            yield record
        for warning in notes.warnings():
            _logger.info(f"{self.corpus.dataset_id}: {source.name}: {warning}")
        for facet in unavailable_facets(notes, records):
            _logger.warn(
                f"{self.corpus.dataset_id}: {source.name} carries no {facet!r} field in any of "
                f"its {records:,} records: the {facet} facet is unavailable (read as empty)"
            )


FACET_NOTES = {"context_no_heading": "heading", "paper_no_categories": "categories"}


def unavailable_facets(notes: Notes, records: int) -> list[str]:
    """The optional fields (``heading``, ``categories``) that none of ``records`` records
    carried: facets a file of this release cannot give."""
    return [f for code, f in FACET_NOTES.items() if records and notes.counts[code] == records]


# --------------------------------------------------------------------------- components


class HattenDocs(StoredDocs):
    """The candidate papers of a corpus (its papers file), with a disk-backed docstore."""

    def __init__(self, corpus: HattenCorpus):
        super().__init__(
            JsonObjectRecords(
                corpus,
                corpus.layout.papers,
                "docs",
                corpus.doc_cls,
                partial(parse_paper, doc_cls=corpus.doc_cls),
                corpus.counts.docs,
            )
        )


class HattenQueries(BaseQueries):
    """The citation contexts of one split, in split-file order."""

    def __init__(self, corpus: HattenCorpus, split: str, contexts: JsonObjectRecords):
        self._corpus = corpus
        self._split = split
        self._contexts = contexts

    def queries_iter(self) -> Iterator[CitationQuery]:
        path = corpus_file(self._corpus, self._corpus.layout.split(self._split))
        store = self._contexts.store()
        entries = iter_split(path)
        while batch := list(islice(entries, _LOOKUP_BATCH)):
            found = store.get_many([entry.context_id for entry in batch])
            for entry in batch:
                context = found.get(entry.context_id)
                if context is None:
                    raise InputError(
                        str(path),
                        f"record {entry.record}: context {entry.context_id!r} is not in "
                        f"{store.source}",
                    )
                yield self.query(context)

    def query(self, context: CitationContext) -> CitationQuery:
        left, right = split_context(context.masked_text)
        date = paper_date(context.citing_id, self._corpus.id_scheme)
        fields = {
            "query_id": context.context_id,
            "text": context.masked_text,
            "left_context": left,
            "right_context": right,
            "citing_id": context.citing_id,
            "year": date.year if date else None,
            "month": date.month if date else None,
            "heading": getattr(context, "heading", ""),
        }
        return self._corpus.query_cls(**{f: fields[f] for f in self._corpus.query_cls._fields})

    def queries_cls(self) -> RecordClass:
        return self._corpus.query_cls

    def queries_namespace(self) -> str:
        return self._corpus.dataset_id

    def queries_lang(self) -> str:
        return "en"


class HattenQrels(BaseQrels):
    """One relevance-1 judgement per positive id of each split entry."""

    def __init__(self, corpus: HattenCorpus, split: str):
        self._corpus = corpus
        self._split = split

    def qrels_path(self) -> Path:
        return corpus_file(self._corpus, self._corpus.layout.split(self._split))

    def qrels_iter(self) -> Iterator[TrecQrel]:
        for entry in iter_split(self.qrels_path()):
            for doc_id in entry.positive_ids:
                yield TrecQrel(entry.context_id, doc_id, 1, "0")

    def qrels_defs(self) -> dict[int, str]:
        return QRELS_DEFS

    def qrels_cls(self) -> RecordClass:
        return TrecQrel


def corpus_components(corpus: HattenCorpus) -> dict[str, tuple]:
    """The ir_datasets components of a corpus, by dataset id: the corpus (docs) and one
    dataset per split (docs, queries, qrels). The docs component is shared."""
    docs = HattenDocs(corpus)
    contexts = JsonObjectRecords(
        corpus,
        corpus.layout.contexts,
        "contexts",
        corpus.context_cls,
        partial(parse_context, context_cls=corpus.context_cls),
        sum(corpus.counts.split(s) for s in SPLITS),
    )
    components: dict[str, tuple] = {corpus.dataset_id: (docs,)}
    for split in SPLITS:
        components[f"{corpus.dataset_id}/{split}"] = (
            docs,
            HattenQueries(corpus, split, contexts),
            HattenQrels(corpus, split),
        )
    return components


# --------------------------------------------------------------------------- import validation
#
# Memory: the check holds the paper ids and context ids as Python sets (for arXiv about
# 1.7 + 3.2 million short strings, a few hundred MB; for ArSyTa 0.5 + 8.3 million, about 1 GB
# by estimate), never the records.

SPLIT_NOTES = {
    "split_not_one_positive": "split entries whose positive_ids does not hold exactly one id",
    "split_positive_not_in_id": "split entries whose positive id is not the <cited> part of "
    "their context id <citing>_<cited>_<n>",
}


def _ids(path: Path, parse, scheme: str, notes: Notes) -> set[str]:
    """The ids of a ``{id: record}`` file, each record checked with ``parse`` (a repeated
    key is an error there, for the loaders too)."""
    return {parsed[0] for parsed in parse_object_file(path, parse, scheme, notes)}


def _check_splits(
    corpus: HattenCorpus, folder: Path, paper_ids: set[str], context_ids: set[str], notes: Notes
) -> dict[str, int]:
    counts = {}
    for split in SPLITS:
        path = corpus.in_folder(folder, corpus.layout.split(split))
        seen: set[str] = set()
        for entry in iter_split(path):
            where = f"record {entry.record} (context {entry.context_id!r})"
            if entry.context_id in seen:
                raise InputError(str(path), f"{where}: the context occurs twice in this split")
            seen.add(entry.context_id)
            if entry.context_id not in context_ids:
                raise InputError(str(path), f"{where}: not in {corpus.layout.contexts}")
            for positive in entry.positive_ids:
                if positive not in paper_ids:
                    raise InputError(
                        str(path), f"{where}: positive {positive!r} not in {corpus.layout.papers}"
                    )
                if f"_{positive}_" not in entry.context_id:
                    notes.add("split_positive_not_in_id", entry.context_id)
            if len(entry.positive_ids) != 1:
                notes.add("split_not_one_positive", entry.context_id)
        counts[split] = len(seen)
    return counts


def validate_hatten_folder(corpus: HattenCorpus, folder: Path) -> ImportReport:
    """Read a folder completely (see :meth:`HattenCorpus.read_folder`): every paper and
    context parsed, every split entry's context and positive ids found."""
    notes = Notes({**NOTE_MESSAGES, **SPLIT_NOTES})
    layout, scheme = corpus.layout, corpus.id_scheme
    parse_doc = partial(parse_paper, doc_cls=corpus.doc_cls)
    parse_ctx = partial(parse_context, context_cls=corpus.context_cls)
    paper_ids = _ids(corpus.in_folder(folder, layout.papers), parse_doc, scheme, notes)
    context_ids = _ids(corpus.in_folder(folder, layout.contexts), parse_ctx, scheme, notes)
    counts = {"papers": len(paper_ids), "contexts": len(context_ids)}
    counts.update(_check_splits(corpus, folder, paper_ids, context_ids, notes))
    published = {"papers": corpus.counts.docs, **{s: corpus.counts.split(s) for s in SPLITS}}
    warnings = notes.warnings()
    sizes = {"heading": len(context_ids), "categories": len(paper_ids)}
    gone = [f for code, f in FACET_NOTES.items() if sizes[f] and notes.counts[code] == sizes[f]]
    if gone:
        message = "facets no record of the files carries (read as empty; unavailable)"
        warnings.append(EvalWarning("facet_unavailable", message, len(gone), tuple(gone)))
    return ImportReport(corpus, folder, counts, published, warnings)
