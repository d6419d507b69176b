"""The names a new user types first: measures as the field writes them, recipes and
protocols in any case, and a close-match suggestion for everything else."""

from __future__ import annotations

import pytest

import citeval_irm
from citeval_irm.base.errors import InputError
from citeval_irm.cli import main


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ndcg@10,20", ["nDCG@10", "nDCG@20"]),  # a trec_eval-style list of cut-offs after @
        ("P@5,10 RR", ["P@5", "P@10", "RR"]),
        ("RR,R@10,nDCG@10", ["RR", "R@10", "nDCG@10"]),  # commas between measures still part
        ("hits@10", ["Success@10"]),
        ("Hits@5 HR@5", ["Success@5"]),
    ],
)
def test_measures_as_the_field_writes_them(spec, expected):
    assert [str(m) for m in citeval_irm.parse_measures(spec)] == expected


def test_a_family_with_its_cut_off_joined_by_an_underscore_suggests_the_at_form():
    with pytest.raises(InputError, match=r"unknown measure 'R_10' .*did you mean R@10\?"):
        citeval_irm.parse_measures("R_10")


def test_recipes_and_protocols_in_any_case(tmp_path, capsys):
    from citeval_irm.papers import get_protocol, get_recipe

    assert get_recipe("HAtten").name == "hatten" and get_protocol("GOYAL2026").name == "goyal2026"
    with pytest.raises(InputError, match="unknown recipe 'hatn'; did you mean hatten"):
        get_recipe("hatn")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d2 1\n", encoding="utf-8")
    args = ["crosscheck", str(run), "--qrels", str(qrels), "-q"]
    assert main([*args, "--recipe", "HAtten"]) == 0
    assert "recipe hatten" in capsys.readouterr().out
    assert main(["eval", str(run), "--qrels", str(qrels), "--protocol", "Goyal2026", "-q"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([*args, "--recipe", "hatn"])
    assert "unknown recipe 'hatn'; did you mean hatten?" in capsys.readouterr().err
