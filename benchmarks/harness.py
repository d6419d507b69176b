"""Timing and peak memory of whole processes, shared by the benchmarks.

``peak_rss_mb()`` is the one peak-memory helper: a process measuring itself (a benchmark phase)
reads its ``VmHWM``. ``run_once`` / ``measure`` time a command (an argv list) as a whole
process and get its peak RSS from outside, through ``wrap.py``; ``markdown_table`` prints
the medians with ratios against chosen reference rows. MB here is 2**20 bytes: the kernel's
"kB" are KiB.

Why a wrapper, and not ``ru_maxrss`` of a child we spawn ourselves (checked on Linux 6.18):
``ru_maxrss`` of a reaped child is the larger of the child's own peak and a value it
*inherits at exec*: the kernel saves the high-water mark of the memory image that ``exec``
replaces. With ``subprocess`` (``vfork`` / ``posix_spawn``) that image is the parent's, so a
``python -c pass`` child of an 800 MB parent reports 813 MB; after a plain ``fork`` it is the
copy of the parent (810 MB while the parent holds its data). ``VmHWM`` of the child itself is
exact but disappears when the child exits, before it can be reaped, and polling it misses the
last growth. So the parent starts ``wrap.py`` (a ~9 MB interpreter without ``site``), which
forks and execs the command and reaps it with ``os.wait4``: the inherited value is then the
wrapper's own size (a few MB, ``floor_mb()``), not the benchmark's, and ``ru_maxrss`` is the
command's own peak, ``python -c pass`` reporting 13 MB, as its own ``VmHWM`` says. Figures at
or below the floor are upper bounds, and ``markdown_table`` marks them.

Every command runs with Python's bytecode cache on (``child_environment``), as a package
installed by pip runs (pip compiles it at install): where ``PYTHONDONTWRITEBYTECODE`` is set
(some sandboxes set it), a Python command would otherwise compile each of its own modules
at every start (citeval: about 120, 50 ms), which no installed tool pays. The cache is
kept in a folder of the system's temporary directory (``PYTHONPYCACHEPREFIX``), never
beside the sources; its first use compiles what a command imports, so a benchmark warms
each command once before timing it (``bench_scoring.run_rows``).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

WRAPPER = Path(__file__).with_name("wrap.py")
BYTECODE = Path(tempfile.gettempdir()) / f"citeval-bench-bytecode-{os.getuid()}"


def child_environment() -> dict[str, str]:
    """This process's environment with Python's bytecode cache on, kept in
    :data:`BYTECODE` (see the module's docstring)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(BYTECODE))
    return env


def peak_rss_mb(pid: int | str = "self") -> float:
    """Peak resident memory of a live process (``VmHWM``), in MB; this process by default.

    Falls back to ``ru_maxrss`` of this process where ``/proc`` does not exist."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        if pid != "self":
            raise
    scale = 1 / 2**20 if sys.platform == "darwin" else 1 / 1024  # bytes there, KiB here
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


@dataclass(frozen=True)
class Sample:
    """One run of a command: wall time of the process, its peak RSS, its exit code, and its
    CPU time (user + system: what a busy machine inflates less than the wall time)."""

    seconds: float
    peak_rss_mb: float
    returncode: int
    cpu_seconds: float = float("nan")


def run_once(
    argv: Sequence[str],
    stdout: Path | None = None,
    stderr: Path | None = None,
    env: dict[str, str] | None = None,
) -> Sample:
    """Run ``argv`` once under ``wrap.py``; its output goes to the given files (else nowhere).

    The time is taken in the wrapper from just before ``fork`` to just after ``wait4``: the
    command's whole life, imports and output included, not the wrapper's own start-up.
    ``env``: the command's environment (default :func:`child_environment`)."""
    read_end, write_end = os.pipe()
    command = [sys.executable, "-S", "-E", str(WRAPPER), str(write_end), *argv]
    with (
        open(stdout or os.devnull, "wb") as out,
        open(stderr or os.devnull, "wb") as err,
    ):
        try:
            done = subprocess.run(
                command,
                stdout=out,
                stderr=err,
                env=child_environment() if env is None else env,
                pass_fds=(write_end,),
                check=False,
            )
        finally:
            os.close(write_end)
        with os.fdopen(read_end) as report:
            fields = report.read().split()
    if done.returncode or len(fields) != 4:
        raise RuntimeError(f"wrap.py failed (status {done.returncode}) on {list(argv)}")
    return Sample(float(fields[0]), int(fields[1]) / 1024, int(fields[2]), float(fields[3]))


def floor_mb() -> float:
    """The peak RSS ``run_once`` reports for ``true``, a program of about 1 MB: the most a
    measured command can inherit from the wrapper."""
    return run_once(["true"]).peak_rss_mb


@dataclass
class Row:
    """A benchmark row: a command, its samples, or why it was not run (``status``)."""

    name: str
    argv: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.samples)

    @property
    def median_seconds(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def median_cpu_seconds(self) -> float:
        return statistics.median(s.cpu_seconds for s in self.samples)

    @property
    def peak_rss_mb(self) -> float:
        """The largest peak over the repeats (a peak, not a typical value)."""
        return max(s.peak_rss_mb for s in self.samples)

    def add(self, sample: Sample, stderr: Path | None = None) -> None:
        """Keep ``sample``; a non-zero exit marks the row failed, with its last error line."""
        self.samples.append(sample)
        if sample.returncode:
            tail = stderr.read_text(errors="replace").strip().splitlines()[-1:] if stderr else []
            reason = "".join(f": {line[:160]}" for line in tail)
            self.status = f"failed (exit {sample.returncode}){reason}"

    def to_json(self) -> dict:
        out: dict = {"name": self.name, "argv": self.argv, "status": self.status}
        out["note"] = self.note
        out["samples"] = [s.__dict__ for s in self.samples]
        if self.ok:
            out.update(median_seconds=self.median_seconds, peak_rss_mb=self.peak_rss_mb)
        return out


def measure(row: Row, repeat: int, stdout: Path | None = None, stderr: Path | None = None) -> Row:
    """Run ``row.argv`` ``repeat`` times (stopping at the first failure); return the row."""
    for _ in range(repeat):
        row.add(run_once(row.argv, stdout, stderr), stderr)
        if not row.ok:
            break
    return row


def ratio(row: Row, reference: Row | None) -> float | None:
    """``row``'s median time over ``reference``'s (< 1: faster), or None if either is missing."""
    if reference is None or not (row.ok and reference.ok):
        return None
    return row.median_seconds / reference.median_seconds


def markdown_table(rows: Sequence[Row], references: Sequence[str], floor: float = 0.0) -> str:
    """Rows as a markdown table: median s, each run, ``x REF`` = median / REF's median (< 1:
    faster than REF) for each named reference row, peak RSS MB, note.

    A peak RSS at or below ``floor`` (see ``floor_mb``) is printed as ``<= floor``."""
    by_name = {row.name: row for row in rows}
    head = ["row", "median s", "runs s", *(f"x {name}" for name in references), "peak RSS MB"]
    lines = ["| " + " | ".join([*head, "note"]) + " |", "|" + " --- |" * (len(head) + 1)]
    for row in rows:
        if not row.ok:
            cells = [row.name, "-", "-", *("-" for _ in references), "-", row.status]
        else:
            ratios = [ratio(row, by_name.get(name)) for name in references]
            rss = row.peak_rss_mb
            cells = [
                row.name,
                f"{row.median_seconds:.2f}",
                " ".join(f"{s.seconds:.2f}" for s in row.samples),
                *("-" if r is None else f"{r:.2f}" for r in ratios),
                f"<= {floor:.0f}" if rss <= floor else f"{rss:,.0f}",
                row.note,
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def package_versions(packages) -> dict[str, str | None]:
    """The installed version of each package (``None``: not installed), for a report."""
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for package in packages:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
