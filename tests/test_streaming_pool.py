"""Streamed chunks large enough for the fast paths a real run takes: chunks of thousands of
rows whose docs come from one pool (a citation corpus's papers), so later chunks are coded
against the pool of the ones before (``tables.RunningCodes``), and chunks larger than the
duplicate check's slices (``tables.has_repeated_pairs`` sorts whole queries a slice at a
time). Both must give exactly the in-memory result: values, warnings, the line of an error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_streaming import same_result

import citeval_irm
from citeval_irm.base.options import EvalOptions, ExecutionOptions
from citeval_irm.reading.chunks import iter_run_chunks
from citeval_irm.reading.streaming import plan_reading
from citeval_irm.reading.tables import RunningCodes, has_repeated_pairs, take

CHUNK_ROWS = 14_000  # several slices of the duplicate check, several chunks a run
WHOLE = ExecutionOptions(memory="1G")  # read whole: fits


@pytest.fixture
def streamed(monkeypatch):
    """Every run streamed by default (as one above ``STREAM_ABOVE`` is), in chunks of
    ``CHUNK_ROWS``: what a run of millions of lines gets, on a run of 40,000."""
    from citeval_irm.reading import streaming

    monkeypatch.setattr(streaming, "STREAM_ABOVE", 0)
    monkeypatch.setattr(streaming, "MAX_CHUNK_ROWS", CHUNK_ROWS)
    return ExecutionOptions()


@pytest.fixture
def sliced(streamed, monkeypatch):
    """:func:`streamed`, and a chunk of a large pool coded in slices of 1,500 rows of whole
    queries (``RunningCodes.SLICE_ROWS``): several slices a chunk, as a chunk of 2**18 rows
    gets."""
    monkeypatch.setattr(RunningCodes, "SLICE_ROWS", 1_500)
    return streamed


def pool_run(tmp_path: Path, queries: int = 90, depth: int = 400, seed: int = 3, spread: int = 0):
    """A run whose docs come from a pool of ``2 * depth`` papers, most of them in every
    chunk, some first seen late (the long query and the last ones draw from papers the
    others never rank); ties, a query five times longer than the rest, run-only
    queries. ``spread``: every query draws from that many papers instead (a corpus far
    larger than a chunk's distinct docs, as ArSyTa's 474,341 papers)."""
    rng = np.random.default_rng(seed)
    papers = [f"W{n // 100:02d}-{n:04d}" for n in range(max(5 * depth + 300, spread))]
    lines, judged = [], []
    for q in range(queries):
        query = f"Q{q:03d}_{papers[q]}"
        n = depth * 5 if q == 40 else depth
        pool = len(papers) if q >= queries - 4 or q == 40 or spread else 2 * depth
        docs = rng.choice(pool, size=n, replace=False)
        scores = np.round(np.sort(rng.random(n))[::-1] * 30, 4)
        if q % 6 == 0:
            scores[10:14] = scores[10]
        if q < queries - 3:
            for rank in rng.choice(n, size=rng.integers(1, 5), replace=False):
                judged.append(f"{query} 0 {papers[docs[rank]]} {rng.integers(1, 3)}")
        lines += [
            f"{query} Q0 {papers[doc]} {rank} {score} pool"
            for rank, (doc, score) in enumerate(zip(docs, scores), 1)
        ]
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("\n".join(judged) + "\n")
    return run, qrels, lines


def test_the_chunks_are_as_large_as_the_fast_paths_need(tmp_path, streamed):
    run, _, _ = pool_run(tmp_path)
    plan = plan_reading(run)
    assert plan.stream and plan.chunk_rows == CHUNK_ROWS
    chunks = list(iter_run_chunks(run, plan.chunk_rows, block_size=plan.block_size))
    assert len(chunks) >= 2
    # the second chunk indexes the pool of the first, with the docs new to it appended
    first, second = chunks[0].doc_ids, chunks[1].doc_ids
    assert len(second) > len(first) and second.slice(0, len(first)).equals(first)
    for chunk in chunks:  # every code names the doc of its row
        assert chunk.doc.max() < len(chunk.doc_ids)


def test_a_large_pool_is_coded_a_slice_of_whole_queries_at_a_time(tmp_path, sliced):
    """Past the first chunk, a pool of more ids than a quarter of a chunk's rows: each
    chunk coded in slices of whole queries, its dictionary listing some ids more than once
    (in different queries), every code naming its row's doc and one id one code within a
    query."""
    run, _, lines = pool_run(tmp_path, spread=40_000)
    plan = plan_reading(run)
    chunks = list(iter_run_chunks(run, plan.chunk_rows, block_size=plan.block_size))
    assert len(chunks) >= 3
    docs = [line.split()[2] for line in lines]
    row = sliced_chunks = 0
    for number, chunk in enumerate(chunks):
        assert take(chunk.doc_ids, chunk.doc).to_pylist() == docs[row : row + len(chunk)]
        row += len(chunk)
        distinct = len(set(chunk.doc_ids.to_pylist()))
        if number and len(chunk) > 2 * RunningCodes.SLICE_ROWS:  # slices: ids repeated
            assert distinct < len(chunk.doc_ids)
            sliced_chunks += 1
        elif not number:  # the first chunk: coded whole, the pool
            assert distinct == len(chunk.doc_ids)
        for query in np.unique(chunk.query):
            mine = chunk.doc[chunk.query == query]
            ids = take(chunk.doc_ids, mine).to_pylist()
            assert len(set(mine.tolist())) == len(set(ids))
    assert row == len(lines) and sliced_chunks >= 1


@pytest.mark.parametrize("spread", [0, 40_000])
@pytest.mark.parametrize("ties", ["trec_eval", "run_order"])
def test_pool_coded_chunks_equal_in_memory(tmp_path, sliced, ties, spread):
    run, qrels, _ = pool_run(tmp_path, spread=spread)
    options = EvalOptions(ties=ties)
    whole = citeval_irm.evaluate(run, qrels, protocol="goyal2026", options=options, execution=WHOLE)
    chunked = citeval_irm.evaluate(
        run, qrels, protocol="goyal2026", options=options, execution=sliced
    )
    same_result(whole, chunked)
    assert chunked.ties.tied_queries > 1


@pytest.mark.parametrize("spread", [0, 40_000])
@pytest.mark.parametrize("where", [10, 16_400, 30_000])
def test_a_repeat_in_a_large_chunk_names_its_line(tmp_path, sliced, where, spread):
    """A doc listed twice, in the first chunk, in the long query that crosses slices, and in
    a late chunk (coded against the pool, or in slices): the same error and line streamed
    as in memory; ``keep_best`` the same values."""
    run, qrels, lines = pool_run(tmp_path, spread=spread)
    repeated = list(lines)
    query, _, doc, *_ = repeated[where].split()
    repeated.insert(where + 7, f"{query} Q0 {doc} 0 -1 again")
    bad = tmp_path / "dup.trec"
    bad.write_text("\n".join(repeated) + "\n")
    for execution in (sliced, WHOLE):
        with pytest.raises(citeval_irm.InputError, match=rf"dup\.trec:{where + 8}: duplicate"):
            citeval_irm.evaluate(bad, qrels, "RR", execution=execution)
    keep = EvalOptions(duplicates="keep_best")
    same_result(
        citeval_irm.evaluate(bad, qrels, protocol="goyal2026", options=keep, execution=WHOLE),
        citeval_irm.evaluate(bad, qrels, protocol="goyal2026", options=keep, execution=sliced),
    )


@pytest.mark.slow
def test_repeated_pairs_found_in_slices_as_by_one_sort():
    """The check against the count of distinct pairs, on grouped rows of queries of 1 to
    3,000 docs: of one length (a run cut at a depth), of a few (sorted as matrices), of
    many (in slices: one, many, a query longer than a slice); and on rows that are not
    grouped (one sort)."""
    rng = np.random.default_rng(11)
    for trial in range(600):
        sizes = rng.integers(1, rng.choice([40, 400, 3000]), rng.integers(1, 60))
        if trial % 4 == 1:  # one length, or two or three
            sizes = rng.choice(rng.integers(1, 400, rng.integers(1, 4)), len(sizes))
        query = np.repeat(np.arange(len(sizes)), sizes).astype(np.int32)
        ndocs = int(max(sizes.max(), rng.integers(1, 5000)))
        doc = np.concatenate([rng.choice(ndocs, s, replace=False) for s in sizes])
        if trial % 3 == 0:  # a repeat, anywhere
            row = int(rng.integers(len(doc)))
            same = np.flatnonzero(query == query[row])
            doc[row] = doc[same[(np.searchsorted(same, row) + 1) % len(same)]]
        if trial % 5 == 0:  # not grouped by query
            order = rng.permutation(len(query))
            query, doc = query[order], doc[order]
        doc = doc.astype(np.int32)
        distinct = len(np.unique(query.astype(np.int64) * ndocs + doc))
        assert has_repeated_pairs(query, doc, ndocs) == (distinct < len(query)), trial


def test_a_run_checked_once_is_not_sorted_again_and_an_unchecked_one_is(tmp_path):
    """``Run.unique`` is set by a duplicate check that found no repeat (and on the copy
    ``keep_best`` leaves); a Run built with repeats and not checked is still checked."""
    from citeval_irm.reading.tables import Run

    run, _, lines = pool_run(tmp_path, queries=6, depth=50)
    read = citeval_irm.read_run(run)
    assert read.unique
    built = Run.from_columns(["q1", "q1", "q2"], ["d1", "d1", "d1"], [3.0, 2.0, 1.0])
    assert not built.unique
    with pytest.raises(citeval_irm.InputError, match="duplicate score for query 'q1'"):
        citeval_irm.read_run(built)
    kept = citeval_irm.read_run(built, duplicates="keep_best")
    assert kept.unique and len(kept) == 2
    assert citeval_irm.read_run(kept, duplicates="keep_best") is kept


def test_lookup_unique_probes_either_side_and_keeps_nothing():
    """``lookup_unique`` answers as ``lookup`` whichever side it builds its hash table of
    (the values, or a dictionary more than twice their size), and keeps nothing between
    calls (issue 43: no hidden global cache): the same pair asked twice is computed twice,
    into arrays the caller owns."""
    import pyarrow as pa

    from citeval_irm.reading import tables
    from citeval_irm.reading.tables import lookup, lookup_unique

    queries = pa.array(["q3", "q1", "q9", "x"])
    for dictionary in (pa.array(["q9", "q1", "q3"]), pa.array([f"q{n}" for n in range(10)])):
        expected = lookup(queries, dictionary).tolist()
        first = lookup_unique(queries, dictionary)
        assert first.tolist() == expected
        again = lookup_unique(queries, dictionary)
        assert again is not first and again.tolist() == expected
        again[0] = 5  # the caller's own array, written freely
        assert lookup_unique(queries, dictionary).tolist() == expected
    assert lookup_unique(pa.array(["q3", "q1", "q9", "x"]), pa.array(["q1"])).tolist() == [
        -1,
        0,
        -1,
        -1,
    ]
    assert not [name for name in vars(tables) if name.upper() == name and "LOOKUP" in name]
