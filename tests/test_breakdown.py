"""citeval breakdown / breakdown() and the popularity summary of compare: on a GENERATED
ACL-200-layout corpus whose training split cites paper i exactly i times, on the demo and
on ArSyTa's layout (section headings)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from datasets_fixtures import ARSYTA_CONTEXTS, write_arsyta_folder, write_popularity_corpus

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.comparison import facets, stats

ACL = "citeval/acl-200/test"
DEMO = "citeval/demo/test"
FAST = {"permutations": 500, "bootstrap": 200}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("breakdown")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(root / "home"))
        patch.delenv("CITEVAL_DEMO_DIR", raising=False)
        patch.setenv("CITEVAL_ACL_200_DIR", str(root / "acl-200"))
        patch.setenv("CITEVAL_ARSYTA_DIR", str(root / "arsyta"))
        written = write_popularity_corpus(root / "acl-200")
        write_arsyta_folder(root / "arsyta")
        runs = {
            "bm25": citeval_irm.bm25_run(ACL, 100),
            "titles": citeval_irm.bm25_run(ACL, 100, fields=("title",)),
        }
        paths = {n: citeval_irm.write_run(r, root / f"{n}.trec") for n, r in runs.items()}
        yield {"counts": written["counts"], "runs": paths, "root": root}


def test_training_citation_counts_are_the_known_ones(corpus):
    assert facets.training_split(ACL) == "citeval/acl-200/train"
    counts = facets.citation_counts("citeval/acl-200/train")
    assert counts.to_dict() == {p: n for p, n in corpus["counts"].items() if n}
    qrels = citeval_irm.read_qrels(ACL).frame
    popularity = facets.gold_popularity(qrels, counts)
    gold = qrels.set_index("query_id")["doc_id"]
    assert popularity.to_dict() == {q: corpus["counts"][gold[q]] for q in popularity.index}


def test_popularity_bins_are_quantiles_of_the_queries(corpus):
    result = citeval_irm.breakdown(
        corpus["runs"]["bm25"],
        ACL,
        by="popularity",
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    assert list(result.groups["group"]) == [
        "tail (0-3 citations)", "torso (4-7 citations)", "head (8-11 citations)",
    ]  # fmt: skip
    assert list(result.groups["queries"]) == [12, 12, 12]
    assert result.groups["small"].all()  # below 30 queries each: flagged
    two = citeval_irm.breakdown(
        corpus["runs"]["bm25"],
        ACL,
        by="popularity",
        bins=2,
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    assert list(two.groups["group"]) == ["tail (0-5 citations)", "head (6-11 citations)"]


@pytest.mark.parametrize("facet", ["year", "gold", "venue", "venue-year", "popularity"])
def test_group_means_weighted_by_size_give_the_overall_mean(corpus, facet):
    run = corpus["runs"]["bm25"]
    overall = citeval_irm.evaluate(
        run, ACL, protocol="goyal2026", execution=citeval_irm.ExecutionOptions(progress=False)
    )
    for measure in ("RR", "R@10"):
        result = citeval_irm.breakdown(
            run, ACL, measure, by=facet, statistics=citeval_irm.StatisticsOptions(**FAST)
        )
        groups = result.groups
        weighted = (groups["bm25"] * groups["queries"]).sum() / groups["queries"].sum()
        assert groups["queries"].sum() == overall.num_queries
        assert weighted == pytest.approx(overall.aggregate[measure], abs=1e-12)
        assert result.overall["bm25"] == pytest.approx(overall.aggregate[measure], abs=1e-12)


def test_venue_groups_from_acl_ids(corpus):
    result = citeval_irm.breakdown(
        corpus["runs"]["bm25"], ACL, by="venue", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    assert list(result.groups["group"]) == ["ACL", "EMNLP", "NAACL"]
    by_year = citeval_irm.breakdown(
        corpus["runs"]["bm25"],
        ACL,
        by="venue-year",
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    assert list(by_year.groups["group"]) == ["ACL 2015", "EMNLP 2015", "NAACL 2015"]


def test_two_runs_side_by_side_with_tests_corrected_over_groups(corpus):
    result = citeval_irm.breakdown(
        corpus["runs"],
        ACL,
        by="popularity",
        baseline="bm25",
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    pairs = result.pairs
    assert list(pairs["system"]) == ["titles"] * 3 and list(pairs["baseline"]) == ["bm25"] * 3
    assert pairs["p_adj"].tolist() == pytest.approx(
        list(stats.adjust(pairs["p_randomisation"].to_numpy(), "holm"))
    )
    for row in pairs.itertuples():
        group = result.groups.set_index("group").loc[row.group]
        assert row.diff == pytest.approx(group["titles"] - group["bm25"])
    assert "titles - bm25" in str(result) and "holm correction over all 3" in " ".join(
        str(result).split()
    )


def test_write_report_writes_the_page_and_report_is_deprecated(corpus, tmp_path):
    """issue 43: one verb for writing a report, ``write_report(path)`` as a Resolution's;
    ``report()`` warns naming it and gives the same page."""
    result = citeval_irm.breakdown(corpus["runs"], ACL, by="popularity")
    path = result.write_report(tmp_path / "b.md", command="citeval breakdown", percent=True)
    assert path == tmp_path / "b.md"
    with pytest.warns(DeprecationWarning, match=r"Breakdown\.write_report\(path"):
        old = result.report("citeval breakdown", percent=True)
    assert path.read_text(encoding="utf-8") == old.to_markdown()
    assert "citeval breakdown" in old.to_markdown()
    with pytest.raises(TypeError, match="'pct'; it takes percent, decimals, min_queries"):
        result.format("json", pct=True)


def test_the_cli_prints_json_and_writes_the_popularity_plot(corpus, capsys, tmp_path):
    runs = [str(p) for p in corpus["runs"].values()]
    report = tmp_path / "breakdown.html"
    args = ["breakdown", *runs, "--dataset", ACL, "--by", "popularity", "-q"]
    args += ["--permutations", "200", "--bootstrap", "100"]
    assert main([*args, "--format", "json", "--report", str(report)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["facet"] == "popularity" and len(payload["groups"]) == 3
    assert [g["queries"] for g in payload["groups"]] == [12, 12, 12]
    html = report.read_text(encoding="utf-8")
    assert 'data-key="breakdown-popularity"' in html
    assert main(["breakdown", runs[0], "--dataset", ACL, "--by", "heading", "-q"]) == 2
    assert "popularity" not in (err := capsys.readouterr().err) and "no heading field" in err


def test_section_headings_of_arsyta(corpus):
    test = "citeval/arsyta/test"
    rows = [(c, d) for split, c, d, _ in ARSYTA_CONTEXTS if split == "test"]
    qrels = citeval_irm.read_qrels(test).frame
    run = pd.DataFrame(
        {"query_id": qrels["query_id"], "doc_id": qrels["doc_id"], "score": 1.0}
    )  # a perfect run: RR 1 in every group
    result = citeval_irm.breakdown(
        run, test, "RR", by="heading", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    headings = sorted(h for split, *_, h in ARSYTA_CONTEXTS if split == "test")
    assert list(result.groups["group"]) == headings and len(rows) == 3
    assert np.allclose(result.groups["run1"], 1.0)


def test_compare_reports_the_popularity_lean(corpus, capsys, tmp_path):
    comparison = citeval_irm.compare(
        corpus["runs"], ACL, protocol="goyal2026", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    summary = comparison.popularity
    assert summary.attrs["training_split"] == "citeval/acl-200/train"
    qrels = citeval_irm.read_qrels(ACL).frame
    gold_mean = np.mean([corpus["counts"][d] for d in qrels["doc_id"]])
    assert summary["gold_citations"].tolist() == pytest.approx([gold_mean] * 2)
    per_query = comparison.results["bm25"].per_query["RR"]
    head = [q for q, d in zip(qrels["query_id"], qrels["doc_id"]) if corpus["counts"][d] >= 8]
    assert summary.at["bm25", "head_share"] == pytest.approx(
        per_query[head].sum() / per_query.sum()
    )
    assert summary.at["bm25", "head_queries"] == pytest.approx(1 / 3)
    run = citeval_irm.read_run(corpus["runs"]["bm25"])
    ranked, _ = citeval_irm.reading.ties.rank_run(run)
    top = ranked.frame[ranked.rank_in_query() <= 10]["doc_id"]
    expected = np.mean([corpus["counts"].get(d, 0) for d in top])
    assert summary.at["bm25", "top10_citations"] == pytest.approx(expected)
    text = " ".join(str(comparison).split())
    head_line = "popularity (citeval/acl-200/train citation counts; head = head (8-11 citations))"
    assert head_line in text
    assert json.loads(comparison.format("json"))["popularity"]["runs"]["bm25"]["head_share"] > 0
    report = tmp_path / "compare.html"
    args = ["compare", *map(str, corpus["runs"].values()), "--dataset", ACL, "--protocol"]
    args += ["goyal2026", "-q", "--permutations", "200", "--bootstrap", "100"]
    assert main([*args, "--report", str(report)]) == 0
    assert 'data-key="breakdown-popularity"' in report.read_text(encoding="utf-8")


def test_no_training_split_no_summary(capsys, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    comparison = citeval_irm.compare(
        [run], qrels, "RR", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    assert comparison.popularity is None and "popularity" not in str(comparison)


def test_the_demo_by_venue(demo_home):
    run = citeval_irm.bm25_run(DEMO, 50)
    result = citeval_irm.breakdown(
        run, DEMO, by="venue", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    assert result.groups["queries"].sum() == 163
    assert set(result.groups["group"]) <= set(facets.ACL_SERIES.values())


def test_values_print_in_the_protocol_unit_or_as_asked(corpus):
    run = corpus["runs"]["bm25"]
    fractions = citeval_irm.breakdown(
        run,
        ACL,
        by="popularity",
        protocol="masterset2026",
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    assert (fractions.percent, fractions.decimals) == (False, 4)  # masterset2026's unit
    asked = fractions.displayed(percent=True, decimals=1)
    assert (asked.percent, asked.decimals) == (True, 1)
    mean = asked.groups[asked.runs[0]].iloc[0]
    assert f"{mean * 100:.1f}" in fractions.format("table", percent=True, decimals=1)
    assert f"{mean * 100:.1f}" not in fractions.format("table")  # nothing remembered
    assert fractions.displayed(percent=True).decimals == 2  # the rule's, in percent


@pytest.mark.parametrize(
    ("spelling", "name"),
    [("MRR", "RR"), ("recip_rank", "RR"), ("HR@10", "Success@10"), ("ndcg_cut_10", "nDCG@10"),
     ("r@10", "R@10")],
)  # fmt: skip
def test_breakdown_takes_every_measure_spelling_eval_takes(corpus, capsys, spelling, name):
    """One measure parser: the spelling is read as ``eval`` reads it, and the breakdown is
    the one of the measure's own name."""
    run = str(corpus["runs"]["bm25"])
    args = ["breakdown", run, "--dataset", ACL, "--by", "popularity", "-q", "--format", "json"]
    args += ["--permutations", "200", "--bootstrap", "100"]
    assert main([*args, "-m", spelling]) == 0, capsys.readouterr().err
    spelled = json.loads(capsys.readouterr().out)
    assert main([*args, "-m", name]) == 0
    assert spelled == json.loads(capsys.readouterr().out) and spelled["measure"] == name
    assert main([*args, "-m", "P@5 P@10"]) == 2
    assert "expected one measure" in capsys.readouterr().err
