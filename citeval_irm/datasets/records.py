"""Record types of the citation datasets (ir_datasets namedtuples).

No ``from __future__ import annotations`` here: ir_datasets' exporters read the field types
from ``__annotations__`` and skip any field whose type is not exactly ``str``, ``int`` or
``float``. That is also why ``year`` is annotated ``int`` although it is ``None`` when a
dataset cannot tell it (``int | None`` would drop it from ``ir_datasets export``).
"""

from typing import Any, NamedTuple

RecordClass = type[Any]
"""A record type: a namedtuple class of this module (or a richer one a corpus declares),
read by its ``_fields`` and called with them (``type[NamedTuple]`` is no type a checker
lets one call or read ``_fields`` of)."""

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


# --------------------------------------------------------------------------- ArSyTa
# Richer records keep the base records' fields first, in the same order, so code written
# for CitationDoc / CitationQuery (doc.year, query.citing_id, ...) reads them unchanged.


class ArsytaDoc(NamedTuple):
    """An ArSyTa paper: a :class:`CitationDoc` plus the month of its arXiv id and its arXiv
    ``categories`` (a tuple, as listed in ``papers_cat.json``; the first is the primary)."""

    doc_id: str
    title: str
    abstract: str
    year: int  # or None
    month: int  # or None
    categories: tuple  # of str; not exported by `ir_datasets export` (not a scalar)

    def default_text(self) -> str:
        """title and abstract"""
        return f"{self.title} {self.abstract}"


class ArsytaContext(NamedTuple):
    """One entry of ArSyTa's ``contexts_new_head.json``: a HAtten context plus the heading
    of the section it comes from."""

    context_id: str
    citing_id: str
    cited_id: str
    masked_text: str
    heading: str


class ArsytaQuery(NamedTuple):
    """An ArSyTa citation context: a :class:`CitationQuery` plus the citing paper's month
    and the section ``heading`` (SymTax feeds it to its reranker)."""

    query_id: str
    text: str
    left_context: str
    right_context: str
    citing_id: str
    year: int  # or None
    month: int  # or None
    heading: str

    def default_text(self) -> str:
        """the masked context"""
        return self.text


# --------------------------------------------------------------------------- MasterSet


class MasterSetDoc(NamedTuple):
    """A MasterSet pool paper. ``venue`` is the lower-case venue code; ``authors`` the
    authors exactly as the file stores them (a JSON string)."""

    doc_id: str
    title: str
    abstract: str
    year: int  # or None
    venue: str
    authors: str

    def default_text(self) -> str:
        """title and abstract"""
        return f"{self.title} {self.abstract}"


class MasterSetQuery(NamedTuple):
    """A MasterSet query: a paper, known only by its title and abstract (the task gives a
    system nothing else). ``citing_id`` is the paper's own id (= ``query_id``), which never
    appears in its own ranking; ``year`` its publication year."""

    query_id: str
    title: str
    abstract: str
    citing_id: str
    year: int  # or None

    def default_text(self) -> str:
        """title and abstract"""
        return f"{self.title} {self.abstract}"


class MustCiteQrel(NamedTuple):
    """A must-cite judgement: relevance 1 for a reference of the query paper that meets the
    tier's rule. ``tier`` names the tiers the reference meets (``"baseline"``, ``"core"``,
    ``"frequent"``, joined with ``+`` in the must-cite union); ``in_pool`` is 1 if the cited
    paper is in the candidate pool, 0 if no system can retrieve it."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str
    tier: str
    in_pool: int  # 1 or 0 (an int, so that `ir_datasets export` keeps it)
