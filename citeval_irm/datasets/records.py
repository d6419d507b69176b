"""Record types of the citation datasets (ir_datasets namedtuples).

No ``from __future__ import annotations`` here: ir_datasets' exporters read the field types
from ``__annotations__`` and skip any field whose type is not exactly ``str``, ``int`` or
``float``. That is also why ``year`` is annotated ``int`` although it is ``None`` when a
dataset cannot tell it (``int | None`` would drop it from ``ir_datasets export``).
"""

from typing import NamedTuple

TARGET_MARKER = "TARGETCIT"
"""Where the masked citation stands in a context (other citations read ``OTHERCIT``)."""


class CitationDoc(NamedTuple):
    """A candidate paper. ``year`` is ``None`` when the dataset cannot tell it."""

    doc_id: str
    title: str
    abstract: str
    year: int  # or None: see the module docstring

    def default_text(self) -> str:
        """title and abstract"""
        return f"{self.title} {self.abstract}"


class CitationQuery(NamedTuple):
    """A citation context: the text around one masked citation of ``citing_id``.

    ``left_context`` / ``right_context`` are the text before and after the first
    ``TARGETCIT`` marker (all of ``text`` and ``""`` when a context has no marker);
    ``year`` is the citing paper's year, or ``None``.
    """

    query_id: str
    text: str
    left_context: str
    right_context: str
    citing_id: str
    year: int  # or None: see the module docstring

    def default_text(self) -> str:
        """the masked context"""
        return self.text


class CitationContext(NamedTuple):
    """One entry of a HAtten ``contexts.json`` as stored on disk (``cited_id`` is its
    ``refid`` / ``ref_id``)."""

    context_id: str
    citing_id: str
    cited_id: str
    masked_text: str


def split_context(text: str) -> tuple[str, str]:
    """The text before and after the first target-citation marker."""
    left, _, right = text.partition(TARGET_MARKER)
    return left, right
