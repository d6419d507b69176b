"""The notebooks run end to end (nbclient, a fresh kernel), so they can never go stale."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_notebooks_are_there() -> None:
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", "02_masterset_tiers.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets_home"))
    monkeypatch.delenv("CITEVAL_DEMO_DIR", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend (PNG)
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), (
        f"{path.name} is committed with outputs: clear them"
    )
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
