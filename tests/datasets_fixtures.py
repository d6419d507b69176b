"""Shared test helpers for the dataset and download tests (not a conftest, on purpose).

- ``http_files``: a loopback HTTP server (127.0.0.1, a thread) serving in-memory files, with
  paths that misbehave on request: ``/truncated/NAME`` (announces more bytes than it sends),
  ``/status/500/NAME`` (server error), ``/flaky/NAME`` (a 500 on the first request only),
  ``/status/204/NAME`` (no content), ``/cut/NAME`` (half the body, no Content-Length),
  ``/html/NAME`` (an HTML page, status 200), ``/gzip/NAME`` (``Content-Encoding: gzip``),
  ``/trickle/NAME`` (a byte every 50 ms), ``/silent/NAME`` (never answers; each bounded
  to 20 s).
  No test ever contacts another host.
- ``synthetic_split``: ACL-200-shaped split entries (``<citing>_<cited>_<n>`` context ids,
  ACL Anthology-style paper ids whose digits give the year, the real split's citing years),
  SYNTHETIC: the real split files are not redistributable (see ``reference_data``).
- ``write_hatten_folder``: a small corpus in the exact HAtten layout for those entries, with
  synthetic text (labelled as such).
- ``write_arsyta_folder``: a small SYNTHETIC corpus in ArSyTa's layout (its file names, the
  ``heading`` and ``categories`` fields, arXiv ids old and new).
- ``write_masterset_folder``: SYNTHETIC ``train.parquet`` / ``eval.parquet`` in MasterSet's
  exact schema (references as JSON strings, labels as strings), written with pyarrow, with
  the tier thresholds at their edges.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SPLITS = ("train", "val", "test")


@dataclass
class FileServer:
    """What the loopback server serves, and the paths it was asked for."""

    base_url: str
    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    failed_once: set[str] = field(default_factory=set)
    stopping: bool = False


def _handler(server_state: FileServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            path = self.path.lstrip("/")
            server_state.requests.append(path)
            if path.startswith("status/500/"):
                self.send_error(500, "Internal Server Error")
                return
            if path.startswith("flaky/"):
                path = path[len("flaky/") :]
                if path not in server_state.failed_once:
                    server_state.failed_once.add(path)
                    self.send_error(500, "Internal Server Error")
                    return
            if path.startswith("status/204/"):
                self.send_response(204)
                self.end_headers()
                return
            mode, _, rest = path.partition("/")
            if mode in MISBEHAVIOURS and rest in server_state.files:
                getattr(self, f"_{mode.replace('-', '_')}")(server_state.files[rest])
                return
            truncated = path.startswith("truncated/")
            if truncated:
                path = path[len("truncated/") :]
            body = server_state.files.get(path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body) + (1000 if truncated else 0)))
            self.end_headers()
            self.wfile.write(body)
            if truncated:
                self.close_connection = True

        def _headers(self, **headers: str) -> None:
            self.send_response(200)
            for key, value in headers.items():
                self.send_header(key.replace("_", "-"), value)
            self.end_headers()

        def _cut(self, body: bytes) -> None:  # no Content-Length, connection closed early
            self._headers(Content_Type="application/octet-stream")
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True

        def _html(self, body: bytes) -> None:  # a login or error page, with status 200
            page = b"<!DOCTYPE html><html><body>Sign in to continue</body></html>"
            self._headers(Content_Type="text/html", Content_Length=str(len(page)))
            self.wfile.write(page)

        def _gzip(self, body: bytes) -> None:  # compressed although not asked for
            packed = gzip.compress(body)
            self._headers(Content_Encoding="gzip", Content_Length=str(len(packed)))
            self.wfile.write(packed)

        def _trickle(self, body: bytes) -> None:  # one byte every 50 ms, at most 20 s
            self._headers(Content_Length=str(len(body)))
            trickle(self.wfile, body)

        def _silent(self, body: bytes) -> None:  # answers nothing, for at most 20 s
            started = time.monotonic()
            while time.monotonic() - started < 20 and not server_state.stopping:
                time.sleep(0.05)

    return Handler


MISBEHAVIOURS = ("cut", "html", "gzip", "trickle", "silent")


def trickle(out, body: bytes, every: float = 0.05, limit: float = 20) -> None:
    """Write ``body`` to ``out`` a byte every ``every`` seconds, for at most ``limit``
    seconds; stop when the client goes away."""
    started = time.monotonic()
    for byte in body:
        if time.monotonic() - started > limit:
            return
        try:
            out.write(bytes([byte]))
            out.flush()
        except OSError:
            return
        time.sleep(every)


@contextlib.contextmanager
def loopback_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 at a free port, in a thread, until the block ends;
    yields its address (``http://127.0.0.1:PORT``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def http_files() -> Iterator[FileServer]:
    """A loopback HTTP server on a free port, stopped after the test."""
    state = FileServer(base_url="")
    with loopback_server(_handler(state)) as address:
        state.base_url = f"{address}/"
        try:
            yield state
        finally:
            state.stopping = True


@pytest.fixture
def ir_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ir_datasets home (and temp folder) for one test; no user folder set."""
    home = tmp_path / "ir_datasets_home"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.setenv("IR_DATASETS_TMP", str(tmp_path / "ir_datasets_tmp"))
    from citeval_irm.datasets import CORPORA, MASTERSET_CORPORA

    for corpus in (*CORPORA.values(), *MASTERSET_CORPORA.values()):
        monkeypatch.delenv(corpus.env_var, raising=False)
        monkeypatch.delenv(corpus.base_url_env, raising=False)
    return home


IMPORTED_PER_SPLIT = 6
"""Contexts per split of the folder :func:`importable_folder` writes."""


@pytest.fixture
def importable_folder(tmp_path: Path, ir_home: Path, monkeypatch: pytest.MonkeyPatch):
    """A good HAtten folder, imported as FullTextPeerRead whose published counts are, for
    the test, the folder's own: ``(path, written)``."""
    import dataclasses

    from citeval_irm.datasets import CORPORA, PublishedCounts

    path = tmp_path / "download"
    written = write_hatten_folder(path, per_split=IMPORTED_PER_SPLIT)
    per_split = IMPORTED_PER_SPLIT
    counts = PublishedCounts(len(written["papers"]), per_split, per_split, per_split)
    corpus = dataclasses.replace(CORPORA["fulltextpeerread"], counts=counts)
    monkeypatch.setitem(CORPORA, "fulltextpeerread", corpus)
    return path, written


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One ir_datasets home for a whole test module, so the citeval/demo stores are built
    once per module (the demo's files come from the package)."""
    home = tmp_path_factory.mktemp("ir_datasets_home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(home))
        patch.delenv("CITEVAL_DEMO_DIR", raising=False)
        yield home


CITING_YEARS = {"train": (2009, 2013), "val": (2014, 2014), "test": (2015, 2015)}
"""The citing years of the real ACL-200 splits (temporal by citing year)."""

README_EXAMPLE = {"context_id": "P15-2138_N04-1019_0", "positive_ids": ["N04-1019"]}
"""The README's example context (the first of the real test split), first in the test sample."""


def _acl_id(rng: random.Random, year: int) -> str:
    return f"{rng.choice('PNDEWCJSQ')}{year % 100:02d}-{rng.randrange(1000, 9000)}"


def synthetic_split(split: str, count: int = 20) -> list[dict]:
    """``count`` SYNTHETIC entries of an ACL-200 split file (fixed seed): a few citing papers
    of the split's years with several contexts each, citing earlier papers (in the test split
    sometimes one of the same year, as 343 real test contexts do)."""
    rng = random.Random(f"citeval-acl-200-{split}")
    first, last = CITING_YEARS[split]
    citing_papers = [_acl_id(rng, rng.randint(first, last)) for _ in range(max(1, count // 3))]
    entries = [README_EXAMPLE] if split == "test" else []
    seen = {e["context_id"] for e in entries}
    while len(entries) < count:
        citing = rng.choice(citing_papers)
        year = 2000 + int(citing[1:3])
        cited = _acl_id(
            rng, year if split == "test" and rng.random() < 0.1 else year - 1 - rng.randrange(8)
        )
        context_id = f"{citing}_{cited}_{rng.randrange(3)}"
        if context_id not in seen and cited != citing:
            seen.add(context_id)
            entries.append({"context_id": context_id, "positive_ids": [cited]})
    return entries


def citing_id_of(context_id: str, cited_id: str) -> str:
    """The citing paper of a ``<citing>_<cited>_<n>`` context id."""
    head, _, _ = context_id.rpartition("_")
    suffix = f"_{cited_id}"
    assert head.endswith(suffix), (context_id, cited_id)
    return head[: -len(suffix)]


def write_hatten_folder(folder: Path, per_split: int = 20) -> dict:
    """Write a HAtten-layout corpus for ``per_split`` SYNTHETIC contexts of each ACL-200
    split (:func:`synthetic_split`), with SYNTHETIC ``contexts.json`` and ``papers.json``
    text for the cited and citing papers plus two papers nobody cites. Returns what was
    written."""
    folder.mkdir(parents=True, exist_ok=True)
    splits = {s: synthetic_split(s, per_split) for s in SPLITS}
    contexts: dict[str, dict] = {}
    paper_ids: list[str] = []
    for split, entries in splits.items():
        for n, entry in enumerate(entries):
            context_id = entry["context_id"]
            cited = entry["positive_ids"][0]
            citing = citing_id_of(context_id, cited)
            field_name = "ref_id" if n % 5 == 4 else "refid"  # both spellings occur
            contexts[context_id] = {
                "masked_text": f"synthetic {split} context {n} before TARGETCIT ; OTHERCIT after",
                "context_id": context_id,
                "citing_id": citing,
                field_name: cited,
            }
            paper_ids.extend(p for p in (cited, citing) if p not in paper_ids)
    paper_ids.extend(["X98-9001", "W13-9002"])  # never cited: still candidates
    papers = {
        pid: {"title": f"Synthetic title {pid}", "abstract": f"Synthetic abstract of {pid}."}
        for pid in paper_ids
    }
    papers["X98-9001"]["venue"] = "an extra key, ignored by the loader"
    (folder / "contexts.json").write_text(json.dumps(contexts), encoding="utf-8")
    (folder / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    for split, entries in splits.items():
        (folder / f"{split}.json").write_text(json.dumps(entries), encoding="utf-8")
    return {"splits": splits, "contexts": contexts, "papers": papers}


# --------------------------------------------------------------------------- ArSyTa

ARSYTA_FILES = ("contexts.json", "papers.json") + tuple(f"{split}_data.json" for split in SPLITS)

# SYNTHETIC papers with arXiv ids (new style, and one old style); year-month in the id.
ARSYTA_PAPERS = {
    "1503.01234": ("cs.CL", "cs.LG"),
    "1503.05678": ("cs.IR",),
    "1411.00001": ("cs.CL",),
    "hep-th/9901001": ("hep-th",),
    "1703.11111": ("cs.LG", "stat.ML"),
    "1705.22222": ("cs.CL",),
    "1801.33333": ("cs.IR", "cs.CL"),
    "1801.44444": ("cs.DL",),
}

# (split, citing, cited, heading)
ARSYTA_CONTEXTS = [
    ("train", "1503.01234", "1411.00001", "Introduction"),
    ("train", "1503.01234", "hep-th/9901001", "Related Work"),
    ("train", "1503.05678", "1503.01234", "Method"),  # same month as the citing paper
    ("val", "1703.11111", "1503.05678", "Introduction"),
    ("val", "1705.22222", "1703.11111", "Experiments"),
    ("test", "1801.33333", "1705.22222", "Related Work"),
    ("test", "1801.33333", "1703.11111", "Introduction"),
    ("test", "1801.44444", "1801.33333", "Background"),  # same month
]


def arsyta_context_id(citing: str, cited: str, k: int = 0) -> str:
    return f"{citing}_{cited}_{k}"


def write_arsyta_folder(
    folder: Path, *, hosted: bool = False, heading: bool = True, categories: bool = True
) -> dict:
    """Write ArSyTa's five files (SYNTHETIC text) into ``folder``: under the SymTax code's
    names (``contexts_new_head.json``, ``papers_cat.json``), or with ``hosted`` under the
    Hub's (``contexts.json``, ``papers.json``); ``heading`` / ``categories`` False leave
    those fields out of every record. Returns what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    papers = {
        pid: {
            "title": f"Synthetic title {pid}",
            "abstract": f"Synthetic abstract of {pid}.",
            **({"categories": list(cats)} if categories else {}),
        }
        for pid, cats in ARSYTA_PAPERS.items()
    }
    contexts, splits = {}, {split: [] for split in SPLITS}
    for n, (split, citing, cited, section) in enumerate(ARSYTA_CONTEXTS):
        context_id = arsyta_context_id(citing, cited)
        contexts[context_id] = {
            "citing_id": citing,
            "ref_id": cited,
            "masked_text": f"synthetic context {n} cites TARGETCIT here",
            **({"heading": section} if heading else {}),
        }
        splits[split].append({"context_id": context_id, "positive_ids": [cited]})
    names = ("papers_cat.json", "contexts_new_head.json")
    if hosted:
        names = ("papers.json", "contexts.json")
    (folder / names[0]).write_text(json.dumps(papers), encoding="utf-8")
    (folder / names[1]).write_text(json.dumps(contexts), encoding="utf-8")
    for split, entries in splits.items():
        (folder / f"{split}_data.json").write_text(json.dumps(entries), encoding="utf-8")
    return {"papers": papers, "contexts": contexts, "splits": splits}


# --------------------------------------------------------------------------- MasterSet

MASTERSET_COLUMNS = ("paper_id", "title", "abstract", "year", "venue", "authors", "references")


def ms_id(name: str) -> str:
    """A stable UUID-shaped SYNTHETIC paper id for a short name."""
    import uuid

    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"citeval-test/{name}"))


def ms_ref(target: str | None, t1="", t2="", t3="", **extra) -> dict:
    """One reference as MasterSet stores it (labels as strings)."""
    return {
        "matched_paper_id": ms_id(target) if target else "",
        "title": f"Synthetic reference title {target}",
        "year": 2020,
        "venue": "neurips",
        "type_1_output": t1,
        "type_2_output": t2,
        "type_3_output": t3,
        **extra,
    }


# The pool: P1-P8 (2018-2024). P7 cites itself (a gold paper that is the query paper).
MASTERSET_POOL = [
    ("P1", 2018, []),
    ("P2", 2019, []),
    ("P3", 2019, []),
    ("P4", 2020, []),
    ("P5", 2021, []),
    ("P6", 2023, []),
    ("P7", 2024, [ms_ref("P7", t1="1.0"), ms_ref("P2", t2="4.0")]),
    ("P8", 2024, [ms_ref("P1", t1="1.0", t2="5.0"), ms_ref("P6", t3="3.0")]),
]

# The query papers (2025). Q1 holds the tier edges; OUT1/OUT2 are gold outside the pool.
MASTERSET_QUERIES = [
    (
        "Q1",
        2025,
        [
            ms_ref("P1", t1="1.0", t2="4.0", t3="nan"),  # baseline + core
            ms_ref("P2", t1="0.0", t2="3.99", t3="3.0"),  # frequent only (3.99 < 4.0)
            ms_ref("P3", t1="", t2="", t3="2.99"),  # nothing
            ms_ref(None, t1="1.0", t2="5.0", t3="5.0"),  # unmatched: never gold
            ms_ref("OUT1", t1="1.0", t2="2.0", t3="1.0"),  # baseline, outside the pool
            ms_ref("P1", t1="nan", t2="nan", t3="5.0"),  # P1 again: + frequent
        ],
    ),
    (
        "Q2",
        2025,
        [
            ms_ref("P4", t1="0.0", t2="5.0", t3="1.0"),  # core
            ms_ref("P5", t1=1.0, t2=None, t3="2.0"),  # baseline (a number, a null)
            ms_ref("OUT2", t1="", t2="4.0", t3=""),  # core, outside the pool
        ],
    ),
    ("Q3", 2025, [ms_ref("P6", t1="nan", t2="", t3="nan")]),  # no gold in any tier
]


def masterset_rows(papers: list) -> list[dict]:
    return [
        {
            "paper_id": ms_id(name),
            "title": f"Synthetic title {name}",
            "abstract": f"Synthetic abstract of {name}.",
            "year": year,
            "venue": "icml" if name.startswith("Q") else "neurips",
            "authors": json.dumps([f"Author of {name}"]),
            "references": json.dumps(references),
        }
        for name, year, references in papers
    ]


def write_parquet(
    path: Path, rows: list[dict], columns=MASTERSET_COLUMNS, *, year_type: str = "int64"
) -> Path:
    """Rows as a Parquet file in MasterSet's schema (row groups of 2 rows, to exercise
    batched reading); ``year_type="float64"`` stores years as floats (NaN, infinities)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"year": pa.type_for_alias(year_type)}
    table = pa.table(
        {c: pa.array([r[c] for r in rows], type=types.get(c, pa.string())) for c in columns}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, row_group_size=2)
    return path


def write_masterset_folder(folder: Path, pool=None, queries=None) -> dict:
    """Write ``train.parquet`` (the pool) and ``eval.parquet`` (the queries)."""
    pool_rows = masterset_rows(MASTERSET_POOL if pool is None else pool)
    query_rows = masterset_rows(MASTERSET_QUERIES if queries is None else queries)
    write_parquet(folder / "train.parquet", pool_rows)
    write_parquet(folder / "eval.parquet", query_rows)
    return {"pool": pool_rows, "queries": query_rows}


# --------------------------------------------------------------------------- generated corpus


def write_hatten_files(folder: Path, papers: dict, contexts: dict, splits: dict) -> None:
    """``papers.json``, ``contexts.json`` and one ``<split>.json`` per split, in ``folder``."""
    (folder / "papers.json").write_text(json.dumps(papers), encoding="utf-8")
    (folder / "contexts.json").write_text(json.dumps(contexts), encoding="utf-8")
    for split, entries in splits.items():
        (folder / f"{split}.json").write_text(json.dumps(entries), encoding="utf-8")


def write_generated_corpus(folder: Path, papers: int = 3000, per_split: int = 200) -> dict:
    """A GENERATED corpus in the HAtten layout (no real data): ``papers`` papers with ACL-style
    ids (so they have years), ``per_split`` contexts per split, each citing an earlier
    paper. Big enough that building its stores takes long enough for processes to race."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = [f"{'PNDW'[n % 4]}{10 + n % 5:02d}-{n:04d}" for n in range(papers)]
    papers_json = {
        pid: {"title": f"Generated title {n}", "abstract": f"Generated abstract {n} " * 8}
        for n, pid in enumerate(ids)
    }
    contexts, splits = {}, {}
    for s, split in enumerate(SPLITS):
        splits[split] = []
        for n in range(per_split):
            citing, cited = ids[(7 * n + s) % papers], ids[(13 * n + 3 * s + 1) % papers]
            context_id = f"{citing}_{cited}_{n}"
            contexts[context_id] = {
                "masked_text": f"generated context {n} of {split} cites TARGETCIT here",
                "context_id": context_id,
                "citing_id": citing,
                "refid": cited,
            }
            splits[split].append({"context_id": context_id, "positive_ids": [cited]})
    write_hatten_files(folder, papers_json, contexts, splits)
    return {"papers": papers_json, "contexts": contexts, "splits": splits}


# --------------------------------------------------------------------------- runs


def gold_inserted(run_frame, qrels_frame, depth: int, into=None):
    """A run with the gold inserted, as an oracle first stage does (DualLCR puts the gold
    into BM25's top 2,000): each ranking cut to ``depth - 1`` docs, then every gold paper not
    in it appended below the last (lowest score), so rankings stay short of the pool.
    ``into``: the query ids that get the insertion (default: every query); the others keep
    their first ``depth`` docs as ranked. Returns a (query_id, doc_id, score) DataFrame."""
    import pandas as pd

    chosen = run_frame["query_id"].isin(set(run_frame["query_id"] if into is None else into))
    kept = run_frame[chosen].groupby("query_id", sort=False).head(depth - 1)
    rest = run_frame[~chosen].groupby("query_id", sort=False).head(depth)
    gold = qrels_frame[qrels_frame["relevance"] > 0][["query_id", "doc_id"]]
    gold = gold[gold["query_id"].isin(kept["query_id"])].assign(score=kept["score"].min() - 1)
    both = pd.concat([kept, gold, rest], ignore_index=True)
    return both.drop_duplicates(["query_id", "doc_id"])[["query_id", "doc_id", "score"]]


# --------------------------------------------------------------------------- popularity, tables


def write_popularity_corpus(
    folder: Path, papers: int = 12, per_paper: int = 3, uncited: int = 320
) -> dict:
    """A GENERATED corpus in the HAtten layout whose training split cites paper ``i``
    exactly ``i`` times (``counts``), so its citation counts are known; the test split
    has ``per_paper`` contexts citing each paper (citing ids of the ACL series D, N, P in
    2015, so the venue facet has groups); ``uncited`` older papers nobody cites make the
    candidate pool deeper than goyal2026's deepest cut-off (300). Returns ``counts`` and
    what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    cited = [f"W05-{1000 + i}" for i in range(papers)]
    counts = {pid: i for i, pid in enumerate(cited)}
    contexts, splits, citing_ids = {}, {s: [] for s in SPLITS}, set()

    def add(split: str, citing: str, target: str, n: int) -> None:
        context_id = f"{citing}_{target}_{n}"
        contexts[context_id] = {
            "masked_text": f"generated {split} context {n} cites TARGETCIT here",
            "context_id": context_id,
            "citing_id": citing,
            "refid": target,
        }
        splits[split].append({"context_id": context_id, "positive_ids": [target]})
        citing_ids.add(citing)

    for i, target in enumerate(cited):
        for n in range(i):
            add("train", f"N10-{2000 + n}", target, 0)
        for n in range(per_paper):
            add("test", f"{'DNP'[n % 3]}15-{3000 + i}", target, n)
        add("val", f"E14-{4000 + i}", target, 0)
    ids = cited + sorted(citing_ids) + [f"A00-{1000 + n}" for n in range(uncited)]
    papers_json = {pid: {"title": f"Generated title {pid}", "abstract": f"About {pid}."}
                   for pid in ids}  # fmt: skip
    write_hatten_files(folder, papers_json, contexts, splits)
    return {"counts": counts, "splits": splits, "papers": papers_json}


def write_table_manifest(folder: Path, runs: dict[tuple[str, str], object]) -> Path:
    """A manifest (``manifest.csv`` in ``folder``) of ``{(system, dataset): run}``, each run
    written beside it as ``<system>-<n>.trec`` (relative paths, as users write them); a
    pair absent from ``runs`` is a missing run."""
    import citeval_irm

    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rows = []
    for n, ((system, dataset), run) in enumerate(runs.items()):
        path = citeval_irm.write_run(run, folder / "runs" / f"{system}-{n}.trec")
        rows.append(f"{system},{dataset},runs/{path.name}")
    manifest = folder / "manifest.csv"
    manifest.write_text("system,dataset,run\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return manifest
