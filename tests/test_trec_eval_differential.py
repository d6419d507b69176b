"""``citeval trec_eval`` against the real trec_eval 10.0, on drawn inputs and command lines.

The drop-in mirrors: on every input trec_eval accepts, the same bytes on standard output
and the same exit status; where trec_eval stops part way (a query it cannot evaluate), the
same lines before the stop and the same status. The binary is built from its C source by
the ``trec_eval_binary`` fixture, so this runs wherever the suite runs. The cases are drawn
by ``trec_eval_cases.random_case`` (written from trec_eval's source: every option of its
command line, every measure family with its parameter forms, ties, graded and negative
labels, unjudged docs, run-only and qrels-only queries, repeats, ``atof``-only scores,
non-UTF-8 ids, rankings over 1,000 docs), seeded, so a failure names its seed and
reproduces: ``random_case(random.Random(seed))``.

The one allowed difference (trec_eval's value then depends on uninitialised memory) is not
drawn; what the drop-in does not compute yet (``NOT_YET``: refused with exit 1, each a row
of docs/guides/trec-eval.md, "Where the drop-in differs") is drawn and set aside, counted.
"""

from __future__ import annotations

import random
import re

import pytest
from trec_eval_cases import random_case, run_binary, run_ours

NOT_YET = {"G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid"}
"""Where the drop-in refuses gains for negative levels today (exit 1, said so): trec_eval's
``G``, ``ndcg_rel``, ``Rndcg``, ``rbp`` and ``rbp_resid`` given a gain for level -1 (the
docs not in the pool) or -2 (the docs judged negative); ``ndcg``, ``dcg`` and ``ideal_dcg``
take them."""


def _not_yet(argv: list[str]) -> bool:
    for arg in argv:
        name, _, params = re.sub(r"^(-m|--measure=)", "", arg).partition(".")
        if name in NOT_YET and re.search(r"(^|,)-\d+=", params):
            return True
    return False


def _without_rbp(result: tuple[int, bytes, bytes]) -> tuple[int, bytes, bytes]:
    """The output without its ``rbp`` lines: trec_eval 10.0's rbp reads two uninitialised
    variables (m_rbp.c line 72), so its value is not trec_eval's to give (the one allowed
    difference; the drop-in says so on standard error)."""
    kept = [line for line in result[1].splitlines(True) if not line.startswith(b"rbp ")]
    kept = [line for line in kept if not re.match(rb"rbp_(?!resid)", line)]
    return result[0], b"".join(kept), result[2]


def _differences(binary, folder, seeds) -> list[str]:
    found = []
    for seed in seeds:
        case = random_case(random.Random(seed))
        if _not_yet(case.argv):
            continue
        (folder / "qrels").write_bytes(case.qrels)
        (folder / "run").write_bytes(case.run)
        argv = [*case.argv, str(folder / "qrels"), str(folder / "run")]
        theirs, ours = run_binary(binary, argv), run_ours(argv)
        if b"rbp" in b"".join(a.encode() for a in case.argv) or b"all_trec" in b"".join(
            a.encode() for a in case.argv
        ):
            theirs, ours = _without_rbp(theirs), _without_rbp(ours)
        if theirs[0] < 0:  # trec_eval crashed (a signal): not an input it accepts
            continue
        if theirs[:2] != ours[:2]:
            found.append(
                f"seed {seed}: {case.argv}: trec_eval exit {theirs[0]} "
                f"{theirs[2][:120]!r}, citeval exit {ours[0]} {ours[2][:160]!r}"
            )
    return found


def test_drawn_cases_match_the_binary_byte_for_byte(tmp_path, trec_eval_binary):
    assert _differences(trec_eval_binary, tmp_path, range(300)) == []


@pytest.mark.slow
def test_thousands_of_drawn_cases_match_the_binary(tmp_path, trec_eval_binary):
    assert _differences(trec_eval_binary, tmp_path, range(10_000, 12_000)) == []


def test_the_drawn_cases_reach_what_they_are_meant_to(tmp_path, trec_eval_binary):
    """The generator is worth its cases: among the first 300, trec_eval exits 0 on most,
    stops part way on some (exit 4), and the odd inputs do occur."""
    statuses, odd = [], {"bytes": 0, "atof": 0, "long": 0, "repeat": 0}
    for seed in range(300):
        case = random_case(random.Random(seed))
        (tmp_path / "q").write_bytes(case.qrels)
        (tmp_path / "r").write_bytes(case.run)
        statuses.append(
            run_binary(trec_eval_binary, [*case.argv, str(tmp_path / "q"), str(tmp_path / "r")])[0]
        )
        data = case.qrels + case.run
        odd["bytes"] += any(b > 127 for b in data)
        odd["atof"] += any(w in case.run for w in (b" inf ", b" 0x1p3 ", b" 1e400 ", b" 3abc "))
        odd["long"] += case.run.count(b"\n") > 1000
        odd["repeat"] += statuses[-1] == 4
    assert statuses.count(0) > 200 and statuses.count(4) > 10
    assert all(count > 0 for count in odd.values()), odd


def test_what_is_not_mirrored_yet_is_refused_saying_so(tmp_path, trec_eval_dir):
    """The measures set aside above are refused with exit 1 and a message naming them,
    never a wrong number."""
    qrels, run = str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")
    for measure in ("G.-1=2,1=3", "rbp.-2=1"):
        assert _not_yet(["-m", measure])
        status, out, err = run_ours(["-m", measure, qrels, run])
        assert status == 1 and out == b"" and b"not supported" in err
    assert not _not_yet(["-m", "ndcg.1=3,2=9", "-m", "ndcg_cut.10", "-mP.5"])


QRELS = b"1 0 a 1\n1 0 b 0\n2 0 d 1\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 d 1 5 t\n"
BOM = b"\xef\xbb\xbf"
ODD_FILES = {
    "a lone CR in the run": (QRELS, b"1 Q0 a 1 3 t\r1 Q0 b 2 2 t\n2 Q0 d 1 5 t\n"),
    "a lone CR in the qrels": (b"1 0 a 1\r1 0 b 0\n2 0 d 1\n", RUN),
    "CRLF line ends": (QRELS.replace(b"\n", b"\r\n"), RUN.replace(b"\n", b"\r\n")),
    "a byte-order mark opening the run": (QRELS, BOM + RUN),
    "a byte-order mark opening the qrels": (BOM + QRELS, RUN),
    "an indented comment in the qrels": (b"1 0 a 1\n #c 0 a 1\n2 0 d 1\n", RUN),
    "a comment line then data in the qrels": (b"# c\n#q 0 a 1\n1 0 a 1\n2 0 d 1\n", RUN),
    "two comment lines in the qrels": (b"# c\n# d\n1 0 a 1\n2 0 d 1\n", RUN),
    "a blank line in the qrels": (b"1 0 a 1\n\n2 0 d 1\n", RUN),
    "a label below a long": (b"1 0 a -99999999999999999999\n1 0 b 1\n", RUN),
}
ODD_MEASURES = [
    ["-m", "num_ret", "-m", "num_rel", "-m", "map"],
    ["-c", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "ndcg"],
    ["-N", "99999999999999999999", "-m", "utility"],
    ["-m", "relstring.99999999999999999999"],
    ["-m", "utility.nan,0,0,0", "-m", "ndcg.1=nan"],  # a NaN printed with its sign
    ["-m", "Rprec_mult.1000000", "-m", "iprec_at_recall.123456789"],  # names cut as C cuts
    ["-m", "G.1=2,=3", "-m", "ndcg.=5"],  # an empty level: skipped, not malformed
    ["-m", "G.1=2=3"],  # two '=' in a pair: malformed
    ["-J", "-m", "utility.-1,-1,-1,-1"],  # an all line of -0 values summed from +0
    ["--Output_old_results_format=x", "-m", "map"],  # -o's long form takes a value
    ["-c", "-D", "0.1", "-m", "num_q", "-m", "map", "-m", "gm_map", "-m", "num_ret"],  # -c: all
    ["-R", "bogus", "-m", "map"],  # a format trec_eval does not know: its exit 2
    ["-T", "qrels", "-m", "map"],
]


@pytest.mark.parametrize("files", list(ODD_FILES.values()), ids=list(ODD_FILES))
def test_files_the_package_reader_reads_otherwise_are_read_as_trec_eval_reads_them(
    tmp_path, trec_eval_binary, files
):
    """What the package's reader accepts but reads otherwise than trec_eval (a carriage
    return that ends no CRLF, a byte-order mark, the qrels' comment rule, a blank qrels
    line), numbers beyond a C long on the command line or in a file: the binary's bytes and
    exit status, never a traceback."""
    (tmp_path / "qrels").write_bytes(files[0])
    (tmp_path / "run").write_bytes(files[1])
    for measures in ODD_MEASURES:
        argv = ["-q", *measures, str(tmp_path / "qrels"), str(tmp_path / "run")]
        theirs, ours = run_binary(trec_eval_binary, argv), run_ours(argv)
        assert ours[:2] == theirs[:2], (measures, theirs[2], ours[2])
