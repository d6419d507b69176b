"""``citeval datasets list``: our datasets, their counts, and how each is had.

ir_datasets cannot discover extension packages (its registry is filled by imports), and its
own ``list`` prints every one of its hundreds of ids without counts. This lists the citeval
ids grouped by corpus, with the published counts of ``metadata.json``, how the corpus is
obtained (shipped, downloaded on first use, or installed by hand with ``citeval import``),
whether its files are on this machine, and what its YAML documentation records: the host
(the pinned repository for a downloaded corpus), the licence, the download size and the
recall ceiling ``citeval audit`` measured (each "unknown" / "not recorded" where it is).
"""

from __future__ import annotations

import os
import textwrap

from .catalogue import COLLECTIONS
from .registry import METADATA, dataset_ids, documentation_file
from .sources import CorpusSource, corpus_file


def _count(dataset_id: str, entity: str) -> int | None:
    """The published count of ``entity`` (docs, queries, qrels) of a dataset, if known."""
    return METADATA.get_metadata(dataset_id, entity).get("count")


def how_obtained(source: CorpusSource) -> list[str]:
    """How a user gets the corpus's files: a line, and for a hand-installed one where from."""
    offline = f"`citeval import {source.name} DIR` (or {source.env_var}=DIR)"
    if source.packaged is not None:
        return ["shipped inside the package (GENERATED, not real data): nothing to do"]
    notice = " after its licence notice" if source.licence_notice else ""
    if source.hub is not None:
        checked = "each file checked against the sha256 (LFS) or git blob id the Hub lists"
        return [
            f"downloaded on first use{notice} with huggingface_hub from {source.hub.label()}",
            f"{checked} at {'that revision' if source.hub.verified else 'the branch read'}; "
            f"offline: {offline}",
        ]
    if source.base_url is not None:
        pinned = "pinned checksums checked" if source.checksums else "recorded at first download"
        return [f"downloaded on first use{notice}, {pinned}; offline: {offline}"]
    manual = source.manual_download.format(pretty_name=source.pretty_name)
    return [f"by hand, then {offline}", *textwrap.wrap(manual, 96)]


def recorded(source: CorpusSource) -> list[tuple[str, str]]:
    """``(what, text)`` of the corpus's counts (when its YAML says they are not verified:
    ``counts_source``), host, licence, download size and recall ceiling:
    the host from where it is downloaded (else its YAML's ``host``), the rest from its YAML
    (``licence_name``, ``download_size``, ``audit_ceiling``); "unknown" where none is."""
    entry = documentation_file(source.documentation).get_key(source.dataset_id) or {}
    if source.packaged is not None:
        host = "none: shipped inside the package"
    elif source.hub is not None:
        host = source.hub.label()
    elif source.base_url is not None:
        host = source.base_url
    else:
        host = entry.get("host", "unknown")
    counts = [("counts", entry["counts_source"])] if "counts_source" in entry else []
    return [
        *counts,
        ("host", host),
        ("licence", entry.get("licence_name", "unknown")),
        ("download size", entry.get("download_size", "unknown")),
        ("recall ceiling (citeval audit)", entry.get("audit_ceiling", "not recorded")),
    ]


def _wrapped(what: str, text: str) -> list[str]:
    """``what: text`` wrapped for a terminal, never inside a URL, a hyphenated name or
    between a number and its ``%``."""
    lines = textwrap.wrap(
        " ".join(text.split()).replace(" %", "\0%"),
        98,
        initial_indent=f"  {what}: ",
        subsequent_indent="    ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return [line.replace("\0", " ") for line in lines]


def where(source: CorpusSource) -> str:
    """Whether the corpus's files are on this machine, and where (nothing is downloaded)."""
    if source.packaged is not None:
        return "in the package"
    present = [n for n in source.file_names() if corpus_file(source, n, fetch=False)]
    folder = os.environ.get(source.env_var)
    place = f"{source.env_var}={folder}" if folder else str(source.home())
    if len(present) == len(source.file_names()):
        return f"all files in {place}"
    if present:
        return f"{len(present)} of {len(source.file_names())} files in {place}"
    return "not on this machine yet"


def format_dataset_list() -> str:
    """The citeval datasets, one block per corpus, for a terminal."""
    ids = dataset_ids()
    width = max(len(i) for i in ids)
    lines = [
        f"citeval datasets ({len(ids)} ir_datasets ids; counts as published; "
        "`citeval datasets list --all` lists every ir_datasets dataset)"
    ]
    for source in COLLECTIONS:
        first, *more = how_obtained(source)
        lines += [
            "",
            f"{source.pretty_name}: {first}",
            *(f"  {line}" for line in more),
            *(line for what, text in recorded(source) for line in _wrapped(what, text)),
            f"  files: {where(source)}",
            f"  {'id':<{width}}  {'docs':>9}  {'queries':>9}  {'qrels':>9}",
        ]
        family = [i for i in ids if i == source.dataset_id or i.startswith(source.dataset_id + "/")]
        for dataset_id in family:
            counts = [_count(dataset_id, e) for e in ("docs", "queries", "qrels")]
            shown = [f"{c:>9,}" if c is not None else f"{'-':>9}" for c in counts]
            lines.append(f"  {dataset_id:<{width}}  {'  '.join(shown)}")
    return "\n".join(lines) + "\n"
