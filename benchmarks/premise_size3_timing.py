"""Time the plain size-3 premise search on the paper's 1587-attribute Myocard scaling.

Usage (from the repository root)::

    python benchmarks/premise_size3_timing.py [--data-dir ../shared/datasets]

Prints, with and without negated literals, the best F1 premise of size <= 3 and the wall and
CPU time of one ``find_best_premises(X, y, max_size=3)`` call (kernels compiled beforehand).
"""

from __future__ import annotations

import argparse
import time

from premise_myocard import binarize, load_myocard

from logicrules.fca import find_best_premises


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    args = parser.parse_args()
    X, y = load_myocard(args.data_dir)
    Xb = binarize(X)[0][0]
    find_best_premises(Xb[:50], y[:50], max_size=3)  # compile the numba kernels
    print("| negations | attributes | best F1 | premise | wall s | CPU s |\n|---|---|---|---|---|---|")
    for negations in (False, True):
        wall, cpu = time.perf_counter(), time.process_time()
        best = find_best_premises(Xb, y, max_size=3, negations=negations)[0]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"| {negations} | {Xb.shape[1]} | {best.score:.6f} | `{best.formula}` | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
