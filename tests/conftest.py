"""Shared test fixtures: the vendored reference data, temp files."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference_data import TREC_EVAL


@pytest.fixture(scope="session")
def trec_eval_dir() -> Path:
    """trec_eval 10.0's test files and expected outputs (vendored, NIST licence)."""
    return TREC_EVAL


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
