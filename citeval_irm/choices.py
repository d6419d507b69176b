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
ENGINES = ("citeval", "pytrec_eval")
UNKNOWN_YEAR_POLICIES = ("admit", "exclude")
DATE_PRECISIONS = ("year", "month")


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else an error that lists them."""
    if value not in choices:
        raise InputError(None, f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value
