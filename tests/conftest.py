"""Shared test fixtures: the vendored reference data, temp files; the dataset fixtures of
``datasets_fixtures`` as a plugin (no test imports a fixture by name); one hypothesis
profile, so a property test draws the same examples on every machine and a failure in CI
reproduces (``HYPOTHESIS_PROFILE=random`` explores afresh).

Tests write only under temporary folders: a guard snapshots the checkout around every test
and fails the test that added, changed or removed a file there (hypothesis keeps its
storage in a temporary folder too, not in ``.hypothesis/`` of the working folder).

Tests contact no host but loopback: every test runs with the Hugging Face Hub client
offline (``HF_HUB_OFFLINE=1``), pointed at a loopback port nothing listens on
(``HF_ENDPOINT=http://127.0.0.1:9``) and with its cache in a temporary folder, so a test
that reaches for a Hub-hosted corpus without the loopback Hub (the ``hub`` fixture of
``hub_server``, which lifts all three) fails at once instead of contacting huggingface.co
or writing into the user's cache; processes the tests start inherit the same environment."""

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
_HF_HOME = tempfile.mkdtemp(prefix="citeval-tests-hf-home-")
NO_HUB = {
    "HF_HUB_OFFLINE": "1",
    "HF_ENDPOINT": "http://127.0.0.1:9",  # the discard port: nothing listens there
    "HF_HOME": _HF_HOME,
    "HF_HUB_DISABLE_TELEMETRY": "1",
}
"""The Hub client's environment in every test (but those with the ``hub`` fixture)."""
_USERS_HUB = (  # the user's cache and token: never read nor written by a test
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "HF_TOKEN_PATH",
)
# set before huggingface_hub is imported (it reads them once, at its import), for
# session fixtures too; the autouse fixture below sets them again around every test
os.environ.update(NO_HUB)
for _name in _USERS_HUB:
    os.environ.pop(_name, None)
# pytest-xdist's workers set COLUMNS=80 and LINES=24: the outputs the guides show are a pipe's
# (100 columns, whatever the terminal), and a test of a terminal's width sets COLUMNS itself
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)
    shutil.rmtree(_HF_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_hub_but_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub client offline and pointed at nothing (:data:`NO_HUB`), in this process
    (``huggingface_hub.constants``, read at its import) and in the processes it starts."""
    from huggingface_hub import constants

    for name, value in NO_HUB.items():
        monkeypatch.setenv(name, value)
    for name in _USERS_HUB:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


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


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval 10.0 built from its C source once per session (``trec_eval_binary``); the
    tests that use it skip, saying why, on a machine with no C compiler."""
    from trec_eval_binary import build

    binary = build(tmp_path_factory.mktemp("trec_eval-10.0"))
    if binary is None:
        pytest.skip("no C compiler or make: trec_eval 10.0 cannot be built from its source")
    return binary


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
