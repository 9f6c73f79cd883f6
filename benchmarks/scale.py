"""Scaling in rows of every learner: wall time, CPU time, peak RSS and the growth exponent.

Synthetic data: ``m`` binary attributes (independent, P(true) = 0.5) and a planted rule
``y = (a0 AND a1) OR a2`` with 5% of the labels flipped; every learner gets the 0/1 matrix with
``binarizer="passthrough"``. The ideal classifier also runs on ``--ideal-columns`` numeric
columns (normal values, planted ``x0 > 0 AND x1 > 0.5``) with its default median binarizer,
the setting of its paper. Then each learner runs with default settings on the real datasets.

Each case runs in a fresh subprocess (so peak RSS is that case's own ``ru_maxrss``: the
interpreter, the imports and the generated input included) under ``--timeout`` seconds; a case that times out or fails is reported as such, and the
larger sizes of that learner are skipped. The growth exponent between two sizes is
``log(t2 / t1) / log(n2 / n1)`` of the wall times.

Examples
--------
    nice -n 10 python benchmarks/scale.py --sizes 1e4 1e5 1e6 --timeout 300
    python benchmarks/scale.py --learners ideal20 --sizes 1e6 1e7
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

LEARNERS = {
    "premise1": ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier", {"max_size": 1}),
    "premise2": ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier", {"max_size": 2}),
    "premise3": ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier", {"max_size": 3}),
    "ideal": ("logicrules.ideal.method", "IdealDNFClassifier", {"random_state": 0}),
    "ideal20": ("logicrules.ideal.method", "IdealDNFClassifier", {"random_state": 0}),
    "lp_or": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "or"}),
    "lp_or_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                      {"rule": "or", "row_sampling": "auto", "random_state": 0}),
    "lp_dnf": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "dnf"}),
    "lp_dnf_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                       {"rule": "dnf", "row_sampling": "auto", "random_state": 0}),
    "lp_cnf": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "cnf"}),
    "lp_cnf_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                       {"rule": "cnf", "row_sampling": "auto", "random_state": 0}),
    "lp_m_of_n": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "m_of_n"}),
    "lp_m_of_n_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                          {"rule": "m_of_n", "row_sampling": "auto", "random_state": 0}),
    "lp_dnf_covering": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "dnf", "method": "covering"}),
    "lp_dnf_covering_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                                {"rule": "dnf", "method": "covering", "row_sampling": "auto", "random_state": 0}),
    "lp_cnf_covering": ("logicrules.lp.estimator", "LPRuleClassifier", {"rule": "cnf", "method": "covering"}),
    "lp_cnf_covering_sampled": ("logicrules.lp.estimator", "LPRuleClassifier",
                                {"rule": "cnf", "method": "covering", "row_sampling": "auto", "random_state": 0}),
}
REAL = ("electricity", "adult", "magic_gamma", "heloc")
REAL_LEARNERS = {"premise": ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier", {}),
                 "ideal": ("logicrules.ideal.method", "IdealDNFClassifier", {}),
                 "lp": ("logicrules.lp.estimator", "LPRuleClassifier", {})}


def synthetic(n: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Binary attributes and the planted rule with 5% label noise."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, m), dtype=bool)
    step = max(1, (1 << 24) // max(m, 1))  # generated in chunks: no float copy of the whole matrix
    for start in range(0, n, step):
        X[start:start + step] = rng.random((min(step, n - start), m), dtype=np.float32) < 0.5
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    return X, y ^ (rng.random(n) < 0.05)


def numeric(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, k))
    return X, (X[:, 0] > 0) & (X[:, 1] > 0.5)


def run_case(spec: dict) -> dict:
    """Fit one learner on one dataset in this process; returns times and the rule."""
    from importlib import import_module

    import pandas as pd

    if spec["kind"] == "real":
        module, cls, params = REAL_LEARNERS[spec["learner"]]
        path = Path(spec["data_dir"]) / f"{spec['dataset']}.csv.gz"
        manifest = pd.read_csv(Path(spec["data_dir"]) / "MANIFEST.tsv", sep="\t").set_index("name")
        target = manifest.loc[spec["dataset"], "target_column"]
        X = pd.read_csv(path)
        y = X.pop(target).astype(str)
    else:
        module, cls, params = LEARNERS[spec["learner"]]
        if spec["learner"] == "ideal20":
            X, y = numeric(spec["n"], spec["columns"])
        else:
            X, y = synthetic(spec["n"], spec["m"])
            params = {**params, "binarizer": "passthrough"}
    if spec.get("memory_limit"):
        params = {**params, "memory_limit": spec["memory_limit"]}
    model = getattr(import_module(module), cls)(**params)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    rows = getattr(model, "lp_result_", {}).get("rows_sampled")
    return {"wall": wall, "cpu": cpu, "rss_mb": peak,
            "rule": str(model.formula_)[:80] + (f" ({rows} rows sampled)" if rows else "")}


def measure(spec: dict, timeout: float) -> dict:
    """Run a case in a subprocess (which reports its own peak RSS, imports and data included)."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, __file__, "--case", json.dumps(spec)], capture_output=True,
                              text=True, timeout=timeout, env=os.environ)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout > {timeout:.0f} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": f"failed: {last[:100]}", "total": time.perf_counter() - started}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["status"] = "ok"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6, 1e7])
    parser.add_argument("--m", type=int, default=200, help="binary attributes (default 200)")
    parser.add_argument("--ideal-columns", type=int, default=20)
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS), choices=list(LEARNERS))
    parser.add_argument("--real", nargs="*", default=list(REAL))
    parser.add_argument("--real-learners", nargs="*", default=list(REAL_LEARNERS), choices=list(REAL_LEARNERS),
                        help="learners run on the real datasets (default: all)")
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--memory-limit", help="memory_limit of every learner (default: theirs, 2 GiB)")
    parser.add_argument("--max-input-gb", type=float, default=2.5,
                        help="skip sizes whose input matrix alone exceeds this (default 2.5)")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(json.loads(args.case))))
        return
    print("| learner | rows | wall s | CPU s | peak RSS MB | exponent | rule |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for learner in args.learners:
        previous = None
        for size in args.sizes:
            n = int(size)
            width = args.ideal_columns * 8 if learner == "ideal20" else args.m
            if n * width / 1e9 > args.max_input_gb:
                print(_line(learner, n, {"status": "skipped: the input alone exceeds --max-input-gb"}, ""))
                continue
            if previous is not None and previous.get("status") != "ok":
                print(_line(learner, n, {"status": "skipped: a smaller size did not finish"}, ""))
                continue
            spec = {"kind": "synthetic", "learner": learner, "n": n, "m": args.m, "columns": args.ideal_columns,
                    "memory_limit": args.memory_limit}
            result = measure(spec, args.timeout)
            exponent = ""
            if previous is not None and result.get("status") == "ok":
                exponent = f"{math.log(result['wall'] / previous['wall']) / math.log(n / previous['n']):.2f}"
            result["n"] = n
            print(_line(learner, n, result, exponent), flush=True)
            previous = result
    for dataset in args.real:
        for learner in args.real_learners:
            spec = {"kind": "real", "learner": learner, "dataset": dataset, "data_dir": args.data_dir,
                    "memory_limit": args.memory_limit}
            result = measure(spec, args.timeout)
            print(_line(f"{learner} ({dataset})", None, result, ""), flush=True)


def _line(name: str, n: int | None, result: dict, exponent: str) -> str:
    size = f"{n:>10,}" if n else " " * 10
    if result.get("status") != "ok":
        return f"| {name:<26} | {size} | {result['status']} |"
    return (f"| {name:<26} | {size} | {result['wall']:8.2f} | {result['cpu']:8.2f} | "
            f"{result['rss_mb']:8.0f} | {exponent:>5} | {result['rule']} |")


if __name__ == "__main__":
    main()
