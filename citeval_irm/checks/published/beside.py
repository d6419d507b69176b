"""Runs beside a published table (:func:`beside_published`): the paper and its table
chosen, the runs' values in the table's unit, the like-for-like checks and the notes; and
the recipe of the script that scored a table (:func:`scoring_recipe`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ...base.errors import InputError
from ...base.measures import Protocol, parse_measures
from .comparison import PublishedComparison
from .consistency import impossible_rows, one_gold, row_bounds
from .like_for_like import dataset_checks, run_checks, scoring_check
from .listing import PublishedResults
from .tables import DEFAULT_STAGE, Paper, table_source


def beside_published(
    results: Mapping,
    facts: Mapping,
    dataset: str | None,
    *,
    protocol: Protocol | None = None,
    paper=None,
    published_dataset: str | None = None,
    stage: str = DEFAULT_STAGE,
    measures: list[str] | None = None,
) -> PublishedComparison:
    """Runs (their :class:`~citeval_irm.EvalResult` by name, and what the comparison kept
    of each run, or ``None``) beside a published table, checked for like for like.

    ``dataset``: the citeval id the runs were evaluated on (``None`` for a qrels file); the
    table is that dataset's unless ``published_dataset`` names another (then the dataset
    check says it differs). ``paper``: default the protocol's; a CSV path or DataFrame with
    the shipped columns is a table of the user's own. Each run's validation report
    decides the setting and validation checks, its shortest ranking against the deepest
    cut-off of the paper and the protocol the depth check. ``measures``: those to show
    (default: the first result's), where the table has them.
    """
    paper, papers, frame = table_source(paper)
    chosen = _choose_paper(papers, paper, protocol)
    table = _table_dataset(chosen, dataset, published_dataset)
    rows = _stage_rows(frame, chosen, table, stage)
    setting = rows["setting"].iloc[0]
    figures = PublishedResults(frame, papers).figures(chosen.name, table, stage).T
    if measures is None:
        measures = list(next(iter(results.values())).aggregate.index)
    shown = [m for m in measures if m in figures.index]
    if not shown:
        raise InputError(
            None, f"the runs have none of the table's measures ({', '.join(figures.index)})"
        )
    scale = 100.0 if chosen.percent else 1.0
    yours = pd.DataFrame(
        {name: result.aggregate[shown] * scale for name, result in results.items()}
    )
    deepest = _deepest_cutoff(list(rows["measure"]))  # this table's own, not the paper's
    checks = dataset_checks(chosen, table, dataset)
    for name in results:
        checks += run_checks(name, facts.get(name), dataset, setting, deepest)
        checks.append(scoring_check(name, facts.get(name), chosen, shown))
    return PublishedComparison(
        paper=chosen,
        dataset=table,
        split=chosen.split,
        setting=setting,
        stage=stage,
        source=", ".join(dict.fromkeys(rows["source"])),
        yours=yours,
        figures=figures.loc[shown],
        checks=checks,
        notes=_notes(chosen, results, measures, figures),
        impossible={key[5]: why for key, why in impossible_rows(rows, papers).items()},
        bounds=_unreported_bounds(chosen, table, figures, measures, results, scale),
    )


def _unreported_bounds(
    paper: Paper, table: str, figures: pd.DataFrame, measures, results, scale: float
) -> pd.DataFrame:
    """For the runs' measures a published system does not report: per system, the lowest
    and highest value its reported ones allow (one gold paper per query only; none
    otherwise), beside each run's own value (:func:`.consistency.row_bounds`)."""
    rows: list[list[object]] = []
    if not one_gold(paper.datasets.get(table, table)):
        return pd.DataFrame(rows, columns=_BOUND_COLUMNS)
    for measure in measures:
        for system in figures.columns:
            if measure in figures.index and pd.notna(figures.at[measure, system]):
                continue
            given = {m: v for m, v in figures[system].items() if pd.notna(v)}
            found = row_bounds(given, measure, paper.decimals, paper.percent)
            if found is None:
                continue
            for run, result in results.items():
                if measure in result.aggregate.index:
                    yours = float(result.aggregate[measure]) * scale
                    rows.append([measure, system, found[0], found[1], run, yours])
    return pd.DataFrame(rows, columns=_BOUND_COLUMNS)


_BOUND_COLUMNS = ["measure", "system", "low", "high", "run", "yours"]


def _stage_rows(frame: pd.DataFrame, paper: Paper, table: str, stage: str) -> pd.DataFrame:
    """The rows of one published table: the paper's table of a dataset at one stage (a
    stage it lacks is an error naming those it has)."""
    rows = frame[(frame["paper"] == paper.name) & (frame["dataset"] == table)]
    if stage not in set(rows["stage"]):
        stages = ", ".join(dict.fromkeys(rows["stage"]))
        raise InputError(None, f"{paper.name} has no {stage!r} stage for {table}; it has {stages}")
    return rows[rows["stage"] == stage]


def _notes(paper: Paper, results: Mapping, measures: list[str], figures: pd.DataFrame) -> list[str]:
    """What a reader of the comparison is told: the paper's notes (how it scored, its
    split, its unit), what the runs' values average over, the measures the table lacks."""
    notes = [paper.notes[k] for k in ("scoring", "split_note", "unit_note") if k in paper.notes]
    counted = {len(result.per_query) for result in results.values()}
    notes.append(
        f"your values average over all {', '.join(map(str, sorted(counted)))} qrels queries "
        "(a query a run does not rank scores 0), not only the compared ones"
    )
    absent = [m for m in measures if m not in figures.index]
    if absent:
        notes.append(f"not in the table: {' '.join(absent)}")
    return notes


def _choose_paper(
    papers: Mapping[str, Paper], paper: str | None, protocol: Protocol | None
) -> Paper:
    if paper is not None:
        if paper not in papers:
            raise InputError(
                None, f"no published results of {paper!r}; shipped: {', '.join(papers)}"
            )
        return papers[paper]
    if protocol is not None and protocol.name in papers:
        return papers[protocol.name]
    if len(papers) == 1:
        return next(iter(papers.values()))
    raise InputError(None, f"say which paper's results to compare with: {', '.join(papers)}")


def _table_dataset(paper: Paper, dataset: str | None, wanted: str | None) -> str:
    name = paper.table_dataset(wanted) if wanted is not None else None
    if wanted is not None and name is None:
        raise InputError(
            None, f"{paper.name} has no table for {wanted!r}; it has {', '.join(paper.datasets)}"
        )
    if name is None and dataset is not None:
        name = paper.table_dataset(dataset)
    if name is None:
        known = ", ".join(f"{n} ({i})" for n, i in paper.datasets.items())
        where = f"for {dataset}" if dataset else "without a dataset id (qrels from a file)"
        raise InputError(
            None,
            f"{paper.name} has no table {where}; it has {known}. Name one (on the command "
            "line --published-dataset, in compare() the published argument): the comparison "
            "is then flagged as not like for like",
        )
    return name


def _deepest_cutoff(measure_names: list[str]) -> tuple[int, str]:
    """The largest cut-off among measures and the measure that has it (``(1, "RR")`` if none:
    RR needs at least the first doc)."""
    best = (1, "RR")
    for measure in parse_measures(sorted(set(measure_names))):
        cutoff = measure.params.get("cutoff")
        if cutoff and cutoff > best[0]:
            best = (cutoff, str(measure))
    return best


def scoring_recipe(paper, protocol) -> str | None:
    """The recipe of the script that scored the published table ``compare`` will put runs
    beside (``paper``, or the protocol's), if the package has it (a user's table: none)."""
    from ...papers import PROTOCOLS

    paper, papers, _ = table_source(paper)
    name = protocol if isinstance(protocol, str) else getattr(protocol, "name", None)
    chosen = _choose_paper(papers, paper, PROTOCOLS.get(name) if name else None)
    own = PROTOCOLS.get(chosen.protocol) if chosen.protocol else None
    return own.recipe if own is not None else None
