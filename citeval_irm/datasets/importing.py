"""``citeval import NAME DIR``: check a hand-downloaded corpus folder and install it.

FullTextPeerRead, RefSeer and arXiv exist only in a Google Drive folder that programs cannot
fetch reliably, so users download them by hand. Before such a folder is trusted it is read
completely with the loader's own parsers: every file present and of the right JSON shape,
counts equal to the published ones, every split's context ids in ``contexts.json`` and every
positive id in ``papers.json``. Only then are the files copied (or linked) into the
ir_datasets home, each atomically.

Memory: the check holds the paper ids and context ids as Python sets (for arXiv about
1.7 + 3.2 million short strings, a few hundred MB), never the records.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..downloads import verify_file
from ..errors import EvalWarning, InputError
from .hatten import (
    CONTEXTS,
    FILES,
    NOTE_MESSAGES,
    PAPERS,
    SPLITS,
    HattenCorpus,
    get_corpus,
    iter_split,
    parse_context,
    parse_object_file,
    parse_paper,
)
from .jsonstream import Notes

SPLIT_NOTES = {
    "split_not_one_positive": "split entries whose positive_ids does not hold exactly one id",
    "split_positive_not_in_id": "split entries whose positive id is not the <cited> part of "
    "their context id <citing>_<cited>_<n>",
    "count_mismatch": "counts that differ from the published ones (imported anyway)",
}


@dataclass
class ImportReport:
    """What a folder holds and what was tolerated; ``target`` is where it was installed
    (``None`` after a check only)."""

    corpus: HattenCorpus
    folder: Path
    counts: dict[str, int]
    warnings: list[EvalWarning] = field(default_factory=list)
    target: Path | None = None

    def published(self, what: str) -> int:
        return self.corpus.counts.docs if what == "papers" else self.corpus.counts.split(what)

    def text(self) -> str:
        """A summary for people: counts against the published ones, then warnings."""
        action = f"installed into {self.target}" if self.target else "checked"
        lines = [f"{self.corpus.dataset_id}: {self.folder} {action}"]
        for what, count in self.counts.items():
            published = "" if what == "contexts" else f" (published {self.published(what):,})"
            lines.append(f"  {what}: {count:,}{published}")
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        return "\n".join(lines) + "\n"


def _check_files(corpus: HattenCorpus, folder: Path) -> None:
    if not folder.is_dir():
        raise InputError(str(folder), "no such folder")
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        raise InputError(
            str(folder),
            f"missing {', '.join(missing)}: a {corpus.pretty_name} folder holds {', '.join(FILES)}",
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
    folder: Path, paper_ids: set[str], context_ids: set[str], notes: Notes
) -> dict[str, int]:
    counts = {}
    for split in SPLITS:
        path = folder / f"{split}.json"
        seen: set[str] = set()
        for entry in iter_split(path):
            where = f"record {entry.record} (context {entry.context_id!r})"
            if entry.context_id in seen:
                raise InputError(str(path), f"{where}: the context occurs twice in this split")
            seen.add(entry.context_id)
            if entry.context_id not in context_ids:
                raise InputError(str(path), f"{where}: not in {CONTEXTS}")
            for positive in entry.positive_ids:
                if positive not in paper_ids:
                    raise InputError(str(path), f"{where}: positive {positive!r} not in {PAPERS}")
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
    corpus = get_corpus(name)
    folder = Path(folder).expanduser()
    _check_files(corpus, folder)
    notes = Notes({**NOTE_MESSAGES, **SPLIT_NOTES})
    paper_ids = _unique_ids(folder / PAPERS, parse_paper, corpus.id_scheme, notes)
    context_ids = _unique_ids(folder / CONTEXTS, parse_context, corpus.id_scheme, notes)
    counts = {"papers": len(paper_ids), "contexts": len(context_ids)}
    counts.update(_check_splits(folder, paper_ids, context_ids, notes))
    report = ImportReport(corpus, folder, counts)
    differ = [
        f"{what} {count:,} (published {report.published(what):,})"
        for what, count in counts.items()
        if what != "contexts" and count != report.published(what)
    ]
    if differ and not allow_count_mismatch:
        raise InputError(
            str(folder),
            f"not the published {corpus.pretty_name}: {'; '.join(differ)}. "
            "Pass --allow-count-mismatch (allow_count_mismatch=True) to import it anyway",
        )
    for mismatch in differ:
        notes.add("count_mismatch", mismatch)
    report.warnings = notes.warnings()
    return report


def import_dataset(
    name: str,
    folder: str | os.PathLike,
    *,
    symlink: bool = False,
    allow_count_mismatch: bool = False,
) -> ImportReport:
    """Check a corpus folder (see :func:`validate_folder`) and install its five files into
    the ir_datasets home, copied (or symlinked), each file replaced atomically. Stores built
    from earlier files are rebuilt on next use."""
    report = validate_folder(name, folder, allow_count_mismatch=allow_count_mismatch)
    target = report.corpus.home()
    target.mkdir(parents=True, exist_ok=True)
    for file_name in FILES:
        source = report.folder / file_name
        part = target / f".{file_name}.importing"
        if part.is_symlink() or part.exists():
            part.unlink()
        if symlink:
            part.symlink_to(source.resolve())
        else:
            shutil.copyfile(source, part)
        os.replace(part, target / file_name)
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
