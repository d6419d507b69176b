"""Registration of our datasets with ir_datasets, with their documentation and counts.

ir_datasets has no plugin discovery and reads documentation and metadata from its own
package, so this module adapts both to read ``hatten.yaml``, ``masterset.yaml`` and
``metadata.json`` shipped with citeval-irm, and registers every dataset when
:mod:`citeval_irm` is imported.
"""

from __future__ import annotations

import difflib
import json
from importlib import resources

import ir_datasets
from ir_datasets.datasets.base import Dataset, YamlDocumentation
from ir_datasets.util import MetadataComponent, MetadataProvider

from ..base.errors import UnknownDatasetError
from ..base.progress import quiet_ir_datasets_chatter
from .catalogue import COLLECTIONS


class PackageYamlDocumentation(YamlDocumentation):
    """ir_datasets' YAML documentation, read from this package instead of ir_datasets'.

    An entry is ``_common``, under the keys of the longest id prefix that has an entry (the
    corpus), under one line per later id segment: a table ``_NAME: {segment: text}`` gives
    segment its text as ``NAME`` (``citeval/acl-200/test`` gets ``_split.test`` as
    ``split``).
    """

    _contents: dict  # the YAML file's entries, {} until read (ir_datasets' attribute)

    def get_key(self, key: str) -> dict | None:
        if not self._contents:
            yaml = ir_datasets.lazy_libs.yaml()
            text = resources.files(__package__).joinpath(self._file).read_text("utf-8")
            self._contents = yaml.load(text, Loader=yaml.BaseLoader)  # strings only
        parts = key.split("/")
        known = [n for n in range(len(parts), 0, -1) if "/".join(parts[:n]) in self._contents]
        if not known:
            return None
        entry = {**self._contents["_common"], **self._contents["/".join(parts[: known[0]])]}
        tables = {
            k[1:]: v for k, v in self._contents.items() if k.startswith("_") and k != "_common"
        }
        for segment in parts[known[0] :]:
            found = {name: table[segment] for name, table in tables.items() if segment in table}
            if not found:
                return None
            entry.update(found)
        return entry


def _load_metadata() -> dict:
    """``metadata.json``: generated from the collections' published counts by
    ``scripts/make_metadata.py`` (a test fails when it is stale), read as ir_datasets
    reads its own."""
    text = resources.files(__package__).joinpath("metadata.json").read_text("utf-8")
    return json.loads(text)


METADATA = MetadataProvider(_load_metadata)
DOCUMENTATION: dict[str, PackageYamlDocumentation] = {}  # by YAML file name


class CountedMetadata(MetadataComponent):
    """ir_datasets' metadata of one dataset, where an entity with no published count (the
    qrels of a MasterSet tier: v1.0 publishes none) gets the dataset's own count of it,
    made from its files when they are on this machine (never downloaded for a count):
    ``metadata()`` and ``qrels_count()`` agree, and ir_datasets' own check that every
    entity has a count holds wherever the files are. The published counts of
    ``metadata.json`` (what ``citeval datasets list`` shows) are unchanged."""

    def __init__(self, dataset_id: str, dataset: Dataset, provider: MetadataProvider):
        super().__init__(dataset_id, dataset, provider)
        self._counted = dataset

    def _metadata(self, etype: ir_datasets.EntityType) -> dict:
        metadata = super()._metadata(etype)
        if "count" in metadata:
            return metadata
        own = getattr(self._counted, f"{ir_datasets.EntityType(etype).value}_count", None)
        count = own() if own is not None else None
        return metadata if count is None else {**metadata, "count": count}


def documentation_file(name: str) -> PackageYamlDocumentation:
    """The documentation read from one YAML file of this package (read once)."""
    return DOCUMENTATION.setdefault(name, PackageYamlDocumentation(name))


def build_datasets() -> dict[str, Dataset]:
    """Every citeval dataset, by id, wrapped with its documentation and metadata (and, for
    one with queries, the queries by id: :class:`QueriesLookup`)."""
    families = [(c.components(), documentation_file(c.documentation)) for c in COLLECTIONS]
    out = {}
    for components, documentation in families:
        for dataset_id, parts in components.items():
            dataset = Dataset(*parts, documentation(dataset_id))
            lookup = QueriesLookup(dataset) if dataset.has_queries() else None
            metadata = CountedMetadata(dataset_id, dataset, METADATA)
            out[dataset_id] = Dataset(metadata, dataset, lookup)
    return out


class QueriesLookup:
    """A dataset's ``queries_store()``, which ``ir_datasets lookup --qid`` (``citeval
    datasets lookup ID --qid QID``) asks for and no dataset of ir_datasets has: the
    queries read once, by id, when the first is looked up (as ir_datasets' own
    ``dataset.queries.lookup`` reads them); an unknown id is a ``KeyError``, which the
    lookup says as "not found"."""

    def __init__(self, dataset: Dataset):
        self._dataset = dataset
        self._queries: dict | None = None

    def queries_store(self) -> QueriesLookup:
        return self

    def get(self, query_id: str):
        if self._queries is None:
            self._queries = {query.query_id: query for query in self._dataset.queries_iter()}
        return self._queries[query_id]


_REGISTERED: list[str] = []


def register() -> list[str]:
    """Register every citeval dataset with ir_datasets (once); return their ids."""
    if not _REGISTERED:
        quiet_ir_datasets_chatter()
        registered = set(ir_datasets.registry)
        datasets = build_datasets()
        for dataset_id, dataset in datasets.items():
            if dataset_id not in registered:
                ir_datasets.registry.register(dataset_id, dataset)
        # ir_datasets tries a registry's patterns for an id it does not hold: any other
        # citeval/... id is then an error naming the close ones, from ir_datasets.load too
        ir_datasets.registry.register_pattern(r"^citeval(/|$)", _unregistered)
        _REGISTERED.extend(datasets)
    return list(_REGISTERED)


def _unregistered(dataset_id: str, groups) -> Dataset:
    raise unknown_dataset(dataset_id)


def dataset_ids() -> list[str]:
    """Ids of every citeval dataset (registering them with ir_datasets on first use)."""
    return register()


def unknown_dataset(name: str, spelled=lambda dataset_id: dataset_id) -> UnknownDatasetError:
    """The error for an id that is not registered, with the closest registered ids (ours
    first) and where to see them all; ``spelled`` writes an id as the caller's users write
    it (PyTerrier's ``citeval:demo/test``)."""
    ours = dataset_ids()
    known = ours + [i for i in ir_datasets.registry if i not in set(ours)]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(map(spelled, close))}?" if close else ""
    return UnknownDatasetError(
        None,
        f"unknown dataset {spelled(name)!r}{hint} (`citeval datasets list` shows the citeval ones)",
    )


def find_dataset(name: str):
    """``(name, dataset)`` for a registered id; ``None`` when ``name`` does not look like a
    dataset id (its first segment names no registered dataset, e.g. a file path); for an id
    of a known family that is not registered (``citeval/acl200/test``), an
    :class:`~citeval_irm.base.errors.UnknownDatasetError` naming the close matches."""
    register()
    try:
        return name, ir_datasets.load(name)
    except KeyError:
        families = {i.split("/", 1)[0] for i in ir_datasets.registry}
        if name.split("/", 1)[0] in families:
            raise unknown_dataset(name) from None
        return None


def missing_parts(name: str, dataset, parts: tuple[str, ...]) -> str | None:
    """Why ``dataset`` (id ``name``) cannot serve: the ``parts`` (``"docs"``, ``"queries"``,
    ``"qrels"``) it lacks and the datasets under it that have them (a corpus's splits,
    nearest first), or an example; ``None`` when it has them all."""
    lacking = [part for part in parts if not getattr(dataset, f"has_{part}")()]
    if not lacking:
        return None
    below = [i for i in ir_datasets.registry if i.startswith(f"{name}/")]
    below.sort(key=lambda i: i.count("/"))  # the splits first, in their order
    having = [i for i in below if all(getattr(ir_datasets.load(i), f"has_{p}")() for p in parts)]
    shown = ", ".join(having[:6]) + (", ..." if len(having) > 6 else "")
    where = f"; use one of its splits: {shown}" if having else " (e.g. citeval/demo/test)"
    return f"has no {' and '.join(lacking)}{where}"
