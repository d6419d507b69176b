"""Generate ``citeval/demo``: a small GENERATED citation-recommendation benchmark.

Nothing here is real data. Papers are written from a handful of topic vocabularies (machine
translation, parsing, sentiment, ...) with a made-up system name each; citing papers cite
earlier papers, mostly of their own topic and preferably already well-cited ones; each
citation context borrows a few words of the cited paper's title and abstract (sometimes its
system name, sometimes nothing but topic words), so that BM25 finds the cited paper often but
not always. The files follow the HAtten layout exactly (papers.json, contexts.json,
train/val/test.json) with ACL-Anthology-style ids that carry the year (``P15-1042`` is 2015),
and the split is temporal by citing year as in ACL-200: train 2009-2013, val 2014, test 2015
(papers of 2016 are candidates only, published after every query paper).

    python scripts/make_demo.py          # rewrites citeval_irm/datasets/demo/
    python scripts/make_demo.py --check  # exit 1 if the shipped files differ from a fresh run

The published counts of the demo are written once, in ``citeval_irm/datasets/demo_corpus.py``
(``metadata.json`` is generated from them by ``scripts/make_metadata.py``); both modes exit 1
when the generated files hold other counts.

The output depends only on ``SEED`` (Python's ``random.Random`` is stable across versions).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SEED = 2026
REPO = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO / "citeval_irm" / "datasets" / "demo"

# Papers per year: those of 2009-2015 cite (train 2009-2013, val 2014, test 2015); the others
# are only candidates, those of 2016 published after every query paper, so that the temporal
# protocol has something to exclude even for the test split.
PAPERS_PER_YEAR = {
    **{year: 20 for year in range(2000, 2009)},
    **{year: 30 for year in range(2009, 2014)},
    2014: 35,
    2015: 40,
    2016: 15,
}
SPLIT_OF_YEAR = {**{year: "train" for year in range(2009, 2014)}, 2014: "val", 2015: "test"}
VENUES = ("P", "N", "D", "E", "C", "J", "Q", "W")
SAME_TOPIC = 0.75  # share of citations to a paper of the citing paper's own topic
SAME_YEAR = 0.04  # share of citations to a paper of the citing paper's own year


def _words(text: str) -> list[str]:
    """A word list written as one comma-separated string."""
    return [word.strip() for word in text.split(",")]


TOPICS: dict[str, dict[str, list[str]]] = {
    "translation": {
        "task": _words("machine translation, statistical machine translation, translation"),
        "terms": _words(
            "phrase table, word alignment, decoder, reordering, bilingual, parallel, BLEU, source "
            "sentence, target language, hierarchical phrases, tuning, minimum error rate training, "
            "lexical weights, syntax-based, preordering, domain adaptation, pivot language, "
            "translation rules, n-best lists, distortion, morphologically rich, transliteration, "
            "system combination"
        ),
        "data": _words("Europarl, the NIST Chinese-English task, WMT news data"),
    },
    "parsing": {
        "task": _words("dependency parsing, syntactic parsing, parsing"),
        "terms": _words(
            "treebank, dependency, constituency, shift-reduce, transition-based, graph-based, head "
            "word, arcs, beam search, CCG, grammar, spanning tree, lexicalized, PCFG, attachment, "
            "non-projective, labeled accuracy, chart, derivations, latent annotations, dynamic "
            "oracle, self-training, part-of-speech tags"
        ),
        "data": _words("the Penn Treebank, the CoNLL shared task data, the Prague Treebank"),
    },
    "sentiment": {
        "task": _words("sentiment analysis, opinion mining, sentiment classification"),
        "terms": _words(
            "polarity, opinion, reviews, subjectivity, aspects, sentiment lexicon, positive, "
            "negative, emotion, sarcasm, product reviews, stance, ratings, valence, tweets, "
            "opinion holders, negation, intensity, domain transfer, appraisal, irony, helpfulness"
        ),
        "data": _words("movie reviews, Amazon product reviews, a Twitter corpus"),
    },
    "extraction": {
        "task": _words("information extraction, relation extraction, named entity recognition"),
        "terms": _words(
            "named entities, entity, relations, sequence tagging, CRF, gazetteers, entity linking, "
            "coreference, mentions, knowledge base, distant supervision, slot filling, event "
            "extraction, triggers, arguments, bootstrapping, patterns, seed instances, Wikipedia, "
            "fine-grained types, open extraction, temporal expressions"
        ),
        "data": _words("ACE 2005, the CoNLL-2003 corpus, Freebase"),
    },
    "summarization": {
        "task": _words("summarization, multi-document summarization, text summarization"),
        "terms": _words(
            "summary, extractive, sentence selection, redundancy, ROUGE, sentence compression, "
            "abstractive, salience, coverage, centroid, topic signatures, integer linear "
            "programming, submodular, news articles, headline generation, sentence fusion, "
            "query-focused, sentence ordering, coherence, length constraints, update summaries"
        ),
        "data": _words("DUC 2004, TAC 2008, the CNN news collection"),
    },
    "dialogue": {
        "task": _words("spoken dialogue systems, dialogue management, speech recognition"),
        "terms": _words(
            "dialogue, speech, acoustic, utterances, dialogue acts, prosody, spoken, turn-taking, "
            "user simulation, reinforcement learning, POMDP, belief state, slots, transcripts, "
            "disfluency, recognition errors, conversational, system responses, dialogue policy, "
            "barge-in, confidence scores, tutoring"
        ),
        "data": _words("the Switchboard corpus, the Let's Go logs, the DSTC data"),
    },
    "semantics": {
        "task": _words("lexical semantics, word sense disambiguation, semantic similarity"),
        "terms": _words(
            "word sense, WordNet, distributional, similarity, vector space, embeddings, synonyms, "
            "hypernyms, semantic relatedness, compositional, paraphrases, thesaurus, "
            "co-occurrence, word vectors, analogies, senses, lexical substitution, "
            "selectional preferences, clustering, polysemy, semantic roles, frames"
        ),
        "data": _words("SemCor, the WordSim-353 set, FrameNet"),
    },
    "retrieval": {
        "task": _words("question answering, information retrieval, passage retrieval"),
        "terms": _words(
            "questions, retrieval, passages, answers, queries, ranking, relevance, search engine, "
            "query expansion, documents, answer extraction, factoid, candidate answers, reranking, "
            "inverted index, web search, clickthrough, snippets, community QA, answer validation, "
            "question classification"
        ),
        "data": _words("the TREC QA track, Yahoo! Answers, a web collection"),
    },
}
GENERIC_ADJECTIVES = _words(
    "simple, novel, unified, efficient, robust, joint, discriminative, probabilistic, "
    "unsupervised, semi-supervised, large-scale, fast, accurate"
)
GENERIC_METHODS = _words("model, approach, framework, method, algorithm, system, learning scheme")
GENERIC_WORDS = _words(
    "features, training data, annotation, evaluation, representation, structure, inference, "
    "baseline, errors, accuracy, performance, supervision, context, resources, error analysis, "
    "scalability, heuristics"
)
METRICS = _words("accuracy, F1, precision, recall, error rate")
SYLLABLES = _words(
    "ka, lo, mi, ren, tor, va, zu, quel, dax, bri, fen, gor, hal, jin, mor, nex, pol, rix, sam, "
    "tev, ul, wen, yor, zel"
)


@dataclass
class Paper:
    paper_id: str
    year: int
    topic: str
    name: str
    focus: list[str]  # the terms this paper is about
    title: str = ""
    abstract: str = ""
    cited_by: int = 0
    cites: list[str] = field(default_factory=list)


def paper_ids(rng: random.Random) -> list[tuple[str, int]]:
    """Distinct ACL-Anthology-style ids (``P15-1042``) with their years, oldest first."""
    out, used = [], set()
    for year, count in PAPERS_PER_YEAR.items():
        while count:
            paper_id = f"{rng.choice(VENUES)}{year % 100:02d}-{rng.randint(1001, 1999)}"
            if paper_id not in used:
                used.add(paper_id)
                out.append((paper_id, year))
                count -= 1
    return out


def system_name(rng: random.Random, used: set[str]) -> str:
    while True:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()
        if name not in used:
            used.add(name)
            return name


def write_paper(rng: random.Random, paper: Paper) -> None:
    topic = TOPICS[paper.topic]
    task = rng.choice(topic["task"])
    f = paper.focus
    adjective = rng.choice(GENERIC_ADJECTIVES)
    method = rng.choice(GENERIC_METHODS)
    titles = [
        f"{paper.name}: {adjective.capitalize()} {f[0]} for {task}",
        f"{f[0].capitalize()} and {f[1]} in {task}",
        f"Improving {task} with {f[0]} and {f[1]}",
        f"{adjective.capitalize()} {method} of {f[0]} for {task}",
    ]
    paper.title = rng.choice(titles)
    sentences = [
        f"We present {paper.name}, a {adjective} {method} for {task} based on {f[0]}.",
        f"It combines {f[1]} with {f[2]} and {rng.choice(GENERIC_WORDS)}.",
        f"Unlike previous work, we model {f[0]} jointly with {rng.choice(topic['terms'])}.",
        f"Experiments on {rng.choice(topic['data'])} show that using {f[2]} improves "
        f"{rng.choice(METRICS)} over a strong baseline.",
        f"We also analyse {f[3]} and {rng.choice(GENERIC_WORDS)}.",
    ]
    paper.abstract = " ".join(sentences[:2] + rng.sample(sentences[2:], 2))


def pick_cited(rng: random.Random, citing: Paper, papers: list[Paper]) -> Paper:
    """An earlier paper (rarely one of the same year), of the same topic with probability
    ``SAME_TOPIC``, the well-cited ones more likely (preferential attachment)."""
    same_year = rng.random() < SAME_YEAR
    same_topic = rng.random() < SAME_TOPIC
    pool = [
        p
        for p in papers
        if (p.year == citing.year if same_year else p.year < citing.year)
        and p.paper_id != citing.paper_id
        and (p.topic == citing.topic) == same_topic
        and p.paper_id not in citing.cites
    ]
    if not pool:
        pool = [p for p in papers if p.year < citing.year and p.paper_id not in citing.cites]
    return rng.choices(pool, weights=[1 + 2 * p.cited_by for p in pool])[0]


def context_text(rng: random.Random, citing: Paper, cited: Paper) -> str:
    """A masked citation context: TARGETCIT where ``cited`` is cited, OTHERCIT for others.

    How much of the cited paper it borrows decides how easy it is: its system name and two
    of its terms, one of its terms, or only words of its topic.
    """
    topic = TOPICS[cited.topic]
    own = TOPICS[citing.topic]
    level = rng.choices(("easy", "medium", "hard"), weights=(0.25, 0.45, 0.30))[0]
    if level == "hard":
        borrowed = rng.sample(topic["terms"], 2)
    else:
        borrowed = rng.sample(cited.focus, 2 if level == "easy" else 1)
        borrowed.append(rng.choice(topic["terms"]))
    a, b = borrowed[0], borrowed[1]
    noise = rng.choice(own["terms"])
    subject = f"{cited.name} TARGETCIT" if level == "easy" else "TARGETCIT"
    templates = [
        f"{subject} uses {a} and {b} to improve {rng.choice(topic['task'])} .",
        f"Previous work on {a} OTHERCIT and on {b} {subject} motivates our use of {noise} .",
        f"We follow {subject} in modelling {a} with {b} , and add {noise} .",
        f"{a.capitalize()} has been combined with {b} for {rng.choice(topic['task'])} "
        f"( {subject} ; OTHERCIT ) .",
        f"As in {subject} , our {rng.choice(GENERIC_METHODS)} relies on {a} rather than "
        f"{rng.choice(GENERIC_WORDS)} .",
    ]
    text = rng.choice(templates)
    if rng.random() < 0.5:  # the citing paper's own subject, as real contexts often have
        own_term = rng.choice(citing.focus)
        text = rng.choice(
            [
                f"In this paper we study {own_term} for {rng.choice(own['task'])} . {text}",
                f"{text} Our {rng.choice(GENERIC_METHODS)} extends this to {own_term} .",
            ]
        )
    return text


def build(seed: int = SEED) -> dict[str, object]:
    """Every file of the demo corpus, as JSON-ready objects, by file name."""
    rng = random.Random(seed)
    names: set[str] = set()
    papers: list[Paper] = []
    topics = list(TOPICS)
    for paper_id, year in paper_ids(rng):
        topic = rng.choice(topics)
        focus = rng.sample(TOPICS[topic]["terms"], 4)
        paper = Paper(paper_id, year, topic, system_name(rng, names), focus)
        write_paper(rng, paper)
        papers.append(paper)

    contexts: dict[str, dict] = {}
    splits: dict[str, list[dict]] = {"train": [], "val": [], "test": []}
    for citing in papers:
        if citing.year not in SPLIT_OF_YEAR:
            continue
        for _ in range(rng.randint(2, 5)):
            cited = pick_cited(rng, citing, papers)
            citing.cites.append(cited.paper_id)
            cited.cited_by += 1
            for n in range(rng.choice((1, 1, 1, 2))):
                context_id = f"{citing.paper_id}_{cited.paper_id}_{n}"
                contexts[context_id] = {
                    "masked_text": context_text(rng, citing, cited),
                    "context_id": context_id,
                    "citing_id": citing.paper_id,
                    "refid": cited.paper_id,
                }
                splits[SPLIT_OF_YEAR[citing.year]].append(
                    {"context_id": context_id, "positive_ids": [cited.paper_id]}
                )
    files: dict[str, object] = {
        "papers.json": {p.paper_id: {"title": p.title, "abstract": p.abstract} for p in papers},
        "contexts.json": contexts,
    }
    files.update({f"{split}.json": entries for split, entries in splits.items()})
    return files


def serialise(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def count_problems(files: dict[str, object]) -> list[str]:
    """Where the generated files differ from the demo's published counts (demo_corpus.py)."""
    from citeval_irm.datasets.demo_corpus import DEMO

    counts = {"docs": len(files["papers.json"])}
    counts.update({split: len(files[f"{split}.json"]) for split in ("train", "val", "test")})
    return [
        f"{what}: generated {count}, demo_corpus.py says {getattr(DEMO.counts, what)}"
        for what, count in counts.items()
        if count != getattr(DEMO.counts, what)
    ]


def outputs(seed: int = SEED) -> dict[Path, str]:
    """The text of every file this script writes, by path."""
    files = build(seed)
    return {DEMO_DIR / name: serialise(value) for name, value in files.items()}


def summary(files: dict[str, object]) -> str:
    splits = {s: len(files[f"{s}.json"]) for s in ("train", "val", "test")}
    cited = Counter(c["refid"] for c in files["contexts.json"].values())
    return (
        f"{len(files['papers.json'])} papers, {len(files['contexts.json'])} contexts "
        f"(train {splits['train']}, val {splits['val']}, test {splits['test']}); "
        f"{len(cited)} distinct cited papers, the most cited {cited.most_common(1)[0][1]} times"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    wanted = outputs()
    problems = count_problems(build())
    for problem in problems:
        print(f"update the published counts in demo_corpus.py: {problem}", file=sys.stderr)
    if args.check:
        stale = [p for p, text in wanted.items() if not p.is_file() or p.read_text("utf-8") != text]
        for path in stale:
            print(f"differs from a fresh generation: {path}", file=sys.stderr)
        return 1 if stale or problems else 0
    DEMO_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in wanted.items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {DEMO_DIR}: {summary(build())}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
