"""Where the tests' reference data is.

Everything a test needs is vendored in ``tests/data/`` (trec_eval's test files and expected
outputs under their NIST licence, the published results transcribed from the papers, the
checksums and counts of the ACL-200 split files), so a clone alone runs the whole suite.
Only the ACL-200 split files themselves are not vendored: the HAtten data states no licence,
so they are never redistributed. The one test that checks the recorded checksums and counts
against those files looks for them in ``../shared/data`` beside the repository or in the
ir_datasets home (where ``citeval import acl-200`` or a download puts them); without them it
skips, saying what is missing, and under CI (``CI`` set) it fails instead.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
TREC_EVAL = DATA / "trec_eval"
SHARED_DATA = Path(os.environ.get("CITEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))
# read once, before any test points IR_DATASETS_HOME at a temporary folder
_IR_HOME = Path(os.environ.get("IR_DATASETS_HOME", Path.home() / ".ir_datasets"))


def data_file(*parts: str) -> Path:
    """A file vendored under ``tests/data`` (a clone always has it)."""
    path = DATA.joinpath(*parts)
    assert path.exists(), f"{path} is missing from the repository"
    return path


@cache
def acl200_split_facts() -> dict:
    """What ``tests/data/acl-200/split-files.json`` records of the real split files."""
    return json.loads(data_file("acl-200", "split-files.json").read_text(encoding="utf-8"))


def acl200_split_file(split: str) -> Path:
    """The official ACL-200 split file ``{split}.json``, wherever it is on this machine;
    otherwise skip (fail under CI), naming the places looked in."""
    places = [
        SHARED_DATA / "acl-200" / "hatten-splits" / f"{split}.json",
        _IR_HOME / "citeval" / "acl-200" / f"{split}.json",
    ]
    for path in places:
        if path.is_file():
            return path
    message = (
        f"the official ACL-200 split file {split}.json is not on this machine (looked in "
        f"{', '.join(map(str, places))}); it is not vendored in tests/data because the HAtten "
        "data states no licence. tests/data/acl-200/split-files.json records its checksums "
        "and counts, which every other test uses; `citeval import acl-200 DIR` or a first "
        "load of citeval/acl-200 puts the files in the ir_datasets home"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
