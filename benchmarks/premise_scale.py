"""Scale of the exact premise search in rows: synthetic data with a planted rule, 200 attributes.

Rows ``n`` (1e4 .. 1e6, or 1e7) x ``m = 200`` random binary attributes (density 0.3; attribute
``j`` has its own density ``0.1 .. 0.5``), target ``y = (x0 AND x1) OR x2`` flipped on 5% of the
rows. For every ``n`` and premise size ``k`` (1 to 3) one fresh subprocess generates the data,
runs ``find_best_premises(X, y, max_size=k)`` (objective F1, negations, numba backend) and
reports the search's wall time, CPU time (all threads), the peak resident memory of the process
(data included: the bool matrix alone is ``n m`` bytes) and whether the planted rule was found.
The growth exponent is the slope of ``log wall`` (and ``log RSS``) between consecutive ``n``.

Usage::

    python benchmarks/premise_scale.py [--rows 1e4,1e5,1e6] [--sizes 1,2,3] [--attributes 200]
        [--objective f1] [--weighted]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

import numpy as np


def make_data(n: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n x m`` random attributes (per-column densities 0.1-0.5) and ``(x0 AND x1) OR x2`` with 5% noise."""
    rng = np.random.default_rng(seed)
    density = rng.uniform(0.1, 0.5, size=m).astype(np.float32)
    X = np.empty((n, m), dtype=bool)
    step = 1 << 16
    for start in range(0, n, step):
        X[start:start + step] = rng.random((min(step, n - start), m), dtype=np.float32) < density
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    y ^= rng.random(n, dtype=np.float32) < 0.05
    return X, y


def run_one(n: int, m: int, size: int, objective: str, weighted: bool) -> dict:
    """One search in this process; returns its measurements."""
    from logicrules.fca.premise.search import find_best_premises

    X, y = make_data(n, m)
    weight = None
    if weighted:
        weight = np.random.default_rng(1).integers(1, 4, size=n).astype(np.float64)
    options = {"sample_weight": weight} if weighted else {}
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    best = find_best_premises(X, y, max_size=size, objective=objective, backend="numba", **options)[0]
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"n": n, "size": size, "wall": wall, "cpu": cpu, "rss": rss, "formula": str(best.formula),
            "score": best.score}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="1e4,1e5,1e6")
    parser.add_argument("--sizes", default="1,2,3")
    parser.add_argument("--attributes", type=int, default=200)
    parser.add_argument("--objective", default="f1")
    parser.add_argument("--weighted", action="store_true", help="integer row weights 1-3")
    parser.add_argument("--one", nargs=2, type=int, metavar=("N", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], args.attributes, args.one[1], args.objective, args.weighted)))
        return
    rows = [int(float(r)) for r in args.rows.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"m = {args.attributes} attributes, objective {args.objective}"
          + (", integer weights 1-3" if args.weighted else "") + "\n")
    print("| rows | size | wall s | CPU s | peak RSS GB | wall exponent | RSS exponent | best premise | score |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    previous: dict[int, dict] = {}
    for n in rows:
        for size in sizes:
            command = [sys.executable, __file__, "--one", str(n), str(size), "--attributes", str(args.attributes),
                       "--objective", args.objective] + (["--weighted"] if args.weighted else [])
            out = subprocess.run(command, capture_output=True, text=True)
            if out.returncode:
                print(f"| {n:,} | {size} | failed: {out.stderr.strip().splitlines()[-1]} |||||||")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            slope = rss_slope = ""
            if size in previous:
                p = previous[size]
                scale = math.log(n / p["n"])
                slope = f"{math.log(max(r['wall'], 1e-6) / max(p['wall'], 1e-6)) / scale:.2f}"
                rss_slope = f"{math.log(r['rss'] / p['rss']) / scale:.2f}"
            previous[size] = r
            print(f"| {n:,} | {size} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['rss'] / 1e9:.2f} | {slope} | "
                  f"{rss_slope} | `{r['formula']}` | {r['score']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
