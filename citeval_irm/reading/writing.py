"""Writing a run as a TREC file: ranked, ids checked, the file there only once complete."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..base.errors import InputError, quoted
from .readers import read_run
from .tables import Run, first_true
from .trec_fast import PathLike

_ASCII_SPACE = "[ \t\n\v\f\r]"


# --------------------------------------------------------------------------- writing


def write_run(run, path: PathLike, *, tag: str = "citeval") -> Path:
    """Write a run as a TREC run file (``qid Q0 docid rank score tag``).

    The run is ranked by score (ties in trec_eval order), with ranks from 1, so the file
    gives the same numbers in trec_eval as the run in citeval.

    Parameters
    ----------
    run : path, Parquet, DataFrame, dict, records or Run
        The run, in any form :func:`read_run` reads.
    path : str or PathLike
        The file written; a ``.gz`` suffix writes gzip. It appears only once complete (see
        :func:`citeval_irm.base.outputs.atomic_output`).
    tag : str, default "citeval"
        The run tag of the TREC file.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> import citeval_irm
    >>> run = citeval_irm.bm25_run("citeval/demo/test")
    >>> path = citeval_irm.write_run(run, "bm25.trec", tag="bm25")
    """
    from ..base.outputs import atomic_output
    from .ties import rank_run

    run = read_run(run)
    _check_writable_ids(run, tag)
    ranked, _ = rank_run(run, "trec_eval", rewrite_scores=False)
    rank = ranked.rank_in_query()
    scores = [_format_score(v) for v in ranked.score.tolist()]
    lines = [
        f"{q} Q0 {d} {r} {s} {tag}\n"
        for q, d, r, s in zip(
            ranked.query_strings().to_pylist(),
            ranked.doc_strings().to_pylist(),
            rank.tolist(),
            scores,
        )
    ]
    path = Path(path)
    text = "".join(lines)
    opener = gzip.open if path.suffix == ".gz" else open
    with atomic_output(path) as temporary, opener(temporary, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _check_writable_ids(run: Run, tag: str) -> None:
    """An error naming the first id (or the tag) a TREC file cannot hold as it is: one
    with whitespace in it (it would be read back as other fields), a query id starting
    with ``#`` (read back as a comment line)."""
    for name, ids in (("query_id", run.query_ids), ("doc_id", run.doc_ids), ("tag", [tag])):
        ids = pa.array(ids, pa.string())
        bad = pc.match_substring_regex(ids, _ASCII_SPACE)
        if name == "query_id":
            bad = pc.or_(bad, pc.starts_with(ids, "#"))
        where = first_true(bad)
        if where is not None:
            raise InputError(
                run.source,
                f"{name} {quoted(ids[where].as_py())} cannot be written to a TREC file: it holds "
                "whitespace or starts with '#', so it would be read back as other fields "
                "(write the run as Parquet instead)",
            )


def _format_score(value: float) -> str:
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))
