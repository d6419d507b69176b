"""ir_datasets' own tests of its datasets, run on every citeval id: the metadata of every
entity has a count (``test/metadata.py``), every record type answers ``default_text()``
(``test/test_defaulttext.py``); vendored unchanged in ``tests/ir_datasets_suite``.

Counts come from ``metadata.json`` where they are published; the qrels of a MasterSet tier
(v1.0 publishes no such count) are counted from the files, here a small SYNTHETIC folder
read in place, and must be what ``qrels_iter`` yields."""

from __future__ import annotations

from pathlib import Path

import ir_datasets
import pytest
from datasets_fixtures import write_masterset_folder
from ir_datasets_suite import defaulttext_tests, metadata_tests

from citeval_irm.datasets import DATASET_IDS, MASTERSET_CORPORA

MS = MASTERSET_CORPORA["masterset-coreml-v1"]


@pytest.fixture
def masterset_here(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The SYNTHETIC MasterSet files, read in place (as a user's downloaded files are)."""
    folder = tmp_path / "masterset"
    write_masterset_folder(folder)
    monkeypatch.setenv(MS.env_var, str(folder))
    return folder


def test_every_citeval_id_is_checked() -> None:
    assert len(DATASET_IDS) >= 41 and all(i in ir_datasets.registry for i in DATASET_IDS)


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_ir_datasets_metadata_test_passes(masterset_here, dataset_id: str) -> None:
    metadata_tests.TestMetadata("test_all_metadata_available")._test_ds(dataset_id)


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_ir_datasets_defaulttext_test_passes(dataset_id: str, capsys) -> None:
    defaulttext_tests.TestMetadata("test_all_defualttext")._test_defaulttet(dataset_id)
    assert "missing" not in capsys.readouterr().out  # upstream prints, not fails, a lack


@pytest.mark.parametrize("dataset_id", [i for i in DATASET_IDS if i.count("/") >= 3])
def test_a_tier_counts_its_qrels_as_it_yields_them(masterset_here, dataset_id: str) -> None:
    dataset = ir_datasets.load(dataset_id)
    qrels = list(dataset.qrels_iter())
    assert dataset.qrels_count() == dataset.metadata()["qrels"]["count"] == len(qrels)


def test_without_the_files_a_tier_has_no_qrels_count_and_nothing_is_fetched(ir_home: Path):
    """Not published, not here: no count (nothing downloaded for it); the published counts
    (the queries) are still given."""
    dataset = ir_datasets.load(f"{MS.dataset_id}/test/core")
    assert dataset.qrels_count() is None and "count" not in dataset.metadata()["qrels"]
    assert dataset.metadata()["queries"] == {"count": MS.counts.queries}
    assert not (ir_home / "citeval" / MS.name).exists()
