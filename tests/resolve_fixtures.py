"""A GENERATED corpus with the traps real generated reference lists meet (not a conftest).

``write_trap_corpus`` writes an ACL-200-layout corpus (ACL Anthology-style ids, so every
paper has a year) whose titles include the same title in two years (a workshop preprint and
its conference version), titles with LaTeX and Unicode, and titles sharing most words, among
generated filler titles; its test split cites some of them, its train split makes their
popularity known. ``TRAPS`` is a hand-made list of generated references with the decision
each must get. Every title here is GENERATED (some are the names of well-known papers, used
as titles only: nothing of those papers is in the corpus).
"""

from __future__ import annotations

import random
from pathlib import Path

from datasets_fixtures import write_hatten_files

PAPERS = {
    "W16-1001": "Attention is all you need",  # the preprint ...
    "P17-1001": "Attention Is All You Need",  # ... and its published version, a year later
    "D14-1162": "GloVe: Global Vectors for Word Representation",
    "N19-1423": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
    "P02-1040": "Bleu: a Method for Automatic Evaluation of Machine Translation",
    "J93-2004": "Building a Large Annotated Corpus of English: The Penn Treebank",
    "P15-1001": "M\u00fcller-style parsing with \u00dcber-features",
    "E14-1001": "{\\em Neural} machine translation by jointly learning to align and translate",
    "D15-1166": "Effective Approaches to Attention-based Neural Machine Translation",
    "D16-1264": "Effective approaches to attention-based neural machine translation revisited",
    "P18-2001": "A citing paper about reference lists",
}
"""The papers the traps are about (more filler comes from :func:`filler_titles`)."""

CITING = "P18-2001"
"""The citing paper of every test context (2018)."""

TRAPS: list[tuple[object, str, tuple[str, ...]]] = [
    # (reference, how, the doc (or the candidates, when ambiguous))
    ("GloVe: Global Vectors for Word Representation", "exact", ("D14-1162",)),
    ("glove global vectors for word representation.", "exact", ("D14-1162",)),
    ("GloVe: Global Vectors for Word Representation (2014)", "exact", ("D14-1162",)),
    (
        "Pennington et al. 2014. GloVe: Global vectors for word representation. EMNLP",
        "exact",
        ("D14-1162",),
    ),  # fmt: skip
    (
        {"title": "Bleu: a method for automatic evaluation of machine translation", "year": 2002},
        "exact",
        ("P02-1040",),
    ),  # fmt: skip
    # the same title in two years: the year decides; none given: ambiguous, both listed
    ({"title": "Attention is all you need", "year": 2017}, "exact", ("P17-1001",)),
    ({"title": "Attention is all you need", "year": "2016"}, "exact", ("W16-1001",)),
    ("Attention is all you need", "ambiguous", ("P17-1001", "W16-1001")),
    ("Attention is all you need. NeurIPS 2017", "exact", ("P17-1001",)),
    ({"title": "Attention is all you need", "year": 2020}, "ambiguous", ("P17-1001", "W16-1001")),
    ("Atention is all you ned", "ambiguous", ("P17-1001", "W16-1001")),
    # LaTeX and Unicode variants
    ('M\\"{u}ller-style parsing with \\"Uber-features', "exact", ("P15-1001",)),
    ("Muller-style parsing with Uber-features", "exact", ("P15-1001",)),
    ("MU\u0308LLER-STYLE PARSING WITH U\u0308BER-FEATURES", "exact", ("P15-1001",)),
    (
        "Neural machine translation by jointly learning to align and translate",
        "exact",
        ("E14-1001",),
    ),  # fmt: skip
    (
        "\\textit{Neural} Machine Translation by Jointly Learning to Align and Translate",
        "exact",
        ("E14-1001",),
    ),  # fmt: skip
    (
        "\uff27\uff4c\uff4f\uff36\uff45: Global Vectors for Word Representation",
        "exact",
        ("D14-1162",),
    ),  # fullwidth letters (NFKC)  # fmt: skip
    # misspelt and truncated
    ("Buildng a large anotated corpus of English: the Penn Treebank", "fuzzy", ("J93-2004",)),
    (
        "BERT: Pre-training of Deep Bidirectional Transformers for Language Understandin",
        "fuzzy",
        ("N19-1423",),
    ),  # fmt: skip
    ("BERT: Pre-training of deep bidirectional transformers for...", "fuzzy", ("N19-1423",)),
    ("Building a Large Annotated Corpus of English \u2026", "fuzzy", ("J93-2004",)),
    (
        "Effective approaches to attention-based neural machine translatoin",
        "fuzzy",
        ("D15-1166",),
    ),  # near-duplicate titles: the closer one  # fmt: skip
    (
        "Effective approaches to attention based neural machine translation revisted",
        "fuzzy",
        ("D16-1264",),
    ),  # fmt: skip
    # invented titles, and a title too short to match anything
    ("Quantum llama parsing for interstellar machine translation", "unmatched", ()),
    ("Deep learning", "unmatched", ()),
    ({"authors": ["Somebody"], "venue": "ACL"}, "unmatched", ()),
    ("", "unmatched", ()),
    # identifiers in several forms (an ACL corpus: Anthology ids and their DOIs)
    ("N19-1423", "id", ("N19-1423",)),
    ("https://aclanthology.org/N19-1423.pdf", "id", ("N19-1423",)),
    ("https://www.aclweb.org/anthology/N19-1423/", "id", ("N19-1423",)),
    ({"acl": "D14-1162"}, "id", ("D14-1162",)),
    ({"doi": "10.18653/v1/N19-1423", "title": "Something else entirely"}, "id", ("N19-1423",)),
    ("Devlin et al. BERT. doi:10.18653/v1/n19-1423", "id", ("N19-1423",)),
    (
        {"acl": "Z99-9999", "title": "GloVe: global vectors for word representation"},
        "exact",
        ("D14-1162",),
    ),  # an id the corpus lacks: the title decides  # fmt: skip
]
"""Hand-made expectations, one per trap."""


def filler_titles(count: int, seed: int = 7) -> list[str]:
    """GENERATED titles from a small vocabulary of the field (so blocking meets common
    words)."""
    rng = random.Random(seed)
    tasks = ["parsing", "machine translation", "summarization", "question answering",
             "sentiment analysis", "named entity recognition", "coreference resolution",
             "relation extraction", "language modeling", "speech recognition"]  # fmt: skip
    methods = ["neural networks", "graph convolutions", "transformers", "conditional random "
               "fields", "reinforcement learning", "latent variables", "contrastive learning",
               "dependency trees", "beam search", "domain adaptation"]  # fmt: skip
    styles = ["{m} for {t}", "Improving {t} with {m}", "{t} via {m}", "On {m} in {t}",
              "Towards robust {t} using {m}", "A study of {m} for low-resource {t}"]  # fmt: skip
    out: list[str] = []
    while len(out) < count:
        title = rng.choice(styles).format(m=rng.choice(methods), t=rng.choice(tasks))
        title = title[0].upper() + title[1:] + rng.choice(["", "", ": a case study", " revisited"])
        if title not in out:
            out.append(title)
    return out


def write_trap_corpus(folder: Path, filler: int = 300) -> dict:
    """The trap corpus in the HAtten layout (ACL-200's files); returns its papers, the test
    query ids and the training citation counts."""
    folder.mkdir(parents=True, exist_ok=True)
    titles = dict(PAPERS)
    for n, title in enumerate(filler_titles(filler)):
        titles[f"W{10 + n % 8:02d}-{5000 + n}"] = title
    contexts, splits = {}, {"train": [], "val": [], "test": []}

    def add(split: str, citing: str, cited: str, n: int) -> str:
        context_id = f"{citing}_{cited}_{n}"
        contexts[context_id] = {"masked_text": f"generated context {n} cites TARGETCIT",
                                "context_id": context_id, "citing_id": citing,
                                "refid": cited}  # fmt: skip
        splits[split].append({"context_id": context_id, "positive_ids": [cited]})
        return context_id

    cited = ["D14-1162", "P02-1040", "J93-2004", "P17-1001", "D15-1166", "E14-1001"]
    counts = {paper: 2 * i for i, paper in enumerate(cited)}
    for paper, count in counts.items():
        for n in range(count):
            add("train", f"W13-{6000 + n}", paper, 0)
    queries = [add("test", CITING, paper, 0) for paper in cited]
    add("val", "E14-1001", "J93-2004", 0)
    for citing in {c["citing_id"] for c in contexts.values()}:
        titles.setdefault(citing, f"Generated citing paper {citing}")
    papers = {pid: {"title": t, "abstract": f"Generated abstract of {pid}."}
              for pid, t in titles.items()}  # fmt: skip
    write_hatten_files(folder, papers, contexts, splits)
    return {"papers": papers, "queries": queries, "counts": counts}


DEMO = "citeval/demo/test"


def demo_model_lists(gold: float, invented: float, seed: int, per_list: int = 8) -> dict:
    """GENERATED reference lists for the demo's test queries, as a language model of a given
    quality might answer: titles of demo papers older than the citing paper (as they are,
    in capitals, or with a letter dropped: a fuzzy match) and, each with
    probability ``invented``, titles made of halves of two demo titles; the cited paper's
    title among the first five with probability ``gold``; the first query's
    list is empty and every tenth names its first paper twice. Two calls with other
    ``gold`` / ``invented`` give two "models" to compare."""
    import json
    from importlib import resources

    root = resources.files("citeval_irm").joinpath("datasets", "demo")
    papers = json.loads(root.joinpath("papers.json").read_text(encoding="utf-8"))
    test = json.loads(root.joinpath("test.json").read_text(encoding="utf-8"))
    titles = {pid: p["title"] for pid, p in papers.items()}
    ids, known = sorted(titles), {t.lower() for t in titles.values()}
    rng = random.Random(seed)

    def named(paper: str) -> str:
        title, form = titles[paper], rng.random()
        if form < 0.2:
            return title.upper()
        if form < 0.35 and len(title) > 30:
            at = rng.randrange(5, len(title) - 5)
            return title[:at] + title[at + 1 :]  # a letter dropped: a fuzzy match
        return title

    def made_up() -> str:
        while True:
            one, other = (titles[p].split() for p in rng.sample(ids, 2))
            title = " ".join(one[: len(one) // 2] + other[len(other) // 2 :])
            if title.lower() not in known:
                return title

    lists = {}
    for n, entry in enumerate(test):
        references = []
        if n > 0:
            citing = entry["context_id"].split("_")[0]  # only papers the protocol admits
            earlier = [p for p in ids if p[1:3] < citing[1:3]]
            while len(references) < per_list:
                references.append(
                    made_up() if rng.random() < invented else named(rng.choice(earlier))
                )
            if rng.random() < gold:  # the cited paper, among the first five
                references.insert(rng.randrange(5), named(entry["positive_ids"][0]))
            if n % 10 == 0:
                references.append(references[0])
        lists[entry["context_id"]] = references
    return lists
