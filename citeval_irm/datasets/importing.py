"""``citeval import NAME DIR``: check a hand-downloaded corpus folder and install it.

FullTextPeerRead, RefSeer and arXiv exist only in a Google Drive folder that programs cannot
fetch reliably, so users download them by hand; ArSyTa and MasterSet may be fetched by hand
from Hugging Face too. Before such a folder is trusted it is read completely with the
loader's own parsers: every file present and of the right shape, counts equal to the
published ones, every split's context ids in the contexts file and every positive id in the
papers file (MasterSet: see :func:`.masterset.validate_masterset_folder`). Only then are the
files copied (or linked) into the ir_datasets home, each atomically, and recorded (size,
sha256) so that a later change is detected.

Memory: the check holds the paper ids and context ids as Python sets (for arXiv about
1.7 + 3.2 million short strings, a few hundred MB; for ArSyTa 0.5 + 8.3 million, about 1 GB
by estimate), never the records.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..downloads import verify_file, write_record
from ..errors import EvalWarning, InputError
from .hatten import (
    CORPORA,
    NOTE_MESSAGES,
    SPLITS,
    HattenCorpus,
    iter_split,
    parse_context,
    parse_object_file,
    parse_paper,
)
from .jsonstream import Notes
from .sources import CorpusSource

SPLIT_NOTES = {
    "split_not_one_positive": "split entries whose positive_ids does not hold exactly one id",
    "split_positive_not_in_id": "split entries whose positive id is not the <cited> part of "
    "their context id <citing>_<cited>_<n>",
    "count_mismatch": "counts that differ from the published ones (imported anyway)",
}


@dataclass
class ImportReport:
    """What a folder holds and what was tolerated; ``target`` is where it was installed
    (``None`` after a check only). ``published_counts`` holds the published figure of each
    count that has one."""

    corpus: CorpusSource
    folder: Path
    counts: dict[str, int]
    published_counts: dict[str, int] = field(default_factory=dict)
    warnings: list[EvalWarning] = field(default_factory=list)
    target: Path | None = None

    def published(self, what: str) -> int | None:
        return self.published_counts.get(what)

    def differences(self) -> list[str]:
        """Each count that differs from its published figure, for people."""
        return [
            f"{what} {count:,} (published {self.published(what):,})"
            for what, count in self.counts.items()
            if self.published(what) is not None and count != self.published(what)
        ]

    def text(self) -> str:
        """A summary for people: counts against the published ones, warnings, licence."""
        action = f"installed into {self.target}" if self.target else "checked"
        lines = [f"{self.corpus.dataset_id}: {self.folder} {action}"]
        for what, count in self.counts.items():
            published = self.published(what)
            figure = "" if published is None else f" (published {published:,})"
            lines.append(f"  {what}: {count:,}{figure}")
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        if self.corpus.licence_notice:
            lines.append(f"  licence: {self.corpus.licence_notice}")
        return "\n".join(lines) + "\n"


def check_files(corpus: CorpusSource, folder: Path) -> None:
    """Fail unless ``folder`` holds every file of the corpus, with its pinned checksum."""
    if not folder.is_dir():
        raise InputError(str(folder), "no such folder")
    files = corpus.file_names()
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        raise InputError(
            str(folder),
            f"missing {', '.join(missing)}: a {corpus.pretty_name} folder holds {', '.join(files)}",
        )
    for name, checksum in corpus.checksums.items():
        verify_file(
            folder / name,
            checksum,
            name=f"{folder / name} (not the pinned {corpus.pretty_name} release; "
            f"set {corpus.env_var} to use this folder unverified)",
        )


def _unique_ids(path: Path, parse, scheme: str, notes: Notes) -> set[str]:
    """The ids of a ``{id: record}`` file, each record checked with ``parse``. A repeated
    key is an error: JSON readers keep one of the two records, silently."""
    ids: set[str] = set()
    for record, parsed in enumerate(parse_object_file(path, parse, scheme, notes), start=1):
        key = parsed[0]
        if key in ids:
            raise InputError(str(path), f"record {record}: the key {key!r} occurs twice")
        ids.add(key)
    return ids


def _check_splits(
    corpus: HattenCorpus, folder: Path, paper_ids: set[str], context_ids: set[str], notes: Notes
) -> dict[str, int]:
    counts = {}
    for split in SPLITS:
        path = folder / corpus.layout.split(split)
        seen: set[str] = set()
        for entry in iter_split(path):
            where = f"record {entry.record} (context {entry.context_id!r})"
            if entry.context_id in seen:
                raise InputError(str(path), f"{where}: the context occurs twice in this split")
            seen.add(entry.context_id)
            if entry.context_id not in context_ids:
                raise InputError(str(path), f"{where}: not in {corpus.layout.contexts}")
            for positive in entry.positive_ids:
                if positive not in paper_ids:
                    raise InputError(
                        str(path), f"{where}: positive {positive!r} not in {corpus.layout.papers}"
                    )
                if f"_{positive}_" not in entry.context_id:
                    notes.add("split_positive_not_in_id", entry.context_id)
            if len(entry.positive_ids) != 1:
                notes.add("split_not_one_positive", entry.context_id)
        counts[split] = len(seen)
    return counts


def validate_folder(
    name: str, folder: str | os.PathLike, *, allow_count_mismatch: bool = False
) -> ImportReport:
    """Read a corpus folder completely and check it; raise :class:`InputError` naming the
    file, record and problem at the first fault. Counts that differ from the published
    ones are an error unless ``allow_count_mismatch`` (then a warning)."""
    from .masterset import MASTERSET_CORPORA, validate_masterset_folder

    folder = Path(folder).expanduser()
    key = name.removeprefix("citeval/")
    importable = [k for k, c in CORPORA.items() if c.packaged is None]
    if key in MASTERSET_CORPORA:
        report = validate_masterset_folder(MASTERSET_CORPORA[key], folder)
    elif key in importable:
        report = _validate_hatten_folder(CORPORA[key], folder)
    elif key in CORPORA:
        raise InputError(None, f"{name!r} ships inside citeval-irm: there is nothing to import")
    else:
        known = ", ".join([*importable, *MASTERSET_CORPORA])
        raise InputError(None, f"unknown dataset {name!r}; known: {known}")
    differ = report.differences()
    if differ and not allow_count_mismatch:
        raise InputError(
            str(folder),
            f"not the published {report.corpus.pretty_name}: {'; '.join(differ)}. "
            "Pass --allow-count-mismatch (allow_count_mismatch=True) to import it anyway",
        )
    if differ:
        report.warnings.append(
            EvalWarning("count_mismatch", SPLIT_NOTES["count_mismatch"], len(differ), tuple(differ))
        )
    return report


def _validate_hatten_folder(corpus: HattenCorpus, folder: Path) -> ImportReport:
    check_files(corpus, folder)
    notes = Notes({**NOTE_MESSAGES, **SPLIT_NOTES})
    layout, scheme = corpus.layout, corpus.id_scheme
    parse_doc = partial(parse_paper, doc_cls=corpus.doc_cls)
    parse_ctx = partial(parse_context, context_cls=corpus.context_cls)
    paper_ids = _unique_ids(folder / layout.papers, parse_doc, scheme, notes)
    context_ids = _unique_ids(folder / layout.contexts, parse_ctx, scheme, notes)
    counts = {"papers": len(paper_ids), "contexts": len(context_ids)}
    counts.update(_check_splits(corpus, folder, paper_ids, context_ids, notes))
    published = {"papers": corpus.counts.docs, **{s: corpus.counts.split(s) for s in SPLITS}}
    return ImportReport(corpus, folder, counts, published, notes.warnings())


def import_dataset(
    name: str,
    folder: str | os.PathLike,
    *,
    symlink: bool = False,
    allow_count_mismatch: bool = False,
) -> ImportReport:
    """Check a corpus folder (see :func:`validate_folder`) and install its files into the
    ir_datasets home, copied (or symlinked), each file replaced atomically and recorded
    (size, sha256, origin: see :func:`citeval_irm.downloads.write_record`). Stores built
    from earlier files are rebuilt on next use."""
    report = validate_folder(name, folder, allow_count_mismatch=allow_count_mismatch)
    target = report.corpus.home()
    target.mkdir(parents=True, exist_ok=True)
    for file_name in report.corpus.file_names():
        source = report.folder / file_name
        part = target / f".{file_name}.importing"
        if part.is_symlink() or part.exists():
            part.unlink()
        if symlink:
            part.symlink_to(source.resolve())
        else:
            shutil.copyfile(source, part)
        os.replace(part, target / file_name)
        write_record(target / file_name, str(source.resolve()))
    report.target = target
    if os.environ.get(report.corpus.env_var):
        report.warnings.append(
            EvalWarning(
                "env_folder_wins",
                f"{report.corpus.env_var} is set: the loader reads that folder, not the "
                "installed copy, until it is unset",
                1,
            )
        )
    return report
