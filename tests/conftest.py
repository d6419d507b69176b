"""Shared test fixtures: paths to the real reference data in ../shared/data.

The reference data sits beside the repository (CI copies it there). Locally a missing
folder skips the tests that need it; under CI (``CI`` set) it is a failure, so a broken
layout can never turn the validation tests into silent skips.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CITEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))


def _require(path: Path) -> Path:
    if not path.exists():
        message = f"reference data not found: {path} (set CITEVAL_SHARED_DATA)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return _require(SHARED_DATA)


@pytest.fixture(scope="session")
def trec_eval_dir(shared_data: Path) -> Path:
    return _require(shared_data / "trec_eval")


@pytest.fixture
def write(tmp_path: Path):
    """Write text to a file in the test's temp dir and return its path."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write
