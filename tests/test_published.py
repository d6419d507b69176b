"""The shipped published results, and runs beside them with the like-for-like checks."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from compare_reference import flat
from reference_data import data_file

import citeval_irm
from citeval_irm.checks.published import _data_dir, read_table
from citeval_irm.cli import main
from citeval_irm.papers.baseline import bm25_run

DEMO = "citeval/demo/test"


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- the tables


def test_importing_the_package_of_the_tables_is_light():
    """Its names come from their modules on first use: the package itself imports no pandas."""
    code = (
        "import sys, citeval_irm.checks.published; "
        "print(sorted(m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    import citeval_irm.checks.published as package

    assert package.published is citeval_irm.published and package.read_table is read_table
    assert set(package._NAMES) <= set(dir(package))


def test_goyal2026_round_trips_from_the_transcribed_csv():
    source = data_file("reported", "goyal2026_public_profile_matters.csv")
    with open(source, newline="", encoding="utf-8") as f:
        renamed = {"value_percent": "value"}
        expected = [{renamed.get(k, k): v for k, v in row.items()} for row in csv.DictReader(f)]
    frame = citeval_irm.published(paper="goyal2026").to_frame()
    shipped = frame[["dataset", "setting", "stage", "system", "measure", "value", "source"]]
    rows = shipped.assign(value=shipped["value"].map("{:.2f}".format)).to_dict(orient="records")
    assert rows == expected
    assert (frame["split"] == "test").all() and (frame["paper"] == "goyal2026").all()


def test_to_csv_gives_the_shipped_file_back():
    path = _data_dir() / "goyal2026.csv"
    assert citeval_irm.published().to_csv("goyal2026") == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("dataset,setting,stage,system,measure,value\n", "columns must be"),
        ("dataset,setting,stage,system,measure,value,source\nA,i,e,S,RR,x1,s\n", ":2: value 'x1'"),
        (
            "dataset,setting,stage,system,measure,value,source\nA,i,e,S,MRRR,1,s\n",
            "unknown measure",
        ),
        (
            "dataset,setting,stage,system,measure,value,source\nA,i,e,S,RR,1,s\nA,i,e,S,RR,2,s\n",
            ":3: repeats a",
        ),
    ],
)
def test_a_bad_table_is_an_error_naming_the_line(write, text, problem):
    with pytest.raises(citeval_irm.InputError, match=problem):
        read_table(write("paper.csv", text))


def test_listing_and_one_datasets_figures(capsys):
    listing = str(citeval_irm.published())
    assert "end-to-end (inductive; all 5 datasets): BM25, SciNCL, HAtten, SymTax, PPM" in listing
    assert "ACL-200 = citeval/acl-200" in listing
    acl = citeval_irm.published("citeval/acl-200/test", stage="end-to-end")
    assert set(acl.frame["dataset"]) == {"ACL-200"}
    figures = acl.figures("goyal2026", "ACL-200", "end-to-end")
    assert figures.at["PPM", "RR"] == 50.31 and list(figures.index)[0] == "BM25"
    assert "  PPM     50.31  64.10" in str(acl)
    with pytest.raises(citeval_irm.InputError, match="shipped: ACL-200 \\(citeval/acl-200\\)"):
        citeval_irm.published("citeval/demo/test")
    code, out, _ = run_cli(capsys, "published")
    assert code == 0 and out == listing
    code, out, _ = run_cli(capsys, "published", "--dataset", "RefSeer", "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and set(table["dataset"]) == {"RefSeer"} and len(table) == 56


# --------------------------------------------------------------------------- runs beside them


@pytest.fixture(scope="module")
def demo_runs(demo_home, tmp_path_factory):
    folder = tmp_path_factory.mktemp("published_runs")
    runs = {
        "bm25": bm25_run(DEMO, 300, temporal=True),
        "titles": bm25_run(DEMO, 300, temporal=True, fields=("title",)),
        "future": bm25_run(DEMO, 300, temporal=False),
        "twenty": bm25_run(DEMO, 20, temporal=True),
        "short": bm25_run(DEMO, 10, temporal=True),
    }
    return {name: citeval_irm.write_run(run, folder / f"{name}.trec") for name, run in runs.items()}


def checks_of(comparison) -> dict[tuple[str, str | None], str]:
    return {(c.aspect, c.run): c.status for c in comparison.published.checks}


def test_a_run_beside_another_datasets_table_is_flagged(demo_runs):
    runs = {name: demo_runs[name] for name in ("bm25", "titles")}
    comparison = citeval_irm.compare(runs, DEMO, protocol="goyal2026", baseline="bm25")
    comparison.published = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    side = comparison.published
    checks = checks_of(comparison)
    assert checks[("dataset", None)] == "differs" and checks[("split", None)] == "same"
    assert checks[("setting", "bm25")] == checks[("validation", "titles")] == "same"
    assert checks[("depth", "bm25")] == "same" and not side.like_for_like
    assert list(side.figures.columns) == ["BM25", "SciNCL", "HAtten", "SymTax", "PPM"]
    ours = comparison.results["bm25"].aggregate["RR"] * 100
    assert side.differences().at[("RR", "bm25"), "PPM"] == pytest.approx(ours - 50.31)
    text = flat(str(comparison))
    assert (
        "like for like: NO" in text and "dataset: DIFFERS: the run is on citeval/demo/test" in text
    )
    assert "note: not in the table: R@50 R@300 nDCG@50 nDCG@300" in text
    tidy = comparison.published.to_frame()
    assert len(tidy) == 7 * 2 * 5
    latex = comparison.format("latex")
    assert "PPM (published) & 50.31 & 64.10 & 73.08 & 80.20 & -- & -- &" in latex


@pytest.mark.slow
def test_later_papers_short_rankings_and_the_query_paper_are_named(demo_runs, tmp_path):
    frame = citeval_irm.read_run(demo_runs["short"]).frame
    query = frame["query_id"].iloc[0]
    own = pd.DataFrame({"query_id": [query], "doc_id": [query.split("_")[0]], "score": [-1.0]})
    with_own = citeval_irm.write_run(pd.concat([frame, own]), tmp_path / "own.trec")
    runs = {name: demo_runs[name] for name in ("future", "short", "twenty")} | {"own": with_own}
    comparison = citeval_irm.compare(runs, DEMO, protocol="goyal2026")
    comparison.published = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    checks = checks_of(comparison)
    assert checks[("setting", "future")] == "differs"
    assert checks[("depth", "short")] == "differs" and checks[("depth", "future")] == "same"
    assert checks[("depth", "twenty")] == "same"  # Table 3 stops at @20: 20 docs are enough
    assert checks[("validation", "own")] == "differs"
    text = flat(comparison.published.format())
    assert "candidates published after their query paper" in text
    assert "the shortest ranking has 10 docs, below the table's deepest cut-off 20 (R@20)" in text
    assert "every ranking has at least 20 docs (R@20)" in text
    assert "validation (own): DIFFERS: failed: query_paper (1 query)" in text


def test_an_evaluation_on_the_tables_dataset_checks_dataset_and_split(write):
    qrels = write("qrels.txt", "P15-1001_N04-1019_0 0 N04-1019 1\n")
    run = write("run.trec", "P15-1001_N04-1019_0 Q0 N04-1019 1 1.0 x\n")
    result = citeval_irm.evaluate(run, qrels, protocol="goyal2026")
    comparison = citeval_irm.compare({"mine": result}, "citeval/acl-200/test", protocol="goyal2026")
    comparison.published = citeval_irm.compare_published(comparison, {"mine": result})
    checks = checks_of(comparison)
    assert checks[("dataset", None)] == checks[("split", None)] == "same"
    assert checks[("setting", "mine")] == checks[("depth", "mine")] == "unchecked"
    assert "like for like: not established" in str(comparison)
    val = citeval_irm.compare({"mine": result}, "citeval/acl-200/val")
    val.published = citeval_irm.compare_published(val)
    assert checks_of(val)[("split", None)] == "differs"


def test_cli_published_beside_the_demo(capsys, demo_runs):
    args = ["compare", demo_runs["bm25"], "--dataset", DEMO, "--protocol", "goyal2026"]
    code, _, err = run_cli(capsys, *args, "--published")
    assert code == 2 and "goyal2026 has no table for citeval/demo/test" in err
    code, out, _ = run_cli(capsys, *args, "--published-dataset", "ACL-200")
    assert code == 0 and "compare 1 run (bm25)" in out and "one run: nothing to test" in out
    assert "beside the published results: Goyal et al. 2026, arXiv:2603.17361 Table 3" in flat(out)


def readme_output(command: str, guide: str = "comparing") -> str:
    """What the comparing guide shows ``command`` printing: the lines after it, up to the end
    of the fenced block it is in, or of the next block when it stands in a bash block of its
    own."""
    page = Path(__file__).parent.parent / "docs" / "guides" / f"{guide}.md"
    text = page.read_text(encoding="utf-8")
    after = text[text.index(command) + len(command) :]
    after = after[after.index("\n") + 1 :]
    if after.startswith("```"):  # the end of the bash block: the output is the next block
        after = after[after.index("\n") + 1 :]  # past the bash block's closing fence
        after = after[after.index("\n") + 1 :]  # past the output block's opening fence
    return after[: after.index("```")]


def test_the_readme_shows_what_compare_prints(capsys, demo_runs, tmp_path, monkeypatch):
    """The guide's two examples, run on the same demo runs: the output is exactly as shown."""
    monkeypatch.chdir(demo_runs["bm25"].parent)
    command = "citeval compare bm25.trec titles.trec --dataset citeval/demo/test --protocol"
    code, out, _ = run_cli(capsys, *command.split()[1:], "goyal2026", "--baseline", "bm25")
    assert code == 0 and out == readme_output(command + " goyal2026 --baseline bm25")
    command = (
        "compare bm25.trec --dataset citeval/demo/test --protocol goyal2026 --published-dataset "
        "ACL-200"
    )
    code, out, _ = run_cli(capsys, *command.split())
    shown = readme_output("$ citeval " + command)
    published = shown[shown.index("beside the published results") :]
    assert code == 0 and out.endswith(published)


# --------------------------------------------------------------------------- provenance

TRANSCRIBED = (
    "transcribed from arXiv:2603.17361 (version unknown: v1 of 2026-03-18 or v2 of "
    "2026-04-14), not verified by the package"
)
MINE = (
    "dataset,setting,stage,system,measure,value,source\n"
    "citeval/demo/test,inductive,end-to-end,Mine,RR,0.3003,my run\n"
    "citeval/demo/test,inductive,end-to-end,Mine,R@10,0.5215,my run\n"
    "citeval/demo/test,inductive,end-to-end,Other,RR,0.1000,their paper\n"
)


def test_every_shipped_table_says_where_its_figures_come_from(tmp_path):
    """No number from outside the package is presented as verified: a sidecar may say
    verified only naming the test that checks it, and that test must exist."""
    from citeval_irm.checks.published.tables import _read_paper, shipped_tables

    papers, _ = shipped_tables()
    tests = Path(__file__).parent
    for paper in papers.values():
        if "checked against it by" in paper.provenance:
            test_file = paper.provenance.rsplit(" by ", 1)[1].split("::")[0]
            assert (tests.parent / test_file).is_file(), paper.provenance
        else:
            assert paper.provenance.endswith("not verified by the package")
    assert papers["goyal2026"].provenance == TRANSCRIBED
    sidecar = json.loads((_data_dir() / "goyal2026.json").read_text(encoding="utf-8"))
    sidecar["provenance"]["verified"] = True
    claimed = tmp_path / "claimed.json"
    claimed.write_text(json.dumps(sidecar), encoding="utf-8")
    with pytest.raises(citeval_irm.InputError, match="without naming the test"):
        _read_paper(claimed)


@pytest.mark.slow
def test_the_shipped_figures_are_labelled_in_every_output(capsys, demo_runs, tmp_path):
    listing = citeval_irm.published()
    assert TRANSCRIBED in str(listing)
    assert TRANSCRIBED in flat(str(citeval_irm.published("ACL-200")))
    frame = pd.read_csv(io.StringIO(listing.format("csv")))
    assert set(frame["provenance"]) == {TRANSCRIBED}
    assert json.loads(listing.format("json"))["papers"]["goyal2026"]["provenance"] == TRANSCRIBED
    bm25 = {"bm25": demo_runs["bm25"]}
    comparison = citeval_irm.compare(bm25, DEMO, protocol="goyal2026")
    comparison.published = citeval_irm.compare_published(comparison, bm25, dataset="ACL-200")
    assert TRANSCRIBED in flat(str(comparison))
    assert json.loads(comparison.format("json"))["published"]["provenance"] == TRANSCRIBED
    assert TRANSCRIBED in flat(comparison.format("latex"))
    report = tmp_path / "report.md"
    args = ["compare", demo_runs["bm25"], "--dataset", DEMO, "--protocol", "goyal2026"]
    code, out, _ = run_cli(capsys, *args, "--published-dataset", "ACL-200", "--report", report)
    assert code == 0 and TRANSCRIBED in flat(out)
    assert TRANSCRIBED in flat(report.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_users_table_from_a_file_or_a_frame(capsys, demo_runs, write):
    path = write("mine.csv", MINE)
    own = f"from {path} (given by the user)"
    shown = citeval_irm.published(paper=str(path))
    assert own in str(shown) and "transcribed" not in str(shown)
    assert set(shown.frame["paper"]) == {str(path)} and shown.papers[str(path)].split == "test"
    assert shown.figures(str(path), "citeval/demo/test", "end-to-end").at["Mine", "RR"] == 0.3003
    assert "values read as fractions" in str(shown)
    bm25 = {"bm25": demo_runs["bm25"]}
    comparison = citeval_irm.compare(bm25, DEMO, protocol="goyal2026")
    comparison.published = citeval_irm.compare_published(comparison, bm25, paper=path)
    side = comparison.published
    assert side.paper.provenance == own and list(side.figures.columns) == ["Mine", "Other"]
    checks = checks_of(comparison)
    assert checks[("dataset", None)] == checks[("split", None)] == "same"
    assert checks[("scoring", "bm25")] == "unchecked"  # no script is known for a user's table
    ours = comparison.results["bm25"].aggregate["RR"]
    assert side.differences().at[("RR", "bm25"), "Mine"] == pytest.approx(ours - 0.3003)
    frame = pd.read_csv(path)
    by_frame = citeval_irm.compare(bm25, DEMO, protocol="goyal2026")
    by_frame.published = citeval_irm.compare_published(by_frame, bm25, paper=frame)
    assert by_frame.published.paper.provenance == "from a DataFrame (given by the user)"
    assert by_frame.published.figures.equals(side.figures)
    args = ["compare", demo_runs["bm25"], "--dataset", DEMO, "--protocol", "goyal2026"]
    code, out, _ = run_cli(capsys, *args, "--published", path)
    assert code == 0 and own in flat(out) and "transcribed" not in out
    code, out, _ = run_cli(capsys, "published", "--paper", path, "--format", "csv")
    assert code == 0 and set(pd.read_csv(io.StringIO(out))["provenance"]) == {own}
    code, _, err = run_cli(capsys, *args, "--published", path, "--paper", "goyal2026")
    assert code == 2 and "not both" in err


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (MINE.replace("0.3003", "high"), ":2: value 'high' is not a number"),
        (MINE.replace(",source", ",where"), "columns must be"),
        (MINE + MINE.splitlines()[1] + "\n", ":5: repeats a"),
    ],
)
def test_a_bad_users_table_is_an_error_naming_the_file(capsys, demo_runs, write, text, problem):
    path = write("mine.csv", text)
    args = ["compare", demo_runs["bm25"], "--dataset", DEMO, "-m", "RR", "--published", path]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and err.startswith(f"citeval: error: {path}") and problem in err
    assert out == ""
    absent = path.parent / "absent.csv"
    code, _, err = run_cli(capsys, "published", "--paper", absent)
    assert code == 2 and f"{absent}: no such file" in err
