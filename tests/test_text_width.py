"""What a terminal shows fits it (issue 42): text tables wider than the width print as
pandas prints a wide frame (blocks of columns, the row names repeated), headings and legends
wrap, and the width is the terminal's when it is narrower than 100 columns (``COLUMNS``),
100 when the output is a file or a pipe."""

from __future__ import annotations

import io
import shlex
import sys

import pytest

from citeval_irm.cli.demo import shell_lines
from citeval_irm.printing.text_tables import WIDTH, render, text_width, wrap

HEADERS = ["measure", "pair", "diff", "95% CI", "d_z", "W/T/L", "p(rand)", "p(t)", "p(wsr)",
           "p(sign)", "p_adj", ""]  # fmt: skip
ROW = ["nDCG@300", "titles - bm25", "-16.31", "[-20.48, -12.53]", "-0.63", "37/17/109",
       "<0.0001", "<0.0001", "<0.0001", "<0.0001", "0.0011", "*"]  # fmt: skip


def cells_of(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip()]


def test_a_wide_table_prints_in_blocks_of_columns_that_fit():
    whole = render(HEADERS, [ROW], left=2, width=200)
    assert len(whole.splitlines()) == 2 and max(map(len, whole.splitlines())) > 100
    for width in (100, 80):
        text = render(HEADERS, [ROW], left=2, width=width)
        lines = text.splitlines()
        assert max(map(len, lines)) <= width
        blocks = text.split("\n\n")
        assert len(blocks) == 2  # the differences, then the p-values: the narrowest split
        first, second = (cells_of(block) for block in blocks)
        assert first[0][:2] == second[0][:2] == ["measure", "pair"]  # the row names repeated
        assert "W/T/L" in first[0] and "p(rand)" in second[0]
        assert first[1][:4] == ["nDCG@300", "titles", "-", "bm25"]
        # every cell once, in order
        assert first[1] + second[1][4:] == whole.splitlines()[1].split()


def test_a_block_inside_a_column_group_repeats_the_groups_name():
    headers = ["system", "ACL-200", "", "", "demo", "", ""]
    rows = [["", "RR", "R@10", "nDCG@10", "RR", "R@10", "nDCG@10"],
            ["bm25", "30.03", "52.15", "33.78", "30.03", "52.15", "33.78"]]  # fmt: skip
    text = render(headers, rows, width=30)
    assert max(map(len, text.splitlines())) <= 30
    blocks = [block.splitlines() for block in text.split("\n\n")]
    assert len(blocks) > 2
    named = []
    for groups, measures, values in blocks:
        assert groups.split()[0] == "system" and len(groups.split()) >= 2  # a group named
        named += list(zip(measures.split(), values.split()[1:]))
    assert [group.split()[1] for group, *_ in blocks][0] == "ACL-200"
    assert blocks[-1][0].split()[-1] == "demo"
    assert named == [("RR", "30.03"), ("R@10", "52.15"), ("nDCG@10", "33.78"),
                     ("RR", "30.03"), ("R@10", "52.15"), ("nDCG@10", "33.78")]  # fmt: skip


def test_the_width_is_the_terminals_when_narrower(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert text_width() == 80
    monkeypatch.setenv("COLUMNS", "200")
    assert text_width() == WIDTH == 100  # never wider than 100
    monkeypatch.setenv("COLUMNS", "12")
    assert text_width() == 40  # nor narrower than 40
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # a file or a pipe: 100, always
    assert text_width() == 100


@pytest.mark.parametrize("columns", ["80", "100"])
def test_a_legend_wraps_at_the_width_and_continues_indented(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    legend = "p(rand): randomisation test, paired and two-sided, sign flips of the per-query " * 3
    lines = wrap(legend, "  ").splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= int(columns)
    assert all(line.startswith("    ") for line in lines[1:])
    path = "/a/" + "long-folder-name/" * 8 + "demo-report.html"  # never cut inside
    assert path in wrap(f"report: {path}").splitlines()[-1]


def test_a_long_command_is_continued_so_that_a_shell_reads_one_command(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    command = (
        "citeval compare 'my runs/bm25.trec' titles.trec --dataset citeval/demo/test "
        "--protocol goyal2026 --baseline bm25 --report demo-report.html --force"
    )
    text = shell_lines(command, "  ")
    lines = text.splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= 80
    assert all(line.endswith(" \\") for line in lines[:-1])
    assert shlex.split(text.replace("\\\n", " ")) == shlex.split(command)
    assert shell_lines("citeval eval run.trec", "  ") == "  citeval eval run.trec\n"
