"""Start-up stays light (issue 42): registering the datasets with ir_datasets, and
``citeval --version`` / ``--help`` (every command's too), import neither pandas nor pyarrow
nor any other heavy package; each is imported where it is first needed.

Each check runs in a fresh interpreter, as a user's script or the console script starts.
On a failure the message names the chain of imports that brought the package in, read from
``python -X importtime``. The times themselves are measured by
``benchmarks/bench_startup.py``, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "pyarrow", "scipy", "matplotlib", "duckdb", "dask", "pytrec_eval", "bm25s",
         "huggingface_hub", "ijson", "filelock", "ssl")  # fmt: skip
"""What neither registering the datasets nor the command line's help may import: the data
libraries, and what is only needed to read, lock or download a file."""

REPORT = (
    "\nimport sys as _sys, json as _json\n"
    "_sys.__stdout__.write('\\nMODULES ' + _json.dumps(sorted(_sys.modules)) + '\\n')\n"
)


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", code + REPORT], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("MODULES ")][-1]
    return set(json.loads(line.removeprefix("MODULES ")))


def packages(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def import_chain(code: str, package: str) -> str:
    """How ``code`` came to import ``package``: its importers, outermost first, as
    ``python -X importtime`` nests them (a module's imports are printed before it, indented
    deeper)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.split("|")[2]
            rows.append((len(name) - len(name.lstrip()), name.strip()))
    for index, (depth, name) in enumerate(rows):
        if name == package:
            chain = [name]
            for later_depth, later in rows[index + 1 :]:
                if later_depth < depth:
                    chain.append(later)
                    depth = later_depth
            return " <- ".join(chain)
    return f"{package}: not in -X importtime's output"


def assert_light(code: str, forbidden: tuple[str, ...] = HEAVY) -> set[str]:
    """Run ``code`` in a fresh interpreter, fail naming how it imported any of ``forbidden``;
    the top-level packages it imported."""
    loaded = packages(modules_after(code))
    found = [p for p in forbidden if p in loaded]
    assert not found, "\n".join(import_chain(code, p) for p in found)
    return loaded


def test_registering_the_datasets_imports_nothing_heavy():
    """Either order of the imports, the datasets looked up, not read: nothing heavy, and
    nothing beyond what ir_datasets itself imports (it imports numpy; citeval adds no data
    library)."""
    alone = packages(modules_after("import ir_datasets"))
    for code in (
        "import ir_datasets, citeval_irm\n"
        "dataset = ir_datasets.registry['citeval/demo/test']\n"
        "assert dataset.has_docs() and dataset.has_queries() and dataset.has_qrels()",
        "import citeval_irm, ir_datasets\n"
        "assert ir_datasets.load('citeval/acl-200/test').has_queries()\n"
        "assert 'citeval/masterset-coreml-v1/test/core' in list(ir_datasets.registry)",
    ):
        added = assert_light(code) - alone
        assert "numpy" not in added, import_chain(code, "numpy")


def test_the_datasets_names_are_there_before_their_modules():
    """``citeval_irm.datasets``' names imported on first use resolve, and only then import
    pandas."""
    modules_after(
        "import sys, citeval_irm.datasets as d\n"
        "assert 'pandas' not in sys.modules\n"
        "assert {'AdmissibleCandidates', 'admissible_candidates', 'query_papers'} <= set(dir(d))\n"
        "assert d.query_papers.__module__ == 'citeval_irm.datasets.admissible'\n"
        "assert 'pandas' in sys.modules\n"
    )


def test_version_and_help_import_nothing_heavy():
    """``citeval --version``, ``citeval --help`` and ``citeval trec_eval -h`` import no data
    library, not even numpy, nor ir_datasets."""
    for argv in (["--version"], ["--help"], ["trec_eval", "-h"]):
        code = (
            "import contextlib\n"
            "from citeval_irm.cli import main\n"
            "with contextlib.suppress(SystemExit):\n"
            f"    main({argv!r})\n"
        )
        assert_light(code, (*HEAVY, "numpy", "ir_datasets"))


def test_every_commands_help_imports_nothing_heavy():
    """Each command's ``--help`` in turn in one interpreter; the first to import a heavy
    package is named."""
    code = """
import contextlib, io, sys, argparse
from citeval_irm.cli import main
from citeval_irm.cli.parser import build_parser

def commands(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from commands(sub, (*path, name))

heavy = ("numpy", "pandas", "pyarrow", "scipy", "ir_datasets", "matplotlib", "duckdb")
seen = []
for path in commands(build_parser()):
    seen.append(" ".join(path))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main([*path, "--help"])
    loaded = [m for m in heavy if m in sys.modules]
    assert not loaded, f"citeval {' '.join(path)} --help imports {loaded}"
print("COMMANDS", len(seen))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    count = int(done.stdout.split("COMMANDS")[-1])
    assert count >= 15  # every command, baseline's bm25 included
