"""trec_eval 10.0's command line as its ``getopt_long`` loop reads it, for ``citeval
trec_eval`` (:mod:`.trec_eval`): the options, the measures ``-m`` marks, trec_eval's exit
statuses and its C number parsing (``atol``, ``atof``)."""

from __future__ import annotations

import getopt
import re

from ..base.errors import CitevalError
from ..base.measures import TREC_NICKNAMES as NICKNAMES

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
"""

UNSUPPORTED = {"all_prefs", "prefs", "qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"} | {
    f"prefs_{s}"
    for s in (
        "num_prefs_poss",
        "num_prefs_ful",
        "num_prefs_ful_ret",
        "simp",
        "pair",
        "avgjg",
        "avgjg_Rnonrel",
        "simp_ret",
        "pair_ret",
        "avgjg_ret",
        "avgjg_Rnonrel_ret",
        "simp_imp",
        "pair_imp",
        "avgjg_imp",
    )
}
_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = [
    "help",
    "version",
    "query_eval_wanted",
    "measure=",
    "complete_rel_info_wanted",
    "level_for_rel=",
    "nosummary",
    "Debug_level=",
    "Judged_docs_only",
    "Number_docs_in_coll=",
    "Max_retrieved_per_topic=",
    "Rel_info_format=",
    "Results_format=",
    "Output_old_results_format=",  # trec_eval.c: has_arg 1 (its value unused); -o takes none
    "Zscore=",
]
BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c's document for a missing query


class TrecEvalExit(CitevalError):
    """A stop with trec_eval's exit status and a message for standard error."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


_C_SPACE = " \t\n\v\f\r"  # C's isspace in the "C" locale
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?")
_WORD = re.compile(r"([+-]?)(infinity|inf|nan)", re.IGNORECASE)


LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # a C long on the 64-bit systems trec_eval runs on


def c_atol(text: str) -> int:
    """C's ``atol``: the leading whole number of ``text`` in ASCII digits after C's white
    space (0 if none; ``５`` and ``１０`` are not digits to it), held at ``LONG_MIN`` or
    ``LONG_MAX`` beyond them, as glibc's ``strtol`` holds it."""
    found = re.match(r"[+-]?[0-9]+", text.lstrip(_C_SPACE))
    return min(max(int(found.group(0)), LONG_MIN), LONG_MAX) if found else 0


def c_long(value: float) -> int:
    """C's ``(long) value`` of a double on x86-64: its whole part, and ``LONG_MIN`` for a
    value no long holds (an infinity, NaN, beyond 2**63: the instruction's "indefinite
    integer")."""
    return int(value) if LONG_MIN <= value < 2.0**63 else LONG_MIN


def c_atof(text: str) -> float:
    """C's ``atof`` (``strtod``): the leading decimal or hexadecimal number, ``inf``,
    ``infinity`` or ``nan`` of ``text`` after C's white space, 0.0 if none; a decimal
    beyond a double is an infinity, as ``strtod`` makes it."""
    text = text.lstrip(_C_SPACE)
    hexadecimal = _HEX.match(text)
    if hexadecimal:
        sign, digits, power = hexadecimal.groups()
        whole, _, fraction = digits.partition(".")
        try:
            return float.fromhex(f"{sign}0x{whole or '0'}.{fraction or '0'}p{(power or 'p0')[1:]}")
        except OverflowError:
            return float(f"{sign}inf")
    word = _WORD.match(text)
    if word:
        return float(f"{word.group(1)}{word.group(2)}")
    found = _DECIMAL.match(text)
    return float(found.group(0)) if found else 0.0


class Options:
    """trec_eval's options, read as its ``getopt_long`` loop reads them."""

    def __init__(self, argv: list[str]):
        try:
            pairs, rest = getopt.gnu_getopt(argv, _SHORT, _LONG)
        except getopt.GetoptError as exc:
            raise TrecEvalExit(1, f"trec_eval: {exc}\n{USAGE}") from None
        self.query = self.complete = self.judged = self.help = False
        self.summary, self.rel, self.docs = True, 1, 0
        self.max_docs: int | None = None
        self.marked: list[str] = []
        self.params: dict[str, str] = {}
        self.debug_query: str | None = None
        self.formats: dict[str, str] = {}
        for flag, value in pairs:
            self._take(flag.lstrip("-"), value)
        if self.help:
            return
        if len(rest) != 2:
            raise TrecEvalExit(1, USAGE)
        self._check_formats()
        self.qrels, self.run = rest
        if not self.marked:
            self._mark("official")
        self.shown: dict[str, str | None] = dict(self.params)
        self.shared_gains = self._share_gains()

    def _share_gains(self) -> bool:
        """dcg, ideal_dcg and ndcg share one block of parameters in trec_eval 10.0 (m_ndcg.c's
        ``default_ndcg_gains``): each, initialised in that order, takes its own ``-m``
        parameters into the block if it has some and prints its name with the block's
        parameters of that moment; all three compute with what the block holds last.
        Whether that applies here (a parameter given, more than one of them asked for)."""
        current = None
        marked = [name for name in ("dcg", "ideal_dcg", "ndcg") if name in self.marked]
        for name in marked:
            current = self.params.get(name, current)
            self.shown[name] = current  # None: the plain name (the block was still empty)
        if current is None:
            return False
        for name in marked:
            self.params[name] = current
        return len(marked) > 1

    def _take(self, flag: str, value: str) -> None:
        flag = {
            "help": "h",
            "version": "v",
            "query_eval_wanted": "q",
            "measure": "m",
            "complete_rel_info_wanted": "c",
            "level_for_rel": "l",
            "nosummary": "n",
            "Debug_level": "D",
            "Judged_docs_only": "J",
            "Number_docs_in_coll": "N",
            "Max_retrieved_per_topic": "M",
            "Rel_info_format": "R",
            "Results_format": "T",
            "Output_old_results_format": "o",
            "Zscore": "Z",
        }.get(flag, flag)
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
                raise TrecEvalExit(
                    1, "citeval: error: trec_eval's debug output (-D above 0) is not supported"
                )
            self.debug_query = query or None
        elif flag in ("R", "T"):
            self.formats[flag] = value
        elif flag == "Z":
            raise TrecEvalExit(1, "citeval: error: -Z (Z scores) is not supported")

    def _check_formats(self) -> None:
        """``-R`` and ``-T`` as trec_eval.c checks them once its options are read: a format it
        does not know is exit 2 (its message); a preference format it knows is not supported
        here (exit 1, said so)."""
        known = {"R": ("qrels", "qrels_jg", "prefs", "qrels_prefs"), "T": ("trec_results",)}
        what = {"R": "rel_format", "T": "retrieval results format"}
        for flag in ("R", "T"):
            value = self.formats.get(flag, known[flag][0])
            if value not in known[flag]:
                raise TrecEvalExit(2, f"trec_eval: Illegal {what[flag]} '{value}'")
            if value != known[flag][0]:
                raise TrecEvalExit(
                    1,
                    f"citeval: error: -{flag} {value}: only trec_eval's rel_info format "
                    "qrels is supported (not the preference formats)",
                )

    def _mark(self, value: str) -> None:
        name, dot, params = value.partition(".")
        if dot:
            if not params:
                raise TrecEvalExit(
                    1,
                    f"trec_eval: improper measure in parameter '{name}'\n"
                    f"trec_eval: illegal measure '{name}'",
                )
            self.params.setdefault(name, params)
        if name in UNSUPPORTED:
            raise TrecEvalExit(
                1,
                f"citeval: error: trec_eval's '{name}' (preference or "
                "judgement-group measures) is not supported",
            )
        from ..scoring.table import TREC_EVAL_ORDER

        names = NICKNAMES.get(name, (name,))
        if any(n not in TREC_EVAL_ORDER for n in names):
            raise TrecEvalExit(1, f"trec_eval: illegal measure '{value}'")
        self.marked += [n for n in names if n not in self.marked]


def eval_hint(argv: list[str]) -> str | None:
    """For ``citeval eval`` given trec_eval's flags (``-c``, ``-J``, ``-l2``, ``-q`` with
    ``--format trec_eval``): what to write instead, or ``None``."""
    tokens = list(argv)
    trec_format = "--format=trec_eval" in tokens or any(
        a == "--format" and b == "trec_eval" for a, b in zip(tokens, tokens[1:])
    )
    same = "or run `citeval trec_eval` with trec_eval's own command line"
    for token in tokens:
        if token == "--":
            break
        if token == "-c":
            return (
                "-c is trec_eval's flag: citeval eval always scores every qrels query as "
                "trec_eval -c does (a query the run lacks on an empty ranking); drop it, "
                f"{same}"
            )
        if token == "-J":
            return (
                "-J is trec_eval's flag: give the measures judged_only=True, e.g. -m "
                f'"P(judged_only=True)@10 AP(judged_only=True)", {same}'
            )
        if re.fullmatch(r"-l-?\d*", token):
            level = token[2:] or "2"
            return (
                f"{token} is trec_eval's flag: give the measures rel={level}, e.g. -m "
                f'"P(rel={level})@10 AP(rel={level})", {same}'
            )
        if token == "-q" and trec_format:
            return (
                "-q means --quiet in citeval eval, not trec_eval's per-query output: "
                "use --per-query with --format trec_eval (--quiet for quiet), "
                f"{same}"
            )
    return None
