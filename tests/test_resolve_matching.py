"""What citeval resolve matches (issue 40, items 1-5): the near misses of real titles
counted apart from what is found nowhere, citation strings whose title was cut wrongly (a
quoted phrase, ``vs.``, capitals before a venue or a link, a spaced dash), a title's parts
standing for the whole (a subtitle dropped or added, the first part dropped), an identifier
and a title that disagree (a counted conflict, both named), and arXiv versions held as docs
of their own. Through resolve() and the command line, on a
GENERATED corpus in ACL-200's layout whose titles hold these traps (some are titles of
well-known papers, used as titles only), and on ArSyTa's test folder."""

from __future__ import annotations

import json
import warnings

import pytest
from datasets_fixtures import write_arsyta_folder, write_hatten_files
from resolve_fixtures import CITING, PAPERS, filler_titles

import citeval_irm
from citeval_irm.cli import main

ACL = "citeval/acl-200/test"
MORE = {
    "C24-1001": 'CAMixerSR: Only Details Need More "Attention"',
    "N11-1001": "Shallow vs. Deep Sum-Product Networks",
    "N11-1002": "Deep Networks for Sum-Product Evaluation",
    "A20-1001": "Learning with Noisy Labels - A Survey of Robust Training",
    "C12-1001": "A Kernel Two-Sample Test for Distributions",
    "C12-1002": "Faster Margin Maximization Rates for Generic Optimization Methods",
    "C12-1003": "Maximisation of Submodular Functions",
    "C12-1004": "Optimisation in Banach Spaces",
    "C12-1005": "Stochastic Optimisation and Maximisation of Likelihoods",
    "C12-1006": "Faster Rates for Margin Bounds",
    "C12-1007": "Generic Methods for Margin Estimation",
    "C12-1008": "Faster Generic Methods",
    "C12-1009": "Rates of Margin Growth for Generic Learners",
    "C12-1010": "Parameterized Learning Complexity",
    "C12-1011": "Particle Belief Propagation",
    "C13-1001": "Parsing with Transformers: Lessons from Ten Years",
}
"""Titles of the traps beyond resolve_fixtures.PAPERS (GENERATED, or names of papers used as
titles only)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The corpus: resolve_fixtures.PAPERS, MORE and 300 GENERATED filler titles; one test
    context (the citing paper cites GloVe)."""
    from citeval_irm.comparison import facets

    root = tmp_path_factory.mktemp("matching")
    titles = {**PAPERS, **MORE}
    titles.update({f"W{10 + n % 8:02d}-{5000 + n}": t for n, t in enumerate(filler_titles(300))})
    papers = {pid: {"title": t, "abstract": f"Generated abstract of {pid}."}
              for pid, t in titles.items()}  # fmt: skip
    query = QUERY
    contexts = {query: {"masked_text": "generated context cites TARGETCIT", "context_id": query,
                        "citing_id": CITING, "refid": "D14-1162"}}  # fmt: skip
    splits = {"train": [], "val": [], "test": [{"context_id": query, "positive_ids": ["D14-1162"]}]}
    (root / "acl-200").mkdir()
    write_hatten_files(root / "acl-200", papers, contexts, splits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(root / "home"))
        patch.setenv("CITEVAL_ACL_200_DIR", str(root / "acl-200"))
        facets.citation_counts.cache_clear()
        yield {"root": root, "query": query}
        facets.citation_counts.cache_clear()


QUERY = f"{CITING}_D14-1162_0"
"""The corpus's one test query (a run needs one of its queries to be evaluated)."""


def decided(references, dataset=ACL, **keywords):
    """``(how, doc_id or candidates)`` of each reference, resolved as one list each."""
    lists = {QUERY if n == 0 else f"q{n}": [r] for n, r in enumerate(references)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", citeval_irm.EvalWarning)
        result = citeval_irm.resolve(lists, dataset, "RR", **keywords)
    rows = result.decisions
    return [(how, doc or candidates) for how, doc, candidates
            in zip(rows["how"], rows["doc_id"], rows["candidates"])]  # fmt: skip


# --------------------------------------------------------------------------- item 1


@pytest.mark.parametrize(
    ("reference", "doc"),
    [
        ("A Kernel Two-Sample Test for Graphs", "C12-1001"),  # a word replaced
        ("Faster Margin Rates for Generic Optimization Methods", "C12-1002"),  # a word dropped
        ("Faster Margin Maximization Rates for Generic", "C12-1002"),  # cut short, no ...
        ("Parsing with transformers", "C13-1001"),  # a part too plain to name a paper
        ("Shallow vs. Deep Sum-Product Networks: Expressivity and Depth Separation for Deep "
         "Models", "N11-1001"),  # a long subtitle added to a title that has none
    ],
)  # fmt: skip
def test_a_real_title_named_with_an_error_is_a_near_miss_not_fabricated(corpus, reference, doc):
    assert decided([reference]) == [("near_miss", doc)]


def test_near_misses_are_counted_apart_in_every_output(corpus, tmp_path, capsys):
    catalogue = tmp_path / "known.txt"
    catalogue.write_text("Language Models are Few-Shot Learners\n")
    references = [
        "GloVe: Global Vectors for Word Representation",
        "A Kernel Two-Sample Test for Graphs",  # a near miss of the pool
        "Language Models are Few-Shot Optimisers",  # ... of the catalogue
        "Quantum llama parsing for interstellar translation",
    ]  # found nowhere
    path = tmp_path / "lists.jsonl"
    path.write_text(json.dumps({"query_id": QUERY, "references": references}) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", citeval_irm.EvalWarning)
        result = citeval_irm.resolve(path, ACL, "RR", catalogue=catalogue)
    rows = result.decisions
    assert list(rows["how"]) == ["exact", "near_miss", "near_miss", "unmatched"]
    assert list(rows["catalogue"]) == ["in_pool", "near_miss", "near_miss", "nowhere"]
    assert list(rows["candidates"][1:3]) == ["C12-1001", "catalogue:1"]
    assert list(result.run.frame["doc_id"]) == ["D14-1162"]  # no near miss in the run
    counts = result.counts()
    assert (counts["near_miss"], counts["nowhere"], counts["outside_pool"]) == (2, 1, 0)
    row = result.per_query.loc[QUERY]
    assert row["near_miss"] == 2
    assert row["in_pool_rate"] == pytest.approx(1 / 4)  # a near miss is not in the pool ...
    assert row["existence_rate"] == pytest.approx(3 / 4)  # ... nor fabricated
    text = " ".join(result.format("table").split())
    assert "near_miss 2 50.0 %" in text and "fabrication rate (found nowhere) is 25.0 %" in text
    assert json.loads(result.format("json"))["counts"]["near_miss"] == 2
    assert main(["resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "run.trec"),
                 "--catalogue", str(catalogue), "-m", "RR", "-q"]) == 0  # fmt: skip
    assert "near_miss" in capsys.readouterr().out


# --------------------------------------------------------------------------- item 3


@pytest.mark.parametrize(
    ("reference", "doc"),
    [
        # a quoted phrase of 8+ characters is one more candidate, not the only one
        ('CAMixerSR: Only Details Need More "Attention"', "C24-1001"),
        ('Wang et al. 2024. CAMixerSR: Only Details Need More "Attention". In CVPR.', "C24-1001"),
        ('A. Vaswani, "GloVe: Global Vectors for Word Representation," in Proc. EMNLP, 2014.',
         "D14-1162"),
        # vs. is no sentence end (nor an initial): the title is not cut there
        ("Delalleau, O. and Bengio, Y. 2011. Shallow vs. Deep Sum-Product Networks. In "
         "Proceedings of NeurIPS.", "N11-1001"),
        ("Shallow vs. Deep Sum-Product Networks", "N11-1001"),
        # a title in capitals before a venue missing from the old venue list, or a link
        *[(f"GLOVE: GLOBAL VECTORS FOR WORD REPRESENTATION. {venue} 2014", "D14-1162")
          for venue in ("UAI", "AISTATS", "COLT", "WACV", "TMLR", "JAIR", "MLJ", "ECML")],
        ("GLOVE: GLOBAL VECTORS FOR WORD REPRESENTATION. https://nlp.stanford.edu/glove.pdf",
         "D14-1162"),
        ("GLOVE: GLOBAL VECTORS FOR WORD REPRESENTATION https://nlp.stanford.edu/glove.pdf",
         "D14-1162"),
        ("Pennington et al. A KERNEL TWO-SAMPLE TEST FOR DISTRIBUTIONS. JMLR, 2012.",
         "C12-1001"),
        # a spaced dash is a subtitle's separator, not a sentence end
        ("Han et al. 2020. Learning with Noisy Labels - A Survey of Robust Training. ACML.",
         "A20-1001"),
        ("Learning with noisy labels \u2013 a survey of robust training", "A20-1001"),
    ],
)  # fmt: skip
def test_citation_strings_whose_title_was_cut_wrongly(corpus, reference, doc):
    assert decided([reference]) == [("exact", doc)]


@pytest.mark.parametrize(
    ("reference", "doc"),
    [
        ("GloVe", "D14-1162"),  # the subtitle dropped: the main part, a name
        ("Bleu", "P02-1040"),
        ("Pennington et al. 2014. GloVe. In Proceedings of EMNLP.", "D14-1162"),
        ("Global Vectors for Word Representation", "D14-1162"),  # the first part dropped
        ("Global vectors for word representaton", "D14-1162"),  # ... and misspelt
        ("A Method for Automatic Evaluation of Machine Translation", "P02-1040"),
        # a subtitle added to a title that has none
        ("Effective Approaches to Attention-based Neural Machine Translation: A Study of "
         "Global and Local Attention", "D15-1166"),
        ({"title": "Shallow vs. Deep Sum-Product Networks: Depth Efficiency"}, "N11-1001"),
        # a name added before a title
        ("SPN: Shallow vs. Deep Sum-Product Networks", "N11-1001"),
    ],
)  # fmt: skip
def test_a_title_part_stands_for_the_whole(corpus, reference, doc):
    assert decided([reference]) == [("fuzzy", doc)]


def test_a_part_too_plain_to_name_a_paper_matches_nothing(corpus):
    """A part stands for the whole only when distinctive: "A Survey" (a subtitle) or a
    common word does not name a paper."""
    found = decided(["A Survey", "Learning", "Deep learning"])
    assert [how for how, _ in found] == ["unmatched"] * 3


# --------------------------------------------------------------------------- item 2


@pytest.mark.parametrize(
    ("reference", "doc"),
    [
        # its British spellings are words of other titles, rarer than the rest of it: the
        # title it scores 96.9 with shares only two of its four rarest words
        ("Faster Margin Maximisation Rates for Generic Optimisation Methods", "C12-1002"),
        # every word but a common one misspelt: repaired against the vocabulary
        ("Parmaeterized learning compllxity", "C12-1010"),
        ("Paricle belief propagaton", "C12-1011"),
        # a citation's author names are rare words the title lacks
        ("R. Pennington, J. Manning. GloVe: Global Vectors for Word Represntation", "D14-1162"),
    ],
)  # fmt: skip
def test_candidates_hold_every_title_the_threshold_would_pass(corpus, reference, doc):
    assert decided([reference]) == [("fuzzy", doc)]


def test_the_candidate_generator_against_a_brute_force_search(corpus):
    """Of the titles a brute-force fuzz.ratio over every title puts at or above the
    threshold, the candidates hold each, for references with the errors that cost a rare
    word (a letter changed, added or dropped, the other spelling, a word replaced)."""
    import random

    import numpy as np
    from rapidfuzz import fuzz, process

    from citeval_irm.resolving.index import TitleIndex
    from citeval_irm.resolving.normalise import title_key

    titles = [*PAPERS.values(), *MORE.values(), *filler_titles(300)]
    index = TitleIndex([str(n) for n in range(len(titles))], titles)
    rng, keys = random.Random(3), []
    for _ in range(400):
        chars = list(rng.choice(titles))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(chars))
            chars[at : at + 1] = rng.choice([[], [rng.choice("aeiouszt")], [chars[at]] * 2])
        keys.append(title_key("".join(chars)).text)
    scores = process.cdist(keys, list(index.keys), scorer=fuzz.ratio, dtype=np.float32)
    lost = []
    for row, key in enumerate(keys):
        held = set(index.candidates(key).tolist())
        lost += [(key, index.keys[p]) for p in np.flatnonzero(scores[row] >= 90) if p not in held]
    assert not lost


# --------------------------------------------------------------------------- item 4


def test_an_identifier_and_a_title_that_disagree_are_a_counted_conflict(corpus, tmp_path,
                                                                        capsys):  # fmt: skip
    glove = "GloVe: Global Vectors for Word Representation"
    lists = {corpus["query"]: [
        {"title": glove, "acl": "N19-1423"},  # GloVe's title, BERT's id
        f"{glove}. https://aclanthology.org/N19-1423.pdf",
        {"title": glove, "acl": "D14-1162"},  # they agree: the id
        {"title": "Glove: global vectors for word representations", "acl": "D14-1162"},
        {"title": "Something else entirely", "doi": "10.18653/v1/N19-1423"},  # no other paper
        {"acl": "N19-1423"},
    ]}  # fmt: skip
    with pytest.warns(citeval_irm.EvalWarning, match="identifier names one paper") as caught:
        result = citeval_irm.resolve(lists, ACL, "RR")
    rows = result.decisions
    assert list(rows["how"]) == ["conflict", "conflict", "id", "id", "id", "id"]
    assert list(rows["candidates"][:2]) == ["N19-1423 D14-1162"] * 2
    assert list(rows["doc_id"][:2]) == ["", ""]  # neither in the run
    assert [c for c in result.run.frame["doc_id"]] == ["D14-1162", "N19-1423"]
    conflicts = [w.message for w in caught if w.message.code == "id_title_conflicts"]
    where = (f"{corpus['query']} #1", f"{corpus['query']} #2")
    assert [(w.count, w.examples) for w in conflicts] == [(2, where)]
    assert result.counts()["conflict"] == 2 and result.per_query["conflict"].sum() == 2
    assert json.loads(result.format("json"))["counts"]["conflict"] == 2
    text = result.format("table")
    assert "conflict" in text and "N19-1423 D14-1162" in text
    # on the command line too: the table and the decisions file say it
    path = tmp_path / "lists.jsonl"
    path.write_text(json.dumps({"query_id": corpus["query"], "references": lists[
        corpus["query"]]}) + "\n")  # fmt: skip
    report = tmp_path / "decisions.csv"
    assert main(["resolve", str(path), "--dataset", ACL, "-o", str(tmp_path / "run.trec"),
                 "--report", str(report), "-m", "RR"]) == 0  # fmt: skip
    out, err = capsys.readouterr()
    assert "conflict" in out and "id_title_conflicts" in err
    assert report.read_text().count(",conflict,") == 2


def test_an_id_only_the_catalogue_knows_against_a_pool_title(corpus, tmp_path):
    catalogue = tmp_path / "known.csv"
    catalogue.write_text("title,doi\nLanguage Models are Few-Shot Learners,10.5555/gpt3\n")
    found = decided([{"title": "GloVe: Global Vectors for Word Representation",
                      "doi": "10.5555/GPT3"}, {"doi": "10.5555/gpt3"}],
                    catalogue=catalogue)  # fmt: skip
    assert found == [("conflict", "D14-1162 catalogue:2"), ("unmatched", "catalogue:2")]


# --------------------------------------------------------------------------- item 5


def test_each_arxiv_version_held_as_a_doc_is_its_own_paper(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(tmp_path / "arsyta"))
    write_arsyta_folder(tmp_path / "arsyta")
    papers_file = tmp_path / "arsyta" / "papers_cat.json"
    papers = json.loads(papers_file.read_text())
    for version in ("v1", "v2"):
        papers[f"1705.22222{version}"] = {
            "title": "Synthetic title 1705.22222",
            "abstract": "A version.",
            "categories": ["cs.CL"],
        }
    papers_file.write_text(json.dumps(papers))
    references = [{"arxiv": "1705.22222v1"}, {"arxiv": "1705.22222v2"}, "arXiv:1705.22222v2",
                  "https://arxiv.org/abs/1705.22222v1", {"arxiv": "1705.22222v7"}]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", citeval_irm.EvalWarning)
        result = citeval_irm.resolve({"1801.33333_1705.22222_0": references},
                                     "citeval/arsyta/test", "RR")  # fmt: skip
    rows = result.decisions
    assert list(rows["doc_id"][:4]) == ["1705.22222v1", "1705.22222v2", "1705.22222v2",
                                        "1705.22222v1"]  # fmt: skip
    assert list(rows["duplicate"][:4]) == [False, False, True, True]
    # a version the corpus lacks names the paper: every doc of it, ambiguous
    assert (rows["how"][4], rows["candidates"][4]) == (
        "ambiguous", "1705.22222 1705.22222v1 1705.22222v2")  # fmt: skip


# --------------------------------------------------------------------------- processes


@pytest.mark.slow
def test_the_decisions_are_the_same_in_forked_processes(tmp_path):
    """resolve_lists with jobs=2 (forked workers, each sent its queries) decides every
    reference as one process does, duplicates included (they are per query). In a fresh
    interpreter: resolve forks only while this process has a single thread, and the suite's
    process keeps others (the loopback servers)."""
    import os
    import subprocess
    import sys

    if sys.platform == "win32":
        pytest.skip("no fork on Windows: one process decides (the same decisions)")
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    code = "import test_resolve_matching as t; t.forked_decisions_agree()"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "forked 1\n"


def forked_decisions_agree() -> None:
    """The body of the test above, run alone in its own interpreter."""
    from citeval_irm.resolving import resolve as resolving
    from citeval_irm.resolving.generated import read_generated
    from citeval_irm.resolving.index import TitleIndex

    titles = [*PAPERS.values(), *MORE.values(), *filler_titles(200)]
    index = TitleIndex([f"P{n}" for n in range(len(titles))], titles)
    catalogue = TitleIndex(["catalogue:1"], ["Language Models are Few-Shot Learners"])
    references = [*titles[:40], "Language Models are Few-Shot Optimisers", "An invented one",
                  {"arxiv": "P3"}, {"title": titles[5], "year": 2014}, "", titles[0]]  # fmt: skip
    lists = read_generated({f"q{n}": references[n % 7 :: 3] for n in range(60)}).lists
    resolving.PARALLEL_ABOVE = 0
    forked = []
    in_processes = resolving._in_processes
    resolving._in_processes = lambda *given: forked.append(1) or in_processes(*given)
    one = resolving.resolve_lists(lists, resolving.Resolver(index, catalogue=catalogue))
    two = resolving.resolve_lists(lists, resolving.Resolver(index, catalogue=catalogue), jobs=2)
    assert forked == [1]  # the second, in processes
    assert list(one) == list(two) == list(resolving.COLUMNS)
    for name in resolving.COLUMNS:
        assert list(one[name]) == list(two[name]), name
    assert sum(one["duplicate"]) > 0 and "near_miss" in one["how"]
    print("forked", len(forked))
