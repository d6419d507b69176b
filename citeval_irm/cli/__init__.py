"""The ``citeval`` command line: a thin layer over the Python API.

Each subcommand parses its arguments and calls one public function: its options are
declared once in :mod:`.flags`, each command's parser is built in :mod:`.parser`, and its
handler, in :mod:`.commands` or :mod:`.data_commands`, reads its arguments once
(:mod:`.invocation`) and calls the function.
Results go to standard output (so ``--format trec_eval`` output can be diffed), warnings and
errors to standard error; bad input exits with status 2 and a message naming the file, line
and problem.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Sequence

from ..base.errors import CitevalError, EvalWarning
from ..base.progress import set_quiet
from .flags import EXIT_INPUT_ERROR, EXIT_INTERRUPTED, EXIT_STRICT_FAILURE
from .invocation import check_report, say
from .parser import build_parser, command_of

__all__ = [
    "EXIT_INPUT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_STRICT_FAILURE",
    "build_parser",
    "main",
    "run",
]


def _os_error(exc: OSError) -> str:
    """One line for an OSError no command expected (the file, the system's reason)."""
    from ..base.outputs import WRITE_ERRNOS, output_error

    if exc.errno in WRITE_ERRNOS:
        return str(output_error(exc.filename or "a file", exc))
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


class Interrupted(BaseException):
    """Ctrl-C, raised in place of ``KeyboardInterrupt``, which ir_datasets' commands catch
    and turn into exit status 0."""


_INTERRUPTS: list[float] = []
"""When Ctrl-C came: C code running at that moment (a JSON stream's parser) may swallow the
exception and fail on its own, so an error after an interrupt is said as the interrupt."""


_VERBOSE = {"on": False}
"""``--verbose``: an error's details are said under its line (see ``CitevalError``)."""


def _interrupt(signum, frame) -> None:
    _INTERRUPTS.append(time.monotonic())
    raise Interrupted


@contextlib.contextmanager
def _utf8_stdout():
    """Standard output written as UTF-8 whatever the locale (``LC_ALL=C`` makes it ASCII
    when Python's UTF-8 mode is off), so a query id is printed as the bytes it was read
    from, as trec_eval (C, no encoding) prints it, and never fails to encode; errors go to
    standard error, which escapes what it cannot encode (Python's ``backslashreplace``)."""
    stdout = sys.stdout
    reconfigure = getattr(stdout, "reconfigure", None)
    encoding = (getattr(stdout, "encoding", None) or "utf-8").lower().replace("_", "-")
    if reconfigure is None or encoding in ("utf-8", "utf8"):
        yield
        return
    reconfigure(encoding="utf-8")
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            reconfigure(encoding=encoding)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``citeval`` with ``argv`` (default: the process's arguments); the exit status.

    Standard output is guarded for the command (:func:`~citeval_irm.base.outputs.
    guarded_stdout`: closed or full, it is an error saying so) and its outputs recorded, so
    that an error part way says which files were written in full and which were not; an
    error is said in one line (``citeval: error: ...``, exit 2), Ctrl-C as an interrupt."""
    from ..base.outputs import guarded_stdout, recorded_outputs

    given = list(sys.argv[1:] if argv is None else argv)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _interrupt) if in_main_thread else None
    _INTERRUPTS.clear()
    with _utf8_stdout(), guarded_stdout() as stdout, recorded_outputs() as record:
        try:
            code = _command(given)
            if code == 0 or stdout.failure is None:  # a command that failed said its failure
                stdout.flush()  # a full disk said now, not lost in the flush at exit
            return code
        except (Interrupted, KeyboardInterrupt):
            say(f"citeval: interrupted{record.said()}")
            return EXIT_INTERRUPTED
        except CitevalError as exc:
            if _INTERRUPTS:  # the interrupt, failed in C code that swallowed it
                say(f"citeval: interrupted{record.said()}")
                return EXIT_INTERRUPTED
            verbose = _VERBOSE["on"]
            more = " (details: --verbose)" if exc.details and not verbose else ""
            say(f"citeval: error: {exc}{more}{record.said()}")
            for detail in exc.details if verbose else ():  # wrapped, addresses kept whole
                for line in textwrap.wrap(
                    detail, 96, break_long_words=False, break_on_hyphens=False
                ):
                    say(f"  {line}")
            return EXIT_INPUT_ERROR
        except BrokenPipeError:  # e.g. `citeval eval ... | head`
            return 0
        except OSError as exc:  # a vanished file: said, not a traceback
            if _INTERRUPTS:
                say(f"citeval: interrupted{record.said()}")
                return EXIT_INTERRUPTED
            say(f"citeval: error: {_os_error(exc)}{record.said()}")
            return EXIT_INPUT_ERROR
        finally:
            set_quiet(False)
            _VERBOSE["on"] = False
            if in_main_thread:
                signal.signal(signal.SIGINT, previous)


def _command(given: list[str]) -> int:
    """The command of ``given`` run: ``citeval trec_eval``'s own command line, or one of
    argparse's (whose ``--help`` text is flushed before its exit, so a full standard
    output is said)."""
    if given[:1] == ["trec_eval"]:  # trec_eval's own command line, not argparse's
        from .trec_eval import main as trec_eval_main

        return trec_eval_main(given[1:])
    if given[:1] == ["eval"]:  # trec_eval's flags there: name what citeval takes instead
        from .trec_eval_options import eval_hint

        hint = eval_hint(given[1:])
        if hint is not None:
            say(f"citeval: error: {hint}")
            return EXIT_INPUT_ERROR
    parser = build_parser(command_of(given))
    try:
        args = parser.parse_args(given)
    except SystemExit:
        sys.stdout.flush()  # argparse's help swallows a failed write: it is said here
        raise
    args.command_line = shlex.join(["citeval", *given])
    args.started = time.perf_counter()
    handler: Callable[[argparse.Namespace], int] = args.handler
    set_quiet(getattr(args, "quiet", False))
    _VERBOSE["on"] = args.verbose
    check_report(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalWarning)  # each command prints its own
        return handler(args)


def run() -> None:
    """The ``citeval`` console script: :func:`main`, then an exit that runs the exit
    handlers but does not tear the interpreter down. Native reader threads (Arrow's parsing
    ahead of a file that turned out corrupt) can still be winding down then, and tearing
    down under them aborts the process after the error was said (exit 134, not 2)."""
    import atexit

    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # closed (None) too
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)
