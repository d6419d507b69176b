"""Runs larger than memory: read in chunks of whole queries and scored chunk by chunk.

:func:`plan_reading` decides, from the size of the run file and the memory allowed
(``memory=``, default half of what the machine has available), whether the run is read
whole or streamed, and how many rows a chunk holds. :func:`evaluate_stream` scores each
chunk with the same core as the in-memory path (:func:`score_part`) and
:func:`merge_parts` puts the per-query rows together: exact, since a query's values depend
only on its own rows and judgements. The query population, the warnings (duplicates, ties,
run-only and missing queries) and the aggregates are computed over the whole run, once, as
in memory. The Dask engine (:mod:`citeval_irm.daskengine`) scores partitions with the same
two functions.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from .errors import EvalWarning, InputError, examples_of
from .evaluation import (
    Population,
    Settings,
    counted_queries,
    engine_values,
    make_result,
    population_of,
)
from .options import parse_memory
from .results import EvalResult, RankedQueries
from .tables import Qrels, Run, lookup, take
from .ties import TieReport, rank_order, tie_report

# What reading takes, measured on generated runs (benchmarks/bench_streaming.py): the
# in-memory path about 1.3 bytes per byte of text at its peak; pyarrow's streaming CSV
# reader about 40 times its block size (it parses blocks ahead, on every core), so a
# quarter of the budget goes to it; a streamed chunk about 4 bytes per byte of its text
# plus fixed arrays (codes, scores, ranks, positions) per row.
IN_MEMORY_PER_TEXT_BYTE = 1.3
READER_PER_BLOCK = 40
CHUNK_PER_TEXT_BYTE = 4.0
CHUNK_PER_ROW = 64
CHUNKS_ALIVE = 3  # one scored, one waiting, one being read
MIN_CHUNK_ROWS, MAX_CHUNK_ROWS = 64, 1 << 23
MIN_BLOCK, MAX_BLOCK = 1 << 16, 1 << 22
# A TREC run of more text than this is streamed even when it would fit (in chunks planned
# for STREAM_MEMORY): measured on W1-style runs (benchmarks/bench_pipeline.py, README),
# streaming takes no more time from about 6 M lines on (it parses one chunk while the one
# before is scored) and a fraction of the memory (30 M lines: 0.4 GB against 1.5 GB).
# Read at call time: a test or a user may change it.
STREAM_ABOVE = 256 << 20
STREAM_MEMORY = 1 << 30


def available_memory() -> int:
    """Memory the machine has available now (``MemAvailable``), else its physical memory."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def text_size(path: Path) -> int:
    """Bytes of text in a TREC file: its size, or for gzip an estimate. A gzip trailer
    holds the size of its last member modulo 2**32, which is the whole text only for a
    one-member file; so the text is also estimated from how much the first megabytes
    decompress to, and the trailer is believed only when it agrees (a file of several
    members, as ``cat a.gz b.gz`` or bgzip make, gets the ratio's estimate)."""
    import gzip
    import zlib

    size = path.stat().st_size
    with open(path, "rb") as handle:
        if handle.read(2) != b"\x1f\x8b" or size < 18:
            return size
        handle.seek(-4, os.SEEK_END)
        trailer = int.from_bytes(handle.read(4), "little")
        handle.seek(0)
        with gzip.GzipFile(fileobj=handle) as text:
            try:
                head = len(text.read(_SAMPLE_TEXT))
            except (OSError, EOFError, zlib.error):
                return 2 * size  # the reader says what is wrong with it
            used = max(handle.tell(), 1)
    if head < _SAMPLE_TEXT:
        return head  # the whole text was read
    ratio = head / used * size
    estimate = trailer
    while estimate < ratio - 2**31:
        estimate += 2**32
    return estimate if abs(estimate - ratio) <= ratio / 2 else int(ratio)


_SAMPLE_TEXT = 1 << 23  # 8 MB of text: a few hundred KB of gzip


def _line_bytes(path: Path) -> float:
    """Average bytes per line over the first 64 KB of text."""
    import gzip

    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    try:
        with opener(path, "rb") as handle:
            head = handle.read(1 << 16)
    except (OSError, EOFError) as exc:  # a gzip cut short, or not gzip after its magic
        raise InputError(str(path), f"cannot be read: {exc}") from None
    lines = head.count(b"\n")
    return len(head) / lines if lines else max(len(head), 1)


def _parquet_sizes(source) -> tuple[int, int]:
    """Rows and uncompressed bytes of a Parquet file or dataset, from the file footers."""
    import pyarrow.parquet as pq

    from .io import parquet_files

    filesystem, files = parquet_files(source)
    rows = size = 0
    for name in files:
        try:
            with filesystem.open_input_file(name) as handle:
                meta = pq.ParquetFile(handle).metadata
        except (OSError, pa.ArrowException) as exc:  # cut short, damaged, not Parquet
            raise InputError(name, f"cannot be read as Parquet: {exc}") from None
        rows += meta.num_rows
        size += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return rows, size


@dataclass(frozen=True)
class ReadingPlan:
    """Whether a run is streamed, in chunks of how many rows, and why."""

    stream: bool
    chunk_rows: int = 0
    block_size: int = 0  # bytes the reader parses at a time
    budget: int = 0  # bytes reading the run may take
    estimate: int = 0  # bytes reading it whole would take
    size: int = 0  # bytes of its file (what progress counts)


def plan_reading(
    run, memory: int | str | None = None, *, large_streams: bool = True
) -> ReadingPlan:
    """Read ``run`` whole when it is a file expected to fit in ``memory`` (default: half of
    the memory available), else in chunks sized to fit; anything already in memory (a
    DataFrame, a Run) is used as it is. Without ``memory``, a TREC file of more than
    :data:`STREAM_ABOVE` bytes of text is streamed all the same (``large_streams``), in
    chunks planned for :data:`STREAM_MEMORY`."""
    from .io import is_parquet

    if not isinstance(run, (str, os.PathLike)):
        return ReadingPlan(False)
    budget = parse_memory(memory) if memory is not None else available_memory() // 2
    text = os.fspath(run)
    path = Path(text)
    if "://" not in text and not path.exists():
        return ReadingPlan(False)  # the in-memory reader says what is wrong
    large = False
    if is_parquet(run):
        rows, data = _parquet_sizes(run)
        estimate, per_row = int(data * IN_MEMORY_PER_TEXT_BYTE * 2), data / max(rows, 1) * 2
        size = data
    elif path.is_dir():
        return ReadingPlan(False)
    else:
        size = text_size(path)
        estimate = int(size * IN_MEMORY_PER_TEXT_BYTE)
        per_row = _line_bytes(path) * CHUNK_PER_TEXT_BYTE
        large = memory is None and large_streams and size > STREAM_ABOVE
        size = path.stat().st_size
    if estimate <= budget and not large:
        return ReadingPlan(False, budget=budget, estimate=estimate, size=size)
    if large:  # streamed however much would fit: see STREAM_ABOVE
        budget = min(budget, STREAM_MEMORY)
    block = min(max(budget // (4 * READER_PER_BLOCK), MIN_BLOCK), MAX_BLOCK)
    rows = int((budget - READER_PER_BLOCK * block) / (CHUNKS_ALIVE * (per_row + CHUNK_PER_ROW)))
    rows = min(max(rows, MIN_CHUNK_ROWS), MAX_CHUNK_ROWS)
    return ReadingPlan(True, rows, block, budget, estimate, size)


# --------------------------------------------------------------------------- parts


@dataclass
class Part:
    """What scoring one piece of whole queries leaves: its per-query values and the facts
    the whole run's population, warnings and tie report are made of."""

    rows: np.ndarray  # positions in qrels.all_query_ids of the counted queries scored
    values: np.ndarray  # one row per position of ``rows``
    run_ids: pa.Array  # the piece's run queries, first-appearance order
    sizes: np.ndarray  # rows of each of ``run_ids``
    tie_examples: tuple[str, ...]
    tie_ids: frozenset[str]
    tied_docs: int
    warnings: list[EvalWarning]


def score_part(run: Run, qrels: Qrels, settings: Settings) -> Part:
    """Score the queries of ``run`` (whole queries, any subset of a run) that count."""
    present, sizes = run.ranked_queries()
    run_ids = take(run.query_ids, present)
    counted = np.zeros(len(qrels.all_query_ids), dtype=bool)
    counted[counted_queries(qrels, settings.empty_queries)] = True
    in_qrels = lookup(run_ids, qrels.all_query_ids)
    rows = in_qrels[in_qrels >= 0]
    rows = rows[counted[rows]]
    people = Population(rows, take(qrels.all_query_ids, rows).to_pylist(), [], qrels.source)
    order = rank_order(run, settings.ties, settings.max_docs)
    report = tie_report(run, order)
    values = engine_values(settings, run, qrels, people, order)
    return Part(
        rows,
        values,
        run_ids,
        sizes,
        report.examples,
        report.query_ids,
        report.tied_docs,
        list(run.warnings),
    )


def empty_run(source: str = "<run>") -> Run:
    """A run with no row: what a query no piece ranks is scored on."""
    no_ids = pa.nulls(0, pa.string())
    empty = np.zeros(0, dtype=np.int32)
    return Run(empty, no_ids, empty.copy(), no_ids, np.zeros(0), source)


def unranked_values(
    settings: Settings, qrels: Qrels, positions: np.ndarray, source: str = "<run>"
) -> np.ndarray:
    """Per-query values of the qrels queries at ``positions`` (in ``all_query_ids``) when
    the run ranks none of them: each scored on an empty ranking, as ``trec_eval -c``."""
    nothing = empty_run(source)
    left = Population(positions, take(qrels.all_query_ids, positions).to_pylist(), [])
    return engine_values(settings, nothing, qrels, left, rank_order(nothing, settings.ties))


_RUN_WARNING_ORDER = (
    "duplicate_docs_dropped",
    "duplicate_docs_kept",
    "run_extra_text",
    "run_comment_lines",
)


def merge_warnings(lists: Iterable[list[EvalWarning]]) -> list[EvalWarning]:
    """One warning per code: counts added, the first examples kept, in the order the
    in-memory reader gives them."""
    merged: dict[str, EvalWarning] = {}
    for warnings in lists:
        for w in warnings:
            known = merged.get(w.code)
            if known is None:
                merged[w.code] = w
            else:
                examples = examples_of((*known.examples, *w.examples))
                merged[w.code] = replace(known, count=known.count + w.count, examples=examples)
    rank = {code: i for i, code in enumerate(_RUN_WARNING_ORDER)}
    return sorted(merged.values(), key=lambda w: rank.get(w.code, len(rank)))


def merge_parts(
    parts: list[Part],
    qrels: Qrels,
    settings: Settings,
    protocol,
    source: str,
    notes: list[EvalWarning] | None = None,
) -> EvalResult:
    """The evaluation of a whole run from its parts (in run order): per-query rows put in
    the population's order, the queries no part ranks scored on an empty ranking, the
    warnings and tie report of the whole run (``notes``: warnings of reading the run that
    no part holds, merged with theirs)."""
    run_ids = pa.concat_arrays([p.run_ids for p in parts]) if parts else pa.nulls(0, pa.string())
    people = population_of(run_ids, source, qrels, settings.empty_queries)
    row_of = np.full(len(qrels.all_query_ids), -1, dtype=np.int64)
    row_of[people.counted] = np.arange(len(people.counted))
    values = np.zeros((len(people.counted), len(settings.measures)))
    scored = np.zeros(len(qrels.all_query_ids), dtype=bool)
    for part in parts:
        values[row_of[part.rows]] = part.values
        scored[part.rows] = True
    missing = people.counted[~scored[people.counted]]
    if missing.size:
        values[row_of[missing]] = unranked_values(settings, qrels, missing, source)
    tie_ids = frozenset().union(*(p.tie_ids for p in parts))
    report = TieReport(
        settings.ties,
        sum(p.tied_docs for p in parts),
        examples_of(e for p in parts for e in p.tie_examples),
        tie_ids,
    )
    tie_warning = report.warning()
    warnings = (
        merge_warnings([*(p.warnings for p in parts), list(notes or [])])
        + list(qrels.warnings)
        + people.warnings
        + ([tie_warning] if tie_warning else [])
    )
    sizes = np.concatenate([p.sizes for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    ranked = RankedQueries(run_ids.to_pylist(), sizes)
    return make_result(
        settings, people, values, warnings, report, protocol, source, qrels.source, ranked
    )


def check_whole_queries(parts: list[Part], source: str) -> None:
    """Each query in one part only (else the parts did not hold whole queries)."""
    import pyarrow.compute as pc

    if not parts:
        return
    run_ids = pa.concat_arrays([p.run_ids for p in parts])
    counts = pc.value_counts(run_ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        from .chunks import NotGrouped

        raise NotGrouped(source, repeated[0].as_py(), 0)


# --------------------------------------------------------------------------- streaming


class Progress:
    """A progress bar of bytes read and queries scored (tqdm), or nothing."""

    def __init__(self, total: int, show: bool | None, what: str, unit: str = "B"):
        self.bar = None
        if show is None:
            show = sys.stderr.isatty()
        if show:
            from tqdm import tqdm

            scale = {"unit_scale": True, "unit_divisor": 1024} if unit == "B" else {}
            self.bar = tqdm(total=total, unit=unit, desc=what, leave=False, **scale)
        self.position = 0
        self.queries = 0

    def read(self, position: int) -> None:
        if self.bar is not None and position > self.position:
            self.bar.update(position - self.position)
            self.position = position

    def scored(self, queries: int) -> None:
        self.queries += queries
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self.queries:,} queries scored", refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def prefetch(chunks: Iterator, depth: int = 1) -> Iterator:
    """``chunks`` read one ahead in a thread, so parsing (pyarrow, without the GIL) and
    scoring use two cores; an error of the reader is raised where the chunk would be."""
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def read() -> None:
        try:
            for chunk in chunks:
                while not stop.is_set():
                    try:
                        handoff.put((chunk, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            handoff.put((done, None))
        except BaseException as exc:  # handed to the consumer, raised there
            handoff.put((done, exc))

    thread = threading.Thread(target=read, name="citeval-reader", daemon=True)
    thread.start()
    try:
        while True:
            chunk, error = handoff.get()
            if chunk is done:
                if error is not None:
                    raise error
                return
            yield chunk
    finally:
        stop.set()
        while thread.is_alive():
            with contextlib.suppress(queue.Empty):
                handoff.get(timeout=0.1)
        thread.join()


def evaluate_stream(
    run, qrels: Qrels, settings: Settings, protocol, plan: ReadingPlan, progress: bool | None
) -> EvalResult:
    """Evaluate the run file ``run`` chunk by chunk (see the module docstring)."""
    from .chunks import over_whole_queries

    bar = Progress(plan.size, progress, "citeval: reading the run")

    def score(chunks: Iterator[Run]) -> list[Part]:
        parts: list[Part] = []
        for chunk in prefetch(chunks):
            part = score_part(chunk, qrels, settings)
            del chunk
            parts.append(part)
            bar.scored(len(part.run_ids))
        return parts

    try:
        parts, notes = over_whole_queries(
            run, plan.chunk_rows, plan, settings.duplicates, score, on_bytes=bar.read
        )
    finally:
        bar.close()
    return merge_parts(parts, qrels, settings, protocol, os.fspath(run), notes)
