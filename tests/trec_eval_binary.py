"""The real trec_eval 10.0, built from its C source for the differential tests.

``tests/data/trec_eval/trec_eval-10.0-src.tar.gz`` is usnistgov/trec_eval's source (NIST
licence, ``LICENSE.md`` inside; ``trec_eval -v`` prints ``10.0-rc3``). :func:`build` unpacks
it into a folder and runs its Makefile with the machine's C compiler (about 4 s), so every
machine that runs the suite, CI included, compares the drop-in with the binary itself rather
than with a binary that happens to be installed. A machine without ``make`` or a C compiler
gets ``None`` and the tests that need the binary skip, saying so.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

from reference_data import TREC_EVAL

SOURCE = TREC_EVAL / "trec_eval-10.0-src.tar.gz"


def build(folder: Path) -> Path | None:
    """trec_eval 10.0 built in ``folder``: the binary's path, or ``None`` without a compiler."""
    if shutil.which("make") is None or not (shutil.which("cc") or shutil.which("gcc")):
        return None
    with tarfile.open(SOURCE) as archive:
        archive.extractall(folder, filter="data")
    done = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True)
    binary = folder / "trec_eval"
    if done.returncode != 0 or not binary.exists():
        raise RuntimeError(f"trec_eval 10.0 did not build:\n{done.stdout}\n{done.stderr}")
    return binary
