"""The citeval datasets in PyTerrier: ``pt.get_dataset("citeval:acl-200/test")``.

PyTerrier finds dataset providers through the ``pyterrier.dataset_provider`` entry point,
so this module is registered there (as ``citeval``) and PyTerrier loads it on the first
``citeval:`` name: no ``import citeval_irm`` is needed, unlike ``irds:`` names, which
PyTerrier only sees once the package that registers them has been imported. Names are the
ir_datasets ids without ``citeval/`` (``citeval:demo/test``; the full id is accepted too).

The frames are PyTerrier's: topics ``qid, query``, where ``query`` is the query's
``default_text()`` (the masked citation context, ``text``, of the HAtten-format corpora;
title and abstract of a MasterSet query paper) or, with ``get_topics(variant)``, another
query field (``left_context``, ...); qrels ``qid, docno, label``; the corpus iterator yields
``docno``, ``text`` (title and abstract, what an indexer indexes by default) and every field
of the doc. Nothing here needs Java. Imported only by PyTerrier (it imports pyterrier).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pandas as pd
import pyterrier as pt
from pyterrier.datasets._irds import IRDSDataset

from ..base.errors import DatasetNameError
from ..base.progress import bar
from .registry import dataset_ids, missing_parts, unknown_dataset

PREFIX = "citeval/"


class CitevalDataset(IRDSDataset):
    """A citeval dataset as PyTerrier expects it (see the module docstring)."""

    def get_topics(self, variant: str | None = None) -> pd.DataFrame:
        """``qid, query``: ``query`` is each query's ``default_text()``, or its field
        ``variant``."""
        dataset = self.irds_ref()
        problem = missing_parts(self._irds_id, dataset, ("queries",))
        if problem:
            raise NotImplementedError(f"{self._irds_id} {problem}")
        fields = dataset.queries_cls()._fields[1:]
        if variant is not None and variant not in fields:
            raise ValueError(f"{self._irds_id}: variant must be one of {', '.join(fields)}")
        rows = [
            (q.query_id, getattr(q, variant) if variant else q.default_text())
            for q in dataset.queries_iter()
        ]
        return pd.DataFrame(rows, columns=["qid", "query"])

    def get_qrels(self, variant: str | None = None) -> pd.DataFrame:
        """``qid, docno, label`` (the relevance; other qrels fields, such as MasterSet's
        ``tier``, are left out)."""
        dataset = self.irds_ref()
        problem = missing_parts(self._irds_id, dataset, ("qrels",))
        if problem:
            raise NotImplementedError(f"{self._irds_id} {problem}")
        rows = [(q.query_id, q.doc_id, int(q.relevance)) for q in dataset.qrels_iter()]
        return pd.DataFrame(rows, columns=["qid", "docno", "label"])

    def get_corpus_iter(self, verbose: bool = True, start: int = 0, count: int | None = None):
        """The docs as dicts: ``docno``, ``text`` (title and abstract) and the doc's fields."""
        dataset = self.irds_ref()
        docs = dataset.docs_iter()
        if start or count is not None:
            docs = docs[start : None if count is None else start + count]
        total = count if count is not None else dataset.docs_count()

        def dicts() -> Iterator[dict]:
            for doc in bar(
                docs, desc=f"{self._irds_id} papers", unit="paper", total=total, enabled=verbose
            ):
                record = doc._asdict()
                record["docno"] = record.pop("doc_id")
                record["text"] = doc.default_text()
                yield record

        return pt.utils.GeneratorLen(dicts(), total) if total is not None else dicts()

    def info_url(self) -> str | None:
        return None  # not on ir-datasets.com: see citeval-irm's README and documentation()

    def __repr__(self) -> str:
        return f"CitevalDataset({self._irds_id!r})"


def pyterrier_name(dataset_id: str) -> str:
    """An ir_datasets id as ``pt.get_dataset`` takes it: ``citeval:demo/test``."""
    return (
        f"citeval:{dataset_id.removeprefix(PREFIX)}"
        if dataset_id.startswith(PREFIX)
        else dataset_id
    )


class CitevalDatasetProvider(pt.datasets.DatasetProvider):
    """The ``citeval`` provider: ``pt.get_dataset("citeval:<name>")``."""

    def get_dataset(self, name: str) -> CitevalDataset:
        """The dataset ``citeval/<name>``; for an unknown name a
        :class:`~citeval_irm.base.errors.DatasetNameError` naming the close matches (not a
        ``KeyError``, which PyTerrier's loader replaces with its own bare one)."""
        dataset_id = name if name.startswith(PREFIX) else PREFIX + name
        if dataset_id not in dataset_ids():
            found = unknown_dataset(dataset_id, spelled=pyterrier_name)
            raise DatasetNameError(None, found.problem)
        return CitevalDataset(dataset_id)

    def list_dataset_names(self) -> Iterable[str]:
        return [dataset_id.removeprefix(PREFIX) for dataset_id in dataset_ids()]
