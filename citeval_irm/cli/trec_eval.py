"""``citeval trec_eval [trec_eval's options] QRELS RUN``: trec_eval 10.0, as a drop-in.

The command line is trec_eval's (``getopt_long``: ``-q -c -n -J -l<n> -M<n> -N<n> -m
name[.params]``, the nicknames ``official``, ``all_trec``, ``set``; ``-R qrels``, ``-T
trec_results``, ``-h``, ``-v``) and so is the output, byte for byte: the measures in trec_eval's
order, queries sorted as ``strcmp`` sorts them, ``%-22s\\t%s\\t%6.4f``. The values come from
the measure table (:mod:`citeval_irm.scoring.table`) through ``evaluate``; what is
trec_eval's alone is done here, as its C code does it (trec_eval.c, tag v10.0):

- ``-c``: a qrels query the run lacks is scored on trec_eval's one-document ranking
  (``ceci_nest_pas_un_docno``), then its ``num_ret``, ``utility``, ``relstring``, ``unj``
  and ``rbp_resid`` are set to 0 / empty; the ``all`` row of ``num_rel`` counts every
  label above 0 in the qrels (``-l`` ignored there).
- ``-J`` drops unjudged docs after the ``-M`` cut; a query left with none prints ``-nan``
  for the interpolated precisions whose cut-off rounds to 0 (0 / 0 in trec_eval).

Inputs trec_eval 10.0 refuses are refused here before anything is printed, with its exit
status: a qrels query missing from the run without ``-c`` (trec_eval: "result qid '...' not
found in qrels", 4); a qrels query whose labels are all negative (trec_eval: "Can't
calculate measure", 4, or a crash); no query left (7). A bad file is ``citeval: error:``
naming its line (2, trec_eval's status for a file it cannot read). Not supported, said
so (1): the preference formats (``-R prefs``, ``qrels_prefs``, ``qrels_jg``) and their
measures, ``-Z``, ``-D`` above 0, ``-l`` below 0, ``-M`` below 1, reading the run from
standard input, gains for negative levels.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..base.errors import CitevalError, InputError, silenced
from ..printing.escaping import plain_text
from .trec_eval_options import Options, TrecEvalExit

if TYPE_CHECKING:
    from .trec_eval_run import TrecEvaluation


def main(argv: list[str]) -> int:
    """Run ``citeval trec_eval`` with trec_eval's arguments ``argv``; the exit status."""
    try:
        options = Options(argv)
        if options.help:
            print(__doc__)
            return 0
        from .trec_eval_run import Stopped, TrecEvaluation  # numpy and pyarrow: not for -h

        evaluation = TrecEvaluation(options)
        if "rbp" in options.marked:
            print(RBP_NOTE, file=sys.stderr)
        if options.shared_gains:
            print(SHARED_NOTE, file=sys.stderr)
        try:
            lines = evaluate_lines(evaluation)
        except Stopped as stop:
            _write(stop.lines, evaluation.encoding)
            raise
        _write(lines, evaluation.encoding)
        return 0
    except TrecEvalExit as exc:
        message = str(exc).rstrip("\n")  # trec_eval's own messages as it prints them
        print(plain_text(message) if message.startswith("citeval") else message, file=sys.stderr)
        return exc.status
    except CitevalError as exc:
        print(plain_text(f"citeval: error: {exc}"), file=sys.stderr)  # the one escaper
        return 2
    except BrokenPipeError:
        return 0


RBP_NOTE = (
    "citeval: note: trec_eval 10.0's rbp reads two variables it never sets (min and max, "
    "m_rbp.c line 72): its values depend on what ran before it (e.g. -m G.1=3,2=9 -m rbp) "
    "and can differ from these, which are rbp with min and max set as its code intends"
)
"""Said on standard error whenever ``rbp`` is asked for: the one difference the drop-in
keeps (docs/guides/trec-eval.md)."""
SHARED_NOTE = (
    "citeval: note: trec_eval 10.0 gives dcg, ideal_dcg and ndcg one block of parameters "
    "(m_ndcg.c): with parameters and more than one of them it often crashes (a double free); "
    "these are the values it prints when it does not (all three on the last gains given)"
)


def _write(lines: list[str], encoding: str) -> None:
    """The lines as bytes on standard output: ids print back as the bytes they were read
    as (``encoding``: how they were read)."""
    data = "".join(lines).encode(encoding, "surrogateescape")
    sys.stdout.flush()
    target = getattr(sys.stdout, "buffer", None)
    if target is None:
        sys.stdout.write(data.decode(encoding, "surrogateescape"))
    else:
        target.write(data)
        target.flush()


def evaluate_lines(evaluation: TrecEvaluation) -> list[str]:
    """trec_eval's output for ``evaluation``'s options, line by line."""
    options = evaluation.options
    if options.rel < 0:
        raise TrecEvalExit(
            1, "citeval: error: -l below 0 (unjudged docs relevant) is not supported"
        )
    if options.max_docs is not None and options.max_docs < 0:
        raise TrecEvalExit(
            1, "citeval: error: -M below 0 is not supported (trec_eval 10.0 crashes on it)"
        )
    if options.run == "-" or options.qrels == "-":
        raise TrecEvalExit(
            1, "citeval: error: reading from standard input ('-') is not supported; give a file"
        )
    with silenced():
        return evaluation.lines()


__all__ = ["InputError", "Options", "TrecEvalExit", "main"]
