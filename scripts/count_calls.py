"""How many of the package's functions a call goes through, and how deep (issue 43's measure of
what a maintainer follows), with :func:`sys.setprofile`::

    python scripts/count_calls.py

Three calls, each counted warm (imports and first-use caches done by a first call, then the
second counted), or cold with ``--cold`` (the first call in a fresh interpreter, its imports'
module code included):

- ``citeval eval run.trec --qrels qrels.txt -m "RR nDCG@10"`` (the demo's files, through
  :func:`citeval_irm.cli.main`);
- ``ir_measures.citeval.calc_aggregate([RR, nDCG@10], qrels, run)`` (the provider);
- ``ir_datasets.load("citeval/demo/test").qrels_iter()`` read whole.

For each: the distinct package functions called (``module:qualified name``), the modules they
are in, and the deepest stack of package frames (frames of other libraries in between are not
counted). ``--list`` prints the functions, ``--deepest`` the deepest stack, outermost first.

Every code object of the package counts, as issue 43's figures did (310 and 198 when it was
filed): on Python 3.11 a comprehension, a generator expression and a lambda are functions of
their own, and so is the ``__init__`` that :mod:`dataclasses` writes (once per module: every
dataclass of a module has the same qualified name). The column ``written`` leaves those out:
the functions a maintainer reads in the package's source.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "citeval_irm"


class CallCounter:
    """A profile function that records the package's frames: the distinct functions, and the
    deepest run of package frames on one stack."""

    def __init__(self) -> None:
        self.functions: set[str] = set()
        self.deepest = 0
        self.deepest_stack: list[str] = []

    def __call__(self, frame, event: str, arg) -> None:
        if event != "call":
            return
        name = frame.f_globals.get("__name__", "")
        if not name.startswith(PACKAGE):
            return
        self.functions.add(f"{name}:{frame.f_code.co_qualname}")
        stack, walk = [], frame
        while walk is not None:
            module = walk.f_globals.get("__name__", "")
            if module.startswith(PACKAGE):
                stack.append(f"{module}:{walk.f_code.co_qualname}")
            walk = walk.f_back
        if len(stack) > self.deepest:
            self.deepest, self.deepest_stack = len(stack), stack[::-1]

    @property
    def modules(self) -> set[str]:
        return {function.split(":", 1)[0] for function in self.functions}

    @property
    def written(self) -> set[str]:
        """The functions written in the package's source: no comprehension, generator
        expression or lambda, no method :mod:`dataclasses` generates."""
        made = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>")
        return {f for f in self.functions if not f.endswith(made) and "__create_fn__" not in f}


def counted(call, cold: bool) -> CallCounter:
    """``call()`` once to warm up (unless ``cold``), then once under a :class:`CallCounter`."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if not cold:
            call()
        counter = CallCounter()
        sys.setprofile(counter)
        try:
            call()
        finally:
            sys.setprofile(None)
    return counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every function counted")
    parser.add_argument(
        "--deepest", action="store_true", help="print the deepest stack of package frames"
    )
    parser.add_argument(
        "--cold",
        metavar="N",
        type=int,
        choices=range(3),
        help="count call N (0, 1 or 2) alone, cold: its first call in this interpreter",
    )
    args = parser.parse_args()
    import ir_datasets
    import ir_measures
    from ir_measures import RR, nDCG

    import citeval_irm
    from citeval_irm.cli import main as citeval

    run, qrels = REPO / "examples" / "run.trec", REPO / "examples" / "qrels.txt"
    loaded_qrels = list(ir_measures.read_trec_qrels(str(qrels)))
    loaded_run = list(ir_measures.read_trec_run(str(run)))
    calls = {
        'citeval eval run.trec --qrels qrels.txt -m "RR nDCG@10"': lambda: citeval(
            ["eval", str(run), "--qrels", str(qrels), "-m", "RR nDCG@10"]
        ),
        "ir_measures.citeval.calc_aggregate([RR, nDCG@10], ...)": lambda: (
            ir_measures.citeval.calc_aggregate([RR, nDCG @ 10], loaded_qrels, loaded_run)
        ),
        'ir_datasets.load("citeval/demo/test").qrels_iter()': lambda: list(
            ir_datasets.load("citeval/demo/test").qrels_iter()
        ),
    }
    assert citeval_irm.__version__
    print(f"{'call':<58} {'functions':>9} {'written':>7} {'modules':>7} {'depth':>5}")
    for number, (title, call) in enumerate(calls.items()):
        if args.cold is not None and number != args.cold:
            continue
        counter = counted(call, cold=args.cold is not None)
        print(
            f"{title:<58} {len(counter.functions):>9} {len(counter.written):>7}"
            f" {len(counter.modules):>7}"
            f" {counter.deepest:>5}"
        )
        if args.list:
            for function in sorted(counter.functions):
                print(f"    {function}")
        if args.deepest:
            for depth, function in enumerate(counter.deepest_stack, 1):
                print(f"    {depth:>3} {function}")


if __name__ == "__main__":
    main()
