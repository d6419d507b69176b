"""Normalising and parsing a reference takes time linear in its length, whatever it holds
(issue 40, item 6): a regular expression searched for a pattern anchored at the text's end
tries every start and, on a run of separators, scans the run from each, so ``"A" + 30,000
spaces + "B"`` took minutes. Every function a reference or a catalogue line goes through
is fed runs of 100,000 characters of every class (and alternations of two), each under a
second: a quadratic one needs hours on such runs, so the bound is generous and still
decisive."""

from __future__ import annotations

import time

import pytest

from citeval_irm.resolving.generated import Reference
from citeval_irm.resolving.index import TitleIndex
from citeval_irm.resolving.normalise import identifiers, title_key
from citeval_irm.resolving.resolve import Resolver, title_candidates

SIZE = 100_000
LIMIT = 1.0
"""CPU seconds per call; a linear pass over 100,000 characters takes at most tenths."""

CLASSES = {
    "spaces": " \t\n\u00a0\u3000",
    "dashes": "-\u2013\u2014_~",
    "dots": ".\u2026",
    "commas": ",;:",
    "quotes": "\"'`\u201c\u201d\u00ab\u00bb\u2018\u2019",
    "brackets": "()[]{}<>",
    "digits": "0129",
    "letters": "aAzZ\u00e9",
    "symbols": "\\/$&%#@*+=|?!^",
    "marks": "\u0301\u0316\u0308\uff9e",
}
"""Each character class of a title, with several members (each run is of one member)."""

PIECES = ["A. ", "a.", "vs. ", " - ", "et al. ", "In ", "in proc ", "arXiv:", "arxiv.org/abs/",
          "1706.0", "1706.03762v", "10.1234/", "doi:", "hep-th/", "P15-", "2020.acl-", "19",
          "2017 ", "(2017) ", "ACL ", "\\'", "\\\"{", "{\\em ", "\\", "\u201cab", "\"abcdefghij",
          "http://", "...", "\u0301\u0316", "a\u0301", ": ", "?", "Proc. "]  # fmt: skip
"""Pieces of citations repeated: each a start a pattern might try and fail from."""


def texts(members: int) -> dict[str, str]:
    """The inputs, each about :data:`SIZE` characters, named: the first ``members`` of
    each class."""
    found = {"A + 30,000 spaces + B (the issue's)": "A" + " " * 30_000 + "B",
             "', ' x 15,000 (the issue's catalogue line)": ", " * 15_000}  # fmt: skip
    for name, chars in CLASSES.items():
        for char in chars[:members]:
            run = char * SIZE
            found[f"{name} {char!r}"] = run
            found[f"A + {name} {char!r} + B"] = "A" + run + "B"
            found[f"{name} {char!r} with letters"] = ("ab" + char) * (SIZE // 3)
            found[f"{name} {char!r} with spaces"] = (char + " ") * (SIZE // 2)
    for piece in PIECES:
        found[f"{piece!r} repeated"] = piece * (SIZE // len(piece))
        found[f"{piece!r} repeated after a title"] = "A real title " + piece * (SIZE // len(piece))
    return found


QUICK = texts(1)
EVERY = texts(max(len(chars) for chars in CLASSES.values()))


@pytest.fixture(scope="module")
def resolver():
    titles = ["Attention is all you need", "Faster Margin Maximization Rates for Generic "
              "Optimization Methods", "Shallow vs. Deep Sum-Product Networks"]  # fmt: skip
    index = TitleIndex([f"P{n}" for n in range(len(titles))], titles)
    catalogue = TitleIndex(["c0"], ["A paper outside the pool"])
    return Resolver(index, catalogue=catalogue)


def timed(function, text: str) -> float:
    """The CPU seconds of ``function(text)``, the least of up to three calls when the first
    is over :data:`LIMIT`: CPU time, not wall time, so that other work on the machine (the
    suite's other worker) does not count; a quadratic step is over the limit every time."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        function(text)
        best = min(best, time.process_time() - started)
        if best <= LIMIT:
            break
    return best


def check(text: str, name: str, resolver, *, every_step: bool) -> None:
    """Each step on ``text`` under :data:`LIMIT`; the quick run times what a reference goes
    through (a decision reads its identifiers, candidates and keys), the slow one each
    function on its own too."""
    steps = {
        "title_key": title_key,
        "identifiers": lambda t: identifiers({"arxiv": t, "doi": t, "acl": t}, t),
        "title_candidates": lambda t: title_candidates(Reference(t)),
        "decide (a string)": lambda t: resolver.decide(Reference(t)),
        "decide (an object)": lambda t: resolver.decide(
            Reference(t, {"title": t, "year": t, "url": t, "authors": t}, citation=False)
        ),
        "catalogue": lambda t: resolver.known_elsewhere(Reference(t)),
    }
    if not every_step:
        steps = {k: v for k, v in steps.items() if k.startswith(("decide", "catalogue"))}
    slow = {step: round(took, 2) for step, function in steps.items()
            if (took := timed(function, text)) > LIMIT}  # fmt: skip
    assert not slow, f"{name} ({len(text):,} characters): seconds per step {slow}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(QUICK))
def test_every_step_of_a_reference_is_linear(name, resolver):
    check(QUICK[name], name, resolver, every_step=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EVERY))
def test_every_member_of_every_class_and_every_step(name, resolver):
    check(EVERY[name], name, resolver, every_step=True)
