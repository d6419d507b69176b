"""Whether runs beside a published table are like for like, aspect by aspect: one
:class:`Check` each for the dataset and its split, and per run its setting, its validation,
its depth and how it was scored (the paper's script or trec_eval's semantics)."""

from __future__ import annotations

from dataclasses import dataclass

from .tables import Paper, split_dataset_id

SAME, DIFFERS, UNCHECKED = "same", "differs", "unchecked"


@dataclass(frozen=True)
class Check:
    """One aspect of like for like: ``status`` is ``"same"``, ``"differs"`` or
    ``"unchecked"`` (could not be told), ``run`` the run it concerns (``None``: all)."""

    aspect: str
    status: str
    detail: str
    run: str | None = None

    def __str__(self) -> str:
        who = f" ({self.run})" if self.run else ""
        shown = {DIFFERS: "DIFFERS", UNCHECKED: "not checked"}.get(self.status, self.status)
        return f"{self.aspect}{who}: {shown}: {self.detail}"


def dataset_checks(paper: Paper, table: str, dataset: str | None) -> list[Check]:
    if dataset is None:
        reason = "the qrels come from a file: give the dataset id (--dataset) to check it"
        return [Check("dataset", UNCHECKED, reason), Check("split", UNCHECKED, reason)]
    base, split = split_dataset_id(dataset)
    expected = paper.datasets[table]
    checks = [
        Check("dataset", SAME, f"{dataset} is {table}")
        if base == expected
        else Check(
            "dataset", DIFFERS, f"the run is on {dataset}, the table is {table} ({expected})"
        )
    ]
    if split is None:
        checks.append(Check("split", UNCHECKED, f"{dataset} names no split"))
    elif split == paper.split:
        checks.append(Check("split", SAME, f"{split}"))
    else:
        checks.append(
            Check("split", DIFFERS, f"the run is on the {split} split, the table on {paper.split}")
        )
    return checks


def run_checks(
    name: str, facts, dataset: str | None, setting: str, deepest: tuple[int, str]
) -> list[Check]:
    """Setting and validation (the run's :class:`~citeval_irm.ValidationReport`) and depth
    of one run, from what the comparison kept of it
    (:class:`~citeval_irm.comparison.runs.RunEvidence`;
    ``None`` for a run given already evaluated)."""
    if facts is None:
        reason = "given as an evaluation result, not a run: nothing to check"
        return [Check(a, UNCHECKED, reason, name) for a in ("setting", "validation", "depth")]
    checks = []
    if facts.validation is None:
        reason = facts.unvalidated or "no dataset id to validate against"
        checks += [Check(a, UNCHECKED, reason, name) for a in ("setting", "validation")]
    else:
        checks += _validation_checks(name, facts.validation, setting)
    shortest = facts.shortest
    depth, measure = deepest
    if shortest >= depth:
        checks.append(
            Check("depth", SAME, f"every ranking has at least {depth} docs ({measure})", name)
        )
    else:
        checks.append(
            Check(
                "depth",
                DIFFERS,
                f"the shortest ranking has {shortest} docs, below the table's deepest cut-off "
                f"{depth} ({measure}): RR and every measure cut deeper are computed on less "
                "than the published systems ranked",
                name,
            )
        )
    return checks


def scoring_check(name: str, facts, paper: Paper, shown: list[str]) -> Check:
    """Whether the paper's script and trec_eval semantics give this run the same figures at
    the table's decimals (the run's cross-check,
    :attr:`~citeval_irm.comparison.runs.RunEvidence.scoring`): the published
    figures came from the script, the runs' from trec_eval."""
    if facts is None or facts.scoring is None:
        reason = getattr(facts, "unscored", None) or (
            "no cross-check with the paper's script (it needs a run and a dataset id)"
        )
        return Check("scoring", UNCHECKED, reason, name)
    scale = 100.0 if paper.percent else 1.0
    summary = facts.scoring.reindex([m for m in shown if m in facts.scoring.index])
    if summary.empty:
        return Check("scoring", UNCHECKED, "the paper's script scores none of the measures", name)
    printed = summary[["trec_eval", "recipe"]].mul(scale).round(paper.decimals)
    differ = printed[printed["trec_eval"] != printed["recipe"]]
    script = f"the paper's script (citeval recipe of {paper.name})"
    if differ.empty:
        detail = f"{script} and trec_eval semantics give this run the same figures as printed"
        return Check("scoring", SAME, detail, name)
    gaps = ", ".join(
        f"{m} {row.recipe:.{paper.decimals}f} vs {row.trec_eval:.{paper.decimals}f}"
        for m, row in differ.iterrows()
    )
    detail = (
        f"{script} scores this run differently from trec_eval semantics ({gaps}; script vs "
        "trec_eval): the published figures are the script's, yours trec_eval's; citeval "
        "crosscheck shows why"
    )
    return Check("scoring", DIFFERS, detail, name)


def _validation_checks(name: str, report, setting: str) -> list[Check]:
    counts = {row.check: (row.pairs, row.queries) for row in report.checks.itertuples()}
    year_rule = "same-year papers admitted" if report.same_year else "earlier papers only"
    later_pairs, later_queries = counts.get("later_paper", (0, 0))
    if setting != "inductive":
        setting_check = Check("setting", UNCHECKED, f"no rule to check a {setting} setting", name)
    elif later_queries:
        setting_check = Check(
            "setting",
            DIFFERS,
            f"{later_pairs:,} candidates published after their query paper in {later_queries:,} "
            "queries: not the inductive setting",
            name,
        )
    else:
        setting_check = Check(
            "setting", SAME, f"inductive: no candidate from later ({year_rule})", name
        )
    failed = [
        f"{check} ({queries:,} {'query' if queries == 1 else 'queries'})"
        for check, (_, queries) in counts.items()
        if queries and check != "later_paper"
    ]
    validation = (
        Check("validation", DIFFERS, "failed: " + ", ".join(failed), name)
        if failed
        else Check("validation", SAME, "passed", name)
    )
    return [setting_check, validation]
