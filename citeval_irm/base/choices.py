"""Every closed set of options the package takes, and the one check of a choice.

Kept in a module of its own, with no heavy import, so the command line can offer them as
``choices`` without loading what implements them.
"""

from __future__ import annotations

from .errors import InputError

TIE_POLICIES = ("trec_eval", "run_order")
DUPLICATE_POLICIES = ("error", "keep_best")
KEEP_ALL = "keep_all"  # only for list-based recipes: every copy stays, as a script sees it
EMPTY_QUERY_POLICIES = ("zero", "skip")
ENGINES = ("citeval", "pytrec_eval", "dask")
UNKNOWN_YEAR_POLICIES = ("admit", "exclude")
DATE_PRECISIONS = ("year", "month")
TESTS = ("randomisation", "t", "wilcoxon", "sign")  # paired tests of two runs
PRIMARY_TESTS = (*TESTS, "tukey")  # the tests whose (corrected) p-values decide significance
CORRECTIONS = ("holm", "bonferroni", "bh", "none")  # for multiple comparisons
COMPARE_QUERY_POLICIES = ("common", "all")  # which queries runs are compared on
COMPARE_FORMATS = ("table", "csv", "json", "latex", "markdown")
EVAL_FORMATS = ("table", "csv", "json", "trec_eval", "latex", "markdown")  # EvalResult
PLAIN_FORMATS = ("table", "json")  # cross-checks and validations
LISTING_FORMATS = ("table", "markdown", "csv", "json")  # breakdowns, published results
TABLE_ENGINES = ("citeval", "dask")  # how citeval table evaluates its runs
DEFAULT_PERMUTATIONS = 10_000  # randomisation test and Tukey HSD
DEFAULT_BOOTSTRAP = 10_000  # resamples of the confidence interval
MAX_AUTO_PERMUTATIONS = 200_000  # the most permutations compare raises B to for a family
MAX_PERMUTATIONS = 10_000_000  # the most one may ask for: ~10 s a test of 200 queries
MAX_BOOTSTRAP = 1_000_000  # the most resamples: each one's mean is kept (8 bytes a test)
MAX_BINS = 100  # popularity bins: each is a group of queries, tested and printed
EXACT_WILCOXON_MAX = 100
"""Non-zero differences up to which Wilcoxon's p comes from the exact distribution (a
convolution over n(n+1) doubled mid-ranks: about 10 ms at 100); above, the normal
approximation with tie correction, which is close there (scipy's own exact limit is 50)."""
DEFAULT_SEED = 42
FACETS = ("year", "heading", "gold", "venue", "venue-year", "popularity")  # breakdown --by
TABLE_FORMATS = ("table", "markdown", "csv", "latex", "json")
# what commands warn about (EvalWarning.code): `--quiet-warning CODE` silences one on a
# terminal, warning_class(CODE) in Python; tests/test_warning_codes.py finds every code the
# package makes and fails on one missing here
WARNING_CODES = (
    "tied_scores",
    "run_only_queries",
    "missing_queries",
    "queries_without_relevant",
    "short_ranking",
    "duplicate_docs_dropped",
    "duplicate_docs_kept",
    "duplicate_judgements_dropped",
    "run_extra_text",
    "run_comment_lines",
    "qrels_comment_lines",
    "run_sorted",
    "different_queries",
    "unranked_queries",
    "unranked_queries_kept",
    "no_popularity",
    "permutations_raised",
    "permutations_too_few",
    "pool_unknown",
    "gold_always_present",
    "docs_without_year",
    "queries_without_year",
    "count_mismatch",
    "not_pinned",
    "env_folder_wins",
    "facet_unavailable",
    "unchecked_qrels",
    "empty_run",
    "queries_not_in_dataset",
    "reference_fields_ignored",
    "queries_without_value",
    "generated_lists",
    "catalogue_rows_without_title",
)
REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".md": "markdown"}  # report file -> format


CORRECTION_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "bonf": "bonferroni"}


def correction_name(method: str) -> str:
    """The canonical name of a correction (``fdr_bh`` and ``benjamini-hochberg`` are ``bh``)."""
    name = CORRECTION_ALIASES.get(method.lower(), method.lower())
    if name not in CORRECTIONS:
        raise InputError(
            None, f"unknown correction {method!r}; choose from {', '.join(CORRECTIONS)}"
        )
    return name


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else an error that lists them."""
    if value not in choices:
        raise InputError(None, f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value
