"""The package a user installs: what its metadata claims is what CI checks.

The dependency floors are checked by ``.ci/floors`` (the lowest versions the metadata allows
on the oldest Python the package claims, the newest on the newest), which needs the network
to the package index and so runs in CI, not here; these tests hold the claims it rests on:
every requirement has a floor, the Pythons it uses are the ones the metadata claims, and CI
runs it. The built wheel and sdist (slow) carry the licence, and the sdist the tests with
everything they read, so that its tests run; the version is in one place.

The metadata is read from the installed distribution (what a user's pip reads), not parsed
out of ``pyproject.toml``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import metadata, version
from pathlib import Path

import pytest
from conftest import CHECKOUT
from packaging.requirements import Requirement
from reference_data import SHARED_DATA

import citeval_irm

DIST = "citeval-irm"
META = metadata(DIST)


def _python_classifiers() -> list[tuple[int, int]]:
    found = []
    for classifier in META.get_all("Classifier"):
        match = re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", classifier)
        if match:
            found.append((int(match[1]), int(match[2])))
    return sorted(found)


def _floors_script_pythons() -> tuple[str, str]:
    script = (CHECKOUT / ".ci" / "floors").read_text(encoding="utf-8")
    oldest = re.search(r"^OLDEST=(\d+\.\d+)\b", script, flags=re.M)
    newest = re.search(r"^NEWEST=(\d+\.\d+)\b", script, flags=re.M)
    assert oldest and newest, ".ci/floors names no OLDEST= / NEWEST= Python"
    return oldest[1], newest[1]


def test_every_requirement_has_a_floor():
    """A requirement with no lower bound has no floor to test: ``--resolution lowest-direct``
    would pick its first release ever."""
    missing = []
    for line in META.get_all("Requires-Dist"):
        requirement = Requirement(line)
        if requirement.name == DIST:  # an extra of ours, e.g. test -> pyterrier
            continue
        if not any(spec.operator in (">=", "==", "~=") for spec in requirement.specifier):
            missing.append(line)
    assert not missing, f"requirements with no floor: {missing}"


def test_the_floors_are_checked_on_the_pythons_the_package_claims():
    """The oldest Python of ``Requires-Python`` and of the classifiers is the one
    ``.ci/floors`` installs the lowest versions on; the newest classifier, the newest; the
    classifiers name every minor version between; and CI runs the script."""
    claimed = _python_classifiers()
    assert claimed, "no 'Programming Language :: Python :: 3.X' classifier"
    assert claimed == [(3, minor) for minor in range(claimed[0][1], claimed[-1][1] + 1)]
    lowest = re.fullmatch(r">=\s*(\d+)\.(\d+)", META["Requires-Python"])
    assert lowest, META["Requires-Python"]
    assert (int(lowest[1]), int(lowest[2])) == claimed[0]
    oldest, newest = _floors_script_pythons()
    assert (oldest, newest) == tuple("{}.{}".format(*claim) for claim in (claimed[0], claimed[-1]))
    ci = (CHECKOUT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^bash \.ci/floors$", ci, flags=re.M), ".ci/run does not run .ci/floors"


def test_the_version_is_in_one_place():
    """``citeval_irm.__version__`` is the version: the metadata's (pyproject's is dynamic)
    and what ``citeval --version`` prints."""
    project = (CHECKOUT / "pyproject.toml").read_text(encoding="utf-8")
    table = project.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version\s*=", table, flags=re.M), "a second version in pyproject"
    assert re.search(r'^dynamic = \["version"\]', table, flags=re.M)
    assert version(DIST) == citeval_irm.__version__
    shown = subprocess.run(
        [Path(sys.executable).with_name("citeval"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout == f"citeval {citeval_irm.__version__}\n"


def test_the_pyterrier_examples_say_how_to_install_pyterrier():
    """``pip install .`` brings no PyTerrier: the extra requires it, and on the README and
    the PyTerrier guide the prose just before the first example that imports it names the
    extra and what needs Java."""
    assert "pyterrier" in META.get_all("Provides-Extra")
    wanted = [Requirement(line) for line in META.get_all("Requires-Dist")]
    assert any(
        r.name == "python-terrier" and r.marker and r.marker.evaluate({"extra": "pyterrier"})
        for r in wanted
    )
    for page in ("README.md", "docs/guides/pyterrier.md"):
        text = (CHECKOUT / page).read_text(encoding="utf-8")
        blocks = re.finditer(r"^```python\n(.*?)^```\n", text, flags=re.S | re.M)
        first = next((b for b in blocks if re.search(r"^import pyterrier", b[1], flags=re.M)), None)
        assert first, f"{page} has no PyTerrier example"
        before = text[: first.start()]
        prose = before[before.rfind("```\n") + 1 :]  # since the fence before it, if any
        for said in ('pip install ".[pyterrier]"', "citeval-irm[pyterrier]", "Java 11"):
            assert said in prose, f"{page}: the first PyTerrier example does not say {said!r}"


def _tracked_like(root: Path) -> set[str]:
    """The files under ``root`` that are source (not caches nor bytecode)."""
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file()
        and not {"__pycache__", ".pytest_cache", ".hypothesis"} & set(path.parts)
        and path.suffix != ".pyc"
    }


@pytest.mark.slow
def test_the_built_sdist_and_wheel(tmp_path: Path):
    """Built as a release builds them (``python -m build``, here without network: the test
    environment has the build requirements): the wheel and the sdist carry the LICENSE and
    the licence expression, ``twine check`` passes, the sdist holds every file of ``tests/``
    and its tests run from it, importing the package from it."""
    source = tmp_path / "source"  # a copy: building writes an egg-info beside pyproject
    shutil.copytree(
        CHECKOUT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "venv",
            "build",
            "dist",
            "site",
            "*.egg-info",
            "__pycache__",
            ".pytest_cache",
            ".ruff_cache",
            ".hypothesis",
        ),
    )
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source],
        check=True,
        capture_output=True,
    )
    name = f"citeval_irm-{citeval_irm.__version__}"
    wheel, sdist = dist / f"{name}-py3-none-any.whl", dist / f"{name}.tar.gz"
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", wheel, sdist],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    licence = (CHECKOUT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n") and "citeval-irm developers" in licence
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(f"{name}.dist-info/licenses/LICENSE").decode() == licence
        wheel_meta = archive.read(f"{name}.dist-info/METADATA").decode()
    assert "\nLicense-Expression: MIT\n" in wheel_meta and "\nLicense-File: LICENSE\n" in wheel_meta

    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    unpacked = tmp_path / name
    assert (unpacked / "LICENSE").read_text(encoding="utf-8") == licence
    missing = _tracked_like(CHECKOUT / "tests") - _tracked_like(unpacked / "tests")
    assert not missing, f"the sdist lacks: {sorted(missing)[:20]}"

    # its own conftest, fixtures plugin and data: the trec_eval files, the demo, a corpus;
    # the unvendored ACL-200 split files stay where the checkout's own tests find them
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "CITEVAL_SHARED_DATA": str(SHARED_DATA),
    }
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            "tests/test_measure_names.py",
            "tests/test_datasets_splits.py",
            "-m",
            "not slow",
        ],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert re.search(r"^\d+ passed", ran.stdout.splitlines()[-1]), ran.stdout[-500:]
    imported = subprocess.run(
        [sys.executable, "-c", "import citeval_irm; print(citeval_irm.__file__)"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(imported.stdout.strip()).is_relative_to(unpacked)
