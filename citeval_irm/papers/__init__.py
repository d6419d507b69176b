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


def get_protocol(protocol: str | Protocol) -> Protocol:
    """A protocol by name (``"goyal2026"``, ``"masterset2026"``) or the object itself."""
    if isinstance(protocol, Protocol):
        return protocol
    try:
        return PROTOCOLS[protocol]
    except KeyError:
        raise InputError(
            None, f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}"
        ) from None


def get_recipe(recipe: str | Recipe) -> Recipe:
    """A recipe by name (``goyal2026``, ``masterset2026``, ``duallcr``, ``symtax``,
    ``hatten``) or the object itself."""
    if isinstance(recipe, Recipe):
        return recipe
    try:
        return RECIPES[recipe]
    except KeyError:
        raise InputError(None, f"unknown recipe {recipe!r}; known: {', '.join(RECIPES)}") from None
