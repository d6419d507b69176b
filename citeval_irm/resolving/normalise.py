"""Titles and identifiers as they are compared: one normalisation for the corpus's titles,
a catalogue's and the generated references, and the identifiers a reference may carry.

A title is normalised by :func:`title_key`: LaTeX markup undone (``{\\em X}``, ``\\emph{X}``,
``\\"o``, ``--``), Unicode NFKC, accents dropped, case folded, punctuation and symbols as
spaces, white space collapsed, and a trailing year or venue (``... 2017``, ``... (ACL
2015)``, ``... In Proceedings of ...``, ``... arXiv preprint``) stripped, so that both sides
meet on the same key. The stripped trailing year is kept: it is the reference's year when
the reference gives none (:func:`split_year`).

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
from typing import NamedTuple

# LaTeX accent commands and the combining mark each stands for.
_ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
    "c": "\u0327", "k": "\u0328", "r": "\u030a",
}  # fmt: skip
_LETTERS = {"ss": "ss", "o": "o", "O": "o", "aa": "a", "AA": "a", "ae": "ae", "AE": "ae",
            "oe": "oe", "OE": "oe", "l": "l", "L": "l", "i": "i", "j": "j"}  # fmt: skip
_ACCENT = re.compile(
    r"\\([\"'`^~=.]|[uvHckr](?![A-Za-z]))\s*(?:\{\s*(\\?[A-Za-z])\s*\}|(\\?[A-Za-z]))"
)
_LETTER = re.compile(r"\\(ss|aa|AA|ae|AE|oe|OE|[oOlLij])(?![A-Za-z])\s*(?:\{\})?")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?\s*")
_SYMBOL_COMMAND = re.compile(r"\\[&%$#_{}]")

_YEAR = r"(?:19|20)\d\d[a-z]?"
_TRAILING_YEAR = re.compile(rf"[\s,.;:(\[]+\(?({_YEAR})\)?\]?[\s.]*$")
VENUES = (
    "acl", "naacl", "naacl-hlt", "hlt-naacl", "emnlp", "eacl", "coling", "conll", "lrec",
    "semeval", "tacl", "cl", "aacl", "ijcnlp", "findings", "neurips", "nips", "icml", "iclr",
    "aaai", "ijcai", "sigir", "kdd", "www", "wsdm", "cikm", "ecir", "recsys", "jcdl",
    "cvpr", "iccv", "eccv", "jmlr", "tpami", "corr", "arxiv",
)  # fmt: skip
_VENUE = "|".join(re.escape(v) for v in VENUES)
_TRAILING_VENUE = re.compile(
    rf"(?:[\s,.;:(\[-]+(?:in\s+)?(?:proc(?:eedings|\.)?\s+(?:of\s+)?(?:the\s+)?)?"
    rf"(?:{_VENUE})(?:\s*[-']?\s*{_YEAR}|\s*'\d\d)?\)?\]?[\s.]*"
    rf"|[\s,.;:(\[]+in\s+proc(?:eedings|\.)?\b.*"
    rf"|[\s,.;:(\[]+arxiv\s+preprint\b.*)$",
    re.IGNORECASE,
)
_ELLIPSIS = re.compile(r"(?:\.\.\.|\u2026)\s*$")
_SPACES = re.compile(r"\s+")


def undo_latex(text: str) -> str:
    """LaTeX markup as plain text: accents as combining marks, ``\\ss`` and the like as
    letters, other commands (``\\em``, ``\\emph``, ``\\textit``) dropped with their braces
    kept for the next step, ``--`` as a dash."""
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
    ASCII text, which neither normal form changes, by one translation: the same result)."""
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_SPACES).split())
    text = unicodedata.normalize("NFKC", text)
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    out = []
    for char in decomposed:
        category = unicodedata.category(char)
        if category == "Mn":
            continue
        out.append(" " if category[0] in "PSZC" else char)
    return _SPACES.sub(" ", "".join(out)).strip()


def split_year(text: str) -> tuple[str, int | None]:
    """``text`` without a trailing year or venue, and that year (or ``None``)."""
    year = None
    for _ in range(3):  # "..., ACL 2015. 2015", "(EMNLP) 2016"
        match = _TRAILING_YEAR.search(text)
        if match and match.start() > 0:
            year = year or int(match.group(1)[:4])
            text = text[: match.start()]
            continue
        match = _TRAILING_VENUE.search(text)
        if match and match.start() > 0:
            years = re.findall(rf"\b({_YEAR})\b", match.group(0))
            year = year or (int(years[0][:4]) if years else None)
            text = text[: match.start()]
            continue
        break
    return text, year


class Key(NamedTuple):
    """A normalised title, the year its end gave, and whether it was cut (``...``)."""

    text: str
    year: int | None
    truncated: bool


def title_key(title: str) -> Key:
    """The normalised form of a title, compared by the index (see the module docstring)."""
    text = undo_latex(title).replace("{", "").replace("}", "").replace("$", "")
    truncated = bool(_ELLIPSIS.search(text))
    if truncated:
        text = _ELLIPSIS.sub("", text)
    text, year = split_year(text.strip())
    return Key(_plain(text), year, truncated)


def tokens(key: str) -> list[str]:
    """The words of a normalised title (the blocking keys of the fuzzy search)."""
    return key.split()


# --------------------------------------------------------------------------- identifiers

_ARXIV_NEW = r"\d{4}\.\d{4,5}"
_ARXIV_OLD = r"[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}"
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv(?:\.org/(?:abs|pdf)/|\s*:\s*|\.)|\b)({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?",
    re.IGNORECASE,
)
_ACL_OLD = r"[A-Z]\d{2}-\d{4}"
_ACL_NEW = r"\d{4}\.[a-z0-9]+(?:-[a-z0-9]+)*\.\d+"
_ACL_IN_TEXT = re.compile(rf"(?<![\w.])({_ACL_OLD}|{_ACL_NEW})(?![\w-])")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
ARXIV_DOI = "10.48550/arxiv."
ACL_DOI = "10.18653/v1/"


def arxiv_id(text: str) -> str | None:
    """The arXiv id in ``text`` (any form of the module docstring), without its version."""
    match = _ARXIV_IN_TEXT.search(text.strip())
    if not match:
        return None
    found = match.group(1)
    if re.fullmatch(_ARXIV_NEW, found):
        month = int(found[2:4])
        return found if 1 <= month <= 12 else None
    return found.lower() if "/" in found and not found[0].isdigit() else found


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


def identifiers(fields: dict[str, str], text: str = "") -> list[str]:
    """The corpus keys a reference's identifiers give, in order: its ``arxiv``, ``acl`` and
    ``doi`` fields, then those found in ``text`` (a reference written as one string); a DOI
    of arXiv or the Anthology as the id it carries, any other DOI as itself."""
    found: list[str] = []

    def add(value: str | None) -> None:
        if value and value not in found:
            found.append(value)

    for name, read in (("arxiv", arxiv_id), ("acl", acl_id)):
        if fields.get(name):
            add(read(str(fields[name])) or str(fields[name]).strip())
    dois = (
        [doi(str(fields["doi"])) or str(fields["doi"]).strip().lower()] if fields.get("doi") else []
    )
    if text and _DIGIT.search(text):  # every arXiv id, Anthology id and DOI has a digit
        dois.append(doi(text))
        add(arxiv_id(text) if ARXIV_DOI not in text.lower() else None)
        add(acl_id(text) if ACL_DOI not in text.lower() else None)
    for value in dois:
        if not value:
            continue
        if value.startswith(ARXIV_DOI):
            add(arxiv_id(value[len(ARXIV_DOI) :]))
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
    return bool(re.fullmatch(rf"(?:arXiv:)?(?:{_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", doc_id))
