"""The public vocabulary: every public verb of ``citeval_irm._EXPORTS`` spells each concept
as ARCHITECTURE.md's table of names says ("The public vocabulary"), and a name a single verb
owns is used by that verb only."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import citeval_irm

ARCHITECTURE = Path(__file__).resolve().parents[1] / "ARCHITECTURE.md"


def concept_table() -> dict[str, set[str] | None]:
    """The table's names: name -> the verbs that own it (``None``: shared by all)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## The public vocabulary", 1)[1].split("\n## ", 1)[0]
    names = {}
    for line in section.splitlines():
        found = re.match(r"\| `(\w+)` \| ([^|]+) \|", line)
        if found:
            verbs = found.group(2).strip()
            names[found.group(1)] = None if verbs == "all" else set(re.split(r",\s*", verbs))
    return names


def public_verbs() -> dict[str, object]:
    """Every public function of the package, by its public name."""
    verbs = {}
    for name, module in citeval_irm._EXPORTS.items():
        if module is None:
            continue
        value = getattr(citeval_irm, name)
        if inspect.isfunction(value):
            verbs[name] = value
    return verbs


def test_the_table_is_read():
    table = concept_table()
    assert {"run", "runs", "qrels", "dataset", "measures", "recipe_ties", "progress"} <= set(table)
    assert table["qrels"] is None and table["recipe_ties"] == {"crosscheck"}
    assert {"evaluate", "compare", "compare_published", "bm25_run"} <= set(public_verbs())


@pytest.mark.parametrize("verb", sorted(public_verbs()))
def test_every_parameter_is_a_name_of_the_table(verb):
    table = concept_table()
    for name in inspect.signature(public_verbs()[verb]).parameters:
        assert name in table, f"{verb}({name}=...): not a name of ARCHITECTURE.md's table"
        owners = table[name]
        assert owners is None or verb in owners, f"{verb}({name}=...): a name of {owners}"


def test_every_name_of_the_table_is_used():
    used = {p for f in public_verbs().values() for p in inspect.signature(f).parameters}
    assert set(concept_table()) - used == set()


def test_one_spelling_for_one_concept():
    """The spellings the table replaced are gone from every public verb."""
    retired = {"measure", "show_progress", "published", "ties", "same_year_ok"}
    for verb, function in public_verbs().items():
        assert not retired & set(inspect.signature(function).parameters), verb


@pytest.mark.parametrize("verb", ["evaluate", "crosscheck", "validate", "compare", "resolve",
                                  "breakdown", "make_report"])  # fmt: skip
def test_measures_come_right_after_the_runs_and_their_qrels(verb):
    names = list(inspect.signature(public_verbs()[verb]).parameters)
    assert names.index("measures") == 2, names
    kind = inspect.signature(public_verbs()[verb]).parameters["protocol"].kind
    assert kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("verb", sorted(public_verbs()))
def test_no_hidden_parameters_and_at_most_ten(verb):
    """Every accepted parameter is in the signature (``help()`` and an IDE show it): no
    ``**keywords`` or ``*args``; options travel as ``EvalOptions`` / ``StatisticsOptions``."""
    parameters = inspect.signature(public_verbs()[verb]).parameters.values()
    hidden = [p.name for p in parameters if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    assert hidden == [], f"{verb} hides parameters behind {hidden}"
    assert len(parameters) <= 10, f"{verb} takes {len(parameters)} parameters"
