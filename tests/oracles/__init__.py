"""Oracles: the benchmark papers' own metric code, transcribed, for testing the recipes.

One module per recipe (``duallcr``, ``symtax``, ``hatten``, ``masterset2026``,
``goyal2026``). Each module keeps the author functions as they are written (their logic,
their bugs, their crashes), says where they come from (repository, path, commit, licence),
and adds one driver with the same signature everywhere::

    score(run, qrels, query_papers=None, cutoffs=None) -> (per_query, aggregate)

- ``run``: ``{query_id: [doc_id, ...]}``, best first, duplicates possible, in the order the
  script would see the list (ties already broken).
- ``qrels``: ``{query_id: [(doc_id, label), ...]}`` in qrels order (the "first listed"
  relevant doc is the first one here with ``label > 0``).
- ``query_papers``: ``{query_id: citing paper id}``, for the scripts that read one.
- ``cutoffs``: ``{measure family: [K, ...]}`` (``"R"``, ``"nDCG"``, ``"RR"``,
  ``"Success"``); ``None`` gives the cut-offs the script prints.

``per_query`` is ``{query_id: {measure: value}}`` for every query the script scores, keyed in
ir-measures syntax (``RR``, ``RR@10``, ``R@10``, ``nDCG@10``, ``AP``, ``Success@10``);
``aggregate`` is ``{measure: value}`` as the script computes it. Values are fractions.

The driver applies the functions the way the author's script does: its loop (over the test
set or over the predictions), its aggregation, where the gold list comes from and where the
citing paper is removed. Where the author code raises on an input, the driver raises the
same exception; each module's docstring says which and when.

Each module also says, in ``CHECK``, how ``tests/test_recipes_oracles.py`` drives it; that
test requires one module here per paper module of ``citeval_irm.papers``.

This package is test code: nothing under ``citeval_irm`` imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

Run = Mapping[str, Sequence[str]]
Qrels = Mapping[str, Sequence[tuple[str, int]]]
PerQuery = dict[str, dict[str, float]]
Aggregate = dict[str, float]


@dataclass(frozen=True)
class Check:
    """How the property test compares a recipe with this script: the ``cutoffs`` it asks
    the script for, our ``measures`` for the same values, our name of each script name
    that differs (``names``), whether the queries are papers (MasterSet) and the extra
    arguments of ``score`` to draw (``"pool"``: the candidate pool)."""

    cutoffs: dict[str, list[int]]
    measures: str
    names: dict[str, str] = field(default_factory=dict)
    papers_are_queries: bool = False
    extra: tuple[str, ...] = ()


def relevant_in_qrels_order(judged: Sequence[tuple[str, int]]) -> list[str]:
    """The judged-relevant docs (label > 0) of one query, in qrels order.

    This is the driver's bridge from the qrels to a script's gold list (``positive_ids``,
    ``relevant_docs``, ``ref_id``), not author code.
    """
    return [doc for doc, label in judged if label > 0]
