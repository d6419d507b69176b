"""Every output of a fixed corpus of commands, recorded and compared byte for byte.

A refactoring that claims "behaviour unchanged" runs this before and after: each command of
the corpus (the demo, the README's and the guides' commands in every format, reports, the
drop-in trec_eval, resolve, errors, and a W1-like run of 2,000 queries x 300 with a
200,000-doc pool and 6-decimal scores, read whole, streamed and from Parquet) runs in a fresh
folder with a fresh ir_datasets home; its exit status, standard output, standard error and
every file it wrote are recorded (the folder's path replaced by ``<DIR>``). ``record`` runs the
corpus twice and sets aside, by name, any output that still differs between two runs of the
same code, so ``check`` compares only what is deterministic (a report's time of making and a
command's duration are replaced by ``<VARIES>`` first).

    python scripts/golden_outputs.py record golden.json
    python scripts/golden_outputs.py check golden.json     # exit 1 and the differences

The citeval on the PATH is the one run (the current environment's).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEMO = "--dataset citeval/demo/test"

# (name, shell command): run in order in one folder, each seeing what the ones before wrote
CORPUS: list[tuple[str, str]] = [
    ("demo", "citeval demo"),
    ("demo-md", "citeval demo --report demo.md --no-temporal -o demo-future.trec"),
    ("bm25", f"citeval baseline bm25 {DEMO} -k 300 -o bm25.trec"),
    ("titles", f"citeval baseline bm25 {DEMO} -k 300 --fields title -o titles.trec"),
    ("future", f"citeval baseline bm25 {DEMO} -k 300 --no-temporal -o future.trec"),
    ("export-qrels", "citeval datasets export citeval/demo/test qrels > qrels.txt"),
    ("eval", 'citeval eval bm25.trec --qrels qrels.txt -m "RR nDCG@10"'),
    ("eval-all", 'citeval eval bm25.trec --qrels qrels.txt -m "MRR R@10 nDCG@10 AP HR@10"'),
    ("eval-protocol", f"citeval eval bm25.trec {DEMO} --protocol goyal2026"),
    ("eval-default", f"citeval eval bm25.trec {DEMO}"),
    *(
        (f"eval-{fmt}", f"citeval eval bm25.trec {DEMO} --protocol goyal2026 --format {fmt}")
        for fmt in ("csv", "json", "trec_eval")
    ),
    ("eval-per-query", f"citeval eval bm25.trec {DEMO} -m RR --format trec_eval --per-query"),
    ("eval-crosscheck", f"citeval eval bm25.trec {DEMO} -m R@10 --crosscheck --recipe hatten"),
    ("eval-report-html", f"citeval eval bm25.trec {DEMO} --report eval.html"),
    ("eval-report-md", f"citeval eval bm25.trec {DEMO} --report eval.md"),
    ("eval-future", f"citeval eval future.trec {DEMO}"),
    ("eval-strict", f"citeval eval future.trec {DEMO} --strict"),
    ("validate", f"citeval validate bm25.trec {DEMO}"),
    ("validate-future", f"citeval validate future.trec {DEMO}"),
    *(
        (f"crosscheck-{recipe}", f"citeval crosscheck bm25.trec {DEMO} --recipe {recipe}")
        for recipe in ("hatten", "symtax", "duallcr", "goyal2026", "masterset2026")
    ),
    ("compare", f"citeval compare bm25.trec titles.trec {DEMO} --protocol goyal2026"),
    *(
        (f"compare-{fmt}", f"citeval compare bm25.trec titles.trec {DEMO} -m RR --format {fmt}")
        for fmt in ("csv", "json", "latex", "markdown")
    ),
    ("compare-published", f"citeval compare bm25.trec {DEMO} --published"),
    ("compare-report", f"citeval compare bm25.trec titles.trec {DEMO} --report compare.html"),
    *(
        (f"breakdown-{by}", f"citeval breakdown bm25.trec titles.trec {DEMO} --by {by} -m RR")
        for by in ("year", "popularity", "gold", "venue")
    ),
    *(
        (f"breakdown-{fmt}", f"citeval breakdown bm25.trec {DEMO} --by year -m RR --format {fmt}")
        for fmt in ("markdown", "csv", "json")
    ),
    (
        "manifest",
        "printf 'system,dataset,run\\nbm25,citeval/demo/test,bm25.trec\\n"
        "titles,citeval/demo/test,titles.trec\\nfuture,citeval/demo/test,future.trec\\n'"
        " > manifest.csv",
    ),
    ("table", 'citeval table manifest.csv --baseline bm25 -m "RR R@10 nDCG@10"'),
    *(
        (f"table-{fmt}", f"citeval table manifest.csv --baseline bm25 -m RR --format {fmt}")
        for fmt in ("markdown", "csv", "json", "latex")
    ),
    ("table-paper", "citeval table manifest.csv --paper goyal2026"),
    ("table-report", "citeval table manifest.csv --report table.html"),
    ("trec_eval", "citeval trec_eval -m recip_rank -m ndcg_cut.10 qrels.txt bm25.trec"),
    ("trec_eval-q-all", "citeval trec_eval -q -m all_trec qrels.txt bm25.trec"),
    ("trec_eval-default", "citeval trec_eval qrels.txt titles.trec"),
    ("copy-generated", f"cp {REPO / 'examples' / 'generated.jsonl'} generated.jsonl"),
    ("resolve", f"citeval resolve generated.jsonl {DEMO} -o generated.trec"),
    *(
        (
            f"resolve-report-{ext}",
            f"citeval resolve generated.jsonl {DEMO} -o g.trec --force --report r.{ext}",
        )
        for ext in ("json", "csv", "txt", "html", "md")
    ),
    ("resolve-json", f"citeval resolve generated.jsonl {DEMO} -o g.trec --force --format json"),
    ("audit", "citeval audit citeval/demo/test"),
    ("protocols", "citeval protocols"),
    ("recipes", "citeval recipes"),
    ("published", "citeval published"),
    ("published-goyal", "citeval published --paper goyal2026 --dataset ACL-200 --format markdown"),
    ("published-check", "citeval published --paper goyal2026 --check"),
    ("datasets-list", "citeval datasets list"),
    ("convert", "citeval convert bm25.trec bm25.parquet"),
    ("eval-parquet", f"citeval eval bm25.parquet {DEMO} --protocol goyal2026"),
    # errors: the message, the status, nothing written
    ("error-missing", "citeval eval missing.trec --qrels qrels.txt"),
    (
        "error-bad-line",
        "printf 'q1 Q0 d1 1 x t\\nq1 Q0 d2\\n' > bad.trec; citeval eval bad.trec --qrels qrels.txt",
    ),
    ("error-measure", "citeval eval bm25.trec --qrels qrels.txt -m nDCG@ten"),
    ("error-exists", f"citeval baseline bm25 {DEMO} -o bm25.trec"),
    ("error-dataset", "citeval eval bm25.trec --dataset citeval/nope/test"),
    # W1-like: 2,000 queries x 300 docs, a 200,000-doc pool, 6-decimal scores (ties)
    ("w1-eval", "citeval eval w1.trec --qrels w1.qrels --protocol goyal2026"),
    (
        "w1-per-query",
        "citeval eval w1.trec --qrels w1.qrels -m 'RR nDCG@10' --per-query --format csv",
    ),
    ("w1-streamed", "citeval eval w1.trec --qrels w1.qrels --protocol goyal2026 --memory 20M"),
    ("w1-convert", "citeval convert w1.trec w1-parts --partition-rows 100000"),
    ("w1-parquet", "citeval eval w1-parts --qrels w1.qrels --protocol goyal2026"),
    ("w1-trec_eval", "citeval trec_eval -m all_trec w1.qrels w1.trec"),
    ("w1-compare", "citeval compare w1.trec w1b.trec --qrels w1.qrels -m 'RR nDCG@10'"),
]


def write_w1(folder: Path, queries: int = 2_000, depth: int = 300, pool: int = 200_000) -> None:
    """A W1-like run pair and its qrels (SYNTHETIC ids): one relevant doc per query, 90 % of
    them retrieved, scores rounded to 6 decimals so that some queries hold ties."""
    rng = np.random.default_rng(20261206)
    qids = [f"Q{q:05d}" for q in range(queries)]
    with (folder / "w1.qrels").open("w") as qrels:
        gold = rng.integers(0, pool, size=queries)
        for q, g in zip(qids, gold):
            qrels.write(f"{q} 0 D{g:06d} 1\n")
    for name, seed in (("w1.trec", 1), ("w1b.trec", 2)):
        r = np.random.default_rng(seed)
        with (folder / name).open("w") as run:
            for q, g in zip(qids, gold):
                docs = r.choice(pool, size=depth, replace=False)
                if r.random() < 0.9 and g not in docs:
                    docs[r.integers(0, depth)] = g
                scores = np.round(np.sort(r.random(depth))[::-1] * 10, 6)
                scores[r.random(depth) < 0.05] = 5.0  # a tie group in some queries
                run.writelines(
                    f"{q} Q0 D{d:06d} {rank + 1} {s:.6f} w1\n"
                    for rank, (d, s) in enumerate(zip(docs, scores))
                )


def run_corpus() -> dict[str, dict[str, str]]:
    """Each command's status, outputs and written files, as text (binary files by digest)."""
    found: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="citeval-golden-") as tmp:
        folder = Path(tmp) / "work"
        folder.mkdir()
        write_w1(folder)
        env = {
            **os.environ,
            "IR_DATASETS_HOME": str(Path(tmp) / "home"),
            "MPLBACKEND": "Agg",
            "COLUMNS": "100",
            "LINES": "40",
        }
        for name in ("CITEVAL_DEMO_DIR", "CI", "NO_COLOR", "FORCE_COLOR"):
            env.pop(name, None)
        for name, command in CORPUS:
            before = _contents(folder)
            done = subprocess.run(
                ["bash", "-c", command], cwd=folder, env=env, capture_output=True, timeout=600
            )
            entry = {
                "command": command,
                "status": str(done.returncode),
                "stdout": _text(done.stdout, tmp),
                "stderr": _text(done.stderr, tmp),
            }
            for path, digest in sorted(_contents(folder).items()):
                if before.get(path) != digest:
                    entry[f"file {path}"] = _file_text(folder / path, tmp)
            found[name] = entry
            print(f"{name}: exit {done.returncode}", file=sys.stderr, flush=True)
    return found


def _contents(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


# what changes from run to run by design: the time a report was made, how long a command took
_VARYING = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC|(?:done|compared) in [\d.]+ s")


def _text(data: bytes, tmp: str) -> str:
    text = data.decode("utf-8", "backslashreplace").replace(tmp, "<DIR>")
    return _VARYING.sub("<VARIES>", text)


def _file_text(path: Path, tmp: str) -> str:
    data = path.read_bytes()
    if path.suffix in {".parquet", ".png", ".pdf"} or b"\0" in data[:4096]:
        return "sha256 " + hashlib.sha256(data).hexdigest()
    text = _text(data, tmp)
    return text if len(text) < 200_000 else "sha256 " + hashlib.sha256(text.encode()).hexdigest()


def record(path: Path) -> int:
    first, second = run_corpus(), run_corpus()
    unstable = sorted(
        f"{name}: {key}"
        for name, entry in first.items()
        for key, value in entry.items()
        if second.get(name, {}).get(key) != value
    )
    path.write_text(
        json.dumps({"outputs": first, "unstable": unstable}, indent=1, ensure_ascii=False),
        encoding="utf-8",
    )
    print(f"recorded {len(first)} commands in {path}; {len(unstable)} unstable outputs set aside")
    for line in unstable:
        print(f"  unstable: {line}")
    return 0


def check(path: Path) -> int:
    golden = json.loads(path.read_text(encoding="utf-8"))
    unstable = set(golden["unstable"])
    now = run_corpus()
    differences = 0
    for name, entry in golden["outputs"].items():
        current = now.get(name, {})
        for key in sorted(set(entry) | set(current)):
            if (
                key == "command"  # names this checkout's path: the outputs are what count
                or f"{name}: {key}" in unstable
                or entry.get(key) == current.get(key)
            ):
                continue
            differences += 1
            print(f"--- {name}: {key} differs ({entry['command']})")
            diff = difflib.unified_diff(
                str(entry.get(key, "<absent>")).splitlines(),
                str(current.get(key, "<absent>")).splitlines(),
                "before",
                "after",
                lineterm="",
                n=1,
            )
            for line in list(diff)[:40]:
                print(line)
    print(f"{len(golden['outputs'])} commands, {differences} outputs differ")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["record", "check"])
    parser.add_argument("file", type=Path)
    args = parser.parse_args()
    if not shutil.which("citeval"):
        parser.error("no citeval on the PATH (activate the environment first)")
    return record(args.file) if args.action == "record" else check(args.file)


if __name__ == "__main__":
    sys.exit(main())
