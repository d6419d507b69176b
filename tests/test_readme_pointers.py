"""What a person reads first points at what exists (issue 42): the README mentions every
command the parser has and links every guide; every place the package's messages send a
reader ("docs/guides/comparing.md, What n is needed") is a guide with that heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeval_irm.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
GUIDES = REPO / "docs" / "guides"
PACKAGE = REPO / "citeval_irm"


def commands() -> list[str]:
    """Every ``citeval`` command, as the parser has them (``trec_eval`` included)."""
    action = next(a for a in build_parser()._actions if a.dest == "command")
    return list(action.choices)


def headings(page: Path) -> list[str]:
    """The headings of a Markdown page (outside its fenced blocks, whose ``#`` lines are
    comments)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)]


def test_the_commands_are_the_parsers():
    names = commands()
    assert {"eval", "trec_eval", "resolve", "demo"} <= set(names) and len(names) >= 18


@pytest.mark.parametrize("name", commands())
def test_the_readme_mentions_every_command(name):
    assert re.search(rf"citeval\s+{re.escape(name)}\b", README), (
        f"README never says `citeval {name}`"
    )


@pytest.mark.parametrize("guide", sorted(p.name for p in GUIDES.glob("*.md")))
def test_the_readme_links_every_guide(guide):
    assert f"](docs/guides/{guide})" in README, f"README does not link docs/guides/{guide}"


POINTER = re.compile(r"(README|docs/guides/[\w-]+\.md)(?:, [\"']?([^)\"'\n]+))?")


def pointers() -> list[tuple[str, str, str | None]]:
    """Where the package's text sends a reader: ``README, <heading>`` or
    ``docs/guides/NAME.md[, <heading>]``, with the file it is in."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in POINTER.finditer(text):
            target, rest = match.groups()
            if target == "README" and rest is None:
                continue  # "the SymTax README", a README of another project
            found.append((str(path.relative_to(REPO)), target, rest))
    return found


def test_the_package_points_at_guides():
    targets = {target for _, target, _ in pointers()}
    assert {"docs/guides/comparing.md", "docs/guides/datasets.md"} <= targets


@pytest.mark.parametrize(("source", "target", "rest"), pointers())
def test_every_pointer_names_a_heading_that_exists(source, target, rest):
    page = REPO / ("README.md" if target == "README" else target)
    assert page.is_file(), f"{source} points at {target}, which does not exist"
    if rest is not None:
        names = headings(page)
        assert any(rest.startswith(name) for name in names), (
            f"{source} points at {target}, {rest!r}: no such heading (it has: {names})"
        )
