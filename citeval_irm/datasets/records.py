"""Record types of the citation datasets (ir_datasets namedtuples).

No ``from __future__ import annotations`` here: ir_datasets' TSV exporter reads the field
types from ``__annotations__`` and needs real types, not strings.
"""

from typing import NamedTuple

TARGET_MARKER = "TARGETCIT"
"""Where the masked citation stands in a context (other citations read ``OTHERCIT``)."""


class CitationDoc(NamedTuple):
    """A candidate paper. ``year`` is ``None`` when the dataset cannot tell it."""

    doc_id: str
    title: str
    abstract: str
    year: int | None

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
    year: int | None

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
