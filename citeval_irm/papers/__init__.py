"""The benchmark papers, one module each: what a paper defines, in one place.

A paper module holds its protocol (``PROTOCOL``: measures and how the paper prints them,
linked to its recipe by name) and/or its recipe (``RECIPE``: how its own script scores,
rule by rule, checked against that script in the tests). Adding a benchmark paper is adding
its module here and to :data:`MODULES`.
"""

from __future__ import annotations

from ..base.errors import InputError
from ..base.measures import Protocol
from . import duallcr, goyal2026, hatten, masterset2026, symtax
from .recipes import Recipe

MODULES = (goyal2026, masterset2026, duallcr, symtax, hatten)
PROTOCOLS: dict[str, Protocol] = {
    m.PROTOCOL.name: m.PROTOCOL for m in MODULES if hasattr(m, "PROTOCOL")
}
RECIPES: dict[str, Recipe] = {m.RECIPE.name: m.RECIPE for m in MODULES}


def named(kind: str, name: str, registry: dict) -> str:
    """``name`` as ``registry`` spells it, in any case (``HAtten`` is ``hatten``); an error
    naming the close ones (or all) otherwise."""
    import difflib

    spelled = {key.lower(): key for key in registry}
    if isinstance(name, str) and name.lower() in spelled:
        return spelled[name.lower()]
    close = difflib.get_close_matches(str(name).lower(), list(spelled), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(spelled[c] for c in close)}?" if close else "known:"
    listed = "" if close else " " + ", ".join(registry)
    raise InputError(None, f"unknown {kind} {name!r}; {hint}{listed}")


def get_protocol(protocol: str | Protocol) -> Protocol:
    """A protocol by name, in any case (``"goyal2026"``, ``"masterset2026"``), or the
    object itself."""
    if isinstance(protocol, Protocol):
        return protocol
    return PROTOCOLS[named("protocol", protocol, PROTOCOLS)]


def get_recipe(recipe: str | Recipe) -> Recipe:
    """A recipe by name, in any case (``goyal2026``, ``masterset2026``, ``duallcr``,
    ``symtax``, ``hatten``), or the object itself."""
    if isinstance(recipe, Recipe):
        return recipe
    return RECIPES[named("recipe", recipe, RECIPES)]
