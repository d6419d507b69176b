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

import getopt
import math
import re
import sys

import numpy as np

from ..base.errors import CitevalError, InputError, silenced

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
"""

# trec_eval 10.0's nicknames (measures.c)
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}  # fmt: skip
UNSUPPORTED = {"all_prefs", "prefs", "qrels_jg", "dcg", "ideal_dcg", "map_avgjg", "P_avgjg",
               "Rprec_mult_avgjg", "yaap"} | {f"prefs_{s}" for s in (
    "num_prefs_poss", "num_prefs_ful", "num_prefs_ful_ret", "simp", "pair", "avgjg",
    "avgjg_Rnonrel", "simp_ret", "pair_ret", "avgjg_ret", "avgjg_Rnonrel_ret", "simp_imp",
    "pair_imp", "avgjg_imp")}  # fmt: skip
_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted",
         "level_for_rel=", "nosummary", "Debug_level=", "Judged_docs_only",
         "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=",
         "Results_format=", "Output_old_results_format", "Zscore="]  # fmt: skip
BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c's document for a missing query


class TrecEvalExit(CitevalError):
    """A stop with trec_eval's exit status and a message for standard error."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def c_atol(text: str) -> int:
    """C's ``atol``: the leading whole number of ``text`` (0 if none)."""
    found = re.match(r"\s*([+-]?\d+)", text)
    return int(found.group(1)) if found else 0


def c_atof(text: str) -> float:
    """C's ``atof``: the leading number of ``text`` (0.0 if none)."""
    found = re.match(r"\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)", text)
    return float(found.group(1)) if found else 0.0


class Options:
    """trec_eval's options, read as its ``getopt_long`` loop reads them."""

    def __init__(self, argv: list[str]):
        try:
            pairs, rest = getopt.gnu_getopt(argv, _SHORT, _LONG)
        except getopt.GetoptError as exc:
            raise TrecEvalExit(1, f"trec_eval: {exc}\n{USAGE}") from None
        self.query = self.complete = self.judged = self.help = False
        self.summary, self.rel, self.max_docs, self.docs = True, 1, None, 0
        self.marked: list[str] = []
        self.params: dict[str, str] = {}
        self.debug_query: str | None = None
        for flag, value in pairs:
            self._take(flag.lstrip("-"), value)
        if self.help:
            return
        if len(rest) != 2:
            raise TrecEvalExit(1, USAGE)
        self.qrels, self.run = rest
        if not self.marked:
            self._mark("official")

    def _take(self, flag: str, value: str) -> None:
        flag = {"help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m",
                "complete_rel_info_wanted": "c", "level_for_rel": "l", "nosummary": "n",
                "Debug_level": "D", "Judged_docs_only": "J", "Number_docs_in_coll": "N",
                "Max_retrieved_per_topic": "M", "Rel_info_format": "R",
                "Results_format": "T", "Output_old_results_format": "o",
                "Zscore": "Z"}.get(flag, flag)  # fmt: skip
        if flag == "v":
            from .. import __version__

            raise TrecEvalExit(0, f"trec_eval version 10.0 (citeval-irm {__version__})")
        simple = {"h": "help", "q": "query", "c": "complete", "J": "judged"}
        if flag in simple:
            setattr(self, simple[flag], True)
        elif flag == "n":
            self.summary = False
        elif flag == "m":
            self._mark(value)
        elif flag == "l":
            self.rel = c_atol(value)
        elif flag == "N":
            self.docs = c_atol(value)
        elif flag == "M":
            self.max_docs = c_atol(value)
        elif flag == "D":
            level, _, query = value.partition(".")
            if c_atol(level) != 0:
                raise TrecEvalExit(1, "citeval: error: trec_eval's debug output (-D above 0) "
                                      "is not supported")  # fmt: skip
            self.debug_query = query or None
        elif flag in ("R", "T") and value not in ("qrels", "trec_results"):
            what = "rel_info format" if flag == "R" else "results format"
            raise TrecEvalExit(1, f"citeval: error: -{flag} {value}: only trec_eval's "
                                  f"{what} {'qrels' if flag == 'R' else 'trec_results'} is "
                                  "supported (not the preference formats)")  # fmt: skip
        elif flag == "Z":
            raise TrecEvalExit(1, "citeval: error: -Z (Z scores) is not supported")

    def _mark(self, value: str) -> None:
        name, dot, params = value.partition(".")
        if dot:
            if not params:
                raise TrecEvalExit(1, f"trec_eval: improper measure in parameter '{name}'\n"
                                      f"trec_eval: illegal measure '{name}'")  # fmt: skip
            self.params.setdefault(name, params)
        if name in UNSUPPORTED:
            raise TrecEvalExit(1, f"citeval: error: trec_eval's '{name}' (preference or "
                                  "judgement-group measures) is not supported")  # fmt: skip
        from ..scoring.table import TREC_EVAL_ORDER

        names = NICKNAMES.get(name, (name,))
        if any(n not in TREC_EVAL_ORDER for n in names):
            raise TrecEvalExit(1, f"trec_eval: illegal measure '{value}'")
        self.marked += [n for n in names if n not in self.marked]


def main(argv: list[str]) -> int:
    """Run ``citeval trec_eval`` with trec_eval's arguments ``argv``; the exit status."""
    try:
        options = Options(argv)
        if options.help:
            print(__doc__)
            return 0
        for line in evaluate_lines(options):
            sys.stdout.write(line)
        return 0
    except TrecEvalExit as exc:
        print(str(exc).rstrip("\n"), file=sys.stderr)
        return exc.status
    except CitevalError as exc:
        print(f"citeval: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def evaluate_lines(options: Options) -> list[str]:
    """trec_eval's output for ``options``, line by line."""
    from .trec_eval_run import TrecEvaluation

    if options.rel < 0:
        raise TrecEvalExit(1, "citeval: error: -l below 0 (unjudged docs relevant) is not "
                              "supported")  # fmt: skip
    if options.max_docs is not None and options.max_docs < 1:
        raise TrecEvalExit(1, "citeval: error: -M must be 1 or more")
    if options.run == "-" or options.qrels == "-":
        raise TrecEvalExit(1, "citeval: error: reading from standard input ('-') is not "
                              "supported; give a file")  # fmt: skip
    with silenced():
        return TrecEvaluation(options).lines()


def format_value(value: float, shown: str) -> str:
    """A value as trec_eval's printf prints it: ``%ld`` for a count, else ``%6.4f``."""
    if shown == "long":
        return str(int(value)) if math.isfinite(value) else "-9223372036854775808"
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def line(name: str, query: str, text: str) -> str:
    return f"{name:<22}\t{query}\t{text}\n"


def check_labels(qrels, counted: np.ndarray) -> None:
    """trec_eval 10.0 cannot evaluate a qrels query whose labels are all negative."""
    top = np.full(len(qrels.all_query_ids), -1, dtype=np.int64)
    np.maximum.at(top, qrels.query, qrels.relevance)
    bad = [q for q in counted if top[q] < 0]
    if bad:
        query = qrels.all_query_ids[bad[0]].as_py()
        raise TrecEvalExit(4, f"citeval: error: qrels query '{query}' has only negative labels: "
                              "trec_eval 10.0 cannot evaluate it (it stops with \"Can't "
                              "calculate measure\", exit 4, or crashes); give it a label >= 0 "
                              "or remove it")  # fmt: skip


__all__ = ["InputError", "Options", "TrecEvalExit", "main"]
