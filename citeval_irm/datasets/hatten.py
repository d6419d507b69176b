"""The HAtten JSON layout: ACL-200, FullTextPeerRead, RefSeer and arXiv.

Gu et al. (2022, "HAtten", repository nianlonggu/Local-Citation-Recommendation) distribute
the four classic local-citation-recommendation benchmarks as one folder each:

- ``papers.json``: ``{paper_id: {"title", "abstract", ...}}``, the candidate papers;
- ``contexts.json``: ``{context_id: {"masked_text", "context_id", "citing_id", "refid"}}``
  (some releases spell ``ref_id``), ``context_id = <citing>_<cited>_<n>``;
- ``train.json`` / ``val.json`` / ``test.json``: ``[{"context_id", "positive_ids": [id]}]``.

One class of each ir_datasets component serves all four corpora, and the generated
``citeval/demo`` corpus shipped inside the package; a :class:`HattenCorpus` says only what
differs (name, id scheme for years, published counts, where the files come from). Papers
and contexts are read with a streaming parser into disk-backed stores, so even arXiv's 1.66
million papers never sit in a Python dict.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

import ir_datasets
from ir_datasets.formats import BaseDocs, BaseQrels, BaseQueries, TrecQrel
from ir_datasets.indices import DEFAULT_DOCSTORE_OPTIONS
from ir_datasets.util import DocstoreSplitter

from ..downloads import Checksum, download
from ..errors import CitevalError, InputError
from .jsonstream import Notes, iter_array, iter_object, kind
from .records import TARGET_MARKER, CitationContext, CitationDoc, CitationQuery, split_context
from .stores import SourceStampedStore
from .years import paper_year

_logger = ir_datasets.log.easy()

SPLITS = ("train", "val", "test")
PAPERS = "papers.json"
CONTEXTS = "contexts.json"
FILES = (CONTEXTS, PAPERS, *(f"{split}.json" for split in SPLITS))
NAMESPACE = "citeval"
QRELS_DEFS = {1: "the paper cited at the context's TARGETCIT position"}
HATTEN_DRIVE_FOLDER = "https://drive.google.com/drive/folders/1QwQuJsBOGEESFTgl-7wWbqcig7vJNlQ2"
HATTEN_COMMIT = "e46cae55d8aca02a82cebaca6023dae42982bbf6"
_LOOKUP_BATCH = 5000

NOTE_MESSAGES = {
    "paper_no_title": f"{PAPERS}: papers without a title (read as an empty string)",
    "paper_no_abstract": f"{PAPERS}: papers without an abstract (read as an empty string)",
    "paper_no_year": f"{PAPERS}: papers whose id gives no publication year (year None)",
    "context_no_marker": f"{CONTEXTS}: contexts without {TARGET_MARKER} "
    "(left_context is the whole text, right_context empty)",
    "context_many_markers": f"{CONTEXTS}: contexts with more than one {TARGET_MARKER} "
    "(left/right context split at the first)",
    "context_no_year": f"{CONTEXTS}: contexts whose citing id gives no year (year None)",
}


class DataNotFoundError(CitevalError, FileNotFoundError):
    """A dataset file is not on this machine and cannot be downloaded; the message says
    what to download and where to put it."""


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
class HattenCorpus:
    """What distinguishes one HAtten-format corpus from another.

    ``id_scheme`` says how paper ids give years (see :mod:`.years`); ``base_url`` and
    ``checksums`` are set when the files can be downloaded (ACL-200 only); ``packaged``
    names the folder of this package that holds them (the demo); the others are installed
    by hand (``citeval import``) or read from the folder named by ``env_var``.
    ``documentation`` is the YAML file (beside this module) that documents the corpus.
    """

    name: str
    pretty_name: str
    id_scheme: str
    counts: PublishedCounts
    base_url: str | None = None
    checksums: dict[str, Checksum] = field(default_factory=dict)
    packaged: str | None = None
    documentation: str = "hatten.yaml"

    @property
    def dataset_id(self) -> str:
        return f"{NAMESPACE}/{self.name}"

    @property
    def env_var(self) -> str:
        """Environment variable naming a folder that holds this corpus's files."""
        return f"CITEVAL_{self.name.upper().replace('-', '_')}_DIR"

    @property
    def base_url_env(self) -> str:
        """Environment variable that replaces ``base_url`` (mirrors, offline tests)."""
        return f"CITEVAL_{self.name.upper().replace('-', '_')}_BASE_URL"

    def home(self) -> Path:
        """Where this corpus's files and stores live in the ir_datasets home."""
        return Path(ir_datasets.util.home_path()) / NAMESPACE / self.name

    def instructions(self, missing: Path) -> str:
        """What a user must do to make a hand-installed corpus available."""
        files = ", ".join(FILES)
        return (
            f"{self.dataset_id}: {missing} is missing. {self.pretty_name} is distributed only "
            f"in the HAtten authors' Google Drive folder {HATTEN_DRIVE_FOLDER} , which cannot "
            f"be downloaded reliably by a program. Download the {self.pretty_name} folder from "
            f"there (files {files}), unpack it, then either run\n"
            f"    citeval import {self.name} /path/to/that/folder\n"
            f"which checks the files and installs them into {self.home()}, or set "
            f"{self.env_var}=/path/to/that/folder to read them where they are."
        )


def corpus_file(corpus: HattenCorpus, name: str, *, fetch: bool = True) -> Path | None:
    """The local path of one of the corpus's files.

    Looked up in the folder named by ``corpus.env_var`` if set, else in the package (a
    packaged corpus), else in the ir_datasets home; a downloadable corpus is fetched there
    (verified) when missing. With ``fetch=False`` returns ``None`` instead of downloading or
    raising.
    """
    folder = os.environ.get(corpus.env_var)
    if folder:
        path = Path(folder).expanduser() / name
        if path.is_file():
            return path
        if not fetch:
            return None
        raise DataNotFoundError(
            f"{path}: no such file ({corpus.env_var} is set to {folder!r}, which must hold "
            f"{', '.join(FILES)})"
        )
    if corpus.packaged is not None:
        return packaged_file(corpus, name)
    path = corpus.home() / name
    if path.is_file():
        return path
    if not fetch:
        return None
    if corpus.base_url is None:
        raise DataNotFoundError(corpus.instructions(path))
    base = os.environ.get(corpus.base_url_env) or corpus.base_url
    url = f"{base.rstrip('/')}/{name}"
    return download(url, path, corpus.checksums.get(name), desc=f"{corpus.dataset_id} {name}")


def packaged_file(corpus: HattenCorpus, name: str) -> Path:
    """A file shipped inside this package (``corpus.packaged``), as a path on disk: the file
    itself in a normal install, else a copy made once in the ir_datasets home."""
    resource = resources.files(__package__).joinpath(corpus.packaged, name)
    if not resource.is_file():
        raise DataNotFoundError(
            f"{corpus.dataset_id}: {name} is missing from the installed package "
            f"({resource}); reinstall citeval-irm"
        )
    if isinstance(resource, Path):
        return resource
    path = corpus.home() / name  # e.g. a zipped install: the loader needs a real file
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with resource.open("rb") as source, open(path.with_suffix(".tmp"), "wb") as target:
            shutil.copyfileobj(source, target)
        os.replace(path.with_suffix(".tmp"), path)
    return path


# --------------------------------------------------------------------------- record parsing


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


def parse_paper(
    key: str, value: Any, source: Path, scheme: str, notes: Notes, *, record: int
) -> CitationDoc:
    """A :class:`CitationDoc` from one ``papers.json`` entry (extra keys are ignored)."""
    where = f"record {record} (paper {key!r})"
    if not isinstance(value, dict):
        raise InputError(
            str(source), f"{where}: expected an object with title and abstract, got {kind(value)}"
        )
    title = _text(value, "title", source, where, notes, "paper_no_title", key)
    abstract = _text(value, "abstract", source, where, notes, "paper_no_abstract", key)
    year = paper_year(key, scheme)
    if year is None and scheme != "none":
        notes.add("paper_no_year", key)
    return CitationDoc(key, title, abstract, year)


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
    key: str, value: Any, source: Path, scheme: str, notes: Notes, *, record: int
) -> CitationContext:
    """A :class:`CitationContext` from one ``contexts.json`` entry."""
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
    if scheme != "none" and paper_year(citing, scheme) is None:
        notes.add("context_no_year", key)
    return CitationContext(key, citing, cited, text)


def parse_object_file(source: Path, parse: Callable[..., Any], scheme: str, notes: Notes):
    """The records of a ``{id: record}`` file, streamed, each checked by ``parse``
    (:func:`parse_paper` or :func:`parse_context`)."""
    for record, (key, value) in enumerate(iter_object(source), start=1):
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


# --------------------------------------------------------------------------- stores


class JsonObjectRecords:
    """The records of one ``{id: record}`` file of a corpus: streamed, or from a
    disk-backed store built on first use (and rebuilt when the file changes)."""

    def __init__(
        self,
        corpus: HattenCorpus,
        file_name: str,
        store_name: str,
        record_cls: type,
        parse: Callable[..., Any],
        count_hint: int,
    ):
        self.corpus = corpus
        self.file_name = file_name
        self._store_name = store_name
        self._record_cls = record_cls
        self._parse = parse
        self._count_hint = count_hint

    def parse(self, source: Path, notes: Notes | None = None) -> Iterator:
        """Stream and check the records of ``source``; tolerated oddities go to ``notes``
        (or, without it, are logged as warnings once the file has been read)."""
        own_notes = notes if notes is not None else Notes(NOTE_MESSAGES)
        yield from parse_object_file(source, self._parse, self.corpus.id_scheme, own_notes)
        if notes is None:
            for warning in own_notes.warnings():
                _logger.warn(f"{self.corpus.dataset_id}: {warning}")

    def store(self, *, fetch: bool = True, options=DEFAULT_DOCSTORE_OPTIONS):
        """The store (not yet built); ``None`` if the file is absent and ``fetch`` is off."""
        source = corpus_file(self.corpus, self.file_name, fetch=fetch)
        if source is None:
            return None
        return SourceStampedStore(
            self.corpus.home() / f"{self._store_name}.pklz4",
            source,
            init_iter_fn=lambda: self.parse(source),
            data_cls=self._record_cls,
            lookup_field=self._record_cls._fields[0],
            index_fields=[self._record_cls._fields[0]],
            count_hint=self._count_hint,
            options=options,
        )

    def iter(self):
        """All records in file order: from the store when built (sliceable), else streamed
        from the file (slicing then builds the store)."""
        store = self.store()
        if store.built():
            return iter(store)
        return DocstoreSplitter(self.parse(store.source), store)

    def count(self) -> int | None:
        """The number of records if the store is built, else ``None`` (no download)."""
        store = self.store(fetch=False)
        return store.count() if store is not None and store.built() else None


# --------------------------------------------------------------------------- components


class HattenDocs(BaseDocs):
    """The candidate papers of a corpus (``papers.json``), with a disk-backed docstore."""

    def __init__(self, corpus: HattenCorpus):
        self._corpus = corpus
        self.papers = JsonObjectRecords(
            corpus, PAPERS, "docs", CitationDoc, parse_paper, corpus.counts.docs
        )

    def docs_iter(self):
        return self.papers.iter()

    def docs_store(self, field: str = "doc_id", options=DEFAULT_DOCSTORE_OPTIONS):
        if field != "doc_id":
            raise ValueError(f"{self._corpus.dataset_id} docs are looked up by doc_id only")
        return self.papers.store(options=options)

    def docs_count(self) -> int | None:
        return self.papers.count()

    def docs_cls(self) -> type:
        return CitationDoc

    def docs_namespace(self) -> str:
        return self._corpus.dataset_id

    def docs_lang(self) -> str:
        return "en"


class HattenQueries(BaseQueries):
    """The citation contexts of one split, in split-file order."""

    def __init__(self, corpus: HattenCorpus, split: str, contexts: JsonObjectRecords):
        self._corpus = corpus
        self._split = split
        self._contexts = contexts

    def queries_iter(self) -> Iterator[CitationQuery]:
        path = corpus_file(self._corpus, f"{self._split}.json")
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
        year = paper_year(context.citing_id, self._corpus.id_scheme)
        return CitationQuery(
            context.context_id, context.masked_text, left, right, context.citing_id, year
        )

    def queries_cls(self) -> type:
        return CitationQuery

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
        return corpus_file(self._corpus, f"{self._split}.json")

    def qrels_iter(self) -> Iterator[TrecQrel]:
        for entry in iter_split(self.qrels_path()):
            for doc_id in entry.positive_ids:
                yield TrecQrel(entry.context_id, doc_id, 1, "0")

    def qrels_defs(self) -> dict[int, str]:
        return QRELS_DEFS

    def qrels_cls(self) -> type:
        return TrecQrel


def corpus_components(corpus: HattenCorpus) -> dict[str, tuple]:
    """The ir_datasets components of a corpus, by dataset id: the corpus (docs) and one
    dataset per split (docs, queries, qrels). The docs component is shared."""
    docs = HattenDocs(corpus)
    contexts = JsonObjectRecords(
        corpus,
        CONTEXTS,
        "contexts",
        CitationContext,
        parse_context,
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


# --------------------------------------------------------------------------- the corpora

_ACL200_URL = (
    f"https://github.com/nianlonggu/Local-Citation-Recommendation/raw/{HATTEN_COMMIT}/data/custom"
)

CORPORA: dict[str, HattenCorpus] = {
    corpus.name: corpus
    for corpus in (
        HattenCorpus(
            "acl-200",
            "ACL-200",
            "acl",
            PublishedCounts(docs=19_776, train=30_390, val=9_381, test=9_585),
            base_url=_ACL200_URL,
            checksums={
                "train.json": Checksum("md5", "52aa0fe63f33144df69183d105105d09"),
                "val.json": Checksum("md5", "74de17a641a1a7cb62afbd59e4dfaa0f"),
                "test.json": Checksum("md5", "e4b1fe894dcc4fd2f2124a3b1e846acb"),
                CONTEXTS: Checksum("git-blob-sha1", "37814e32d35568f28eed4fe626525cf8e09b3d9d"),
                PAPERS: Checksum("git-blob-sha1", "df9142d01c105f7d5ef51e9d5eee0dcd57cde507"),
            },
        ),
        HattenCorpus(
            "fulltextpeerread",
            "FullTextPeerRead",
            "arxiv",
            PublishedCounts(docs=4_837, train=9_363, val=492, test=6_814),
        ),
        HattenCorpus(
            "refseer",
            "RefSeer",
            "none",
            PublishedCounts(docs=624_957, train=3_521_582, val=124_911, test=126_593),
        ),
        HattenCorpus(
            "arxiv",
            "arXiv",
            "arxiv",
            PublishedCounts(docs=1_661_201, train=2_988_030, val=112_779, test=104_401),
        ),
        HattenCorpus(
            "demo",
            "citeval demo (generated)",
            "acl",
            PublishedCounts(docs=420, train=648, val=155, test=163),
            packaged="demo",
            documentation="demo.yaml",
        ),
    )
}


def get_corpus(name: str) -> HattenCorpus:
    """A corpus by short name (``acl-200``) or dataset id (``citeval/acl-200``)."""
    key = name.removeprefix(f"{NAMESPACE}/")
    if key not in CORPORA:
        raise InputError(None, f"unknown dataset {name!r}; known: {', '.join(CORPORA)}")
    return CORPORA[key]
