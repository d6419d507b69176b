"""Any module of the package can be the first one imported: the measure table imports
ir-measures, whose import registers the provider, which reads the table, so the provider
reads it only when asked (a fresh interpreter per module, as a user's script starts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

FIRST = [
    "citeval_irm.scoring.table",
    "citeval_irm.scoring",
    "citeval_irm.base.families",
    "citeval_irm.base.measures",
    "citeval_irm.evaluation.provider",
    "citeval_irm.evaluation",
    "citeval_irm.cli",
]


@pytest.mark.slow
@pytest.mark.parametrize("module", FIRST)
def test_a_module_imported_first_leaves_the_provider_registered(module):
    code = (
        f"import {module}\n"
        "import ir_measures\n"
        "from ir_measures import RR\n"
        "assert RR in ir_measures.citeval.SUPPORTED_MEASURES or any(\n"
        "    m.NAME == 'RR' for m in ir_measures.citeval.SUPPORTED_MEASURES)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
