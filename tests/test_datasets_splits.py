"""Facts of the official ACL-200 split files (HAtten data/custom).

The files are not redistributable, so ``tests/data/acl-200/split-files.json`` records what
the tests need of them: each file's checksums and, per split, how many contexts have each
(citing year, cited year, self-citation, number of positives). Every fact below is checked
on that record; the last test checks the record itself against the real files, read with
our parser, wherever they are on this machine.
"""

from __future__ import annotations

from collections import Counter

import pytest
from datasets_fixtures import SPLITS, citing_id_of
from reference_data import acl200_split_facts, acl200_split_file

from citeval_irm.base.downloads import Checksum, file_checksum, verify_file
from citeval_irm.datasets import CORPORA, paper_year
from citeval_irm.datasets.formats.hatten import iter_split

ACL = CORPORA["acl-200"]
CITING_YEARS = {"train": {2009, 2010, 2011, 2012, 2013}, "val": {2014}, "test": {2015}}


def _pairs(split: str) -> list[tuple[int, int, bool, int, int]]:
    return [tuple(row) for row in acl200_split_facts()["year_pairs"][split]]


def _count(split: str, keep) -> int:
    return sum(n for citing, cited, own, positives, n in _pairs(split) if keep(citing, cited, own))


@pytest.mark.parametrize("split", SPLITS)
def test_the_loader_pins_the_recorded_checksums(split: str) -> None:
    recorded = acl200_split_facts()["files"][f"{split}.json"]
    assert ACL.checksums[f"{split}.json"] == Checksum("md5", recorded["md5"])


@pytest.mark.parametrize("split", SPLITS)
def test_counts_positives_and_citing_years(split: str) -> None:
    recorded = acl200_split_facts()["files"][f"{split}.json"]
    assert recorded["contexts"] == recorded["distinct_context_ids"] == ACL.counts.split(split)
    assert sum(n for *_, n in _pairs(split)) == recorded["contexts"]
    assert {positives for *_, positives, _ in _pairs(split)} == {1}
    assert {citing for citing, *_ in _pairs(split)} == CITING_YEARS[split]


def test_test_split_has_343_same_year_citations() -> None:
    assert _count("test", lambda citing, cited, own: citing == cited and not own) == 343


@pytest.mark.parametrize(
    ("split", "self_citations", "later"), [("train", 8, 4), ("val", 7, 0), ("test", 0, 0)]
)
def test_self_and_later_citations(split: str, self_citations: int, later: int) -> None:
    """Contexts whose positive is the citing paper itself, or a later paper: a protocol that
    excludes both makes these positives unreachable (documented in hatten.yaml)."""
    assert _count(split, lambda citing, cited, own: own) == self_citations
    assert _count(split, lambda citing, cited, own: cited > citing) == later


def year_pairs_of(path) -> list[list]:
    """The ``year_pairs`` record of one split file, computed from the file with our parser."""
    counts: Counter = Counter()
    for entry in iter_split(path):
        cited = entry.positive_ids[0]
        citing = citing_id_of(entry.context_id, cited)
        key = (paper_year(citing, "acl"), paper_year(cited, "acl"), citing == cited)
        counts[(*key, len(entry.positive_ids))] += 1
    return [[*key, n] for key, n in sorted(counts.items())]


def test_the_record_is_that_of_the_real_files() -> None:
    """Checksums, counts and year pairs recorded in tests/data are the real files' (skipped,
    saying where it looked, on a machine without them)."""
    paths = {split: acl200_split_file(split) for split in SPLITS}
    for split, path in paths.items():
        recorded = acl200_split_facts()["files"][f"{split}.json"]
        verify_file(path, Checksum("sha256", recorded["sha256"]))
        verify_file(path, ACL.checksums[f"{split}.json"])
        assert file_checksum(path, "git-blob-sha1") == recorded["git_blob_sha1"]
        assert path.stat().st_size == recorded["size"]
        entries = list(iter_split(path))
        assert len({e.context_id for e in entries}) == recorded["distinct_context_ids"]
        assert year_pairs_of(path) == acl200_split_facts()["year_pairs"][split]
