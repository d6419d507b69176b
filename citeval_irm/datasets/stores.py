"""Disk-backed record stores that know which file they were built from.

ir_datasets' ``PickleLz4FullStore`` (lz4-compressed pickles plus a sorted, memory-mapped id
index) gives lookups by id without holding a corpus in memory. It never notices that its
source changed, though: a store built from one folder would keep answering after the user
pointed the dataset at another. This subclass records the source file's path, size and
modification time and rebuilds when they differ.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import ir_datasets
from ir_datasets.indices import PickleLz4FullStore

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
