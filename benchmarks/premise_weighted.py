"""Weighted premise search on a synthetic table: CPU of ``find_best_premises`` with
``sample_weight`` (integer weights 1-3) up to a given size, one numba thread, best of a few runs
after a warm-up, and the premise found. Prints a one-row markdown table.

    python benchmarks/premise_weighted.py --rows 200000 --attributes 60 --max-size 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--attributes", type=int, default=60)
    parser.add_argument("--max-size", type=int, default=4)
    parser.add_argument("--noise", type=float, default=0.3, help="fraction of labels flipped at random")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    import numba

    from logicrules.fca.premise import find_best_premises

    numba.set_num_threads(1)
    rng = np.random.default_rng(0)
    X = rng.random((args.rows, args.attributes)) < 0.5
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3]) ^ (rng.random(args.rows) < args.noise)
    w = rng.integers(1, 4, args.rows).astype(np.float64)
    find_best_premises(X[:500], y[:500], max_size=args.max_size, sample_weight=w[:500])  # compile
    best, result = np.inf, None
    for _ in range(args.repeat):
        start = time.process_time()
        result = find_best_premises(X, y, max_size=args.max_size, sample_weight=w)
        best = min(best, time.process_time() - start)
    print("| rows | attributes | max size | CPU s (best) | premise |")
    print("|---:|---:|---:|---:|---|")
    print(f"| {args.rows:,} | {args.attributes} | {args.max_size} | {best:.2f} | {result[0]} |")


if __name__ == "__main__":
    main()
