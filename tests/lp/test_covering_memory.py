"""Sequential covering under memory_limit: the fit's measured peak (resident memory above what the
process held before the fit, read from /proc) stays under the limit, or the clear error comes first."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("highspy")
pytestmark = pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(),
                                reason="needs Linux's /proc/self/clear_refs to measure the peak")

_SCRIPT = r"""
import json, sys
import numpy as np
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.memory import MemoryLimitError, parse_memory

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

rule, limit = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
X = rng.random((100_000, 60)) < 0.5
y = ((X[:, 0] & X[:, 1]) | X[:, 2]) ^ (rng.random(100_000) < 0.05)
params = dict(rule=rule, method="covering", binarizer="passthrough", row_sampling="auto", random_state=0,
              max_clauses=2)
LPRuleClassifier(**params).fit(X[:3000], y[:3000])       # imports and compiled kernels
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")                                          # the peak (VmHWM) restarts from here
base = status("VmRSS")
try:
    model = LPRuleClassifier(**params, memory_limit=limit).fit(X, y)
    answer = {"rule": str(model.formula_)}
except MemoryLimitError as error:
    answer = {"error": str(error)}
answer["growth"] = status("VmHWM") - base
answer["limit"] = parse_memory(limit)
print(json.dumps(answer))
"""


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
@pytest.mark.parametrize("limit", ["24MB", "36MB"])
def test_covering_peak_stays_under_memory_limit_or_raises(rule, limit):
    run = subprocess.run([sys.executable, "-c", _SCRIPT, rule, limit], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    if "error" in answer:
        assert "memory_limit=" in answer["error"] and "needs" in answer["error"]
    else:
        assert answer["growth"] <= answer["limit"], answer
