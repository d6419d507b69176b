"""The generated pages of the documentation site, written by mkdocs-gen-files at build time.

Nothing here is written by hand twice: the API reference lists the package's public names
(``citeval_irm._EXPORTS``) for mkdocstrings to render from their docstrings; the command
line reference is the argument parser's own help; the measure table, the protocols and the
recipes are read from their registries; each dataset's page comes from its ir_datasets
documentation (the YAML beside its module) and its published counts (``metadata.json``), as
ir_datasets generates its own catalogue; the layers page is ``ARCHITECTURE.md``.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[1]

# the public names by kind, in the order a reader meets them
API_SECTIONS = {
    "Verbs": (
        "evaluate validate crosscheck compare compare_published results_table breakdown "
        "make_report bm25_run published read_run read_qrels as_run as_qrels write_run convert "
        "parse_measures"
    ),
    "Results": (
        "EvalResult ValidationReport CrosscheckReport Comparison ResultsTable Breakdown "
        "PublishedResults PublishedComparison Report Run Qrels Protocol"
    ),
    "Errors and warnings": (
        "CitevalError InputError UnknownDatasetError EvalWarning VerificationError "
        "DownloadError ChecksumError DataNotFoundError"
    ),
}

# what each key of a dataset's documentation is, in page order
DATASET_KEYS = {
    "desc": None,
    "data_access": "Getting the files",
    "licence": "Licence",
    "years": "Years",
    "queries": "Queries",
    "docs": "Docs",
    "qrels": "Qrels",
    "protocol": "Protocol",
    "official_measures": "Official measures",
    "source": "Source",
    "bibtex": "Citation",
    "original_bibtex": "Citation of the original corpus",
}


def write(path: str, text: str) -> None:
    with mkdocs_gen_files.open(path, "w") as out:
        out.write(text)


def api_page() -> str:
    import citeval_irm

    exports = citeval_irm._EXPORTS
    listed = {name for names in API_SECTIONS.values() for name in names.split()}
    rest = sorted(n for n, m in exports.items() if m is not None and n not in listed)
    sections = {**API_SECTIONS, "More": " ".join(rest)} if rest else API_SECTIONS
    lines = [
        "# Python API",
        "",
        "Every name below is importable from `citeval_irm` itself "
        "(`import citeval_irm; citeval_irm.evaluate(...)`); it is imported on first use, "
        "so `import citeval_irm` stays cheap. Generated from the docstrings.",
        "",
    ]
    for title, names in sections.items():
        lines += [f"## {title}", ""]
        for name in names.split():
            module = exports.get(name)
            if not module:
                continue
            if name in {"PROTOCOLS", "RECIPES"}:
                continue  # registries: see the protocols and recipes pages
            directive = f"::: citeval_irm.{module}.{name}"
            lines += [directive, "    options:", "      heading_level: 3", ""]
    return "\n".join(lines)


def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def cli_page() -> str:
    from citeval_irm.cli.parser import build_parser

    os.environ["COLUMNS"] = "96"  # argparse wraps its help to the terminal's width
    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "`citeval COMMAND --help` prints each of these; this page is generated from the same "
        "argument parser.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for name, sub in _subcommands(parser):
        lines += [f"## `citeval {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def measures_page() -> str:
    from citeval_irm.scoring.table import MEASURES

    lines = [
        "# Measures",
        "",
        "The one table of measures (`citeval_irm.scoring.table.MEASURES`): each family's "
        "ir-measures name, trec_eval's name for it, the parameters it takes, how it reads a "
        "label and what it needs from the qrels. Every path (`evaluate`, the ir-measures "
        "provider `ir_measures.citeval`, `--format trec_eval`, the reference engine) reads "
        "this table; a measure outside it goes to ir-measures, saying so.",
        "",
        "| family | trec_eval | with a cut-off | parameters | labels | reads | aggregate |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in MEASURES.values():
        cells = [
            f"`{row.name}`",
            f"`{row.trec_eval}`" if row.trec_eval else "-",
            f"`{row.trec_eval_at.format(k='K')}`" if row.trec_eval_at else "-",
            ", ".join(f"`{p}`" for p in row.params) or "-",
            row.labels,
            row.needs,
            "sum" if row.summed else "mean",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def protocols_page() -> str:
    from citeval_irm.papers import PROTOCOLS, RECIPES
    from citeval_irm.printing.escaping import markdown_text as md

    lines = [
        "# Protocols and recipes",
        "",
        "A **protocol** is what a paper reports (`citeval protocols`, "
        "`evaluate(..., protocol=...)`); a **recipe** is how its own script computes it "
        "(`citeval recipes`, `crosscheck(..., recipe=...)`).",
        "",
        "## Protocols",
        "",
        "| name | reference | measures | unit |",
        "|---|---|---|---|",
    ]
    for p in PROTOCOLS.values():
        unit = f"{'percent' if p.percent else 'fraction'}, {p.decimals} decimals"
        measures = " ".join(f"`{m}`" for m in p.measures)
        lines.append(f"| `{p.name}` | {md(p.reference)} | {measures} | {unit} |")
    lines += ["", "## Recipes", ""]
    for r in RECIPES.values():
        lines += [f"### `{r.name}`", "", f"{md(r.reference)}. {md(r.description)}", ""]
        lines += [f"- script: {md(r.source)}", f"- averages over: `{r.queries}`"]
        lines += [f"- quirks: {md(r.quirks.describe())}"]
        lines += [f"- rule: {md(rule)}" for rule in r.rules]
        lines += [f"- stops with `{c.exception}` on {c.when.replace('_', ' ')}" for c in r.crashes]
        lines += [f"- measures: {' '.join(f'`{m}`' for m in r.measures)}", ""]
    return "\n".join(lines)


def dataset_pages() -> dict[str, str]:
    import ir_datasets

    import citeval_irm  # noqa: F401  (registers the citeval datasets)
    from citeval_irm.datasets.catalogue import COLLECTIONS

    metadata = json.loads((ROOT / "citeval_irm/datasets/metadata.json").read_text("utf-8"))
    pages = {}
    for corpus in COLLECTIONS:
        dataset_id = f"citeval/{corpus.name}"
        docs = ir_datasets.load(dataset_id).documentation() or {}
        lines = [f"# {docs.get('pretty_name', corpus.pretty_name)}", "", f"`{dataset_id}`", ""]
        for key, title in DATASET_KEYS.items():
            if key not in docs:
                continue
            text = docs[key]
            if title:
                lines += [f"## {title}", ""]
            lines += [f"```bibtex\n{text}\n```" if "bibtex" in key else text, ""]
        splits = sorted(i for i in metadata if i.startswith(dataset_id + "/"))
        if splits:
            lines += ["## Splits", "", "| id | queries | qrels |", "|---|---:|---:|"]
            for split in splits:
                counts = metadata[split]
                queries = counts.get("queries", {}).get("count")
                qrels = counts.get("qrels", {}).get("count")
                lines.append(
                    f"| `{split}` | {queries:,} | {qrels:,} |"
                    if queries is not None and qrels is not None
                    else f"| `{split}` | {queries or '-'} | {qrels or '-'} |"
                )
            lines.append("")
        pages[corpus.name] = "\n".join(lines)
    return pages


def datasets_index(names: list[str]) -> str:
    lines = [
        "# Datasets",
        "",
        "Every corpus is an ir_datasets dataset, `ir_datasets.load('citeval/NAME/SPLIT')` "
        "after `import citeval_irm`, and a PyTerrier dataset, `pt.get_dataset("
        "'citeval:NAME/SPLIT')`. One page per corpus, generated from its documentation:",
        "",
    ]
    lines += [f"- [{name}]({name}.md)" for name in names]
    return "\n".join(lines) + "\n"


def main() -> None:
    write("reference/api.md", api_page())
    write("reference/cli.md", cli_page())
    write("reference/measures.md", measures_page())
    write("reference/protocols.md", protocols_page())
    pages = dataset_pages()
    for name, text in pages.items():
        write(f"reference/datasets/{name}.md", text)
    write("reference/datasets/index.md", datasets_index(list(pages)))
    write("internals/layers.md", (ROOT / "ARCHITECTURE.md").read_text("utf-8"))


main()
