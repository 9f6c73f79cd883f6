"""The ideal classifier in rows: the whole fit, and Algorithm 1 against a bare bincount pass.

Synthetic data as in ``benchmarks/scale.py``: ``--columns`` numeric columns of normal values and
the planted rule ``x0 > 0 AND x1 > 0.5``; :class:`IdealDNFClassifier` with its defaults (median
binarizer, validation split, three scorers, l = 1..10). For each size, in a fresh subprocess:

- ``fit``: ``IdealDNFClassifier(random_state=0).fit(X, y)`` under the default ``memory_limit``
  (2 GiB): wall time, CPU time, the process's peak RSS and its RSS before the fit (the
  interpreter, the imports and the generated input X: what the fit adds is the difference);
- ``algorithm 1``: the empirical ideal classifier (type table: realized types, counts,
  positives, predictions) of ``--k`` binarized columns read from the packed context, i.e.
  ``table_from_histogram(ContextCounts(context, y).type_histogram(columns))``;
- ``bincount``: ``np.bincount`` of the labelled type codes ``2 code + y`` of the same columns,
  precomputed as int64 (the least a histogram can cost); ``ratio`` is Algorithm 1 over it.

Algorithm 1 and the bincount are timed as the best of ``--repeat`` runs (CPU time; the machine
may be shared: ``load`` is the 1-minute load average when the row started). Prints one markdown
table, then per size the ratio against its 3x target.

Examples
--------
    nice -n 10 python benchmarks/ideal_scale.py --sizes 1e5 1e6 1e7
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def numeric(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Normal columns and the planted rule ``x0 > 0 AND x1 > 0.5``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, k))
    return X, (X[:, 0] > 0) & (X[:, 1] > 0.5)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _best(f, repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` calls of ``f``."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def run_case(n: int, columns: int, k: int, repeat: int) -> dict:
    from logicrules.fca.counts import ContextCounts
    from logicrules.fca.scaling import MedianBinarizer
    from logicrules.ideal.algorithm import table_from_histogram
    from logicrules.ideal.method import IdealDNFClassifier

    X, y = numeric(n, columns)
    IdealDNFClassifier(random_state=0).fit(X[:2000], y[:2000])  # imports and caches
    before = _rss_mb()
    model = IdealDNFClassifier(random_state=0)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    context = MedianBinarizer(missing="false").fit(X).transform_context(X)
    cols = list(range(min(k, context.n_attributes)))
    counts = ContextCounts(context, y)
    table = lambda: table_from_histogram(counts.type_histogram(cols), tuple(cols), "positive")  # noqa: E731
    dense = context.to_dense()[:, cols]
    codes = 2 * (dense.astype(np.int64) << np.arange(len(cols))).sum(axis=1) + y
    del dense
    size = 1 << (len(cols) + 1)
    alg_wall, alg_cpu = _best(table, repeat)
    bin_wall, bin_cpu = _best(lambda: np.bincount(codes, minlength=size), repeat)
    expected = np.bincount(codes, minlength=size)
    got = table()
    assert np.array_equal(got.counts, (expected[0::2] + expected[1::2])[got.keys]), "Algorithm 1 miscounted"
    return {"wall": wall, "cpu": cpu, "rss_before": before, "peak": peak, "rule": str(model.formula_)[:60],
            "alg_wall": alg_wall, "alg_cpu": alg_cpu, "bin_wall": bin_wall, "bin_cpu": bin_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    parser.add_argument("--columns", type=int, default=20, help="numeric input columns (default 20)")
    parser.add_argument("--k", type=int, default=10, help="columns of Algorithm 1's types (default 10)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    if args.case:
        spec = json.loads(args.case)
        print(json.dumps(run_case(spec["n"], args.columns, args.k, args.repeat)))
        return
    ratios = []
    print(f"| rows | load | fit wall s | fit CPU s | RSS before fit MB | peak RSS MB | Algorithm 1 (k={args.k}) "
          "CPU s | bincount CPU s | ratio | Algorithm 1 wall s | bincount wall s | rule |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for size in args.sizes:
        n = int(size)
        command = [sys.executable, __file__, "--case", json.dumps({"n": n}), "--columns", str(args.columns),
                   "--k", str(args.k), "--repeat", str(args.repeat)]
        load = os.getloadavg()[0]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=os.environ)
        except subprocess.TimeoutExpired:
            print(f"| {n:,} | timeout > {args.timeout:.0f} s |")
            continue
        if done.returncode != 0:
            print(f"| {n:,} | failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:100]} |")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        ratios.append((n, r["alg_cpu"] / r["bin_cpu"], r["wall"]))
        print(f"| {n:,} | {load:.1f} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['rss_before']:.0f} | {r['peak']:.0f} "
              f"| {r['alg_cpu']:.4f} | {r['bin_cpu']:.4f} | {r['alg_cpu'] / r['bin_cpu']:.2f} "
              f"| {r['alg_wall']:.4f} | {r['bin_wall']:.4f} | {r['rule']} |", flush=True)
    print()
    for n, ratio, wall in ratios:
        print(f"{n:,} rows: Algorithm 1 takes {ratio:.2f}x the CPU time of a bincount pass (target <= 3x: "
              f"{'met' if ratio <= 3 else 'NOT met'}); the whole fit {wall:.2f} s wall (target <= 10 s at 1e7 rows)")


if __name__ == "__main__":
    main()
