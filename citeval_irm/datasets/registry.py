"""Registration of our datasets with ir_datasets, with their documentation and counts.

ir_datasets has no plugin discovery and reads documentation and metadata from its own
package, so this module adapts both to read ``hatten.yaml`` and ``metadata.json`` shipped
with citeval-irm, and registers every dataset when :mod:`citeval_irm` is imported.
"""

from __future__ import annotations

import json
from importlib import resources

import ir_datasets
from ir_datasets.datasets.base import Dataset, YamlDocumentation
from ir_datasets.util import MetadataComponent, MetadataProvider

from .hatten import CORPORA, SPLITS, corpus_components


class PackageYamlDocumentation(YamlDocumentation):
    """ir_datasets' YAML documentation, read from this package instead of ir_datasets'.

    An entry is the dataset's own keys over the corpus's, over ``_common``; a split also
    gets its ``_split`` line as ``split``.
    """

    def get_key(self, key: str) -> dict | None:
        if not self._contents:
            yaml = ir_datasets.lazy_libs.yaml()
            text = resources.files(__package__).joinpath(self._file).read_text("utf-8")
            self._contents = yaml.load(text, Loader=yaml.BaseLoader)  # strings only
        corpus_id, _, split = key.rpartition("/")
        if split in SPLITS and corpus_id in self._contents:
            entry = dict(self._contents[corpus_id])
            entry["split"] = self._contents["_split"][split]
        elif key in self._contents:
            entry = dict(self._contents[key])
        else:
            return None
        return {**self._contents["_common"], **entry}


def _load_metadata() -> dict:
    text = resources.files(__package__).joinpath("metadata.json").read_text("utf-8")
    return json.loads(text)


METADATA = MetadataProvider(_load_metadata)
DOCUMENTATION: dict[str, PackageYamlDocumentation] = {}  # by YAML file name


def build_datasets() -> dict[str, Dataset]:
    """Every citeval dataset, by id, wrapped with its documentation and metadata."""
    out = {}
    for corpus in CORPORA.values():
        documentation = DOCUMENTATION.setdefault(
            corpus.documentation, PackageYamlDocumentation(corpus.documentation)
        )
        for dataset_id, parts in corpus_components(corpus).items():
            dataset = Dataset(*parts, documentation(dataset_id))
            out[dataset_id] = Dataset(MetadataComponent(dataset_id, dataset, METADATA), dataset)
    return out


def register() -> list[str]:
    """Register every citeval dataset with ir_datasets (idempotent); return their ids."""
    registered = set(ir_datasets.registry)
    datasets = build_datasets()
    for dataset_id, dataset in datasets.items():
        if dataset_id not in registered:
            ir_datasets.registry.register(dataset_id, dataset)
    return list(datasets)
