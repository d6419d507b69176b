"""Streaming: a run read in chunks of whole queries gives exactly the in-memory result.

``memory=`` small enough makes evaluate stream a file in chunks of a few hundred rows, so
these runs of a few thousand lines cross many chunk and block boundaries.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_io_rules import files

import citeval_irm
from citeval_irm.base.options import EvalOptions, ExecutionOptions, parse_memory
from citeval_irm.cli import main
from citeval_irm.reading.chunks import NotGrouped, iter_run_chunks
from citeval_irm.reading.streaming import plan_reading

TINY = "64K"  # streams every file below, in chunks of about a hundred rows


def citation_run(
    tmp_path: Path, queries: int = 120, depth: int = 60, seed: int = 7
) -> tuple[Path, Path]:
    """A generated ACL-style run and qrels with what real runs have: ties (some around the
    relevant doc), graded and unjudged docs, queries only in the run, qrels queries the run
    lacks, a qrels query without a relevant doc, and a query longer than a chunk."""
    rng = np.random.default_rng(seed)
    years = rng.integers(9, 16, 3000)
    papers = np.array([f"P{year:02d}-{n:04d}" for n, year in enumerate(years)])
    lines, judged = [], []
    for q in range(queries):
        query = f"{papers[q]}_{papers[q + 1000]}_{q % 3}"
        n = depth * 12 if q == 5 else depth  # one query spans several chunks
        docs = rng.choice(len(papers), size=n, replace=False)
        scores = np.round(np.sort(rng.random(n))[::-1] * 20, 3)
        if q % 7 == 0:
            scores[3:7] = scores[3]  # a tie
        if q < queries - 5:  # the last five are run-only queries
            for rank in rng.choice(n, size=rng.integers(1, 4), replace=False):
                judged.append(f"{query} 0 {papers[docs[rank]]} {rng.integers(1, 3)}")
            judged.append(f"{query} 0 {papers[2999 - q]} 0")  # judged, not retrieved
        for rank, (doc, score) in enumerate(zip(docs, scores), 1):
            lines.append(f"{query} Q0 {papers[doc]} {rank} {score} sys")
    judged.append("P15-9999_P10-0001_0 0 P10-0001 1")  # a qrels query the run lacks
    judged.append("P15-9998_P10-0002_0 0 P10-0002 0")  # no relevant doc at all
    run = tmp_path / "run.trec"
    run.write_text("\n".join(lines) + "\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("\n".join(judged) + "\n")
    return run, qrels


def same_result(a, b) -> None:
    assert a.query_ids == b.query_ids
    assert np.array_equal(a.values, b.values)
    assert a.aggregates == b.aggregates
    assert [w.to_dict() for w in a.warnings] == [w.to_dict() for w in b.warnings]
    assert a.ties == b.ties


@pytest.mark.parametrize("ties", ["trec_eval", "run_order"])
@pytest.mark.parametrize("empty_queries", ["zero", "skip"])
def test_streamed_equals_in_memory(tmp_path, ties, empty_queries):
    run, qrels = citation_run(tmp_path)
    assert plan_reading(run, TINY).stream and not plan_reading(run).stream
    fields = {"ties": ties, "empty_queries": empty_queries}
    whole = citeval_irm.evaluate(run, qrels, protocol="goyal2026", options=EvalOptions(**fields))
    streamed = citeval_irm.evaluate(
        run,
        qrels,
        protocol="goyal2026",
        options=EvalOptions(**fields),
        execution=ExecutionOptions(memory=TINY),
    )
    same_result(whole, streamed)
    codes = {w.code for w in streamed.warnings}
    assert {"run_only_queries", "missing_queries", "queries_without_relevant"} <= codes
    assert streamed.ties.tied_queries > 1


def test_a_run_above_the_threshold_is_streamed_by_default(tmp_path, monkeypatch):
    """Without ``memory=``, a TREC run of more text than ``STREAM_ABOVE`` is streamed (the
    same values and warnings); ``memory=`` keeps its meaning, and convert writes one file."""
    from citeval_irm.reading import streaming

    run, qrels = citation_run(tmp_path)
    whole = citeval_irm.evaluate(run, qrels, protocol="goyal2026")
    assert not plan_reading(run).stream
    monkeypatch.setattr(streaming, "STREAM_ABOVE", run.stat().st_size - 1)
    plan = plan_reading(run)
    assert plan.stream and plan.budget == streaming.STREAM_MEMORY
    assert not plan_reading(run, "1G").stream
    assert not plan_reading(run, large_streams=False).stream
    same_result(whole, citeval_irm.evaluate(run, qrels, protocol="goyal2026"))
    assert citeval_irm.convert(run, tmp_path / "run.parquet").path.is_file()


def test_gzip_extra_text_duplicates_and_other_engines(tmp_path):
    run, qrels = citation_run(tmp_path, queries=60)
    lines = run.read_text().splitlines()
    lines[100] += " trailing words"  # text after the 6th column, as trec_eval allows
    lines.insert(2000, lines[1990].replace(" sys", " dup"))  # a repeated (query, doc)
    packed = tmp_path / "run.trec.gz"
    packed.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    measures = "RR R@10 nDCG@10 AP Bpref"
    whole = citeval_irm.evaluate(
        packed, qrels, measures, options=EvalOptions(duplicates="keep_best")
    )
    streamed = citeval_irm.evaluate(
        packed,
        qrels,
        measures,
        options=EvalOptions(duplicates="keep_best"),
        execution=ExecutionOptions(memory=TINY),
    )
    same_result(whole, streamed)
    assert {"run_extra_text", "duplicate_docs_dropped"} <= {w.code for w in streamed.warnings}
    verified = citeval_irm.evaluate(
        packed,
        qrels,
        "RR nDCG@10",
        options=citeval_irm.EvalOptions(duplicates="keep_best"),
        execution=citeval_irm.ExecutionOptions(memory=TINY, verify=True),
    )
    assert verified.aggregate["RR"] == whole.aggregate["RR"]


def test_trec_eval_reference_run_streamed(trec_eval_dir):
    """trec_eval's own test run (tabs and runs of spaces: the line-aware parse)."""
    folder = trec_eval_dir
    run, qrels = folder / "results.test", folder / "qrels.test"
    measures = "RR P@10 R@100 AP nDCG Rprec NumRet(rel=1)"
    same_result(
        citeval_irm.evaluate(run, qrels, measures),
        citeval_irm.evaluate(
            run, qrels, measures, execution=citeval_irm.ExecutionOptions(memory="1K")
        ),
    )


def test_errors_name_the_line_while_streaming(tmp_path):
    run, qrels = citation_run(tmp_path, queries=60)
    lines = run.read_text().splitlines()
    bad = list(lines)
    bad[2500] = bad[2500].rsplit(" ", 2)[0] + " oops sys"
    (tmp_path / "bad.trec").write_text("\n".join(bad) + "\n")
    with pytest.raises(citeval_irm.InputError, match=r"bad\.trec:2501: score 'oops'"):
        citeval_irm.evaluate(
            tmp_path / "bad.trec", qrels, "RR", execution=citeval_irm.ExecutionOptions(memory=TINY)
        )
    repeated = list(lines)
    repeated.insert(3000, repeated[2999])  # a doc listed twice, far from the start
    (tmp_path / "dup.trec").write_text("\n".join(repeated) + "\n")
    for memory in (TINY, None):  # the same line on both paths
        with pytest.raises(citeval_irm.InputError, match=r"dup\.trec:3001: duplicate score"):
            citeval_irm.evaluate(
                tmp_path / "dup.trec",
                qrels,
                "RR",
                execution=citeval_irm.ExecutionOptions(memory=memory),
            )


def test_a_run_not_grouped_by_query_is_detected(tmp_path):
    run, _ = citation_run(tmp_path, queries=30)
    lines = run.read_text().splitlines()
    moved = lines[:100] + lines[200:] + lines[100:200]  # the end of query 1 moved last
    (tmp_path / "mixed.trec").write_text("\n".join(moved) + "\n")
    with pytest.raises(NotGrouped, match="not grouped by query") as caught:
        for _ in iter_run_chunks(tmp_path / "mixed.trec", 50):
            pass
    assert caught.value.query_id == lines[100].split()[0]


def test_memory_sizes():
    assert parse_memory("2G") == 2 * 2**30
    assert parse_memory("1.5GB") == int(1.5 * 2**30)
    assert parse_memory("64KiB") == 64 * 1024
    assert parse_memory(1000) == 1000
    with pytest.raises(citeval_irm.InputError, match="expected a size"):
        parse_memory("lots")


def test_cli_memory_and_quiet(tmp_path, capsys):
    run, qrels = citation_run(tmp_path, queries=40)
    args = ["eval", str(run), "--qrels", str(qrels), "--protocol", "goyal2026", "--format", "json"]
    assert main([*args, "--per-query"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert main([*args, "--per-query", "--memory", "64K", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == whole
    assert "reading the run" not in captured.err
    assert main([*args, "--memory", "lots"]) == 2
    assert "expected a size" in capsys.readouterr().err


def test_streaming_keeps_the_light_imports(tmp_path):
    """A streamed evaluation imports none of the heavy libraries either."""
    run, qrels = citation_run(tmp_path, queries=20)
    code = (
        "import sys; from citeval_irm.cli import main; "
        f"main(['eval', {str(run)!r}, '--qrels', {str(qrels)!r}, '-m', 'RR', '--memory', '64K']); "
        "print(sorted(m for m in ('pandas', 'dask', 'duckdb', 'scipy', 'ir_datasets') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_large_run_not_grouped_is_sorted_out_of_core(tmp_path):
    run, qrels = citation_run(tmp_path, queries=60)
    lines = run.read_text().splitlines()
    moved = lines[:100] + lines[400:] + lines[100:400]  # queries 1-5 split, their ends last
    mixed = tmp_path / "mixed.trec"
    mixed.write_text("\n".join(moved) + "\n")
    whole = citeval_irm.evaluate(
        mixed, qrels, protocol="goyal2026", options=EvalOptions(ties="run_order")
    )
    streamed = citeval_irm.evaluate(
        mixed,
        qrels,
        protocol="goyal2026",
        options=EvalOptions(ties="run_order"),
        execution=ExecutionOptions(memory=TINY),
    )
    note = [w for w in streamed.warnings if w.code == "run_sorted"]
    assert len(note) == 1 and "DuckDB" in note[0].message
    streamed.warnings = [w for w in streamed.warnings if w.code != "run_sorted"]
    same_result(whole, streamed)
    repeated = moved + [moved[150]]  # a duplicate, after the sort next to its first copy
    (tmp_path / "dup.trec").write_text("\n".join(repeated) + "\n")
    with pytest.raises(citeval_irm.InputError, match=rf"dup\.trec:{len(repeated)}: duplicate"):
        citeval_irm.evaluate(
            tmp_path / "dup.trec", qrels, "RR", execution=citeval_irm.ExecutionOptions(memory=TINY)
        )


def test_validate_streamed_equals_in_memory(tmp_path, demo_home):
    from citeval_irm.datasets import admissible_candidates  # noqa: F401 (registers the demo)

    run = citeval_irm.bm25_run("citeval/demo/test", k=40, temporal=False)  # later papers in it
    path = citeval_irm.write_run(run, tmp_path / "bm25.trec")
    lines = path.read_text().splitlines()
    first = lines[0].split()
    lines.insert(1, f"{first[0]} Q0 {first[2]} 2 -1 dup")  # a pair listed twice
    lines.insert(3, f"{first[0]} Q0 X99-9999 4 -2 bad")  # not a doc of the dataset
    lines += ["not-a-query Q0 X99-9999 1 1 bad"]
    path.write_text("\n".join(lines) + "\n")
    whole = citeval_irm.validate(path, "citeval/demo/test", same_year=True)
    streamed = citeval_irm.validate(
        path,
        "citeval/demo/test",
        same_year=True,
        execution=citeval_irm.ExecutionOptions(memory=TINY),
    )
    assert not whole.passed and whole.count("later_paper") > 10
    assert whole.to_dict() == streamed.to_dict()
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(whole.violations, streamed.violations)
    given = citeval_irm.validate(  # the reading options as an EvalOptions, as evaluate takes
        path, "citeval/demo/test", execution=ExecutionOptions(memory=TINY, progress=False)
    )
    assert given.to_dict() == streamed.to_dict()
    with pytest.raises(TypeError, match="unexpected keyword argument 'memory'"):
        citeval_irm.validate(path, "citeval/demo/test", memory=TINY)


@pytest.mark.slow
def test_progress_on_a_terminal_and_not_otherwise(tmp_path):
    """Progress (bytes read, queries scored) shows on a terminal, never in a pipe or with
    --quiet."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    run, qrels = citation_run(tmp_path, queries=80)
    argv = [sys.executable, "-m", "citeval_irm.cli", "eval", str(run), "--qrels", str(qrels)]
    argv += ["-m", "RR", "--memory", "64K"]

    def stderr_of(*extra: str, terminal: bool) -> str:
        if not terminal:
            done = subprocess.run([*argv, *extra], capture_output=True, text=True, check=True)
            return done.stderr
        main_end, other_end = pty.openpty()
        # a terminal of 24 x 100 characters (a new pseudo-terminal has no size)
        fcntl.ioctl(other_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        done = subprocess.run([*argv, *extra], stdout=subprocess.DEVNULL, stderr=other_end)
        os.close(other_end)
        chunks = []
        while True:
            try:
                data = os.read(main_end, 1 << 16)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.close(main_end)
        assert done.returncode == 0
        return b"".join(chunks).decode(errors="replace")

    shown = stderr_of(terminal=True)
    assert "citeval: reading the run" in shown and "B/s" in shown  # bytes read
    assert "reading the run" not in stderr_of("--quiet", terminal=True)
    assert "reading the run" not in stderr_of(terminal=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=files())
def test_read_in_blocks_of_a_few_bytes_as_the_whole_file_is(tmp_path_factory, data):
    """Blocks of 5 bytes cut lines, \\r\\n pairs and UTF-8 characters: the chunks hold the
    rows the whole-file reader finds, or the file is rejected too, by an error naming a line
    that the whole-file reader rejects as well (it may name another one first: it checks
    UTF-8, then the columns, then the values over the whole file)."""
    path = tmp_path_factory.mktemp("blocks") / "run.trec"
    path.write_bytes(data)
    try:
        whole, expected = citeval_irm.read_run(path, duplicates="keep_all"), None
    except citeval_irm.InputError as exc:
        whole, expected = None, exc
    try:
        chunks = list(iter_run_chunks(path, 2, duplicates="keep_all", block_size=5))
    except NotGrouped:
        return  # a query comes back: not streamable as it is (sorted out of core instead)
    except citeval_irm.InputError as exc:
        assert expected is not None, exc
        assert exc.source == str(path) and (exc.line is not None or "empty" in exc.problem)
        if exc.line is not None:  # the file up to that line is rejected as a whole too
            pieces = re.split(rb"(\r\n|\n|\r)", data)
            path.write_bytes(b"".join(pieces[: 2 * exc.line]))
            with pytest.raises(citeval_irm.InputError):
                citeval_irm.read_run(path, duplicates="keep_all")
        return
    assert expected is None, expected
    assert [q for c in chunks for q in c.query_strings().to_pylist()] == (
        whole.query_strings().to_pylist()
    )
    assert [d for c in chunks for d in c.doc_strings().to_pylist()] == (
        whole.doc_strings().to_pylist()
    )
    assert np.concatenate([c.score for c in chunks]).tolist() == whole.score.tolist()


def _grouped(line: str, queries: int) -> bytes:
    return "".join(line.format(q=q) for q in range(queries)).encode()


@pytest.mark.parametrize(
    "name, text",
    [
        ("crlf", _grouped("q{q} Q0 d1 1 3 t\r\nq{q} Q0 d2 2 2 t\r\n", 40)),
        ("cr only", _grouped("q{q} Q0 d1 1 3 t\rq{q} Q0 d2 2 2 t\r", 40)),
        ("bom, no last line end", b"\xef\xbb\xbfq1 Q0 d1 1 3 t\nq2 Q0 d2 1 2 t"),
        ("a line opening with a bom", _grouped("q{q} Q0 d1 1 3 t\n\ufeffq{q}b Q0 d2 1 2 t\n", 30)),
        ("a line longer than a segment", b"q1 Q0 " + b"d" * 5000 + b" 1 3 t\nq2 Q0 d 1 2 t\n"),
        ("tabs", _grouped("q{q}\tQ0\td1\t1\t3\tt\nq{q}\tQ0\td2\t1\t2\tt\n", 50)),
    ],
)
@pytest.mark.parametrize("compress", [False, True])
def test_segments_of_whole_lines_read_as_the_whole_file_is(tmp_path, name, text, compress):
    """The fast streamed parse cuts the text into segments of whole lines (here of 8 x 64
    bytes, so each case crosses many): every line end, a byte-order mark where pyarrow
    would drop it and trec_eval keeps it, a line longer than a segment, gzip: the chunks
    hold exactly the rows the whole-file reader reads."""
    path = tmp_path / ("run.trec.gz" if compress else "run.trec")
    path.write_bytes(gzip.compress(text) if compress else text)
    whole = citeval_irm.read_run(path, duplicates="keep_all")
    chunks = list(iter_run_chunks(path, 1, duplicates="keep_all", block_size=64))
    assert len(chunks) >= 2
    assert [q for c in chunks for q in c.query_strings().to_pylist()] == (
        whole.query_strings().to_pylist()
    )
    assert [d for c in chunks for d in c.doc_strings().to_pylist()] == (
        whole.doc_strings().to_pylist()
    )
    assert np.concatenate([c.score for c in chunks]).tolist() == whole.score.tolist()
