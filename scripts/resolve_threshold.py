"""The fuzzy threshold of ``citeval resolve``: precision and recall on a labelled set of
GENERATED references against the demo corpus (itself generated: ``citeval/demo``).

The set (``--size``, default 1,000, fixed ``--seed``): 70 % name a demo paper, its title
corrupted the ways generated lists corrupt titles (each with the same probability): kept
as it is but for case and punctuation, a year or venue appended, LaTeX or Unicode
variants, one to three character edits (a misspelling), a word dropped, the subtitle
dropped (``Name: subtitle`` as ``subtitle``), cut short with ``...``, cut short without
it; 30 % are invented titles, made of the words of two demo titles (the first half of one,
the second half of another: plausible, close to real ones). Each reference is resolved as
``citeval resolve`` does (identifiers, exact, fuzzy), for each threshold:

- precision: of the references matched to one paper (exact or fuzzy), the share matched to
  their own paper (an invented one matched is wrong);
- recall: of the references that name a paper, the share matched to it;
- invented matched: the share of invented titles matched to a paper (the false existence).

    python scripts/resolve_threshold.py [--size 1000] [--seed 0] [--thresholds 80,85,...]

prints a Markdown table (the README's). Needs the demo's store (built on first use in
``$IR_DATASETS_HOME``).
"""

from __future__ import annotations

import argparse
import random
import string

CORRUPTIONS = ("as_is", "venue", "latex", "misspelt", "word_dropped", "subtitle_dropped",
               "cut_with_ellipsis", "cut")  # fmt: skip
_LATEX = {"a": '\\"a', "o": '\\"o', "u": '\\"u', "e": "\\'e"}
_UNICODE = {"a": "\u00e4", "o": "\u00f6", "u": "\u00fc", "e": "\u00e9"}


def corrupt(title: str, how: str, rng: random.Random) -> str:
    """``title`` corrupted ``how`` (one of :data:`CORRUPTIONS`)."""
    words = title.split()
    if how == "as_is":
        return rng.choice([title, title.lower(), title.upper(), title.rstrip(".") + "."])
    if how == "venue":
        return f"{title}{rng.choice(['. ', ', ', ' (', ' In Proceedings of '])}" + rng.choice(
            ["ACL 2015", "EMNLP", "2014", "NAACL-HLT 2016", "COLING"]
        ) + ("" if rng.random() < 0.5 else ")")  # fmt: skip
    if how == "latex":
        table = rng.choice([_LATEX, _UNICODE])
        at = rng.randrange(len(title))
        out = title[:at] + "".join(table.get(c, c) for c in title[at : at + 12]) + title[at + 12 :]
        return "{\\em " + out + "}" if rng.random() < 0.3 else out
    if how == "misspelt":
        chars = list(title)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(chars))
            edit = rng.choice(["swap", "drop", "replace"])
            if edit == "swap" and at + 1 < len(chars):
                chars[at], chars[at + 1] = chars[at + 1], chars[at]
            elif edit == "drop":
                del chars[at]
            else:
                chars[at] = rng.choice(string.ascii_lowercase)
        return "".join(chars)
    if how == "word_dropped" and len(words) > 4:
        del words[rng.randrange(1, len(words))]
        return " ".join(words)
    if how == "subtitle_dropped" and ":" in title:
        return title.split(":", 1)[1].strip()
    if how in ("cut_with_ellipsis", "cut") and len(words) > 4:
        kept = " ".join(words[: max(3, int(len(words) * rng.uniform(0.6, 0.85)))])
        return kept + ("..." if how == "cut_with_ellipsis" else "")
    return title  # a corruption that does not apply: as it is


def invented(titles: list[str], rng: random.Random, known: set[str]) -> str:
    """A title made of the first half of one demo title and the second half of another."""
    while True:
        one, other = rng.sample(titles, 2)
        a, b = one.split(), other.split()
        title = " ".join(a[: len(a) // 2] + b[len(b) // 2 :])
        if title.lower() not in known:
            return title


def labelled_set(ids: list[str], titles: list[str], size: int, seed: int):
    """``size`` (reference, true doc id or ``None``, corruption) triples."""
    rng = random.Random(seed)
    known = {t.lower() for t in titles}
    out = []
    for _ in range(size):
        if rng.random() < 0.3:
            out.append((invented(titles, rng, known), None, "invented"))
            continue
        paper = rng.randrange(len(ids))
        how = rng.choice(CORRUPTIONS)
        out.append((corrupt(titles[paper], how, rng), ids[paper], how))
    return out


def measure(index, references, thresholds):
    """One row per threshold: precision, recall, invented matched, and the counts."""
    from citeval_irm.resolving.generated import Reference
    from citeval_irm.resolving.resolve import Resolver

    rows = []
    for threshold in thresholds:
        resolver = Resolver(index, threshold)
        right = wrong = named = found = invented_matched = invented_total = 0
        for text, truth, _ in references:
            how, papers, _ = resolver.decide(Reference(text))
            matched = index.ids[papers[0]] if how in ("id", "exact", "fuzzy") else None
            if truth is None:
                invented_total += 1
                invented_matched += matched is not None
                wrong += matched is not None
                continue
            named += 1
            if matched is not None:
                right += matched == truth
                wrong += matched != truth
                found += matched == truth
        precision = right / (right + wrong) if right + wrong else float("nan")
        rows.append({"threshold": threshold, "precision": precision, "recall": found / named,
                     "invented_matched": invented_matched / invented_total, "matched":
                     right + wrong, "right": right, "named": named,
                     "invented": invented_total})  # fmt: skip
    return rows


def markdown(rows, size: int, seed: int) -> str:
    lines = [
        f"| threshold | precision | recall | invented matched | (of {size:,} GENERATED "
        f"references, seed {seed}) |",
        "| ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['threshold']:g} | {100 * row['precision']:.1f} % | "
            f"{100 * row['recall']:.1f} % | {100 * row['invented_matched']:.1f} % | "
            f"{row['right']:,} right of {row['matched']:,} matched; {row['named']:,} name a "
            f"paper, {row['invented']:,} invented |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--thresholds", default="80,85,88,90,92,95")
    parser.add_argument("--dataset", default="citeval/demo/test")
    args = parser.parse_args(argv)
    import ir_datasets

    import citeval_irm  # noqa: F401 (registers the citeval datasets)
    from citeval_irm.resolving.index import TitleIndex

    docs = list(ir_datasets.load(args.dataset).docs_iter())
    ids, titles = [d.doc_id for d in docs], [d.title for d in docs]
    index = TitleIndex(ids, titles, [d.year for d in docs])
    references = labelled_set(ids, titles, args.size, args.seed)
    rows = measure(index, references, [float(t) for t in args.thresholds.split(",")])
    text = markdown(rows, args.size, args.seed)
    print(text, end="")
    return text


if __name__ == "__main__":
    main()
