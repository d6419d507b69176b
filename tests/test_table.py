"""citeval table / results_table: a manifest of 3 systems x 2 datasets (the demo and a
GENERATED ACL-200-layout corpus with a training split), with a missing and a violating run,
through the API and the CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from datasets_fixtures import write_popularity_corpus, write_table_manifest

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.comparison import stats

DEMO = "citeval/demo/test"
ACL = "citeval/acl-200/test"
FAST = {"permutations": 500, "bootstrap": 200}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    """bm25 and future on both datasets, titles on the demo only (missing on ACL-200);
    future ranks later papers on the demo (a violating run)."""
    root = tmp_path_factory.mktemp("table")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(root / "home"))
        patch.delenv("CITEVAL_DEMO_DIR", raising=False)
        patch.setenv("CITEVAL_ACL_200_DIR", str(root / "acl-200"))
        write_popularity_corpus(root / "acl-200")
        runs = {}
        for dataset in (DEMO, ACL):
            runs["bm25", dataset] = citeval_irm.bm25_run(dataset, 300)
            if dataset == DEMO:
                runs["titles", dataset] = citeval_irm.bm25_run(dataset, 300, fields=("title",))
            runs["future", dataset] = citeval_irm.bm25_run(dataset, 300, temporal=dataset != DEMO)
        path = write_table_manifest(root / "paper", runs)
        yield path


@pytest.fixture(scope="module")
def table(manifest):
    return citeval_irm.results_table(
        manifest,
        baseline="bm25",
        paper="goyal2026",
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )


def entries(manifest: Path) -> list[tuple[str, str, Path]]:
    rows = pd.read_csv(manifest)
    return [(r.system, r.dataset, manifest.parent / r.run) for r in rows.itertuples()]


def test_every_cell_equals_citeval_eval_of_its_run(manifest, table, capsys):
    for system, dataset, run in entries(manifest):
        args = ["eval", str(run), "--dataset", dataset, "--protocol", "goyal2026"]
        code = main([*args, "--format", "json", "-q"])
        printed = json.loads(capsys.readouterr().out)
        assert code == 0
        scale = 100.0 if printed["percent"] else 1.0
        for measure, value in printed["aggregate"].items():
            assert table.value(system, dataset, measure) * scale == pytest.approx(value, abs=1e-9)
    assert table.measures[DEMO] == [str(m) for m in citeval_irm.PROTOCOLS["goyal2026"].measures]


def test_a_missing_run_is_missing_not_zero(table):
    assert table.value("titles", ACL, "RR") is None
    cells = table.to_frame().set_index(["system", "dataset", "measure"])
    assert cells.loc[("titles", ACL, "RR"), "status"] == "missing"
    rows = [line for line in str(table).splitlines() if line.strip().startswith("titles")]
    cells = [cell for row in rows for cell in row.split()[1:]]  # in every block of columns
    assert cells.count("-") == len(table.measures[ACL]) and "0.00" not in cells
    payload = json.loads(table.format("json"))
    cell = next(c for c in payload["cells"] if (c["system"], c["dataset"]) == ("titles", ACL))
    assert cell["value"] is None and cell["status"] == "missing"


def test_a_violating_run_is_marked_never_compared_nor_bold(table):
    cells = table.to_frame().set_index(["system", "dataset", "measure"])
    assert cells.loc[("future", DEMO, "RR"), "status"] == "violation"
    assert pd.isna(cells.loc[("future", DEMO, "RR"), "p"])  # not tested
    assert cells.loc[("future", ACL, "RR"), "status"] == "ok"
    assert not pd.isna(cells.loc[("future", ACL, "RR"), "p"])
    text = str(table)
    assert "future on citeval/demo/test: validation against citeval/demo/test: VIOLATIONS" in (
        " ".join(text.split())
    )
    future = next(line for line in text.splitlines() if line.strip().startswith("future"))
    assert future.split()[1].endswith("†")
    assert (
        "**"
        not in " ".join(
            line for line in table.format("markdown").splitlines() if line.startswith("| future")
        ).split("|", 2)[2][:60]
    )


def test_tests_are_compares_corrected_over_the_whole_table(manifest, table):
    cells = table.to_frame()
    tested = cells[cells["p"].notna()]
    # titles on the demo (11 measures) and future on ACL-200 (11): bm25 is the baseline
    assert set(zip(tested["system"], tested["dataset"])) == {("titles", DEMO), ("future", ACL)}
    assert tested["p_adj"].tolist() == pytest.approx(
        list(stats.adjust(tested["p"].to_numpy(), "holm"))
    )
    # 22 Holm-corrected tests need B = 879 (floor 22 / (B + 1) <= alpha / 2): raised from
    # 500 for the whole table, as compare raises it for its family
    assert (table.settings.permutations_requested, table.settings.permutations) == (500, 879)
    runs = {s: r for s, d, r in entries(manifest) if d == DEMO and s != "future"}
    alone = citeval_irm.compare(
        runs,
        DEMO,
        protocol="goyal2026",
        baseline="bm25",
        queries="all",
        tukey=False,
        statistics=citeval_irm.StatisticsOptions(
            **{**FAST, "permutations": 879}, correction="none"
        ),
    )
    own = alone.pairs.set_index("measure")
    for row in tested[tested["dataset"] == DEMO].itertuples():
        assert row.p == pytest.approx(own.at[row.measure, "p_randomisation"])
        assert row.diff == pytest.approx(own.at[row.measure, "diff"])
    assert f"holm correction over all {len(tested)} tests of the table" in " ".join(
        str(table).split()
    )


def test_published_rows_are_marked_with_a_verdict_per_dataset(table):
    assert table.published_systems == ["BM25", "SciNCL", "HAtten", "SymTax", "PPM"]
    cells = table.to_frame().set_index(["system", "dataset", "measure"])
    assert cells.loc[("PPM", ACL, "RR"), "value"] == pytest.approx(0.5031)
    assert ("PPM", DEMO, "RR") not in cells.index  # no table for the demo
    notes = " ".join(table.notes)
    assert "published (goyal2026): no table for citeval/demo/test" in notes
    assert "published rows on citeval/acl-200/test:" in notes
    assert "like for like: yes, every aspect checked" in notes
    assert (
        "transcribed from arXiv:2603.17361 (version unknown: v1 of 2026-03-18 or v2 of "
        "2026-04-14), not verified" in notes
    )
    latex = table.format("latex")
    ppm = next(line for line in latex.splitlines() if line.startswith("PPM (published)"))
    assert "\\textit{50.31}" in ppm and "\\textbf" not in ppm


def test_latex_is_booktabs_and_compiles(table, tmp_path):
    latex = table.format("latex")
    lines = latex.splitlines()
    assert lines.count("\\toprule") == 1 and lines.count("\\bottomrule") == 1
    assert "\\multicolumn{11}{c}{citeval/demo/test}" in latex
    assert "\\cmidrule(lr){2-12} \\cmidrule(lr){13-23}" in latex
    body = [line for line in lines if line.endswith("\\\\")]
    assert {line.count(" & ") for line in body[1:]} == {22}  # 1 + 2 x 11 columns
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex here: checked structurally only")
    document = tmp_path / "table.tex"
    document.write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{graphicx}\n\\begin{document}\n\\resizebox{\\textwidth}{!}{%\n"
        + latex.replace("\\begin{table}\n\\centering\n", "").split("\\caption")[0]
        + "}\n"
        + latex[latex.index("\\caption") :]
        .replace("\\end{table}", "")
        .replace("\\caption", "\\par\\noindent\\textbf{Caption.} ")
        + "\\end{document}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", document.name],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 0


def small_manifest(manifest: Path, folder: Path, delimiter: str = ",") -> Path:
    """The demo's bm25 and titles rows only, with absolute run paths."""
    rows = pd.read_csv(manifest)
    rows = rows[(rows["dataset"] == DEMO) & (rows["system"] != "future")].copy()
    rows["run"] = [str(manifest.parent / r) for r in rows["run"]]
    path = folder / ("manifest.tsv" if delimiter == "\t" else "manifest.csv")
    rows.to_csv(path, sep=delimiter, index=False)
    return path


@pytest.mark.slow
def test_processes_and_the_dask_engine_give_the_same_table(manifest, tmp_path):
    small = small_manifest(manifest, tmp_path, "\t")  # a TSV manifest
    found = citeval_irm.results_table(
        small, measures="RR", baseline="bm25", statistics=citeval_irm.StatisticsOptions(**FAST)
    )
    bm25 = pd.read_csv(small, sep="\t")["run"][0]
    assert found.value("bm25", DEMO, "RR") == pytest.approx(
        citeval_irm.evaluate(
            bm25, DEMO, "RR", execution=citeval_irm.ExecutionOptions(progress=False)
        ).aggregate["RR"]
    )
    parallel = citeval_irm.results_table(
        small,
        measures="RR",
        baseline="bm25",
        execution=citeval_irm.ExecutionOptions(jobs=2),
        statistics=citeval_irm.StatisticsOptions(**FAST),
    )
    pd.testing.assert_frame_equal(parallel.to_frame(), found.to_frame())
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = citeval_irm.results_table(
            small,
            measures="RR",
            baseline="bm25",
            execution=citeval_irm.ExecutionOptions(engine="dask", scheduler=client),
            statistics=citeval_irm.StatisticsOptions(**FAST),
        )
    pd.testing.assert_frame_equal(on_dask.to_frame(), found.to_frame())


@pytest.mark.slow
def test_the_cli_prints_every_format_and_writes_the_report(manifest, capsys, tmp_path):
    report = tmp_path / "table.html"
    args = ["table", str(manifest), "--baseline", "bm25", "-m", "RR", "-q", "--report"]
    assert main([*args, str(report), "--permutations", "200", "--bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["system", DEMO, ACL]
    html = report.read_text(encoding="utf-8")
    assert 'data-key="results-table"' in html and html.count("<img") >= 2
    small = small_manifest(manifest, tmp_path)
    for fmt in ("csv", "markdown", "json", "latex"):
        assert main(["table", str(small), "-m", "RR R@10", "-q", "--format", fmt]) == 0
        printed = capsys.readouterr().out
        if fmt == "csv":
            frame = pd.read_csv(pd.io.common.StringIO(printed))
            assert len(frame) == 2 * 2 and set(frame["status"]) == {"ok"}
        if fmt == "json":
            assert json.loads(printed)["systems"] == ["bm25", "titles"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("system,dataset\nbm25,citeval/demo/test\n", "manifest.csv:1: missing column(s) run"),
        ("system,dataset,run,x\n", "manifest.csv:1: unknown column(s) x"),
        ("system,dataset,run\nbm25,citeval/demo/tset,a.trec\n", "manifest.csv:2: unknown dataset"),
        ("system,dataset,run\n\nbm25,citeval/demo/test,nope.trec\n", "manifest.csv:3: run file"),
        ("system,dataset,run\nbm25,citeval/demo/test\n", "manifest.csv:2: 2 fields"),
        ("system,dataset,run\nbm25,,a.trec\n", "manifest.csv:2: empty dataset"),
        (
            "system,dataset,run\nbm25,citeval/demo/test,a.trec\nbm25,citeval/demo/test,a.trec\n",
            "manifest.csv:3: bm25 on citeval/demo/test is listed twice (first on line 2)",
        ),
    ],
)
def test_bad_manifests_name_the_line(manifest, tmp_path, capsys, text, problem):
    (tmp_path / "a.trec").write_text("q 0 d 1 1.0 x\n", encoding="utf-8")
    path = tmp_path / "manifest.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["table", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and problem in err and "Traceback" not in err


def test_the_readme_shows_what_table_and_breakdown_print(manifest, capsys, tmp_path):
    from test_published import readme_output

    rows = pd.read_csv(manifest)
    demo = rows[rows["dataset"] == DEMO].copy()
    demo["run"] = [str(manifest.parent / r) for r in demo["run"]]
    path = tmp_path / "manifest.csv"
    demo.to_csv(path, index=False)
    command = 'citeval table manifest.csv --baseline bm25 -m "RR R@10 nDCG@10"'
    assert main(["table", str(path), "--baseline", "bm25", "-m", "RR R@10 nDCG@10", "-q"]) == 0
    assert capsys.readouterr().out == readme_output(command, "tables")
    runs = {r.system: r.run for r in demo.itertuples() if r.system != "future"}
    command = "citeval breakdown bm25.trec titles.trec --dataset citeval/demo/test --by popularity"
    named = [f"{name}={run}" for name, run in runs.items()]
    assert main(["breakdown", *named, "--dataset", DEMO, "--by", "popularity", "-q"]) == 0
    assert capsys.readouterr().out == readme_output(command, "tables")


def test_a_users_own_published_table(manifest, capsys, tmp_path):
    rows = pd.read_csv(manifest)
    demo = rows[(rows["dataset"] == DEMO) & (rows["system"] == "bm25")].copy()
    demo["run"] = [str(manifest.parent / r) for r in demo["run"]]
    path = tmp_path / "manifest.csv"
    demo.to_csv(path, index=False)
    mine = tmp_path / "mine.csv"
    mine.write_text(
        "dataset,setting,stage,system,measure,value,source\n"
        f"{DEMO},inductive,end-to-end,Theirs,RR,25.00,their Table 1\n",
        encoding="utf-8",
    )
    assert main(["table", str(path), "-m", "RR", "--published", str(mine), "-q"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Theirs (published)" in out and "25.00" in out
    assert f"figures from {mine} (given by the user)" in out and "transcribed" not in out


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_an_impossible_published_row_is_marked_in_the_table(manifest, capsys, tmp_path, fmt):
    """A published row no rank distribution gives as printed (R@20 - R@10 = 7.26 points,
    but nDCG@20 - nDCG@10 = 1.01) carries the mark § in the table and its reason in the
    legend, in every format; a possible one does not."""
    rows = pd.read_csv(manifest)
    demo = rows[(rows["dataset"] == DEMO) & (rows["system"] == "bm25")].copy()
    demo["run"] = [str(manifest.parent / r) for r in demo["run"]]
    path = tmp_path / "manifest.csv"
    demo.to_csv(path, index=False)
    planted = {"R@10": 45.06, "R@20": 52.32, "nDCG@10": 31.36, "nDCG@20": 32.37}
    fine = {"R@10": 45.06, "R@20": 52.32, "nDCG@10": 31.36, "nDCG@20": 33.37}
    lines = ["dataset,setting,stage,system,measure,value,source"]
    for system, values in (("Planted", planted), ("Fine", fine)):
        lines += [f"{DEMO},inductive,end-to-end,{system},{m},{v:.2f},t" for m, v in values.items()]
    mine = tmp_path / "mine.csv"
    mine.write_text("\n".join(lines) + "\n", encoding="utf-8")
    measures = "R@10 R@20 nDCG@10 nDCG@20"
    assert main(["table", str(path), "-m", measures, "--published", str(mine), "--format", fmt,
                 "-q"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    out = out if fmt == "latex" else out.replace("\\.", ".")  # Markdown escapes "45\.06§"
    mark = r"$^{\S}$" if fmt == "latex" else "§"
    planted_line = next(line for line in out.splitlines() if "Planted" in line and "45.06" in line)
    fine_line = next(line for line in out.splitlines() if "Fine" in line and "45.06" in line)
    assert mark in planted_line and mark not in fine_line
    assert "the published row of Planted on" in " ".join(out.split())


def test_write_report_writes_the_page_and_report_is_deprecated(table, tmp_path):
    """issue 43: ``write_report(path)``, the one verb for writing a report; ``report()``
    warns naming it and gives the same page."""
    path = table.write_report(tmp_path / "t.md", command="citeval table", decimals=2)
    with pytest.warns(DeprecationWarning, match=r"ResultsTable\.write_report\(path"):
        old = table.report("citeval table", decimals=2)
    assert path.read_text(encoding="utf-8") == old.to_markdown()
