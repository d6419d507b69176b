"""How right ``citeval resolve`` is on real titles: per category of error, and the
fabrication rate it reports against the truth (issue 40).

The ground: the real ML paper records of ``--titles`` (default ``../shared/data/titles``
beside the repository: 11,519 papers of ACML, AISTATS, ALT, COLT, JAIR, MLJ and UAI with
title, authors, year, DOI and often an arXiv PDF; Apache-2.0). They are split at random
(``--seed``) into the pool (two thirds: the dataset's papers, each with its arXiv id as doc
id where it has one, else its DOI, else its BibTeX key) and the outside (the rest: real
papers the pool lacks, the ``--catalogue``, with their DOIs and arXiv ids). ``--size``
references (default 40,000) are made from them the way language models err, each with its
known truth (:data:`CATEGORIES`, drawn with the weights there), and resolved as ``citeval
resolve`` resolves them (:class:`~citeval_irm.resolving.resolve.Resolver`, default
threshold).

Printed, as a Markdown table per category: how many; the share decided right (matched to
its paper, or for an outside paper labelled outside the pool, for an invented one found
nowhere, for an id and a title that disagree the conflict); wrong (matched to another
paper; an invented one matched, or called outside the pool); near-miss; outside; nowhere;
and, for the titles that went to the fuzzy search, the candidate generator's recall (of the
titles a brute-force ``fuzz.ratio`` over the whole pool finds at or above the threshold,
the share among the blocked candidates). Then the buckets (matched, near-miss, outside the
pool, not found) with what each truly holds, and the fabrication rate reported (not found /
references) against the true one (invented / references).

    python benchmarks/bench_resolve_quality.py [--size 40000] [--seed 0] [--titles DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import string
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TITLES = REPO.parent / "shared" / "data" / "titles"


@dataclass(frozen=True)
class Paper:
    """One real record: ``key`` its doc id (arXiv id, DOI or BibTeX key)."""

    key: str
    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str
    doi: str
    arxiv: str  # with its version where the PDF link has one


def load_papers(folder: Path) -> list[Paper]:
    """The records of every ``*.jsonl.gz`` in ``folder``, in file order."""
    papers = []
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                found = re.search(r"arxiv\.org/(?:abs|pdf)/([\w./-]+?)(?:\.pdf)?$",
                                  record.get("pdf_url") or "")  # fmt: skip
                arxiv = found.group(1) if found else ""
                doi = (record.get("doi") or "").strip()
                key = re.sub(r"v\d+$", "", arxiv) or doi or record["bibtex_key"]
                authors = tuple(f"{a.get('given', '')} {a.get('family', '')}".strip()
                                for a in record.get("authors") or [])  # fmt: skip
                year = int(record["year"]) if str(record.get("year", "")).isdigit() else None
                papers.append(Paper(key, record["title"], authors, year,
                                    record.get("venue", ""), doi, arxiv))  # fmt: skip
    seen, unique = set(), []
    for paper in papers:  # a doc id, and a title, once: a title twice makes no truth
        title = " ".join(re.findall(r"\w+", paper.title.lower()))
        if paper.key not in seen and title not in seen:
            seen.update((paper.key, title))
            unique.append(paper)
    return unique


# --------------------------------------------------------------------------- errors

SPELLINGS = [
    ("ization", "isation"), ("izations", "isations"), ("ize", "ise"), ("izes", "ises"),
    ("ized", "ised"), ("izing", "ising"), ("yze", "yse"), ("yzing", "ysing"),
    ("modeling", "modelling"), ("labeled", "labelled"), ("labeling", "labelling"),
    ("behavior", "behaviour"), ("behaviors", "behaviours"), ("neighbor", "neighbour"),
    ("neighbors", "neighbours"), ("neighborhood", "neighbourhood"), ("color", "colour"),
    ("center", "centre"), ("generalization", "generalisation"), ("traveling", "travelling"),
    ("canceling", "cancelling"), ("favor", "favour"), ("analog", "analogue"),
]  # fmt: skip
"""American and British spellings (a word's ending, or a whole word)."""

ABBREVIATIONS = {
    "reinforcement learning": "RL", "markov decision processes": "MDPs",
    "markov decision process": "MDP", "partially observable markov decision processes":
    "POMDPs", "gaussian processes": "GPs", "gaussian process": "GP",
    "support vector machines": "SVMs", "support vector machine": "SVM",
    "neural networks": "NNs", "convolutional neural networks": "CNNs",
    "recurrent neural networks": "RNNs", "generative adversarial networks": "GANs",
    "natural language processing": "NLP", "latent dirichlet allocation": "LDA",
    "principal component analysis": "PCA", "markov chain monte carlo": "MCMC",
    "stochastic gradient descent": "SGD", "variational autoencoders": "VAEs",
    "monte carlo tree search": "MCTS", "independent component analysis": "ICA",
    "hidden markov models": "HMMs", "hidden markov model": "HMM",
    "graph neural networks": "GNNs", "large language models": "LLMs",
    "conditional random fields": "CRFs", "expectation maximization": "EM",
    "inductive logic programming": "ILP", "constraint satisfaction problems": "CSPs",
    "directed acyclic graphs": "DAGs", "maximum a posteriori": "MAP",
    "minimum description length": "MDL", "probably approximately correct": "PAC",
    "reproducing kernel hilbert space": "RKHS", "markov random fields": "MRFs",
    "temporal difference": "TD", "upper confidence bound": "UCB",
    "alternating direction method of multipliers": "ADMM", "kullback-leibler": "KL",
    "singular value decomposition": "SVD", "neural architecture search": "NAS",
    "deep learning": "DL", "machine learning": "ML", "artificial intelligence": "AI",
}  # fmt: skip
"""Phrases of the field and the abbreviation papers write for them."""

SUBTITLES = ("A Survey", "Theory and Practice", "A Unified Framework", "An Empirical Study",
             "Algorithms and Analysis", "A Bayesian Approach", "Revisited",
             "Towards Scalable Inference", "New Bounds and Algorithms")  # fmt: skip
"""Subtitles a model adds that the paper lacks (added after ``: ``)."""


def with_spelling(title: str, rng: random.Random) -> str | None:
    """``title`` with one word in the other spelling (American or British), or ``None``."""
    words = title.split(" ")
    places = []
    for at, word in enumerate(words):
        lower = re.sub(r"\W+$", "", word.lower())
        for american, british in SPELLINGS:
            for one, other in ((american, british), (british, american)):
                if lower.endswith(one) and len(lower) > len(one) + 2 or lower == one:
                    places.append((at, one, other))
    if not places:
        return None
    at, one, other = rng.choice(places)
    word = words[at]
    stem = re.search(re.escape(one), word, re.IGNORECASE)
    if stem is None:
        return None
    replacement = other if word[stem.start()].islower() else other.capitalize()
    words[at] = word[: stem.start()] + replacement + word[stem.end() :]
    return " ".join(words)


def with_typos(title: str, rng: random.Random) -> str:
    chars = list(title)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars))
        edit = rng.choice(["swap", "drop", "replace", "double"])
        if edit == "swap" and at + 1 < len(chars):
            chars[at], chars[at + 1] = chars[at + 1], chars[at]
        elif edit == "drop" and len(chars) > 10:
            del chars[at]
        elif edit == "double":
            chars.insert(at, chars[at])
        else:
            chars[at] = rng.choice(string.ascii_lowercase)
    return "".join(chars)


def case_and_punctuation(title: str, rng: random.Random) -> str:
    """``title`` as models and BibTeX styles rewrite it, its words unchanged."""
    how = rng.choice(["lower", "upper", "title", "no_punct", "colon_dash", "period", "quotes",
                      "hyphen_space", "latex_braces", "spaces"])  # fmt: skip
    if how == "lower":
        return title.lower()
    if how == "upper":
        return title.upper()
    if how == "title":
        return " ".join(w[:1].upper() + w[1:] for w in title.split(" "))
    if how == "no_punct":
        return re.sub(r"[^\w\s]", " ", title)
    if how == "colon_dash":
        return title.replace(": ", " - ").replace(":", " -")
    if how == "period":
        return title.rstrip(".") + "."
    if how == "quotes":
        return f"\u201c{title}\u201d"
    if how == "hyphen_space":
        return title.replace("-", " ")
    if how == "latex_braces":
        return re.sub(r"\b([A-Z][A-Za-z]*[A-Z][A-Za-z]*)\b", r"{\1}", title)
    return "  ".join(title.split(" ")) + " "


def parts(title: str) -> tuple[str, str] | None:
    """A title's main part and subtitle, split at its first colon, or ``None``."""
    if ":" not in title:
        return None
    main, subtitle = (p.strip() for p in title.split(":", 1))
    return (main, subtitle) if main and subtitle else None


def abbreviated(title: str, rng: random.Random) -> str | None:
    """``title`` with a phrase of :data:`ABBREVIATIONS` contracted, or an abbreviation
    written out, or ``None`` when it holds neither."""
    lower = title.lower()
    options = []
    for phrase, short in ABBREVIATIONS.items():
        found = re.search(rf"\b{re.escape(phrase)}\b", lower)
        if found:
            options.append((found.start(), found.end(), short))
        found = re.search(rf"\b{re.escape(short)}\b", title)
        if found:
            long = " ".join(w if w in ("of", "a") else w.capitalize() for w in phrase.split())
            options.append((found.start(), found.end(), long))
    if not options:
        return None
    start, end, replacement = rng.choice(options)
    return title[:start] + replacement + title[end:]


def citation(paper: Paper, title: str, rng: random.Random) -> str:
    """``title`` as a citation string of a common style."""
    authors = list(paper.authors) or ["Anonymous"]
    surname = authors[0].split()[-1]
    names = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    year = paper.year or 2020
    venue = {
        "uai": "UAI",
        "aistats": "AISTATS",
        "colt": "COLT",
        "alt": "ALT",
        "acml": "ACML",
        "jair": "JAIR",
        "mlj": "Machine Learning",
    }.get(paper.venue, paper.venue.upper())
    style = rng.choice(["acl", "apa", "ieee", "short", "caps", "url", "proceedings"])
    if style == "acl":
        return f"{names}. {year}. {title}. In Proceedings of {venue}."
    if style == "apa":
        return f"{surname}, {authors[0][:1]}. et al. ({year}). {title}. {venue}."
    if style == "ieee":
        initials = ", ".join(f"{a[:1]}. {a.split()[-1]}" for a in authors[:2])
        return f'{initials}, "{title}," in Proc. {venue}, {year}, pp. {rng.randint(1, 900)}.'
    if style == "short":
        return f"{surname} et al. {title} ({venue} {year})"
    if style == "caps":
        return f"{title.upper()}. {venue} {year}"
    if style == "url":
        link = (f"https://arxiv.org/abs/{paper.arxiv}" if paper.arxiv
                else f"https://doi.org/{paper.doi}" if paper.doi
                else "https://example.org/paper")  # fmt: skip
        return f"{title}. {link}"
    return f"{surname}, {authors[0][:1]}. {title}. In: Proc. of the {year} Conference ({venue})"


# --------------------------------------------------------------------------- references


@dataclass(frozen=True)
class Case:
    """One reference and its truth: ``truth`` is the pool paper's key, ``outside:<key>``
    for a real paper outside the pool, ``invented``, or ``conflict:<id key>:<title key>``."""

    category: str
    reference: object
    truth: str


CATEGORIES = {
    # in the pool: each must be matched to its paper
    "exact": 5, "case and punctuation": 6, "citation string": 6, "spelling variant": 3,
    "typos": 4, "subtitle dropped": 3, "subtitle added": 3, "first part dropped": 3,
    "abbreviation": 3, "word dropped": 3, "word replaced": 3, "cut with ...": 2,
    "cut without ...": 2, "wrong year": 2, "wrong authors": 2, "arXiv id": 2,
    "arXiv id with version": 2, "DOI": 2, "id of another paper": 2,
    # outside the pool: each must be found outside
    "outside: exact": 6, "outside: case, typos, citation": 6, "outside: subtitle changed": 3,
    # invented: each must be found nowhere
    "invented: halves of two titles": 8, "invented: main part + another subtitle": 5,
    "invented: chain of real title words": 8,
}  # fmt: skip
"""Kinds of reference and their weights (shares of ``--size``)."""


class Maker:
    """Draws references of each category from the pool and the outside."""

    def __init__(self, pool: list[Paper], outside: list[Paper], seed: int, threshold: float):
        from citeval_irm.resolving.citations import title_parts
        from citeval_irm.resolving.normalise import title_key

        self.pool, self.outside = pool, outside
        self.rng = random.Random(seed)
        self.threshold = threshold
        every = pool + outside
        self.keys = [title_key(p.title).text for p in every]
        self.known = set(self.keys) | {title_key(part).text for p in every
                                       for part in (title_parts(p.title) or ())}  # fmt: skip
        self.with_parts = [p for p in pool if parts(p.title)]
        self.without_parts = [p for p in pool if not parts(p.title)]
        self.outside_parts = [p for p in outside if parts(p.title)]
        self.subtitles = [parts(p.title)[1] for p in every if parts(p.title)]
        self.arxiv = [p for p in pool if p.arxiv]
        self.doi = [p for p in pool if p.doi]
        self.chain = defaultdict(list)
        for paper in every:
            words = ["<s>", *paper.title.split(), "</s>"]
            for one, two, three in zip(words, words[1:], words[2:]):
                self.chain[one, two].append(three)
        self.starts = [tuple(["<s>", *p.title.split()][:2]) for p in every]

    def case(self, category: str) -> Case:
        rng, pick = self.rng, self.rng.choice
        for _ in range(200):  # a category that does not apply to a paper draws another
            found = self._try(category, rng, pick)
            if found is not None:
                return found
        raise RuntimeError(f"cannot make a {category!r} reference")

    def _try(self, category: str, rng: random.Random, pick) -> Case | None:
        paper = pick(self.pool)
        title = paper.title
        if category == "exact":
            return Case(category, title, paper.key)
        if category == "case and punctuation":
            return Case(category, case_and_punctuation(title, rng), paper.key)
        if category == "citation string":
            return Case(category, citation(paper, title, rng), paper.key)
        if category == "spelling variant":
            changed = with_spelling(title, rng)
            return Case(category, changed, paper.key) if changed else None
        if category == "typos":
            return Case(category, with_typos(title, rng), paper.key)
        if category == "subtitle dropped":
            paper = pick(self.with_parts)
            return Case(category, parts(paper.title)[0], paper.key)
        if category == "subtitle added":
            paper = pick(self.without_parts)
            return Case(category, f"{paper.title}: {pick(SUBTITLES)}", paper.key)
        if category == "first part dropped":
            paper = pick(self.with_parts)
            return Case(category, parts(paper.title)[1], paper.key)
        if category == "abbreviation":
            changed = abbreviated(title, rng)
            return Case(category, changed, paper.key) if changed else None
        if category == "word dropped":
            words = title.split()
            if len(words) < 4:
                return None
            del words[rng.randrange(len(words))]
            return Case(category, " ".join(words), paper.key)
        if category == "word replaced":
            words = title.split()
            if len(words) < 4:
                return None
            at = rng.randrange(len(words))
            other = pick(pick(self.pool).title.split())
            if other.lower() == words[at].lower():
                return None
            words[at] = other
            return Case(category, " ".join(words), paper.key)
        if category == "cut with ...":
            words = title.split()
            if len(words) < 5:
                return None
            kept = max(3, int(len(words) * rng.uniform(0.6, 0.85)))
            return Case(category, " ".join(words[:kept]) + "...", paper.key)
        if category == "cut without ...":
            words = title.split()
            if len(words) < 6:
                return None
            kept = max(4, int(len(words) * rng.uniform(0.6, 0.85)))
            return Case(category, " ".join(words[:kept]), paper.key)
        if category == "wrong year":
            year = (paper.year or 2000) + rng.choice([-3, -2, -1, 1, 2, 3])
            return Case(category, {"title": title, "year": year}, paper.key)
        if category == "wrong authors":
            other = pick(self.pool)
            return Case(category, {"title": title, "authors": list(other.authors)}, paper.key)
        if category in ("arXiv id", "arXiv id with version"):
            paper = pick(self.arxiv)
            base = re.sub(r"v\d+$", "", paper.arxiv)
            given = base + (f"v{rng.randint(1, 4)}" if "version" in category else "")
            shape = rng.choice(["field", "string", "url"])
            reference = ({"arxiv": given} if shape == "field" else f"arXiv:{given}"
                         if shape == "string" else f"https://arxiv.org/abs/{given}")  # fmt: skip
            return Case(category, reference, paper.key)
        if category == "DOI":
            paper = pick(self.doi)
            shape = rng.choice(["field", "string"])
            reference = ({"doi": paper.doi} if shape == "field"
                         else f"{paper.title}. doi:{paper.doi}")  # fmt: skip
            return Case(category, reference, paper.key)
        if category == "id of another paper":
            other = pick(self.arxiv)
            if other.key == paper.key:
                return None
            reference = {"title": title, "arxiv": other.arxiv}
            return Case(category, reference, f"conflict:{other.key}:{paper.key}")
        if category.startswith("outside"):
            return self._outside(category, rng, pick)
        return self._invented(category, rng, pick)

    def _outside(self, category: str, rng: random.Random, pick) -> Case | None:
        paper = pick(self.outside)
        truth = f"outside:{paper.key}"
        if category == "outside: exact":
            return Case(category, paper.title, truth)
        if category == "outside: case, typos, citation":
            how = rng.choice([case_and_punctuation, with_typos])
            text = how(paper.title, rng)
            return Case(category, citation(paper, text, rng) if rng.random() < 0.4 else text,
                        truth)  # fmt: skip
        paper = pick(self.outside_parts)
        main, subtitle = parts(paper.title)
        text = main if rng.random() < 0.5 else subtitle
        return Case(category, text, f"outside:{paper.key}")

    def _invented(self, category: str, rng: random.Random, pick) -> Case | None:
        if category == "invented: halves of two titles":
            one, other = (p.title.split() for p in rng.sample(self.pool + self.outside, 2))
            if len(one) < 4 or len(other) < 4:
                return None
            text = " ".join(one[: len(one) // 2] + other[len(other) // 2 :])
        elif category == "invented: main part + another subtitle":
            main, subtitle = parts(pick(self.with_parts + self.outside_parts).title)[0], pick(
                self.subtitles)  # fmt: skip
            if min(len(main.split()), len(subtitle.split())) < 3 or not (
                    0.35 <= len(main) / (len(main) + len(subtitle)) <= 0.65):  # fmt: skip
                return None  # one real part would be most of it: a real title misnamed
            text = f"{main}: {subtitle}"
        else:
            state, words = pick(self.starts), []
            if len(state) < 2:
                return None
            words.append(state[1])
            while len(words) < 25:
                options = self.chain.get(state)
                if not options:
                    break
                following = pick(options)
                if following == "</s>":
                    break
                words.append(following)
                state = (state[1], following)
            if len(words) < 4:
                return None
            text = " ".join(words)
        from rapidfuzz import fuzz, process

        from citeval_irm.resolving.normalise import title_key

        key = title_key(text).text
        if key in self.known or process.extractOne(
                key, self.keys, scorer=fuzz.ratio, score_cutoff=self.threshold):  # fmt: skip
            return None  # a real title or a part of one, or one a typo away: not invented
        return Case(category, text, "invented")


def make_cases(pool: list[Paper], outside: list[Paper], size: int, seed: int,
               threshold: float) -> list[Case]:  # fmt: skip
    maker = Maker(pool, outside, seed, threshold)
    names = list(CATEGORIES)
    weights = [CATEGORIES[n] for n in names]
    drawn = maker.rng.choices(names, weights, k=size)
    return [maker.case(name) for name in drawn]


# --------------------------------------------------------------------------- measuring


def split(papers: list[Paper], seed: int) -> tuple[list[Paper], list[Paper]]:
    shuffled = list(papers)
    random.Random(seed).shuffle(shuffled)
    cut = len(shuffled) * 2 // 3
    return shuffled[:cut], shuffled[cut:]


def indexes(pool: list[Paper], outside: list[Paper]):
    from citeval_irm.resolving.index import TitleIndex

    more = [[v for v in (p.doi, p.arxiv) if v and v != p.key] for p in pool]
    index = TitleIndex([p.key for p in pool], [p.title for p in pool], [p.year for p in pool],
                       ["; ".join(p.authors) for p in pool], more)  # fmt: skip
    known = [[v for v in (p.doi, p.arxiv) if v] for p in outside]
    catalogue = TitleIndex([p.key for p in outside], [p.title for p in outside],
                           extra_ids=known)  # fmt: skip
    return index, catalogue


BUCKETS = ("matched", "ambiguous", "conflict", "near-miss", "outside", "nowhere")
"""Where a decision puts a reference: matched to one paper (in the run), ambiguous,
conflict, near miss, outside the pool, found nowhere."""


def bucket_of(how: str, status: str) -> str:
    if how in ("id", "exact", "fuzzy"):
        return "matched"
    if how in ("ambiguous", "conflict"):
        return how
    return {"near_miss": "near-miss", "outside_pool": "outside"}.get(status, "nowhere")


def kind_of(case: Case) -> str:
    """What a reference truly is: ``pool``, ``outside``, ``invented`` or ``conflict``."""
    return case.truth.split(":")[0] if ":" in case.truth and not case.truth.startswith(
        "10.") and case.truth.split(":")[0] in ("outside", "conflict") else (
        "invented" if case.truth == "invented" else "pool")  # fmt: skip


def right(case: Case, bucket: str, doc: str) -> bool:
    """Whether the decision is the one the truth calls for."""
    kind = kind_of(case)
    return {"pool": bucket == "matched" and doc == case.truth, "outside": bucket == "outside",
            "invented": bucket == "nowhere", "conflict": bucket == "conflict"}[kind]  # fmt: skip


def candidate_recall(indexes, keys: list[str], threshold: float) -> tuple[int, int]:
    """Of the (key, title) pairs a brute-force ``fuzz.ratio`` over every title of each
    index finds at or above ``threshold``, how many the blocked candidates hold."""
    import numpy as np
    from rapidfuzz import fuzz, process

    found = held = 0
    for index in indexes:
        choices = list(index.keys)
        for start in range(0, len(keys), 2000):
            chunk = keys[start : start + 2000]
            scores = process.cdist(chunk, choices, scorer=fuzz.ratio, dtype=np.float32,
                                   score_cutoff=threshold, workers=-1)  # fmt: skip
            for row, key in enumerate(chunk):
                passing = set(np.flatnonzero(scores[row] >= threshold).tolist())
                if passing:
                    found += len(passing)
                    held += len(passing & set(index.candidates(key).tolist()))
    return held, found


def measure(cases: list[Case], index, catalogue, threshold: float):
    """``(rows, keys, seconds)``: per category (and ``all``) the count of each bucket, of
    the right decisions and of matches to another paper; the title keys that went to the
    fuzzy search, per category; the time the resolution took."""
    from citeval_irm.resolving.generated import read_generated
    from citeval_irm.resolving.resolve import Resolver, Titles, resolve_lists

    resolver = Resolver(index, threshold, catalogue)
    lists = read_generated({f"q{n}": [c.reference] for n, c in enumerate(cases)})
    started = time.perf_counter()
    decisions = resolve_lists(lists.lists, resolver)
    took = time.perf_counter() - started
    rows: dict[str, Counter] = defaultdict(Counter)
    keys: dict[str, list[str]] = defaultdict(list)
    for n, case in enumerate(cases):
        how, doc = decisions["how"][n], decisions["doc_id"][n]
        bucket = bucket_of(how, decisions["catalogue"][n])
        for row in (rows[case.category], rows["all"], rows[kind_of(case)]):
            row["n"] += 1
            row[bucket] += 1
            row["right"] += right(case, bucket, doc)
            row["matched wrong"] += bucket == "matched" and doc != case.truth
        if how not in ("id", "exact"):
            reference = lists.lists[f"q{n}"][0]
            keys[case.category] += [k.text for k in Titles(reference).keys if len(k.text) >= 4]
    return rows, keys, took


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def table(rows, recall) -> str:
    """The per-category table (Markdown)."""
    lines = ["| category | n | right | matched to another | ambiguous | near miss | outside "
             "| nowhere | candidates' recall |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for category in [*CATEGORIES, "all"]:
        row = rows[category]
        if not row["n"]:
            continue
        held, found = recall.get(category, (0, 0))
        shown = ("right", "matched wrong", "ambiguous", "near-miss", "outside", "nowhere")
        cells = [percent(row[c], row["n"]) for c in shown]
        lines.append(f"| {category} | {row['n']:,} | " + " | ".join(cells)
                     + f" | {percent(held, found) if found else '-'} |")  # fmt: skip
    return "\n".join(lines)


def figures(rows, cases: list[Case]) -> dict[str, float]:
    """The headline figures: precision of the matches, recall of the exact and the case and
    punctuation variants, the fabrication rate reported and true, the near-miss share."""
    matched = rows["all"]["matched"]
    total = len(cases)
    plain = [rows[c] for c in ("exact", "case and punctuation")]
    return {
        "precision": 1 - rows["all"]["matched wrong"] / matched if matched else float("nan"),
        "recall_exact": sum(r["right"] for r in plain) / sum(r["n"] for r in plain),
        "fabrication_reported": rows["all"]["nowhere"] / total,
        "fabrication_true": sum(1 for c in cases if c.truth == "invented") / total,
        "near_miss": rows["all"]["near-miss"] / total,
    }


def buckets(rows, cases: list[Case]) -> str:
    """What each bucket truly holds, and the headline figures."""
    kinds = ("pool", "conflict", "outside", "invented")
    lines = ["| bucket | references | in the pool | id and title disagree | outside the pool "
             "| invented |", "| --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    total = len(cases)
    for bucket in BUCKETS:
        size = rows["all"][bucket]
        shares = " | ".join(percent(rows[k][bucket], size) for k in kinds)
        lines.append(f"| {bucket} | {size:,} ({percent(size, total)}) | {shares} |")
    found = figures(rows, cases)
    lines += ["", f"precision of the matches {100 * found['precision']:.2f} %; recall of the "
              f"exact titles and their case and punctuation variants "
              f"{100 * found['recall_exact']:.2f} %",
              f"fabrication rate: reported {100 * found['fabrication_reported']:.1f} % (found "
              f"nowhere), true {100 * found['fabrication_true']:.1f} % (invented); near misses "
              f"{100 * found['near_miss']:.1f} % (counted apart)"]  # fmt: skip
    return "\n".join(lines)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--titles", type=Path, default=TITLES)
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--no-candidates", action="store_true",
                        help="skip the brute-force check of the candidate generator")  # fmt: skip
    args = parser.parse_args(argv)
    from citeval_irm.resolving import THRESHOLD

    threshold = THRESHOLD if args.threshold is None else args.threshold
    if not args.titles.is_dir():
        sys.exit(f"no folder {args.titles}: give --titles DIR (the *.jsonl.gz records)")
    papers = load_papers(args.titles)
    pool, outside = split(papers, args.seed)
    index, catalogue = indexes(pool, outside)
    cases = make_cases(pool, outside, args.size, args.seed, threshold)
    rows, keys, took = measure(cases, index, catalogue, threshold)
    recall = {} if args.no_candidates else {
        category: candidate_recall((index, catalogue), found, threshold)
        for category, found in keys.items()}  # fmt: skip
    if recall:
        recall["all"] = tuple(sum(v[i] for v in recall.values()) for i in (0, 1))
    held, found = recall.get("all", (0, 0))
    recall_line = (
        f"\ncandidates: {held:,} of the {found:,} (reference, title) pairs at or "
        f"above the threshold ({100 * held / found:.2f} %)\n"
        if found
        else ""
    )
    text = (f"{len(papers):,} real papers (a title once): {len(pool):,} in the pool, "
            f"{len(outside):,} outside (the catalogue); {len(cases):,} references, seed "
            f"{args.seed}, threshold {threshold:g}; resolved in {took:.1f} s\n\n"
            + table(rows, recall) + "\n\n" + buckets(rows, cases) + "\n"
            + recall_line)  # fmt: skip
    print(text, end="")
    return text


if __name__ == "__main__":
    main()
