"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The package's docstrings cross-reference in Sphinx's roles (``:class:`~citeval_irm.X```,
``:func:``, ``:mod:``), which mkdocstrings passes through as text: the rendered page showed
``:class:`` before the name. Here each role becomes the code name alone, as Sphinx shows it
(``~`` keeps the last part of a dotted name).
"""

from __future__ import annotations

import re

_ROLE = re.compile(
    r":(?:class|func|meth|mod|data|attr|exc|obj):<code>(~?)([\w.\s]+?)(\(\))?</code>"
)  # a name the docstring wrapped across lines holds white space


def _name(match: re.Match) -> str:
    short, name, call = match.group(1), "".join(match.group(2).split()), match.group(3) or ""
    return f"<code>{name.rsplit('.', 1)[-1] if short else name}{call}</code>"


def on_page_content(html: str, **_) -> str:
    return _ROLE.sub(_name, html)
