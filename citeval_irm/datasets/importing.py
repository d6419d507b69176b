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

import difflib
import os
import shutil
import uuid
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..downloads import ChecksumError, read_record, verify_file, write_record
from ..errors import EvalWarning, InputError
from ..locking import exclusive
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
from .sources import CorpusSource, check_folder, verify_corpus_file
from .stores import store_problem

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


def check_files(corpus: CorpusSource, folder: Path, *, in_place: bool = False) -> list:
    """Fail unless ``folder`` holds every file of the corpus, with its pinned checksum;
    ``in_place`` (a folder read through ``CITEVAL_<NAME>_DIR``, which may hold any version)
    turns a checksum mismatch into the returned warnings."""
    if not folder.is_dir():
        raise InputError(str(folder), "no such folder")
    files = corpus.file_names()
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        raise InputError(
            str(folder),
            f"missing {', '.join(missing)}: a {corpus.pretty_name} folder holds {', '.join(files)}",
        )
    unpinned = []
    for name, checksum in corpus.checksums.items():
        try:
            verify_file(
                folder / name,
                checksum,
                name=f"{folder / name} (not the pinned {corpus.pretty_name} release; "
                f"set {corpus.env_var} to use this folder unverified)",
            )
        except ChecksumError:
            if not in_place:
                raise
            unpinned.append(name)
    if not unpinned:
        return []
    message = f"files that are not the pinned {corpus.pretty_name} release (read unverified)"
    return [EvalWarning("not_pinned", message, len(unpinned), tuple(unpinned))]


def _ids(path: Path, parse, scheme: str, notes: Notes) -> set[str]:
    """The ids of a ``{id: record}`` file, each record checked with ``parse`` (a repeated
    key is an error there, for the loaders too)."""
    return {parsed[0] for parsed in parse_object_file(path, parse, scheme, notes)}


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


def corpus_named(name: str, *, importable: bool = False) -> CorpusSource:
    """A corpus by short name (``refseer``) or dataset id (``citeval/refseer``); with
    ``importable``, one that ``citeval import`` can install (not the shipped demo)."""
    from .masterset import MASTERSET_CORPORA

    key = name.removeprefix("citeval/")
    if key in MASTERSET_CORPORA:
        return MASTERSET_CORPORA[key]
    if key in CORPORA and not (importable and CORPORA[key].packaged is not None):
        return CORPORA[key]
    if key in CORPORA:
        raise InputError(None, f"{name!r} ships inside citeval-irm: there is nothing to import")
    names = [k for k, c in CORPORA.items() if not (importable and c.packaged is not None)]
    known = [*names, *MASTERSET_CORPORA]
    close = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise InputError(None, f"unknown dataset {name!r}{hint} (known: {', '.join(known)})")


def validate_folder(
    name: str, folder: str | os.PathLike, *, allow_count_mismatch: bool = False
) -> ImportReport:
    """Read a corpus folder completely and check it; raise :class:`InputError` naming the
    file, record and problem at the first fault. Counts that differ from the published
    ones are an error unless ``allow_count_mismatch`` (then a warning)."""
    return validate_corpus_folder(
        corpus_named(name, importable=True),
        Path(folder).expanduser(),
        allow_count_mismatch=allow_count_mismatch,
    )


def validate_corpus_folder(
    corpus: CorpusSource,
    folder: Path,
    *,
    allow_count_mismatch: bool = False,
    in_place: bool = False,
) -> ImportReport:
    """The checks of :func:`validate_folder` for one corpus: the same for ``citeval
    import`` and for a folder read in place (``in_place``: counts and pinned checksums
    that differ are warnings, since such a folder may hold any version)."""
    from .masterset import MasterSetCorpus, validate_masterset_folder

    unpinned = check_files(corpus, folder, in_place=in_place)
    if isinstance(corpus, MasterSetCorpus):
        report = validate_masterset_folder(corpus, folder)
    else:
        report = _validate_hatten_folder(corpus, folder)
    report.warnings.extend(unpinned)
    differ = report.differences()
    if differ and not (allow_count_mismatch or in_place):
        raise InputError(
            str(folder),
            f"not the published {report.corpus.pretty_name}: {'; '.join(differ)}. "
            "Pass --allow-count-mismatch (in Python, the allow_count_mismatch argument) to "
            "import it anyway",
        )
    if differ:
        report.warnings.append(
            EvalWarning("count_mismatch", SPLIT_NOTES["count_mismatch"], len(differ), tuple(differ))
        )
    return report


def _validate_hatten_folder(corpus: HattenCorpus, folder: Path) -> ImportReport:
    notes = Notes({**NOTE_MESSAGES, **SPLIT_NOTES})
    layout, scheme = corpus.layout, corpus.id_scheme
    parse_doc = partial(parse_paper, doc_cls=corpus.doc_cls)
    parse_ctx = partial(parse_context, context_cls=corpus.context_cls)
    paper_ids = _ids(folder / layout.papers, parse_doc, scheme, notes)
    context_ids = _ids(folder / layout.contexts, parse_ctx, scheme, notes)
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
    ir_datasets home, copied (or symlinked) and recorded (size, sha256, origin: see
    :func:`citeval_irm.downloads.write_record`): all of them or none (see :func:`install`).
    Stores built from earlier files are rebuilt on next use."""
    report = validate_folder(name, folder, allow_count_mismatch=allow_count_mismatch)
    report.target = install(report.corpus, report.folder, symlink=symlink)
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


# --------------------------------------------------------------------------- installing
#
# ``<home>/citeval/<name>`` is a symbolic link to one complete install,
# ``<home>/citeval/.<name>.installs/<id>/``. An import writes a new install beside the
# current one and switches the link with one rename, so a reader sees the old files or the
# new ones, never a mix, and a killed import leaves the old install as it was.


def _installs(corpus: CorpusSource) -> Path:
    return corpus.home().with_name(f".{corpus.name}.installs")


def _file_state(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def install(corpus: CorpusSource, folder: Path, *, symlink: bool = False) -> Path:
    """Install the corpus's files from ``folder`` (already checked) as one new install, then
    switch to it atomically; return the install path users see. One import at a time (a
    lock); what an interrupted import left is removed first. A file that changes while it
    is copied is an error; ``symlink`` refuses files inside the install itself (linking a
    file to itself would destroy it)."""
    home = corpus.home()
    installs = _installs(corpus)
    sources = {name: folder / name for name in corpus.file_names()}
    with exclusive(home.with_name(f".{corpus.name}.lock"), f"installing {corpus.dataset_id}"):
        if symlink:
            _refuse_own_files(corpus, sources)
        current = home.resolve() if home.is_symlink() else None
        _remove_leftovers(corpus, keep=current)
        fresh = installs / uuid.uuid4().hex
        fresh.mkdir(parents=True)
        try:
            for name, source in sources.items():
                before = _file_state(source)
                target = fresh / name
                if symlink:
                    target.symlink_to(source.resolve())
                else:
                    shutil.copyfile(source, target)
                if _file_state(source) != before:
                    raise InputError(str(source), "changed while it was imported: import again")
                write_record(target, str(source.resolve()), corpus.checksums.get(name))
            _switch(home, fresh)
        except BaseException:  # Ctrl-C too: the old install stays, the new one goes
            shutil.rmtree(fresh, ignore_errors=True)
            raise
    return home


def _refuse_own_files(corpus: CorpusSource, sources: dict[str, Path]) -> None:
    own = [_installs(corpus).resolve(), corpus.home().resolve()]
    for source in sources.values():
        resolved = source.resolve()
        if any(resolved.is_relative_to(root) for root in own):
            raise InputError(
                str(source),
                f"is citeval's own installed copy ({resolved}): --symlink would link it to "
                "itself and lose it. Import from the folder you downloaded the files to, or "
                "without --symlink (a copy); `citeval verify "
                f"{corpus.name}` checks the installed files",
            )


def _remove_leftovers(corpus: CorpusSource, keep: Path | None) -> None:
    """Remove installs other than ``keep`` and links of interrupted imports."""
    installs = _installs(corpus)
    if installs.is_dir():
        for entry in installs.iterdir():
            if keep is None or entry.resolve() != keep:
                shutil.rmtree(entry, ignore_errors=True)
    for link in corpus.home().parent.glob(f".{corpus.name}.link-*"):
        link.unlink(missing_ok=True)


def _switch(home: Path, fresh: Path) -> None:
    """Point ``home`` at ``fresh`` with one rename, then remove the install it replaced."""
    link = home.with_name(f".{home.name}.link-{uuid.uuid4().hex}")
    link.symlink_to(os.path.relpath(fresh, home.parent))
    if home.is_symlink():
        previous = home.resolve()
    elif home.exists():  # a plain folder (downloads, an older citeval-irm): moved aside
        previous = fresh.with_name(f"previous-{uuid.uuid4().hex}")
        os.rename(home, previous)
    else:
        previous = None
    os.replace(link, home)
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


# --------------------------------------------------------------------------- verifying


def verify_corpus(name: str) -> str:
    """``citeval verify NAME``: check every file of a corpus where it is read from, in
    full (the whole sha256 against its record or published checksum; a folder read in
    place with the checks of ``citeval import`` again), and its stores against their stamps.
    Raises at the first file that fails; returns a summary for people."""
    corpus = corpus_named(name)
    lines = [f"{corpus.dataset_id}:"]
    folder = os.environ.get(corpus.env_var)
    if folder:
        check_folder(corpus, Path(folder).expanduser(), force=True)
        lines.append(f"  {folder} ({corpus.env_var}): passed the checks of `citeval import`")
    elif corpus.packaged is not None:
        lines.append("  shipped inside citeval-irm: nothing to verify")
        return "\n".join(lines) + "\n"
    else:
        for file_name in corpus.file_names():
            path = corpus.home() / file_name
            if not path.is_file() and corpus.url(file_name) is not None:
                lines.append(f"  {file_name}: not downloaded yet")
                continue
            verify_corpus_file(corpus, file_name, full=True)
            record = read_record(path) or {}
            checked = record.get("published") or f"sha256:{record.get('sha256')}"
            lines.append(f"  {file_name}: ok, {path.stat().st_size:,} bytes, {checked}")
    home = corpus.home()
    for store in sorted(home.glob("*.pklz4")) if home.is_dir() else []:
        problem, stamp = store_problem(store)
        if problem is None:
            lines.append(f"  {store.name}: ok, {stamp['files']['records']:,} records")
        else:
            lines.append(f"  {store.name}: {problem}: rebuilt on next use")
    return "\n".join(lines) + "\n"
