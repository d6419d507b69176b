"""The generated pages of the documentation site, added by ``docs/hooks.py`` at build time.

Nothing here is written by hand twice: the API reference lists the package's public names
(``citeval_irm._EXPORTS``) for mkdocstrings to render from their docstrings; the command
line reference is the argument parser's own help; the measure table, the protocols and the
recipes are read from their registries; the dataset catalogue (an index with every id's
counts, licence and how to get it; a page per corpus with its ids, snippets, fields, splits,
recall ceiling and citation) comes from each dataset's ir_datasets documentation (the YAML
beside its module), its record types, its published counts (``metadata.json``) and what
``citeval datasets list`` reports of it, as ir_datasets generates its own catalogue; the
layers page is ``ARCHITECTURE.md``.

Every text these pages take from elsewhere (YAML prose, names, ids, help) goes through the
package's one escaper, :mod:`citeval_irm.printing.escaping`: a ``<citing>`` in the YAML is
shown as ``<citing>``, and a hostile name stays text.
"""

from __future__ import annotations

import argparse
import os
import textwrap
from pathlib import Path

from citeval_irm.printing.escaping import (
    markdown_code as code,
)
from citeval_irm.printing.escaping import (
    markdown_code_block as code_block,
)
from citeval_irm.printing.escaping import (
    markdown_prose as prose,
)
from citeval_irm.printing.escaping import (
    markdown_text as md,
)

ROOT = Path(__file__).resolve().parents[1]

# the public names by kind, in the order a reader meets them
API_SECTIONS = {
    "Verbs": (
        "evaluate validate crosscheck audit compare compare_published results_table breakdown "
        "resolve make_report bm25_run published check_published read_run read_qrels write_run "
        "convert parse_measures"
    ),
    "Results": (
        "EvalResult ValidationReport CrosscheckReport DatasetAudit Comparison ResultsTable "
        "Breakdown Resolution PublishedResults PublishedComparison PublishedCheck Report Run "
        "Qrels Converted"
    ),
    "Options": (
        "EvalOptions ExecutionOptions StatisticsOptions Protocol Recipe Computed PROTOCOLS RECIPES"
    ),
    "Errors and warnings": (
        "CitevalError InputError UnknownDatasetError EvalWarning VerificationError "
        "DownloadError ChecksumError DataNotFoundError"
    ),
}
DEPRECATED = {"Deprecated (removed in the next release)": "as_run as_qrels"}


def api_page() -> str:
    import citeval_irm

    exports = citeval_irm._EXPORTS
    known = {**API_SECTIONS, **DEPRECATED}
    listed = {name for names in known.values() for name in names.split()}
    rest = sorted(n for n, m in exports.items() if m is not None and n not in listed)
    more = {"More": " ".join(rest)} if rest else {}
    sections = {**API_SECTIONS, **more, **DEPRECATED}  # the deprecated names last
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
    """The command-line page: every command's ``--help`` at 96 columns (argparse wraps its
    help to ``COLUMNS``, set only while the help is written: the build's process, or a test's,
    keeps its own)."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "96"
    try:
        return _cli_page()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _cli_page() -> str:
    from citeval_irm.cli.parser import build_parser

    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "`citeval COMMAND --help` prints each of these; this page is generated from the same "
        "argument parser.",
        "",
        code_block(parser.format_help().rstrip(), "text"),
        "",
    ]
    for name, sub in _subcommands(parser):
        lines += [
            f"## {code('citeval ' + name)}",
            "",
            code_block(sub.format_help().rstrip(), "text"),
        ]
        lines += [""]
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
            code(row.name),
            code(row.trec_eval) if row.trec_eval else "-",
            code(row.trec_eval_at.format(k="K")) if row.trec_eval_at else "-",
            ", ".join(code(p) for p in row.params) or "-",
            prose(row.labels),
            prose(row.needs),
            "sum" if row.summed else "mean",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def protocols_page() -> str:
    from citeval_irm.papers import PROTOCOLS, RECIPES

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
        measures = " ".join(code(m) for m in p.measures)
        lines.append(f"| {code(p.name)} | {prose(p.reference)} | {measures} | {unit} |")
    lines += ["", "## Recipes", ""]
    for r in RECIPES.values():
        lines += [f"### {code(r.name)}", "", f"{prose(r.reference)}. {prose(r.description)}", ""]
        lines += [f"- script: {prose(r.source)}", f"- averages over: {code(r.queries)}"]
        lines += [f"- quirks: {prose(r.quirks.describe())}"]
        lines += [f"- rule: {prose(rule)}" for rule in r.rules]
        lines += [
            f"- stops with {code(c.exception)} on {md(c.when.replace('_', ' '))}" for c in r.crashes
        ]
        lines += [f"- measures: {' '.join(code(m) for m in r.measures)}", ""]
    return "\n".join(lines)


# What a dataset's page says under its own heading, from its YAML documentation (the
# counts, fields, splits, snippets and citation are laid out apart), in page order.
DATASET_SECTIONS = {
    "years": "Years",
    "audit": "What citeval audit found",
    "official_measures": "Official measures",
    "source": "Source",
    "evidence": "Evidence",
}
ENTITIES = ("docs", "queries", "qrels")
# the documentation's keys of an id's segments after the corpus's (the YAML's _split, _tier
# and _gold tables), in id order: citeval/masterset-coreml-v1/test/core/in-pool
SEGMENT_KEYS = ("split", "tier", "gold")


class Catalogue:
    """What the catalogue shows of each corpus, read once: its ids, their published counts,
    its documentation and the record types of its docs, queries and qrels.

    ``documentation`` (id -> the YAML documentation) and ``counts`` (id -> entity -> count)
    default to the registered datasets' own; a test gives its own (a hostile name)."""

    def __init__(self, documentation: dict | None = None, counts: dict | None = None):
        import ir_datasets

        import citeval_irm  # noqa: F401  (registers the citeval datasets)
        from citeval_irm.datasets.catalogue import COLLECTIONS
        from citeval_irm.datasets.listing import how_obtained, recorded
        from citeval_irm.datasets.registry import METADATA, dataset_ids

        ids = dataset_ids()
        self.corpora = list(COLLECTIONS)
        self.ids = {
            c.name: [i for i in ids if i == c.dataset_id or i.startswith(c.dataset_id + "/")]
            for c in self.corpora
        }
        self.datasets = {i: ir_datasets.load(i) for i in ids}
        self.documentation = documentation or {
            i: d.documentation() or {} for i, d in self.datasets.items()
        }
        self.counts = counts or {
            i: {e: METADATA.get_metadata(i, e).get("count") for e in ENTITIES} for i in ids
        }
        self.obtained = {c.name: how_obtained(c) for c in self.corpora}
        self.recorded = {c.name: dict(recorded(c)) for c in self.corpora}

    def splits(self, name: str) -> list[str]:
        """The ids of a corpus that have queries (its splits), in the registry's order."""
        return [i for i in self.ids[name] if self.datasets[i].has_queries()]

    def count_cells(self, dataset_id: str, mark: str = "") -> list[str]:
        """The docs, queries and qrels counts of an id as printed: "not recorded" where the
        package's metadata has none, "-" where the dataset has no such entity; ``mark``
        after each count (unverified ones)."""
        cells = []
        for entity in ENTITIES:
            value = self.counts[dataset_id].get(entity)
            if not getattr(self.datasets[dataset_id], f"has_{entity}")():
                cells.append("-")
            else:
                cells.append(f"{value:,}{mark}" if value is not None else "not recorded")
        return cells

    def queries_by_split(self, name: str) -> list[tuple[str, str]]:
        """``(split, queries)`` of a corpus, its split the first segment after the corpus
        id: one count when every id of the split has it (MasterSet's tiers share their
        queries), else each id's."""
        by_split: dict[str, list[str]] = {}
        for dataset_id in self.splits(name):
            split = dataset_id.split("/")[2]
            by_split.setdefault(split, []).append(dataset_id)
        shown = []
        for split, ids in by_split.items():
            counts = {self.counts[i].get("queries") for i in ids}
            if len(counts) == 1:
                every = f" <br>(each of {len(ids)} ids)" if len(ids) > 1 else ""
                shown.append((split, _count(counts.pop()) + every))
            else:
                shown += [(i, _count(self.counts[i].get("queries"))) for i in ids]
        return shown

    def example(self, name: str) -> str:
        """The id the snippets use: the first test split (the one results are reported on)."""
        splits = self.splits(name)
        return next((i for i in splits if "/test" in i), splits[0] if splits else name)


def bibtex_entry(text: str) -> str:
    """A BibTeX entry one field a line, as a reader copies it (the YAML holds it on one):
    a line ends after each comma between the entry's own fields (brace depth 1), and the
    closing brace gets its own line; nothing else changes."""
    out, depth, skip = [], 0, False
    for i, char in enumerate(text):
        if skip and char == " ":
            continue
        skip = False
        if char == "}":
            depth -= 1
            if depth == 0 and i == len(text.rstrip()) - 1 and out and out[-1] != "\n":
                out.append("\n")
        out.append(char)
        if char == "{":
            depth += 1
        elif char == "," and depth == 1:
            out.append("\n  ")
            skip = True
    return "".join(out)


def _how_obtained(lines: list[str]) -> list[str]:
    """``how_obtained``'s terminal lines as sentences: its first line, then the rest (the
    Hub's checks, or the manual download's text wrapped for a terminal) as one."""
    first, *rest = lines
    return [first, " ".join(rest)] if rest else [first]


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "not recorded"


def _fields(cls) -> str:
    """A record type's fields in tuple order with their types, as ir_datasets lists them."""
    hints = getattr(cls, "__annotations__", {})
    return "\n".join(
        f"{i}. {code(field)}: {code(getattr(hints.get(field), '__name__', 'str'))}"
        for i, field in enumerate(cls._fields, 1)
    )


def _tabs(snippets: dict[str, tuple[str, str]]) -> list[str]:
    """Content tabs (pymdownx.tabbed), one code block each: ``title -> (language, code)``."""
    lines = []
    for title, (language, text) in snippets.items():
        block = code_block(text, language).replace("\n", "\n    ")
        lines += [f'=== "{title}"', "", "    " + block, ""]
    return lines


def snippets(dataset_id: str, protocol: str | None, record: str) -> dict[str, tuple[str, str]]:
    """The Python, CLI and PyTerrier ways to read ``dataset_id`` (and to evaluate a run on
    it under ``protocol``), as ir_datasets' catalogue shows them."""
    record_lines = textwrap.wrap(record, 66, subsequent_indent="  ")
    python = (
        "import ir_datasets\n"
        "import citeval_irm  # registers the citeval datasets with ir_datasets\n\n"
        f'dataset = ir_datasets.load("{dataset_id}")\n'
        "for query in dataset.queries_iter():\n"
        + "".join(
            f"    {'query' if i == 0 else '     '}  # {line}\n"
            for i, line in enumerate(record_lines)
        )
        + "qrels = dataset.qrels_dict()\n"
    )
    if protocol:
        python += f'\nresult = citeval_irm.evaluate("run.txt", dataset, protocol="{protocol}")\n'
    cli = "".join(f"citeval datasets export {dataset_id} {e}\n" for e in ("queries", "qrels"))
    if protocol:
        cli += f"citeval eval run.txt --dataset {dataset_id} --protocol {protocol}\n"
    terrier = (
        "import pyterrier as pt  # pip install python-terrier (needs Java)\n\n"
        f'dataset = pt.get_dataset("citeval:{dataset_id.removeprefix("citeval/")}")\n'
        "topics = dataset.get_topics()  # qid, query (the masked context or the title)\n"
        "qrels = dataset.get_qrels()  # qid, docno, label\n"
    )
    return {"Python": ("python", python), "CLI": ("bash", cli), "PyTerrier": ("python", terrier)}


def dataset_page(catalogue: Catalogue, name: str) -> str:
    """One corpus's page: ids, description, how to get it, snippets, splits, fields, recall
    ceiling, citation; every text from elsewhere escaped."""
    corpus_id = catalogue.ids[name][0]
    docs = catalogue.documentation[corpus_id]
    recorded = catalogue.recorded[name]
    splits = catalogue.splits(name)
    example = catalogue.example(name)
    lines = [f"# {md(docs.get('pretty_name', name))}", ""]
    ids = catalogue.ids[name]
    shown_ids = ids if len(ids) <= 5 else [ids[0], example]
    more = (
        f" and {len(ids) - len(shown_ids)} more ids ([Splits](#splits))" if ids != shown_ids else ""
    )
    lines += [" ".join(code(i) for i in shown_ids) + more, ""]
    if "desc" in docs:
        lines += [prose(docs["desc"]), ""]
    facts = [
        ("How to get it", prose("; ".join(_how_obtained(catalogue.obtained[name])))),
        ("Licence", prose(recorded.get("licence", "unknown"))),
        ("Download size", prose(recorded.get("download size", "unknown"))),
        ("Protocol", code(docs["protocol"]) if "protocol" in docs else "none"),
        ("Recall ceiling", prose(recorded.get("recall ceiling (citeval audit)", "not recorded"))),
    ]
    if "counts" in recorded:
        facts.insert(1, ("Counts", prose(recorded["counts"])))
    lines += [*(f"- **{k}**: {v}" for k, v in facts), ""]
    if "data_access" in docs:
        lines += ["## Getting the files", "", prose(docs["data_access"]), ""]
    if "licence" in docs:
        lines += ["## Licence", "", prose(docs["licence"]), ""]
    dataset = catalogue.datasets[example]
    record = ""
    if dataset.has_queries():
        cls = dataset.queries_cls()
        record = f"{cls.__name__}({', '.join(cls._fields)})"
    lines += ["## Use it", ""]
    lines += _tabs(snippets(example, docs.get("protocol"), record))
    lines += ["## Splits", ""]
    if "counts" in recorded:
        lines += [f"Counts: {prose(recorded['counts'])}", ""]
    lines += ["| id | docs | queries | qrels |", "|---|---:|---:|---:|"]
    # each segment of an id after the corpus's and its text, by kind (split, tier, gold)
    segments: dict[str, dict[str, str]] = {key: {} for key in SEGMENT_KEYS}
    for dataset_id in ids:
        cells = [code(dataset_id), *catalogue.count_cells(dataset_id)]
        lines.append("| " + " | ".join(cells) + " |")
        about = catalogue.documentation[dataset_id]
        keys = [k for k in SEGMENT_KEYS if k in about]
        parts = dataset_id.removeprefix(ids[0] + "/").split("/") if dataset_id != ids[0] else []
        if len(parts) == len(keys):
            for key, part in zip(keys, parts):
                segments[key][part] = about[key]
    lines += [""]
    lines += [
        f"- {code(segment)}: {prose(text)}"
        for key in SEGMENT_KEYS
        for segment, text in segments[key].items()
    ]
    lines += [""]
    lines += ["## Fields", ""]
    for entity in ENTITIES:
        owner = next(
            (
                catalogue.datasets[i]
                for i in [corpus_id, *splits]
                if getattr(catalogue.datasets[i], f"has_{entity}")()
            ),
            None,
        )
        if owner is None:
            continue
        cls = getattr(owner, f"{entity}_cls")()
        lines += [f"### {entity}: {code(cls.__name__)}", ""]
        if entity in docs:
            lines += [prose(docs[entity]), ""]
        lines += [_fields(cls), ""]
        if entity == "qrels":
            defs = owner.qrels_defs() or {}
            lines += ["| relevance | meaning |", "|---:|---|"]
            lines += [f"| {label} | {prose(meaning)} |" for label, meaning in defs.items()]
            lines += [""]
    for key, title in DATASET_SECTIONS.items():
        if docs.get(key):
            lines += [f"## {title}", "", prose(docs[key]), ""]
    citations = [docs.get("bibtex"), docs.get("original_bibtex")]
    if any(citations):
        lines += ["## Citation", ""]
        if docs.get("bibtex"):
            lines += [
                "Cite the dataset as used here:",
                "",
                code_block(bibtex_entry(docs["bibtex"]), "bibtex"),
                "",
            ]
        if docs.get("original_bibtex"):
            lines += [
                "and the original corpus:",
                "",
                code_block(bibtex_entry(docs["original_bibtex"]), "bibtex"),
                "",
            ]
    return "\n".join(lines)


def datasets_index(catalogue: Catalogue) -> str:
    """The catalogue's index: each corpus's counts per split, licence and how to get it
    (as ir_datasets' index and counts pages), then every id's counts."""
    lines = [
        "---",
        "hide:",  # the table takes the page's width
        "  - navigation",
        "  - toc",
        "---",
        "",
        "# Datasets",
        "",
        "Every corpus is an ir_datasets dataset, `ir_datasets.load('citeval/NAME/SPLIT')` "
        "after `import citeval_irm`, and a PyTerrier dataset, `pt.get_dataset("
        "'citeval:NAME/SPLIT')`; `citeval datasets list` prints this catalogue in a terminal, "
        "with whether each corpus's files are on your machine. Counts are as published "
        "(`metadata.json`): docs, then queries per split; a count marked † is the figure the "
        "field quotes, not verified by the package. Each corpus's page has its ids, snippets, "
        "fields, recall ceiling and citation.",
        "",
    ]
    by_corpus = {c.name: dict(catalogue.queries_by_split(c.name)) for c in catalogue.corpora}
    splits = list(dict.fromkeys(split for counts in by_corpus.values() for split in counts))
    lines += [
        "| dataset | docs | "
        + " | ".join(code(split) for split in splits)
        + " | licence | how to get it |",
        "|---|---:|" + "---:|" * len(splits) + "---|---|",
    ]
    for corpus in catalogue.corpora:
        name = corpus.name
        docs = catalogue.documentation[catalogue.ids[name][0]]
        mark = " †" if "counts" in catalogue.recorded[name] else ""
        cells = [
            f"[{md(docs.get('pretty_name', name))}]({name}.md)<br>{code(corpus.dataset_id)}",
            _count(catalogue.counts[catalogue.ids[name][0]].get("docs")) + mark,
            *(
                by_corpus[name][split] + mark if split in by_corpus[name] else "-"
                for split in splits
            ),
            prose(catalogue.recorded[name].get("licence", "unknown")),
            prose(catalogue.obtained[name][0]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Counts of every id",
        "",
        "| id | docs | queries | qrels |",
        "|---|---:|---:|---:|",
    ]
    for corpus in catalogue.corpora:
        mark = " †" if "counts" in catalogue.recorded[corpus.name] else ""
        for dataset_id in catalogue.ids[corpus.name]:
            shown = catalogue.count_cells(dataset_id, mark)
            lines.append(f"| [{code(dataset_id)}]({corpus.name}.md) | " + " | ".join(shown) + " |")
    lines += [
        "",
        "† " + prose(next((r["counts"] for r in catalogue.recorded.values() if "counts" in r), "")),
        "",
    ]
    return "\n".join(lines)


def pages() -> dict[str, str]:
    """Every generated page: its path under ``docs/`` -> its Markdown."""
    catalogue = Catalogue()
    generated = {
        "reference/api.md": api_page(),
        "reference/cli.md": cli_page(),
        "reference/measures.md": measures_page(),
        "reference/protocols.md": protocols_page(),
        "reference/datasets/index.md": datasets_index(catalogue),
        "internals/layers.md": (ROOT / "ARCHITECTURE.md").read_text("utf-8"),
    }
    for corpus in catalogue.corpora:
        generated[f"reference/datasets/{corpus.name}.md"] = dataset_page(catalogue, corpus.name)
    return generated
