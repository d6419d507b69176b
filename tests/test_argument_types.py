"""Wrong argument types in the Python API are a TypeError naming the argument (issue 27),
not an AttributeError or "'int' object is not iterable" from deep inside."""

from __future__ import annotations

import pytest

import citeval_irm
from citeval_irm import InputError

RUN = {"q": {"a": 1.0, "b": 0.5}}
QRELS = {"q": {"a": 1}}


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: citeval_irm.evaluate(RUN, QRELS, 123), "measures"),
        (lambda: citeval_irm.evaluate(RUN, QRELS, ["RR", 5]), "measures"),
        (lambda: citeval_irm.evaluate(RUN, QRELS, {"RR": 1}), "measures"),
        (lambda: citeval_irm.evaluate(123, QRELS, "RR"), "run"),
        (lambda: citeval_irm.evaluate(RUN, 4.5, "RR"), "qrels"),
        (lambda: citeval_irm.read_run(123), "run"),
        (lambda: citeval_irm.read_qrels(None), "qrels"),
        (lambda: citeval_irm.validate(RUN, 123), "dataset"),
        (lambda: citeval_irm.compare({"a": RUN, "b": RUN}, QRELS, 123), "measures"),
    ],
)
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, argument):
    with pytest.raises(TypeError, match=rf"^{argument}: ") as caught:
        call()
    assert isinstance(caught.value, InputError)  # the CLI says it as bad input


def test_an_unknown_dataset_id_for_validate_is_an_input_error():
    with pytest.raises(InputError, match="is not an ir_datasets dataset id"):
        citeval_irm.validate(RUN, "nope")
