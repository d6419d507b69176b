"""Published results of the benchmark papers, shipped as package data, and runs beside them.

A reviewer asks how a run stands against the numbers in the papers, and those numbers are
only worth comparing when the run was made the same way. Each paper is two files here:
``<paper>.csv`` (``dataset, setting, stage, system, measure, value, source``; values exactly
as printed, measures in ir-measures names) and ``<paper>.json`` (title, reference, unit,
decimals, split, the citeval dataset id of each dataset, how the paper scored, where the
figures come from). Adding a paper is adding its two files. Every output that shows a table's
figures says where they come from (:attr:`Paper.provenance`): the shipped goyal2026 figures
are transcribed from the paper and not verified by the package; a user's own table (a CSV
with the same columns, or a DataFrame) is accepted wherever a paper name is
(:mod:`.tables`).

:func:`published` lists or selects the tables (:mod:`.listing`); :func:`check_published`
judges each row possible or not as printed (:mod:`.check`, by :mod:`.consistency`'s linear
program over the gold paper's rank); :func:`beside_published` puts runs
next to one and says, check by check, whether it is like for like (:mod:`.comparison`).

The names below are imported from their modules on first use, so importing this package
costs nothing (pandas comes with the first table read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.hooks import names_on_first_use

# name -> the module of this package that defines it
_NAMES = {
    "COLUMNS": "tables",
    "DEFAULT_STAGE": "tables",
    "SPLITS": "tables",
    "Paper": "tables",
    "_data_dir": "tables",
    "is_table_source": "tables",
    "read_table": "tables",
    "shipped_tables": "tables",
    "split_dataset_id": "tables",
    "table_source": "tables",
    "PublishedResults": "listing",
    "PublishedCheck": "check",
    "check_published": "check",
    "impossible_rows": "consistency",
    "published": "listing",
    "SAME": "comparison",
    "DIFFERS": "comparison",
    "UNCHECKED": "comparison",
    "Check": "comparison",
    "PublishedComparison": "comparison",
    "beside_published": "comparison",
    "scoring_recipe": "comparison",
}


__getattr__, __dir__ = names_on_first_use(__name__, _NAMES)


if TYPE_CHECKING:  # for type checkers and IDEs: the names __getattr__ provides
    from .check import PublishedCheck, check_published  # noqa: F401
    from .comparison import (  # noqa: F401
        DIFFERS,
        SAME,
        UNCHECKED,
        Check,
        PublishedComparison,
        beside_published,
        scoring_recipe,
    )
    from .consistency import impossible_rows  # noqa: F401
    from .listing import PublishedResults, published  # noqa: F401
    from .tables import (  # noqa: F401
        COLUMNS,
        DEFAULT_STAGE,
        SPLITS,
        Paper,
        _data_dir,
        is_table_source,
        read_table,
        shipped_tables,
        split_dataset_id,
        table_source,
    )
