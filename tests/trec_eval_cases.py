"""Random trec_eval inputs and command lines, for the differential tests of the drop-in.

Written from trec_eval 10.0's source (``measures.c``, ``meas_init.c``, ``get_qrels.c``,
``get_trec_results.c``), not from the package's measure table, so that what the generator
asks for is what trec_eval takes, not what citeval believes it takes. A case is three
byte strings: the qrels, the run and the command line (argv without the program).

What it draws, case by case:

- qrels of 1-6 queries with graded, zero and negative labels (some queries all negative),
  docs shared between queries, now and then a repeated (query, doc);
- runs over some of those queries and queries of their own, docs judged and unjudged, tied
  scores, scores only C's ``atof`` reads (``inf``, ``0x1p3``, ``1e400``, ``3abc``), repeated
  (query, doc) pairs, odd but legal ids (``#`` inside, non-UTF-8 bytes, digits only),
  and sometimes a ranking over 1,000 docs;
- command lines over every option trec_eval's ``getopt_long`` takes (``-q -c -n -J -l -M
  -N -m``, long spellings) and every measure family of ``measures.c`` with the parameter
  forms ``meas_init.c`` reads (cut-offs unsorted, repeated, non-positive or not ASCII; pairs;
  doubles), nicknames included.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# trec_eval 10.0's measures (measures.c) by how meas_init.c reads their parameters;
# the preference and judgement-group measures need other file formats and are left out.
PLAIN = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
         "bpref", "recip_rank", "infAP", "gm_bpref", "binG", "set_P", "set_relative_P",
         "set_recall", "set_map", "num_nonrel_judged_ret", "yaap"]  # fmt: skip
LONG_CUTS = ["P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj"]
DOUBLE_CUTS = ["iprec_at_recall", "Rprec_mult"]
PAIRS = ["G", "ndcg", "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "dcg", "ideal_dcg"]
DOUBLES = ["utility", "relstring", "set_F", "11pt_avg"]
NICKNAMES = ["official", "all_trec", "set"]

_DIGITS = "0123456789"
_WIDE = "０１２３４５６７８９"  # fullwidth digits: Python's int() reads them, atol does not
_ARABIC = "٠١٢٣٤٥٦٧٨٩"


@dataclass
class Case:
    qrels: bytes
    run: bytes
    argv: list[str]


def _number(rng: random.Random, low: int, high: int) -> str:
    text = str(rng.randint(low, high))
    if rng.random() < 0.05:
        table = rng.choice([_WIDE, _ARABIC])
        text = "".join(table[_DIGITS.index(c)] if c in _DIGITS else c for c in text)
    return text


def _fraction(rng: random.Random) -> str:
    return rng.choice(["0", ".1", ".2", ".25", "0.5", ".75", "1", "1.0", "0.333", ".05"])


def _measure(rng: random.Random) -> str:
    kind = rng.choice(["plain", "long", "double", "pairs", "doubles", "nick"])
    if kind == "nick":
        return rng.choice(NICKNAMES)
    if kind == "plain":
        name = rng.choice(PLAIN)
        return name if rng.random() < 0.85 else f"{name}.{_number(rng, 1, 20)}"
    if kind == "long":
        name = rng.choice(LONG_CUTS)
        if rng.random() < 0.3:
            return name
        cuts = [_number(rng, 1, 30) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.05:
            cuts.append(rng.choice(["0", "-3", "23.4", "7x"]))
        return f"{name}.{','.join(cuts)}"
    if kind == "double":
        name = rng.choice(DOUBLE_CUTS)
        if rng.random() < 0.3:
            return name
        values = [_fraction(rng) for _ in range(rng.randint(1, 4))]
        if name == "Rprec_mult" and rng.random() < 0.5:
            values = [rng.choice(["0.2", "1.0", "2", "0.5", "1.5", "5.0"]) for _ in values]
        return f"{name}.{','.join(values)}"
    if kind == "pairs":
        name = rng.choice(PAIRS)
        if rng.random() < 0.4:
            return name
        if name.startswith("rbp") and rng.random() < 0.6:
            pairs = [f"p={rng.choice(['0.5', '0.8', '0.95', '0.2'])}"]
            if rng.random() < 0.3:
                pairs.append(f"{rng.randint(0, 3)}={rng.choice(['1', '2', '0.5'])}")
        else:
            levels = rng.sample(range(-1, 4), rng.randint(1, 3))
            pairs = [f"{level}={rng.choice(['0', '1', '3', '4.5', '9', '7'])}" for level in levels]
        return f"{name}.{','.join(pairs)}"
    name = rng.choice(DOUBLES)
    if rng.random() < 0.3:
        return name
    if name == "utility":
        count = 4 if rng.random() < 0.9 else rng.choice([3, 5])
        return f"utility.{','.join(rng.choice(['2', '-1', '0', '1', '0.5']) for _ in range(count))}"
    if name == "relstring":
        return f"relstring.{_number(rng, 1, 30)}"
    if name == "set_F":
        return f"set_F.{rng.choice(['0.5', '1', '2', '3.0', '0.25'])}"
    levels = [_fraction(rng) for _ in range(rng.randint(1, 4))]
    return "11pt_avg." + ",".join(levels)


def command_line(rng: random.Random) -> list[str]:
    """Options as trec_eval's ``getopt_long`` takes them (measures with ``-m``)."""
    argv: list[str] = []
    if rng.random() < 0.6:
        argv.append(rng.choice(["-q", "--query_eval_wanted"]) if rng.random() < 0.9 else "-q")
    if rng.random() < 0.5:
        argv.append(rng.choice(["-c", "--complete_rel_info_wanted"]))
    if rng.random() < 0.1:
        argv.append("-n")
    if rng.random() < 0.15:
        argv.append(rng.choice(["-J", "--Judged_docs_only"]))
    if rng.random() < 0.2:
        level = _number(rng, 0, 3)
        argv += rng.choice([[f"-l{level}"], ["-l", level], [f"--level_for_rel={level}"]])
    if rng.random() < 0.2:
        depth = _number(rng, 1, 12)
        argv += rng.choice([[f"-M{depth}"], ["-M", depth], ["--Max_retrieved_per_topic", depth]])
    if rng.random() < 0.1:
        argv += ["-N", _number(rng, 0, 100)]
    for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
        value = _measure(rng)
        argv += rng.choice([["-m", value], [f"-m{value}"], [f"--measure={value}"]])
    return argv


def _qid(rng: random.Random, n: int, bytes_ok: bool) -> bytes:
    style = rng.random()
    if bytes_ok and style < 0.3:
        return f"q\xe9{n}".encode("latin-1")
    if style < 0.5:
        return f"q{n}".encode()
    if style < 0.75:
        return str(n * 7 + 1).encode()
    return f"Q-{n}.x#{n}".encode()


def _doc(rng: random.Random, n: int, bytes_ok: bool) -> bytes:
    if bytes_ok and rng.random() < 0.2:
        return f"d\xff{n}".encode("latin-1")
    return f"d{n}".encode()


def _score(rng: random.Random) -> bytes:
    if rng.random() < 0.01:
        return rng.choice([b"inf", b"-inf", b"Infinity", b"0x1p3", b"0X1A", b"1e400", b"3abc",
                           b"-0", b"1e-400", b"+.5"])  # fmt: skip
    return rng.choice([b"1", b"2", b"2.5", b"3", b"7", b"-1", b"0.125", b"10"])


def random_case(rng: random.Random, long_rankings: bool = True) -> Case:
    """One qrels, run and command line (see the module's docstring)."""
    queries = rng.sample(range(40), rng.randint(1, 6))
    odd_bytes = rng.random() < 0.08  # ids that are not UTF-8 in this case
    qids = {q: _qid(rng, q, odd_bytes) for q in queries + [90 + q for q in queries]}
    qrels: list[bytes] = []
    for q in queries:
        docs = [rng.randint(0, 30) for _ in range(rng.randint(1, 12))]
        negative_only = rng.random() < 0.03
        for doc in dict.fromkeys(docs):
            label = -1 if negative_only else rng.choice([-1, 0, 0, 1, 1, 2, 3])
            qrels.append(b"%s 0 %s %d" % (qids[q], _doc(rng, doc, odd_bytes), label))
        if rng.random() < 0.02:
            qrels.append(qrels[-1])
    run: list[bytes] = []
    ranked = [q for q in queries if rng.random() < 0.93]
    ranked += [90 + q for q in queries if rng.random() < 0.15]  # run-only queries
    tag = rng.choice([b"tag", b"run-1", b"t\xe9" if odd_bytes else b"t.2"])
    for q in ranked:
        size = rng.randint(1, 25)
        if long_rankings and rng.random() < 0.03:
            size = rng.randint(1001, 1300)
        docs = list(dict.fromkeys(rng.randint(0, 45 if size < 100 else 2000) for _ in range(size)))
        if rng.random() < 0.02:
            docs.append(rng.choice(docs))  # a repeated (query, doc)
        for rank, doc in enumerate(docs):
            run.append(
                b"%s Q0 %s %d %s %s" % (qids[q], _doc(rng, doc, odd_bytes), rank, _score(rng), tag)
            )
    if not run:
        run.append(b"%s Q0 d1 0 1 %s" % (qids[queries[0]], tag))
    if rng.random() < 0.3:
        rng.shuffle(run)
    return Case(b"\n".join(qrels) + b"\n", b"\n".join(run) + b"\n", command_line(rng))


def run_ours(argv: list[str]) -> tuple[int, bytes, bytes]:
    """``citeval trec_eval`` in this process: its exit status, standard output and error
    as bytes (what a shell redirect would hold)."""
    import io
    import sys

    from citeval_irm.cli import main

    saved = sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="surrogateescape")
    try:
        status = main(["trec_eval", *argv])
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
            stream.detach()
        sys.stdout, sys.stderr = saved
    return status, out.getvalue(), err.getvalue()


def run_binary(binary, argv: list[str]) -> tuple[int, bytes, bytes]:
    """The trec_eval binary on the same arguments."""
    import subprocess

    done = subprocess.run([str(binary), *argv], capture_output=True, timeout=60)
    return done.returncode, done.stdout, done.stderr
