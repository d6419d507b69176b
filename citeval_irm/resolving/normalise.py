"""Titles and identifiers as they are compared: one normalisation for the corpus's titles,
a catalogue's and the generated references, and the identifiers a reference may carry.

A title is normalised by :func:`title_key`: LaTeX markup undone (``{\\em X}``, ``\\emph{X}``,
``\\"o``, ``--``), Unicode NFKC, accents dropped, case folded, punctuation and symbols as
spaces, white space collapsed, and a trailing year or venue (``... 2017``, ``... (ACL
2015)``, ``... In Proceedings of ...``, ``... arXiv preprint``) stripped, so that both sides
meet on the same key. The stripped trailing year is kept: it is the reference's year when
the reference gives none (the ``year`` of :func:`title_key`'s :class:`Key`).

Every step takes time linear in the text's length, whatever the text holds: a reference is
a model's output and a catalogue line anyone's, and a pattern searched from every start
over a run of separators is quadratic (``"A" + 30,000 spaces + "B"`` took minutes). The
trailing year and venue are read from the normalised words, not by a pattern anchored at
the end; the identifiers' patterns have bounded quantifiers; long runs of combining marks
are cut (:data:`STREAM_SAFE`); ``tests/test_resolve_linear.py`` feeds 100,000-character
runs of every character class.

Identifiers (:func:`identifiers`): arXiv ids (``1706.03762``, ``1706.03762v2``,
``arXiv:1706.03762``, ``https://arxiv.org/abs/1706.03762``, ``.../pdf/1706.03762v1.pdf``,
old-style ``hep-th/9901001``), ACL Anthology ids (``P15-1001``, ``2020.acl-main.1``,
``https://aclanthology.org/P15-1001.pdf``, ``aclweb.org/anthology/P15-1001``) and DOIs.
Two DOI prefixes carry those ids and are read as them: arXiv's ``10.48550/arXiv.<id>``
(arXiv's DOI help page, github.com/arXiv/arxiv-docs ``source/help/doi.md``: "the DOI prefix
https://doi.org/10.48550/ followed by the arXiv ID (replacing the colon with a period)")
and the ACL Anthology's ``10.18653/v1/<anthology id>`` (seen on the Anthology's own pages,
e.g. ``10.18653/v1/N19-1423`` for N19-1423 and ``10.18653/v1/W16-2607`` for W16-2607; the
Anthology publishes no rule for it: not checked beyond such examples). Any other DOI is
looked up as it is (lower case), for a corpus whose ids are DOIs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

# LaTeX accent commands and the combining mark each stands for.
_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
}
_LETTERS = {
    "ss": "ss",
    "o": "o",
    "O": "o",
    "aa": "a",
    "AA": "a",
    "ae": "ae",
    "AE": "ae",
    "oe": "oe",
    "OE": "oe",
    "l": "l",
    "L": "l",
    "i": "i",
    "j": "j",
}
_ACCENT = re.compile(
    r"\\([\"'`^~=.]|[uvHckr](?![A-Za-z]))\s*(?:\{\s*(\\?[A-Za-z])\s*\}|(\\?[A-Za-z]))"
)
_LETTER = re.compile(r"\\(ss|aa|AA|ae|AE|oe|OE|[oOlLij])(?![A-Za-z])\s*(?:\{\})?")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?\s*")
_SYMBOL_COMMAND = re.compile(r"\\[&%$#_{}]")

VENUES = (
    "acl",
    "naacl",
    "naacl-hlt",
    "hlt-naacl",
    "emnlp",
    "eacl",
    "coling",
    "conll",
    "lrec",
    "semeval",
    "tacl",
    "cl",
    "aacl",
    "ijcnlp",
    "findings",
    "neurips",
    "nips",
    "icml",
    "iclr",
    "aaai",
    "ijcai",
    "sigir",
    "kdd",
    "www",
    "wsdm",
    "cikm",
    "ecir",
    "recsys",
    "jcdl",
    "cvpr",
    "iccv",
    "eccv",
    "jmlr",
    "tpami",
    "corr",
    "arxiv",
    "uai",
    "aistats",
    "colt",
    "alt",
    "acml",
    "ecml",
    "pkdd",
    "ecml-pkdd",
    "ecml/pkdd",
    "icdm",
    "sdm",
    "wacv",
    "bmvc",
    "accv",
    "icpr",
    "icip",
    "icassp",
    "interspeech",
    "tmlr",
    "jair",
    "mlj",
    "aij",
    "tkde",
    "tnnls",
    "tnn",
    "tois",
    "tacm",
    "cacm",
    "pnas",
    "icra",
    "iros",
    "corl",
    "l4dc",
    "ijcnn",
    "pakdd",
    "sigmod",
    "vldb",
    "icde",
    "cogsci",
    "kr",
    "aamas",
    "ecai",
    "iclr-w",
    "mlsys",
    "sysml",
    "miccai",
    "ipmi",
    "jmlr-w",
)
"""Venues a title may end with (``... (ACL 2015)``, ``... UAI``), as written; compared by
their normalised words, so ``NAACL-HLT`` is ``naacl hlt`` and ``ECML/PKDD`` is ``ecml pkdd``.
Only acronyms: a word of English (*Machine Learning*, *Nature*) ends many titles."""
_VENUE_WORDS = {tuple(re.sub(r"[^a-z0-9]+", " ", v).split()) for v in VENUES}
_VENUE_LENGTHS = sorted({len(v) for v in _VENUE_WORDS}, reverse=True)
_VENUE_ENDS = frozenset(v[-1] for v in _VENUE_WORDS)
"""The last words of the venues: a title ending with none of them ends with no venue."""
_PROCEEDINGS = frozenset({"proc", "proceedings"})
_CUT_AFTER = (("in", _PROCEEDINGS), ("arxiv", frozenset({"preprint"})))
"""Two words from which everything is the venue (``..., In Proceedings of the 55th ...``,
``... arXiv preprint arXiv:...``), wherever they are after the title's first word."""
_ELLIPSES = ("...", "\u2026")
_SPACES = re.compile(r"\s+")
STREAM_SAFE = 30
"""Unicode's stream-safe text format (UAX #15): at most 30 non-starters (combining marks)
in a row. Longer runs are cut to it before NFKC, whose canonical reordering is quadratic in
a run's length in CPython (a title of 40,000 combining marks took 2 s); the marks are
dropped afterwards anyway."""


def undo_latex(text: str) -> str:
    """LaTeX markup as plain text: accents as combining marks, ``\\ss`` and the like as
    letters, other commands (``\\em``, ``\\emph``, ``\\textit``) dropped with their braces
    kept for the next step, ``--`` as a dash.

    Linear in the text's length: each pattern starts at a backslash and scans only
    characters that are no backslash, so no two attempts scan the same characters."""
    if "\\" in text:
        text = _ACCENT.sub(
            lambda m: (m.group(2) or m.group(3)).lstrip("\\") + _ACCENTS[m.group(1)], text
        )
        text = _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)
        text = _SYMBOL_COMMAND.sub(lambda m: m.group(0)[1], text)
        text = _COMMAND.sub("", text)
    return text.replace("---", "-").replace("--", "-").replace("~", " ")


_ASCII_SPACES = str.maketrans(
    {chr(c): " " for c in range(128) if unicodedata.category(chr(c))[0] in "PSZC"}
)
"""The ASCII characters :func:`_plain` makes spaces (punctuation, symbols, spaces, controls)."""


def _plain(text: str) -> str:
    """NFKC, accents dropped, case folded, every punctuation mark or symbol a space (an
    ASCII text, which neither normal form changes, by one translation: the same result).
    Linear in the text's length (:data:`STREAM_SAFE`)."""
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_SPACES).split())
    text = unicodedata.normalize("NFKC", _stream_safe(text))
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    out = []
    for char in decomposed:
        category = unicodedata.category(char)
        if category == "Mn":
            continue
        out.append(" " if category[0] in "PSZC" else char)
    return _SPACES.sub(" ", "".join(out)).strip()


def _non_starter(char: str) -> bool:
    """Whether ``char`` is, or decomposes into, a combining mark (a non-starter of NFKD)."""
    if unicodedata.combining(char):
        return True
    parts = [p for p in unicodedata.decomposition(char).split() if not p.startswith("<")]
    return bool(parts) and unicodedata.combining(chr(int(parts[0], 16))) != 0


def _stream_safe(text: str) -> str:
    """``text`` with every run of non-starters cut to :data:`STREAM_SAFE`."""
    out, run = [], 0
    kinds: dict[str, bool] = {}
    for char in text:
        kind = kinds.get(char)
        if kind is None:
            kind = kinds[char] = not char.isascii() and _non_starter(char)
        run = run + 1 if kind else 0
        if run <= STREAM_SAFE:
            out.append(char)
    return "".join(out) if len(out) < len(text) else text


def _year_of(word: str) -> int | None:
    """The year a word is (``2017``, ``2017b``: 1900-2099), else ``None``."""
    if len(word) == 5 and word[4] in "abcdefgh":
        word = word[:4]
    if len(word) == 4 and word.isdigit() and word[:2] in ("19", "20"):
        return int(word)
    return None


def _first_year(words: list[str]) -> int | None:
    return next((year for w in words if (year := _year_of(w)) is not None), None)


def _venue_at_end(words: list[str]) -> int | None:
    """Where a trailing venue starts (with a year after it, ``in``, ``proceedings of the``
    before it), if the title ends with one and keeps a word."""
    end = len(words)
    if end and (_year_of(words[-1]) is not None or (len(words[-1]) == 2 and words[-1].isdigit())):
        end -= 1  # NeurIPS 2017, ACL'15
    if not end or words[end - 1] not in _VENUE_ENDS:
        return None
    for size in _VENUE_LENGTHS:
        if end - size >= 1 and tuple(words[end - size : end]) in _VENUE_WORDS:
            start = end - size
            break
    else:
        return None
    before = start
    if before and words[before - 1] == "the":
        before -= 1
    if before and words[before - 1] == "of":
        before -= 1
    if before and words[before - 1] in _PROCEEDINGS:
        start = before - 1
    if start and words[start - 1] == "in":
        start -= 1
    return start if start >= 1 else None


def _cut_at_venue(words: list[str]) -> int | None:
    """Where ``In Proceedings`` or ``arXiv preprint`` starts after the first word."""
    for first, seconds in _CUT_AFTER:
        if first in words:  # a scan in C: most titles hold neither word
            for at in range(1, len(words) - 1):
                if words[at] == first and words[at + 1] in seconds:
                    return at
    return None


def strip_tail(words: list[str]) -> tuple[list[str], int | None]:
    """The words of a normalised title without a trailing year or venue (``... 2017``,
    ``... (ACL 2015)``, ``... In Proceedings of ...``, ``... arXiv preprint ...``), and the
    first year they held (or ``None``); at least one word is always kept.

    On words, not on the text: each rule looks at a few words at the end (or finds two
    words once), so the time is linear in the title's length, whatever it holds (a regular
    expression anchored at the end, searched, tries every start: quadratic on a run of
    separators)."""
    year = None
    for _ in range(3):  # "..., ACL 2015. 2015", "(EMNLP) 2016"
        if len(words) > 1 and (found := _year_of(words[-1])) is not None:
            year = year or found
            words = words[:-1]
            continue
        cut = _cut_at_venue(words)
        if cut is None:
            cut = _venue_at_end(words)
        if cut is None:
            break
        year = year or _first_year(words[cut:])
        words = words[:cut]
    return words, year


class Key(NamedTuple):
    """A normalised title, the year its end gave, and whether it was cut (``...``)."""

    text: str
    year: int | None
    truncated: bool


def _dated_aside(text: str) -> tuple[str, int | None]:
    """``text`` without a last bracketed group that holds a year (``... (Machine Learning
    1989)``, ``... [NeurIPS 2017]``): where a citation puts its venue and year."""
    end = text.rstrip()
    if not end.endswith((")", "]")):
        return text, None
    opened = end.rfind("(" if end[-1] == ")" else "[")
    inner = end[opened + 1 : -1] if opened > 0 else ""
    if not inner or len(inner) > 120:
        return text, None
    year = _first_year(_plain(inner).split())
    return (end[:opened], year) if year is not None and end[:opened].strip() else (text, None)


def title_key(title: str) -> Key:
    """The normalised form of a title, compared by the index (see the module docstring);
    linear in the title's length, whatever it holds."""
    text = undo_latex(title).replace("{", "").replace("}", "").replace("$", "")
    end = text.rstrip()
    truncated = end.endswith(_ELLIPSES)
    if truncated:
        text = end[: -3 if end.endswith("...") else -1]
    text, dated = _dated_aside(text)
    words, year = strip_tail(_plain(text).split())
    return Key(" ".join(words), year or dated, truncated)


def tokens(key: str) -> list[str]:
    """The words of a normalised title (the blocking keys of the fuzzy search)."""
    return key.split()


# --------------------------------------------------------------------------- identifiers

# Every quantifier below is bounded (an archive name, an Anthology volume, a version have
# a few characters), so a search costs a bounded amount per start: linear in the text.
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?!\d)"
_ARXIV_OLD = r"[a-z][a-z-]{0,15}(?:\.[A-Z]{2})?/\d{7}(?!\d)"
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv(?:\.org/(?:abs|pdf)/|\s{{0,3}}:\s{{0,3}}|\.)|\b)({_ARXIV_NEW}|{_ARXIV_OLD})"
    r"(?:v(\d{1,4}))?",
    re.IGNORECASE,
)
_ACL_OLD = r"[A-Z]\d{2}-\d{4}"
_ACL_NEW = r"\d{4}\.[a-z0-9]{1,40}(?:-[a-z0-9]{1,40}){0,4}\.\d{1,6}"
_ACL_IN_TEXT = re.compile(rf"(?<![\w.])({_ACL_OLD}|{_ACL_NEW})(?![\w-])")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
"""A DOI: its suffix runs to the next space; once ``10.NNNN/`` is read the match cannot
fail, so a search is linear too."""
_DIGIT = re.compile(r"\d")
ARXIV_DOI = "10.48550/arxiv."
ACL_DOI = "10.18653/v1/"


def arxiv_id(text: str) -> str | None:
    """The arXiv id in ``text`` (any form of the module docstring), without its version."""
    found = arxiv_ids(text)
    return found[-1] if found else None


def arxiv_ids(text: str) -> list[str]:
    """The arXiv id in ``text`` as it names a paper: with its version first when it has
    one (``1705.22222v1``: a corpus may hold each version as a doc), then without."""
    match = _ARXIV_IN_TEXT.search(text.strip())
    if not match:
        return []
    found = match.group(1)
    if re.fullmatch(_ARXIV_NEW, found):
        if not 1 <= int(found[2:4]) <= 12:
            return []
    elif "/" in found and not found[0].isdigit():
        found = found.lower()
    return [f"{found}v{match.group(2)}", found] if match.group(2) else [found]


def acl_id(text: str) -> str | None:
    """The ACL Anthology id in ``text`` (``P15-1001``, ``2020.acl-main.1``, in a URL too)."""
    match = _ACL_IN_TEXT.search(text.strip())
    return match.group(1) if match else None


def _acl_case(text: str) -> str:
    """An Anthology id out of a (case-insensitive, lower-cased) DOI in the id's own case:
    ``n19-1423`` is ``N19-1423``; new-style ids are lower case already."""
    return text[:1].upper() + text[1:] if re.match(r"[a-z]\d{2}-\d{4}", text) else text


def doi(text: str) -> str | None:
    """The DOI in ``text`` (``10.xxxx/...``, a ``doi.org`` URL), lower case, no trailing
    punctuation."""
    match = _DOI.search(text)
    return match.group(1).rstrip(".,;)]").lower() if match else None


def identifiers(fields: Mapping[str, str], text: str = "") -> list[str]:
    """The corpus keys a reference's identifiers give, in order: its ``arxiv``, ``acl`` and
    ``doi`` fields, then those found in ``text`` (a reference written as one string); an
    arXiv id with its version first, then without; a DOI of arXiv or the Anthology as the
    id it carries, any other DOI as itself."""
    found: list[str] = []

    def add(*values: str | None) -> None:
        for value in values:
            if value and value not in found:
                found.append(value)

    if fields.get("arxiv"):
        given = str(fields["arxiv"])
        add(*(arxiv_ids(given) or [given.strip()]))
    if fields.get("acl"):
        add(acl_id(str(fields["acl"])) or str(fields["acl"]).strip())
    dois: list[str | None] = (
        [doi(str(fields["doi"])) or str(fields["doi"]).strip().lower()] if fields.get("doi") else []
    )
    if text and _DIGIT.search(text):  # every arXiv id, Anthology id and DOI has a digit
        lowered = text.lower()
        dois.append(doi(text))
        if ARXIV_DOI not in lowered:
            add(*arxiv_ids(text))
        add(acl_id(text) if ACL_DOI not in lowered else None)
    for value in dois:
        if not value:
            continue
        if value.startswith(ARXIV_DOI):
            add(*arxiv_ids(value[len(ARXIV_DOI) :]))
        elif value.startswith(ACL_DOI):
            add(acl_id(_acl_case(value[len(ACL_DOI) :])))
        else:
            add(value)
    return found


def corpus_id_keys(doc_id: str) -> list[str]:
    """The keys a corpus doc id is found by: itself, its arXiv id without version, its
    DOI in lower case."""
    keys = [doc_id]
    for value in (arxiv_id(doc_id) if _looks_arxiv(doc_id) else None, doc_id.lower()):
        if value and value not in keys and (value != doc_id.lower() or doc_id.startswith("10.")):
            keys.append(value)
    return keys


def _looks_arxiv(doc_id: str) -> bool:
    return bool(re.fullmatch(rf"(?:arXiv:)?(?:{_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d{{1,4}})?", doc_id))
