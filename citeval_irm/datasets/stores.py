"""Disk-backed record stores that know which file they were built from.

:class:`StoredRecords` is how every loader serves a file of records (papers, contexts):
streamed from the file until first needed by id, then from a store built once.

ir_datasets' ``PickleLz4FullStore`` (lz4-compressed pickles plus a sorted, memory-mapped id
index) gives lookups by id without holding a corpus in memory. It never notices that its
source changed, though: a store built from one folder would keep answering after the user
pointed the dataset at another. This subclass records the source file's path, size and
modification time and rebuilds when they differ.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import ir_datasets
from ir_datasets.formats import BaseDocs
from ir_datasets.indices import DEFAULT_DOCSTORE_OPTIONS, PickleLz4FullStore
from ir_datasets.util import DocstoreSplitter

from .sources import CorpusSource, corpus_file

_logger = ir_datasets.log.easy()


def source_stamp(source: Path) -> dict:
    """What identifies a version of a source file, cheaply."""
    stat = source.stat()
    return {"path": str(source.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


class SourceStampedStore(PickleLz4FullStore):
    """A ``PickleLz4FullStore`` that is rebuilt when its source file changes."""

    def __init__(self, path: str | os.PathLike, source: Path, **kwargs):
        super().__init__(str(path), **kwargs)
        self.source = Path(source)
        self._stamp_path = Path(f"{path}.source.json")

    def _recorded_stamp(self) -> dict | None:
        try:
            return json.loads(self._stamp_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def built(self) -> bool:
        return super().built() and self._recorded_stamp() == source_stamp(self.source)

    def build(self) -> None:
        if self.built():
            return
        if super().built():
            _logger.info(f"{self.source} changed since {self.path} was built: rebuilding")
            self.clear_cache()
        stamp = source_stamp(self.source)
        super().build()
        tmp = self._stamp_path.with_name(self._stamp_path.name + ".tmp")
        tmp.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(tmp, self._stamp_path)


class StoredRecords:
    """The records of one file of a corpus: streamed, or from a disk-backed store built on
    first use (and rebuilt when the file changes).

    ``read(source)`` streams and checks the records of the file (logging what it
    tolerated once the file has been read); their first field is the id.
    """

    def __init__(
        self,
        corpus: CorpusSource,
        file_name: str,
        store_name: str,
        record_cls: type,
        read: Callable[[Path], Iterator],
        count_hint: int,
    ):
        self.corpus = corpus
        self.file_name = file_name
        self._store_name = store_name
        self._record_cls = record_cls
        self._read = read
        self._count_hint = count_hint

    def parse(self, source: Path) -> Iterator:
        """Stream and check the records of ``source``."""
        return self._read(source)

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


class StoredDocs(BaseDocs):
    """The ir_datasets docs component over a file of papers, with a disk-backed docstore."""

    def __init__(self, papers: StoredRecords):
        self.papers = papers

    def docs_iter(self):
        return self.papers.iter()

    def docs_store(self, field: str = "doc_id", options=DEFAULT_DOCSTORE_OPTIONS):
        if field != "doc_id":
            raise ValueError(f"{self.docs_namespace()} docs are looked up by doc_id only")
        return self.papers.store(options=options)

    def docs_count(self) -> int | None:
        return self.papers.count()

    def docs_cls(self) -> type:
        return self.papers._record_cls

    def docs_namespace(self) -> str:
        return self.papers.corpus.dataset_id

    def docs_lang(self) -> str:
        return "en"
