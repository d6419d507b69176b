"""Child processes of ``bench_scoring.py``: each the whole job of one tool, from the files.

    python scoring_children.py pyarrow RUN                 # parse the run, nothing else
    python scoring_children.py pyarrow3 RUN                # only query_id, doc_id, score
    python scoring_children.py pyarrow3dict RUN            # the same, ids as dictionaries
    python scoring_children.py ranx RUN QRELS METRIC...    # ranx evaluate, aggregate as JSON
    python scoring_children.py pytrec RUN QRELS MEASURE... # pytrec_eval, per query as JSON

Each library is imported inside its command, so a child holds only what its tool needs and
its peak RSS is that tool's.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

RUN_COLUMNS = ("query_id", "iteration", "doc_id", "rank", "score", "tag")
QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "relevance")


def read_trec(path: str, columns: tuple[str, ...], types: dict) -> pa.Table:
    """A space-separated TREC file as a pyarrow table, with the given column types."""
    import pyarrow.csv as pa_csv

    return pa_csv.read_csv(
        path,
        read_options=pa_csv.ReadOptions(column_names=list(columns)),
        parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pa_csv.ConvertOptions(column_types=types),
    )


def read_run(path: str) -> pa.Table:
    """The run's six columns, typed as a TREC run is (ids and tag strings, rank int, score
    float): the parse every evaluator has to do, so its time is the floor."""
    import pyarrow as pa

    text = pa.string()
    types = {"query_id": text, "iteration": text, "doc_id": text, "tag": text}
    return read_trec(path, RUN_COLUMNS, {**types, "rank": pa.int64(), "score": pa.float64()})


def pyarrow_parse(run: str) -> None:
    print(read_run(run).num_rows)


def pyarrow_three_columns(run: str, ids: str = "strings") -> None:
    """The bare parse of the three columns an evaluator needs, ids as strings (or, with
    ``ids="dictionaries"``, dictionary-encoded as citeval reads them) and a float score:
    the floor of ``citeval eval`` (bench_pipeline.py, bench_speed.py)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    text = pa.dictionary(pa.int32(), pa.string()) if ids == "dictionaries" else pa.string()
    table = pa_csv.read_csv(
        run,
        read_options=pa_csv.ReadOptions(column_names=list(RUN_COLUMNS)),
        parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False),
        convert_options=pa_csv.ConvertOptions(
            include_columns=["query_id", "doc_id", "score"],
            column_types={"query_id": text, "doc_id": text, "score": pa.float64()},
        ),
    )
    print(table.num_rows)


def ranx_evaluate(run: str, qrels: str, *metrics: str) -> None:
    """What a ranx user writes: ``from_file`` (``from_df`` fails under pandas 3, ranx#79)."""
    import warnings

    from ranx import Qrels, Run, evaluate

    warnings.simplefilter("ignore")  # NumbaTypeSafetyWarning
    values = evaluate(
        Qrels.from_file(qrels, kind="trec"), Run.from_file(run, kind="trec"), list(metrics)
    )
    print(json.dumps({name: float(value) for name, value in values.items()}))


def pytrec_per_query(run: str, qrels: str, *measures: str) -> None:
    """pytrec_eval on ``{qid: {doc: score}}`` dicts (read with pyarrow): per-query values."""
    import pyarrow as pa
    import pytrec_eval

    table = read_run(run)
    run_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in zip(
        table["query_id"].to_pylist(), table["doc_id"].to_pylist(), table["score"].to_pylist()
    ):
        run_dict.setdefault(query, {})[doc] = score
    del table
    text = pa.string()
    judged = read_trec(qrels, QRELS_COLUMNS, {"query_id": text, "iteration": text, "doc_id": text})
    qrels_dict: dict[str, dict[str, int]] = {}
    for query, doc, label in zip(
        judged["query_id"].to_pylist(),
        judged["doc_id"].to_pylist(),
        judged["relevance"].to_pylist(),
    ):
        qrels_dict.setdefault(query, {})[doc] = int(label)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(measures))
    json.dump(evaluator.evaluate(run_dict), sys.stdout)


COMMANDS = {
    "pyarrow": pyarrow_parse,
    "pyarrow3": pyarrow_three_columns,
    "pyarrow3dict": lambda run: pyarrow_three_columns(run, "dictionaries"),
    "ranx": ranx_evaluate,
    "pytrec": pytrec_per_query,
}

if __name__ == "__main__":
    COMMANDS[sys.argv[1]](*sys.argv[2:])
