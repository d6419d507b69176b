"""Publication years and months from paper ids."""

from __future__ import annotations

import pytest

from citeval_irm.datasets import PaperDate, acl_anthology_date, arxiv_date, paper_date, paper_year


@pytest.mark.parametrize(
    ("paper_id", "year"),
    [
        ("P15-1001", 2015),
        ("N04-1019", 2004),
        ("J93-2003", 1993),
        ("W59-0101", 2059),
        ("A60-1000", 1960),
        ("D10-1120", 2010),
    ],
)
def test_acl_anthology_years(paper_id: str, year: int) -> None:
    assert acl_anthology_date(paper_id) == PaperDate(year, None)
    assert paper_year(paper_id, "acl") == year


@pytest.mark.parametrize("paper_id", ["P15", "p15-1001", "P15-100", "1503.01234", "", "XP15-1001"])
def test_not_acl_anthology_ids(paper_id: str) -> None:
    assert acl_anthology_date(paper_id) is None


@pytest.mark.parametrize(
    ("paper_id", "date"),
    [
        ("1503.01234", (2015, 3)),
        ("0704.0001", (2007, 4)),
        ("2101.00001v2", (2021, 1)),
        ("arXiv:1911.12345", (2019, 11)),
        ("hep-th/9901001", (1999, 1)),
        ("cs.CL/0101001", (2001, 1)),
        ("math.AG/0512123v3", (2005, 12)),
        ("cond-mat/9712001", (1997, 12)),
    ],
)
def test_arxiv_dates(paper_id: str, date: tuple[int, int]) -> None:
    assert arxiv_date(paper_id) == PaperDate(*date)
    assert paper_date(paper_id, "arxiv") == PaperDate(*date)


@pytest.mark.parametrize(
    "paper_id", ["1513.01234", "1500.0123", "P15-1001", "hep-th/99010", "12345", "1503.123"]
)
def test_not_arxiv_ids(paper_id: str) -> None:
    assert arxiv_date(paper_id) is None


def test_scheme_none_and_unknown_scheme() -> None:
    assert paper_year("P15-1001", "none") is None
    with pytest.raises(ValueError, match="unknown id scheme"):
        paper_year("P15-1001", "doi")
