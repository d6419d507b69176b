"""The MasterSet Parquet layout (Ratul et al. 2026, arXiv:2604.17680): must-cite references.

The task: given only the title and abstract of a 2025 paper (NeurIPS, ICML, ICLR), rank the
references it must cite from a pool of earlier papers. Two Parquet files on Hugging Face
(``trratul/MasterSet``, ``data/train_eval_set/v1.0/``) hold one row per paper:
``paper_id, title, abstract, year, venue, authors, references``:

- ``train.parquet``: the candidate pool (67,761 papers, 2018-2024), also the training
  queries (each pool paper with its own references);
- ``eval.parquet``: the 7,028 query papers of 2025.

``references`` is a JSON list; each reference has ``matched_paper_id`` (empty when the
reference was not matched to a paper of the corpus) and three LLM labels stored as strings
("1.0", "4.0", "nan", ""). The benchmark's must-cite tiers, as its evaluation code defines
them, over references with a non-empty ``matched_paper_id``:

- ``baseline``: ``type_1_output == 1.0`` (an experimental baseline);
- ``core``: ``type_2_output >= 4.0`` (core relevance, 1-5);
- ``frequent``: ``type_3_output >= 3.0`` (mentioned often);
- ``must-cite``: any of the three.

Some gold papers are not in the pool (about 14 % of baseline-tier gold, by the authors'
count), so no system can retrieve them. ``.../test/<tier>`` keeps them, as v1 does (recall
is capped below 1); ``.../test/<tier>/in-pool`` drops them.
:func:`~..catalogue.out_of_pool_gold` says how many each query lost. The query paper is
never a candidate for itself: its id is the query's ``citing_id``, which
:func:`~..admissible.admissible_candidates` and the ``masterset2026`` recipe exclude.

Files are read with pyarrow in row batches (``references`` only when judgements are
needed); the schema is checked on every read, and a bad row is an :class:`InputError`
naming the file, the row index (0-based, as pyarrow and pandas count) and the paper id.
The releases themselves (files, sources, counts) are entries of
:mod:`~citeval_irm.datasets.masterset_coreml`.
"""

from __future__ import annotations

from ...base import irhome  # noqa: F401 (first: ir_datasets with a read-only home)

# isort: split
import math
from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any, NamedTuple, cast

import ir_datasets
from ir_datasets.formats import BaseQrels, BaseQueries

from ...base.errors import InputError, quoted
from ...base.numbers import C_SPACE, decimal_number
from ...base.texts import json_value
from ..jsonstream import Notes, kind
from ..records import MasterSetDoc, MasterSetQuery, MustCiteQrel, RecordClass
from ..sources import CorpusSource, ImportReport, corpus_file
from ..stores import StoredDocs, StoredRecords, file_version

# --------------------------------------------------------------------------- one row


LABELS = ("type_1_output", "type_2_output", "type_3_output")
TIERS = ("baseline", "core", "frequent")
MUST_CITE = "must-cite"


def _meets(tier: str, labels: tuple[float | None, ...]) -> bool:
    """Whether labels ``(type_1, type_2, type_3)`` put a reference in ``tier``."""
    type_1, type_2, type_3 = labels
    if tier == "baseline":
        return type_1 is not None and type_1 == 1.0
    if tier == "core":
        return type_2 is not None and type_2 >= 4.0
    if tier == "frequent":
        return type_3 is not None and type_3 >= 3.0
    raise ValueError(f"unknown tier {tier!r}; use one of {TIERS}")


TIER_RULES = {
    "baseline": "type_1_output == 1.0",
    "core": "type_2_output >= 4.0",
    "frequent": "type_3_output >= 3.0",
    MUST_CITE: "any of the three",
}


class Reference(NamedTuple):
    """One reference of a paper: its position in the list, the matched paper ("" if none)
    and the three labels as numbers (``None`` for "nan", "" or a missing label)."""

    position: int
    matched_paper_id: str
    labels: tuple[float | None, ...]  # one per LABELS

    def tiers(self) -> tuple[str, ...]:
        return tuple(t for t in TIERS if _meets(t, self.labels))


def where_in(row: int, paper_id: Any) -> str:
    return f"row index {row} (paper_id {paper_id!r})"


def row_paper_id(path: Path, row: int, values: dict) -> str:
    paper_id = values["paper_id"]
    if not isinstance(paper_id, str) or not paper_id:
        raise InputError(
            str(path), f"row index {row}: 'paper_id' must be a non-empty string, got {paper_id!r}"
        )
    return paper_id


def row_string(path: Path, row: int, values: dict, column: str, notes: Notes, note: str | None):
    value = values[column]
    if value is None:
        if note:
            notes.add(note, values["paper_id"])
        return ""
    if not isinstance(value, str):
        where = where_in(row, values["paper_id"])
        raise InputError(str(path), f"{where}: {column!r} must be a string, got {kind(value)}")
    return value


def row_year(path: Path, row: int, values: dict, notes: Notes) -> int | None:
    """The row's ``year``: a whole number (an integer column, or a float one holding whole
    values); null or NaN is the unknown year (``None``, noted); anything else, an infinity
    included, is an :class:`InputError` naming the file and the row."""
    year = values["year"]
    if year is None or (isinstance(year, float) and math.isnan(year)):
        notes.add("no_year", values["paper_id"])
        return None
    whole = isinstance(year, int) or (isinstance(year, float) and year.is_integer())
    if isinstance(year, bool) or not whole:  # float.is_integer(): False for an infinity
        where = where_in(row, values["paper_id"])
        raise InputError(str(path), f"{where}: 'year' must be a whole number, got {year!r}")
    return int(year)


def label_value(path: Path, where: str, key: str, value: Any) -> float | None:
    """A label as a number; ``None`` for a missing one ("", "nan", null). A string is read
    by the one rule for numbers in text (:func:`~citeval_irm.base.numbers.decimal_number`:
    decimal digits, no ``0x10`` or ``1_0``); a JSON number too large for a float is an
    error, as any other value that is no finite number."""
    if value is None:
        return None
    number = None
    if isinstance(value, str):
        text = value.strip(C_SPACE)
        if text == "" or text.lower() == "nan":
            return None
        number = decimal_number(text)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return None
        try:
            number = float(value)
        except OverflowError:  # a 400-digit JSON integer
            number = None
    if number is None or not math.isfinite(number):
        raise InputError(
            str(path), f"{where}: {key} {quoted(value)} is not a number (nor 'nan' or empty)"
        )
    return number


def parse_references(path: Path, row: int, paper_id: str, value: Any, notes: Notes) -> list:
    """The :class:`Reference` list of one row; a value that is not a JSON list, a reference
    that is not an object, or an unparsable label is an :class:`InputError`."""
    where = where_in(row, paper_id)
    if value is None:
        notes.add("no_references", paper_id)
        return []
    references = value
    if isinstance(value, str):  # by the one JSON reading: a key given twice refused too
        try:
            references = json_value(value, str(path), what="'references'")
        except InputError as exc:
            raise InputError(str(path), f"{where}: {exc.problem}") from None
    if not isinstance(references, list):
        raise InputError(
            str(path), f"{where}: 'references' must be a JSON list, got {kind(references)}"
        )
    out = []
    for position, reference in enumerate(references):
        at = f"{where}, reference {position}"
        if not isinstance(reference, dict):
            raise InputError(str(path), f"{at}: expected an object, got {kind(reference)}")
        matched = reference.get("matched_paper_id")
        if matched is not None and not isinstance(matched, str):
            raise InputError(
                str(path), f"{at}: 'matched_paper_id' must be a string, got {kind(matched)}"
            )
        labels = tuple(label_value(path, at, key, reference.get(key)) for key in LABELS)
        out.append(Reference(position, matched or "", labels))
    return out


def parse_doc(path: Path, row: int, values: dict, notes: Notes, seen: set[str]) -> MasterSetDoc:
    """The :class:`MasterSetDoc` of one row, checked; its id must not be in ``seen`` (and
    is added to it)."""
    paper_id = row_paper_id(path, row, values)
    if paper_id in seen:
        raise InputError(str(path), f"{where_in(row, paper_id)}: the paper_id occurs twice")
    seen.add(paper_id)
    return MasterSetDoc(
        paper_id,
        row_string(path, row, values, "title", notes, "no_title"),
        row_string(path, row, values, "abstract", notes, "no_abstract"),
        # None when unknown: the field is annotated int for ir_datasets' exporters
        cast(int, row_year(path, row, values, notes)),
        row_string(path, row, values, "venue", notes, None),
        row_string(path, row, values, "authors", notes, None),
    )


class QueryGold(NamedTuple):
    """The matched references of one query paper: ``(doc_id, tiers)`` per cited paper, in
    reference order, repeated cited papers merged."""

    query_id: str
    cited: list[tuple[str, frozenset[str]]]


def query_gold(path: Path, row: int, paper_id: str, references: Any, notes: Notes) -> QueryGold:
    """The :class:`QueryGold` of one row, from its raw ``references`` value."""
    merged: dict[str, set[str]] = {}
    for reference in parse_references(path, row, paper_id, references, notes):
        doc_id = reference.matched_paper_id
        if not doc_id:
            notes.add("reference_unmatched", f"{paper_id}#{reference.position}")
            continue
        if doc_id in merged:
            notes.add("reference_repeated", f"{paper_id} -> {doc_id}")
        merged.setdefault(doc_id, set()).update(reference.tiers())
    return QueryGold(paper_id, [(doc, frozenset(tiers)) for doc, tiers in merged.items()])


def tier_gold(gold: QueryGold, tier: str) -> list[tuple[str, str]]:
    """``(doc_id, tier label)`` of the papers of ``gold`` in ``tier`` (``must-cite``: any
    tier, labelled with every tier it meets, joined by ``+``)."""
    wanted = TIERS if tier == MUST_CITE else (tier,)
    out = []
    for doc_id, tiers in gold.cited:
        met = [t for t in wanted if t in tiers]
        if met:
            out.append((doc_id, "+".join(met)))
    return out


# --------------------------------------------------------------------------- the corpus


_logger = ir_datasets.log.easy("citeval_irm")  # see citeval_irm.base.progress

POOL_FILE = "train.parquet"
QUERY_FILE = "eval.parquet"
COLUMNS = ("paper_id", "title", "abstract", "year", "venue", "authors", "references")
DOC_COLUMNS = COLUMNS[:-1]
QUERY_COLUMNS = ("paper_id", "title", "abstract", "year")
SPLITS = {"test": QUERY_FILE, "train": POOL_FILE}
READINGS = ("keep", "in-pool")
_BATCH_ROWS = 2048


NOTES = {
    "no_title": "papers without a title (read as an empty string)",
    "no_abstract": "papers without an abstract (read as an empty string)",
    "no_year": "papers without a year (year None)",
    "no_references": "papers whose references are null (no references)",
    "reference_unmatched": "references without a matched_paper_id (never gold)",
    "reference_repeated": "references repeating a cited paper of the same paper "
    "(one judgement kept, tiers merged)",
    "gold_is_query_paper": "gold papers that are the query paper itself (kept; it never "
    "appears in its own ranking)",
    "gold_out_of_pool_kept": "gold papers outside the candidate pool, kept (no system can "
    "retrieve them; use .../in-pool to drop them)",
    "gold_out_of_pool_dropped": "gold papers outside the candidate pool, dropped (in-pool)",
    "queries_without_gold": "query papers with no gold paper in this tier (no qrels)",
    "rows_not_published": "files whose row count differs from the published one",
    "query_paper_in_pool": "query papers that are also in the candidate pool",
}


@dataclass(frozen=True)
class MasterSetCounts:
    """Published sizes: pool papers (``train.parquet``) and query papers (``eval.parquet``)."""

    pool: int
    queries: int

    def rows(self, file_name: str) -> int:
        return self.pool if file_name == POOL_FILE else self.queries


@dataclass(frozen=True)
class MasterSetCorpus(CorpusSource):
    """One MasterSet release: where its two Parquet files come from, and their sizes."""

    counts: MasterSetCounts
    _: KW_ONLY
    documentation: str = "masterset.yaml"

    def file_names(self) -> tuple[str, ...]:
        return (POOL_FILE, QUERY_FILE)

    def components(self) -> dict[str, tuple]:
        return masterset_components(self)

    def read_folder(self, folder: Path) -> ImportReport:
        return validate_masterset_folder(self, folder)

    def published_metadata(self) -> dict[str, dict]:
        metadata: dict[str, dict] = {self.dataset_id: {"docs": {"count": self.counts.pool}}}
        for dataset_id in tier_dataset_ids(self):
            split = dataset_id.removeprefix(f"{self.dataset_id}/").split("/")[0]
            metadata[dataset_id] = {
                "docs": {"_ref": self.dataset_id},
                "queries": {"count": self.counts.rows(SPLITS[split])},
            }
        return metadata


# --------------------------------------------------------------------------- reading rows


def iter_rows(
    path: Path, columns: tuple[str, ...], corpus: MasterSetCorpus, notes: Notes | None
) -> Iterator[tuple[int, dict]]:
    """``(row index, {column: value})`` for every row of a MasterSet Parquet file, in
    batches; the file must have every column of :data:`COLUMNS`. A row count other than
    the published one is noted in ``notes`` (when given)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(str(path), f"not a readable Parquet file: {exc}") from None
    names = parquet.schema_arrow.names
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise InputError(
            str(path), f"missing column(s) {', '.join(missing)}; the file has {', '.join(names)}"
        )
    rows, published = parquet.metadata.num_rows, corpus.counts.rows(path.name)
    if notes is not None and rows != published:
        notes.add("rows_not_published", f"{path.name}: {rows:,} rows (published {published:,})")
    row = 0
    for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=list(columns)):
        for values in batch.to_pylist():
            yield row, values
            row += 1


def read_docs(corpus: MasterSetCorpus, path: Path) -> Iterator[MasterSetDoc]:
    """The pool papers as :class:`MasterSetDoc`, streamed; tolerated oddities are logged."""
    notes = Notes(NOTES)
    seen: set[str] = set()
    for row, values in iter_rows(path, DOC_COLUMNS, corpus, notes):
        yield parse_doc(path, row, values, notes, seen)
    _log(f"{corpus.dataset_id}: {path.name}", notes)


def _log(what: str, notes: Notes) -> None:
    """Log what a full read tolerated, counted, under ``what`` (a dataset id or file): at
    INFO, as facts of the data (unmatched references, gold outside the pool) rather than
    problems, so ``--quiet`` drops them."""
    for warning in notes.warnings():
        _logger.info(f"{what}: {warning}")


def pool_ids(corpus: MasterSetCorpus, notes: Notes | None = None) -> frozenset[str]:
    """The ids of the candidate pool (read from the ``paper_id`` column only)."""
    path = corpus_file(corpus, POOL_FILE)
    rows = iter_rows(path, ("paper_id",), corpus, notes)
    return frozenset(row_paper_id(path, row, values) for row, values in rows)


def iter_gold(corpus: MasterSetCorpus, split: str, notes: Notes) -> Iterator[QueryGold]:
    """Per query paper of ``split``, its matched references and their tiers."""
    path = corpus_file(corpus, SPLITS[split])
    for row, values in iter_rows(path, ("paper_id", "references"), corpus, notes):
        paper_id = row_paper_id(path, row, values)
        yield query_gold(path, row, paper_id, values["references"], notes)


# --------------------------------------------------------------------------- components


class MasterSetQueries(BaseQueries):
    """The query papers of a split (title and abstract only), in file order."""

    def __init__(self, corpus: MasterSetCorpus, split: str):
        self._corpus = corpus
        self._split = split

    def queries_iter(self) -> Iterator[MasterSetQuery]:
        path = corpus_file(self._corpus, SPLITS[self._split])
        notes = Notes(NOTES)
        for row, values in iter_rows(path, QUERY_COLUMNS, self._corpus, notes):
            paper_id = row_paper_id(path, row, values)
            yield MasterSetQuery(
                paper_id,
                row_string(path, row, values, "title", notes, "no_title"),
                row_string(path, row, values, "abstract", notes, "no_abstract"),
                paper_id,
                # None when unknown: the field is annotated int for ir_datasets' exporters
                cast(int, row_year(path, row, values, notes)),
            )
        _log(f"{self._corpus.dataset_id}/{self._split}: {path.name}", notes)

    def queries_cls(self) -> RecordClass:
        return MasterSetQuery

    def queries_namespace(self) -> str:
        return self._corpus.dataset_id

    def queries_lang(self) -> str:
        return "en"


LABEL_OF_TIER = {"baseline": LABELS[0], "core": LABELS[1], "frequent": LABELS[2]}


class EmptyTierError(InputError):
    """A tier in which no query paper of the split has any gold: every score would be 0 or
    undefined, so loading it is an error naming the likely cause."""

    def __init__(self, corpus: MasterSetCorpus, split: str, tier: str, queries: int):
        labels = [LABEL_OF_TIER[t] for t in (TIERS if tier == MUST_CITE else (tier,))]
        cause = (
            f"no reference carries a {' / '.join(labels)} value meeting {TIER_RULES[tier]}; "
            "the likely cause is labels left empty when the release was built"
        )
        if tier == "core":
            cause += (
                ": the published toolkit's preprocessing/dataframe_builder/3-add-three-labels.py "
                '(NIU-Graph-Intelligence/masterset-toolkit, line 78) writes type_2_output = "" '
                "for every reference, so a release built with it has no core gold"
            )
        super().__init__(
            f"{corpus.dataset_id}/{split}/{tier}",
            f"the {tier} tier is empty: none of the {queries:,} query papers of "
            f"{SPLITS[split]} has a gold paper in it ({cause}). Use another tier, or files "
            "whose labels are filled in.",
        )


class MustCiteQrels(BaseQrels):
    """The gold references of one tier, out-of-pool gold kept or dropped (``reading``)."""

    def __init__(self, corpus: MasterSetCorpus, split: str, tier: str, reading: str):
        if tier not in (*TIERS, MUST_CITE) or reading not in READINGS or split not in SPLITS:
            raise ValueError(f"no MasterSet qrels for {split}/{tier}/{reading}")
        self._corpus = corpus
        self._split = split
        self._tier = tier
        self._reading = reading

    def qrels_iter(self) -> Iterator[MustCiteQrel]:
        notes = Notes(NOTES)
        pool = pool_ids(self._corpus, notes)
        queries = 0
        for gold in iter_gold(self._corpus, self._split, notes):
            queries += 1
            judged = tier_gold(gold, self._tier)
            if not judged:
                notes.add("queries_without_gold", gold.query_id)
            for doc_id, tier in judged:
                in_pool = doc_id in pool
                if doc_id == gold.query_id:
                    notes.add("gold_is_query_paper", gold.query_id)
                if not in_pool:
                    dropped = self._reading == "in-pool"
                    note = "gold_out_of_pool_dropped" if dropped else "gold_out_of_pool_kept"
                    notes.add(note, f"{gold.query_id} -> {doc_id}")
                    if dropped:
                        continue
                yield MustCiteQrel(gold.query_id, doc_id, 1, "0", tier, int(in_pool))
        if notes.counts["queries_without_gold"] == queries:
            raise EmptyTierError(self._corpus, self._split, self._tier, queries)
        reading = "/in-pool" if self._reading == "in-pool" else ""
        _log(f"{self._corpus.dataset_id}/{self._split}/{self._tier}{reading} qrels", notes)

    def qrels_count(self) -> int | None:
        """How many qrels :meth:`qrels_iter` yields, counted from the files when both are
        on this machine (:func:`tier_counts`), else ``None``: v1.0 publishes no count per
        tier, and nothing is downloaded for a count."""
        counts = tier_counts(self._corpus, self._split)
        return None if counts is None else counts[(self._tier, self._reading)]

    def qrels_defs(self) -> dict[int, str]:
        return {
            1: f"a reference of the query paper in the {self._tier} tier ({TIER_RULES[self._tier]})"
        }

    def qrels_cls(self) -> RecordClass:
        return MustCiteQrel


_TIER_COUNTS: dict[tuple, dict[tuple[str, str], int]] = {}


def tier_counts(corpus: MasterSetCorpus, split: str) -> dict[tuple[str, str], int] | None:
    """The number of qrels of every ``(tier, reading)`` of ``split``, counted in one read
    of its files (the pool's ids, the split's references), as :class:`MustCiteQrels`
    yields them; ``None`` when a file is not on this machine (nothing is downloaded). Kept
    for the process, by version of the files (path, size, modification time)."""
    found = [corpus_file(corpus, name, fetch=False) for name in (POOL_FILE, SPLITS[split])]
    paths = [path for path in found if path is not None]
    if len(paths) < len(found):
        return None
    key = (corpus.dataset_id, split, *(tuple(file_version(p).values()) for p in paths))
    if key not in _TIER_COUNTS:
        notes = Notes(NOTES)  # what the count tolerated is said when the qrels are read
        pool = pool_ids(corpus, notes)
        counts = dict.fromkeys(((t, r) for t in (*TIERS, MUST_CITE) for r in READINGS), 0)
        for gold in iter_gold(corpus, split, notes):
            for tier in (*TIERS, MUST_CITE):
                judged = [doc_id for doc_id, _ in tier_gold(gold, tier)]
                counts[(tier, "keep")] += len(judged)
                counts[(tier, "in-pool")] += sum(doc_id in pool for doc_id in judged)
        _TIER_COUNTS[key] = counts
    return _TIER_COUNTS[key]


def masterset_components(corpus: MasterSetCorpus) -> dict[str, tuple]:
    """The ir_datasets components by dataset id: the pool (docs), then per split and tier
    the docs, the query papers and the tier's qrels (out-of-pool gold kept), and the same
    with ``/in-pool`` (dropped). The docs component is shared."""
    docs = StoredDocs(
        StoredRecords(
            corpus,
            POOL_FILE,
            "docs",
            MasterSetDoc,
            lambda source: read_docs(corpus, source),
            corpus.counts.pool,
        )
    )
    components: dict[str, tuple] = {corpus.dataset_id: (docs,)}
    queries = {split: MasterSetQueries(corpus, split) for split in SPLITS}
    for dataset_id, (split, tier, reading) in tier_dataset_ids(corpus).items():
        qrels = MustCiteQrels(corpus, split, tier, reading)
        components[dataset_id] = (docs, queries[split], qrels)
    return components


def tier_dataset_ids(corpus: MasterSetCorpus) -> dict[str, tuple[str, str, str]]:
    """``(split, tier, reading)`` of each query dataset, by id, in registration order (one
    list for the components and the published metadata)."""
    ids = {}
    for split in SPLITS:
        for tier in (*TIERS, MUST_CITE):
            for reading in READINGS:
                suffix = "/in-pool" if reading == "in-pool" else ""
                ids[f"{corpus.dataset_id}/{split}/{tier}{suffix}"] = (split, tier, reading)
    return ids


def validate_masterset_folder(corpus: MasterSetCorpus, folder: Path) -> ImportReport:
    """Read both files of a MasterSet folder completely (every row, every reference and
    label) and count what they hold, with the test gold per tier and how much of it lies
    outside the pool: the :class:`~..sources.ImportReport` of ``citeval import``."""
    notes = Notes(NOTES)
    ids: dict[str, set[str]] = {}
    test_gold: list[QueryGold] = []
    for file_name in (POOL_FILE, QUERY_FILE):
        path = folder / file_name
        seen: set[str] = set()
        for row, values in iter_rows(path, COLUMNS, corpus, None):
            paper_id = parse_doc(path, row, values, notes, seen).doc_id
            gold = query_gold(path, row, paper_id, values["references"], notes)
            if file_name == QUERY_FILE:
                test_gold.append(gold)
        ids[file_name] = seen
    for paper_id in ids[QUERY_FILE] & ids[POOL_FILE]:
        notes.add("query_paper_in_pool", paper_id)
    counts = {"pool papers": len(ids[POOL_FILE]), "query papers": len(ids[QUERY_FILE])}
    for tier in (*TIERS, MUST_CITE):
        docs = [doc for gold in test_gold for doc, _ in tier_gold(gold, tier)]
        counts[f"test {tier} gold"] = len(docs)
        counts[f"test {tier} gold outside the pool"] = sum(d not in ids[POOL_FILE] for d in docs)
    published = {"pool papers": corpus.counts.pool, "query papers": corpus.counts.queries}
    return ImportReport(corpus, folder, counts, published, notes.warnings())
