"""Never a traceback or a hang from the CLI (issue 27): a manifest in another encoding, a
device or a pipe given as a run or qrels, binary data, a 2 MB malformed line, non-ASCII
ids printed under an ASCII locale."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from citeval_irm.cli import main

ROOT = Path(__file__).resolve().parents[1]
RUN = "qé Q0 d1 1 2.0 s\nqé Q0 d2 2 1.0 s\nq2 Q0 d1 1 1.0 s\n"
QRELS = "qé 0 d2 1\nq2 0 d1 1\n"


def _limited_memory() -> None:  # a reader that never ends fails fast, not the machine
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def citeval(*args: str, env: dict | None = None, timeout: float = 120):
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "citeval_irm.cli", *args],
        capture_output=True,
        env=environment,
        timeout=timeout,
        preexec_fn=_limited_memory,
        check=False,
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    run.write_text(RUN, encoding="utf-8")
    qrels.write_text(QRELS, encoding="utf-8")
    return run, qrels


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (
            "system,dataset,run\nbm25 é,citeval/demo/test,a.trec\n".encode("latin-1"),
            ":2: is not UTF-8 text: byte 0xe9",
        ),
        ("system,dataset,run\n".encode("utf-16"), ": is UTF-16 text"),
    ],
    ids=["Latin-1", "UTF-16"],
)
def test_a_manifest_in_another_encoding_is_a_clear_error(tmp_path, capsys, data, problem):
    path = tmp_path / "manifest.csv"
    path.write_bytes(data)
    assert main(["table", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: {path}{problem}") and "save it as UTF-8" in err


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_dev_zero_is_refused_without_reading_it(files, which):
    run, qrels = files
    args = ["/dev/zero", "--qrels", str(qrels)] if which == "run" else [str(run), "--qrels",
                                                                         "/dev/zero"]  # fmt: skip
    done = citeval("eval", *args, "-m", "RR", timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err == "citeval: error: /dev/zero: is a character device, not a file\n"


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_a_fifo_is_a_clear_error_not_a_hang(files, tmp_path, which):
    run, qrels = files
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    args = [str(fifo), "--qrels", str(qrels)] if which == "run" else [str(run), "--qrels",
                                                                       str(fifo)]  # fmt: skip
    done = citeval("eval", *args, "-m", "RR", timeout=60)  # never opened: no writer needed
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert (
        err.startswith(f"citeval: error: {fifo}: is a pipe (FIFO)") and "write it to a file" in err
    )


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_binary_data_in_a_file_names_its_line(files, tmp_path, which):
    run, qrels = files
    binary = tmp_path / "zeros"
    binary.write_bytes(b"q1 Q0 d1 1 1.0 s\n" + bytes(3 << 20))
    args = [str(binary), "--qrels", str(qrels)] if which == "run" else [str(run), "--qrels",
                                                                         str(binary)]  # fmt: skip
    done = citeval("eval", *args, "-m", "RR", timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err == f"citeval: error: {binary}:2: holds a NUL byte: binary data, not a text file\n"


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_a_2mb_malformed_line_is_quoted_short(files, tmp_path, capsys, which):
    run, qrels = files
    long = tmp_path / "long"
    long.write_text("q1 Q0 d1 1 1.0 s\n" + "q1 0 " + "x" * (2 << 20) + "\n", encoding="utf-8")
    args = [str(long), "--qrels", str(qrels)] if which == "run" else [str(run), "--qrels",
                                                                       str(long)]  # fmt: skip
    assert main(["eval", *args, "-m", "RR", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeval: error: {long}:") and len(err) < 600, err[:600]
    assert "(2,097,157 characters)" in err or "(2,097,161 characters)" in err


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["table", "csv", "trec_eval", "json"])
def test_non_ascii_ids_print_under_an_ascii_locale(files, fmt):
    """``LC_ALL=C`` without Python's UTF-8 mode: standard output is ASCII; the ids are
    written as the UTF-8 bytes they were read from, as trec_eval writes them."""
    run, qrels = files
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    done = citeval("eval", str(run), "--qrels", str(qrels), "-m", "RR P@1", "--per-query",
                   "--format", fmt, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    text = done.stdout.decode("utf-8")
    if fmt == "json":  # strictly valid JSON escapes it
        text = json.dumps(json.loads(text), ensure_ascii=False)
    assert "qé" in text and b"Traceback" not in done.stderr


def test_a_duplicate_in_a_streamed_parquet_run_names_its_row(tmp_path, capsys):
    """Streamed, a Parquet run has no lines to re-read for the row of a duplicate: it is
    the row the whole-file read names, not a traceback (it was ``_NeedLineNumbers``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    queries = [f"q{i // 50}" for i in range(200_000)]
    docs = [f"doc-{i:09d}" for i in range(200_000)]
    docs[100_007] = docs[100_006]
    table = pa.table({"query_id": queries, "doc_id": docs, "score": [1.0] * 200_000})
    pq.write_table(table, tmp_path / "run.parquet", row_group_size=200_000)
    (tmp_path / "qrels").write_text("q1 0 doc-000000051 1\n", encoding="utf-8")
    from citeval_irm.reading.streaming import plan_reading

    assert plan_reading(tmp_path / "run.parquet", "1M").stream
    errors = []
    for memory in ([], ["--memory", "1M"]):
        args = [str(tmp_path / "run.parquet"), "--qrels", str(tmp_path / "qrels"), "-m", "RR"]
        assert main(["eval", *args, *memory, "-q"]) == 2
        errors.append(capsys.readouterr().err)
    assert errors[0].startswith(f"citeval: error: {tmp_path / 'run.parquet'}:100008: duplicate")
    assert errors[1].split("(")[0] == errors[0].split("(")[0]
