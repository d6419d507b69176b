"""Shared test fixtures: the real reference data in ../shared/data, temp files."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference_data import SHARED_DATA, require


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return require(SHARED_DATA)


@pytest.fixture(scope="session")
def trec_eval_dir(shared_data: Path) -> Path:
    return require(shared_data / "trec_eval")


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
