"""Generate ``examples/generated.jsonl`` and ``examples/catalogue.txt``: GENERATED reference
lists for the demo benchmark (``citeval/demo/test``), as a language model might answer.

Nothing here is real: the demo corpus is generated (``scripts/make_demo.py``), and so are
these lists. For each of the demo's 163 test contexts, a list of 10 references in the
corruptions of ``scripts/resolve_threshold.py`` (case, venue, LaTeX, misspellings, cut
titles, ...), written as strings, as objects (``title``, ``year``) or as ACL Anthology ids
and URLs: the cited paper itself, more often the more the training split cites it (so
that fabrication falls with popularity, as studies of language models report); other demo
papers; invented titles ("fabricated"), more often for rarely cited papers; and titles of
papers outside the demo corpus that ``examples/catalogue.txt`` lists (a "real paper outside
the pool"). Some lists name a paper twice; one list is empty.

    python scripts/make_generated_example.py  # rewrites the two files
"""

from __future__ import annotations

import json
import random
from collections import Counter
from importlib import resources
from pathlib import Path

from resolve_threshold import CORRUPTIONS, corrupt, invented

SEED = 33
PER_LIST = 10
OUTSIDE = [f"{a} {b} for {c}" for a, b, c in [
    ("Scalable", "contrastive pretraining", "scientific citation graphs"),
    ("Multilingual", "retrieval augmentation", "low-resource summarization"),
    ("Calibrated", "uncertainty estimates", "neural machine translation"),
    ("Sparse", "mixture-of-experts models", "dependency parsing"),
    ("Efficient", "long-context transformers", "document-level relation extraction"),
    ("Robust", "instruction tuning", "cross-lingual question answering"),
]]  # fmt: skip
"""GENERATED titles of papers "outside the pool": in the catalogue, not in the corpus."""


def demo_files() -> tuple[dict, list, list]:
    root = resources.files("citeval_irm").joinpath("datasets", "demo")
    read = lambda name: json.loads(root.joinpath(name).read_text(encoding="utf-8"))  # noqa: E731
    return read("papers.json"), read("test.json"), read("train.json")


def reference(paper: str, title: str, rng: random.Random):
    """One way of naming a demo paper."""
    form = rng.random()
    if form < 0.08:
        return rng.choice([paper, f"https://aclanthology.org/{paper}.pdf"])
    if form < 0.3:
        return {"title": corrupt(title, rng.choice(CORRUPTIONS), rng),
                "year": 2000 + int(paper[1:3])}  # fmt: skip
    return corrupt(title, rng.choice(CORRUPTIONS), rng)


def main() -> None:
    rng = random.Random(SEED)
    papers, test, train = demo_files()
    titles = {pid: p["title"] for pid, p in papers.items()}
    ids = sorted(titles)
    popularity = Counter(doc for entry in train for doc in entry["positive_ids"])
    known = {t.lower() for t in titles.values()}
    lines = []
    for n, entry in enumerate(test):
        gold = entry["positive_ids"][0]
        share = min(1.0, popularity[gold] / 10)
        references = []
        if n == 7:
            lines.append({"query_id": entry["context_id"], "references": []})
            continue
        if rng.random() < 0.25 + 0.7 * share:
            references.append(reference(gold, titles[gold], rng))
        while len(references) < PER_LIST:
            draw = rng.random()
            if draw < 0.45 - 0.3 * share:
                references.append(invented(list(titles.values()), rng, known))
            elif draw < 0.52 - 0.3 * share:
                references.append(rng.choice(OUTSIDE))
            else:
                other = rng.choice(ids)
                references.append(reference(other, titles[other], rng))
        if rng.random() < 0.15:
            references.append(references[0])  # the same paper named twice
        if rng.random() < 0.5:
            rng.shuffle(references)
        lines.append({"query_id": entry["context_id"], "references": references})
    examples = Path(__file__).resolve().parents[1] / "examples"
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    (examples / "generated.jsonl").write_text(text, encoding="utf-8")
    catalogue = sorted(OUTSIDE + [t for t in titles.values()][:50])
    (examples / "catalogue.txt").write_text("\n".join(catalogue) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} lists to examples/generated.jsonl, {len(catalogue)} titles to "
          "examples/catalogue.txt (GENERATED)")  # fmt: skip


if __name__ == "__main__":
    main()
