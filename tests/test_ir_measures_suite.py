"""ir_measures' own tests of its pytrec_eval provider, run against ``ir_measures.citeval``.

The tests (vendored unchanged in ``tests/ir_measures_suite``, Apache-2.0) build
``ir_measures.providers.PytrecEvalProvider()`` and check its values; here that name gives
the citeval provider instead, so the drop-in claim is checked by ir-measures' own
expectations. A call for a measure citeval does not declare (``SetP``, ``IPrec``, ...) goes
to the real pytrec_eval provider, as ir-measures' fallback would send it; a test with no
call left for citeval is skipped, naming its measures.
"""

from __future__ import annotations

import inspect

import ir_measures
import pytest
from ir_measures_suite import pytrec_eval_tests as upstream

import citeval_irm  # noqa: F401 (registers ir_measures.citeval)


class CitevalFirst:
    """The citeval provider for the measures it declares, pytrec_eval's for the rest."""

    def __init__(self, citeval, fallback):
        self.citeval, self.fallback = citeval, fallback
        self.ours: list[str] = []
        self.theirs: list[str] = []

    def _pick(self, measures):
        measures = list(measures)
        if all(self.citeval.supports(m) for m in measures):
            self.ours += map(str, measures)
            return self.citeval, measures
        self.theirs += map(str, measures)
        return self.fallback, measures

    def evaluator(self, measures, qrels):
        provider, measures = self._pick(measures)
        return provider.evaluator(measures, qrels)

    def iter_calc(self, measures, qrels, run):
        provider, measures = self._pick(measures)
        return provider.iter_calc(measures, qrels, run)

    def calc_aggregate(self, measures, qrels, run):
        provider, measures = self._pick(measures)
        return provider.calc_aggregate(measures, qrels, run)


TESTS = sorted(n for n, _ in inspect.getmembers(upstream.TestPytrecEval) if n.startswith("test_"))


def test_the_suite_is_there():
    assert len(TESTS) >= 13  # test_NumRet ... test_judged_only, as vendored


@pytest.mark.parametrize("name", TESTS)
def test_ir_measures_pytrec_eval_test_passes_with_citeval(monkeypatch, name):
    provider = CitevalFirst(ir_measures.citeval, ir_measures.providers.PytrecEvalProvider())
    monkeypatch.setattr(ir_measures.providers, "PytrecEvalProvider", lambda: provider)
    monkeypatch.setattr(ir_measures, "pytrec_eval", provider)
    getattr(upstream.TestPytrecEval(name), name)()
    if not provider.ours:
        pytest.skip(
            f"no measure of the citeval provider: {', '.join(sorted(set(provider.theirs)))}"
        )
