"""No import circle among the package's modules (read from the source, not by importing).

Every ``import`` counts, at module level or inside a function: a function-level import
hides a circle from Python, not from the reader who has to follow it. Modules are the
nodes, an edge is "imports"; each strongly connected component of more than one module
(or a module importing itself) is a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import citeval_irm

PACKAGE = Path(citeval_irm.__file__).parent


def module_files(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root`` by dotted name (a package by its
    ``__init__``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source (a package's
    ``__init__`` only when a name is imported from it, not for each of its submodules)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    files = module_files(root)
    return {name: imports_of(name, path, set(files)) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def cycle_through(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One circle inside ``component``, as the modules it passes (for the message)."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for other in sorted(graph[node] & component):
            if other == start:
                return [*paths[node], start]
            if other not in paths:
                paths[other] = [*paths[node], other]
                todo.append(other)
    raise AssertionError(f"no circle in {sorted(component)}")


def test_no_import_circle():
    graph = import_graph()
    found = circles(graph)
    assert not found, "import circles: " + "; ".join(
        " -> ".join(cycle_through(graph, c)) for c in found
    )


def test_the_graph_sees_module_and_function_level_imports(tmp_path):
    """The reader of imports on a package made for the purpose: relative, absolute,
    ``from pkg import module`` and imports inside functions all make edges."""
    root = tmp_path / "citeval_irm"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("from .b import thing\n")
    (root / "a.py").write_text("def f():\n    from .sub import b\n")
    (root / "sub" / "b.py").write_text("import citeval_irm.c\nthing = 1\n")
    (root / "c.py").write_text("from . import a, version\nfrom .sub.b import thing\n")
    graph = import_graph(root)
    assert graph["citeval_irm.a"] == {"citeval_irm.sub.b"}
    assert graph["citeval_irm.sub"] == {"citeval_irm.sub.b"}
    assert graph["citeval_irm.c"] == {"citeval_irm", "citeval_irm.a", "citeval_irm.sub.b"}
    component = frozenset({"citeval_irm.a", "citeval_irm.sub.b", "citeval_irm.c"})
    assert circles(graph) == [component]
    assert cycle_through(graph, component) == [
        "citeval_irm.a",
        "citeval_irm.sub.b",
        "citeval_irm.c",
        "citeval_irm.a",
    ]
