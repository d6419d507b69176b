"""Reports (``--report``, :func:`citeval_irm.make_report`), read back with a real HTML parser:
every section there, every number equal to the API's, every plot a real PNG of what the API
computed, and nothing fetched from outside the file."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib import metadata, resources
from pathlib import Path

import numpy as np
import pytest
from compare_reference import planted_runs
from report_pages import Page, decode_data_uri, markdown_tables, png_size, unescape_markdown

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.cli.demo import run_demo

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

DEMO = "citeval/demo/test"
DEMO_SECTIONS = [
    "setup",
    "scores",
    "differences",
    "ties",
    "validation",
    "crosscheck",
    "warnings",
    "environment",
]


def close(cell: str, value: float, decimals: int = 2, scale: float = 100.0) -> bool:
    """A cell printed with ``decimals`` places shows ``value`` (a fraction) in ``scale``."""
    return abs(float(cell) - value * scale) <= 0.5 * 10**-decimals + 1e-9


def p_close(cell: str, p: float) -> bool:
    return p < 0.0001 if cell == "<0.0001" else abs(float(cell) - p) <= 0.00005 + 1e-12


@pytest.fixture(scope="module")
def demo(demo_home):
    return run_demo()


@pytest.fixture(scope="module")
def demo_page(demo, tmp_path_factory):
    path = demo.report(command="citeval demo").write(tmp_path_factory.mktemp("r") / "r.html")
    return Page(path.read_text(encoding="utf-8"))


def self_contained(page: Page) -> None:
    """Well formed, every image an embedded PNG, nothing that loads from elsewhere."""
    assert page.problems == []
    assert not {"script", "link", "iframe", "object", "embed", "base"} & page.tags
    for tag, attribute, value in page.urls:
        assert not value.lower().startswith(("http:", "https:", "//", "file:", "ftp:")), value
        if tag == "img":
            width, height = png_size(decode_data_uri(value))
            assert width > 100 and height > 100
        else:
            assert tag == "a" and value.startswith("#"), (tag, attribute, value)
            assert value[1:] in page.sections  # an anchor of this page
    assert all("url(" not in style and "@import" not in style for style in page.styles)


def test_the_demo_report_has_every_section_and_is_self_contained(demo, demo_page) -> None:
    assert demo_page.section_order == DEMO_SECTIONS
    self_contained(demo_page)
    assert len(demo_page.images) == 4 and all(image["alt"] for image in demo_page.images)


def test_the_demo_reports_scores_are_the_comparisons(demo, demo_page) -> None:
    comparison = demo.comparison
    means = demo_page.tables["means"]
    assert means.headers == ["measure", "bm25 (a)", "titles (b)"]
    beats = comparison.beats()
    for measure, *cells in means.rows:
        for run, cell in zip(comparison.names, cells):
            value, *letters = cell.split()
            assert close(value, comparison.means.at[measure, run])
            assert letters == ["".join(sorted(beats.get((measure, run), [])))] or (
                not letters and (measure, run) not in beats
            )
    assert [row[0] for row in means.rows] == comparison.measures
    assert close(
        means.rows[0][1].split()[0], demo.evaluation.aggregate["RR"]
    )  # the evaluation's MRR
    pairs = demo_page.tables["pairs"]
    assert len(pairs.rows) == len(comparison.pairs) == 11
    for cells, row in zip(pairs.rows, comparison.pairs.itertuples()):
        assert cells[:2] == [row.measure, f"{row.system} - {row.baseline}"]
        assert close(cells[2], row.diff)
        low, high = cells[3].removeprefix("~").strip("[]").split(", ")  # ~: few non-zero
        assert close(low, row.ci_low) and close(high, row.ci_high)
        assert close(cells[4], row.effect_size, scale=1.0)
        assert cells[5] == f"{row.wins}/{row.ties}/{row.losses}"
        tests = (row.p_randomisation, row.p_t, row.p_wilcoxon, row.p_sign)
        assert all(p_close(c, p) for c, p in zip(cells[6:10], tests))
        assert p_close(cells[10], row.p_adj) and cells[11] == ("*" if row.significant else "")


def test_the_demo_reports_checks_are_the_validations_and_the_crosscheck(demo, demo_page) -> None:
    for name in ("bm25", "titles"):
        table = demo_page.tables[f"validation:{name}"]
        expected = demo.validation.checks  # both runs obey the protocol: all counts 0
        assert [r[0] for r in table.rows] == list(expected["check"])
        assert all(r[2] == "0" and r[1] in ("0", "-") for r in table.rows)
    assert "bm25: the run obeys the protocol" in demo_page.section_text("validation")
    summary = demo.crosscheck.summary
    table = demo_page.tables["crosscheck:bm25"]
    assert [r[0] for r in table.rows] == list(summary.index)
    for measure, trec_eval, recipe, diff, largest, n_diff in table.rows:
        row = summary.loc[measure]
        assert close(trec_eval, row["trec_eval"]) and close(recipe, row["recipe"])
        assert close(diff, row["difference"]) and close(largest, row["max_abs_query_difference"])
        assert int(n_diff) == row["queries_differing"]
    assert "unexplained differences: 0" in demo_page.section_text("crosscheck")


def test_the_tie_ranges_are_the_crosschecks(demo, demo_page) -> None:
    """The report computes tie ranges for every run; the cross-check computes them on its
    own for the one it checked: the same numbers."""
    titles = citeval_irm.crosscheck(demo.titles, DEMO, protocol="goyal2026").summary
    summaries = {"bm25": demo.crosscheck.summary, "titles": titles}
    rows = demo_page.tables["ties"].rows
    assert len(rows) == 2 * 11
    for measure, run, value, worst, expected, best, width in rows:
        row = summaries[run].loc[measure]
        assert close(value, row["trec_eval"]) and close(worst, row["tie_worst"])
        assert close(expected, row["tie_expected"]) and close(best, row["tie_best"])
        assert close(width, row["tie_best"] - row["tie_worst"])
    figure = demo.report().figures()["tie-ranges"]
    assert figure.data["titles"]["R@50"][1] == pytest.approx(titles.at["R@50", "tie_worst"])


def test_the_demo_reports_plots_show_the_apis_values(demo) -> None:
    figures = demo.report().figures()
    assert list(figures) == ["recall-curve", "first-rank", "differences", "tie-ranges"]
    for name, run in (("bm25", demo.run), ("titles", demo.titles)):
        curve = figures["recall-curve"].data[name]
        assert list(curve) == [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300]
        recall = citeval_irm.evaluate(run, DEMO, [f"R@{k}" for k in curve])
        assert [curve[k] for k in curve] == pytest.approx(
            [recall.aggregate[f"R@{k}"] for k in curve]
        )
        counts = figures["first-rank"].data[name]
        rr = citeval_irm.evaluate(run, DEMO, "RR").values[:, 0]
        assert sum(counts) == 163 and counts[0] == int((rr == 1).sum())
        assert counts[-1] == int((rr == 0).sum()) and counts[1] == int((rr == 0.5).sum())
    assert figures["first-rank"].data["bins"][-3:] == ["51-100", "101-300", "none"]
    per_query = demo.comparison.per_query
    diffs = (per_query[("RR", "titles")] - per_query[("RR", "bm25")]).to_numpy()
    assert figures["differences"].data == {"titles - bm25": sorted(diffs, reverse=True)}
    for figure in figures.values():
        assert png_size(figure.png) > (500, 200)


def test_the_demo_reports_provenance(demo, demo_page) -> None:
    setup = demo_page.definitions["setup"]
    assert setup["command"] == "citeval demo"
    assert setup["protocol"].startswith("goyal2026: Public Profile Matters")
    assert (setup["dataset"], setup["corpus"], setup["split"]) == (DEMO, "citeval/demo", "test")
    assert setup["tie policy"].startswith("trec_eval") and setup["engine"] == "citeval"
    assert "seed 42" in setup["comparison"] and "baseline bm25" in setup["comparison"]
    files = demo_page.tables["dataset-files"]
    package = resources.files("citeval_irm.datasets").joinpath("demo")
    assert len(files.rows) == 5
    for name, sha256, how, size in files.rows:
        content = package.joinpath(name).read_bytes()
        assert sha256 == hashlib.sha256(content).hexdigest() and int(size.replace(",", "")) == len(
            content
        )
        assert how == "computed: shipped inside citeval-irm"
    runs = demo_page.tables["runs"].rows
    assert runs[0][0] == "bm25" and runs[0][3:] == ["48,900", "163", "300-300"]
    assert (
        runs[1][1]
        == f"{demo.titles.source} ({demo.settings.replace('title + abstract', 'titles only')})"
    )
    versions = demo_page.definitions["versions"]
    assert versions["citeval-irm"] == citeval_irm.__version__
    for package_name in ("numpy", "ir-measures", "pytrec-eval-terrier", "matplotlib"):
        assert versions[package_name] == metadata.version(package_name)


def test_the_markdown_version_shows_the_same_tables_and_images(demo, tmp_path) -> None:
    report = demo.report()
    text = report.write(tmp_path / "demo.md").read_text(encoding="utf-8")
    tables = markdown_tables(text)
    assert len(tables) == len(report.tables())
    for parsed, table in zip(tables, report.tables().values()):
        assert parsed.headers == list(table.headers)
        assert parsed.rows == [list(row) for row in table.rows]
    images = [line for line in text.splitlines() if line.startswith("![")]
    assert len(images) == 4
    for line in images:
        png_size(decode_data_uri(line[line.index("](") + 2 : -1]))
    assert "](http" not in text and "<img" not in text
    headings = [unescape_markdown(line[3:]) for line in text.splitlines() if line.startswith("## ")]
    assert headings == [s.title for s in report.sections]


# --------------------------------------------------------------------------- crafted runs

CRAFTED_QRELS = """\
q1 0 a 1
q2 0 x 1
q2 0 y 1
q3 0 m 1
q4 0 z 1
"""
# q1: gold a listed first, tied with b, which trec_eval puts first (tie_order); q2: a doc
# listed twice (duplicate_doc) and the first listed gold ranked below the other
# (first_listed_gold); q3 absent (missing_query); q9 only in the run (a warning: the recipe
# leaves queries without gold out, as trec_eval does)
CRAFTED_RUN = """\
q1 Q0 a 1 1.0 t
q1 Q0 b 2 1.0 t
q1 Q0 c 3 0.5 t
q2 Q0 w 1 0.9 t
q2 Q0 w 2 0.8 t
q2 Q0 y 3 0.7 t
q2 Q0 x 4 0.6 t
q4 Q0 z 1 0.3 t
q9 Q0 a 1 0.9 t
"""


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_crafted_runs_eval_report_shows_every_cause(tmp_path, capsys) -> None:
    run, qrels = tmp_path / "crafted.trec", tmp_path / "qrels.txt"
    run.write_text(CRAFTED_RUN)
    qrels.write_text(CRAFTED_QRELS)
    measures = "RR R@1 R@5 nDCG@5"
    argv = [
        "eval",
        run,
        "--qrels",
        qrels,
        "-m",
        measures,
        "--recipe",
        "goyal2026",
        "--duplicates",
        "keep_best",
        "--crosscheck",
        "--report",
        tmp_path / "crafted.html",
    ]
    code, _, err = run_cli(capsys, *argv)
    assert code == 0 and f"citeval: report written to {tmp_path / 'crafted.html'}" in err
    page = Page((tmp_path / "crafted.html").read_text(encoding="utf-8"))
    self_contained(page)
    assert page.section_order == [
        "setup",
        "scores",
        "ties",
        "crosscheck",
        "warnings",
        "environment",
    ]
    result = citeval_irm.evaluate(
        run, qrels, measures, options=citeval_irm.EvalOptions(duplicates="keep_best")
    )
    scores = page.tables["scores"]
    assert scores.headers == ["measure", "crafted"]
    assert all(
        close(v, result.aggregate[m], 4, 1.0) for m, v in scores.rows
    )  # no protocol: fractions
    report = citeval_irm.crosscheck(run, qrels, measures, recipe="goyal2026")
    causes = page.tables["causes:crafted"].rows
    assert [c[0] for c in causes] == list(report.causes["cause"])
    assert {
        "tie_order",
        "duplicate_doc",
        "first_listed_gold",
    } <= {c[0] for c in causes}
    # q3 has no ranking: goyal2026 loops over the test set, so it scores 0 both ways
    assert "missing_query" not in {c[0] for c in causes}
    for cells, row in zip(causes, report.causes.itertuples()):
        assert cells[1:4] == [str(row.differences), str(row.queries), ", ".join(row.examples)]
    assert report.percent
    differing = page.tables["differing:crafted"].rows
    assert len(differing) == min(10, len(report.differences))
    for cells, row in zip(differing, report.differences.itertuples()):
        assert cells[:2] == [row.query_id, row.measure] and cells[5] == row.causes.replace(
            ";", ", "
        )
        assert close(cells[2], row.trec_eval)  # in percent, as the recipe's paper prints
        assert cells[3] == "-" if np.isnan(row.recipe) else close(cells[3], row.recipe)
    setup = page.definitions["setup"]
    assert setup["qrels"] == f"{qrels} (sha256 {hashlib.sha256(qrels.read_bytes()).hexdigest()})"
    assert setup["duplicates in a run"] == "keep_best"
    runs = page.tables["runs"].rows
    assert runs == [
        ["crafted", str(run), hashlib.sha256(run.read_bytes()).hexdigest(), "9", "4", "1-3"]
    ]
    warnings = page.section_text("warnings")
    for warning in result.warnings:
        assert " ".join(f"crafted: {warning}".split()) in warnings
    ties = {(r[0], r[1]): r[2:] for r in page.tables["ties"].rows}
    # RR: q1 1/2 as trec_eval orders the tie (1 at best, 3/4 expected), q2 1/2, q3 0, q4 1
    assert ties[("RR", "crafted")][:4] == ["0.5000", "0.5000", "0.5625", "0.6250"]


def test_a_run_without_ties_has_no_tie_plot_and_one_run_no_differences(tmp_path) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 0.9, "c": 0.5}, "q2": {"c": 0.9, "b": 0.5}}
    report = citeval_irm.make_report({"plain": run}, qrels, "RR R@1")
    assert [s.key for s in report.sections] == [
        "setup",
        "scores",
        "ties",
        "warnings",
        "environment",
    ]
    assert list(report.figures()) == ["recall-curve", "first-rank"]
    page = Page(report.to_html())
    assert "No tie changes any value" in page.section_text("ties")
    assert page.tables["scores"].rows == [["RR", "0.7500"], ["R@1", "0.5000"]]
    assert page.tables["runs"].rows[0][2] == "in memory: no file"
    assert "None: nothing was ignored" in page.section_text("warnings")


def test_compare_report_of_three_runs_in_markdown(tmp_path, capsys) -> None:
    planted = planted_runs(tmp_path)
    out = tmp_path / "compare.md"
    runs = [planted[name] for name in ("base", "better", "null")]
    argv = [
        "compare",
        *runs,
        "--qrels",
        planted["qrels"],
        "-m",
        "RR R@10",
        "--baseline",
        "base",
        "--report",
        out,
    ]
    code, printed, _ = run_cli(capsys, *argv)
    assert code == 0
    comparison = citeval_irm.compare(
        dict(zip(("base", "better", "null"), runs)), planted["qrels"], "RR R@10", baseline="base"
    )
    text = out.read_text(encoding="utf-8")
    tables = markdown_tables(text)
    means = next(t for t in tables if t.headers[:2] == ["measure", "base (a)"])
    for measure, *cells in means.rows:
        for run, cell in zip(comparison.names, cells):
            assert close(cell.split()[0], comparison.means.at[measure, run], 4, 1.0)
    pairs = next(t for t in tables if "d_z" in t.headers)
    assert [r[1] for r in pairs.rows] == ["better - base", "null - base"] * 2
    assert all(close(r[2], d, 4, 1.0) for r, d in zip(pairs.rows, comparison.pairs["diff"]))
    assert "## Who wins where" in text and "## Protocol validation" not in text
    assert "p(tukey)" in text and "better - base" in printed
    assert text.count("](data:image/png;base64,") == 3  # no tied score: no tie plot
    assert "No tie changes any value: nothing to plot." in text


def test_compare_report_beside_the_published_table(demo, tmp_path, capsys) -> None:
    runs = {}
    for name, run in (("bm25", demo.run), ("titles", demo.titles)):
        runs[name] = citeval_irm.write_run(run, tmp_path / f"{name}.trec")
    out = tmp_path / "published.html"
    argv = [
        "compare",
        *runs.values(),
        "--dataset",
        DEMO,
        "--protocol",
        "goyal2026",
        "--published-dataset",
        "ACL-200",
        "--baseline",
        "bm25",
        "--report",
        out,
    ]
    assert run_cli(capsys, *argv)[0] == 0
    page = Page(out.read_text(encoding="utf-8"))
    self_contained(page)
    assert page.section_order[:6] == [
        "setup", "scores", "differences", "published", "popularity", "ties",
    ]  # fmt: skip
    comparison = citeval_irm.compare(runs, DEMO, protocol="goyal2026", baseline="bm25")
    side = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    table = page.tables["published"]
    assert table.headers == [
        "measure",
        "bm25",
        "titles",
        "BM25",
        "SciNCL",
        "HAtten",
        "SymTax",
        "PPM",
    ]
    for measure, *cells in table.rows:
        expected = [*side.yours.loc[measure], *side.figures.loc[measure]]
        assert all(close(c, v, 2, 1.0) for c, v in zip(cells, expected))
    text = page.section_text("published")
    assert "like for like: NO" in text and "dataset: DIFFERS" in text
    assert page.definitions["setup"]["dataset"] == DEMO


def test_citeval_demo_writes_its_report_and_says_where(demo_home, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "demo", "-k", "50")
    assert code == 0
    written = tmp_path / "demo-report.html"
    # a path too long for the line goes on a line of its own: wrapped, never split
    said = f"report (scores, checks and plots in one page): {written} done in "
    assert said in " ".join(out.split()) and f"{written}\ndone in " in out
    page = Page(written.read_text(encoding="utf-8"))
    assert page.section_order == DEMO_SECTIONS and page.definitions["setup"]["command"] == (
        "citeval demo -k 50"
    )
    assert "5. comparison with BM25 over titles only" in out
    code, out, _ = run_cli(capsys, "demo", "-k", "50", "--report", "sub.md")
    assert code == 0 and (tmp_path / "sub.md").read_text().startswith("# citeval demo")
    written.unlink()
    assert run_cli(capsys, "demo", "-k", "50", "--no-report")[0] == 0
    assert not written.exists()


def test_a_bad_report_path_fails_before_the_work(tmp_path, capsys) -> None:
    examples = Path(__file__).parents[1] / "examples"
    argv = ["eval", examples / "run.trec", "--qrels", examples / "qrels.txt", "-m", "RR"]
    code, out, err = run_cli(capsys, *argv, "--report", tmp_path / "report.pdf")
    assert code == 2 and out == "" and "a report is written as .html (or .htm) or .md" in err
    code, out, err = run_cli(capsys, "demo", "--report", tmp_path / "missing" / "r.html")
    assert code == 2 and out == "" and "there is no folder" in err


def test_eval_without_a_report_imports_nothing_heavy(tmp_path) -> None:
    """The report's libraries load only with --report: `citeval eval` stays quick."""
    examples = Path(__file__).parents[1] / "examples"
    code = (
        "import sys; from citeval_irm.cli import main; "
        f"main(['eval', {str(examples / 'run.trec')!r}, '--qrels', "
        f"{str(examples / 'qrels.txt')!r}, '--protocol', 'goyal2026']); "
        "heavy = {'pandas', 'matplotlib', 'scipy', 'ir_datasets'} & set(sys.modules); "
        "assert not heavy, heavy"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("empty_queries", "counted"),
    [("zero", "3 (trec_eval -c: every qrels query)"),
     ("skip", "2 (trec_eval -c: every qrels query with a relevant doc)")],
)  # fmt: skip
def test_the_setup_says_which_queries_are_averaged(empty_queries, counted) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    run = {"q1": {"a": 0.9, "c": 0.5}, "q2": {"c": 0.9, "b": 0.5}}
    with pytest.warns(citeval_irm.EvalWarning):
        report = citeval_irm.make_report(
            {"plain": run},
            qrels,
            "RR",
            options=citeval_irm.EvalOptions(empty_queries=empty_queries),
        )
    assert f"queries evaluated {counted}" in " ".join(
        Page(report.to_html()).section_text("setup").split()
    )
