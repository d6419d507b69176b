"""The documentation site builds with MkDocs in strict mode (a warning is an error: a broken
link or anchor, a page left out of the navigation, a docstring mkdocstrings cannot read), and
its generated reference covers what it is generated from: every public name, every
subcommand, every measure family, every corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.datasets.catalogue import COLLECTIONS
from citeval_irm.scoring.table import MEASURES

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {
        **os.environ,
        "IR_DATASETS_HOME": str(out.parent / "ir_datasets_home"),
        "NO_MKDOCS_2_WARNING": "1",  # a notice of a plugin's, not of this site
        "DISABLE_MKDOCS_2_WARNING": "true",
    }
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    return out


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_the_api_reference_documents_every_public_verb_and_result(site):
    html = page(site, "reference/api")
    for name, module in citeval_irm._EXPORTS.items():
        if module and name not in {"PROTOCOLS", "RECIPES"}:
            assert f'id="citeval_irm.{module}.{name}"' in html, name
    # Sphinx roles of the docstrings shown as the names they point to, not as ":class:"
    assert not re.search(r":(class|func|meth|mod|data|attr):<code>", html)
    assert "<code>EvalOptions</code>" in html


def test_the_cli_reference_is_the_parser_help_of_every_command(site):
    from citeval_irm.cli.parser import build_parser

    html = page(site, "reference/cli")
    for action in build_parser()._subparsers._group_actions:
        for name in action.choices:
            assert f"citeval {name}" in html, name


def test_the_measure_page_lists_every_family_and_each_corpus_has_a_page(site):
    html = page(site, "reference/measures")
    for name in MEASURES:
        assert f"<code>{name}</code>" in html, name
    for corpus in COLLECTIONS:
        text = page(site, f"reference/datasets/{corpus.name}")
        assert f"citeval/{corpus.name}" in text
        assert "Licence" in text or corpus.name == "demo"
