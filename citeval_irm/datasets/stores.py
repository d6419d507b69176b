"""Disk-backed record stores that know which file they were built from.

:class:`StoredRecords` is how every loader serves a file of records (papers, contexts):
streamed from the file until first needed by id, then from a store built once.

ir_datasets' ``PickleLz4FullStore`` (lz4-compressed pickles plus a sorted, memory-mapped id
index) gives lookups by id without holding a corpus in memory, but it trusts whatever is on
disk: it checks ``built()`` before taking its lock, so processes loading a dataset for the
first time together each append every record (a store with every doc four times, "Invalid
size" in every later process), and it never notices that its source changed. So a
:class:`SourceStampedStore` is built by one process at a time (a lock file beside it), into
a temporary folder renamed into place only when complete, with a stamp inside that names
its source's content (size and sha256, not its path: identical files, e.g. the demo of two
installs sharing ``~/.ir_datasets``, share one store) and its own size (records, bytes). A
store whose stamp does not match its source, or whose files do not match its stamp, is
rebuilt (or, in a read-only home, rejected with a message that says how to fix it). The
stamp also lists the file versions (path, size, modification time) already found to have
that content, so a source is hashed only the first time it is seen.
"""

from __future__ import annotations

from ..base import irhome  # noqa: F401 (first: ir_datasets with a read-only home)

# isort: split
import contextlib
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ir_datasets
from ir_datasets.formats import BaseDocs
from ir_datasets.indices import DEFAULT_DOCSTORE_OPTIONS, PickleLz4FullStore
from ir_datasets.util import DocstoreSplitter

from ..base.downloads import file_checksum, read_record
from ..base.errors import CitevalError
from ..base.locking import exclusive
from ..base.outputs import write_atomically
from ..base.progress import bar
from .records import RecordClass
from .sources import CorpusSource, corpus_file, verify_corpus_file

_logger = ir_datasets.log.easy("citeval_irm")  # see citeval_irm.base.progress

STAMP = "source.json"
_BUILDING = ".building-"
_RETIRED = ".retired-"


class StoreError(CitevalError):
    """A store is damaged and cannot be rebuilt here; the message says what to do."""


_SEEN_KEPT = 8  # file versions a stamp remembers (installs, copies sharing one home)
_HASHED: dict[tuple, str] = {}  # sha256 by file version, for this process


def file_version(source: Path) -> dict:
    """One version of a file at one path, cheaply: path, size and modification time."""
    stat = source.stat()
    return {"path": str(source.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def source_stamp(source: Path) -> dict:
    """What a store is built from: the content of its source (size and sha256), wherever
    the file is. The sha256 is the file's download record's when the record describes this
    version (loads check the file against it), else computed once per version."""
    version = file_version(source)
    record = read_record(source)
    if record is not None and all(record[k] == version[k] for k in ("size", "mtime_ns")):
        return {"size": version["size"], "sha256": record["sha256"]}
    key = tuple(version.values())
    if key not in _HASHED:
        _HASHED[key] = file_checksum(source, "sha256")
    return {"size": version["size"], "sha256": _HASHED[key]}


def _store_files(path: Path) -> dict:
    """What a store's files hold: records, bytes of records, distinct ids (its one index)."""
    pos = path / "bin.pos"
    (meta,) = path.glob("idx.*.meta")
    return {
        "records": pos.stat().st_size // 8,
        "bin_bytes": (path / "bin").stat().st_size,
        "ids": int(meta.read_text(encoding="ascii").split()[1]),
    }


def store_problem(path: Path) -> tuple[str, dict | None] | tuple[None, dict]:
    """``(problem, stamp)`` of the store folder ``path``: ``problem`` is ``None`` when its
    files hold what its stamp says (one record per distinct id), else why not."""
    try:
        stamp = json.loads((path / STAMP).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ("not built" if not path.exists() else "incomplete (no stamp)"), None
    except (OSError, ValueError) as exc:
        return f"its stamp {path / STAMP} is unreadable ({exc})", None
    try:
        files = _store_files(path)
    except (OSError, ValueError, IndexError) as exc:
        return f"damaged: {exc}", stamp
    if files != stamp.get("files") or files["ids"] != files["records"]:
        return f"damaged: its files hold {files}, its stamp says {stamp.get('files')}", stamp
    return None, stamp


def _retire_if_other_fields(path: Path, data_cls: RecordClass) -> None:
    """Move aside a store built for other record fields (an older citeval-irm), which
    ir_datasets would refuse to open with an assertion."""
    meta = path / "bin.meta"
    if meta.is_file() and meta.read_text(encoding="utf-8") != " ".join(data_cls._fields):
        with exclusive(path.with_name(f".{path.name}.lock"), f"building {path}"):
            if path.exists():
                os.rename(path, path.with_name(f".{path.name}{_RETIRED}{uuid.uuid4().hex}"))


class SourceStampedStore(PickleLz4FullStore):
    """A ``PickleLz4FullStore`` built exclusively and atomically, checked against its stamp
    on every use, and rebuilt when its source file changes. ``verify_source`` checks the
    source completely (its checksum) before a build."""

    def __init__(
        self,
        path: str | os.PathLike,
        source: Path,
        *,
        verify_source: Callable[[], None] = lambda: None,
        label: str = "building a store",
        unit: str = "record",
        **kwargs,
    ):
        _retire_if_other_fields(Path(path), kwargs["data_cls"])
        super().__init__(str(path), **kwargs)
        self.source = Path(source)
        self._verify_source = verify_source
        self._label, self._unit = label, unit
        self._kwargs = kwargs

    @property
    def _dir(self) -> Path:
        return Path(self.path)

    def problem(self) -> str | None:
        """Why this store cannot be used as it is (``None`` if it can): absent, built from
        another version of its source, or damaged (its files disagree with its stamp)."""
        found = store_problem(self._dir)
        if found[0] is not None:
            return found[0]
        stamp = found[1]
        version = file_version(self.source)
        if version in stamp.get("seen", []):
            return None
        if stamp["source"] != source_stamp(self.source):
            return f"built from another version of {self.source}"
        self._remember(stamp, version)
        return None

    def _remember(self, stamp: dict, version: dict) -> None:
        """Add a file version found to have the store's content to its stamp, so it is not
        hashed again (best effort: a read-only home, or a race, only costs a hash)."""
        stamp["seen"] = [*stamp.get("seen", [])[-(_SEEN_KEPT - 1) :], version]
        with contextlib.suppress(OSError):
            write_atomically(self._dir / STAMP, json.dumps(stamp))

    def built(self) -> bool:
        return self.problem() is None

    def build(self) -> None:
        if self.built():
            return
        lock = self._dir.with_name(f".{self._dir.name}.lock")
        with exclusive(lock, f"building {self._dir}"):
            problem = self.problem()  # another process may have built it meanwhile
            if problem is None:
                return
            self._rebuild(problem)

    def _rebuild(self, problem: str) -> None:
        """Build into a temporary folder, check it, and rename it into place (the lock is
        held, so anything temporary left beside it is a killed build's)."""
        if problem != "not built":
            _logger.info(f"{self._dir}: {problem}: rebuilding")
        for leftover in self._dir.parent.glob(f".{self._dir.name}.*-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        self._verify_source()
        stamp: dict[str, Any] = {
            "source": source_stamp(self.source),
            "seen": [file_version(self.source)],
        }
        temporary = self._dir.with_name(f".{self._dir.name}{_BUILDING}{uuid.uuid4().hex}")
        try:
            fresh = PickleLz4FullStore(str(temporary), **self._kwargs)
            self._fill(fresh)
            fresh.lookup.close()
            stamp["files"] = _store_files(temporary)
            if stamp["files"]["ids"] != stamp["files"]["records"]:
                raise StoreError(
                    f"{self.source}: {stamp['files']['records']:,} records for "
                    f"{stamp['files']['ids']:,} distinct ids: an id occurs more than once"
                )
            (temporary / STAMP).write_text(json.dumps(stamp), encoding="utf-8")
            self.lookup.close()
            self._replace_with(temporary)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)

    def _fill(self, store: PickleLz4FullStore) -> None:
        """Every record of the source into ``store``: ir_datasets' ``build()``, with a bar
        that says what it counts (its own counts any record as a "doc", contexts too) and
        without its start and finish messages."""
        records = self._kwargs["init_iter_fn"]()
        total = self._kwargs.get("count_hint")
        with store.lookup.transaction() as transaction:
            for record in bar(records, desc=self._label, unit=self._unit, total=total):
                transaction.add(record)

    def _replace_with(self, built: Path) -> None:
        retired = self._dir.with_name(f".{self._dir.name}{_RETIRED}{uuid.uuid4().hex}")
        if self._dir.exists():
            os.rename(self._dir, retired)
        os.rename(built, self._dir)
        shutil.rmtree(retired, ignore_errors=True)
        Path(f"{self._dir}.source.json").unlink(missing_ok=True)  # where stamps used to be

    def ready(self) -> SourceStampedStore:
        """This store, built if needed; a damaged one that cannot be rebuilt here (a
        read-only home) is a :class:`StoreError` saying what to do."""
        try:
            self.build()
        except OSError as exc:
            raise StoreError(
                f"{self._dir}: cannot build this store ({self.problem()}): {exc}. Make "
                f"{self._dir.parent} writable, or delete {self._dir} with write access, or set "
                "IR_DATASETS_HOME to a writable folder"
            ) from None
        return self

    def clear_cache(self) -> None:
        self.lookup.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def get_many_iter(self, keys):
        self.ready()
        yield from self.lookup[keys]

    def __iter__(self):
        self.ready()
        return iter(self.lookup)

    def count(self) -> int:
        self.ready()
        return len(self.lookup)


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
        record_cls: RecordClass,
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
            verify_source=lambda: verify_corpus_file(self.corpus, self.file_name, full=True),
            label=f"{self.corpus.dataset_id}: storing {self.file_name}",
            unit="paper" if self._store_name == "docs" else self._store_name.rstrip("s"),
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

    def docs_cls(self) -> RecordClass:
        return self.papers._record_cls

    def docs_namespace(self) -> str:
        return self.papers.corpus.dataset_id

    def docs_lang(self) -> str:
        return "en"
