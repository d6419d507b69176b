"""Every Python block of the README runs as written, as a reader runs it: saved as a script
(in a folder of its own) and run with this interpreter, twice in a row (a block must not
fail because its first run left its outputs, nor re-run its work in Dask's worker
processes).

Each block runs on its own, from a working folder laid out as the README says a
reader's is: the repository's ``examples/``, and the runs the bash steps before a block make
(``bm25.trec``, ``titles.trec``). Blocks on the real corpora (ACL-200, ArSyTa, MasterSet) read
small SYNTHETIC folders in their layouts through ``CITEVAL_<NAME>_DIR``, as a reader's would
read the downloaded files; nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from datasets_fixtures import write_arsyta_folder, write_hatten_folder, write_masterset_folder

from citeval_irm.cli import main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def python_blocks() -> list[tuple[str, str]]:
    """``(where, code)`` of each fenced Python block: its line and the heading above it."""
    blocks = []
    for match in re.finditer(r"^```python\n(.*?)^```", README, flags=re.S | re.M):
        line = README.count("\n", 0, match.start()) + 1
        headings = re.findall(r"^#+ (.+)$", README[: match.start()], flags=re.M)
        blocks.append((f"line {line} ({headings[-1] if headings else 'top'})", match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_the_readme_has_its_python_blocks() -> None:
    assert len(BLOCKS) >= 9
    assert any("pt.get_dataset" in code for _, code in BLOCKS)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory):
    """The reader's folder and environment: examples/, the bash steps' runs, and the corpora
    the blocks load (SYNTHETIC folders read in place)."""
    root = tmp_path_factory.mktemp("reader")
    shutil.copytree(REPO / "examples", root / "work" / "examples")
    env = {
        "IR_DATASETS_HOME": root / "ir_datasets_home",
        "CITEVAL_ACL_200_DIR": root / "acl-200",
        "CITEVAL_ARSYTA_DIR": root / "arsyta",
        "CITEVAL_MASTERSET_COREML_V1_DIR": root / "masterset",
    }
    write_hatten_folder(env["CITEVAL_ACL_200_DIR"])
    write_arsyta_folder(env["CITEVAL_ARSYTA_DIR"])
    write_masterset_folder(env["CITEVAL_MASTERSET_COREML_V1_DIR"])
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, str(value))
        patch.delenv("CITEVAL_DEMO_DIR", raising=False)
        patch.chdir(root / "work")
        for fields in ((), ("--fields", "title")):  # the bash steps of "Comparing systems"
            output = "titles.trec" if fields else "bm25.trec"
            base = ["baseline", "bm25", "--dataset", "citeval/demo/test", "-k", "300"]
            assert main([*base, *fields, "-o", output, "--quiet"]) == 0
        yield root / "work"


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_python_block_runs_as_a_script_twice(
    where: str, code: str, reader: Path, tmp_path: Path
) -> None:
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    for attempt in ("first", "second"):
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=reader,
            env=dict(os.environ),  # the reader's, as the fixture set it
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, f"README.md {where}, {attempt} run:\n{done.stderr}"
