"""The public API: verbs, the objects they return, the papers, the errors a user catches;
``import citeval_irm`` itself imports nothing heavy."""

from __future__ import annotations

import subprocess
import sys

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
