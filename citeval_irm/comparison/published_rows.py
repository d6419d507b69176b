"""A comparison's runs beside a paper's published table: its own call over a
:class:`~citeval_irm.Comparison` (``compare`` only compares), composed by ``citeval
compare --published`` and the report."""

from __future__ import annotations

from ..base.errors import CitevalError
from ..base.options import boolean
from .model import Comparison
from .runs import RunEvidence, dataset_id, is_evaluated, named_inputs

DEFAULT_STAGE = "end-to-end"


def compare_published(
    comparison: Comparison,
    runs=None,
    *,
    paper=None,
    dataset: str | None = None,
    stage: str = DEFAULT_STAGE,
    same_year: bool = True,
):
    """Put a comparison's runs beside a paper's published results, checked for like for like.

    A number beside a published one means something only when it was made the same way:
    on the same dataset and split, under the same protocol (each run is validated with
    :func:`citeval_irm.validate`), to the same depth, and scored as the paper scored it
    (the paper's own script, when the package has it, through
    :func:`citeval_irm.crosscheck`). Each of those checks is reported beside the figures.

    Parameters
    ----------
    comparison : Comparison
        What :func:`citeval_irm.compare` returned; its evaluations and measures are shown.
    runs : dict or list, optional
        The runs given to ``compare`` (``{name: run}`` or a list named after the file
        stems): they are validated against the comparison's dataset and cross-checked with
        the paper's script. Without them (or for a run given evaluated already) those
        checks say they were not made.
    paper : str, path or DataFrame, optional
        Whose published table: a shipped paper (``"goyal2026"``; default the protocol's),
        or a table of your own (a CSV path or a DataFrame with the shipped columns,
        labelled "given by the user").
    dataset : str, optional
        The table's dataset (``"ACL-200"``) when it is not the one the comparison's qrels
        came from (the dataset check then says they differ).
    stage : str
        The table's stage (``"end-to-end"``, or e.g. ``"reranking"`` where it has one).
    same_year : bool
        Whether the validation admits papers of the query paper's own year (as in
        :func:`citeval_irm.validate`).

    Returns
    -------
    PublishedComparison
        The runs' figures beside the table's, the differences and every like-for-like
        check; assign it to ``comparison.published`` to print both together.

    Examples
    --------
    >>> comparison = citeval_irm.compare(runs, "citeval/acl-200/test", protocol="goyal2026")
    >>> side = citeval_irm.compare_published(comparison, runs)
    >>> print(side.format())
    """
    from ..checks.published import beside_published, scoring_recipe

    same_year = boolean("same_year", same_year)
    own = dataset_id(comparison.qrels_source.removeprefix("ir_datasets:"))
    recipe = None
    if own is not None:
        try:
            recipe = scoring_recipe(paper, comparison.protocol)
        except CitevalError:
            recipe = None  # the table's own error is beside_published's to give
    named = named_inputs(runs) if runs is not None else {}
    facts: dict[str, RunEvidence | None] = {}  # None: given evaluated, no run to check
    for name, result in comparison.results.items():
        item = named.get(name)
        if item is not None and is_evaluated(item):
            facts[name] = None
        else:
            facts[name] = RunEvidence.of(
                result, item, own if item is not None else None, same_year, None, recipe
            )
    return beside_published(
        comparison.results,
        facts,
        own,
        protocol=comparison.protocol,
        paper=paper,
        published_dataset=dataset,
        stage=stage,
        measures=list(comparison.measures),
    )
