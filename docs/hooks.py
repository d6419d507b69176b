"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The generated pages (``docs/gen_reference.py``: the API, command line, measures, protocols
and dataset catalogue) are added to the site's files here, as MkDocs 1.6 lets a hook do
(``File.generated``), with no plugin: mkdocs-gen-files, which did it before, prints a
15-line notice on every build.

The package's docstrings cross-reference in Sphinx's roles (``:class:`~citeval_irm.X```,
``:func:``, ``:mod:``), which mkdocstrings passes through as text: the rendered page showed
``:class:`` before the name. Here each role becomes the code name alone, as Sphinx shows it
(``~`` keeps the last part of a dotted name).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

_ROLE = re.compile(
    r":(?:class|func|meth|mod|data|attr|exc|obj):<code>(~?)([\w.\s]+?)(\(\))?</code>"
)  # a name the docstring wrapped across lines holds white space


def _name(match: re.Match) -> str:
    short, name, call = match.group(1), "".join(match.group(2).split()), match.group(3) or ""
    return f"<code>{name.rsplit('.', 1)[-1] if short else name}{call}</code>"


def on_page_content(html: str, **_) -> str:
    return _ROLE.sub(_name, html)


def _generator():
    """``docs/gen_reference.py``, imported from its path (``docs/`` is not a package)."""
    path = Path(__file__).with_name("gen_reference.py")
    spec = importlib.util.spec_from_file_location("citeval_docs_gen_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files: Files, config, **_) -> Files:
    for path, text in _generator().pages().items():
        files.append(File.generated(config, path, content=text))
    return files
