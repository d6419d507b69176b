"""Publication dates read from paper ids.

Citation datasets rarely ship dates, but two id schemes carry them: ACL Anthology ids
(``P15-1001``: characters 2-3 are the year) and arXiv ids (``1503.01234``, ``1503.0123v2``,
``hep-th/9901001``, ``cs.CL/0101001``: year and month). The temporal protocol needs a year
for every candidate and query, so these parsers are shared by every loader (and by the
ArSyTa loader, which needs the month too).
"""

from __future__ import annotations

import re
from typing import NamedTuple

ID_SCHEMES = ("acl", "arxiv", "none")

# Two-digit years below this are 20xx, the others 19xx (ACL Anthology ids start in 1965;
# arXiv's old scheme in 1991, its new one in 2007).
_CENTURY_PIVOT = 60

_ACL_ID = re.compile(r"^[A-Z](\d{2})-\d{4}$")
_ARXIV_NEW = re.compile(r"^(?:arXiv:)?(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?$")
_ARXIV_OLD = re.compile(r"^[a-z-]+(?:\.[A-Za-z-]+)?/(\d{2})(\d{2})\d{3}(?:v\d+)?$")


class PaperDate(NamedTuple):
    """A publication date with the precision the id gives (``month`` may be ``None``)."""

    year: int
    month: int | None = None


def _full_year(two_digits: str) -> int:
    value = int(two_digits)
    return 2000 + value if value < _CENTURY_PIVOT else 1900 + value


def acl_anthology_date(paper_id: str) -> PaperDate | None:
    """Year of an ACL Anthology id such as ``P15-1001`` (2015) or ``J93-2003`` (1993);
    ``None`` if ``paper_id`` is not one."""
    match = _ACL_ID.match(paper_id)
    return PaperDate(_full_year(match.group(1))) if match else None


def arxiv_date(paper_id: str) -> PaperDate | None:
    """Year and month of an arXiv id: new style ``YYMM.NNNN[N]`` (optional ``vN``) or old
    style ``archive[.SUB]/YYMMNNN``; ``None`` if ``paper_id`` is not one (or has month 0 or
    above 12, which no arXiv id has)."""
    match = _ARXIV_NEW.match(paper_id) or _ARXIV_OLD.match(paper_id)
    if not match:
        return None
    month = int(match.group(2))
    if not 1 <= month <= 12:
        return None
    return PaperDate(_full_year(match.group(1)), month)


def paper_date(paper_id: str, scheme: str) -> PaperDate | None:
    """The date a paper id gives under ``scheme`` (``"acl"``, ``"arxiv"`` or ``"none"``);
    ``None`` when the id carries no date under it."""
    if scheme == "acl":
        return acl_anthology_date(paper_id)
    if scheme == "arxiv":
        return arxiv_date(paper_id)
    if scheme == "none":
        return None
    raise ValueError(f"unknown id scheme {scheme!r}; expected one of {ID_SCHEMES}")


def paper_year(paper_id: str, scheme: str) -> int | None:
    """The year a paper id gives under ``scheme``, or ``None``."""
    date = paper_date(paper_id, scheme)
    return date.year if date is not None else None
