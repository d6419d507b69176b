"""The notebooks run end to end (nbclient, a fresh kernel), so they can never go stale."""

from __future__ import annotations

import json
from pathlib import Path

import ir_datasets
import nbformat
import pytest
from nbclient import NotebookClient

import citeval_irm  # noqa: F401 (registers the citeval datasets with ir_datasets)

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
MASTERSET = "02_masterset_tiers.ipynb"

# Appended (not committed) to the MasterSet notebook: what it loaded, for the test to compare
# with the loader's own reading of the fixture the notebook wrote.
MASTERSET_PROBE = """import json
print(json.dumps({
    "fixture": str(FIXTURE),
    "datasets": {"|".join(key): name for key, name in DATASETS.items()},
    "qrels": {"|".join(key): q.astype(str).values.tolist() for key, q in qrels.items()},
}))"""


def test_the_notebooks_are_there() -> None:
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", MASTERSET]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets_home"))
    monkeypatch.delenv("CITEVAL_DEMO_DIR", raising=False)
    monkeypatch.delenv("CITEVAL_MASTERSET_COREML_V1_DIR", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend (PNG)
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), (
        f"{path.name} is committed with outputs: clear them"
    )
    if path.name == MASTERSET:
        notebook.cells.append(nbformat.v4.new_code_cell(MASTERSET_PROBE))
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    errors = [o for cell in code for o in cell.outputs if o.output_type == "error"]
    assert not errors
    figures = [o for o in code[-1].outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 1, "the last cell draws the Recall@K plot"
    if path.name == MASTERSET:
        _check_masterset_notebook(notebook, monkeypatch)


def _stream(cells, name: str) -> str:
    code = [cell for cell in cells if cell.cell_type == "code"]
    return "".join(o.text for cell in code for o in cell.outputs if o.get("name") == name)


def _check_masterset_notebook(notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook read its tiers through the MasterSet loader: its qrels are exactly what
    the loader yields (fields tier and in_pool included) for the fixture it wrote, and the
    loader's counted notes are in its output."""
    probe = json.loads(_stream(notebook.cells[-1:], "stdout"))
    monkeypatch.setenv("CITEVAL_MASTERSET_COREML_V1_DIR", probe["fixture"])
    assert set(probe["datasets"].values()) == {
        f"citeval/masterset-coreml-v1/test/{tier}{reading}"
        for tier in ("baseline", "core", "frequent", "must-cite")
        for reading in ("", "/in-pool")
    }
    for key, dataset_id in probe["datasets"].items():
        loaded = [[str(v) for v in q] for q in ir_datasets.load(dataset_id).qrels_iter()]
        assert probe["qrels"][key] == loaded, dataset_id
    kept, in_pool = probe["qrels"]["must-cite|kept"], probe["qrels"]["must-cite|in-pool"]
    assert len(in_pool) < len(kept)  # the fixture has gold outside the pool
    assert {q[4] for q in kept} > {"baseline", "core", "frequent"}  # merged tier labels
    stderr = _stream(notebook.cells, "stderr")
    for note in (
        "citeval/masterset-coreml-v1/test/core qrels: gold papers outside the candidate pool, kept",
        "citeval/masterset-coreml-v1/test/core/in-pool qrels: gold papers outside the candidate "
        "pool, dropped",
    ):
        assert note in stderr
    # two query papers of the fixture are also in the pool; bm25_run never ranks them for
    # themselves
    assert "2 query papers are in the pool; ranked for themselves: 0" in _stream(
        notebook.cells, "stdout"
    )
