"""``citeval import NAME DIR``: check a hand-downloaded corpus folder and install it.

FullTextPeerRead, RefSeer and arXiv exist only in a Google Drive folder that programs cannot
fetch reliably, so users download them by hand; ArSyTa and MasterSet may be fetched by hand
from Hugging Face too. Before such a folder is trusted it is read completely with the
loader's own parsers: every file present and of the right shape, counts equal to the
published ones, every split's context ids in the contexts file and every positive id in the
papers file (each format's ``read_folder``; the shared checks are in :mod:`.validation`).
Only then are the files copied (or linked) into the ir_datasets home, each atomically, and
recorded (size, sha256) so that a later change is detected.
"""

from __future__ import annotations

import difflib
import os
import shutil
import uuid
from pathlib import Path

from ..downloads import read_record, write_record
from ..errors import EvalWarning, InputError
from ..locking import exclusive
from .catalogue import by_name
from .sources import CorpusSource, check_folder, verify_corpus_file
from .stores import store_problem
from .validation import ImportReport, validate_corpus_folder


def corpus_named(name: str, *, importable: bool = False) -> CorpusSource:
    """A corpus by short name (``refseer``) or dataset id (``citeval/refseer``); with
    ``importable``, one that ``citeval import`` can install (not the shipped demo)."""
    key = name.removeprefix("citeval/")
    corpora = by_name()
    if key in corpora and importable and corpora[key].packaged is not None:
        raise InputError(None, f"{name!r} ships inside citeval-irm: there is nothing to import")
    if key in corpora:
        return corpora[key]
    known = [n for n, c in corpora.items() if not (importable and c.packaged is not None)]
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
