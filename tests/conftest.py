"""Shared test fixtures: the vendored reference data, temp files; the dataset fixtures of
``datasets_fixtures`` as a plugin (no test imports a fixture by name); one hypothesis
profile, so a property test draws the same examples on every machine and a failure in CI
reproduces (``HYPOTHESIS_PROFILE=random`` explores afresh)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from reference_data import TREC_EVAL

pytest_plugins = ["datasets_fixtures"]

settings.register_profile("fixed", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("random", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


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
