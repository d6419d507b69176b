"""The documentation site builds with MkDocs in strict mode (a warning is an error: a broken
link or anchor, a page left out of the navigation, a docstring mkdocstrings cannot read),
quietly, and its generated reference covers what it is generated from: every public name,
every subcommand, every measure family, every corpus. The dataset catalogue shows the YAML
prose as text (``<citing>`` stays), each corpus's counts, licence and access, and snippets
that run; a hostile name through the generator stays inert in the page MkDocs renders."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.datasets.catalogue import COLLECTIONS
from citeval_irm.scoring.table import MEASURES

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {
        **os.environ,
        "IR_DATASETS_HOME": str(out.parent / "ir_datasets_home"),
        "NO_MKDOCS_2_WARNING": "1",  # Material's own switch for its end-of-life notice
    }
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    # MkDocs' own INFO lines only: no third-party banner, no "Formatting signatures requires
    # either Black or Ruff" (ruff is in the docs extra)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert all(line.startswith("INFO") for line in lines), lines
    return out


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_the_api_reference_documents_every_public_verb_and_result(site):
    html = page(site, "reference/api")
    for name, module in citeval_irm._EXPORTS.items():
        if module and name not in {"PROTOCOLS", "RECIPES"}:
            assert f'id="citeval_irm.{module}.{name}"' in html, name
    # Sphinx roles of the docstrings shown as the names they point to, not as ":class:"
    assert not re.search(r":(class|func|meth|mod|data|attr):<code>", html)
    assert "<code>EvalOptions</code>" in html


def test_the_cli_reference_is_the_parser_help_of_every_command(site):
    from citeval_irm.cli.parser import build_parser

    html = page(site, "reference/cli")
    for action in build_parser()._subparsers._group_actions:
        for name in action.choices:
            assert f"citeval {name}" in html, name


def test_the_measure_page_lists_every_family_and_each_corpus_has_a_page(site):
    html = page(site, "reference/measures")
    for name in MEASURES:
        assert f"<code>{name}</code>" in html, name
    for corpus in COLLECTIONS:
        text = page(site, f"reference/datasets/{corpus.name}")
        assert f"citeval/{corpus.name}" in text
        assert "Licence" in text or corpus.name == "demo"


class _Text(HTMLParser):
    """The text a browser shows of a page's article, and its links and code elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.links: list[str] = []
        self.codes: list[str] = []
        self.tags: list[str] = []
        self._code: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "a":
            self.links.append(dict(attrs).get("href") or "")
        if tag == "code":
            self._code = []

    def handle_endtag(self, tag):
        if tag == "code" and self._code is not None:
            self.codes.append("".join(self._code))
            self._code = None

    def handle_data(self, data):
        self.parts.append(data)
        if self._code is not None:
            self._code.append(data)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def shown(html: str) -> _Text:
    parser = _Text()
    parser.feed(html[html.index("<article") : html.index("</article>")])
    return parser


def test_dataset_pages_show_the_yaml_prose_as_text(site):
    acl = shown(page(site, "reference/datasets/acl-200"))
    assert "query_id (the context id <citing>_<cited>_<n>)" in acl.text
    assert "$IR_DATASETS_HOME/citeval/<name>/docs.pklz4" in acl.text
    masterset = shown(page(site, "reference/datasets/masterset-coreml-v1"))
    assert "the .../test/<tier> and .../train/<tier> datasets" in masterset.text
    arsyta = shown(page(site, "reference/datasets/arsyta"))
    assert "query_id (<citing>_<cited>_<k>)" in arsyta.text
    # the other generated pages go through the same escaper: no backslash shows
    protocols = shown(page(site, "reference/protocols"))
    assert "parsed from its id (<citing>_<cited>_<n>)" in protocols.text
    assert "MRR@10 (1/r if r <= 10)" in protocols.text
    for text in (acl.text, masterset.text, arsyta.text, protocols.text):
        assert not re.search(r"\\[<>&$|_*`#]", text)


def test_the_catalogue_index_has_counts_licence_and_access_of_every_corpus(site):
    from citeval_irm.datasets.listing import recorded

    metadata = json.loads((REPO / "citeval_irm/datasets/metadata.json").read_text("utf-8"))
    index = shown(page(site, "reference/datasets"))
    for corpus in COLLECTIONS:
        assert f"{corpus.name}/" in index.links, corpus.name
        facts = dict(recorded(corpus))
        assert " ".join(facts["licence"].split()) in index.text
        docs = metadata[corpus.dataset_id]["docs"]["count"]
        assert f"{docs:,}{' †' if 'counts' in facts else ''}" in index.text
        for dataset_id, counts in metadata.items():
            if dataset_id.startswith(corpus.dataset_id + "/"):
                assert dataset_id in index.codes
                queries = counts.get("queries", {}).get("count")
                assert f"{queries:,}" in index.text
    assert "† not verified: the paper, context and split counts" in index.text
    # counts the metadata does not hold are said to be missing, never made up
    assert "not recorded" in index.text  # MasterSet's qrels
    assert "downloaded on first use" in index.text and "by hand, then citeval import" in index.text
    assert "7,028 (each of 8 ids)" in index.text  # MasterSet's tiers share their queries
    arsyta = "https://huggingface.co/datasets/goyalkaraniit/ArSyTa"
    assert arsyta in index.links  # the revision after "@" is not part of the address


def test_a_dataset_page_is_a_catalogue_entry(site):
    html = page(site, "reference/datasets/acl-200")
    acl = shown(html)
    for dataset_id in ("citeval/acl-200", "citeval/acl-200/train", "citeval/acl-200/test"):
        assert dataset_id in acl.codes
    for tab in ("Python", "CLI", "PyTerrier"):
        assert f">{tab}</label>" in html
    assert "import ir_datasets import citeval_irm" in acl.text
    assert "citeval eval run.txt --dataset citeval/acl-200/test --protocol goyal2026" in acl.text
    assert 'pt.get_dataset("citeval:acl-200/test")' in acl.text
    # fields with their types, splits with counts, the recall ceiling, the citation
    assert "left_context: str" in acl.text and "year: int" in acl.text
    assert "citeval/acl-200/test 19,776 9,585 9,585" in acl.text
    assert "Recall ceiling: goyal2026, on the split files" in acl.text
    bibtex = [c for c in acl.codes if c.startswith("@inproceedings{Gu2022HAtten")]
    assert len(bibtex) == 1 and bibtex[0].splitlines()[1:3] == [  # one field a line
        "  title={Local Citation Recommendation with Hierarchical-Attention Text Encoder and "
        "SciBERT-based Reranking},",
        "  author={Gu, Nianlong and Gao, Yingqiang and Hahnloser, Richard H. R.},",
    ]
    assert bibtex[0].rstrip().endswith("  year={2022}\n}")
    assert "https://github.com/nianlonggu/Local-Citation-Recommendation" in acl.links
    unverified = shown(page(site, "reference/datasets/refseer"))
    assert "Counts: not verified: the paper, context and split counts" in unverified.text
    drive = "https://drive.google.com/drive/folders/1QwQuJsBOGEESFTgl-7wWbqcig7vJNlQ2"
    assert drive in unverified.links
    masterset = shown(page(site, "reference/datasets/masterset-coreml-v1"))
    family = [i for i in json.loads((REPO / "citeval_irm/datasets/metadata.json").read_text())]
    for dataset_id in (i for i in family if i.startswith("citeval/masterset-coreml-v1")):
        assert dataset_id in masterset.codes
    assert "citeval/masterset-coreml-v1/test/core 67,761 7,028 not recorded" in masterset.text
    assert "in-pool: Gold papers outside the candidate pool dropped" in masterset.text
    assert "core: Tier core: references of core relevance" in masterset.text
    assert "(host not verified); each file checked against the sha256" in masterset.text


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs/gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site_markdown():
    """Markdown as the site renders a page: mkdocs.yml's extensions and their settings."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    return markdown.Markdown(
        extensions=config.markdown_extensions, extension_configs=config.mdx_configs
    )


HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1)) \x1b[31m\u202e | # h `a` ```"


def test_a_hostile_name_on_a_dataset_page_is_inert():
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    gen = _generator()
    catalogue = gen.Catalogue()
    for dataset_id in catalogue.ids["demo"]:
        documentation = dict(catalogue.documentation[dataset_id])
        for key in ("pretty_name", "desc", "queries", "split", "licence", "source"):
            documentation[key] = HOSTILE
        documentation["bibtex"] = "@misc{x,\n" + HOSTILE + "\n```\n# h\n}"
        catalogue.documentation[dataset_id] = documentation
    catalogue.recorded["demo"]["licence"] = HOSTILE
    catalogue.obtained["demo"] = [HOSTILE]
    for markdown_page in (gen.dataset_page(catalogue, "demo"), gen.datasets_index(catalogue)):
        html = _site_markdown().convert(markdown_page)
        parsed = _Text()
        parsed.feed(html)
        assert "script" not in parsed.tags
        assert all(
            h.startswith(("#", "https://", "http://", "../", "./")) or "/" not in h
            for h in parsed.links
        ), parsed.links
        assert not any(h.lower().startswith("javascript") for h in parsed.links)
        assert "<script>alert(1)</script>" in parsed.text  # shown, as text
        assert "\x1b" not in html and "\u202e" not in html
        assert "\\x1b[31m\\u202e" in parsed.text  # the controls shown as their escapes
        assert parsed.tags.count("h1") <= 1  # "# h" starts no heading
    parsed = _Text()
    parsed.feed(_site_markdown().convert(gen.dataset_page(catalogue, "demo")))
    bibtex = [c for c in parsed.codes if c.startswith("@misc{x,")]
    assert len(bibtex) == 1 and bibtex[0].rstrip().endswith("```\n# h\n}")  # one block


def _tab(markdown_page: str, title: str) -> str:
    """The code of one content tab of a generated page."""
    block = markdown_page.split(f'=== "{title}"', 1)[1].split("\n=== ", 1)[0]
    lines = [line.removeprefix("    ") for line in block.strip("\n").splitlines()]
    return "\n".join(lines[1:-1])  # inside the fence


ARROW_EXIT_ABORT = "terminate called without an active exception\n"


def test_the_snippets_of_a_dataset_page_run(tmp_path):
    """The demo page's Python and CLI snippets, as a reader copies them, on a run file."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    import ir_datasets

    markdown_page = _generator().pages()["reference/datasets/demo.md"]
    dataset = ir_datasets.load("citeval/demo/test")
    papers = [doc.doc_id for doc in dataset.docs_iter()]
    with open(tmp_path / "run.txt", "w") as run:  # the gold paper first, 299 others after it
        for qrel in dataset.qrels_iter():
            ranking = [qrel.doc_id, *(p for p in papers if p != qrel.doc_id)][:300]
            run.writelines(
                f"{qrel.query_id} Q0 {doc} {rank} {300 - rank} run\n"
                for rank, doc in enumerate(ranking)
            )
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "irds")}
    python = _tab(markdown_page, "Python") + "\nprint(result)\n"
    done = subprocess.run(
        [sys.executable, "-c", python], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    if done.returncode == -6 and done.stderr.endswith(ARROW_EXIT_ABORT) and "RR" in done.stdout:
        # the work done and printed, then an abort in the interpreter's exit: Arrow's thread
        # pool torn down with a worker alive (apache/arrow#34314); seen in about 1 run in 25
        # of any `evaluate` of a TREC file on a loaded machine, not a fault of the page
        pytest.xfail("Arrow's abort at interpreter exit (apache/arrow#34314)")
    assert done.returncode == 0, done.stderr
    assert "RR        100.00" in done.stdout and done.stderr == ""  # quiet
    for line in _tab(markdown_page, "CLI").splitlines():
        command = [sys.executable, "-m", "citeval_irm.cli", *shlex.split(line)[1:]]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stdout.strip(), line
