"""Layers import only downward: the layer order is ARCHITECTURE.md's table ("The layers"), the
imports are the import graph's (module and function level, ``tests/test_import_graph.py``).

A module imports modules of its own layer or of the layers below; every module is in a
layer (a package row covers its modules; the root row, ``citeval_irm``, its ``__init__``
only), and every package the table names exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_import_graph import PACKAGE, import_graph

ARCHITECTURE = Path(__file__).resolve().parents[1] / "ARCHITECTURE.md"
ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")

after_relayout = pytest.mark.skipif(
    not (PACKAGE / "base").is_dir(),
    reason="the flat layout: the layers exist once the integrator has run relayout.py",
)


def layer_table(text: str) -> dict[str, int]:
    """Package -> layer number, from the rows of the "The layers" section."""
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in section.splitlines():
        row = ROW.match(line)
        if row:
            for package in re.findall(r"`(citeval_irm[\w.]*)`", row.group(2)):
                table[package] = int(row.group(1))
    assert table, "no layer rows in ARCHITECTURE.md's 'The layers'"
    return table


LAYERS = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))


def layer_of(module: str) -> int | None:
    """The layer of the longest package row covering ``module`` (the root row: itself)."""
    parts = module.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in LAYERS and (cut == len(parts) or head != "citeval_irm"):
            return LAYERS[head]
    return None


@after_relayout
def test_every_module_is_in_a_layer_and_every_layer_exists():
    graph = import_graph()
    assert not [m for m in sorted(graph) if layer_of(m) is None], "modules in no layer"
    assert not [p for p in LAYERS if p not in graph], "layers naming no package"


@after_relayout
def test_no_module_imports_a_higher_layer():
    graph = import_graph()
    upward = [
        f"{module} (layer {layer_of(module)}) imports {other} (layer {layer_of(other)})"
        for module, imported in sorted(graph.items())
        for other in sorted(imported)
        if layer_of(other) > layer_of(module)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_table_is_read_as_written():
    """The reader of the table on a made-up one: numbered rows, several packages a row."""
    text = (
        "# x\n## The layers\n| layer | packages |\n| --- | --- |\n"
        "| 1 | `citeval_irm.base` |\n| 2 | `citeval_irm.a`, `citeval_irm.b` |\n## Rules\n"
        "| 3 | `citeval_irm.c` |\n"
    )
    assert layer_table(text) == {"citeval_irm.base": 1, "citeval_irm.a": 2, "citeval_irm.b": 2}
