"""The checks of a corpus folder shared by every format: its files and pinned checksums,
and its counts against the published ones (the format reads the records:
:meth:`.sources.CorpusSource.read_folder`). ``citeval import`` and folders read in place
(``CITEVAL_<NAME>_DIR``) both go through :func:`validate_corpus_folder`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..base.downloads import Checksum, ChecksumError, verify_file
from ..base.errors import EvalWarning, InputError


class Corpus(Protocol):
    """What the checks read of a corpus (a :class:`.sources.CorpusSource`, which calls
    them: this module sits below it and does not import it)."""

    @property
    def pretty_name(self) -> str: ...

    @property
    def licence_notice(self) -> str | None: ...

    @property
    def checksums(self) -> Mapping[str, Checksum]: ...

    @property
    def aliases(self) -> Mapping[str, str]: ...

    @property
    def dataset_id(self) -> str: ...

    @property
    def env_var(self) -> str: ...

    def file_names(self) -> tuple[str, ...]: ...

    def in_folder(self, folder: Path, name: str) -> Path: ...

    def read_folder(self, folder: Path) -> ImportReport[Any]: ...


C = TypeVar("C", bound=Corpus)
"""The corpus an :class:`ImportReport` is of (a :class:`.sources.CorpusSource` for the
callers that install it)."""


COUNT_MISMATCH = "counts that differ from the published ones (imported anyway)"


@dataclass
class ImportReport(Generic[C]):
    """What a folder holds and what was tolerated; ``target`` is where it was installed
    (``None`` after a check only). ``published_counts`` holds the published figure of each
    count that has one."""

    corpus: C
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


def check_files(corpus: Corpus, folder: Path, *, in_place: bool = False) -> list:
    """Fail unless ``folder`` holds every file of the corpus, with its pinned checksum;
    ``in_place`` (a folder read through ``CITEVAL_<NAME>_DIR``, which may hold any version)
    turns a checksum mismatch into the returned warnings."""
    if not folder.is_dir():
        raise InputError(str(folder), "no such folder")
    files = corpus.file_names()
    missing = [name for name in files if not corpus.in_folder(folder, name).is_file()]
    if missing:
        named = [f"{n} (or {corpus.aliases[n]})" if n in corpus.aliases else n for n in files]
        raise InputError(
            str(folder),
            f"missing {', '.join(missing)}: a {corpus.pretty_name} folder holds {', '.join(named)}",
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


def validate_corpus_folder(
    corpus: C,
    folder: Path,
    *,
    allow_count_mismatch: bool = False,
    in_place: bool = False,
) -> ImportReport[C]:
    """The checks of :func:`.importing.validate_folder` for one corpus: the same for ``citeval
    import`` and for a folder read in place (``in_place``: counts and pinned checksums
    that differ are warnings, since such a folder may hold any version)."""
    unpinned = check_files(corpus, folder, in_place=in_place)
    report = corpus.read_folder(folder)
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
            EvalWarning("count_mismatch", COUNT_MISMATCH, len(differ), tuple(differ))
        )
    return report
