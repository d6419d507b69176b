"""ir_measures' own tests of its pytrec_eval provider, run against ``ir_measures.citeval``.

The tests (vendored unchanged in ``tests/ir_measures_suite``, Apache-2.0) build
``ir_measures.providers.PytrecEvalProvider()`` and check its values; here that name gives
the citeval provider instead, with no fallback: every measure of every call (``SetP``,
``IPrec``, ``infAP``, ``nDCG(gains=...)`` among them) is computed by citeval's kernels, so
the drop-in claim is checked by ir-measures' own expectations.
"""

from __future__ import annotations

import inspect

import ir_measures
import pytest
from ir_measures_suite import pytrec_eval_tests as upstream

import citeval_irm  # noqa: F401 (registers ir_measures.citeval)


class CitevalOnly:
    """The citeval provider, counting the measures it is asked for; a measure it does not
    support fails the test (no fallback)."""

    def __init__(self, citeval):
        self.citeval = citeval
        self.asked: list[str] = []

    def _check(self, measures):
        measures = list(measures)
        unsupported = [str(m) for m in measures if not self.citeval.supports(m)]
        assert not unsupported, f"not supported by ir_measures.citeval: {unsupported}"
        self.asked += map(str, measures)
        return measures

    def evaluator(self, measures, qrels):
        return self.citeval.evaluator(self._check(measures), qrels)

    def iter_calc(self, measures, qrels, run):
        return self.citeval.iter_calc(self._check(measures), qrels, run)

    def calc_aggregate(self, measures, qrels, run):
        return self.citeval.calc_aggregate(self._check(measures), qrels, run)


TESTS = sorted(n for n, _ in inspect.getmembers(upstream.TestPytrecEval) if n.startswith("test_"))


def test_the_suite_is_there():
    assert len(TESTS) >= 13  # test_NumRet ... test_judged_only, as vendored


@pytest.mark.parametrize("name", TESTS)
def test_ir_measures_pytrec_eval_test_passes_with_citeval(monkeypatch, name):
    provider = CitevalOnly(ir_measures.citeval)
    monkeypatch.setattr(ir_measures.providers, "PytrecEvalProvider", lambda: provider)
    monkeypatch.setattr(ir_measures, "pytrec_eval", provider)
    getattr(upstream.TestPytrecEval(name), name)()
    assert provider.asked
