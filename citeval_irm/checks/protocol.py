"""Protocol validation: does a run only rank what the evaluation protocol allows?

A citation recommender may not recommend a paper published after the query paper (the 2026
temporal protocol), nor the query's own citing paper (HAtten removes it; the MasterSet
recipe does too), nor anything outside the dataset's candidate pool; and it should rank
exactly the dataset's queries. Evaluation does not notice any of this: a run that breaks
the rules simply scores higher. :func:`validate` checks every (query, doc) pair of a run
against the dataset, vectorised, and counts each kind of violation with examples. It also
checks that every ranking reaches the deepest cut-off it will be evaluated at (a 100-deep
run has no R@300 to report), with the one depth check of :mod:`citeval_irm.evaluation.depth`.

The year rule is the one of :func:`citeval_irm.datasets.admissible_candidates` (same-year
papers an explicit choice); a query or doc without a year cannot break it and is counted in
the report's warnings.

``gold_always_present`` asks whether the gold paper was inserted into the candidates
before reranking (an oracle first stage): the rule (:func:`oracle_verdict`, on counts) reads
only the rankings of queries with gold that cover at most :data:`ORACLE_MAX_COVERAGE` of
their admissible pool, and flags the run when so few of them miss their gold that an honest
first stage would hardly do it (a one-sided binomial test).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import pandas as pd

from ..base.errors import ArgumentTypeError, EvalWarning, InputError
from ..base.measures import Measure, Protocol
from ..base.options import EvalOptions, ExecutionOptions, boolean, options_from
from ..evaluation.depth import short_rankings
from ..evaluation.results import RankedQueries
from ..papers import PROTOCOLS
from ..printing.escaping import plain_text
from ..printing.printable import Printable, file_name
from ..reading.io import KEEP_ALL, as_dataset, repeated_rows

# --------------------------------------------------------------------------- the report


CHECKS: dict[str, str] = {
    "later_paper": "candidate published after the query paper",
    "query_paper": "the query's own (citing) paper ranked for it",
    "unknown_doc": "candidate that is not a doc of the dataset",
    "duplicate_doc": "(query, doc) pair listed more than once",
    "unknown_query": "run query that is not a query of the dataset",
    "missing_query": "dataset query with no ranking in the run",
    "short_ranking": "ranking shorter than the deepest cut-off evaluated",
    "gold_always_present": "a gold paper in nearly every ranking that could miss it (inserted?)",
}
"""The checks, in report order: four on (query, doc) pairs, four on queries."""

WARNING_CHECKS = ("gold_always_present",)
"""Checks that are warnings, and violations only with ``strict=True``."""

PAIR_CHECKS = ("later_paper", "query_paper", "unknown_doc", "duplicate_doc")
_EXAMPLES = 5
_TABLE_EXAMPLES = 3


@dataclass(repr=False)
class ValidationReport(Printable):
    """What :func:`~citeval_irm.checks.protocol.validate` found.

    ``checks``: one row per check (``check``, ``description``, ``pairs``: violating run rows,
    ``queries``: queries affected, ``examples``). ``violations``: every violating run row
    (``query_id``, ``doc_id``, ``score``, ``check``); query-level checks have an empty
    ``doc_id``. ``warnings``: what could not be checked (queries or docs without a year).
    ``depth``: the deepest cut-off every ranking must reach (``None``: none was checked).
    ``ceiling``: the recall ceiling under these rules (:func:`citeval_irm.checks.audit.
    recall_ceiling`: the best mean R@K any run can score, at the cut-offs of the recall
    measures evaluated), printed beside the result when below 100 %.
    """

    dataset: str
    run_source: str
    same_year: bool
    num_queries: int
    num_docs: int
    run_rows: int
    checks: pd.DataFrame
    violations: pd.DataFrame
    warnings: list[EvalWarning] = field(default_factory=list)
    depth: int | None = None
    ceiling: dict[str, float] = field(default_factory=dict)

    @property
    def oracle_warning(self) -> EvalWarning | None:
        """The ``gold_always_present`` warning, when the run holds the gold in nearly every
        ranking that could miss it (an oracle first stage?); ``None`` otherwise: what every
        table and report showing the run marks it by."""
        return next((w for w in self.warnings if w.code == "gold_always_present"), None)

    def _summary(self) -> dict[str, object]:
        return {
            "run": file_name(self.run_source),
            "dataset": self.dataset,
            "queries": self.num_queries,
            "passed": self.passed,
            "violations": len(self.violations),
            "warnings": len(self.warnings),
        }

    def ceiling_line(self) -> str | None:
        """``recall ceiling under this protocol (...): R@10 <= 96.42 %``, or ``None`` at
        100 %."""
        from .audit import ceiling_line

        return ceiling_line(self.ceiling)

    def to_frame(self) -> pd.DataFrame:
        """One row per check of the protocol (``check``, its count of pairs or queries,
        examples). The offending pairs, one row each: :attr:`violations`."""
        return self.checks.copy()

    @property
    def passed(self) -> bool:
        """True when no check found anything."""
        return self.violations.empty

    def count(self, check: str) -> int:
        """Violations of one check: run rows for pair checks, queries for query checks."""
        row = self.checks.set_index("check").loc[check]
        return int(row["queries"] if check not in PAIR_CHECKS else row["pairs"])

    def per_query(self) -> pd.DataFrame:
        """Violations per query (rows) and check (columns), only queries with one."""
        if self.violations.empty:
            return pd.DataFrame(columns=list(CHECKS), dtype=int)
        table = pd.crosstab(self.violations["query_id"], self.violations["check"])
        return table.reindex(columns=[c for c in CHECKS if c in table.columns])

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "run": file_name(self.run_source),
            "same_year": self.same_year,
            "dataset_queries": self.num_queries,
            "dataset_docs": self.num_docs,
            "run_rows": self.run_rows,
            "depth": self.depth,
            "recall_ceiling": self.ceiling,
            "passed": self.passed,
            "checks": [
                {**row, "examples": [list(e) for e in row["examples"]]}
                for row in self.checks.to_dict(orient="records")
            ],
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def _render(self, fmt: str) -> str:
        """The table for a terminal."""
        policy = "admitted" if self.same_year else "not admitted"
        lines = [
            plain_text(
                f"validation: run {self.run_source} against {self.dataset} "
                f"({self.num_queries:,} queries, {self.num_docs:,} docs, {self.run_rows:,} run "
                f"rows; same-year papers {policy})"
            )
        ]
        width = max(len(c) for c in CHECKS)
        lines.append(f"  {'check':<{width}}  {'pairs':>8}  {'queries':>8}  examples")
        for row in self.checks.itertuples():
            pairs = f"{row.pairs:,}" if row.check in PAIR_CHECKS else "-"
            shown = row.examples[:_TABLE_EXAMPLES]
            examples = plain_text(", ".join(f"{q} -> {d}" if d else q for q, d in shown))
            examples += ", ..." if row.queries > len(shown) else ""
            lines.append(
                f"  {row.check:<{width}}  {pairs:>8}  {row.queries:>8,}  {examples}".rstrip()
            )
        for row in self.checks[self.checks["queries"] > 0].itertuples():
            lines.append(f"  {row.check}: {row.description}")
        lines.extend(f"  warning: {plain_text(str(w))}" for w in self.warnings)
        if self.ceiling_line():
            lines.append(f"  {self.ceiling_line()}")
        if self.passed:
            lines.append("result: the run obeys the protocol")
        else:
            failed = self.checks[self.checks["queries"] > 0]["check"].tolist()
            lines.append(f"result: VIOLATIONS ({', '.join(failed)})")
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """One line: passed, or which checks failed and how often (``citeval eval
        --dataset`` prints it above the scores)."""
        policy = "admitted" if self.same_year else "not admitted"
        flagged = "".join(
            f"; warning: {w.code} ({w.count:,} queries)"
            for w in self.warnings
            if w.code in WARNING_CHECKS
        ) + (f"; {self.ceiling_line()}" if self.ceiling_line() else "")
        if self.passed:
            return (
                f"validation against {self.dataset}: passed ({len(CHECKS)} checks, same-year "
                f"papers {policy}){flagged}"
            )
        failed = []
        for row in self.checks[self.checks["queries"] > 0].itertuples():
            queries = f"{row.queries:,} {'query' if row.queries == 1 else 'queries'}"
            failed.append(
                f"{row.check} ({row.pairs:,} pairs in {queries})"
                if row.check in PAIR_CHECKS
                else f"{row.check} ({queries})"
            )
        return (
            f"validation against {self.dataset}: VIOLATIONS: {', '.join(failed)} "
            f"(details: citeval validate){flagged}"
        )


def check_table(violations: pd.DataFrame, descriptions: dict[str, str]) -> pd.DataFrame:
    """One row per check, in report order: its description (``descriptions``' where given),
    the violating pairs (pair checks) and queries, and examples (one pair for each of the
    first queries)."""
    rows = []
    for check, description in CHECKS.items():
        description = descriptions.get(check, description)
        hits = violations[violations["check"] == check]
        head = hits.drop_duplicates("query_id").head(_EXAMPLES)  # one pair per query
        rows.append(
            {
                "check": check,
                "description": description,
                "pairs": len(hits) if check in PAIR_CHECKS else 0,
                "queries": int(hits["query_id"].nunique()),
                "examples": list(zip(head["query_id"], head["doc_id"])),
            }
        )
    return pd.DataFrame(rows, columns=["check", "description", "pairs", "queries", "examples"])


# --------------------------------------------------------------------------- oracle insertion


ORACLE_MAX_COVERAGE = 0.5
"""``gold_always_present`` reads only the rankings that cover at most this share of their
query's admissible pool: a ranking of most of the pool holds the gold whoever made it (an
honest BM25 ranking of 99 % of the demo's pool holds it for 162 of 163 queries)."""

ORACLE_MAX_MISSED = 0.01
"""... and flags a run only when at most this share of those rankings miss their gold ..."""

ORACLE_HONEST_MISS = 0.05
ORACLE_ALPHA = 0.01
"""... and when so few misses would come with probability below ``ORACLE_ALPHA`` from an
honest first stage that misses the gold of ``ORACLE_HONEST_MISS`` of such rankings (one-sided
binomial test): with no miss at all that takes at least 90 rankings (0.95**90 < 0.01); of
163, one miss is flagged (p = 0.002) and two are not (p = 0.011)."""


@dataclass(frozen=True)
class OracleVerdict:
    """What ``gold_always_present`` found: ``rankings`` (of queries with gold, covering at most
    :data:`ORACLE_MAX_COVERAGE` of their admissible pool), how many of them ``missed`` their
    gold, the binomial ``pvalue`` of so few misses from an honest first stage, and whether
    the run is ``flagged``."""

    rankings: int
    missed: int
    pvalue: float
    flagged: bool


def oracle_verdict(rankings: int, missed: int) -> OracleVerdict:
    """The rule of ``gold_always_present``, on counts: flagged when at most
    :data:`ORACLE_MAX_MISSED` of ``rankings`` missed their gold and the one-sided binomial
    p-value of ``missed`` or fewer misses, for an honest first stage that misses
    :data:`ORACLE_HONEST_MISS` of them, is below :data:`ORACLE_ALPHA`.

    Parameters
    ----------
    rankings : int
        Rankings of queries with a gold paper that cover at most
        :data:`ORACLE_MAX_COVERAGE` of their admissible pool.
    missed : int
        How many of them hold no gold paper.

    Returns
    -------
    OracleVerdict

    Examples
    --------
    >>> oracle_verdict(163, 1).flagged, oracle_verdict(163, 2).flagged
    (True, False)
    >>> oracle_verdict(60, 0).flagged  # 0.95**60 = 0.046: too few rankings to tell
    False
    """
    from scipy.stats import binom

    if rankings <= 0:
        return OracleVerdict(0, 0, 1.0, False)
    pvalue = float(binom.cdf(missed, rankings, ORACLE_HONEST_MISS))
    flagged = missed <= ORACLE_MAX_MISSED * rankings and pvalue < ORACLE_ALPHA
    return OracleVerdict(rankings, missed, pvalue, flagged)


def oracle_check(
    ranked: RankedQueries, allowed, gold: pd.MultiIndex, found: pd.Index
) -> tuple[pd.Index, EvalWarning | None]:
    """``gold_always_present``: the queries whose ranking could miss their gold (it covers at
    most :data:`ORACLE_MAX_COVERAGE` of their admissible pool) and holds one, and the warning
    when :func:`oracle_verdict` flags the run."""
    sizes = pd.Series(ranked.sizes, index=pd.Index(ranked.query_ids))
    with_gold = sizes.index.intersection(pd.Index(gold.get_level_values(0).unique()))
    pool = allowed.pool_sizes().reindex(with_gold)
    coverage = sizes.reindex(with_gold).to_numpy() / pool.to_numpy(dtype=float)
    could_miss = with_gold[np.nan_to_num(coverage, nan=np.inf) <= ORACLE_MAX_COVERAGE]
    present = could_miss.intersection(found)
    verdict = oracle_verdict(len(could_miss), len(could_miss) - len(present))
    if not verdict.flagged:
        return present[:0], None
    message = (
        f"a gold paper is ranked for {len(present):,} of the {verdict.rankings:,} queries whose "
        f"ranking covers at most {ORACLE_MAX_COVERAGE:.0%} of their candidate pool "
        f"({verdict.missed:,} missed; an honest first stage misses more, binomial "
        f"p = {verdict.pvalue:.2g}): was the gold inserted into the candidates (oracle first "
        "stage)?"
    )
    return present, EvalWarning("gold_always_present", message, len(present))


def oracle_rule(strict: bool) -> str:
    """What ``gold_always_present`` means, and whether it counts as a violation."""
    kind = "a violation (strict)" if strict else "a warning; a violation with --strict"
    return (
        f"of the rankings covering at most {ORACLE_MAX_COVERAGE:.0%} of their candidate pool, "
        f"at most {ORACLE_MAX_MISSED:.0%} miss their gold, fewer than an honest first stage "
        f"missing {ORACLE_HONEST_MISS:.0%} would (binomial p < {ORACLE_ALPHA}) ({kind})"
    )


# --------------------------------------------------------------------------- the verb


_FLAGGED = ("unknown_doc", "query_paper", "later_paper", "duplicate_doc")  # violations' order
_VIOLATION_COLUMNS = ["query_id", "doc_id", "score", "check"]

if TYPE_CHECKING:
    from .crosscheck import RunInput


def _not_a_dataset(dataset: object) -> NoReturn:
    """The error for a ``dataset`` argument that names no ir_datasets dataset."""
    if isinstance(dataset, str):
        raise InputError(dataset, "is not an ir_datasets dataset id (such as 'citeval/demo/test')")
    raise ArgumentTypeError(
        None,
        "dataset: expected an ir_datasets dataset or its id (such as 'citeval/demo/test'), "
        f"not {type(dataset).__name__}",
    )


def validate(
    run: RunInput,
    dataset: str | Any,  # or an ir_datasets dataset (the library ships no types)
    measures: str | Measure | Iterable | None = None,
    *,
    protocol: str | Protocol | None = None,
    same_year: bool = True,
    unknown_year: str = "admit",
    strict: bool = False,
    options: EvalOptions | None = None,
    execution: ExecutionOptions | None = None,
) -> ValidationReport:
    """Check every (query, doc) pair of a run against a dataset's protocol.

    A run that ranks a paper published after the query paper, the query paper itself, or
    too few docs for the measures' cut-offs gives numbers no paper can be compared with; the
    report counts each violation, by query.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        Any run form :func:`citeval_irm.read_run` reads (repeated pairs are kept and reported,
        not an error).
    dataset : str or ir_datasets dataset
        An ir_datasets dataset or id with docs and queries that carry years and the citing
        paper (``"citeval/acl-200/test"``, ``"citeval/demo/test"``).
    measures : str, Measure or iterable, optional
        What the run will be evaluated with: every ranking must reach their deepest cut-off
        (``short_ranking``). Default: the protocol's.
    protocol : str or Protocol, optional
        Default: the dataset's own (``goyal2026`` for the HAtten-format corpora and the demo,
        ``masterset2026`` for MasterSet).
    same_year : bool, default True
        Whether papers of the query paper's own year are allowed (as on the command line and
        in :func:`~citeval_irm.bm25_run`).
    unknown_year : {"admit", "exclude"}, default "admit"
        What happens to docs without a year.
    strict : bool, default False
        Make the oracle-insertion warning a violation. ``gold_always_present`` (a pipeline
        that puts the gold paper into the candidates before reranking) reads the rankings of
        queries with a gold paper that cover at most :data:`ORACLE_MAX_COVERAGE` of their
        admissible pool and warns, with the counts, when :func:`oracle_verdict` finds too few
        of them missing their gold for an honest first stage; ``strict=True`` makes the
        queries that hold one violations.
    options : EvalOptions, optional
        ``max_docs`` (the depth check reads the rankings so cut; every pair is still
        checked, as submitted), as in :func:`citeval_irm.evaluate`.
    execution : ExecutionOptions, optional
        ``memory`` (a run file larger than it allows is checked a chunk of whole queries at a
        time, with the same report) and ``progress``, as in :func:`citeval_irm.evaluate`.

    Returns
    -------
    ValidationReport
        ``passed``, the violations by check and query, and the warnings.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> report = citeval_irm.validate(run, "citeval/demo/test")
    >>> report.passed  # doctest: +SKIP
    True
    """
    from ..datasets import admissible_candidates

    same_year, strict = boolean("same_year", same_year), boolean("strict", strict)
    options, execution = options_from(
        "validate", (options, EvalOptions), (execution, ExecutionOptions)
    )
    name, data = _dataset_of(dataset)
    allowed = admissible_candidates(data, same_year=same_year, unknown_year=unknown_year)
    gold = _gold_pairs(data)
    source, pieces, ranked, run_rows, found_gold = _checked_pairs(
        run, allowed, gold, options.max_docs, execution
    )
    queries = allowed.queries
    depth_measures = _depth_measures(measures, protocol, data)
    depth = _deepest(depth_measures)
    at_depth = [m for m in depth_measures if depth and m.params.get("cutoff") == depth]
    short = short_rankings(ranked, at_depth, list(queries.index))
    deepest = short[0] if short else None
    oracle_queries, oracle_warning = oracle_check(ranked, allowed, gold, found_gold)
    violations = _violations(
        pieces, _query_checks(ranked, queries, deepest, oracle_queries if strict else [])
    )
    descriptions = {
        "later_paper": _later_paper_rule(same_year, unknown_year),
        "short_ranking": _depth_rule(at_depth, deepest),
        "gold_always_present": oracle_rule(strict),
    }
    return ValidationReport(
        dataset=name,
        run_source=source,
        same_year=same_year,
        num_queries=len(queries),
        num_docs=allowed.doc_count,
        run_rows=run_rows,
        checks=check_table(violations, descriptions),
        violations=violations,
        warnings=list(allowed.warnings) + ([oracle_warning] if oracle_warning else []),
        depth=depth,
        ceiling=_ceiling(allowed, gold, depth_measures),
    )


def _dataset_of(dataset) -> tuple[str, object]:
    """The name and the ir_datasets dataset ``dataset`` names; an error if it names none."""
    found = as_dataset(dataset)
    if found is None:
        _not_a_dataset(dataset)
    return found


def _checked_pairs(
    run, allowed, gold: pd.MultiIndex, max_docs: int | None, execution: ExecutionOptions
) -> tuple[str, list[pd.DataFrame], RankedQueries, int, pd.Index]:
    """The pair checks of the whole run, read in chunks of whole queries: where it was read
    from, each check's violating rows in run order (the checks in report order, as from one
    table), its rankings' lengths (cut at ``max_docs``), its number of rows, and the queries
    that rank a gold paper."""
    from ..reading.sources import read_in_chunks

    read = read_in_chunks(
        run,
        functools.partial(_pair_checks, allowed=allowed, gold=gold),
        duplicates=KEEP_ALL,
        memory=execution.memory,
        progress=execution.progress,
        label="citeval: validating the run",
    )
    checked = read.results
    pieces = [piece for check in _FLAGGED for part in checked for piece in part[0][check]]
    ranked = RankedQueries(
        [q for part in checked for q in part[1].query_ids],
        np.concatenate([part[1].sizes for part in checked]) if checked else np.zeros(0, int),
    ).cut(max_docs)
    run_rows = sum(part[2] for part in checked)
    found_gold = pd.Index([q for part in checked for q in part[3]])
    return read.source, pieces, ranked, run_rows, found_gold


def _query_checks(ranked: RankedQueries, queries: pd.DataFrame, deepest, oracle) -> dict:
    """The queries each query check flags, in report order: run queries the dataset lacks,
    dataset queries the run lacks, rankings short of the deepest cut-off, and (``oracle``)
    those of ``gold_always_present`` when it is a violation."""
    run_queries = pd.Index(ranked.query_ids)
    return {
        "unknown_query": run_queries.difference(queries.index, sort=False),
        "missing_query": queries.index.difference(run_queries, sort=False),
        "short_ranking": deepest.query_ids if deepest else [],
        "gold_always_present": oracle,
    }


def _violations(pieces: list[pd.DataFrame], query_checks: dict) -> pd.DataFrame:
    """Every violating run row: the pair checks' rows, then one row (without a doc) per
    query of each query check."""
    pieces = list(pieces)
    for check, ids in query_checks.items():
        if len(ids):
            pieces.append(
                pd.DataFrame({"query_id": list(ids), "doc_id": "", "score": np.nan, "check": check})
            )
    if not pieces:
        return pd.DataFrame(columns=_VIOLATION_COLUMNS)
    return pd.concat(pieces, ignore_index=True)[_VIOLATION_COLUMNS]


def _ceiling(allowed, gold: pd.MultiIndex, measures) -> dict[str, float]:
    """The recall ceiling (:func:`citeval_irm.checks.audit.recall_ceiling`) under the rules
    this validation checks: a gold paper is reachable when a run may rank it for its query
    (the year rule, not the citing paper, in the dataset)."""
    from .audit import measure_cutoffs, recall_ceiling

    queries = gold.get_level_values(0)
    known = queries.isin(allowed.queries.index)
    reachable = allowed.mask(queries[known], gold.get_level_values(1)[known])
    counts = pd.DataFrame({"query": queries[known], "ok": reachable})
    counts = counts.groupby("query", sort=False)["ok"].agg(["sum", "size"])
    return recall_ceiling(
        counts["sum"].to_dict(), counts["size"].to_dict(), measure_cutoffs(measures)
    )


def _pair_checks(
    table, allowed, gold: pd.MultiIndex
) -> tuple[dict[str, list[pd.DataFrame]], RankedQueries, int, np.ndarray]:
    """The pair checks of a run (or of a chunk of whole queries of one): the violating rows
    per check, the run's queries and their ranking lengths, its number of rows, and the
    queries that rank a gold paper."""
    frame = table.frame
    queries = allowed.queries
    known_query = frame["query_id"].isin(queries.index).to_numpy()
    known_docs = allowed.doc_positions(frame["doc_id"]) >= 0  # of every row, any query's
    pairs = frame[known_query]
    admissible = allowed.mask(pairs["query_id"], pairs["doc_id"])
    known_doc = known_docs[known_query]
    citing = queries["citing_id"].reindex(pairs["query_id"]).to_numpy()
    own_paper = pairs["doc_id"].to_numpy() == citing

    rows = np.flatnonzero(known_query)
    flagged = {
        "unknown_doc": np.flatnonzero(~known_docs),
        "query_paper": rows[known_doc & own_paper],
        "later_paper": rows[known_doc & ~own_paper & ~admissible],
        "duplicate_doc": repeated_rows(table),
    }
    pieces = {
        check: [frame.iloc[positions].assign(check=check)] if len(positions) else []
        for check, positions in flagged.items()
    }
    is_gold = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]]).isin(gold)
    with_gold = frame["query_id"].to_numpy()[is_gold]
    return pieces, RankedQueries.of(table), len(frame), pd.unique(with_gold)


def _gold_pairs(dataset) -> pd.MultiIndex:
    """The dataset's (query, gold paper) pairs: qrels rows with a positive label."""
    from ..reading.io import read_qrels

    if not getattr(dataset, "has_qrels", lambda: False)():
        return pd.MultiIndex.from_arrays([[], []], names=["query_id", "doc_id"])
    frame = read_qrels(dataset).frame
    gold = frame[frame["relevance"] > 0]
    return pd.MultiIndex.from_frame(gold[["query_id", "doc_id"]])


def dataset_protocol(dataset) -> str | None:
    """The protocol a dataset documents as its own (``protocol`` in its ir_datasets
    documentation), if it names one this package knows."""
    documentation = getattr(dataset, "documentation", None)
    name = (documentation() or {}).get("protocol") if callable(documentation) else None
    return name if name in PROTOCOLS else None


def _depth_measures(measures, protocol, dataset) -> list:
    """The measures whose cut-offs the rankings must reach: those given, else the
    protocol's, else the dataset's own protocol's (none if it names none)."""
    from ..evaluation.evaluate import resolve_measures

    if measures is None and protocol is None:
        protocol = dataset_protocol(dataset)
        if protocol is None:
            return []
    return resolve_measures(measures, protocol)[0]


def _deepest(measures) -> int | None:
    cutoffs = [m.params["cutoff"] for m in measures if m.params.get("cutoff") is not None]
    return max(cutoffs) if cutoffs else None


def _depth_rule(at_depth: list, deepest) -> str:
    """What ``short_ranking`` means for the measures of the deepest cut-off (and what was
    found)."""
    if not at_depth:
        return "not checked: no measure with a cut-off (give measures or a protocol)"
    depth = at_depth[0].params["cutoff"]
    names = " ".join(str(m) for m in at_depth)
    rule = f"ranking shorter than {depth} docs, the deepest cut-off ({names})"
    return rule + (f": found {deepest.found()}" if deepest else "")


def _later_paper_rule(same_year: bool, unknown_year: str) -> str:
    """What ``later_paper`` means under the chosen year policies."""
    if same_year:
        rule = CHECKS["later_paper"]
    else:
        rule = (
            "candidate published in the query paper's year or later (same-year papers not admitted)"
        )
    if unknown_year == "exclude":
        rule += ", or undated (undated docs excluded)"
    return rule
