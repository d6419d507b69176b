"""PyTerrier (the real python-terrier package, no Java): the citeval datasets through its
``pyterrier.dataset_provider`` entry point, our protocols in ``pt.Experiment``, and its
frames in evaluate / crosscheck / validate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import ir_datasets
import pandas as pd
import pyterrier as pt
import pytest

import citeval_irm
from citeval_irm.base.errors import InputError

DEMO = "citeval/demo/test"
pytestmark = pytest.mark.usefixtures("demo_home")

# Run in a fresh interpreter that never imports citeval_irm itself: PyTerrier must find the
# datasets through the entry point alone.
NO_IMPORT_OF_OURS = """
import json, sys
import pyterrier as pt
assert not any(name.startswith("citeval") for name in sys.modules)
dataset = pt.get_dataset("citeval:demo/test")
topics, qrels = dataset.get_topics(), dataset.get_qrels()
corpus = dataset.get_corpus_iter(verbose=False)
first = next(iter(corpus))
try:
    pt.get_dataset("citeval:demo/tset")
    unknown = None
except LookupError as error:  # the close matches in the error itself, not a chained one
    unknown = str(error) if not isinstance(error, KeyError) else "a bare KeyError"
print(json.dumps({
    "repr": repr(dataset),
    "topics": [list(topics.columns), len(topics), topics["query"].iloc[0]],
    "qrels": [list(qrels.columns), len(qrels), sorted(set(qrels["label"].tolist()))],
    "corpus": [len(corpus), sorted(first)],
    "left_context": list(dataset.get_topics("left_context").columns),
    "unknown": unknown,
}))
"""


@pytest.mark.slow
def test_get_dataset_with_no_import_of_ours(demo_home) -> None:
    env = {**os.environ, "IR_DATASETS_HOME": str(demo_home)}
    assert "citeval_irm" not in NO_IMPORT_OF_OURS
    done = subprocess.run(
        [sys.executable, "-c", NO_IMPORT_OF_OURS], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["repr"] == "CitevalDataset('citeval/demo/test')"
    columns, count, first_query = found["topics"]
    assert columns == ["qid", "query"] and count == 163 and "TARGETCIT" in first_query
    assert found["qrels"] == [["qid", "docno", "label"], 163, [1]]
    assert found["corpus"] == [420, ["abstract", "docno", "text", "title", "year"]]
    assert found["left_context"] == ["qid", "query"]
    assert found["unknown"].startswith(  # named as pt.get_dataset takes them
        "unknown dataset 'citeval:demo/tset'; did you mean citeval:demo/test, "
    )
    assert "[INFO]" not in done.stderr


def test_the_entry_point_and_the_names() -> None:
    (entry,) = [e for e in entry_points(group="pyterrier.dataset_provider") if e.name == "citeval"]
    provider = entry.load()()
    names = list(provider.list_dataset_names())
    from citeval_irm.datasets import DATASET_IDS

    assert sorted(names) == sorted(i.removeprefix("citeval/") for i in DATASET_IDS)
    assert (
        provider.get_dataset("citeval/demo/test")
        .get_topics()
        .equals(pt.get_dataset("citeval:demo/test").get_topics())
    )
    topics = pt.get_dataset("citeval:demo/test").get_topics()  # query: the masked context
    records = {q.query_id: q.text for q in ir_datasets.load(DEMO).queries_iter()}
    assert dict(zip(topics["qid"], topics["query"])) == records


@pytest.fixture(scope="module")
def results(demo_home) -> pd.DataFrame:
    """A PyTerrier results frame (qid, docno, score, rank, query) of the BM25 baseline."""
    topics = pt.get_dataset("citeval:demo/test").get_topics()
    run = citeval_irm.bm25_run(DEMO, 300).frame
    frame = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    frame["rank"] = frame.groupby("qid").cumcount()
    return frame.merge(topics, on="qid")


def test_protocol_measures_in_pt_experiment(results) -> None:
    dataset = pt.get_dataset("citeval:demo/test")
    topics, qrels = dataset.get_topics(), dataset.get_qrels()
    measures = list(citeval_irm.PROTOCOLS["goyal2026"].measures)
    table = pt.Experiment([results], topics, qrels, eval_metrics=measures, names=["bm25"])
    ours = citeval_irm.evaluate(results, qrels, protocol="goyal2026")
    for measure in measures:
        assert table.loc[0, str(measure)] == pytest.approx(ours.aggregate[str(measure)], abs=1e-12)


def test_evaluate_crosscheck_validate_on_a_pyterrier_frame(results) -> None:
    qrels = pt.get_dataset("citeval:demo/test").get_qrels()
    by_frame = citeval_irm.evaluate(results, qrels, protocol="goyal2026")
    by_id = citeval_irm.evaluate(results, DEMO, protocol="goyal2026")
    assert by_frame.aggregate.round(12).equals(by_id.aggregate.round(12))
    report = citeval_irm.crosscheck(results, DEMO, protocol="goyal2026")
    assert report.unexplained == 0
    assert citeval_irm.validate(results, DEMO).passed


def test_rank_is_read_past_as_trec_eval_does(results) -> None:
    """PyTerrier's ``rank`` column is ignored: the order is the score's (trec_eval)."""
    qrels = pt.get_dataset("citeval:demo/test").get_qrels()
    reversed_ranks = results.assign(rank=results["rank"].max() - results["rank"])
    a = citeval_irm.evaluate(results, qrels, "RR R@10")
    b = citeval_irm.evaluate(reversed_ranks, qrels, "RR R@10")
    assert a.aggregate.equals(b.aggregate)


def test_a_frame_with_none_of_the_names_lists_the_accepted_ones() -> None:
    frame = pd.DataFrame({"query": ["q1"], "document": ["d1"], "similarity": [1.0]})
    with pytest.raises(InputError) as info:
        citeval_irm.evaluate(frame, {"q1": {"d1": 1}}, "RR")
    assert str(info.value) == (
        "<DataFrame>: missing column(s) ['query_id', 'doc_id', 'score'] (accepted names: "
        "query_id or qid, doc_id or docno, score); found ['query', 'document', 'similarity']"
    )
    qrels = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "grade": [1]})
    with pytest.raises(InputError, match=r"accepted names: query_id or qid, doc_id or docno, "
                       r"relevance or label\); found \['qid', 'docno', 'grade'\]"):  # fmt: skip
        citeval_irm.evaluate({"q1": {"d1": 1.0}}, qrels, "RR")
    ranked_only = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "rank": [0]})
    with pytest.raises(InputError, match=r"missing column\(s\) \['score'\]"):
        citeval_irm.evaluate(ranked_only, {"q1": {"d1": 1}}, "RR")


def test_a_corpus_without_qrels_names_its_splits() -> None:
    import pyterrier as pt

    corpus = pt.get_dataset("citeval:demo")
    splits = "use one of its splits: citeval/demo/train, citeval/demo/val, citeval/demo/test"
    for method in (corpus.get_qrels, corpus.get_topics):
        with pytest.raises(NotImplementedError, match=splits):
            method()


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_irds_names_and_ir_datasets_own_command_are_as_the_guide_says(demo_home) -> None:
    """``irds:citeval/...`` goes through PyTerrier's generic ir_datasets loader: every query
    field, no ``query`` column until one is named; ir_datasets' own command line does not
    know the ids at all (no plugin discovery: a KeyError). The guide says both and points to
    the ``citeval:`` names and ``citeval datasets export``, which work."""
    generic = pt.get_dataset(f"irds:{DEMO}")  # registered with ir_datasets by citeval_irm
    assert "query" not in generic.get_topics().columns
    assert list(generic.get_topics("text").columns) == ["qid", "query"]
    assert list(pt.get_dataset("citeval:demo/test").get_topics().columns) == ["qid", "query"]
    env = {**os.environ, "IR_DATASETS_HOME": str(demo_home)}
    theirs = subprocess.run(
        [sys.executable, "-m", "ir_datasets", "export", DEMO, "qrels"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert theirs.returncode != 0 and f"KeyError: '{DEMO}'" in theirs.stderr
    ours = subprocess.run(
        [Path(sys.executable).with_name("citeval"), "datasets", "export", DEMO, "qrels"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert ours.returncode == 0 and len(ours.stdout.splitlines()) == 163, ours.stderr
    guide = (REPO / "docs" / "guides" / "pyterrier.md").read_text(encoding="utf-8")
    for said in (
        f'pt.get_dataset("irds:{DEMO}")',
        'get_topics("text")',
        f"ir_datasets export {DEMO} qrels",
        f"KeyError: '{DEMO}'",
        f"citeval datasets export {DEMO} qrels",
    ):
        assert said in guide, said
