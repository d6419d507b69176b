"""Scoring benchmark (issue 9): citeval eval end to end against ir_measures, trec_eval, ranx.

Three generated workloads (numpy, fixed seeds; SYNTHETIC ids and scores, written once into
``--work`` and reused while their parameters stay the same):

- W1: 20,000 queries x 300 candidates, one relevant doc each, ACL-style ids, ``goyal2026``;
- W1T: W1 with 10 % of the queries tied (groups of 2-5 scores, around the relevant doc and
  elsewhere);
- W1P: W1 over a pool of 200,000 docs, 4.5 % of the queries tied (about 900: issue 43's
  variant, where the doc ids' dictionary and the tie handling weigh more);
- W2: 7,000 queries x 1,000 candidates, 1-60 relevant docs each, MasterSet-style ids (queries
  are 2025 arXiv papers, docs earlier ones), ``masterset2026``.

Every row is a whole process started from the TREC files (``harness.run_once``: wall time and
the process's own peak RSS), repeated ``--repeat`` times, rounds interleaved; the median is
shown with ratios against the reference rows. Per-query values of citeval are compared with
pytrec_eval's (a child on dicts) and with trec_eval's ``-q`` output, and the issue's targets
are checked.

    python benchmarks/bench_scoring.py --scale 0.05 --repeat 1        # a quick run
    python benchmarks/bench_scoring.py --workloads W1 --json benchmarks/out/scoring.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from importlib import util
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from harness import Row, floor_mb, markdown_table, measure, package_versions, run_once
from synthetic import acl_ids, arxiv_ids, distinct_rows, write_trec

if TYPE_CHECKING:
    import pyarrow as pa

HERE = Path(__file__).resolve().parent
CHILDREN = HERE / "scoring_children.py"
GENERATOR_VERSION = 1
ACL_PAPERS = 19_776  # ACL-200's papers
MASTERSET_POOL = 67_761  # MasterSet-CoreML-v1's candidate pool
PACKAGES = ("citeval-irm", "ir-measures", "pytrec-eval-terrier", "ranx", "numba", "pyarrow")
TREC_TOLERANCE = 5e-5 + 1e-9  # trec_eval prints 4 decimals
TOLERANCE = 1e-9

# Row names; the references of the ratio columns are rows too.
CITEVAL, ENGINE, IRM, RANX = (
    "citeval eval",
    "citeval eval --engine pytrec_eval",
    "ir_measures CLI",
    "ranx",
)
PYARROW, TREC_EVAL, CROSSCHECK = "pyarrow parse", "trec_eval", "citeval crosscheck"
REFERENCES = (IRM, TREC_EVAL, PYARROW, CITEVAL)


# --------------------------------------------------------------------------- workloads


@dataclass(frozen=True)
class Workload:
    """The parameters of a generated workload; the files are a function of them."""

    name: str
    queries: int
    depth: int
    protocol: str
    ids: str  # "acl" or "arxiv"
    max_relevant: int  # 1: one relevant doc per query; else uniform in 1..max_relevant
    retrieved: float  # chance that a relevant doc is in the run
    rank_p: float  # a retrieved relevant doc's rank is geometric(rank_p), without repeats
    tie_fraction: float
    seed: int
    pool: int = 0  # docs to draw from (0: the corpus's own number)


W1 = Workload("W1", 20_000, 300, "goyal2026", "acl", 1, 0.9, 0.15, 0.0, 1)
WORKLOADS = {
    "W1": W1,
    "W1T": replace(W1, name="W1T", tie_fraction=0.1),
    "W1P": replace(W1, name="W1P", tie_fraction=0.045, pool=200_000),
    "W2": Workload("W2", 7_000, 1_000, "masterset2026", "arxiv", 60, 0.7, 0.01, 0.0, 2),
}


def _missing_relevant(
    rng: np.random.Generator, pool: int, candidates: np.ndarray, rel_doc: np.ndarray, slots: tuple
) -> None:
    """Fill ``rel_doc[slots]`` with docs below ``pool`` outside each query's run, distinct
    within a query."""
    in_run = np.sort((np.arange(len(candidates))[:, None] * pool + candidates).ravel())
    rows, cols = slots
    todo = np.arange(rows.size)
    while todo.size:
        rel_doc[rows[todo], cols[todo]] = rng.integers(0, pool, size=todo.size)
        keys = rows * pool + rel_doc[rows, cols]
        found = in_run[np.searchsorted(in_run, keys).clip(max=in_run.size - 1)] == keys
        repeated = np.ones(keys.size, dtype=bool)
        repeated[np.unique(keys, return_index=True)[1]] = False
        todo = np.flatnonzero(found | repeated)


def _tie(
    rng: np.random.Generator, scores: np.ndarray, tied: np.ndarray, anchor: np.ndarray
) -> None:
    """Give each ``tied`` query a group of 2-5 equal scores starting near ``anchor``."""
    size = rng.integers(2, 6, size=tied.size)
    first = np.clip(anchor - rng.integers(0, size), 0, scores.shape[1] - size)
    for offset in range(1, 5):  # a run of equal scores keeps the row non-increasing
        row = offset < size
        scores[tied[row], first[row] + offset] = scores[tied[row], first[row]]


def generate(w: Workload, queries: int) -> tuple[dict, dict, dict]:
    """The run and qrels of ``w`` with ``queries`` queries as columns, and their statistics."""
    rng = np.random.default_rng(w.seed)
    if w.ids == "acl":
        pool = acl_ids(rng, w.pool or ACL_PAPERS)
    else:
        pool = arxiv_ids(rng, w.pool or MASTERSET_POOL, 2007, 2024)
    candidates = distinct_rows(rng, queries, w.depth, len(pool))
    n_rel = np.ones(queries, dtype=np.int64)
    if w.max_relevant > 1:
        n_rel = rng.integers(1, w.max_relevant + 1, size=queries)
    hits = rng.binomial(n_rel, w.retrieved)
    # Ranks of the retrieved relevant docs: weighted sampling without replacement
    # (Efraimidis-Spirakis: the largest log(u) / weight), weights geometric in the rank.
    weight = w.rank_p * (1 - w.rank_p) ** np.arange(w.depth)
    with np.errstate(divide="ignore"):
        keys = np.log(rng.random((queries, w.depth))) / weight
    rel_pos = np.argsort(-keys, axis=1)[:, : w.max_relevant]
    del keys
    slot = np.arange(w.max_relevant)
    is_hit, is_rel = slot < hits[:, None], slot < n_rel[:, None]
    rel_doc = np.where(is_hit, np.take_along_axis(candidates, rel_pos, axis=1), -1)
    _missing_relevant(rng, len(pool), candidates, rel_doc, np.nonzero(is_rel & ~is_hit))

    # Strictly decreasing 6-decimal scores, in millionths (steps >= 1e-5), ending at 1-20.
    steps = np.floor(rng.exponential(15e6 / w.depth, size=(queries, w.depth))).astype(np.int64)
    micro = np.cumsum(steps + 10, axis=1)
    scores = rng.integers(1, 21, size=(queries, 1)) * 10**6 + micro[:, -1:] - micro
    tied = np.empty(0, dtype=np.int64)
    if w.tie_fraction:
        tie_rng = np.random.default_rng([w.seed, 1])  # W1T is W1 plus ties
        tied = np.flatnonzero(tie_rng.random(queries) < w.tie_fraction)
        near_relevant = np.where(
            hits[tied] > 0, rel_pos[tied, 0], tie_rng.integers(0, w.depth, size=tied.size)
        )
        _tie(tie_rng, scores, tied, near_relevant)
        extra = tie_rng.integers(1, 4, size=tied.size)  # 1-3 more groups elsewhere
        for group in range(1, 4):
            rows = tied[extra >= group]
            _tie(tie_rng, scores, rows, tie_rng.integers(0, w.depth, size=rows.size))
    equal = np.zeros(scores.shape, dtype=bool)
    equal[:, 1:] = scores[:, 1:] == scores[:, :-1]
    equal[:, :-1] |= equal[:, 1:]
    relevant_in_tie = (np.take_along_axis(equal, rel_pos, axis=1) & is_hit).any(axis=1)

    if w.ids == "acl":  # <citing>_<cited>_<n>, n counting the contexts of a (citing, cited) pair
        citing = rng.integers(0, len(pool), size=queries)
        pair = citing * len(pool) + rel_doc[:, 0]
        order = np.argsort(pair, kind="stable")
        start = np.r_[0, np.flatnonzero(np.diff(pair[order])) + 1]
        counter = np.empty(queries, dtype=np.int64)
        counter[order] = np.arange(queries) - np.repeat(start, np.diff(np.r_[start, queries]))
        query_ids = np.char.add(
            np.char.add(np.char.add(pool[citing], "_"), pool[rel_doc[:, 0]]),
            np.char.add("_", counter.astype(str)),
        )
    else:  # query papers of 2025, the pool's papers up to 2024
        query_ids = arxiv_ids(rng, queries, 2025, 2025)
    run = {
        "query": (query_ids, np.repeat(np.arange(queries), w.depth)),
        "doc": (pool, candidates.ravel()),
        "rank": np.tile(np.arange(1, w.depth + 1), queries),
        "score": scores.ravel(),
    }
    rel_rows, rel_cols = np.nonzero(is_rel)
    qrels = {"query": (query_ids, rel_rows), "doc": (pool, rel_doc[rel_rows, rel_cols])}
    stats = {
        "lines": queries * w.depth,
        "queries": queries,
        "relevant": int(n_rel.sum()),
        "relevant_retrieved": int(hits.sum()),
        "tied_queries": int(tied.size),
        "relevant_in_tie": int(relevant_in_tie.sum()),
    }
    return run, qrels, stats


def _strings(values: np.ndarray, index: np.ndarray) -> pa.Array:
    import pyarrow as pa

    return pa.array(values.tolist()).take(index)


def _constant(text: str, count: int) -> pa.Array:
    import pyarrow as pa

    return pa.array([text]).take(np.zeros(count, dtype=np.int64))


def _six_decimals(micro: np.ndarray) -> pa.Array:
    """Millionths as ``I.FFFFFF`` strings, exactly (no float formatting)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    whole, fraction = np.divmod(micro, 10**6)
    fraction = pc.utf8_lpad(pa.array(fraction).cast(pa.string()), width=6, padding="0")
    return pc.binary_join_element_wise(pa.array(whole).cast(pa.string()), fraction, ".")


def write_workload(w: Workload, queries: int, folder: Path) -> dict:
    """Generate ``w`` into ``folder`` (``run.trec``, ``qrels.txt``, ``manifest.json``)."""
    import pyarrow as pa

    run, qrels, stats = generate(w, queries)
    lines = stats["lines"]
    run_table = pa.table(
        {
            "query_id": _strings(*run["query"]),
            "iteration": _constant("Q0", lines),
            "doc_id": _strings(*run["doc"]),
            "rank": run["rank"],
            "score": _six_decimals(run["score"]),
            "tag": _constant("citeval-bench", lines),
        }
    )
    judged = len(qrels["doc"][1])
    qrels_table = pa.table(
        {
            "query_id": _strings(*qrels["query"]),
            "iteration": _constant("0", judged),
            "doc_id": _strings(*qrels["doc"]),
            "relevance": np.ones(judged, dtype=np.int64),
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    write_trec(run_table, folder / "run.trec")
    write_trec(qrels_table, folder / "qrels.txt")
    stats["run_bytes"] = (folder / "run.trec").stat().st_size
    stats["qrels_bytes"] = (folder / "qrels.txt").stat().st_size
    return stats


def ensure_workload(w: Workload, queries: int, work: Path) -> tuple[Path, dict]:
    """The folder holding ``w``'s files, generated unless a manifest with the same parameters
    and file sizes says they are already there."""
    folder = work / f"{w.name}-{queries}q"
    params = {"generator": GENERATOR_VERSION, "workload": asdict(w), "queries": queries}
    manifest = folder / "manifest.json"
    if manifest.exists():
        known = json.loads(manifest.read_text())
        sizes = (known["stats"]["run_bytes"], known["stats"]["qrels_bytes"])
        files = [folder / "run.trec", folder / "qrels.txt"]
        if known["params"] == params and all(
            f.exists() and f.stat().st_size == n for f, n in zip(files, sizes)
        ):
            return folder, {**known["stats"], "reused": True}
        manifest.unlink()
    stats = write_workload(w, queries, folder)
    manifest.write_text(json.dumps({"params": params, "stats": stats}, indent=2))
    return folder, {**stats, "reused": False}


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True)
class Measures:
    """A protocol's measures in each tool's spelling."""

    irm: list[str]  # ir-measures, as citeval's JSON keys
    trec: list[str]  # trec_eval output names (recall_10)
    trec_args: list[str]  # trec_eval -m arguments (recall.5,10,20)
    ranx: list[str]

    @classmethod
    def of(cls, protocol: str) -> Measures:
        from citeval_irm.papers import get_protocol
        from citeval_irm.scoring import trec_eval_name

        chosen = get_protocol(protocol)
        trec, cutoffs = [], {}
        for each in chosen.measures:
            name = trec_eval_name(each)
            trec.append(name)
            base, _, cut = name.rpartition("_")
            if not cut.isdigit():
                base, cut = name, ""
            cutoffs.setdefault(base, []).append(cut)
        args = [base + ("." + ",".join(cuts) if cuts[0] else "") for base, cuts in cutoffs.items()]
        ranx = {"RR": "mrr", "AP": "map", "R": "recall", "nDCG": "ndcg", "Success": "hit_rate"}
        ranx_names = []
        for each in chosen.measures:
            cutoff = each.params.get("cutoff")
            ranx_names.append(ranx[each.NAME] + (f"@{cutoff}" if cutoff else ""))
        irm = [str(m) for m in chosen.measures]
        return cls(irm, trec, args, ranx_names)


def _tool(name: str) -> str:
    """A console script of this interpreter's environment (else from ``PATH``)."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else (shutil.which(name) or name)


def find_trec_eval(given: str | None) -> str | None:
    """``--trec-eval``, else ``$TREC_EVAL``, else /work/tools/trec_eval/trec_eval, if it exists."""
    for candidate in (given, os.environ.get("TREC_EVAL"), "/work/tools/trec_eval/trec_eval"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _has_engine_option() -> bool:
    done = subprocess.run([_tool("citeval"), "eval", "--help"], capture_output=True, text=True)
    return "--engine" in done.stdout


def numba_cache_files() -> int:
    """How many numba cache index files ranx has: a row that adds some compiled code."""
    spec = util.find_spec("ranx")
    folders = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return sum(1 for folder in folders for _ in folder.rglob("*.nbi"))


def note_numba(rows: list[Row], before: int) -> None:
    """Say in the ranx row whether its first run compiled numba code or loaded it all."""
    row = next(r for r in rows if r.name == RANX)
    added = numba_cache_files() - before
    if row.ok:
        loaded = "every run loaded ranx's numba cache"
        compiled = f"its first run compiled {added} ranx functions (numba cache incomplete)"
        row.note += "; " + (compiled if added else loaded)


def make_rows(
    run: Path, qrels: Path, w: Workload, m: Measures, trec_eval: str | None, engine: bool
) -> list[Row]:
    """The rows of one workload, each a command over the TREC files, or why it is left out."""
    python, citeval = sys.executable, _tool("citeval")
    files = [str(run), "--qrels", str(qrels), "--protocol", w.protocol]
    rows = [Row(CITEVAL, [citeval, "eval", *files], note="default engine")]
    if engine:
        rows.append(Row(ENGINE, [citeval, "eval", *files, "--engine", "pytrec_eval"]))
    else:
        rows.append(Row(ENGINE, status="not available in this version (no --engine option)"))
    rows.append(Row(IRM, [_tool("ir_measures"), str(qrels), str(run), " ".join(m.irm)]))
    if util.find_spec("ranx"):
        argv = [python, str(CHILDREN), "ranx", str(run), str(qrels), *m.ranx]
        rows.append(Row(RANX, argv, note="from_file + evaluate"))
    else:
        rows.append(Row(RANX, status="not installed (pip install ranx)"))
    rows.append(Row(PYARROW, [python, str(CHILDREN), "pyarrow", str(run)], note="6 columns"))
    if trec_eval:
        argv = [trec_eval, "-c", *(a for x in m.trec_args for a in ("-m", x)), str(qrels), str(run)]
        rows.append(Row(TREC_EVAL, argv, note="-c"))
    else:
        rows.append(Row(TREC_EVAL, status="absent (--trec-eval, $TREC_EVAL)"))
    rows.append(Row(CROSSCHECK, [citeval, "crosscheck", *files]))
    return rows


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name).strip("-")


def run_rows(rows: list[Row], repeat: int, folder: Path, warmup: bool = False) -> float:
    """Measure every runnable row ``repeat`` times, rounds interleaved so that a slow phase of
    the machine hits every row; return the highest 1-minute load average seen. ``warmup``:
    run each row once, untimed, first (the page cache, the bytecode cache, numba's)."""
    outputs = folder / "rows"
    outputs.mkdir(exist_ok=True)
    highest = os.getloadavg()[0]
    for row in rows if warmup else []:
        if row.argv and row.status == "ok":
            print(f"  {folder.name} warm-up: {row.name}", file=sys.stderr, flush=True)
            run_once(row.argv)
    for round_ in range(repeat):
        for row in rows:
            if not row.argv or row.status != "ok":
                continue
            print(f"  {folder.name} round {round_ + 1}: {row.name}", file=sys.stderr, flush=True)
            out, err = (outputs / (slug(row.name) + ext) for ext in (".out", ".err"))
            measure(row, 1, out, err)
            highest = max(highest, os.getloadavg()[0])
    return highest


# --------------------------------------------------------------------------- agreement

PerQuery = dict[tuple[str, str], float]


def _untimed(argv: list[str], out: Path) -> str:
    """Run ``argv`` (through the harness, for one code path) and return its standard output."""
    sample = run_once(argv, out, out.with_suffix(".err"))
    if sample.returncode:
        raise RuntimeError(f"{argv[:3]} failed: {out.with_suffix('.err').read_text()[-300:]}")
    return out.read_text()


def citeval_per_query(argv: list[str], out: Path, m: Measures) -> PerQuery:
    """citeval's per-query values (JSON, full precision) keyed by trec_eval measure name."""
    result = json.loads(_untimed([*argv, "--format", "json", "--per-query"], out))
    scale = 100.0 if result.get("percent") else 1.0
    names = dict(zip(m.irm, m.trec))
    values: PerQuery = {}
    for query, row in result["per_query"].items():
        for name, value in row.items():
            values[query, names[name]] = value / scale
    return values


def pytrec_per_query(run: Path, qrels: Path, out: Path, m: Measures) -> PerQuery:
    child = [sys.executable, str(CHILDREN), "pytrec", str(run), str(qrels), *m.trec_args]
    result = json.loads(_untimed(child, out))
    return {(q, name): v for q, row in result.items() for name, v in row.items()}


def trec_eval_per_query(argv: list[str], out: Path) -> PerQuery:
    """trec_eval ``-q`` (4 decimals), without the ``all`` lines."""
    values: PerQuery = {}
    for line in _untimed([argv[0], "-q", *argv[1:]], out).splitlines():
        name, query, value = line.split()
        if query != "all":
            values[query, name] = float(value)
    return values


def pipeline_arguments(doc: str, repeat: int, argv: list[str] | None) -> argparse.Namespace:
    """The options of the benchmarks that time W1 and a big run of its generator side by
    side (bench_pipeline.py, bench_speed.py); this checkout's package for every citeval
    row (``PYTHONPATH``)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="generated files (not the repo)")
    parser.add_argument("--repeat", type=int, default=repeat, help="runs of the quick rows")
    parser.add_argument("--scale", type=float, default=1.0, help="W1's queries times this")
    parser.add_argument("--big-scale", type=float, default=5.0, help="W1's queries times this")
    parser.add_argument("--trec-eval", help="the trec_eval binary (else $TREC_EVAL)")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent), os.environ.get("PYTHONPATH")) if p
    )
    return args


def trec_eval_agreement(citeval_argv: list[str], trec_argv: list[str], outputs: Path, m) -> str:
    """The line saying how citeval's per-query values (``citeval_argv``, an eval command)
    agree with ``trec_eval -q``'s (``trec_argv``, 4 decimals)."""
    ours = citeval_per_query(citeval_argv, outputs / "eval.per-query.json", m)
    theirs = trec_eval_per_query(trec_argv, outputs / "trec_eval_q.txt")
    agreed = compare(ours, theirs, TREC_TOLERANCE)
    return (
        f"per-query values, citeval eval vs trec_eval -q: {agreed['pairs']:,} pairs, "
        f"max |diff| {agreed['max_abs_diff']:.1e}, {agreed['differing_pairs']} differing"
    )


def compare(ours: PerQuery, theirs: PerQuery, tolerance: float) -> dict:
    """Max |difference| over the shared (query, measure) pairs, and how many pairs differ by
    more than ``tolerance`` or are on one side only."""
    shared = ours.keys() & theirs.keys()
    diffs = {key: abs(ours[key] - theirs[key]) for key in shared}
    differing = sorted(key for key, diff in diffs.items() if diff > tolerance)
    one_side = len(ours.keys() ^ theirs.keys())
    return {
        "pairs": len(shared),
        "max_abs_diff": max(diffs.values(), default=0.0),
        "differing_pairs": len(differing) + one_side,
        "one_side_only": one_side,
        "examples": [f"{q} {name}" for q, name in differing[:3]],
        "tolerance": tolerance,
    }


def agreement(rows: list[Row], run: Path, qrels: Path, folder: Path, m: Measures) -> list[dict]:
    """citeval's per-query values (each citeval eval row) against pytrec_eval and trec_eval."""
    by_name = {row.name: row for row in rows}
    out = folder / "rows"
    print(f"  {folder.name}: per-query values for the agreement", file=sys.stderr, flush=True)
    references: dict[str, tuple[PerQuery, float]] = {
        "pytrec_eval (dicts)": (pytrec_per_query(run, qrels, out / "pytrec.json", m), TOLERANCE)
    }
    if by_name[TREC_EVAL].argv:
        values = trec_eval_per_query(by_name[TREC_EVAL].argv, out / "trec_eval_q.txt")
        references["trec_eval -q"] = (values, TREC_TOLERANCE)
    results = []
    for name in (CITEVAL, ENGINE):
        row = by_name[name]
        if not row.argv:
            continue
        ours = citeval_per_query(row.argv, out / f"{slug(name)}.per-query.json", m)
        for reference, (theirs, tolerance) in references.items():
            results.append(
                {"citeval": name, "reference": reference, **compare(ours, theirs, tolerance)}
            )
    return results


# --------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    """A target of the issue: a figure computed from two rows, and the bound it must meet."""

    text: str
    row: str
    reference: str
    figure: Callable[[Row, Row], float]
    unit: str
    met: Callable[[float], bool]


def _speedup(row: Row, ref: Row) -> float:
    return ref.median_seconds / row.median_seconds


def _slowdown(row: Row, ref: Row) -> float:
    return row.median_seconds / ref.median_seconds


TARGETS = (
    Target(
        "end-to-end >= 6x faster than the ir_measures CLI",
        CITEVAL,
        IRM,
        _speedup,
        "x faster",
        lambda v: v >= 6,
    ),
    Target(
        ">= 3x faster than trec_eval", CITEVAL, TREC_EVAL, _speedup, "x faster", lambda v: v >= 3
    ),
    Target("faster than ranx", CITEVAL, RANX, _speedup, "x faster", lambda v: v > 1),
    Target(
        "within 3x of the pyarrow parse",
        CITEVAL,
        PYARROW,
        _slowdown,
        "x the parse",
        lambda v: v <= 3,
    ),
    Target(
        "peak RSS <= half of the ir_measures CLI's",
        CITEVAL,
        IRM,
        lambda row, ref: row.peak_rss_mb / ref.peak_rss_mb,
        "x its RSS",
        lambda v: v <= 0.5,
    ),
    Target(
        "crosscheck within 3x of citeval eval",
        CROSSCHECK,
        CITEVAL,
        _slowdown,
        "x eval",
        lambda v: v <= 3,
    ),
)


def check_targets(rows: list[Row]) -> list[dict]:
    by_name = {row.name: row for row in rows}
    out = []
    for target in TARGETS:
        row, ref = by_name[target.row], by_name[target.reference]
        if row.ok and ref.ok:
            value = target.figure(row, ref)
            figure, verdict = (
                f"{value:.2f} {target.unit}",
                "MET" if target.met(value) else "NOT MET",
            )
        else:
            value, figure, verdict = None, "-", f"n/a ({target.reference}: {ref.status})"
        out.append({"target": target.text, "value": value, "figure": figure, "verdict": verdict})
    return out


# --------------------------------------------------------------------------- report


def environment(trec_eval: str | None) -> dict:
    versions = package_versions(PACKAGES)
    te_version = None
    if trec_eval:
        done = subprocess.run([trec_eval, "-v"], capture_output=True, text=True)
        te_version = (done.stdout + done.stderr).strip()
    git = subprocess.run(
        ["git", "-C", str(HERE), "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "git": git or None,
        "packages": versions,
        "trec_eval": trec_eval,
        "trec_eval_version": te_version,
    }


def describe(w: Workload, stats: dict) -> str:
    return (
        f"{w.name}: {stats['queries']:,} queries x {w.depth:,} = {stats['lines']:,} run lines "
        f"({stats['run_bytes'] / 2**20:,.0f} MB), {stats['relevant']:,} relevant "
        f"({stats['relevant_retrieved']:,} retrieved), {stats['tied_queries']:,} queries with "
        f"ties ({stats['relevant_in_tie']:,} with a relevant doc tied), protocol {w.protocol}"
        + (" [files reused]" if stats["reused"] else "")
    )


def print_workload(rows: list[Row], floor: float, agreed: list[dict], targets: list[dict]) -> None:
    print(markdown_table(rows, REFERENCES, floor))
    print("\nagreement, per (query, measure):\n")
    print("| citeval | reference | pairs | max abs diff | differing pairs | tolerance |")
    print("| --- | --- | --- | --- | --- | --- |")
    for a in agreed:
        examples = f" (e.g. {', '.join(a['examples'])})" if a["examples"] else ""
        print(
            f"| {a['citeval']} | {a['reference']} | {a['pairs']:,} | {a['max_abs_diff']:.2e} | "
            f"{a['differing_pairs']:,}{examples} | {a['tolerance']:.0e} |"
        )
    print("\ntargets (issue 9), for citeval eval:\n")
    print("| target | figure | verdict |")
    print("| --- | --- | --- |")
    for t in targets:
        print(f"| {t['target']} | {t['figure']} | {t['verdict']} |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="W1,W1T,W2", help="comma-separated: W1,W1T,W2")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median is shown")
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the query counts")
    parser.add_argument("--work", type=Path, default=HERE / "out", help="generated files")
    parser.add_argument("--trec-eval", help="the trec_eval binary (else $TREC_EVAL)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {sorted(WORKLOADS)}")
    sys.stdout.reconfigure(line_buffering=True)
    trec_eval = find_trec_eval(args.trec_eval)
    env = environment(trec_eval)
    floor, engine = floor_mb(), _has_engine_option()
    load = os.getloadavg()
    print(f"python {env['python']}, {env['platform']}, {env['cpus']} CPUs, commit {env['git']}")
    print("packages: " + ", ".join(f"{k} {v}" for k, v in env["packages"].items()))
    print(f"trec_eval: {trec_eval or 'absent'} ({env['trec_eval_version']})")
    print(
        f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; --repeat {args.repeat}, "
        f"--scale {args.scale}; peak RSS = the process's own (wait4 under harness/wrap.py; "
        f"floor {floor:.1f} MB); x REF = median / REF's median (< 1: faster than REF)\n"
    )
    report: dict = {"environment": env, "config": vars(args) | {"floor_mb": floor}, "workloads": {}}
    for name in names:
        w = WORKLOADS[name]
        queries = max(1, round(w.queries * args.scale))
        folder, stats = ensure_workload(w, queries, args.work)
        print(f"## {describe(w, stats)}\n")
        run, qrels, m = folder / "run.trec", folder / "qrels.txt", Measures.of(w.protocol)
        rows = make_rows(run, qrels, w, m, trec_eval, engine)
        cache = numba_cache_files()
        highest = run_rows(rows, args.repeat, folder)
        note_numba(rows, cache)
        agreed = agreement(rows, run, qrels, folder, m)
        targets = check_targets(rows)
        print_workload(rows, floor, agreed, targets)
        print(f"highest 1-minute load average during {name}: {highest:.2f}\n")
        report["workloads"][name] = {
            "data": stats,
            "rows": [row.to_json() for row in rows],
            "agreement": agreed,
            "targets": targets,
            "highest_load": highest,
        }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
