"""The evaluating guide's own `citeval eval ... --format trec_eval --per-query | diff` recipe, run
against a real trec_eval binary when one is installed ($TREC_EVAL or on PATH); the same
semantics are checked without one against trec_eval's expected outputs
(test_trec_eval_outputs.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


def readme_recipe() -> tuple[str, str]:
    """The two command lines of the evaluating guide's diff recipe."""
    text = (REPO / "docs" / "guides" / "evaluating.md").read_text(encoding="utf-8")
    ours = re.search(r"^citeval eval run\.trec .* > ours\.txt$", text, flags=re.M).group(0)
    theirs = re.search(r"^trec_eval -c -q .* > theirs\.txt$", text, flags=re.M).group(0)
    return ours, theirs


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary ($TREC_EVAL or PATH)")
def test_the_readme_diff_recipe_prints_no_difference(tmp_path):
    shutil.copy(REPO / "examples" / "run.trec", tmp_path / "run.trec")
    shutil.copy(REPO / "examples" / "qrels.txt", tmp_path / "qrels.txt")
    ours, theirs = readme_recipe()
    theirs = theirs.replace("trec_eval", TREC_EVAL, 1)
    for command in (ours, theirs):
        subprocess.run(command, shell=True, cwd=tmp_path, check=True)
    assert (tmp_path / "ours.txt").read_text() == (tmp_path / "theirs.txt").read_text()
