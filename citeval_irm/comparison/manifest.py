"""A results table's manifest: which system's run on which dataset (columns ``system,
dataset, run``), read from a CSV or TSV file (run paths relative to it) or from rows in
memory, every bad row an error naming its line; and written, for scripts and tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ..base.errors import CitevalError, InputError
from ..base.texts import CsvRows

MANIFEST_COLUMNS = ("system", "dataset", "run")


@dataclass(frozen=True)
class Entry:
    """One manifest row: the system, the dataset id, the run's path, the manifest line."""

    system: str
    dataset: str
    run: Path
    line: int


class _Rows(NamedTuple):
    """A manifest's rows before they are checked: where they come from (``source``, the
    ``folder`` run paths are relative to), the header and its line, and each row's line
    with its cells by column."""

    source: str
    folder: Path
    header: list[str]
    header_line: int
    records: list[tuple[int, dict[str, str]]]


def read_manifest(manifest) -> list[Entry]:
    """The rows of a manifest file (CSV, or TSV when its header has a tab), or of a
    DataFrame / list of dicts with the same columns (paths then relative to the current
    folder). Bad rows, unknown datasets and missing run files are errors naming the line."""
    if isinstance(manifest, (str, Path)):
        rows = _file_rows(Path(manifest))
    else:
        rows = _frame_rows(manifest)
    _check_columns(rows)
    entries: list[Entry] = []
    seen: dict[tuple[str, str], int] = {}
    known: set[str] = set()
    for line, record in rows.records:
        system, dataset, run = _fields(rows, line, record)
        if (system, dataset) in seen:
            raise InputError(
                rows.source,
                f"{system} on {dataset} is listed twice (first on line {seen[system, dataset]})",
                line,
            )
        seen[system, dataset] = line
        if dataset not in known:
            _check_dataset(dataset, rows.source, line)
            known.add(dataset)
        path = Path(run) if Path(run).is_absolute() else rows.folder / run
        if not path.exists():
            raise InputError(rows.source, f"run file {run} not found (looked for {path})", line)
        entries.append(Entry(system, dataset, path, line))
    if not entries:
        raise InputError(rows.source, "the manifest lists no run")
    return entries


def _file_rows(path: Path) -> _Rows:
    """A manifest file's rows (CSV, or TSV when its first line has a tab; blank lines and
    ``#`` comments skipped), each with its line, by the one CSV reading
    (:class:`~citeval_irm.base.texts.CsvRows`: a row of another length is an error there)."""
    if not path.is_file():
        raise InputError(str(path), "no such manifest file")
    rows = CsvRows(
        path,
        skip=lambda line: line.startswith("#") or not line.strip(),
        names=lambda name: name.strip().lower(),
    )
    if rows.header is None or rows.header_line is None:
        raise InputError(rows.source, "the manifest is empty: give a header system, dataset, run")
    records = [(line, {k: v.strip() for k, v in cells.items()}) for line, cells in rows]
    return _Rows(rows.source, path.parent, rows.header, rows.header_line, records)


def _frame_rows(manifest) -> _Rows:
    """The rows of a DataFrame or a list of dicts (numbered as in a file with a header)."""
    frame = pd.DataFrame(manifest)
    header = [str(c).strip().lower() for c in frame.columns]
    records = [
        (n, dict(zip(header, (str(v).strip() for v in row))))
        for n, row in enumerate(frame.itertuples(index=False), 2)
    ]
    return _Rows("<manifest>", Path.cwd(), header, 1, records)


def _check_columns(rows: _Rows) -> None:
    """The header names :data:`MANIFEST_COLUMNS`, no more and no fewer."""
    missing = [c for c in MANIFEST_COLUMNS if c not in rows.header]
    unknown = [c for c in rows.header if c not in MANIFEST_COLUMNS]
    if missing or unknown:
        problem = f"missing column(s) {', '.join(missing)}" if missing else ""
        problem += ("; " if missing and unknown else "") + (
            f"unknown column(s) {', '.join(unknown)}" if unknown else ""
        )
        raise InputError(
            rows.source,
            f"{problem}: the columns are {', '.join(MANIFEST_COLUMNS)}",
            rows.header_line,
        )


def _fields(rows: _Rows, line: int, record: dict[str, str]) -> tuple[str, str, str]:
    """A row's system, dataset and run, every one given."""
    empty = [c for c in MANIFEST_COLUMNS if not record[c]]
    if empty:
        raise InputError(rows.source, f"empty {', '.join(empty)}", line)
    system, dataset, run = (record[c] for c in MANIFEST_COLUMNS)
    return system, dataset, run


def _check_dataset(dataset: str, source: str, line: int) -> None:
    """A manifest's dataset id must be known (an error naming the manifest's line)."""
    from ..datasets.registry import find_dataset

    try:
        found = find_dataset(dataset)
    except CitevalError as exc:
        raise InputError(source, getattr(exc, "problem", str(exc)), line) from None
    if found is None:
        raise InputError(source, f"unknown dataset {dataset!r}", line)
