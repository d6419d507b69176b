"""Render the notebooks' Recall@K plots into docs/ for the README.

Each notebook is executed as the test suite executes it (nbconvert, a fresh kernel, an
empty temporary ir_datasets home), and the PNG its plot cell draws is written to
``docs/``: the README shows exactly what the notebooks draw. Run it after changing a plot:

    python scripts/readme_figures.py
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ExecutePreprocessor

REPO = Path(__file__).resolve().parents[1]
FIGURES = {
    "01_quickstart.ipynb": "recall_at_k_demo.png",
    "02_masterset_tiers.ipynb": "recall_at_k_masterset_tiers_synthetic.png",
}


def plot_png(notebook_path: Path) -> bytes:
    """The PNG drawn by the one plot cell of a notebook, executed in a scratch folder."""
    notebook = nbformat.read(notebook_path, as_version=4)
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["IR_DATASETS_HOME"] = str(Path(scratch) / "ir_datasets_home")
        os.environ.pop("MPLBACKEND", None)
        ExecutePreprocessor(timeout=300).preprocess(notebook, {"metadata": {"path": scratch}})
    images = [
        output["data"]["image/png"]
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    if len(images) != 1:
        sys.exit(f"{notebook_path.name}: expected one plot, found {len(images)}")
    return base64.b64decode(images[0])


def main() -> None:
    (REPO / "docs").mkdir(exist_ok=True)
    for notebook, figure in FIGURES.items():
        target = REPO / "docs" / figure
        target.write_bytes(plot_png(REPO / "notebooks" / notebook))
        print(f"wrote {target.relative_to(REPO)}")


if __name__ == "__main__":
    main()
