"""The BM25 baseline (bm25s) on the demo benchmark: exact BM25, the protocol, k, ties, CLI."""

from __future__ import annotations

import math
from collections import Counter

import ir_datasets
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeval_irm
from citeval_irm.base.errors import InputError
from citeval_irm.cli import EXIT_STRICT_FAILURE, main
from citeval_irm.datasets import admissible_candidates
from citeval_irm.papers.baseline import BM25Index, QueryInfo, bm25_run, top_k

TEST = "citeval/demo/test"
pytestmark = pytest.mark.usefixtures("demo_home")


@pytest.fixture(scope="module")
def runs(demo_home):
    return {temporal: bm25_run(TEST, 300, temporal=temporal) for temporal in (True, False)}


@pytest.fixture(scope="module")
def queries(demo_home):
    return list(ir_datasets.load(TEST).queries_iter())


@pytest.fixture(scope="module")
def index(demo_home):
    docs = ir_datasets.load(TEST).docs_iter()
    return BM25Index().build(((d.doc_id, d.default_text(), d.year) for d in docs), progress=False)


def brute_force(scores: np.ndarray, k: int) -> list[int]:
    """The reference order: score descending, then position (= doc id) descending."""
    finite = [i for i in range(len(scores)) if np.isfinite(scores[i])]
    return sorted(finite, key=lambda i: (-scores[i], -i))[:k]


def test_top_k_ties_at_the_cutoff_and_zero_padding() -> None:
    scores = np.array([0, 2, 2, 1, 2, 0, -np.inf], dtype=np.float32)
    assert top_k(scores, 2)[0].tolist() == [4, 2]  # of three tied 2s, the larger doc ids
    assert top_k(scores, 5)[0].tolist() == [4, 2, 1, 3, 5]  # a zero-score doc fills up
    positions, values = top_k(scores, 10)
    assert positions.tolist() == [4, 2, 1, 3, 5, 0] and values.tolist() == [2, 2, 2, 1, 0, 0]
    assert len(top_k(scores, 0)[0]) == 0


@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, -math.inf]), min_size=1, max_size=40),
    st.integers(min_value=0, max_value=45),
)
def test_top_k_matches_a_full_sort(values, k) -> None:
    scores = np.array(values, dtype=np.float32)
    assert top_k(scores, k)[0].tolist() == brute_force(scores, k)


def test_scores_are_bm25(index, queries) -> None:
    """bm25s' scores against Lucene's BM25 (idf log(1 + (N - df + .5) / (df + .5)), no
    (k1 + 1) factor since Lucene 8), computed here from the tokens."""
    docs = {d.doc_id: d for d in ir_datasets.load(TEST).docs_iter()}
    texts = [docs[d].default_text() for d in index.doc_ids]
    tokens = index.tokenizer.tokenize(texts, update_vocab=False, show_progress=False)
    lengths = np.array([len(t) for t in tokens])
    frequency = Counter(tok for t in tokens for tok in set(t))
    n, k1, b = len(tokens), 1.5, 0.75
    for query in queries[:5]:
        query_tokens = index.tokenizer.tokenize([query.text], update_vocab=False)[0]
        expected = np.zeros(n)
        for token in query_tokens:  # a repeated query word counts again, as in bm25s
            idf = math.log(1 + (n - frequency[token] + 0.5) / (frequency[token] + 0.5))
            tf = np.array([t.count(token) for t in tokens])
            expected += idf * tf / (tf + k1 * (1 - b + b * lengths / lengths.mean()))
        np.testing.assert_allclose(index.scores(query.text), expected, rtol=1e-5, atol=1e-6)


def test_exactly_k_per_query_and_the_full_ranking_order(runs, index, queries) -> None:
    for run in runs.values():
        assert run.source == f"bm25:{TEST}"
        sizes = run.frame.groupby("query_id").size()
        assert len(sizes) == len(queries) == 163 and set(sizes) == {300}
    allowed = admissible_candidates(TEST, same_year=True)
    frame = runs[True].frame
    for query in queries[:20]:
        scores = index.scores(query.text)
        scores[~allowed.admissible_docs(query.query_id)] = -np.inf
        expected = [index.doc_ids[i] for i in brute_force(scores, 300)]
        mine = frame[frame["query_id"] == query.query_id]
        assert mine["doc_id"].tolist() == expected
        assert mine["score"].tolist() == [
            float(scores[index.doc_ids.tolist().index(d)]) for d in expected
        ]


def test_the_citing_paper_is_never_ranked(runs, index, queries) -> None:
    citing = {q.query_id: q.citing_id for q in queries}
    for run in runs.values():
        frame = run.frame
        assert not (frame["doc_id"] == frame["query_id"].map(citing)).any()
    # ... although BM25 alone would rank it high for many contexts (they mention its subject)
    top10 = 0
    for query in queries:
        order = np.argsort(-index.scores(query.text), kind="stable")[:10]
        top10 += query.citing_id in index.doc_ids[order]
    assert top10 > 10


def test_temporal_ranks_only_admissible_docs(runs) -> None:
    strict = citeval_irm.validate(runs[True], TEST, same_year=True)
    assert strict.passed
    loose = citeval_irm.validate(runs[False], TEST, same_year=True)
    assert loose.count("later_paper") > 0 and loose.count("query_paper") == 0
    later = loose.violations[loose.violations["check"] == "later_paper"]
    assert set(later["doc_id"].str[1:3]) == {"16"}  # the 2016 papers


def test_fewer_than_k_admissible_gives_all_of_them(queries) -> None:
    run = bm25_run(TEST, 1000, temporal=True)
    allowed = admissible_candidates(TEST, same_year=True)
    sizes = run.frame.groupby("query_id").size()
    for query in queries[:10]:
        assert sizes[query.query_id] == len(allowed.doc_ids(query.query_id)) == 404
    default = bm25_run(TEST, 1000)  # temporal by default
    assert default.frame.equals(run.frame)
    loose = bm25_run(TEST, 1000, temporal=False)
    assert set(loose.frame.groupby("query_id").size()) == {419}  # all but the citing paper
    earlier_only = bm25_run(TEST, 1000, temporal=True, same_year=False)
    assert set(earlier_only.frame.groupby("query_id").size()) == {420 - 15 - 40}


def test_a_query_of_stopwords_ranks_by_doc_id(index) -> None:
    frame = index.rank([QueryInfo("q", "the of and", "none", None)], 3, progress=False)
    assert frame["doc_id"].tolist() == sorted(index.doc_ids, reverse=True)[:3]
    assert frame["score"].tolist() == [0.0, 0.0, 0.0]


def test_bm25_finds_the_cited_paper_often_but_not_always(runs) -> None:
    result = citeval_irm.evaluate(runs[True], TEST, protocol="goyal2026")
    assert 0.2 < result.aggregate["RR"] < 0.45
    assert 0.35 < result.aggregate["R@10"] < 0.7 and result.aggregate["R@300"] > 0.9


def test_errors() -> None:
    with pytest.raises(
        InputError, match="has no queries; use one of its splits: citeval/demo/train"
    ):
        bm25_run("citeval/demo")
    with pytest.raises(InputError, match="not an ir_datasets dataset"):
        bm25_run("no/such/dataset")
    with pytest.raises(InputError, match="k must be at least 1"):
        bm25_run(TEST, 0)
    with pytest.raises(InputError, match="more than once"):
        BM25Index().build([("a", "x y", None), ("a", "z", None)], progress=False)


def test_cli_writes_a_trec_run(tmp_path, capsys) -> None:
    out = tmp_path / "bm25.trec"
    code = main(["baseline", "bm25", "--dataset", TEST, "-k", "20", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and f"wrote 3,260 lines for 163 queries to {out}" in err
    lines = out.read_text().splitlines()
    assert len(lines) == 163 * 20
    query, q0, doc, rank, score, tag = lines[0].split()
    assert (q0, rank, tag) == ("Q0", "1", "bm25") and float(score) > 0
    # temporal by default; 20 deep, so fit for R@10 but not for the dataset's goyal2026 (R@300)
    assert main(["validate", str(out), "--dataset", TEST, "--strict", "-m", "RR R@10"]) == 0
    assert "the run obeys the protocol" in capsys.readouterr().out
    assert main(["validate", str(out), "--dataset", TEST, "--strict"]) == EXIT_STRICT_FAILURE
    out_text = capsys.readouterr().out
    assert "result: VIOLATIONS (short_ranking)" in out_text
    assert (
        "ranking shorter than 300 docs, the deepest cut-off (R@300 nDCG@300): found 20" in out_text
    )
    loose = tmp_path / "loose.trec"
    assert main(["baseline", "bm25", "--dataset", TEST, "-o", str(loose), "--no-temporal"]) == 0
    assert main(["validate", str(loose), "--dataset", TEST, "--strict"]) == EXIT_STRICT_FAILURE
    assert "result: VIOLATIONS (later_paper)" in capsys.readouterr().out
    assert main(["eval", str(out), "--dataset", TEST, "-m", "RR R@10"]) == 0
    no_stem = tmp_path / "nostem.trec"
    assert main(["baseline", "bm25", "--dataset", TEST, "-k", "5", "-o", str(no_stem),
                 "--stemmer", "none", "--k1", "1.2", "--b", "0.5"]) == 0  # fmt: skip
    assert len(no_stem.read_text().splitlines()) == 163 * 5


def test_titles_only_is_a_weaker_baseline(runs, capsys, tmp_path) -> None:
    titles = bm25_run(TEST, 300, temporal=True, fields=("title",))
    full = citeval_irm.evaluate(runs[True], TEST, "RR R@10")
    weaker = citeval_irm.evaluate(titles, TEST, "RR R@10")
    assert (weaker.aggregate < full.aggregate).all()  # RR and R@10
    assert citeval_irm.validate(titles, TEST, same_year=True).passed
    with pytest.raises(InputError, match="fields must be among the docs' doc_id, title"):
        bm25_run(TEST, fields=("venue",))
    out = tmp_path / "titles.trec"
    args = ["baseline", "bm25", "--dataset", TEST, "-k", "300", "--fields", "title"]
    assert main([*args, "-o", str(out)]) == 0
    assert citeval_irm.read_run(out).frame["doc_id"].tolist() == titles.frame["doc_id"].tolist()


@pytest.mark.slow
def test_its_ties_are_said_once_where_made_and_change_no_number(tmp_path, capsys) -> None:
    """BM25 ties are kept (the scores are BM25's) and listed in trec_eval's order: said once
    by ``citeval baseline bm25``, never again by the commands that read the file, and every
    tool ranks them alike: trec_eval's own code (pytrec_eval through ir-measures) scores the
    file with its ties exactly as the same ranking with strictly decreasing scores (no tie
    left for any tool to break), and citeval does under either tie policy."""
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    out = tmp_path / "bm25.trec"
    assert main(["baseline", "bm25", "--dataset", TEST, "-o", str(out)]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("citeval")]
    assert len(err) == 2 and err[0].startswith("citeval: wrote 48,900 lines")
    assert err[1].startswith("citeval: 37,328 docs of 163 queries tie on their score, listed in ")
    for command in ("eval", "validate", "crosscheck"):
        assert main([command, str(out), "--dataset", TEST, "--protocol", "goyal2026"]) in (0, 1)
        assert "tied" not in capsys.readouterr().err
    lines = [line.split() for line in out.read_text().splitlines()]
    scores = [float(line[4]) for line in lines]
    assert len(set(scores)) < len(scores)  # ties kept
    # the same ranking, strictly decreasing scores: nothing for a tie order to decide
    untied = tmp_path / "untied.trec"
    untied.write_text("".join(f"{q} Q0 {d} {r} {1000 - int(r)} t\n" for q, _, d, r, _, _ in lines))
    qrels = list(ir_datasets.load(TEST).qrels_iter())
    measures = [RR, AP, nDCG @ 10, nDCG @ 300, R @ 10, R @ 300, P @ 5]
    evaluator = ir_measures.pytrec_eval.evaluator(measures, qrels)

    def per_query(path):
        run = list(ir_measures.read_trec_run(str(path)))
        return {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}

    written, canonical = per_query(out), per_query(untied)
    assert len(written) == 163 * len(measures) and written == canonical
    ours = {
        ties: citeval_irm.evaluate(
            str(out), TEST, measures, options=citeval_irm.EvalOptions(ties=ties)
        )
        for ties in ("trec_eval", "run_order")
    }
    for ties, result in ours.items():
        frame = result.per_query
        for (query, measure), value in written.items():
            assert frame.at[query, measure] == pytest.approx(value, abs=1e-6), (ties, query)
        assert "tied_scores" not in {w.code for w in result.warnings}
