"""Long randomized exactness sweep of the premise search against brute force (size 4).

Usage (from the repository root)::

    python benchmarks/premise_exactness_sweep.py [--seconds 1500] [--seed 1] [--backends numba,torch]

Draws random contexts until the time is up: half all-values-like (nested thresholds of 2-3
integer features, where the pruning bounds are busiest), half uniform random (4-10
attributes), 20-100 rows, a random objective, ``negations`` and ``top_k`` in 1-3. For each,
every backend's ``find_best_premises(max_size=4)`` must pass the test suite's
``check_against_brute_force`` (brute-force top-k scores over all premises of size <= 4, from the
definition; formulas that evaluate to their counts and to distinct extents; for ``top_k = 1``
the smallest size attaining the optimum). Prints one line per failure and a summary table. The
test suite runs the same comparison on fewer, smaller cases.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fca.test_search import brute_force_extents, check_against_brute_force, score_extents  # noqa: E402

from logicrules.metrics import get_objective  # noqa: E402

OBJECTIVES = ["f1", "accuracy", "mcc", "balanced_accuracy", "jaccard", "wracc"]


def random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str]:
    """A context, its target and its kind ("thresholds" or "uniform")."""
    if rng.integers(2) == 0:
        features, levels, n = int(rng.integers(2, 4)), int(rng.integers(3, 5)), int(rng.integers(30, 100))
        F = rng.integers(0, levels + 1, size=(n, features))
        X = np.concatenate([F >= v for v in range(1, levels + 1)], axis=1)
        y = ((F[:, 0] >= levels // 2) & (F[:, -1] >= 1)) ^ (rng.random(n) < 0.15)
        return X, y, "thresholds"
    n, m = int(rng.integers(20, 90)), int(rng.integers(4, 11))
    X = rng.random((n, m)) < rng.uniform(0.2, 0.8)
    return X, rng.random(n) < rng.uniform(0.2, 0.7), "uniform"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1500.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backends", default=None,
                        help="comma-separated (default: numba, and torch on the CPU when it is installed)")
    args = parser.parse_args()
    backends = (args.backends.split(",") if args.backends
                else ["numba"] + (["torch"] if importlib.util.find_spec("torch") else []))
    rng = np.random.default_rng(args.seed)
    cases = {"thresholds": 0, "uniform": 0}
    failures = 0
    end = time.time() + args.seconds
    while time.time() < end:
        X, y, kind = random_case(rng)
        negations = bool(rng.integers(2))
        objective = get_objective(OBJECTIVES[int(rng.integers(len(OBJECTIVES)))])
        top_k = int(rng.integers(1, 4))
        for backend in backends:
            options = {"backend": backend, **({"device": "cpu"} if backend == "torch" else {})}
            try:
                check_against_brute_force(X, y, 4, objective, negations, top_k, **options)
            except ValueError as exc:           # no premise with a defined score: right only if none has
                _, scores = score_extents(brute_force_extents(X, 4, negations), y, objective)
                if np.isfinite(scores).any():
                    failures += 1
                    print(f"FAIL {kind} {backend}: {exc}", flush=True)
            except AssertionError as exc:
                failures += 1
                print(f"FAIL {kind} {backend} {objective.name} negations={negations} top_k={top_k}: {exc}",
                      flush=True)
        cases[kind] += 1
    print("| backends | seed | seconds | all-values-like cases | uniform cases | failures |\n|---|---|---|---|---|---|")
    print(f"| {', '.join(backends)} | {args.seed} | {args.seconds:.0f} | {cases['thresholds']} | {cases['uniform']} "
          f"| {failures} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
