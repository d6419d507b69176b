"""The reading plan of a run: read whole, or streamed in chunks of whole queries.

:func:`plan_reading` decides, from the size of the run file and the memory allowed
(``memory=``, default half of what the machine has available), whether the run is read
whole or streamed, and how many rows a chunk holds. :func:`prefetch` reads the next chunk in
a thread while one is scored, :class:`Progress` shows how far reading has got. Part of the
layer that reads runs (:mod:`citeval_irm.reading.sources` hands the chunks out): it knows nothing of
evaluation.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ..base.errors import InputError
from ..base.options import parse_memory

# What reading takes, measured on generated runs (benchmarks/bench_streaming.py): the
# in-memory path about 1.3 bytes per byte of text at its peak; the streamed parse about 50
# times its block size (segments of 8 blocks in three buffers, two parsed ahead: see
# trec_fast.SEGMENTS_AHEAD), so a quarter of the budget goes to it; a streamed chunk about
# 4 bytes per byte of its text plus fixed arrays (codes, scores, ranks, positions) per row.
IN_MEMORY_PER_TEXT_BYTE = 1.3
READER_PER_BLOCK = 50
CHUNK_PER_TEXT_BYTE = 4.0
CHUNK_PER_ROW = 64
CHUNKS_ALIVE = 3  # one scored, one waiting, one being read
# Chunks of at most 2**18 rows, however much memory there is: a chunk is coded, checked and
# scored while the next is parsed, and the last one's work is not overlapped by anything;
# on W1 (6 M lines) chunks of 2**18 rows (not 2**23, which made 6 chunks) took about 8%
# less time and 90 MB less peak memory, 2**17 more time (measured side by side).
MIN_CHUNK_ROWS, MAX_CHUNK_ROWS = 64, 1 << 18
# Blocks of at most 1 MB: the streaming parse of a W1 run (6 M lines) takes about 8% less CPU
# than with 4 MB blocks (they stay in cache) and its peak RSS is 310 MB, not 400 MB.
MIN_BLOCK, MAX_BLOCK = 1 << 16, 1 << 20
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

    from .parquet import parquet_files

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
    from .parquet import is_parquet

    if not isinstance(run, (str, os.PathLike)):
        return ReadingPlan(False)
    budget = parse_memory(memory) if memory is not None else available_memory() // 2
    text = os.fspath(run)
    path = Path(text)
    if "://" not in text and not path.exists():
        return ReadingPlan(False)  # the in-memory reader says what is wrong
    large, per_row = False, None  # a text file's: from its first lines, when it is streamed
    if is_parquet(run):
        rows, data = _parquet_sizes(run)
        estimate = int(data * IN_MEMORY_PER_TEXT_BYTE * 2)
        # a row of a chunk takes what a line of text would: its uncompressed bytes are about
        # its text (twice that overshot a 50 MB limit by 40 MB, 3 M rows of one row group)
        per_row = data / max(rows, 1) * CHUNK_PER_TEXT_BYTE
        size = data
    elif path.is_dir():
        return ReadingPlan(False)
    else:
        size = text_size(path)
        estimate = int(size * IN_MEMORY_PER_TEXT_BYTE)
        large = memory is None and large_streams and size > STREAM_ABOVE
        size = path.stat().st_size
    if estimate <= budget and not large:
        return ReadingPlan(False, budget=budget, estimate=estimate, size=size)
    if per_row is None:
        per_row = _line_bytes(path) * CHUNK_PER_TEXT_BYTE
    if large:  # streamed however much would fit: see STREAM_ABOVE
        budget = min(budget, STREAM_MEMORY)
    block = min(max(budget // (4 * READER_PER_BLOCK), MIN_BLOCK), MAX_BLOCK)
    rows = int((budget - READER_PER_BLOCK * block) / (CHUNKS_ALIVE * (per_row + CHUNK_PER_ROW)))
    rows = min(max(rows, MIN_CHUNK_ROWS), MAX_CHUNK_ROWS)
    return ReadingPlan(True, rows, block, budget, estimate, size)


# --------------------------------------------------------------------------- reading


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
