"""Building blocks of the benchmarks' generated TREC files: ids, candidate lists, writing.

Vectorised numpy and pyarrow, driven by a seeded ``numpy.random.Generator``, so that a
benchmark's multi-million-line files are the same bytes on every machine and take seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


def acl_ids(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` distinct ACL-Anthology-style ids such as ``P15-1001``."""
    letters = np.array(list("ACDEFHIJKLMNOPQRSTUVWXYZ"))
    codes = rng.choice(len(letters) * 26 * 9000, size=count, replace=False)
    letter, rest = np.divmod(codes, 26 * 9000)
    year, number = np.divmod(rest, 9000)
    return np.char.add(
        np.char.add(letters[letter], np.char.zfill(year.astype(str), 2)),
        np.char.add("-", (number + 1000).astype(str)),
    )


def arxiv_ids(rng: np.random.Generator, count: int, first_year: int, last_year: int) -> np.ndarray:
    """``count`` distinct new-style arXiv ids of the given years (numbers up to 10,000 a month):
    ``YYMM.NNNN`` before 2015, ``YYMM.NNNNN`` from 2015 on, as arXiv numbers them."""
    codes = rng.choice((last_year - first_year + 1) * 12 * 10_000, size=count, replace=False)
    month, number = np.divmod(codes, 10_000)
    year, month = np.divmod(month, 12)
    year += first_year
    yymm = np.char.add(
        np.char.zfill((year % 100).astype(str), 2), np.char.zfill((month + 1).astype(str), 2)
    )
    digits = np.char.zfill((number + 1).astype(str), 4)
    digits = np.where(year < 2015, digits, np.char.zfill(digits, 5))
    return np.char.add(np.char.add(yymm, "."), digits)


def distinct_rows(rng: np.random.Generator, rows: int, width: int, high: int) -> np.ndarray:
    """A ``rows x width`` matrix of integers below ``high``, distinct within each row."""
    matrix = rng.integers(0, high, size=(rows, width))
    while True:
        order = np.argsort(matrix, axis=1, kind="stable")
        ordered = np.take_along_axis(matrix, order, axis=1)
        repeat = np.zeros_like(matrix, dtype=bool)
        repeat[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
        if not repeat.any():
            return matrix
        row, col = np.nonzero(repeat)
        matrix[row, order[row, col]] = rng.integers(0, high, size=row.size)


def write_trec(table: pa.Table, path: Path) -> None:
    """Write a pyarrow table as a TREC file: no header, one space between columns."""
    import pyarrow.csv as pa_csv

    options = pa_csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pa_csv.write_csv(table, str(path), write_options=options)
