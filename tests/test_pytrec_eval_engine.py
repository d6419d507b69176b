"""The pytrec_eval engine as a reference that does not depend on the hash seed.

ir-measures' pytrec_eval provider puts ``NumRet`` into whichever pytrec_eval invocation it
built first, in the hash order of a ``set`` of measures: with a ``judged_only`` measure
beside it, ``NumRet`` counts judged docs only under some ``PYTHONHASHSEED`` values. The
engine hands judged-only measures over apart; each seed runs in its own interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
import ir_measures
import citeval_irm
from ir_measures import AP, NumRet, P, RR
qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "x": 0}}
run = {"q1": {"a": 3, "b": 2, "c": 1, "d": 0.5}, "q2": {"c": 1.0, "y": 0.5, "z": 0.2}}
measures = [AP(judged_only=True), NumRet, P @ 2, RR(judged_only=True)]
ours = citeval_irm.evaluate(
    run, qrels, measures, execution=citeval_irm.ExecutionOptions(engine="pytrec_eval", verify=True)
)
upstream = ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)
print(json.dumps([ours.aggregates, {str(k): v for k, v in upstream.items()}]))
"""


def _run(seed: int) -> tuple[dict, dict]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1]), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    ours, upstream = json.loads(out.stdout)
    return ours, upstream


@pytest.mark.slow
def test_num_ret_beside_judged_only_does_not_depend_on_the_hash_seed():
    results = [_run(seed) for seed in (0, 1, 2)]
    for ours, _ in results:  # verify=True: the kernels agree on every query too
        assert ours == {
            "AP(judged_only=True)": 1.0,
            "NumRet": 7.0,
            "P@2": 0.5,
            "RR(judged_only=True)": 1.0,
        }
    # the upstream defect these seeds reach (NumRet counting the 3 judged docs only): if
    # it is ever fixed, this line says so and the workaround can go
    assert 3.0 in {upstream["NumRet"] for _, upstream in results}
