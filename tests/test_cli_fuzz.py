"""The CLI against generated arguments and hostile files, for every command.

The property, whatever the input: exit 0 with output, or exit 2 with exactly one
``citeval: error: ...`` line on stderr (argparse's own usage error for arguments it
rejects); never a traceback, never a file left behind that was not asked for. The CLI runs
in-process (``main(argv)``), so many examples stay fast; a few cases run the real console
script. The files are GENERATED: TREC text (with byte-order marks, comments, CRLF, odd
numbers), random bytes, gzip (whole, truncated, with trailing garbage, several members),
Parquet (whole, truncated, damaged, 4 bytes), JSON nested deep.
"""

from __future__ import annotations

import contextlib
import gzip
import io as stdio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeval_irm.cli import main

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

CITEVAL = Path(sys.executable).with_name("citeval")

# --------------------------------------------------------------------------- hostile files

QUERIES = st.sampled_from(["q1", "q2", "2", "2.0", "all", "q\u00e9", "#q", "q,1"])
DOCS = st.sampled_from(["d1", "d2", "d3", "d10", "P15-1001_N04-1019_0", "d\u00e9", '"d"'])
NUMBERS = st.sampled_from(
    ["1", "0", "-1", "2.5", "1e400", "nan", "inf", "-0", "30,5", "0x10", "abc", "9" * 400, ""]
)


@st.composite
def trec_text(draw, qrels: bool) -> bytes:
    """Lines in roughly the TREC layout, with everything a careless file holds."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(["", "# a comment", "query doc score", "\t"])))
            continue
        q, d, n = draw(QUERIES), draw(DOCS), draw(NUMBERS)
        fields = [q, "0", d, n] if qrels else [q, "Q0", d, draw(NUMBERS), n, "tag"]
        if kind == 1:  # a field too few or too many
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "extra"]
        lines.append(draw(st.sampled_from([" ", "\t", "  "])).join(fields))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + (ending if lines and draw(st.booleans()) else "")
    bom = "\ufeff" if draw(st.integers(0, 4)) == 0 else ""
    return (bom + text).encode("utf-8")


def gzipped(data: bytes, how: str) -> bytes:
    packed = gzip.compress(data, mtime=0)
    if how == "truncated":
        return packed[: max(len(packed) // 2, 1)]
    if how == "trailing garbage":
        return packed + b"garbage\x00\x01"
    if how == "members":
        half = len(data) // 2
        return gzip.compress(data[:half], mtime=0) + gzip.compress(data[half:], mtime=0)
    return packed


def parquet_bytes(rows: list[tuple[str, str, float]], value: str, how: str) -> bytes:
    sink = pa.BufferOutputStream()
    table = pa.table(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[1] for r in rows],
            value: [r[2] for r in rows] if value == "score" else [int(r[2]) for r in rows],
        }
    )
    pq.write_table(table, sink)
    data = sink.getvalue().to_pybytes()
    if how == "truncated":
        return data[: len(data) * 2 // 3]
    if how == "damaged":
        middle = len(data) // 2
        return (
            data[:middle]
            + bytes(b ^ 0xFF for b in data[middle : middle + 16])
            + data[middle + 16 :]
        )
    if how == "magic only":
        return b"PAR1"
    return data


@st.composite
def hostile_file(draw, qrels: bool) -> tuple[str, bytes]:
    """A file name and its bytes."""
    form = draw(st.sampled_from(["text", "text", "bytes", "gzip", "parquet", "deep json"]))
    if form == "bytes":
        return draw(st.sampled_from([".trec", ".txt", ""])), draw(st.binary(max_size=120))
    if form == "deep json":
        depth = draw(st.sampled_from([10, 100_000]))
        return ".json", b"[" * depth + b"]" * depth
    text = draw(trec_text(qrels))
    if form == "gzip":
        how = draw(st.sampled_from(["whole", "truncated", "trailing garbage", "members"]))
        return ".gz", gzipped(text, how)
    if form == "parquet":
        rows = draw(
            st.lists(
                st.tuples(QUERIES, DOCS, st.sampled_from([0.0, 1.0, 2.5, -1.0])),
                min_size=0,
                max_size=8,
            )
        )
        how = draw(st.sampled_from(["whole", "whole", "truncated", "damaged", "magic only"]))
        return ".parquet", parquet_bytes(rows, "label" if qrels else "score", how)
    return draw(st.sampled_from([".trec", ".txt", ""])), text


# --------------------------------------------------------------------------- arguments

MEASURES = st.sampled_from(
    ["AP", "P@5", "nDCG@10", "RR", "R@100 P@1", "map", "ndcg@10", "NumRet", "bogus", "P@-1"]
)
MEMORY = st.sampled_from([None, "1K", "100", "2G", "0", "-5", "lots"])
REPORT = st.sampled_from([None, "report.html", "report.md", "report.txt"])


@st.composite
def command(draw) -> tuple[list[str], list[str]]:
    """Arguments with RUN, RUN2, QRELS standing for the files, and the outputs they ask
    for (file names in the example's folder)."""
    name = draw(
        st.sampled_from(
            ["eval", "eval", "compare", "crosscheck", "convert", "convert", "import"]
            + ["recipes", "protocols", "published", "validate"]
        )
    )
    measures = ["-m", draw(MEASURES)]
    memory = draw(MEMORY)
    large = ["--memory", memory] if memory is not None else []
    report = draw(REPORT)
    reported = ["--report", report] if report else []
    outputs = [report] if report else []
    if name == "eval":
        extra = draw(
            st.lists(st.sampled_from(["--per-query", "--percent", "--crosscheck"]), max_size=2)
        )
        form = ["--format", draw(st.sampled_from(["table", "json", "csv", "trec_eval"]))]
        args = ["eval", "RUN", "--qrels", "QRELS", *measures, *large, *reported, *extra, *form]
    elif name == "compare":
        seed = ["--seed", draw(st.sampled_from(["0", "42", "-1"]))]
        fmt = ["--format", draw(st.sampled_from(["table", "csv", "json", "latex", "markdown"]))]
        sampling = ["--permutations", "50", "--bootstrap", "50"]
        args = ["compare", "a=RUN", "b=RUN2", "--qrels", "QRELS", *measures, *seed, *fmt]
        args += [*sampling, *large, *reported]
    elif name == "crosscheck":
        args = ["crosscheck", "RUN", "--qrels", "QRELS", "--recipe", "goyal2026", *reported]
    elif name == "convert":
        target = draw(st.sampled_from(["out.parquet", "parts"]))
        rows = draw(st.sampled_from([None, "1", "3", "0", "-2"]))
        kind = ["--qrels"] if draw(st.integers(0, 4)) == 0 else []
        source = "QRELS" if kind else "RUN"
        args = ["convert", source, target, *kind, *large]
        args += ["--partition-rows", rows] if rows else []
        outputs = [target]
    elif name == "import":
        args = ["import", "fulltextpeerread", "FOLDER"]
    elif name == "validate":
        args = ["validate", "RUN", "--dataset", "citeval/demo/test", *large]
        outputs = []
    elif name == "published":
        args = ["published", "--format", draw(st.sampled_from(["table", "csv", "json"]))]
        outputs = []
    else:
        args, outputs = [name], []
    if draw(st.integers(0, 3)) == 0:
        args.append("-q")
    return args, outputs


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def check_outcome(status: int, out: str, err: str, argparse_exit: bool) -> None:
    """The property: exit 0 with output, or exit 2 with one error line; no traceback."""
    assert "Traceback" not in err, err
    if argparse_exit:
        assert status == 2 and err.splitlines()[-1].startswith("citeval"), err
        assert ": error: " in err.splitlines()[-1], err
        return
    assert status in (0, 2), (status, err)
    if status == 0:
        assert out or err.startswith("citeval: wrote"), err
    else:
        errors = [line for line in err.splitlines() if line.startswith("citeval: error: ")]
        assert len(errors) == 1 and err.count("citeval: error:") == 1, err


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    home = root / "ir_datasets_home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(home))
        for name in [n for n in os.environ if n.startswith("CITEVAL_")]:
            patch.delenv(name)
        yield root


EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 60))  # more to explore: FUZZ_EXAMPLES=1000


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    spec=command(),
    run=hostile_file(qrels=False),
    run2=hostile_file(qrels=False),
    qrels=hostile_file(qrels=True),
    corpus=st.lists(hostile_file(qrels=False), min_size=0, max_size=5),
)
def test_the_cli_exits_cleanly_on_anything(fuzz_root: Path, spec, run, run2, qrels, corpus):
    folder = fuzz_root / uuid.uuid4().hex
    folder.mkdir()
    names = {}
    for key, (suffix, data) in {"RUN": run, "RUN2": run2, "QRELS": qrels}.items():
        path = folder / f"{key.lower()}{suffix}"
        path.write_bytes(data)
        names[key] = str(path)
    corpus_folder = folder / "corpus"
    corpus_folder.mkdir()
    files = ["contexts.json", "papers.json", "train.json", "val.json", "test.json"]
    for file_name, (_, data) in zip(files, corpus):
        (corpus_folder / file_name).write_bytes(data)
    names["FOLDER"] = str(corpus_folder)
    args, outputs = spec
    argv = []
    for arg in args:
        for key in ("RUN2", "RUN", "QRELS", "FOLDER"):
            arg = arg.replace(key, names[key]) if arg.endswith(key) else arg
        argv.append(arg)
    argv = [str(folder / a) if a in outputs else a for a in argv]
    before = _listing(folder)
    out, err = stdio.StringIO(), stdio.StringIO()
    argparse_exit = False
    cwd = os.getcwd()
    os.chdir(folder)  # anything written to the current folder is seen
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: a usage error
                status, argparse_exit = exc.code, True
    finally:
        os.chdir(cwd)
    check_outcome(status, out.getvalue(), err.getvalue(), argparse_exit)
    made = _listing(folder) - before
    asked = {o for o in outputs} if status == 0 else set()
    assert {m.split(os.sep)[0] for m in made} <= asked, (argv, made, err.getvalue())


# --------------------------------------------------------------------------- real processes


@pytest.mark.parametrize(
    "form",
    ["truncated gzip", "trailing garbage gzip", "damaged parquet", "magic only", "bad option"],
)
def test_the_console_script_exits_cleanly_on_hostile_files(tmp_path: Path, form: str) -> None:
    text = b"".join(
        b"q%d Q0 d%d %d %d r\n" % (q, d, d, 100 - d) for q in range(200) for d in range(50)
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"".join(b"q%d 0 d%d 1\n" % (q, q % 50) for q in range(200)))
    rows = [(f"q{q}", f"d{d}", float(d)) for q in range(50) for d in range(20)]
    files = {
        "truncated gzip": ("run.gz", gzipped(text, "truncated")),
        "trailing garbage gzip": ("run.gz", gzipped(text, "trailing garbage")),
        "damaged parquet": ("run.parquet", parquet_bytes(rows, "score", "damaged")),
        "magic only": ("run.parquet", parquet_bytes(rows, "score", "magic only")),
        "bad option": ("run.trec", text),
    }
    name, data = files[form]
    (tmp_path / name).write_bytes(data)
    args = [CITEVAL, "eval", name, "--qrels", "qrels.txt", "-m", "AP", "--memory", "1K"]
    if form == "bad option":
        args += ["--partition-rows", "3"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEVAL_")}
    env["IR_DATASETS_HOME"] = str(tmp_path / "home")
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    before = {"qrels.txt", name}
    check_outcome(done.returncode, done.stdout, done.stderr, form == "bad option")
    assert done.returncode == 2
    assert {p.name for p in tmp_path.iterdir()} - {"home"} == before
