"""The evaluating guide's own `citeval eval ... --format trec_eval --per-query | diff` recipe, run
against the real trec_eval 10.0 binary, built by the suite from its vendored source (the
``trec_eval_binary`` fixture)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_recipe() -> tuple[str, str]:
    """The two command lines of the evaluating guide's diff recipe."""
    text = (REPO / "docs" / "guides" / "evaluating.md").read_text(encoding="utf-8")
    ours = re.search(r"^citeval eval run\.trec .* > ours\.txt$", text, flags=re.M).group(0)
    theirs = re.search(r"^trec_eval -c -q .* > theirs\.txt$", text, flags=re.M).group(0)
    return ours, theirs


def test_the_readme_diff_recipe_prints_no_difference(tmp_path, trec_eval_binary):
    shutil.copy(REPO / "examples" / "run.trec", tmp_path / "run.trec")
    shutil.copy(REPO / "examples" / "qrels.txt", tmp_path / "qrels.txt")
    ours, theirs = readme_recipe()
    theirs = theirs.replace("trec_eval", str(trec_eval_binary), 1)
    for command in (ours, theirs):
        subprocess.run(command, shell=True, cwd=tmp_path, check=True)
    assert (tmp_path / "ours.txt").read_text() == (tmp_path / "theirs.txt").read_text()
