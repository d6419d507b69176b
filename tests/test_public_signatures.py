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
    """Every public function of the package, by its public name (not the deprecated
    spellings kept one release, marked as PEP 702 marks them: tests/test_one_spelling.py)."""
    verbs = {}
    for name, module in citeval_irm._EXPORTS.items():
        if module is None:
            continue
        value = getattr(citeval_irm, name)
        if inspect.isfunction(value) and not hasattr(value, "__deprecated__"):
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
    function = public_verbs()[verb]
    parameters = inspect.signature(function).parameters.values()
    hidden = [p.name for p in parameters if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    assert hidden == [], f"{verb} hides parameters behind {hidden}"
    documented = numpydoc_sections(function).get("Parameters", [])
    deprecated = {  # an old keyword kept one release, its entry saying so, is not counted
        line.split(" : ")[0].strip()
        for line, then in zip(documented, documented[1:])
        if " : " in line and then.strip().startswith("Deprecated")
    }
    kept = [p for p in parameters if p.name not in deprecated]
    assert len(kept) <= 10, f"{verb} takes {len(kept)} parameters"


def numpydoc_sections(function) -> dict[str, list[str]]:
    """The sections of a numpydoc docstring, by title, as numpydoc reads them: a title line
    underlined by dashes at the docstring's indent; its lines until the next title."""
    lines = inspect.cleandoc(function.__doc__ or "").splitlines()
    sections: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        underline = lines[i + 1] if i + 1 < len(lines) else ""
        if line and not line[0].isspace() and re.fullmatch(r"-{3,}", underline):
            current = line.strip()
            sections[current] = []
        elif current is not None and not re.fullmatch(r"-{3,}", line):
            sections[current].append(line)
    return sections


def documented_parameters(function) -> list[str]:
    """The names of the Parameters section: numpydoc's ``name : type`` (or a bare ``name``)
    at the section's indent, ``a, b : type`` naming several."""
    names = []
    for line in numpydoc_sections(function).get("Parameters", []):
        if line and not line[0].isspace():
            names += [n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")]
    return names


# resolve's docstring belongs to the generated-lists work (citeval_irm/resolving/), which
# rewrites it; every other verb is held to the rule.
UNDOCUMENTED_FOR_NOW: set[str] = set()


def test_numpydoc_sections_are_read():
    def sample(a, b, c=1):
        """Do.

        Parameters
        ----------
        a : int
            First.
        b, c : str
            The others.
            indented : not a name

        Returns
        -------
        int
        """

    assert documented_parameters(sample) == ["a", "b", "c"]
    assert numpydoc_sections(sample)["Returns"][0] == "int"


@pytest.mark.parametrize("verb", sorted(set(public_verbs()) - UNDOCUMENTED_FOR_NOW))
def test_every_parameter_is_documented(verb):
    """Each verb's docstring has numpydoc Parameters, Returns and Examples sections; every
    parameter of its signature, and nothing else, is in Parameters, in the signature's
    order (the API reference is generated from them)."""
    function = public_verbs()[verb]
    sections = numpydoc_sections(function)
    assert {"Parameters", "Returns", "Examples"} <= set(sections), (verb, list(sections))
    assert documented_parameters(function) == list(inspect.signature(function).parameters)
    examples = [line for line in sections["Examples"] if line.startswith(">>> ")]
    assert examples, f"{verb}: Examples without a >>> line"


@pytest.mark.parametrize("verb", sorted(set(public_verbs()) - UNDOCUMENTED_FOR_NOW))
def test_no_docstring_offers_option_fields_as_keywords(verb):
    """Option fields go in ``options=EvalOptions(...)`` / ``statistics=StatisticsOptions(...)``
    (no verb takes ``**keywords``): no docstring says they may be given as keywords."""
    text = " ".join((public_verbs()[verb].__doc__ or "").split())
    assert not re.search(r"fields (may also be given )?as keywords", text), verb
