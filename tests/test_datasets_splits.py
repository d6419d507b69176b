"""Facts of the official ACL-200 split files (HAtten data/custom), read with our parser."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from datasets_fixtures import SPLITS, citing_id_of, shared_data

from citeval_irm.datasets import CORPORA, paper_year
from citeval_irm.datasets.hatten import iter_split
from citeval_irm.downloads import Checksum, verify_file

ACL = CORPORA["acl-200"]
SHA256 = {
    "train": "62d670079b8ea1d4654d45d18c3a3e028a94732189acb54bc1b2350984ad9dae",
    "val": "86e7e475fdb30f212eedb9008124dee25c5a8432f6e8af7070c395a808a94326",
    "test": "12038ef4996fc73c046b7094d6cbbccb43e8b1b3fe102899f00b2a15200c6f6d",
}
CITING_YEARS = {"train": {2009, 2010, 2011, 2012, 2013}, "val": {2014}, "test": {2015}}


@cache
def _entries(split: str):
    return list(iter_split(shared_data("acl-200", "hatten-splits", f"{split}.json")))


@pytest.mark.parametrize("split", SPLITS)
def test_pinned_checksums_match_the_real_files(split: str) -> None:
    path = shared_data("acl-200", "hatten-splits", f"{split}.json")
    verify_file(path, ACL.checksums[f"{split}.json"])  # the md5 the loader pins
    verify_file(path, Checksum("sha256", SHA256[split]))


@pytest.mark.parametrize("split", SPLITS)
def test_counts_positives_and_citing_years(split: str) -> None:
    entries = _entries(split)
    assert len(entries) == ACL.counts.split(split)
    assert len({e.context_id for e in entries}) == len(entries)
    assert Counter(len(e.positive_ids) for e in entries) == {1: len(entries)}
    years = {paper_year(citing_id_of(e.context_id, e.positive_ids[0]), "acl") for e in entries}
    assert years == CITING_YEARS[split]


def test_test_split_has_343_same_year_citations() -> None:
    same_year = [
        e
        for e in _entries("test")
        if paper_year(e.positive_ids[0], "acl")
        == paper_year(citing_id_of(e.context_id, e.positive_ids[0]), "acl")
    ]
    assert len(same_year) == 343


@pytest.mark.parametrize(
    ("split", "self_citations", "later"), [("train", 8, 4), ("val", 7, 0), ("test", 0, 0)]
)
def test_self_and_later_citations(split: str, self_citations: int, later: int) -> None:
    """Contexts whose positive is the citing paper itself, or a later paper: a protocol that
    excludes both makes these positives unreachable (documented in hatten.yaml)."""
    entries = _entries(split)
    citing = [citing_id_of(e.context_id, e.positive_ids[0]) for e in entries]
    assert sum(c == e.positive_ids[0] for c, e in zip(citing, entries)) == self_citations
    assert (
        sum(
            paper_year(e.positive_ids[0], "acl") > paper_year(c, "acl")
            for c, e in zip(citing, entries)
        )
        == later
    )
