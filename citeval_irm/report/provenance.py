"""What a reader needs to reproduce a report: the files (with their sha256), the dataset's
files, and the versions of the package and of everything it computes with.

A number in a report is only worth quoting with what produced it: the run file (its sha256,
since files get overwritten), the benchmark's files (the sha256 of their download records,
see :mod:`citeval_irm.base.downloads`), and the library versions (a tie-breaking rule or a
kernel can change between releases).
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..base.downloads import file_checksum, read_record
from ..base.errors import CitevalError

PACKAGES = (
    "citeval-irm",
    "numpy",
    "pandas",
    "pyarrow",
    "scipy",
    "ir-measures",
    "pytrec-eval-terrier",
    "ir-datasets",
    "bm25s",
    "PyStemmer",
    "matplotlib",
)
"""The distributions whose versions a report lists: this package and what it computes with."""


def versions() -> list[tuple[str, str]]:
    """``(name, version)`` of Python, the platform and each of :data:`PACKAGES`."""
    out = [("python", platform.python_version()), ("platform", platform.platform())]
    for name in PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out


@dataclass(frozen=True)
class DatasetFile:
    """One file of a benchmark: its size, sha256 and where the checksum comes from."""

    name: str
    size: int | None
    sha256: str | None
    how: str


@dataclass(frozen=True)
class DatasetInfo:
    """A dataset id, its corpus and split, and its files (empty when not known)."""

    dataset_id: str
    corpus: str | None
    split: str | None
    files: tuple[DatasetFile, ...]
    note: str = ""


def dataset_info(dataset_id: str) -> DatasetInfo:
    """The corpus, split and files of a ``citeval/...`` dataset, with sha256 where known:
    from the file's download record for downloaded or imported files, computed for the
    files shipped in the package; never by hashing a big corpus read in place."""
    parts = dataset_id.split("/")
    if parts[0] != "citeval" or len(parts) < 2:
        return DatasetInfo(dataset_id, None, None, (), "not a citeval dataset: files not listed")
    from ..datasets.importing import corpus_named
    from ..datasets.sources import corpus_file

    try:
        corpus = corpus_named(parts[1])
    except CitevalError as exc:
        return DatasetInfo(dataset_id, None, None, (), str(exc))
    split = "/".join(parts[2:]) or None
    folder = os.environ.get(corpus.env_var)
    files = []
    for name in corpus.file_names():
        path = corpus_file(corpus, name, fetch=False)
        if path is None:
            files.append(DatasetFile(name, None, None, "not on this machine"))
        elif corpus.packaged is not None and not folder:
            how = "computed: shipped inside citeval-irm"
            files.append(DatasetFile(name, path.stat().st_size, file_checksum(path, "sha256"), how))
        else:
            files.append(_recorded(name, Path(path), folder))
    return DatasetInfo(dataset_id, corpus.dataset_id, split, tuple(files))


def _recorded(name: str, path: Path, folder: str | None) -> DatasetFile:
    """A file of the home (or of a folder read in place) by its download record."""
    size = path.stat().st_size
    try:
        record = read_record(path)
    except CitevalError as exc:
        return DatasetFile(name, size, None, f"damaged record: {exc}")
    if record is None:
        where = f"read in place from {folder}" if folder else "no download record"
        return DatasetFile(name, size, None, f"not recorded ({where})")
    published = record.get("published")
    how = "download record" + (f", matched the published {published}" if published else "")
    return DatasetFile(name, size, record["sha256"], how)
