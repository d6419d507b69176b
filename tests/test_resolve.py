"""citeval resolve / resolve(): generated reference lists matched to a GENERATED corpus with
the traps of real lists (resolve_fixtures.TRAPS, each decision checked against its
hand-made expectation), the run, the report, the catalogue, validate and breakdown on the
resolved run, and the command line's errors."""

from __future__ import annotations

import json
import re
import warnings

import pytest
from resolve_fixtures import CITING, PAPERS, TRAPS, write_trap_corpus

import citeval_irm
from citeval_irm.cli import main
from citeval_irm.comparison import facets
from citeval_irm.resolving.normalise import identifiers, title_key

ACL = "citeval/acl-200/test"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("resolve")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(root / "home"))
        patch.setenv("CITEVAL_ACL_200_DIR", str(root / "acl-200"))
        written = write_trap_corpus(root / "acl-200")
        # citation counts are cached by dataset id; this module's acl-200 is its own corpus
        facets.citation_counts.cache_clear()
        yield {"root": root, **written}
        facets.citation_counts.cache_clear()


def quiet_resolve(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", citeval_irm.EvalWarning)
        return citeval_irm.resolve(*args, **kwargs)


def test_every_trap_gets_its_hand_made_decision(corpus):
    query = corpus["queries"][0]
    lists = {f"{query}" if n == 0 else f"trap-{n}": [reference]
             for n, (reference, _, _) in enumerate(TRAPS)}  # fmt: skip
    result = quiet_resolve(lists, ACL)
    decisions = result.decisions.set_index("query_id")
    wrong = []
    for n, (reference, how, docs) in enumerate(TRAPS):
        row = decisions.loc[query if n == 0 else f"trap-{n}"]
        got = tuple(row["candidates"].split()) if row["how"] == "ambiguous" else (
            (row["doc_id"],) if row["doc_id"] else ())  # fmt: skip
        if (row["how"], set(got)) != (how, set(docs)):
            wrong.append(f"{reference!r}: {row['how']} {got}, expected {how} {docs}")
    assert not wrong, "\n".join(wrong)


def test_the_run_keeps_the_generated_order_and_drops_duplicates_counted(corpus, tmp_path):
    first, second = corpus["queries"][:2]
    lists = {
        first: ["Bleu: a method for automatic evaluation of machine translation",
                "GloVe: Global Vectors for Word Representation", "D14-1162",
                "Quantum llama parsing for interstellar machine translation",
                "Building a large annotated corpus of English: the Penn Treebank",
                "Attention is all you need"],
        second: [],
    }  # fmt: skip
    result = quiet_resolve(lists, ACL)
    path = citeval_irm.write_run(result.run, tmp_path / "resolved.trec")
    lines = [line.split() for line in path.read_text().splitlines()]
    assert [(q, d, int(r)) for q, _, d, r, _, _ in lines] == [
        (first, "P02-1040", 1), (first, "D14-1162", 2), (first, "J93-2004", 3)]  # fmt: skip
    row = result.per_query.loc[first]
    assert (row["references"], row["exact"], row["id"], row["unmatched"], row["ambiguous"],
            row["duplicates"]) == (6, 3, 1, 1, 1, 1)  # fmt: skip
    assert row["in_pool_rate"] == pytest.approx(5 / 6)
    assert row["duplicate_rate"] == pytest.approx(1 / 6)
    empty = result.per_query.loc[second]
    assert empty["references"] == 0 and empty["in_pool_rate"] != empty["in_pool_rate"]  # NaN
    counts = result.counts()
    assert counts == {"queries": 2, "empty_lists": 1, "references": 6, "id": 1, "exact": 3,
                      "fuzzy": 0, "ambiguous": 1, "conflict": 0, "near_miss": 0,
                      "unmatched": 1, "duplicates": 1, "empty": 0}  # fmt: skip
    assert repr(result).startswith("Resolution(dataset='citeval/acl-200/test', queries=2")
    assert "\n" not in repr(result)
    # the field's measures beside the resolution's: the first query's gold (D14-1162) at rank 2
    gold = {q: q.split("_")[1] for q in corpus["queries"]}
    assert gold[first] == "D14-1162" and result.per_query.loc[first, "RR"] == 0.5
    assert result.aggregate["RR"] == pytest.approx(0.5 / len(corpus["queries"]))
    assert result.measures[:2] == ["in_pool_rate", "duplicate_rate"]


def test_csv_lists_resolve_as_the_jsonl_ones(corpus, tmp_path):
    query = corpus["queries"][0]
    references = [
        "Attention is all you need. NeurIPS 2017",
        "N19-1423",
        'Say "Buildng a large anotated corpus of English: the Penn Treebank" here',
    ]
    jsonl = tmp_path / "lists.jsonl"
    jsonl.write_text(json.dumps({"query_id": query, "references": references}) + "\n")
    csv_path = tmp_path / "lists.csv"
    import csv

    with open(csv_path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query_id", "rank", "reference"])
        for rank, reference in reversed(list(enumerate(references, 1))):  # any row order
            writer.writerow([query, rank, reference])
    one, other = quiet_resolve(jsonl, ACL), quiet_resolve(csv_path, ACL)
    columns = ["query_id", "position", "reference", "how", "doc_id"]
    assert one.decisions[columns].equals(other.decisions[columns])
    assert list(one.decisions["how"]) == ["exact", "id", "fuzzy"]  # the quoted title only


def test_a_catalogue_splits_the_unmatched_and_without_one_the_report_cannot_tell(corpus, tmp_path):
    query = corpus["queries"][0]
    lists = {
        query: [
            "Language models are few-shot learners",
            "Languaje models are few-shot learners (2020)",
            "Quantum llama parsing for interstellar translation",
            "GloVe: Global Vectors for Word Representation",
            {"arxiv": "2005.14165"},
        ]
    }
    plain = quiet_resolve(lists, ACL)
    assert set(plain.decisions["catalogue"]) == {"unknown", "in_pool"}
    assert "cannot be told from a fabricated one" in " ".join(plain.format("table").split())
    assert "existence_rate" not in plain.per_query.columns
    catalogue = tmp_path / "known.csv"
    catalogue.write_text("title,arxiv\nLanguage Models are Few-Shot Learners,2005.14165\n"
                         "Some other known paper,\n")  # fmt: skip
    known = quiet_resolve(lists, ACL, catalogue=catalogue)
    assert list(known.decisions["catalogue"]) == [
        "outside_pool", "outside_pool", "nowhere", "in_pool", "outside_pool"]  # fmt: skip
    assert known.counts()["outside_pool"] == 3 and known.counts()["nowhere"] == 1
    assert known.per_query.loc[query, "existence_rate"] == pytest.approx(4 / 5)
    assert "outside pool" in known.format("table")
    text = tmp_path / "titles.txt"
    text.write_text("Language Models are Few-Shot Learners\n\n")
    assert quiet_resolve(lists, ACL, catalogue=text).counts()["nowhere"] == 2  # no ids in it


def test_validate_reports_what_the_protocol_forbids_in_a_resolved_run(corpus, tmp_path):
    query = corpus["queries"][0]
    lists = {query: ["GloVe: Global Vectors for Word Representation",
                     PAPERS["N19-1423"],  # 2019: later than the citing paper (2018)
                     PAPERS[CITING]]}  # the citing paper itself  # fmt: skip
    result = quiet_resolve(lists, ACL)
    assert list(result.decisions["doc_id"]) == ["D14-1162", "N19-1423", CITING]
    run = citeval_irm.write_run(result.run, tmp_path / "resolved.trec")
    report = citeval_irm.validate(run, ACL, same_year=True)
    assert not report.passed
    assert report.count("later_paper") == 1 and report.count("query_paper") == 1


def test_breakdown_by_popularity_takes_the_resolution(corpus):
    queries = corpus["queries"]
    cited = {q: q.split("_")[1] for q in queries}
    # the system names the popular papers and invents the others
    lists = {
        q: [
            PAPERS[cited[q]]
            if corpus["counts"].get(cited[q], 0) >= 6
            else f"An invented title number {n} about nothing"
        ]
        for n, q in enumerate(queries)
    }
    result = quiet_resolve(lists, ACL)
    found = citeval_irm.breakdown(
        result,
        ACL,
        "in_pool_rate",
        by="popularity",
        bins=2,
        statistics=citeval_irm.StatisticsOptions(permutations=200, bootstrap=200),
    )
    rates = dict(zip(found.groups["group"], found.groups[found.runs[0]]))
    assert list(rates.values()) == [0.0, 1.0]  # tail invented, head named
    default = citeval_irm.breakdown(
        result,
        ACL,
        by="popularity",
        bins=2,
        statistics=citeval_irm.StatisticsOptions(bootstrap=200),
    )
    assert default.measure == "in_pool_rate"


def test_identifier_and_title_forms():
    assert identifiers({}, "arXiv:1706.03762v2") == ["1706.03762v2", "1706.03762"]
    assert identifiers({}, "https://arxiv.org/abs/1706.03762") == ["1706.03762"]
    assert identifiers({}, "https://arxiv.org/pdf/1706.03762v1.pdf") == [
        "1706.03762v1",
        "1706.03762",
    ]
    assert identifiers({}, "https://doi.org/10.48550/arXiv.1706.03762") == ["1706.03762"]
    assert identifiers({"arxiv": "hep-th/9901001v2"}) == ["hep-th/9901001v2", "hep-th/9901001"]
    assert identifiers({}, "https://aclanthology.org/P15-1001.pdf") == ["P15-1001"]
    assert identifiers({}, "https://aclanthology.org/2020.acl-main.1/") == ["2020.acl-main.1"]
    assert identifiers({"doi": "10.1145/3397271.3401075."}) == ["10.1145/3397271.3401075"]
    assert identifiers({}, "COVID-19 in 2017.12345 cases") == []
    assert title_key("{\\em Attention} is All You Need. NeurIPS 2017") == (
        "attention is all you need", 2017, False)  # fmt: skip
    assert title_key("Neural MT, In Proceedings of ACL 2015").text == "neural mt"
    assert title_key("A title cut short...").truncated


def test_arxiv_ids_in_several_forms_on_an_arxiv_corpus(tmp_path, monkeypatch):
    from datasets_fixtures import write_arsyta_folder

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CITEVAL_ARSYTA_DIR", str(tmp_path / "arsyta"))
    write_arsyta_folder(tmp_path / "arsyta")
    forms = ["arXiv:1705.22222v2", "https://arxiv.org/abs/1705.22222",
             "https://arxiv.org/pdf/1705.22222v1.pdf", "10.48550/arXiv.1705.22222",
             {"arxiv": "1705.22222"}, {"doi": "https://doi.org/10.48550/ARXIV.1705.22222"},
             "hep-th/9901001v1", "Synthetic title 1703.11111"]  # the id in a title  # fmt: skip
    result = quiet_resolve({"1801.33333_1705.22222_0": forms}, "citeval/arsyta/test")
    assert list(result.decisions["how"]) == ["id"] * 8
    assert list(result.decisions["duplicate"]) == [False] + [True] * 5 + [False, False]
    assert list(result.decisions["doc_id"]) == ["1705.22222"] * 6 + ["hep-th/9901001",
                                                                     "1703.11111"]  # fmt: skip


def cli(*args: str) -> int:
    return main(list(args))


def test_the_command_writes_the_run_and_the_report_and_breaks_down(corpus, tmp_path, capsys):
    query = corpus["queries"][0]
    lists = tmp_path / "generated.jsonl"
    lists.write_text(json.dumps({"query_id": query, "references": [
        "GloVe: Global Vectors for Word Representation", "An invented title"]}) + "\n")  # fmt: skip
    run, report = tmp_path / "run.trec", tmp_path / "report.csv"
    assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(run), "--report", str(report),
               "--by", "popularity", "--bins", "2", "-q") == 0  # fmt: skip
    out, err = capsys.readouterr()
    assert run.read_text() == f"{query} Q0 D14-1162 1 1 resolved\n"
    assert "unmatched" in out and "breakdown of in_pool_rate" in out
    assert "wrote" not in err  # -q: what was written is no INFO line then
    assert report.read_text().splitlines()[0].startswith("query_id,position,reference,how")
    # an existing run without --force: an error before any work, the file as it was
    assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(run)) == 2
    assert "exists: give --force" in capsys.readouterr().err
    assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(run), "--force",
               "--format", "json") == 0  # fmt: skip
    out, err = capsys.readouterr()
    assert json.loads(out)["counts"]["exact"] == 1 and "wrote 1 lines for 1 queries" in err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"query_id": "q", "references": ["a"]}\nnot json\n', "bad.jsonl:2: not JSON"),
        ('{"query_id": "q", "references": "a"}\n', "bad.jsonl:1: references of 'q' is not a list"),
        ('{"query_id": "q", "references": []}\n{"query_id": "q", "references": []}\n',
         "bad.jsonl:2: query 'q' is listed twice (first at line 1)"),
        ('{"query_id": "q", "references": [["a"]]}\n', "a reference is a string or an object"),
    ],
)  # fmt: skip
def test_bad_lists_are_errors_naming_file_and_line(corpus, tmp_path, capsys, content, problem):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    run = tmp_path / "run.trec"
    assert cli("resolve", str(bad), "--dataset", ACL, "-o", str(run)) == 2
    assert problem in capsys.readouterr().err
    assert not run.exists()


def test_bad_csv_and_report_paths(corpus, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,rank,reference\nq,1,a\nq,x,b\n")
    assert cli("resolve", str(bad), "--dataset", ACL, "-o", str(tmp_path / "r.trec")) == 2
    assert "bad.csv:3: rank 'x' is not a whole number" in capsys.readouterr().err
    good = tmp_path / "good.jsonl"
    good.write_text('{"query_id": "q", "references": []}\n')
    assert cli("resolve", str(good), "--dataset", ACL, "-o", str(tmp_path / "r.trec"),
               "--report", str(tmp_path / "r.pdf")) == 2  # fmt: skip
    assert "written as .html or .md (the page), .json, .csv" in capsys.readouterr().err
    # the page needs a run: none resolved, an error naming the file, nothing written
    assert cli("resolve", str(good), "--dataset", ACL, "-o", str(tmp_path / "r.trec"),
               "--report", str(tmp_path / "r.html")) == 2  # fmt: skip
    assert "r.html: no page report: no reference resolved" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "r.trec").exists()


def test_the_threshold_script_on_a_small_labelled_set(demo_home, capsys):
    """scripts/resolve_threshold.py, whose table the README quotes: every reference is
    counted once, a corruption leaves the paper findable, a stricter threshold never matches
    more, and its table is printed."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "resolve_threshold.py"
    spec = importlib.util.spec_from_file_location("resolve_threshold", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    import random

    assert script.corrupt("A title: with a subtitle", "subtitle_dropped", random.Random(0)) == (
        "with a subtitle"
    )
    assert script.corrupt("One two three four five six", "cut_with_ellipsis",
                          random.Random(0)).endswith("...")  # fmt: skip
    text = script.main(["--size", "150", "--thresholds", "80,90,99"])
    assert text == capsys.readouterr().out
    rows = [line.split("|") for line in text.splitlines()[2:]]
    assert [r[1].strip() for r in rows] == ["80", "90", "99"]
    counts = [[int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", r[5])] for r in rows]
    matched = [c[1] for c in counts]  # right, matched, named, invented
    assert matched == sorted(matched, reverse=True)
    assert all(c[2] + c[3] == 150 and c[0] <= c[1] for c in counts)


@pytest.mark.slow
def test_the_example_runs_end_to_end(demo_home, tmp_path, capsys):
    """The README's example: resolve examples/generated.jsonl on the demo, evaluate the run,
    break it down by popularity; the example's invented titles fall with popularity."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[1] / "examples"
    run, demo = tmp_path / "generated.trec", "citeval/demo/test"
    assert cli("resolve", str(examples / "generated.jsonl"), "--dataset", demo, "-o", str(run),
               "--catalogue", str(examples / "catalogue.txt"), "--by", "popularity",
               "--format", "json", "-q") == 0  # fmt: skip
    out = capsys.readouterr().out
    report = json.loads(out[: out.index("\n}\n") + 2])
    assert report["counts"]["references"] == 1644 and report["counts"]["empty_lists"] == 1
    assert cli("eval", str(run), "--dataset", demo, "--protocol", "goyal2026", "-q") == 0
    assert "RR" in capsys.readouterr().out
    assert cli("breakdown", str(run), "--dataset", demo, "--by", "popularity", "-q",
               "--bootstrap", "200", "--permutations", "200") == 0  # fmt: skip
    assert "tail" in capsys.readouterr().out
    resolution = quiet_resolve(examples / "generated.jsonl", demo,
                               catalogue=examples / "catalogue.txt")  # fmt: skip
    found = citeval_irm.breakdown(
        resolution,
        demo,
        "existence_rate",
        by="popularity",
        statistics=citeval_irm.StatisticsOptions(bootstrap=200, permutations=200),
    )
    rates = list(found.groups[found.runs[0]])
    assert rates == sorted(rates)  # fabrication falls with popularity


def test_an_ascii_title_normalises_as_the_unicode_path_does():
    """_plain's ASCII shortcut (one translation) gives what NFKC, NFKD, casefold and the
    category rule give, for every ASCII character between letters."""
    import unicodedata

    from citeval_irm.resolving.normalise import _plain

    def by_unicode(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
        kept = [" " if unicodedata.category(c)[0] in "PSZC" else c for c in decomposed
                if unicodedata.category(c) != "Mn"]  # fmt: skip
        return " ".join("".join(kept).split())

    texts = [f"Ab{chr(c)}Cd {chr(c)}" for c in range(128)] + ["  A\tB--c (2015).  "]
    assert [_plain(t) for t in texts] == [by_unicode(t) for t in texts]
    assert _plain("M\u00fcller \u2013 \uff27lo\u0056e") == "muller glove"  # the Unicode path


@pytest.mark.slow
def test_jobs_resolves_in_processes_with_the_same_decisions(corpus, tmp_path, capsys):
    """``citeval resolve --jobs 2`` (ExecutionOptions' jobs, as ``citeval table --jobs``)
    resolves in forked processes and writes the same run and decisions as ``--jobs 1``; a
    bad number is an error before anything is written. The forked command runs in a fresh
    interpreter: resolve forks only while its process has one thread (this one keeps the
    loopback servers'), and lists this small are resolved in processes only when
    ``PARALLEL_ABOVE`` says so."""
    import os
    import subprocess
    import sys

    queries = corpus["queries"]
    references = [r for r, _, _ in TRAPS]
    lists = tmp_path / "generated.jsonl"
    lists.write_text("".join(json.dumps({"query_id": q, "references": references[n % 5 :]})
                             + "\n" for n, q in enumerate(queries)))  # fmt: skip
    assert cli("resolve", str(lists), "--dataset", ACL, "-o", str(tmp_path / "r.trec"),
               "--jobs", "0") == 2  # fmt: skip
    assert "jobs must be a whole number, 1 or more, not 0" in capsys.readouterr().err
    assert not (tmp_path / "r.trec").exists()
    if sys.platform == "win32":
        pytest.skip("no fork on Windows: one process decides (the same decisions)")
    code = (
        "import sys\n"
        "from citeval_irm.cli import main\n"
        "from citeval_irm.resolving import resolve\n"
        "resolve.PARALLEL_ABOVE = 0\n"
        "forked, given = [], resolve._in_processes\n"
        "resolve._in_processes = lambda *a: forked.append(a[2]) or given(*a)\n"
        "jobs = sys.argv[1]\n"
        "code = main(['resolve', sys.argv[2], '--dataset', sys.argv[3], '-o', f'{jobs}.trec',\n"
        "             '--report', f'{jobs}.csv', '--jobs', jobs, '-q'])\n"
        "print('forked', forked, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )  # fmt: skip
    env = {**os.environ, "IR_DATASETS_HOME": str(corpus["root"] / "home"),
           "CITEVAL_ACL_200_DIR": str(corpus["root"] / "acl-200")}  # fmt: skip
    said = {}
    for jobs in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", code, jobs, str(lists), ACL], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        said[jobs] = done.stderr.splitlines()[-1]
    assert said == {"1": "forked []", "2": "forked [2]"}
    assert (tmp_path / "1.trec").read_text() == (tmp_path / "2.trec").read_text() != ""
    assert (tmp_path / "1.csv").read_text() == (tmp_path / "2.csv").read_text()
