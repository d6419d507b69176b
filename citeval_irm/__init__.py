"""citeval-irm: trustworthy citation-recommendation evaluation.

>>> import citeval_irm
>>> result = citeval_irm.evaluate("run.trec", "qrels.txt", "RR R@10 nDCG@10")
>>> result.aggregate, result.per_query, result.warnings
"""

from . import datasets  # noqa: F401 (registers the citeval/... datasets with ir_datasets)
from .baseline import bm25_run
from .compare import compare
from .comparison import CompareSettings, Comparison
from .crosscheck import CAUSES, CrosscheckReport, crosscheck
from .errors import CitevalError, EvalWarning, InputError
from .evaluation import evaluate
from .io import as_qrels, as_run, read_qrels, read_run, write_run
from .measures import GOYAL2026, MASTERSET2026, PROTOCOLS, Protocol, parse_measures
from .protocol import ValidationReport, validate
from .published import PublishedComparison, PublishedResults, published
from .recipes import RECIPES, Quirks, Recipe
from .results import EvalResult
from .tables import Qrels, Run
from .tieaware import TieRange, tie_ranges
from .ties import TIE_POLICIES, TieReport, rank_run

__version__ = "0.1.0"

__all__ = [
    "CAUSES",
    "GOYAL2026",
    "MASTERSET2026",
    "PROTOCOLS",
    "RECIPES",
    "TIE_POLICIES",
    "CitevalError",
    "CompareSettings",
    "Comparison",
    "CrosscheckReport",
    "EvalResult",
    "EvalWarning",
    "InputError",
    "Protocol",
    "PublishedComparison",
    "PublishedResults",
    "Qrels",
    "Quirks",
    "Recipe",
    "Run",
    "TieRange",
    "TieReport",
    "ValidationReport",
    "as_qrels",
    "as_run",
    "bm25_run",
    "compare",
    "crosscheck",
    "evaluate",
    "parse_measures",
    "published",
    "rank_run",
    "tie_ranges",
    "validate",
    "read_qrels",
    "read_run",
    "write_run",
]
