"""Defaults that keep a number valid, a quiet terminal and honest messages (issue 13): the
depth warning everywhere, validation before the scores, --quiet, unknown ids, offline
ACL-200, CLI-worded errors, ``citeval datasets list``."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import citeval_irm
from citeval_irm.base import progress
from citeval_irm.base.errors import UnknownDatasetError
from citeval_irm.cli import EXIT_INPUT_ERROR, EXIT_STRICT_FAILURE, main
from citeval_irm.datasets import DataNotFoundError

DEMO = "citeval/demo/test"
SHORT = "every ranking is shorter than the cut-off 300 of R@300 nDCG@300 (found 50 docs)"


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def runs(demo_home, tmp_path_factory) -> dict[str, Path]:
    """BM25 runs of the demo: temporal and 50 deep, every paper and 300 deep."""
    folder = tmp_path_factory.mktemp("runs")
    out = {"short": folder / "short.trec", "future": folder / "future.trec"}
    citeval_irm.write_run(citeval_irm.bm25_run(DEMO, 50), out["short"])
    future = citeval_irm.bm25_run(DEMO, 300, temporal=False)
    citeval_irm.write_run(future, out["future"])
    return out


def test_short_rankings_are_a_warning_in_eval_crosscheck_and_compare(runs, capsys) -> None:
    code, out, err = run_cli(
        capsys, "eval", runs["short"], "--dataset", DEMO, "--protocol", "goyal2026"
    )
    assert code == 0 and f"warning: {SHORT}" in err
    code, _, err = run_cli(
        capsys, "crosscheck", runs["short"], "--dataset", DEMO, "--protocol", "goyal2026"
    )
    assert code == 0 and f"warning: {SHORT}" in err
    compare = ["compare", runs["short"], runs["future"], "--dataset", DEMO, "--protocol"]
    code, _, err = run_cli(capsys, *compare, "goyal2026", "--permutations", "9", "--bootstrap", "9")
    assert code == 0 and f"warning: short: {SHORT}" in err
    assert "future: rankings shorter" not in err  # 300 deep: nothing to say
    code, _, err = run_cli(capsys, "eval", runs["short"], "--dataset", DEMO, "-m", "RR R@50")
    assert code == 0 and "shorter than the cut-off" not in err


def test_eval_on_a_dataset_validates_first(runs, capsys) -> None:
    code, out, err = run_cli(capsys, "eval", runs["future"], "--dataset", DEMO, "-m", "RR R@10")
    assert code == 0
    first, second = out.splitlines()[:2]
    assert first.startswith(f"validation against {DEMO}: VIOLATIONS: later_paper (")
    assert first.endswith("(details: citeval validate)")
    assert second.startswith(f"run {runs['future']} vs qrels ir_datasets:{DEMO}")
    code, out, err = run_cli(capsys, "eval", runs["future"], "--dataset", DEMO, "-m", "RR",
                             "--strict")  # fmt: skip
    assert code == EXIT_STRICT_FAILURE and "citeval: strict: the run breaks the protocol" in err
    assert "  RR  " in out  # the scores are still printed
    code, out, err = run_cli(capsys, "eval", runs["short"], "--dataset", DEMO, "-m", "RR R@50",
                             "--strict", "--format", "json")  # fmt: skip
    assert code == 0 and json.loads(out)["aggregate"]["R@50"] > 0  # stdout stays JSON
    assert f"validation against {DEMO}: passed (8 checks, same-year papers admitted)" in err
    code, _, err = run_cli(capsys, "eval", runs["short"], "--dataset", DEMO, "--protocol",
                           "goyal2026", "--strict")  # fmt: skip
    assert code == EXIT_STRICT_FAILURE  # 50 deep, evaluated at 300
    code, _, err = run_cli(capsys, "eval", runs["short"], "--qrels", runs["short"], "-m", "RR",
                           "--strict")  # fmt: skip
    assert (
        code == EXIT_INPUT_ERROR and "--strict exits on a protocol violation: give --dataset" in err
    )


def test_progress_bars_are_labelled_and_quiet_silences_them(
    ir_home,
    tmp_path,
    capsys,
    monkeypatch,
) -> None:
    monkeypatch.setattr(progress, "DELAY", 0)  # as if every step were long
    out = tmp_path / "run.trec"
    code, _, err = run_cli(capsys, "baseline", "bm25", "--dataset", DEMO, "-k", "5", "-o", out)
    assert code == 0
    assert "citeval/demo: storing contexts.json" in err and "context/s" in err  # not "doc"
    assert "BM25 index: tokenize" in err and "BM25 ranking" in err
    assert "docs_iter" not in err and "[INFO]" not in err
    code, _, err = run_cli(capsys, "baseline", "bm25", "--dataset", DEMO, "-k", "5", "-o", out,
                           "--quiet", "--force")  # fmt: skip
    assert code == 0 and err == ""  # no bar, no INFO line: not "wrote N lines", no note
    assert not progress.is_quiet()  # reset after the command
    code, out_text, err = run_cli(capsys, "datasets", "export", DEMO, "docs")
    assert code == 0 and "N00-1328\t" in out_text
    assert "No fields supplied" not in err and "direct file access" not in err


def test_quiet_keeps_warnings_and_drops_info(capfd) -> None:
    import ir_datasets

    logger = ir_datasets.log.easy("citeval_irm")
    progress.set_quiet(True)
    try:
        logger.info("an info note")
        logger.warn("a warning")
    finally:
        progress.set_quiet(False)
    logger.info("another note")
    err = capfd.readouterr().err
    assert "an info note" not in err and "[WARNING] a warning" in err
    assert "[INFO] another note" in err
    assert all(f is not progress._drop_info for f in logging.getLogger("citeval_irm").filters)


def test_unknown_dataset_ids_name_the_close_matches(demo_home, runs, capsys) -> None:
    with pytest.raises(UnknownDatasetError) as info:
        citeval_irm.evaluate(runs["short"], "citeval/acl200/test", "RR")
    assert str(info.value).startswith(
        "unknown dataset 'citeval/acl200/test'; did you mean citeval/acl-200/test"
    )
    assert isinstance(info.value, KeyError)  # as ir_datasets and PyTerrier raise
    for argv in (
        ["validate", runs["short"], "--dataset", "citeval/demo/tset"],
        ["eval", runs["short"], "--dataset", "citeval/demo/tset", "-m", "RR"],
        ["baseline", "bm25", "--dataset", "citeval/demo/tset", "-o", runs["short"].parent / "x"],
        ["demo", "--dataset", "citeval/demo/tset"],
        ["datasets", "export", "citeval/demo/tset", "qrels"],
        ["eval", runs["short"], "--dataset", "nothing-like-it", "-m", "RR"],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code == EXIT_INPUT_ERROR and "unknown dataset" in err, argv
        assert "Traceback" not in err and out == ""
        if "tset" in str(argv):
            assert "did you mean citeval/demo/test" in err


@pytest.mark.slow
def test_offline_acl200_says_how_to_install_by_hand(ir_home, monkeypatch) -> None:
    monkeypatch.setenv("CITEVAL_ACL_200_BASE_URL", "http://127.0.0.1:9/acl")  # nothing listens
    import ir_datasets

    with pytest.raises(DataNotFoundError) as info:
        list(ir_datasets.load("citeval/acl-200/test").qrels_iter())
    message = " ".join([str(info.value), *info.value.details])
    assert "citeval import acl-200 DIR" in message and "CITEVAL_ACL_200_DIR=DIR" in message
    assert "could not download test.json: http://127.0.0.1:9/acl/test.json" in message


def test_an_offline_dataset_is_one_line_saying_what_to_run(
    ir_home, monkeypatch, write, capsys
) -> None:
    """A dataset not downloaded and its host out of reach: one line under 200 characters
    with the command to run, no address; --verbose (before or after the command) says the
    rest: the address tried and its error, where the files come from and go, the guide."""
    monkeypatch.setenv("CITEVAL_ACL_200_BASE_URL", "http://127.0.0.1:9/acl")  # nothing listens
    run = write("run.trec", "q1 Q0 d1 1 1.0 t\n")
    argv = ["eval", "-m", "RR", "--dataset", "citeval/acl-200/test", run]
    code, out, err = run_cli(capsys, *argv)
    assert code == EXIT_INPUT_ERROR and out == ""
    assert err.endswith(
        "(cannot reach 127.0.0.1:9); get its files, then `citeval import acl-200 DIR` "
        "(details: --verbose)\n"
    )
    (line,) = [e for e in err.splitlines() if e.startswith("citeval: error:")]
    assert line.startswith("citeval: error: citeval/acl-200: ") and len(line) < 200
    assert "http" not in err and "Traceback" not in err
    for verbose in ([*argv, "--verbose"], ["-v", *argv]):
        code, _, err = run_cli(capsys, *verbose)
        said = err[err.index("citeval: error:") :].splitlines()
        assert code == EXIT_INPUT_ERROR and said[0] == line.removesuffix(" (details: --verbose)")
        assert all(e.startswith("  ") for e in said[1:]), said  # wrapped, paths whole
        details = " ".join(" ".join(said[1:]).split())
        assert details.count("http://127.0.0.1:9/acl/papers.json") == 1
        assert "cannot reach the host" in details and "CITEVAL_ACL_200_DIR=DIR" in details
        assert "docs/guides/datasets.md" in details


def test_cli_errors_name_cli_options(runs, capsys) -> None:
    code, _, err = run_cli(capsys, "crosscheck", runs["short"], "--dataset", DEMO)
    assert code == EXIT_INPUT_ERROR and "--recipe goyal2026" in err and "recipe=" not in err
    code, out, _ = run_cli(capsys, "validate", runs["future"], "--dataset", DEMO,
                           "--no-same-year", "--unknown-year", "exclude")  # fmt: skip
    assert "same-year papers not admitted" in out and "undated docs excluded" in out
    assert "same_year" not in out and "unknown_year" not in out


def test_datasets_list_shows_ours_with_counts_and_how(ir_home, capsys) -> None:
    from citeval_irm.datasets import DATASET_IDS

    code, out, _ = run_cli(capsys, "datasets", "list")
    assert code == 0 and out.startswith(f"citeval datasets ({len(DATASET_IDS)} ir_datasets ids;")
    for dataset_id in DATASET_IDS:  # every dataset of the catalogue, on a line of its own
        assert any(line.split()[:1] == [dataset_id] for line in out.splitlines()), dataset_id
    assert "ACL-200: downloaded on first use, pinned checksums checked; offline: `citeval " in out
    assert "RefSeer: by hand, then `citeval import refseer DIR`" in out
    assert "citeval demo (generated): shipped inside the package" in out
    for dataset_id, counts in (
        ("citeval/acl-200/test", "19,776      9,585      9,585"),
        ("citeval/demo/test", "420        163        163"),
        ("citeval/masterset-coreml-v1/test/core", "67,761      7,028          -"),
    ):
        line = next(line for line in out.splitlines() if line.split()[:1] == [dataset_id])
        assert line.endswith(counts), line
    assert "files: not on this machine yet" in out and "files: in the package" in out
    # host, licence, download size and recall ceiling of every corpus, "unknown" where so
    blocks = out.split("\n\n")[1:]
    assert len(blocks) == 7
    for block in blocks:
        facts = [line.split(":")[0].strip() for line in block.splitlines()[1:]]
        for what in ("host", "licence", "download size", "recall ceiling (citeval audit)"):
            assert what in facts, (what, block)
    flat = " ".join(out.split())
    hub = "host: https://huggingface.co/datasets/"
    assert f"{hub}trratul/MasterSet@main (host not verified)" in flat
    assert f"{hub}goyalkaraniit/ArSyTa@a7bdfcadf220 licence: CC BY-NC-ND 4.0" in flat
    assert "download size: unknown (not published by the host; not measured here)" in flat
    assert "not admitted train 96.01 %, val 94.17 %, test 96.42 %" in flat
    code, out, _ = run_cli(capsys, "datasets", "list", "--all")  # ir_datasets' own list
    assert code == 0 and "msmarco-passage" in out and "citeval/demo/test" in out


def test_eval_on_a_qrels_file_stays_light(tmp_path) -> None:
    """The depth check and --quiet add nothing heavy to `citeval eval RUN --qrels FILE` or
    `citeval --help`: no pandas, ir_datasets, scipy or datasets package is imported."""
    import subprocess
    import sys

    examples = Path(__file__).resolve().parents[1] / "examples"
    heavy = ("pandas", "ir_datasets", "scipy", "citeval_irm.datasets")
    for argv in (
        [
            "eval",
            str(examples / "run.trec"),
            "--qrels",
            str(examples / "qrels.txt"),
            "-m",
            "RR R@300",
        ],
        ["--help"],
    ):
        # ends as the console script does (cli.run: os._exit, no interpreter teardown under
        # Arrow's reader threads, which can abort a process that has said all it had to)
        code = (
            "import os, sys\nfrom citeval_irm.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            f"print([m for m in {heavy!r} if m in sys.modules], flush=True)\nos._exit(0)"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
        )
        assert done.stdout.splitlines()[-1] == "[]", (argv, done.stdout[-300:])
        if argv[0] == "eval":
            assert "shorter than the cut-off 300 of R@300 (found 100 docs)" in done.stderr


def test_the_help_lists_the_registries(capsys, monkeypatch) -> None:
    """The corpora (``citeval import`` / ``verify``), protocols and recipes the help offers
    are the registries' own: a corpus added to the catalogue or a paper module added to
    ``papers.MODULES`` shows up with nothing else to edit."""
    from citeval_irm.cli.flags import catalogue_corpora
    from citeval_irm.datasets.catalogue import COLLECTIONS, names_index
    from citeval_irm.papers import PROTOCOLS, RECIPES

    monkeypatch.setenv("COLUMNS", "2000")  # no line wrapping inside a name
    assert catalogue_corpora() == names_index()["corpora"]

    def help_of(*command: str) -> str:
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        return capsys.readouterr().out

    imports, verifies = help_of("import"), help_of("verify")
    for corpus in COLLECTIONS:
        assert (corpus.name in imports) == (corpus.packaged is None), corpus.name
        assert corpus.name in verifies
        if corpus.packaged is None:
            assert all(f in imports for f in corpus.file_names()), corpus.name
            assert corpus.pretty_name in imports
    evals, crosschecks = help_of("eval"), help_of("crosscheck")
    assert all(name in evals for name in PROTOCOLS)
    assert all(name in crosschecks for name in RECIPES)


def test_a_corpus_id_without_a_split_names_its_splits(demo_home, runs, capsys) -> None:
    splits = "use one of its splits: citeval/demo/train, citeval/demo/val, citeval/demo/test"
    for argv in (
        ["eval", runs["short"], "--dataset", "citeval/demo", "-m", "RR"],
        ["validate", runs["short"], "--dataset", "citeval/demo"],
        ["baseline", "bm25", "--dataset", "citeval/demo", "-o", runs["short"].parent / "x"],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code == EXIT_INPUT_ERROR and splits in err, argv
        assert "Traceback" not in err
    with pytest.raises(citeval_irm.InputError, match="has no qrels; " + splits):
        citeval_irm.evaluate(runs["short"], "citeval/demo", "RR")


def test_eval_and_compare_take_the_datasets_protocol(runs, capsys) -> None:
    """No measures with a dataset that documents a protocol: its measures, said in one line
    on standard error (not with --quiet), the scores as --protocol gives them, no usage."""
    said = f"citeval: measures: goyal2026, the protocol of {DEMO} (others: -m, --protocol)\n"
    code, out, err = run_cli(capsys, "eval", runs["future"], "--dataset", DEMO)
    assert code == 0 and err.startswith(said) and err.count("citeval: measures") == 1
    assert "usage:" not in err
    _, given, _ = run_cli(
        capsys, "eval", runs["future"], "--dataset", DEMO, "--protocol", "goyal2026"
    )
    assert out == given and "protocol goyal2026" in out
    code, quiet, err = run_cli(capsys, "eval", runs["future"], "--dataset", DEMO, "-q")
    assert code == 0 and quiet == out and "citeval: measures" not in err
    code, out, err = run_cli(capsys, "compare", runs["short"], runs["future"], "--dataset", DEMO,
                             "--permutations", "9", "--bootstrap", "9")  # fmt: skip
    assert code == 0 and said in err and "nDCG@300" in out


def test_eval_without_measures_or_protocol_is_one_line(runs, write, capsys) -> None:
    qrels = write("qrels.txt", "q1 0 d1 1\n")
    code, out, err = run_cli(capsys, "eval", runs["short"], "--qrels", qrels)
    assert code == EXIT_INPUT_ERROR and out == ""
    assert err == (
        'citeval: error: give measures (-m "RR R@10 nDCG@10") or a protocol '
        "(--protocol goyal2026, masterset2026)\n"
    )


def test_measures_beside_a_protocol_come_after_its_own(runs, capsys) -> None:
    """-m with --protocol: the protocol's measures in its order, then the others in theirs,
    each once however spelled (recall_10 is the protocol's R@10), in the protocol's unit."""
    argv = ["eval", runs["future"], "--dataset", DEMO, "--protocol", "goyal2026"]
    code, out, err = run_cli(capsys, *argv, "-m", "P@5 recall_10", "-m", "AP RR", "--format", "csv")
    assert code == 0, err
    measures = [line.split(",")[1] for line in out.splitlines()[1:]]
    protocol = ["RR", "R@5", "R@10", "R@20", "R@50", "R@300", "nDCG@5", "nDCG@10", "nDCG@20",
                "nDCG@50", "nDCG@300"]  # fmt: skip
    assert measures == [*protocol, "P@5", "AP"]
    _, alone, _ = run_cli(capsys, "eval", runs["future"], "--dataset", DEMO, "-m", "P@5",
                          "--format", "csv")  # fmt: skip
    value = float(out.splitlines()[len(protocol) + 1].split(",")[2])  # in percent
    assert value == pytest.approx(100 * float(alone.splitlines()[1].split(",")[2]))
    code, table, _ = run_cli(capsys, *argv, "-m", "P@5")
    assert code == 0 and "(percent)" in table and "  P@5 " in table  # the protocol's unit
