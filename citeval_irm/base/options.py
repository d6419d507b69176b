"""The options of an evaluation, of its execution and of a comparison's statistics: built
once, passed whole.

Each object holds one kind of option. :class:`EvalOptions` is what a number means (the tie
policy, duplicates, empty queries, trec_eval's ``-M``): part of every result, recorded in
it. :class:`ExecutionOptions` is how a number is computed (the engine, memory, a Dask
scheduler, processes, a progress bar): it never changes a number and never travels inside
a result. :class:`StatisticsOptions` is how runs are compared. How values are shown
(``percent``, ``decimals``) is no option object: it is given to a result's ``format()`` /
``to_frame()`` (and to a report's ``shown()``), and :func:`display_decimals` is the one
rule for the decimals. The objects are made once, from the command line (``cli``) or by the
caller (``options=EvalOptions(ties='run_order')``), and handed whole to ``evaluate``,
``validate``, ``crosscheck``, ``compare``, ``table``, ``breakdown`` and the report, so no
layer re-lists them. Every value is checked when the object is made, before any run is
read: a typo fails at once, not after the evaluations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal, overload

from .choices import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    DUPLICATE_POLICIES,
    EMPTY_QUERY_POLICIES,
    ENGINES,
    MAX_BOOTSTRAP,
    MAX_PERMUTATIONS,
    PRIMARY_TESTS,
    TIE_POLICIES,
    check_choice,
    correction_name,
)
from .errors import ArgumentTypeError, InputError

_UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


MAX_MEMORY = 2**63 - 1
"""The most bytes ``memory`` can be (8 EiB: sizes are 64-bit numbers)."""


def parse_memory(value: int | str) -> int:
    """Bytes from ``2G``, ``1.5GB``, ``500M``, ``64KiB`` or a number of bytes, more than 0
    and at most :data:`MAX_MEMORY`; an error naming the bound otherwise."""
    import numpy as np

    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        size = int(value)
    else:
        found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", str(value).lower())
        if not found:
            raise InputError(None, f"memory {value!r}: expected a size such as 2G, 500M or 64K")
        scaled = float(found.group(1)) * _UNITS[found.group(2)]  # inf for 400 digits
        size = int(scaled) if scaled < MAX_MEMORY else MAX_MEMORY + 1
    if size <= 0:
        raise InputError(None, f"memory {value!r}: must be more than 0")
    if size > MAX_MEMORY:
        raise InputError(None, f"memory {value!r}: must be at most 8 EiB (2**63 - 1 bytes)")
    return size


MAX_DOCS = 2**63 - 1
"""The largest ``max_docs``: a ranking's positions are 64-bit numbers (no run has more
docs in one ranking; a larger cut-off is no cut)."""


def check_max_docs(max_docs) -> int | None:
    """``max_docs`` if it is a whole number from 1 to :data:`MAX_DOCS` (or ``None``); a
    clear error, naming the bound, otherwise."""
    import numpy as np

    if max_docs is None:
        return None
    if isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer)):
        raise InputError(None, f"max_docs {max_docs!r}: must be a whole number from 1")
    if not 1 <= max_docs <= MAX_DOCS:
        raise InputError(
            None,
            f"max_docs {max_docs!r}: must be a whole number from 1 to {MAX_DOCS:,} (2**63 - 1)",
        )
    return int(max_docs)


def check_decimals(decimals: object) -> int | None:
    """``decimals`` if it is a whole number from 0 to 12 (or ``None``); a clear error
    otherwise."""
    if decimals is not None and (
        isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 12
    ):
        raise InputError(None, f"decimals {decimals!r}: must be a whole number, 0 to 12")
    return decimals


def display_decimals(percent: bool, protocol=None, decimals: int | None = None) -> int:
    """Decimals a value is printed with: ``decimals`` when given; the protocol's own when
    it is shown in the protocol's unit; else 2 in percent, 4 for fractions."""
    if decimals is not None:
        check_decimals(decimals)
        return decimals
    if protocol is not None and bool(percent) == bool(protocol.percent):
        return int(protocol.decimals)
    return 2 if percent else 4


def display_percent(percent: bool | None, protocol=None) -> bool:
    """Whether values print in percent: as asked, else in the protocol's unit."""
    if percent is not None:
        return bool(percent)
    return bool(protocol.percent) if protocol is not None else False


@dataclass(frozen=True)
class EvalOptions:
    """What a run's numbers mean: how it is read, ranked and which queries count.

    Every result records the options it was made with (``result.options``).

    Parameters
    ----------
    ties : {"trec_eval", "run_order"}, default "trec_eval"
        The tie policy: trec_eval's order of tied scores (doc id descending) or the run's.
    duplicates : {"error", "keep_best"}, default "error"
        What a repeated (query, doc) pair of a run is.
    empty_queries : {"zero", "skip"}, default "zero"
        Qrels queries without a relevant doc: scored 0 (trec_eval) or left out.
    max_docs : int, optional
        Only the first ``max_docs`` docs of each ranking count (trec_eval's ``-M``).

    Examples
    --------
    >>> import citeval_irm
    >>> citeval_irm.EvalOptions(ties="run_order")
    EvalOptions(ties='run_order', duplicates='error', empty_queries='zero', max_docs=None)
    """

    ties: str = "trec_eval"
    duplicates: str = "error"
    empty_queries: str = "zero"
    max_docs: int | None = None

    def __post_init__(self) -> None:
        check_choice("ties", self.ties, TIE_POLICIES)
        check_choice("duplicates", self.duplicates, DUPLICATE_POLICIES)
        check_choice("empty_queries", self.empty_queries, EMPTY_QUERY_POLICIES)
        object.__setattr__(self, "max_docs", check_max_docs(self.max_docs))


@dataclass(frozen=True)
class ExecutionOptions:
    """How numbers are computed, never what they are: the same run gives the same values
    with any of these; no result keeps them.

    Parameters
    ----------
    engine : {"citeval", "pytrec_eval", "dask"}, default "citeval"
        citeval's columnar kernels, trec_eval's code through pytrec_eval, or the kernels
        on the workers of a Dask cluster (``scheduler``).
    verify : bool, default False
        Compute with both engines; a per-query difference above 1e-9 is a
        :class:`~citeval_irm.VerificationError`.
    memory : int or str, optional
        What reading a run may take (bytes or ``"2G"``); a run file expected to need more
        is read in chunks of whole queries. Default: half of what is available.
    scheduler : str or distributed.Client, optional
        With ``engine="dask"``: the scheduler's address or a client (default: a local
        cluster).
    progress : bool, optional
        A progress bar on standard error (default: on a terminal, for long work).
    jobs : int, default 1
        Processes evaluating runs at once (a results table's manifest).

    Examples
    --------
    >>> import citeval_irm
    >>> citeval_irm.ExecutionOptions(memory="2G", progress=False).memory
    '2G'
    """

    engine: str = "citeval"
    verify: bool = False
    memory: int | str | None = None
    scheduler: Any = None
    progress: bool | None = None
    jobs: int = 1

    def __post_init__(self) -> None:
        check_choice("engine", self.engine, ENGINES)
        object.__setattr__(self, "verify", boolean("verify", self.verify))
        object.__setattr__(self, "progress", boolean("progress", self.progress, optional=True))
        if self.memory is not None:
            parse_memory(self.memory)
        object.__setattr__(self, "jobs", whole_number("jobs", self.jobs, 1))

    def for_worker(self) -> ExecutionOptions:
        """What each run of a fan-out is evaluated with, on the machine it lands on (a Dask
        worker evaluates with citeval's own engine): no scheduler, no progress bar, one
        process."""
        local = "citeval" if self.engine == "dask" else self.engine
        return replace(self, engine=local, scheduler=None, progress=False, jobs=1)


@dataclass(frozen=True)
class StatisticsOptions:
    """How runs are compared: the paired test, the correction over a family of tests, the
    significance level, the interval's confidence and the random draws (permutations,
    bootstrap resamples, seed)."""

    test: str = "randomisation"
    correction: str = "holm"
    alpha: float = 0.05
    confidence: float = 0.95
    permutations: int = DEFAULT_PERMUTATIONS
    bootstrap: int = DEFAULT_BOOTSTRAP
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        for name in ("test", "correction"):
            if not isinstance(getattr(self, name), str):
                raise ArgumentTypeError(None, _wrong_type(name, getattr(self, name), "a name"))
        check_choice("test", self.test, PRIMARY_TESTS)
        object.__setattr__(self, "correction", correction_name(self.correction))
        for name in ("alpha", "confidence"):
            object.__setattr__(self, name, fraction(name, getattr(self, name)))
        for name, most in (("permutations", MAX_PERMUTATIONS), ("bootstrap", MAX_BOOTSTRAP)):
            object.__setattr__(self, name, whole_number(name, getattr(self, name), 1, most))
        object.__setattr__(self, "seed", whole_number("the seed", self.seed, 0))


def _wrong_type(name: str, value, expected: str) -> str:
    return f"{name} must be {expected}, not {value!r} ({type(value).__name__})"


def _is_number(value) -> bool:
    import numbers

    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@overload
def boolean(name: str, value: object, *, optional: Literal[False] = False) -> bool: ...
@overload
def boolean(name: str, value: object, *, optional: bool) -> bool | None: ...
def boolean(name: str, value: object, *, optional: bool = False) -> bool | None:
    """``value`` as a bool (a numpy bool too; ``None`` where ``optional``: the default
    decides); anything else, ``"no"`` or ``0`` included, is a ``TypeError`` naming
    ``name``. A string would otherwise be taken for True whatever it says: ``"no"``,
    ``"false"``."""
    import numpy as np

    if value is None and optional:
        return None
    if not isinstance(value, (bool, np.bool_)):
        expected = "True, False or None" if optional else "True or False"
        raise ArgumentTypeError(None, _wrong_type(name, value, expected))
    return bool(value)


def fraction(name: str, value) -> float:
    """``value`` as a float strictly between 0 and 1 (a significance level, a confidence):
    a ``TypeError`` for what is not a number (``"0.05"``), an error naming ``name`` for a
    number outside (0, 1), NaN included."""
    if not _is_number(value):
        raise ArgumentTypeError(None, _wrong_type(name, value, "a number between 0 and 1"))
    if not 0 < value < 1:  # NaN fails too
        raise InputError(None, f"{name} must be between 0 and 1 (exclusive), not {value!r}")
    return float(value)


def whole_number(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int from ``minimum`` (to ``maximum``, when given: what the work it
    sizes can hold): a whole float (``1e4``) is taken, a fraction (``2.5``), an infinity,
    NaN or a number out of bounds is an error naming ``name`` and the bounds (never rounded
    nor clamped), what is not a number a ``TypeError``."""
    if not _is_number(value):
        raise ArgumentTypeError(
            None, _wrong_type(name, value, f"a whole number, {minimum} or more")
        )
    finite = value == value and value not in (float("inf"), float("-inf"))
    if not finite or int(value) != value or value < minimum:
        raise InputError(None, f"{name} must be a whole number, {minimum} or more, not {value!r}")
    if maximum is not None and value > maximum:
        raise InputError(
            None, f"{name} must be a whole number from {minimum} to {maximum:,}, not {value!r}"
        )
    return int(value)


def options_from(caller: str, *given) -> tuple:
    """The option objects of ``given`` (each ``(value, class)``: an :class:`EvalOptions`,
    an :class:`ExecutionOptions` or a :class:`StatisticsOptions`, or ``None`` for the
    defaults); anything else is an error naming the class ``caller`` expects."""
    built = []
    for value, kind in given:
        if value is not None and not isinstance(value, kind):
            raise InputError(
                None, f"{caller}: expected {kind.__name__}, got {type(value).__name__}"
            )
        built.append(value if value is not None else kind())
    return tuple(built)
