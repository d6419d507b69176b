"""The notebooks run end to end with `jupyter nbconvert --execute` (a fresh kernel), as a
reader would run them, so they can never go stale; they print no log noise and leave no
temporary folder behind."""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
MASTERSET = "02_masterset_tiers.ipynb"
NOISE = ("[WARNING]", "TqdmWarning", "docs_iter", "with direct file access", "[starting]")

# Put (not committed) into the MasterSet notebook before its clean-up cell: what it loaded,
# compared in the kernel with the loader's own reading of the fixture it installed.
MASTERSET_PROBE = """import json
loaded = {
    key: [[str(v) for v in q] for q in ir_datasets.load(name).qrels_iter()]
    for key, name in DATASETS.items()
}
print(json.dumps({
    "datasets": sorted(DATASETS.values()),
    "same": {
        "|".join(key): qrels[key].astype(str).values.tolist() == loaded[key] for key in DATASETS
    },
    "kept": len(loaded[("must-cite", "kept")]),
    "in_pool": len(loaded[("must-cite", "in-pool")]),
    "tiers": sorted({q[4] for q in loaded[("must-cite", "kept")]}),
}))"""


def test_the_notebooks_are_there() -> None:
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", MASTERSET]


def _figures() -> dict[str, str]:
    """Notebook -> its plot's PNG in docs/ (scripts/readme_figures.py renders them)."""
    spec = importlib.util.spec_from_file_location(
        "readme_figures", REPO / "scripts" / "readme_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FIGURES


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_docs_show_the_plots_the_notebooks_draw() -> None:
    page = (REPO / "docs" / "index.md").read_text(encoding="utf-8")  # beside the figures
    for figure in _figures().values():
        assert f"]({figure})" in page
        assert _png_size((REPO / "docs" / figure).read_bytes())[0] > 300


def _streams(notebook, name: str) -> str:
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return "".join(o.text for cell in code for o in cell.outputs if o.get("name") == name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_with_nbconvert(path: Path, tmp_path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), (
        f"{path.name} is committed with outputs: clear them"
    )
    if path.name == MASTERSET:  # before the clean-up cell, while the fixture is there
        notebook.cells.insert(len(notebook.cells) - 2, nbformat.v4.new_code_cell(MASTERSET_PROBE))
    work, scratch = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    scratch.mkdir()
    copy = work / path.name
    nbformat.write(notebook, copy)
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "home"), "TMPDIR": str(scratch)}
    for name in ("CITEVAL_DEMO_DIR", "CITEVAL_MASTERSET_COREML_V1_DIR", "MPLBACKEND"):
        env.pop(name, None)  # MPLBACKEND: the kernel's inline backend draws PNGs
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    done = subprocess.run(
        [*command, "--ExecutePreprocessor.timeout=300", "--output", "executed.ipynb", str(copy)],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
    )
    assert done.returncode == 0, done.stderr[-3000:]  # a failing cell fails nbconvert
    executed = nbformat.read(work / "executed.ipynb", as_version=4)
    cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    plots = [c for c in cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert len(plots) == 1 and "plt.show()" in plots[0].source, "one cell draws Recall@K"
    (drawn,) = [
        o["data"]["image/png"] for o in plots[0].outputs if "image/png" in o.get("data", {})
    ]
    committed = (REPO / "docs" / _figures()[path.name]).read_bytes()
    assert _png_size(base64.b64decode(drawn)) == _png_size(committed)  # the README's figure
    stderr = _streams(executed, "stderr")
    assert not [noise for noise in NOISE if noise in stderr], stderr[:2000]
    assert sorted(p.name for p in work.iterdir()) == sorted([path.name, "executed.ipynb"])
    assert list(scratch.iterdir()) == [], "a temporary folder was left behind"
    if path.name == MASTERSET:
        _check_masterset_notebook(executed)


def _check_masterset_notebook(executed) -> None:
    """The notebook read its tiers through the MasterSet loader (qrels exactly what the
    loader yields, fields tier and in_pool included), its notes are counted in its output,
    and bm25_run never ranks a query paper for itself."""
    probe_cell = next(c for c in executed.cells if c.source == MASTERSET_PROBE)
    probe = json.loads("".join(o.text for o in probe_cell.outputs if o.get("name") == "stdout"))
    assert probe["datasets"] == sorted(
        f"citeval/masterset-coreml-v1/test/{tier}{reading}"
        for tier in ("baseline", "core", "frequent", "must-cite")
        for reading in ("", "/in-pool")
    )
    assert all(probe["same"].values()), probe["same"]
    assert probe["in_pool"] < probe["kept"]  # the fixture has gold outside the pool
    assert set(probe["tiers"]) > {"baseline", "core", "frequent"}  # merged tier labels
    stdout, stderr = _streams(executed, "stdout"), _streams(executed, "stderr")
    assert "counts that differ from the published ones (imported anyway)" in stdout  # report
    for note in (
        "[INFO] citeval/masterset-coreml-v1/test/core qrels: gold papers outside the candidate "
        "pool, kept",
        "[INFO] citeval/masterset-coreml-v1/test/core/in-pool qrels: gold papers outside the "
        "candidate pool, dropped",
    ):
        assert note in stderr
    # two query papers of the fixture are also in the pool
    assert "2 query papers are in the pool; ranked for themselves: 0" in stdout
