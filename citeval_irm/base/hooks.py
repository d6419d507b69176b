"""Run a function right after a module is imported (or now, if it already is); and a
package's names imported on first use (:func:`names_on_first_use`).

ir_datasets has no plugin discovery: a package registers its datasets by importing
ir_datasets and calling ``registry.register``. Doing that on ``import citeval_irm`` would
make every command pay ir_datasets' import; instead the registration runs when (and only
if) something imports ir_datasets, through a finder on ``sys.meta_path`` that wraps the
module's loader.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable

_PENDING: dict[str, list[Callable[[], None]]] = {}


class _Loader(importlib.abc.Loader):
    def __init__(self, wrapped: importlib.abc.Loader, name: str):
        self._wrapped = wrapped
        self._name = name

    def create_module(self, spec):
        return self._wrapped.create_module(spec)

    def exec_module(self, module) -> None:
        self._wrapped.exec_module(module)
        for callback in _PENDING.pop(self._name, []):
            callback()

    def __getattr__(self, name: str):  # e.g. get_resource_reader, is_package
        return getattr(self._wrapped, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _PENDING:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, fullname)
                return spec
        return None


_FINDER = _Finder()


def after_import(module: str, callback: Callable[[], None]) -> None:
    """Call ``callback`` once ``module`` is imported: now if it is already, else right
    after its import finishes."""
    if module in sys.modules:
        callback()
        return
    _PENDING.setdefault(module, []).append(callback)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def names_on_first_use(package: str, names: dict[str, str]) -> tuple[Callable, Callable]:
    """A package's module ``__getattr__`` and ``__dir__`` for ``names`` (name -> the
    submodule defining it) imported only when first asked for: the package's import stays
    light (registering the datasets must not import pandas), and each name, once imported,
    is an ordinary attribute of the package.

    Call it in the package's ``__init__``: ``__getattr__, __dir__ = names_on_first_use(
    __name__, NAMES)``."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{names[name]}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
