"""One hostile table through every output format of every result type: each stays inert.

Run names, query ids, doc ids and file names hold every character that means something in
one of the formats (CSV, Markdown, LaTeX, HTML, JSON, a terminal, trec_eval lines). Each
format is checked by a real parser: CSV read back by :mod:`csv`, JSON by a strict parser,
Markdown by markdown-it (CommonMark + tables), HTML by :mod:`html.parser`, LaTeX by a scan
for anything we do not emit and, when a TeX is installed, by pdflatex itself. Structure is
checked against the same table with plain names: the same blocks, cells, tags and lines.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from markdown_it import MarkdownIt

import citeval_irm
from citeval_irm import cli
from citeval_irm.base.errors import InputError
from citeval_irm.printing.escaping import (
    csv_cell,
    csv_frame,
    is_number,
    json_dumps,
    latex_text,
    markdown_code,
    markdown_code_block,
    markdown_prose,
    markdown_text,
    plot_text,
    visible,
)

SPECIALS = (
    ', " \n \r \t = + - @ < > | & % $ # _ { } ~ ^ \\ [ ] ( ) * ` ! \\input{x} </script> '
    "\x1b[31m é ü \u2028"
)
"""Every special character of every format (and a terminal colour code, a Unicode line
separator, non-ASCII text)."""

FORMULA = ("=", "+", "-", "@", "\t", "\r")


def hostile(prefix: str) -> str:
    return prefix + SPECIALS


# run names start with what a spreadsheet would run, a Markdown heading, a list marker
# and one holds $ signs matplotlib would typeset as (broken) math
RUN_PREFIXES = ("=cmd|", "# @SUM(1)", "- +run $\\bad{$x$")
QUERY_PREFIXES = ("+q1", "-q2", "# q3\n", "=HYPERLINK(q4)", "@q5")
NUMERIC_QUERY = "-5"  # a number: never neutralised
BENIGN_RUNS = ("alpha", "beta", "gamma")


def query_ids(benign: bool) -> list[str]:
    if benign:
        return [f"q{i}" for i in range(len(QUERY_PREFIXES) + 1)]
    return [hostile(p) for p in QUERY_PREFIXES] + [NUMERIC_QUERY]


def doc_id(query: int, rank: int, benign: bool) -> str:
    return f"d{query}_{rank}" if benign else f"={rank}+d{query}{SPECIALS}"


def file_safe(text: str) -> str:
    """A file name holding as much of ``text`` as a POSIX file name can (no / or NUL)."""
    return text.replace("/", "_").replace("\x00", "_")


def write_parquet(path: Path, columns: dict) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def make_inputs(folder: Path, benign: bool):
    """Qrels and three runs as Parquet files whose names are the hostile names (so run
    names and file names are hostile), over hostile query and doc ids."""
    folder.mkdir(parents=True, exist_ok=True)
    queries = query_ids(benign)
    rng = np.random.default_rng(7)
    q_col, d_col, rel = [], [], []
    for i, q in enumerate(queries):
        for rank in range(3):
            q_col.append(q)
            d_col.append(doc_id(i, rank, benign))
            rel.append(1 if rank == i % 3 else 0)
    qrels_name = "qrels" if benign else file_safe(hostile("qrels =x "))
    qrels = write_parquet(
        folder / f"{qrels_name}.parquet",
        {"query_id": q_col, "doc_id": d_col, "relevance": np.array(rel, dtype=np.int64)},
    )
    runs = []
    names = BENIGN_RUNS if benign else [hostile(p) for p in RUN_PREFIXES]
    for r, name in enumerate(names):
        rq, rd, rs = [], [], []
        for i, q in enumerate(queries):
            for rank in range(4):
                rq.append(q)
                rd.append(doc_id(i, rank, benign))
                rs.append(float(rng.random() + (r if rank == i % 3 else 0)))
        path = folder / f"{file_safe(name)}.parquet"
        runs.append(write_parquet(path, {"query_id": rq, "doc_id": rd, "score": rs}))
    return qrels, runs


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The hostile and the benign version of the same evaluation and comparison."""
    out = {}
    for benign in (False, True):
        folder = tmp_path_factory.mktemp("benign" if benign else "hostile")
        qrels, runs = make_inputs(folder, benign)
        comparison = citeval_irm.compare(
            runs,
            qrels,
            "RR R@2 NumRet",
            tukey=True,
            statistics=citeval_irm.StatisticsOptions(permutations=200, bootstrap=200),
        )
        result = citeval_irm.evaluate(runs[0], qrels, "RR R@2 NumRet NumQ")
        out[benign] = {"qrels": qrels, "runs": runs, "comparison": comparison, "result": result}
    return out


def run_names(benign: bool) -> list[str]:
    """The names compare gives the runs: their file names without ``.parquet``."""
    return list(BENIGN_RUNS) if benign else [file_safe(hostile(p)) for p in RUN_PREFIXES]


def text_cells(benign: bool) -> list[str]:
    """Every user-controlled text of the table."""
    return run_names(benign) + query_ids(benign)


# --------------------------------------------------------------------------- checkers


def neutralised(cell: str) -> str:
    """What the CSV rule makes of a text cell (a leading ' before a formula, never a number)."""
    return "'" + cell if cell.startswith(FORMULA) and not is_number(cell) else cell


def csv_rows(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len({len(r) for r in rows}) == 1, "a row with another number of cells"
    return rows


def strict_json(text: str):
    def refuse(constant):
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def markdown_tokens(text: str) -> list:
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    flat = []
    for token in tokens:
        flat.append(token)
        flat.extend(token.children or [])
    return flat


def markdown_shape(text: str) -> Counter:
    """What a Markdown document is made of: each kind of token, and the cells of each row
    of each table (a cell too many or too few would show)."""
    tokens = markdown_tokens(text)
    shape = Counter(t.type for t in tokens if t.type not in ("text", "softbreak"))
    cells = 0
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            cells += 1
        if token.type == "tr_close":
            shape[f"row of {cells} cells"] += 1
            cells = 0
    return shape


def rectangular(markdown: str) -> int:
    """The number of tables in ``markdown``, each checked to have as many cells in every
    row as in its header."""
    tables, cells, row = 0, [], 0
    for token in markdown_tokens(markdown):
        if token.type == "table_open":
            tables, cells = tables + 1, []
        elif token.type in ("th_open", "td_open"):
            row += 1
        elif token.type == "tr_close":
            cells.append(row)
            row = 0
        elif token.type == "table_close":
            assert len(set(cells)) == 1, cells
    return tables


def markdown_plain(text: str) -> str:
    """The text a reader sees in rendered Markdown."""
    return "".join(t.content for t in markdown_tokens(text) if t.type in ("text", "code_inline"))


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: Counter = Counter()
        self.attributes: Counter = Counter()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        self.attributes.update(f"{tag}.{name}" for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def html_parts(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser


_LATEX_ESCAPES = re.compile(
    r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}"
    r"|\\[&%$#_{}]|\{\[\}|\{\]\}"
)
_OUR_COMMANDS = {"begin", "end", "centering", "toprule", "midrule", "bottomrule", "caption"}
_OUR_COMMANDS |= {"label", "textbf"}


def latex_live(text: str) -> str:
    """The LaTeX that is not comment and not an escaped character: only what we emit."""
    lines = [line for line in text.splitlines() if not line.startswith("% ")]
    return _LATEX_ESCAPES.sub("", "\n".join(lines))


def check_latex(text: str, benign_text: str, columns: int) -> None:
    assert text.count("\n") == benign_text.count("\n")
    live = latex_live(text)
    commands = set(re.findall(r"\\([A-Za-z]+)", live))
    assert commands <= _OUR_COMMANDS, commands - _OUR_COMMANDS
    assert (
        "%" not in live
        and "#" not in live
        and "~" not in live
        and "^{" not in live.replace("$^{", "")
    )
    for char in "<>|":  # only inside the math we write ($p < 0.05$)
        assert all(char not in part for part in live.split("$")[::2])
    rows = [line for line in live.splitlines() if line.endswith("\\\\")]
    assert {row.count("&") for row in rows} == {columns - 1}


def compiles(latex: str, folder: Path) -> None:
    """pdflatex compiles ``latex`` in a document, and a ``\\input{x}`` that became live
    would stop it (x.tex raises an error)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex installed: the LaTeX is checked by the scan only")
    folder.mkdir(exist_ok=True)
    (folder / "x.tex").write_text("\\errmessage{injected input}\n", encoding="utf-8")
    document = (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
        "\\begin{document}\n" + latex + "\\end{document}\n"
    )
    (folder / "table.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "table"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "injected" not in done.stdout


def flat(text: str) -> str:
    return " ".join(text.split())


def check_terminal(text: str, cells: list[str]) -> None:
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f\u2028]", text), "a control character"
    for cell in cells:
        assert flat(visible(cell)) in flat(text)


# --------------------------------------------------------------------------- the rules


def test_csv_rule_neutralises_formulas_but_never_numbers():
    for formula in ("=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", "-", "=HYPERLINK(x)"):
        assert csv_cell(formula) == "'" + formula
    for number in ("-5", "+1.5", "-1e-3", "-inf", "0.25", 3, -2.5):
        assert csv_cell(number) == (number if isinstance(number, str) else csv_cell(number))
    assert csv_cell(-2.5) == "-2.5" and csv_cell(0.1 + 0.2) == "0.30000000000000004"
    assert csv_cell(float("nan")) == "" and csv_cell(np.float32(0.5)) == "0.5"
    frame = pd.DataFrame({"id": ["=a", "-1", None], "n": pd.array([1, None, 3], dtype="Int64")})
    assert csv_rows(csv_frame(frame)) == [["id", "n"], ["'=a", "1"], ["-1", ""], ["", "3"]]


def test_markdown_and_latex_text_are_one_literal_line():
    for text in (
        "# h",
        "1. x",
        "1.",
        "> q",
        "-",
        "---",
        "===",
        "a\n# b",
        "[x](javascript:y)",
        "<b>x</b>",
        "    code",
    ):
        shown = markdown_plain(markdown_text(text))
        assert shown == visible(text)
        kinds = {t.type for t in markdown_tokens(markdown_text(text))}
        assert kinds == {"paragraph_open", "inline", "text", "paragraph_close"}, kinds
    assert plot_text("_x $a$") == r" _x \$a\$"
    assert latex_text("a<b>|c[1]") == r"a\textless{}b\textgreater{}\textbar{}c{[}1{]}"
    assert "\n" not in latex_text("a\n\nb") and "\n" not in markdown_text("a\r\nb")


def test_markdown_prose_links_web_addresses_and_shows_the_rest_literally():
    text = "see https://example.org/a_b?x=1. or `citeval import x DIR` <b>id</b> \x1b|"
    tokens = markdown_tokens(markdown_prose(text))
    links = [t.attrs["href"] for t in tokens if t.type == "link_open"]
    assert links == ["https://example.org/a_b?x=1"]  # the full stop ends the sentence
    assert [t.content for t in tokens if t.type == "code_inline"] == ["citeval import x DIR"]
    assert markdown_plain(markdown_prose(text)) == (
        "see https://example.org/a_b?x=1. or citeval import x DIR <b>id</b> \\x1b|"
    )
    for hostile_text in ("javascript:alert(1)", "[x](javascript:y)", "<https://x.org>", "# h"):
        tokens = markdown_tokens(markdown_prose(hostile_text))
        assert all(not t.attrs.get("href", "").startswith("javascript") for t in tokens)
        assert {t.type for t in tokens} <= {
            "paragraph_open",
            "inline",
            "text",
            "paragraph_close",
            "link_open",
            "link_close",
        }


def test_a_markdown_code_span_or_block_no_backtick_inside_can_close():
    for text in ("a`b", "``x``", "`", "<citing>_<cited>", "a|b", "\x1b[31m\u202e"):
        tokens = [t for t in markdown_tokens(markdown_code(text)) if t.type == "code_inline"]
        assert [t.content for t in tokens] == [visible(text)], text
    block = markdown_code_block("@article{x,\n```\n# not a heading\n}\x1b", "bibtex")
    tokens = markdown_tokens(block)
    assert [t.type for t in tokens] == ["fence"] and tokens[0].info == "bibtex"
    assert tokens[0].content == "@article{x,\n```\n# not a heading\n}\\x1b\n"
    with pytest.raises(ValueError):
        markdown_code_block("x", "py\n# h")


def test_json_is_strict_and_says_why_a_value_is_null():
    text = json_dumps({"a": math.inf, "b": [1.0, math.nan], "c/d": {"e": -math.inf}})
    payload = strict_json(text)
    assert payload["a"] is None and payload["b"] == [1.0, None] and payload["c/d"]["e"] is None
    assert payload["not_finite"] == {
        "/a": "+inf",
        "/b/1": "not a number (no value)",
        "/c~1d/e": "-inf",
    }


# --------------------------------------------------------------------------- every format


def test_evaluation_in_every_format(tables):
    result, benign = tables[False]["result"], tables[True]["result"]
    queries = query_ids(False)
    rows = csv_rows(result.format("csv", per_query=True))
    assert rows[0] == ["query_id", "measure", "value"]
    assert {r[0] for r in rows[1:]} == {neutralised(q) for q in queries} | {"all"}
    assert NUMERIC_QUERY in {r[0] for r in rows[1:]}
    values = {(r[0], r[1]): float(r[2]) for r in rows[1:]}
    for q, row in zip(result.query_ids, result.values):  # full precision: exactly the values
        assert [values[(neutralised(q), m)] for m in result.names] == row.tolist()
    payload = strict_json(result.format("json", per_query=True))
    assert set(payload["per_query"]) == set(queries) and payload["run"] == result.run_source
    for per_query in (False, True):
        check_terminal(result.format("table", per_query=per_query), [result.run_source])
    check_terminal(result.format("table", per_query=True), queries)
    with pytest.raises(InputError, match="white space"):
        result.format("trec_eval", per_query=True)
    lines = benign.format("trec_eval", per_query=True).splitlines()
    assert all(len(line.split("\t")) == 3 for line in lines)

    # Markdown and LaTeX, as a comparison prints them: a heading, then a table of a row per
    # query (with per_query) and the aggregate row "all", every hostile id literal text
    for per_query in (False, True):
        markdown = result.format("markdown", per_query=per_query)
        shape = markdown_shape(benign.format("markdown", per_query=per_query))
        assert markdown_shape(markdown) == shape and rectangular(markdown) == 1
        assert shape[f"row of {1 + len(result.names)} cells"] == 2 + per_query * len(queries)
        assert not any(
            t.type.startswith(("heading", "html", "link", "image"))
            for t in markdown_tokens(markdown)
        )
        latex = result.format("latex", per_query=per_query)
        check_latex(latex, benign.format("latex", per_query=per_query), 1 + len(result.names))
    seen = markdown_plain(markdown)
    latex_rows = [line.split(" & ") for line in latex.splitlines() if line.endswith("\\\\")]
    for q, row in zip(result.query_ids, result.values):
        assert visible(q) in seen
        cells = next(r for r in latex_rows if r[0] == latex_text(q))
        assert [float(c.rstrip(" \\")) for c in cells[1:]] == pytest.approx(row, abs=5e-5)
    assert latex_rows[-1][0] == "all" and latex.splitlines()[0].startswith("% citeval eval: ")
    assert re.search(r"\\label\{tab:citeval-eval-[0-9a-f]{8}\}", latex)
    assert result.format("markdown", percent=True).count("(percent)") == 1


def test_evaluation_latex_compiles(tables, tmp_path):
    compiles(tables[False]["result"].format("latex", per_query=True), tmp_path / "tex")


def test_comparison_in_every_format(tables, tmp_path):
    comparison, benign = tables[False]["comparison"], tables[True]["comparison"]
    names = run_names(False)
    assert comparison.names == names
    rows = csv_rows(comparison.format("csv"))
    header = rows[0]
    cells = {r[header.index(c)] for r in rows[1:] for c in ("baseline", "system")}
    assert cells == {neutralised(n) for n in names}
    payload = strict_json(comparison.format("json"))
    assert payload["runs"] == names and payload["qrels"] == str(tables[False]["qrels"])
    check_terminal(comparison.format("table"), names)

    markdown = comparison.format("markdown")
    assert markdown_shape(markdown) == markdown_shape(benign.format("markdown"))
    assert rectangular(markdown) == 2  # the means and the pairs, each a table of its own
    assert not any(
        t.type.startswith(("heading", "html", "link", "image")) for t in markdown_tokens(markdown)
    )
    seen = markdown_plain(markdown)
    for name in names:
        assert visible(name) in seen

    latex = comparison.format("latex")
    check_latex(latex, benign.format("latex"), columns=1 + len(comparison.measures))
    for name in names:
        assert latex_text(name) in latex
    assert latex.splitlines()[0].startswith("% citeval compare: ")
    assert re.search(r"\\label\{tab:citeval-compare-[0-9a-f]{8}\}", latex)
    assert latex.split("\\label")[1] != benign.format("latex").split("\\label")[1]
    compiles(latex, tmp_path / "tex")


def test_percent_scales_fractions_not_counts(tables):
    result, comparison = tables[True]["result"], tables[True]["comparison"]
    frame = result.to_frame(percent=True)
    assert frame.at["all", "RR"] == pytest.approx(100 * result.aggregate["RR"])
    assert frame.at["all", "NumRet"] == result.aggregate["NumRet"] and frame.at["all", "NumQ"] == 6
    payload = strict_json(result.format("json", percent=True))
    assert payload["aggregate"]["NumRet"] == result.aggregate["NumRet"] == 24
    headers, rows = comparison.table("means", percent=True)
    by_measure = {row[0]: row for row in rows}
    assert by_measure["NumRet"][1].startswith("4.0")  # 4 docs per query, not 400
    assert float(by_measure["RR"][1].split()[0]) == pytest.approx(
        100 * comparison.means.at["RR", "alpha"], abs=0.01
    )
    report = citeval_irm.make_report(
        tables[True]["runs"][:1],
        tables[True]["qrels"],
        "RR NumRet",
    ).shown(percent=True)
    scores = report.tables()["scores"]
    assert dict(scores.rows)["NumRet"] == "24.00" and "percent" in report.summary


def test_a_query_named_all_is_an_error_beside_the_aggregate_row(tmp_path):
    run = {"all": {"d1": 1.0, "d2": 0.5}, "q2": {"d1": 1.0}}
    result = citeval_irm.evaluate(run, {"all": {"d2": 1}, "q2": {"d1": 1}}, "RR")
    for fmt in ("trec_eval", "csv", "table", "markdown", "latex"):
        with pytest.raises(InputError, match="query named 'all'"):
            result.format(fmt, per_query=True)
        result.format(fmt)  # the aggregate alone is not ambiguous
    payload = strict_json(result.format("json", per_query=True))
    assert payload["per_query"]["all"] == {"RR": 0.5} and payload["aggregate"] == {"RR": 0.75}


def test_crosscheck_and_validation_in_every_format(tables, demo_home):
    qrels, run = tables[False]["qrels"], tables[False]["runs"][0]
    report = citeval_irm.crosscheck(run, qrels, "RR R@2", recipe="goyal2026")
    strict_json(report.format("json"))
    text = report.format("table")
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", text)
    validation = citeval_irm.validate(run, "citeval/demo/test")
    assert not validation.passed
    strict_json(validation.format("json"))
    check_terminal(validation.format("table"), [validation.run_source])
    assert "\\n" in validation.format("table")  # the ids' newlines shown, not obeyed


def test_published_comparison_in_every_format(tables, demo_home):
    demo = citeval_irm.bm25_run("citeval/demo/test", 300, temporal=True)
    names = [hostile(p) for p in RUN_PREFIXES[:2]]
    runs = dict(zip(names, (demo, demo)))
    comparison = citeval_irm.compare(
        runs,
        "citeval/demo/test",
        protocol="goyal2026",
        statistics=citeval_irm.StatisticsOptions(permutations=200, bootstrap=200),
    )
    comparison.published = citeval_irm.compare_published(comparison, runs, dataset="ACL-200")
    side = comparison.published
    strict_json(side.format("json"))
    strict_json(comparison.format("json"))
    check_terminal(side.format("table"), names)
    markdown = side.format("markdown")
    assert not any(
        t.type.startswith(("heading", "html", "link")) for t in markdown_tokens(markdown)
    )
    # the values side by side, the differences, the intervals of what a system does not report
    assert rectangular(markdown) == 3
    for name in names:
        assert visible(name) in markdown_plain(markdown)
    latex = comparison.format("latex")
    assert "PPM (published)" in latex
    live = latex_live(latex)
    assert set(re.findall(r"\\([A-Za-z]+)", live)) <= _OUR_COMMANDS
    listing = citeval_irm.published()
    for fmt in ("table", "markdown"):
        listing.format(fmt)
    rows = csv_rows(listing.format("csv"))
    assert len(rows) == len(listing.frame) + 1
    strict_json(listing.format("json"))


@pytest.mark.slow
def test_report_in_html_and_markdown(tables):
    reports = {}
    for benign in (False, True):
        qrels, runs = tables[benign]["qrels"], tables[benign]["runs"]
        name = run_names(benign)[0]
        checked = citeval_irm.crosscheck(runs[0], qrels, "RR R@2", recipe="goyal2026")
        reports[benign] = citeval_irm.make_report(
            runs, qrels, "RR R@2", computed=citeval_irm.report.Computed(crosschecks={name: checked})
        )
    hostile_report, benign_report = reports[False], reports[True]
    assert "crosscheck" in {s.key for s in hostile_report.sections}
    names = run_names(False)
    page, plain = html_parts(hostile_report.to_html()), html_parts(benign_report.to_html())
    assert page.tags == plain.tags and page.attributes == plain.attributes
    assert "script" not in page.tags
    seen = "".join(page.text)
    for cell in names + [str(tables[False]["qrels"])]:
        assert visible(cell) in seen
    markdown = hostile_report.to_markdown()
    shape = markdown_shape(markdown)
    assert shape == markdown_shape(benign_report.to_markdown())
    assert shape["heading_open"] == 1 + len(hostile_report.sections)
    assert not any(t.type.startswith("html") for t in markdown_tokens(markdown))
    assert rectangular(markdown) == rectangular(benign_report.to_markdown())
    seen = markdown_plain(markdown)
    for cell in names:
        assert visible(cell) in seen


# --------------------------------------------------------------------------- the command line


@pytest.mark.slow
def test_cli_writes_every_format_inert(tables, tmp_path, capsys):
    qrels, runs = tables[False]["qrels"], tables[False]["runs"]
    names = run_names(False)
    base = ["compare", *map(str, runs), "--qrels", str(qrels), "-m", "RR NumRet"]
    base += ["--permutations", "200", "--bootstrap", "200"]
    outputs = {}
    for fmt in ("csv", "json", "latex", "markdown", "table"):
        assert cli.main([*base, "--format", fmt, "--percent"]) == 0
        outputs[fmt] = capsys.readouterr().out
    rows = csv_rows(outputs["csv"])
    assert {r[rows[0].index("system")] for r in rows[1:]} <= {neutralised(n) for n in names}
    strict_json(outputs["json"])
    assert set(re.findall(r"\\([A-Za-z]+)", latex_live(outputs["latex"]))) <= _OUR_COMMANDS
    assert not any(
        t.type.startswith(("heading", "html")) for t in markdown_tokens(outputs["markdown"])
    )
    check_terminal(outputs["table"], names)
    report = tmp_path / "report.md"
    assert cli.main([*base, "--report", str(report), "--percent"]) == 0
    capsys.readouterr()
    text = report.read_text(encoding="utf-8")
    assert "values in percent" in text
    assert not any(t.type.startswith("html") for t in markdown_tokens(text))
    trec = ["eval", str(runs[0]), "--qrels", str(qrels), "-m", "RR", "--format", "trec_eval"]
    assert cli.main([*trec, "--per-query"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeval: error: ") and err.count("\n") == 1 and "white space" in err


def test_the_eval_command_prints_markdown_and_latex_as_the_result_formats_them(tables, capsys):
    qrels, run = tables[False]["qrels"], tables[False]["runs"][0]
    result = tables[False]["result"]
    for fmt in ("markdown", "latex"):
        for extra in ([], ["--per-query", "--percent", "--decimals", "2"]):
            argv = ["eval", str(run), "--qrels", str(qrels), "-m", "RR R@2 NumRet NumQ"]
            assert cli.main([*argv, "--format", fmt, *extra]) == 0
            shown = {"per_query": True, "percent": True, "decimals": 2} if extra else {}
            assert capsys.readouterr().out == result.format(fmt, **shown)
