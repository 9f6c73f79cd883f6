"""Time the plain size-3 premise search on the paper's 1587-attribute Myocard scaling.

Usage (from the repository root)::

    python benchmarks/premise_size3_timing.py [--data-dir ../shared/datasets] \
        [--backends numba,torch] [--device cuda] [--max-size 2]

Prints, with and without negated literals and for each backend, the best F1 premise of size
<= 3 and the wall and CPU time of one ``find_best_premises(X, y, max_size=3)`` call (kernels
compiled and the torch device warmed up beforehand). The torch backend runs when PyTorch is
installed, on ``--device`` (default: CUDA when present, else the CPU). ``--max-size 2`` times
sizes 1 and 2 alone, the part that stays on the CPU with every backend.
"""

from __future__ import annotations

import argparse
import importlib.util
import time

from premise_myocard import binarize, load_myocard

from logicrules.fca import find_best_premises


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--backends", default=None,
                        help="comma-separated backends (default: numba, and torch when it is installed)")
    parser.add_argument("--device", default=None, help="torch device (default: cuda when present, else cpu)")
    parser.add_argument("--max-size", type=int, default=3, help="max_size of the timed searches")
    args = parser.parse_args()
    backends = (args.backends.split(",") if args.backends
                else ["numba"] + (["torch"] if importlib.util.find_spec("torch") else []))
    device = None
    if "torch" in backends:
        from logicrules.fca.premise.torch_backend import gpu_available

        device = args.device or ("cuda" if gpu_available() else "cpu")
    X, y = load_myocard(args.data_dir)
    Xb = binarize(X)[0]
    print("| backend | max_size | negations | attributes | best F1 | premise | wall s | CPU s |\n"
          "|---|---|---|---|---|---|---|---|")
    for backend in backends:
        options = {"backend": backend, "device": device if backend == "torch" else None}
        find_best_premises(Xb[:50], y[:50], max_size=3, **options)  # compile the kernels, warm up the device
        for negations in (False, True):
            wall, cpu = time.perf_counter(), time.process_time()
            best = find_best_premises(Xb, y, max_size=args.max_size, negations=negations, **options)[0]
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            name = backend if backend == "numba" else f"{backend} ({device})"
            print(f"| {name} | {args.max_size} | {negations} | {Xb.shape[1]} | {best.score:.6f} | `{best.formula}` "
                  f"| {wall:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
