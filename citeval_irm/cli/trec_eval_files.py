"""The qrels and run of ``citeval trec_eval``, read as trec_eval 10.0 reads them.

One reader, two policies, chosen by the verb. The drop-in first reads both files with the
package's one reader (:mod:`citeval_irm.reading`), the fast path; what that reader refuses
because citeval's own verbs are strict (ids that are not UTF-8, scores only C's ``atof``
reads such as ``inf`` or ``0x1p3``, repeated (query, doc) pairs) is not the drop-in's to
refuse, so both files are then read again here, as ``get_qrels.c`` and
``get_trec_results.c`` read them:

- fields are runs of bytes between C's white space (``isspace``: space, tab, newline,
  vertical tab, form feed, carriage return); ids are bytes, compared as ``strcmp`` compares
  them. They are held as Latin-1 text, one character per byte, so that sorting them sorts
  their bytes and printing them (Latin-1 again) gives back the very bytes read;
- a run line is ``qid iter docno rank sim run_id [anything]``, ``sim`` read by ``atof``;
  a line whose first field starts with ``#`` or that is blank is skipped;
- a qrels line is exactly ``qid iter docno rel``, ``rel`` read by ``atol``; a line starting
  with ``#`` is skipped (and the line after it is read as data whatever it holds, as
  ``get_qrels.c`` does); a blank line is malformed;
- what trec_eval decides later, per query in its order, is kept for the evaluation
  (:mod:`.trec_eval_run`): the repeated docs of each qrels query and each run query.

A file either reader cannot read is ``citeval: error:`` naming the file and line, exit 2
(trec_eval's status for a file it cannot read).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..base.errors import CitevalError, InputError
from ..reading.tables import Qrels, Run
from .trec_eval_options import TrecEvalExit, c_atof, c_atol


@dataclass
class Inputs:
    """The qrels and run of one call, and how trec_eval would see their repeats.

    ``encoding`` is how ids print back (``"utf-8"`` from the fast reader, ``"latin-1"``
    from trec_eval's own parse); ``qrels_repeats`` the first repeated doc (in ``strcmp``
    order) of each qrels query that has one; ``run_rows`` each run query's rows as
    ``(doc, score)`` when the run has a repeated (query, doc), for trec_eval's check of a
    ranking after its ``-M`` cut (``None``: no repeat anywhere)."""

    qrels: Qrels
    run: Run
    encoding: str = "utf-8"
    qrels_repeats: dict[str, str] = field(default_factory=dict)
    run_rows: dict[str, list[tuple[str, float]]] | None = None


def read_inputs(qrels_path: str, run_path: str) -> Inputs:
    """Both files through the package's reader, else both as trec_eval reads them."""
    from ..reading.io import read_qrels, read_run

    for path in (qrels_path, run_path):
        _readable(path)
    if not (_read_otherwise(qrels_path, qrels=True) or _read_otherwise(run_path, qrels=False)):
        try:
            return Inputs(read_qrels(qrels_path), read_run(run_path))
        except InputError:
            pass
    return _as_trec_eval(qrels_path, run_path)


def _read_otherwise(path: str, qrels: bool) -> bool:
    """Whether the package's reader would read the file otherwise than trec_eval, though
    it accepts it: a byte-order mark at its start (trec_eval keeps its bytes in the first
    id), a carriage return that ends no CRLF (white space to trec_eval, a line end to the
    reader); in qrels a ``#`` (``get_qrels.c`` skips only a line it opens, and reads the line
    after as data whatever it holds) or a blank line (malformed to ``get_qrels.c``). Found
    in the mapped file by C-speed searches; a gzip file is trec_eval's to refuse, the
    reader's to read."""
    import mmap
    import re

    with open(path, "rb") as handle:
        if not os.fstat(handle.fileno()).st_size:
            return False
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data[:2] == b"\x1f\x8b":
                return False
            if data[:3] == b"\xef\xbb\xbf":
                return True
            if data.find(b"\r") >= 0 and re.search(rb"\r(?!\n)", data):
                return True
            return qrels and (data.find(b"#") >= 0 or bool(re.search(_BLANK_LINE, data)))


_BLANK_LINE = rb"(?:^|\n)[ \t\v\f\r]*\n|(?:^|\n)[ \t\v\f\r]+\Z"


def _readable(path: str) -> None:
    """A path trec_eval can read as a whole file (it maps it or seeks to its end)."""
    import stat

    try:
        mode = Path(path).stat().st_mode
    except OSError as exc:
        raise CitevalError(f"cannot read {path!r}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise CitevalError(f"cannot read {path!r}: not a regular file")


def _data(path: str) -> bytes:
    data = Path(path).read_bytes()
    if not data:
        # trec_eval: "Cannot read ... file" for an empty file (size 0), exit 2
        raise InputError(path, "is empty: trec_eval cannot read an empty file")
    return data.split(b"\0", 1)[0]  # C's strings end at a NUL byte


def _as_trec_eval(qrels_path: str, run_path: str) -> Inputs:
    queries, docs, labels = [], [], []
    for _number, fields in _qrels_lines(qrels_path):
        queries.append(fields[0])
        docs.append(fields[2])
        labels.append(c_atol(fields[3]))
    seen: dict[tuple[str, str], int] = {}
    repeats: dict[str, str] = {}
    keep = []
    for row, pair in enumerate(zip(queries, docs)):
        if pair in seen:
            repeats[pair[0]] = min(repeats.get(pair[0], pair[1]), pair[1])
        else:
            seen[pair] = row
            keep.append(row)
    qrels = Qrels.from_columns(
        np.array([queries[i] for i in keep], dtype=object),
        np.array([docs[i] for i in keep], dtype=object),
        np.array([labels[i] for i in keep], dtype=np.int64),
        source=qrels_path,
    )
    run_queries, run_docs, scores = [], [], []
    for fields in _run_lines(run_path):
        run_queries.append(fields[0])
        run_docs.append(fields[2])
        scores.append(c_atof(fields[4]))
    if not run_queries:
        raise InputError(run_path, "has no line of results: trec_eval reads none")
    rows: dict[str, list[tuple[str, float]]] = {}
    for query, doc, score in zip(run_queries, run_docs, scores):
        rows.setdefault(query, []).append((doc, score))
    repeated = len({(q, d) for q, d in zip(run_queries, run_docs)}) < len(run_queries)
    if repeated:  # one row per (query, doc), its best rank: trec_eval cuts, then checks
        best: dict[tuple[str, str], int] = {}
        for row, (query, doc, score) in enumerate(zip(run_queries, run_docs, scores)):
            earlier = best.get((query, doc))
            if earlier is None or _before((doc, score), (doc, scores[earlier])):
                best[(query, doc)] = row
        chosen = sorted(best.values())
        run_queries = [run_queries[i] for i in chosen]
        run_docs = [run_docs[i] for i in chosen]
        scores = [scores[i] for i in chosen]
    run = Run.from_columns(
        np.array(run_queries, dtype=object),
        np.array(run_docs, dtype=object),
        np.array(scores, dtype=np.float64),
        source=run_path,
    )
    return Inputs(qrels, run, "latin-1", repeats, rows if repeated else None)


def _before(a: tuple[str, float], b: tuple[str, float]) -> bool:
    """Whether ``a`` ranks before ``b`` in trec_eval's order (score down, then doc id down)."""
    return a[1] > b[1] or (a[1] == b[1] and a[0] > b[0])


def _qrels_lines(path: str):
    """``(line number, fields)`` of each data line, as ``get_qrels.c`` reads them."""
    lines = _data(path).split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    number = 0
    while number < len(lines):
        if lines[number].startswith(b"#"):
            number += 1  # get_qrels.c skips the comment, then reads the next line as data
            if number == len(lines):
                break
        fields = lines[number].split()
        if len(fields) != 4:
            raise InputError(
                path,
                f"malformed qrels line (trec_eval reads 4 fields, found {len(fields)})",
                number + 1,
            )
        yield number + 1, [f.decode("latin-1") for f in fields]
        number += 1


def _run_lines(path: str):
    """The fields of each data line, as ``get_trec_results.c`` reads them."""
    for number, line in enumerate(_data(path).split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            raise InputError(
                path, f"malformed run line (trec_eval reads 6 fields, found {len(fields)})", number
            )
        yield [f.decode("latin-1") for f in fields[:6]]


def first_repeat(rows: list[tuple[str, float]], max_docs: int | None) -> str | None:
    """The doc trec_eval names as repeated in one query's ranking: among the first
    ``max_docs`` rows in its order (score down, doc id down), the smallest doc id that
    appears twice (``form_res_rels.c`` sorts them by doc id and stops at the first pair)."""
    ranked = sorted(rows, key=lambda r: r[0], reverse=True)
    ranked.sort(key=lambda r: r[1], reverse=True)
    if max_docs is not None:
        ranked = ranked[: max(max_docs, 0)]
    docs = sorted(doc for doc, _ in ranked)
    return next((a for a, b in zip(docs, docs[1:]) if a == b), None)


__all__ = ["Inputs", "TrecEvalExit", "first_repeat", "read_inputs"]
