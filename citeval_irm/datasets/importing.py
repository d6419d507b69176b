"""``citeval import NAME DIR``: check a hand-downloaded corpus folder and install it.

FullTextPeerRead, RefSeer and arXiv exist only in a Google Drive folder that programs cannot
fetch reliably, so users download them by hand; ArSyTa and MasterSet may be fetched by hand
from Hugging Face too. Before such a folder is trusted it is read completely with the
loader's own parsers: every file present and of the right shape, counts equal to the
published ones, every split's context ids in the contexts file and every positive id in the
papers file (each format's ``read_folder``; the shared checks are in :mod:`.sources`).
Only then are the files copied (or linked) into the ir_datasets home, each atomically, and
recorded (size, sha256) so that a later change is detected.
"""

from __future__ import annotations

import difflib
import os
import shutil
import uuid
from pathlib import Path

from ..base.downloads import RECORD_SUFFIX, read_record, record_path, write_record
from ..base.errors import EvalWarning, InputError
from ..base.locking import exclusive
from ..base.outputs import WORK_MARK, WRITE_ERRNOS, output_error
from .catalogue import by_name
from .sources import (
    CorpusSource,
    ImportReport,
    check_folder,
    validate_corpus_folder,
    verify_corpus_file,
)
from .stores import store_problem


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
    :func:`citeval_irm.base.downloads.write_record`): all of them or none (see :func:`install`).
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
#
# Only what the package made is ever removed: an install holds the marker OWNED from its
# first moment; a plain folder at ``<name>`` is the package's only if everything in it is
# something it writes there (downloaded files with their records, stores, locks); a link
# is the package's only if it points at one of its installs. Anything else is the user's:
# the import stops and says what to do, and nothing is touched.

OWNED = ".citeval-install"
"""The marker file in every install folder: the package made it, so it may remove it."""


def _installs(corpus: CorpusSource) -> Path:
    return corpus.home().with_name(f".{corpus.name}.installs")


def _own_install(corpus: CorpusSource, path: Path) -> bool:
    """Whether ``path`` is one of the package's install folders (marked, or empty: an
    import killed before it marked it)."""
    if path.is_symlink() or not path.is_dir() or path.parent != _installs(corpus).resolve():
        return False
    return (path / OWNED).is_file() or not any(path.iterdir())


def _own_entry(corpus: CorpusSource, entry: Path) -> bool:
    """Whether ``entry`` of a plain corpus folder is one the package writes there."""
    name = entry.name
    files = set(corpus.file_names())
    if name in files:
        return record_path(entry).is_file()  # downloaded (or copied) and recorded
    if name.endswith(RECORD_SUFFIX):
        return name.removesuffix(RECORD_SUFFIX) in files
    # its stores (and their stamps and temporary folders), locks, in-place memos, work names
    return ".pklz4" in name or name.endswith(".lock") or name == ".in-place" or WORK_MARK in name


def _check_replaceable(corpus: CorpusSource, home: Path) -> Path | None:
    """The install ``home`` points at, if it is the package's; ``None`` if there is none
    or it is a folder of the package's downloads; an :class:`InputError` saying what to do
    if anything there is the user's (a link to their folder, a folder with their files)."""
    todo = (
        f"Move it away (or, if it is a link, remove the link: the folder it points at stays) "
        f"and import again, or set {corpus.env_var} to a folder to read it in place"
    )
    if home.is_symlink():
        target = home.resolve()
        if _own_install(corpus, target):
            return target
        raise InputError(
            str(home),
            f"is a link to {target} that citeval did not make: it installs its own copy "
            f"there and will not remove yours. {todo}",
        )
    if not home.exists():
        return None
    if not home.is_dir():
        raise InputError(str(home), f"is a file that citeval did not make. {todo}")
    foreign = sorted(e.name for e in home.iterdir() if not _own_entry(corpus, e))
    if foreign:
        more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        shown = ", ".join(foreign[:3]) + more
        raise InputError(
            str(home),
            f"is a folder with files citeval did not put there ({shown}): it will not "
            f"remove them. {todo}",
        )
    return None


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
    sources = {name: corpus.in_folder(folder, name) for name in corpus.file_names()}
    with exclusive(home.with_name(f".{corpus.name}.lock"), f"installing {corpus.dataset_id}"):
        current = _check_replaceable(corpus, home)
        if symlink:
            _refuse_own_files(corpus, sources)
        _remove_leftovers(corpus, keep=current)
        fresh = installs / uuid.uuid4().hex
        fresh.mkdir(parents=True)
        try:
            (fresh / OWNED).write_text(f"{corpus.dataset_id}\n", encoding="utf-8")
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
        except BaseException as exc:  # Ctrl-C too: the old install stays, the new one goes
            shutil.rmtree(fresh, ignore_errors=True)
            if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:  # a full disk
                raise output_error(home, exc) from None
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
        for entry in installs.resolve().iterdir():
            if entry != keep and _own_install(corpus, entry):
                shutil.rmtree(entry, ignore_errors=True)
    for link in corpus.home().parent.glob(f".{corpus.name}.link-*"):
        if link.is_symlink():
            link.unlink()


def _switch(home: Path, fresh: Path) -> None:
    """Point ``home`` at ``fresh`` with one rename, then remove the install it replaced."""
    link = home.with_name(f".{home.name}.link-{uuid.uuid4().hex}")
    link.symlink_to(os.path.relpath(fresh, home.parent))
    if home.is_symlink():
        previous = home.resolve()
    elif home.exists():  # the package's downloads (checked: _check_replaceable): moved aside
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
        found = store_problem(store)
        if found[0] is None:
            lines.append(f"  {store.name}: ok, {found[1]['files']['records']:,} records")
        else:
            lines.append(f"  {store.name}: {found[0]}: rebuilt on next use")
    return "\n".join(lines) + "\n"
