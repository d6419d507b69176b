"""Shared test fixtures: the vendored reference data, temp files; the dataset fixtures of
``datasets_fixtures`` as a plugin (no test imports a fixture by name); one hypothesis
profile, so a property test draws the same examples on every machine and a failure in CI
reproduces (``HYPOTHESIS_PROFILE=random`` explores afresh).

Tests write only under temporary folders: a guard snapshots the checkout around every test
and fails the test that added, changed or removed a file there (hypothesis keeps its
storage in a temporary folder too, not in ``.hypothesis/`` of the working folder)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from reference_data import TREC_EVAL

pytest_plugins = ["datasets_fixtures"]

settings.register_profile("fixed", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("random", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

CHECKOUT = Path(__file__).resolve().parents[1]
# What changes in a checkout without any test writing there: bytecode, tool caches, venvs.
_NOT_WATCHED = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ruff_cache"}
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="citeval-tests-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)


def checkout_files(root: Path = CHECKOUT) -> dict[str, tuple[int, int]]:
    """Every file of the checkout (but ``_NOT_WATCHED``): its size and modification time."""
    found = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in _NOT_WATCHED]
        for name in files:
            path = Path(folder, name)
            if path.is_file():  # not a dangling link
                stat = path.stat()
                found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found


def changed_files(before: dict, after: dict) -> list[str]:
    """What differs between two snapshots: ``+ added``, ``- removed``, ``~ changed``."""
    return sorted(
        [f"+ {name}" for name in after.keys() - before.keys()]
        + [f"- {name}" for name in before.keys() - after.keys()]
        + [f"~ {name}" for name in before.keys() & after.keys() if before[name] != after[name]]
    )


@pytest.fixture(autouse=True)
def _writes_nothing_into_the_checkout():
    """Fail a test that writes into the checkout (e.g. a command run from the repository's
    root that writes its report there): it would replace a user's own files."""
    before = checkout_files()
    yield
    changes = changed_files(before, checkout_files())
    assert not changes, f"the test wrote into the checkout {CHECKOUT}: {', '.join(changes)}"


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
