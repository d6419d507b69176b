"""The public API: verbs, the objects they return, the papers, the errors a user catches;
``import citeval_irm`` itself imports nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import citeval_irm


def test_every_public_name_resolves():
    for name in citeval_irm.__all__:
        assert getattr(citeval_irm, name) is not None, name
    assert callable(citeval_irm.crosscheck) and callable(citeval_irm.convert)  # not modules


def test_the_errors_a_user_catches_are_citeval_errors():
    for name in ("InputError", "UnknownDatasetError", "VerificationError", "DownloadError",
                 "ChecksumError", "DataNotFoundError"):  # fmt: skip
        assert issubclass(getattr(citeval_irm, name), citeval_irm.CitevalError), name
    assert issubclass(citeval_irm.EvalWarning, Warning)


def test_the_listing_is_verbs_results_options_and_errors():
    """What a signature names is listed (a report's ``Computed``, convert's ``Converted``, a
    cross-check's ``Recipe``); old spellings and subpackages are reached, not listed."""
    assert {"Computed", "Converted", "Recipe", "ExecutionOptions"} <= set(citeval_irm.__all__)
    for name in ("as_run", "as_qrels", "datasets", "scoring"):
        assert name not in citeval_irm.__all__ and name not in dir(citeval_irm)
    assert citeval_irm.Recipe is type(citeval_irm.RECIPES["goyal2026"])
    assert citeval_irm.scoring.__name__ == "citeval_irm.scoring"


def test_internals_stay_in_their_modules():
    for name in ("Quirks", "TieRange", "rank_run", "CAUSES", "TIE_POLICIES"):
        assert name not in citeval_irm.__all__


def test_importing_the_package_is_light():
    code = (
        "import sys, citeval_irm; "
        "print(sorted(m for m in ('pandas', 'numpy', 'pyarrow', 'ir_datasets', 'ir_measures', "
        "'scipy', 'matplotlib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_namespace_is_the_public_api():
    """``dir(citeval_irm)`` and ``help(citeval_irm)`` show the public names only: not the
    package's own helpers (``sys``, ``types``, ``importlib``, ``TYPE_CHECKING``,
    ``after_import``, ``annotations``), nor the subpackages imported so far (registering
    the datasets imports ``datasets``, ``base``, ``printing``)."""
    code = (
        "import json, pydoc, citeval_irm\n"
        "first = dir(citeval_irm)\n"
        "import ir_datasets\n"
        "text = pydoc.render_doc(citeval_irm, renderer=pydoc.plaintext)\n"
        "print(json.dumps({'first': first, 'then': dir(citeval_irm), 'all': citeval_irm.__all__,"
        " 'help': text}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout)
    public = sorted([*seen["all"], "__version__"])
    assert seen["first"] == seen["then"] == public
    names = {line.split("(")[0].split(" = ")[0].strip() for line in seen["help"].splitlines()}
    helpers = {"sys", "types", "importlib", "typing", "TYPE_CHECKING", "after_import",
               "annotations", "import_module"}  # fmt: skip
    assert not helpers & names, helpers & names
    assert {"evaluate", "PROTOCOLS", "class EvalResult", "class Computed"} <= names
    assert not {"as_run", "as_qrels"} & names
    assert seen["all"] == sorted(set(seen["all"]))  # __all__: each public name once
