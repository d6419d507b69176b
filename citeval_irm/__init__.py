"""citeval-irm: trustworthy citation-recommendation evaluation.

>>> import citeval_irm
>>> result = citeval_irm.evaluate("run.trec", "qrels.txt", "RR R@10 nDCG@10")
>>> result.aggregate, result.per_query, result.warnings

Importing the package is cheap: each name below is imported on first use, and the
``citeval/...`` datasets are registered with ir_datasets as soon as ir_datasets itself is
imported (at once if it already is), so ``ir_datasets.load("citeval/acl-200/test")`` works
after ``import citeval_irm`` without every command paying for ir_datasets; the scoring core
is registered with ir-measures the same way (``ir_measures.citeval``).

The module's namespace is its public API: ``dir(citeval_irm)`` and ``help(citeval_irm)``
list :data:`__all__` and ``__version__`` only: the verbs, what they return, the options
they take and the errors a user catches. What this file needs for itself has a leading
underscore; the names kept one release under an old spelling (``as_run``, ``as_qrels``) and
the subpackages (``citeval_irm.datasets``, ``citeval_irm.scoring``) are reached by name but
not listed.
"""

import sys as _sys
import types as _types
import typing as _typing
from importlib import import_module as _import_module

from .base.hooks import after_import as _after_import

__version__ = "0.1.0"

# public name -> the module that defines it: the verbs, the objects they return, the
# registries of papers, and the errors a user catches. Everything else lives in submodules
# (citeval_irm.papers.recipes.Quirks, citeval_irm.reading.ties.rank_run,
# citeval_irm.scoring.tieaware, ...).
_EXPORTS = {
    # verbs
    "evaluate": "evaluation.evaluate",
    "crosscheck": "checks.crosscheck",
    "validate": "checks.protocol",
    "audit": "checks.audit",
    "compare": "comparison.compare",
    "compare_published": "comparison.published_rows",
    "breakdown": "comparison.breakdown",
    "results_table": "comparison.results_table",
    "resolve": "resolving.resolve",
    "published": "checks.published.listing",
    "check_published": "checks.published.check",
    "make_report": "report",
    "bm25_run": "papers.baseline",
    "read_run": "reading.io",
    "read_qrels": "reading.io",
    "as_run": "reading.io",
    "as_qrels": "reading.io",
    "write_run": "reading.io",
    "convert": "reading.convert",
    "Converted": "reading.convert",
    "parse_measures": "base.measures",
    # how they evaluate and compare
    "EvalOptions": "base.options",
    "ExecutionOptions": "base.options",
    "StatisticsOptions": "base.options",
    # what they return
    "EvalResult": "evaluation.results",
    "CrosscheckReport": "checks.crosscheck_report",
    "ValidationReport": "checks.protocol",
    "DatasetAudit": "checks.audit",
    "Comparison": "comparison.model",
    "Breakdown": "comparison.breakdown_result",
    "ResultsTable": "comparison.results_table",
    "Resolution": "resolving.result",
    "PublishedResults": "checks.published.listing",
    "PublishedComparison": "checks.published.comparison",
    "PublishedCheck": "checks.published.check",
    "Report": "report",
    "Computed": "report",
    "Run": "reading.tables",
    "Qrels": "reading.tables",
    # the papers
    "PROTOCOLS": "papers",
    "RECIPES": "papers",
    "Protocol": "base.measures",
    "Recipe": "papers.recipes",
    # errors and warnings
    "CitevalError": "base.errors",
    "InputError": "base.errors",
    "UnknownDatasetError": "base.errors",
    "EvalWarning": "base.errors",
    "VerificationError": "evaluation.engines",
    "DownloadError": "base.downloads",
    "ChecksumError": "base.downloads",
    "DataNotFoundError": "datasets.sources",
    # subpackages
    "datasets": None,
    "scoring": None,
}

_UNLISTED = ("as_run", "as_qrels", "datasets", "scoring")  # reached by name, not listed

__all__ = sorted(set(_EXPORTS) - set(_UNLISTED))


def __getattr__(name: str) -> _typing.Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'citeval_irm' has no attribute {name!r}")
    module_name = _EXPORTS[name]
    if module_name is None:
        value = _import_module(f".{name}", __name__)
    else:
        value = getattr(_import_module(f".{module_name}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names only (as scipy's ``dir`` does): not the subpackages imported so far
    (``base``, ``printing``), nor this file's own helpers."""
    return sorted([*__all__, "__version__"])


class _Package(_types.ModuleType):
    """This package's module type: a submodule named like the function it defines
    (``crosscheck``) does not replace that function as the package's attribute when it is
    imported (as the import system would do to a lazily loaded package)."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, _types.ModuleType) and _EXPORTS.get(name):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


def _register_datasets() -> None:
    _import_module(".datasets", __name__)
    # ir_datasets' loggers write the datasets' ids to standard error: escaped as any output
    _import_module(".printing.escaping", __name__).escape_log_lines()


def _register_provider() -> None:
    # importing the provider registers it, at the end of its module: when ir-measures is
    # imported by one of our own modules half-way through its import (the provider's, the
    # measure table's), the provider is registered once that import completes
    _import_module(".evaluation.provider", __name__)


_after_import("ir_datasets", _register_datasets)
_after_import("ir_measures", _register_provider)

if _typing.TYPE_CHECKING:  # for type checkers and IDEs: the names __getattr__ provides
    from . import datasets, scoring  # noqa: F401
    from .base.downloads import ChecksumError, DownloadError  # noqa: F401
    from .base.errors import CitevalError, EvalWarning, InputError, UnknownDatasetError  # noqa: F401
    from .base.measures import Protocol, parse_measures  # noqa: F401
    from .base.options import EvalOptions, ExecutionOptions, StatisticsOptions  # noqa: F401
    from .checks.audit import DatasetAudit, audit  # noqa: F401
    from .checks.crosscheck import crosscheck  # noqa: F401
    from .checks.crosscheck_report import CrosscheckReport  # noqa: F401
    from .checks.protocol import ValidationReport, validate  # noqa: F401
    from .checks.published.check import PublishedCheck, check_published  # noqa: F401
    from .checks.published.comparison import PublishedComparison  # noqa: F401
    from .checks.published.listing import PublishedResults, published  # noqa: F401
    from .comparison.breakdown import breakdown  # noqa: F401
    from .comparison.breakdown_result import Breakdown  # noqa: F401
    from .comparison.compare import compare  # noqa: F401
    from .comparison.model import Comparison  # noqa: F401
    from .comparison.published_rows import compare_published  # noqa: F401
    from .comparison.results_table import ResultsTable, results_table  # noqa: F401
    from .datasets.sources import DataNotFoundError  # noqa: F401
    from .evaluation.engines import VerificationError  # noqa: F401
    from .evaluation.evaluate import evaluate  # noqa: F401
    from .evaluation.results import EvalResult  # noqa: F401
    from .papers import PROTOCOLS, RECIPES  # noqa: F401
    from .papers.baseline import bm25_run  # noqa: F401
    from .papers.recipes import Recipe  # noqa: F401
    from .reading.convert import Converted, convert  # noqa: F401
    from .reading.io import as_qrels, as_run, read_qrels, read_run, write_run  # noqa: F401
    from .reading.tables import Qrels, Run  # noqa: F401
    from .report import Computed, Report, make_report  # noqa: F401
    from .resolving.resolve import resolve  # noqa: F401
    from .resolving.result import Resolution  # noqa: F401
