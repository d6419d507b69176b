"""The published tables: the ones shipped with the package and one a user gives, with where
their numbers come from.

A shipped table is ``<paper>.csv`` (``dataset, setting, stage, system, measure, value,
source``) and its sidecar ``<paper>.json``; the sidecar's ``provenance`` says how its
numbers were had. The goyal2026 figures were transcribed from the paper by hand and no
stored copy of its tables exists to check them against, so they are labelled
"transcribed from arXiv:2603.17361 (version unknown: v1 of 2026-03-18 or v2 of
2026-04-14), not verified by the package" in every output. A sidecar may say ``"verified":
true`` only with ``"verified_by"`` naming the test that checks the figures against their
source.

A user's own table (a CSV file with the same columns, or a DataFrame of them) is read by
:func:`table_source` wherever a paper name is accepted, and labelled "from FILE (given by the
user)".
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ...base.errors import InputError
from ...base.measures import parse_measures
from ...base.texts import CsvRows, json_file

COLUMNS = ("dataset", "setting", "stage", "system", "measure", "value", "source")
SPLITS = ("train", "val", "test")
DEFAULT_STAGE = "end-to-end"
USER_DEFAULT_SPLIT = "test"


@dataclass(frozen=True)
class Paper:
    """What a paper's sidecar JSON says about its table (or, for a user's table, what its
    rows say). ``provenance``: where the numbers come from and whether the package checked
    them, shown beside them in every output."""

    name: str
    title: str
    reference: str
    tables: str
    protocol: str | None
    unit: str
    decimals: int
    split: str
    datasets: dict[str, str]
    notes: dict[str, str] = field(default_factory=dict)
    provenance: str = ""
    user: bool = False

    @property
    def percent(self) -> bool:
        return self.unit == "percent"

    def table_dataset(self, dataset: str) -> str | None:
        """The table's name for a dataset given by table name (any case) or citeval id."""
        base, _ = split_dataset_id(dataset)
        for name, dataset_id in self.datasets.items():
            if dataset.lower() == name.lower() or base == dataset_id:
                return name
        return None


def split_dataset_id(dataset_id: str) -> tuple[str, str | None]:
    """``("citeval/acl-200", "test")`` from ``"citeval/acl-200/test"`` (the first of train,
    val, test in the id is the split; no split: ``None``)."""
    parts = dataset_id.split("/")
    for position, part in enumerate(parts):
        if part in SPLITS:
            return "/".join(parts[:position]), part
    return dataset_id, None


def _data_dir() -> Path:
    return Path(str(resources.files(__package__)))


@functools.lru_cache(maxsize=1)
def shipped_tables() -> tuple[dict[str, Paper], pd.DataFrame]:
    """Every shipped paper and one frame of all their rows (read once)."""
    papers, frames = {}, []
    for path in sorted(_data_dir().glob("*.csv")):
        paper = _read_paper(path.with_suffix(".json"))
        papers[paper.name] = paper
        frames.append(read_table(path).assign(paper=paper.name, split=paper.split))
    frame = pd.concat(frames, ignore_index=True)
    return papers, frame[["paper", "dataset", "split", *COLUMNS[1:]]]


def provenance_label(meta: dict, source: str) -> str:
    """The provenance line of a shipped table, from its sidecar's ``provenance``: how the
    figures were had, from which version of the source, and whether a test checks them."""
    how = meta.get("provenance")
    if not isinstance(how, dict) or "from" not in how:
        raise InputError(source, "needs a provenance: {from, version, verified}")
    version, method = how.get("version"), how.get("method", "transcribed")
    if version:
        which = f"v{version}"
    elif how.get("versions"):  # the source has several and which was read is unknown
        which = f"version unknown: {' or '.join(how['versions'])}"
    else:
        which = "version not recorded"
    shown = f"{how['from']} ({which})"
    if how.get("verified"):
        if not how.get("verified_by"):
            raise InputError(source, "says verified without naming the test (verified_by)")
        return f"{method} from {shown}, checked against it by {how['verified_by']}"
    return f"{method} from {shown}, not verified by the package"


def _read_paper(path: Path) -> Paper:
    if not path.is_file():
        raise InputError(str(path), "missing: each published table needs its JSON sidecar")
    meta = json_file(path)
    fields = {"paper", "title", "reference", "tables", "protocol", "unit", "decimals", "split"}
    notes = {  # free text
        k: v for k, v in meta.items() if k not in fields | {"datasets", "provenance"}
    }
    return Paper(
        name=meta["paper"],
        title=meta["title"],
        reference=meta["reference"],
        tables=meta["tables"],
        protocol=meta.get("protocol"),
        unit=meta["unit"],
        decimals=int(meta["decimals"]),
        split=meta["split"],
        datasets=dict(meta["datasets"]),
        notes=notes,
        provenance=provenance_label(meta, str(path)),
    )


def read_table(path: str | Path) -> pd.DataFrame:
    """One paper's CSV, checked: the seven columns, numeric values, known measures, no
    repeated (dataset, setting, stage, system, measure)."""
    return checked_table(_csv_frame(path), str(path))


def _csv_frame(path: str | Path) -> pd.DataFrame:
    """A table file's cells as text, by the one CSV reading
    (:class:`~citeval_irm.base.texts.CsvRows`: a row of another length than the header, an
    unclosed quote or bytes that are not UTF-8 are errors naming the line)."""
    try:
        rows = CsvRows(Path(path), delimiter=",")
        cells = [row for _, row in rows]
    except OSError as exc:
        raise InputError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    return pd.DataFrame(cells, columns=rows.header or [], dtype=str)


def checked_table(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """A table's rows checked as :func:`read_table` checks a file's (lines counted from
    the header, line 1); values as floats."""
    if tuple(frame.columns) != COLUMNS:
        raise InputError(source, f"columns must be {', '.join(COLUMNS)}, not {list(frame.columns)}")
    if frame.empty:
        raise InputError(source, "has no rows")
    frame = frame.reset_index(drop=True)
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy())
    if len(bad):
        line = int(bad[0]) + 2  # header is line 1
        raise InputError(source, f"value {frame['value'].iloc[bad[0]]!r} is not a number", line)
    parse_measures(sorted(set(frame["measure"].astype(str))))  # an unknown measure is an error
    key = list(COLUMNS[:5])
    repeated = np.flatnonzero(frame.duplicated(key).to_numpy())
    if len(repeated):
        raise InputError(
            source, "repeats a (dataset, setting, stage, system, measure)", int(repeated[0]) + 2
        )
    text = frame[list(COLUMNS[:5]) + ["source"]].astype(str)
    return text.assign(value=values.astype(float))[list(COLUMNS)]


# --------------------------------------------------------------------------- a user's table


def is_table_source(value) -> bool:
    """Whether ``value`` is a table rather than a name: a DataFrame, a path object, or a
    string naming an existing file or ending in ``.csv``."""
    if isinstance(value, pd.DataFrame | os.PathLike):
        return True
    return isinstance(value, str) and (value.lower().endswith(".csv") or Path(value).is_file())


def table_source(paper) -> tuple[str | None, dict[str, Paper], pd.DataFrame]:
    """The tables ``paper`` selects: ``(name, papers, rows)``. ``None`` or a shipped
    paper's name: every shipped table (``name`` the one asked); a CSV path or a DataFrame
    with the shipped columns: that table alone, labelled as given by the user."""
    papers, frame = shipped_tables()
    if paper is None or (isinstance(paper, str) and paper in papers):
        return paper, papers, frame
    if not is_table_source(paper):
        raise InputError(
            None,
            f"no published results of {paper!r}; shipped: {', '.join(papers)}; or give a CSV "
            f"file with the columns {', '.join(COLUMNS)}",
        )
    if isinstance(paper, pd.DataFrame):
        given = paper.reset_index(drop=True)
        rows = checked_table(given.astype({c: str for c in COLUMNS if c in given}), "DataFrame")
        decimals = None
        label = "a DataFrame"
    else:
        label = os.fspath(paper)
        if not Path(label).is_file():
            raise InputError(
                label,
                f"no such file (a published table: a CSV with the columns {', '.join(COLUMNS)})",
            )
        given = _csv_frame(label)
        rows = checked_table(given, label)
        decimals = _decimals(given["value"])
    user = user_paper(rows, label, decimals)
    frame = rows.assign(paper=user.name, split=user.split)
    return user.name, {user.name: user}, frame[["paper", "dataset", "split", *COLUMNS[1:]]]


def _decimals(values: pd.Series) -> int:
    """The most decimals a value of the file is written with."""
    found = [len(m.group(1)) for v in values if (m := re.search(r"\.(\d+)$", v.strip()))]
    return max(found, default=0)


def user_paper(rows: pd.DataFrame, label: str, decimals: int | None) -> Paper:
    """What a user's table says of itself: its datasets (a citeval id as written, or the
    id a shipped paper gives a table name), its split (from the ids, else test, said in a
    note), its unit (percent when a value is above 1, said in a note)."""
    papers, _ = shipped_tables()
    known = {n.lower(): i for p in papers.values() for n, i in p.datasets.items()}
    datasets, splits = {}, set()
    for name in dict.fromkeys(rows["dataset"]):
        base, split = split_dataset_id(name)
        datasets[name] = base if name.startswith("citeval/") else known.get(name.lower(), name)
        splits |= {split} if split else set()
    notes = {}
    if len(splits) > 1:
        several = ", ".join(sorted(splits))
        raise InputError(label, f"names several splits ({several}): one per table")
    split = splits.pop() if splits else USER_DEFAULT_SPLIT
    if not rows["dataset"].str.startswith("citeval/").any():
        notes["split_note"] = (
            f"the table names no split: {split} assumed (write a dataset as a citeval id with "
            "its split, e.g. citeval/acl-200/test, to name it)"
        )
    percent = bool((rows["value"] > 1).any())
    notes["unit_note"] = (
        "values read as percent (a value is above 1)"
        if percent
        else "values read as fractions (none is above 1)"
    )
    label_text = f"from {label} (given by the user)"
    return Paper(
        name=label,
        title=label,
        reference=label_text,
        tables="its own rows",
        protocol=None,
        unit="percent" if percent else "fraction",
        decimals=decimals if decimals is not None else (2 if percent else 4),
        split=split,
        datasets=datasets,
        notes=notes,
        provenance=label_text,
        user=True,
    )
