"""Every example of the README and of the documentation site runs as written, in order,
from a fresh folder, twice.

A page's ``python`` and ``bash`` blocks run one after the other in a new empty folder, as a
reader who copies them in order would run them: each block saved as a script and run with
this interpreter (``bash -e`` for shell blocks, with this environment's ``citeval`` first on
the ``PATH``), so a block finds only what the blocks before it made. Then the whole page
runs again in the same folder, every block that wrote into it, in order: a block must not
fail because its first run left its outputs (a block that wrote nothing left none). Each
block runs in a process group of its own, and no process of it may outlive it (a Dask
cluster left running fails the test). Synopses, transcripts and outputs sit in
``text`` / ``console`` fences and are not run; a block that cannot run here is marked
``<!-- docs:skip REASON -->`` on the line above it, with its reason (the README's CI
install and test steps: they are the CI itself). A page whose examples read files of the
repository (``examples/generated.jsonl``) says so, ``<!-- docs:files PATH ... -->``, and
those files are copied into the folder first, as a reader who has the repository has them.
A page whose blocks are the first blocks of another page (the site's home page, the README's
first examples) is run by that page's run.

Blocks on the real corpora (ACL-200, ArSyTa, MasterSet) read small SYNTHETIC folders in
their layouts through ``CITEVAL_<NAME>_DIR``, as a reader's would read the downloaded files;
nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from datasets_fixtures import write_arsyta_folder, write_hatten_folder, write_masterset_folder

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
RUN = {"python", "bash"}
NOT_RUN = {"text", "console", "bibtex", "latex", "csv", "json", "yaml", "toml", "html"}
_FENCE = re.compile(r"^```(\S*)\n(.*?)^```\n", flags=re.S | re.M)
_SKIP = re.compile(r"<!-- (?:docs:skip (?P<why>[^>]+?)|ci:\w+) -->\n$")
_FILES = re.compile(r"<!-- docs:files ([^>]+?) -->")

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    skipped: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        skip = _SKIP.search(before)
        why = (skip.group("why") or "the CI step itself") if skip else None
        found.append(
            Block(
                str(path.relative_to(REPO)),
                before.count("\n") + 1,
                match.group(1),
                match.group(2),
                why,
            )
        )
    return found


BLOCKS = {str(p.relative_to(REPO)): blocks_of(p) for p in PAGES}


def test_every_fence_says_what_it_holds():
    """A fence without a language, or with one we neither run nor list as not run, is a
    reader's guess: say `text` for a synopsis or an output, `bash` / `python` for code."""
    unnamed = [b.where for page in BLOCKS.values() for b in page if b.language not in RUN | NOT_RUN]
    assert not unnamed, f"fences without a known language: {unnamed}"


def test_the_pages_have_examples_to_run():
    runnable = [b for page in BLOCKS.values() for b in page if b.language in RUN]
    assert len(runnable) >= 25
    installs = [b for b in BLOCKS["README.md"] if b.language == "bash" and "pip install" in b.code]
    assert len(installs) == 2 and all(b.skipped for b in installs)  # the CI's own steps


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> dict[str, str]:
    """SYNTHETIC folders in the real corpora's layouts, read in place."""
    root = tmp_path_factory.mktemp("corpora")
    env = {
        "CITEVAL_ACL_200_DIR": root / "acl-200",
        "CITEVAL_ARSYTA_DIR": root / "arsyta",
        "CITEVAL_MASTERSET_COREML_V1_DIR": root / "masterset",
    }
    write_hatten_folder(env["CITEVAL_ACL_200_DIR"])
    write_arsyta_folder(env["CITEVAL_ARSYTA_DIR"])
    write_masterset_folder(env["CITEVAL_MASTERSET_COREML_V1_DIR"])
    return {name: str(path) for name, path in env.items()}


# A warning line on standard error: the command line's (``warning: ...``) or Python's
# (``FILE:LINE: CategoryWarning: ...``, compared without its location).
_LOCATION = re.compile(r"^\S+:\d+: (?=\w*Warning: )")

# Blocks that must stay quiet, by page and a line of their code: at most this many lines on
# standard error (each Python warning takes two: it and the source line it points at).
STDERR_BUDGETS = {("docs/guides/resolve.md", "citeval_irm.compare(resolved"): 8}


# bash -x's mark of each command of a shell block on standard error (PS4; nested commands
# repeat its first character): a warning is said once per command, each command on its own
COMMAND_MARK = "+docs-command+ "
_COMMAND = re.compile(r"^\++docs-command\+ .*$", flags=re.M)


def repeated_warnings(err: str) -> list[str]:
    """The warnings a block's standard error says more than once: the command line's
    ``warning:`` lines (a shell block's, command by command), and Python's by text and
    location (each call says its own; Python's filter already says one line's once)."""
    said = Counter(
        line for line in err.splitlines() if line.startswith("warning: ") or _LOCATION.match(line)
    )
    return [line for line, times in said.items() if times > 1]


def test_repeated_warnings_are_found():
    err = (
        "x.py:3: ShortRankingWarning: rankings shorter (2 queries)\n  call()\n"
        "x.py:9: ShortRankingWarning: rankings shorter (2 queries)\n  other()\n"
        "warning: tied scores (1) [tied_scores]\nwarning: other (1) [x]\n"
    )
    assert repeated_warnings(err) == []  # two calls, each its own
    assert repeated_warnings(err + "warning: other (1) [x]\n") == ["warning: other (1) [x]"]
    shell = "".join(f"{COMMAND_MARK}citeval eval {run}\nwarning: w [x]\n" for run in "ab")
    assert repeated_warnings(shell) == ["warning: w [x]"]
    assert [repeated_warnings(said) for said in _COMMAND.split(shell)] == [[], [], []]


def _run_block(block: Block, folder: Path, env: dict[str, str], attempt: str) -> None:
    script = folder.parent / ("block.py" if block.language == "python" else "block.sh")
    # bash -x marks each command on stderr with PS4 (set here: bash running as root does not
    # take it from the environment)
    shell = f"PS4='{COMMAND_MARK}'\n" if block.language == "bash" else ""
    script.write_text(shell + block.code, encoding="utf-8")
    command = (
        [sys.executable, str(script)]
        if block.language == "python"
        else ["bash", "-xeuo", "pipefail", str(script)]  # -x: each command marked on stderr
    )
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: what it leaves running is seen
    )
    try:
        out, err = process.communicate(timeout=600)
    finally:
        left = _group_alive(process.pid, grace=10.0)
        if left:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, f"{block.where}, {attempt} run:\n{out[-2000:]}\n{err[-4000:]}"
    assert not left, f"{block.where}, {attempt} run: left processes running"
    for said in _COMMAND.split(err):  # a shell block: command by command
        assert not repeated_warnings(said), f"{block.where}, {attempt} run: said twice:\n{said}"
    for (page, line), budget in STDERR_BUDGETS.items():
        if block.page == page and line in block.code:
            lines = err.splitlines()
            assert len(lines) <= budget, f"{block.where}: {len(lines)} lines on stderr:\n{err}"


def _group_alive(group: int, grace: float) -> bool:
    """Whether a process of the group still runs ``grace`` seconds after its leader ended
    (a cluster's workers may take a moment to exit after it is closed)."""
    deadline = time.monotonic() + grace
    while True:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.2)


def _script(page: str) -> tuple[tuple[str, str], ...]:
    """What a reader of the page runs, in order: its runnable blocks' language and code."""
    return tuple((b.language, b.code) for b in BLOCKS[page] if b.language in RUN and not b.skipped)


def _covering_page(page: str) -> str | None:
    """Another page whose run is this page's run and more: the same blocks, the same files
    copied first, then blocks of its own (the site's home page repeats the README's first
    examples). What runs the same code after the same code needs no run of its own."""
    if _FILES.findall((REPO / page).read_text(encoding="utf-8")):
        return None  # its run starts from files of its own
    mine = _script(page)
    for other in BLOCKS:
        theirs = _script(other)
        if other != page and len(theirs) > len(mine) and theirs[: len(mine)] == mine:
            return other
    return None


RUNNABLE_PAGES = [p for p in BLOCKS if _script(p) and _covering_page(p) is None]


def test_a_page_not_run_is_run_by_the_page_that_covers_it():
    covered = {p: _covering_page(p) for p in BLOCKS if _script(p) and p not in RUNNABLE_PAGES}
    assert covered == {"docs/index.md": "README.md"}
    assert set(RUNNABLE_PAGES) | set(covered) == {p for p in BLOCKS if _script(p)}


@pytest.mark.parametrize("page", RUNNABLE_PAGES)
def test_every_example_of_the_page_runs_in_order_twice(page, corpora, tmp_path):
    folder = tmp_path / "reader"
    folder.mkdir()
    env = {
        **os.environ,
        **corpora,
        "IR_DATASETS_HOME": str(tmp_path / "ir_datasets_home"),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "MPLBACKEND": "Agg",
    }
    env.pop("CITEVAL_DEMO_DIR", None)
    text = (REPO / page).read_text(encoding="utf-8")
    for name in (n for found in _FILES.findall(text) for n in found.split()):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, folder / name)
    runnable = [b for b in BLOCKS[page] if b.language in RUN and not b.skipped]
    wrote = []
    for block in runnable:
        before = _contents(folder)
        _run_block(block, folder, env, "first")
        if _contents(folder) != before:
            wrote.append(block)
    for block in wrote:  # a block that wrote nothing left nothing to fail on
        _run_block(block, folder, env, "second")


def _contents(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder``, with its size and modification time."""
    return {
        str(path): (status.st_size, status.st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file() and (status := path.stat())
    }
