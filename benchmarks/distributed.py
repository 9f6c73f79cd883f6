"""Fitting from data no process holds: the premise search over dask partitions on a LocalCluster.

A lazily generated synthetic table (``m`` binary attributes, P(true) = 0.5, a planted rule
``y = (a0 AND a1) OR a2`` with 5% of the labels flipped) as a dask array whose blocks are drawn
from a seed where they are computed (``da.random``): no process ever holds the whole table.
The premise search runs over its :class:`~logicrules.fca.dask_counts.DaskCounts` (each pass
one map over the partitions and a tree sum) on a ``LocalCluster`` of ``--workers`` worker
processes; the same search runs in memory on the largest ``--memory-rows`` (the table generated
in chunks and packed into bits, then searched).

Reported per case: wall time, CPU time (the driver's during the search plus the workers'
processes' whole lives: their start, imports and the passes), counting passes, peak RSS of the driver and of each
worker (``ru_maxrss`` of each process: a worker's includes its interpreter and imports), and the
size of the binarized table (one byte per cell as a bool array, one bit packed) for comparison.
Each case runs in a fresh subprocess.

Examples
--------
    nice -n 10 python benchmarks/distributed.py --rows 1e6 1e7 --memory-rows 1e6
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

# this file is named like the ``distributed`` package: keep its folder off the import path, so that
# dask (and the worker processes, which inherit the path) import the real one
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

RULE = "(a0 AND a1) OR a2"


def synthetic_dask(n: int, m: int, rows_per_partition: int, seed: int = 0):
    """Lazy ``(X, y)``: a dask array of 0/1 uint8 (n, m) and its planted, noisy labels."""
    import dask.array as da

    state = da.random.RandomState(seed)
    X = state.randint(0, 2, size=(n, m), chunks=(rows_per_partition, m), dtype=np.uint8)
    noise = state.random_sample(n, chunks=(rows_per_partition,)) < 0.05
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]).astype(bool) ^ noise
    return X, y.astype(np.int64)


def _warm_up(search) -> None:
    """Compile the search's kernels on a tiny table first (numba), so times measure the search."""
    rng = np.random.default_rng(1)
    X = rng.random((500, 6)) < 0.5
    search(X, X[:, 0] & X[:, 1] | X[:, 2])


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_dask(n: int, m: int, max_size: int, workers: int, partition: int, worker_memory: str) -> dict:
    from distributed import Client, LocalCluster

    from logicrules.fca.dask_counts import DaskCounts
    from logicrules.fca.premise.from_counts import find_best_premises_from_counts

    from logicrules.fca.counts import ChunkedCounts

    _warm_up(lambda X, y: find_best_premises_from_counts(ChunkedCounts([(X, y.astype(int))], X.shape[1]),
                                                         max_size=max_size))
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=worker_memory,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        X, y = synthetic_dask(n, m, partition)
        counts = DaskCounts(X, y, attributes=[f"a{j}" for j in range(m)])
        wall, cpu = time.perf_counter(), time.process_time()
        results, passes = find_best_premises_from_counts(counts, max_size=max_size, return_passes=True)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        worker_peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        worker_cpu = client.run(time.process_time)
    finally:
        client.close()
        cluster.close()
    best = results[0]
    return {"wall_s": wall, "driver_cpu_s": cpu, "passes": passes, "driver_peak_mb": _peak_mb(),
            "worker_peak_mb": sorted(worker_peaks.values()), "worker_cpu_s": sum(worker_cpu.values()),
            "formula": str(best.formula), "score": best.score}


def run_memory(n: int, m: int, max_size: int, partition: int) -> dict:
    """The same table (the dask blocks computed one at a time here) packed into bits, searched in memory."""
    import dask

    from logicrules.fca import bitset
    from logicrules.fca.context import FormalContext
    from logicrules.fca.premise.search import find_best_premises

    _warm_up(lambda X, y: find_best_premises(X, y, max_size=max_size, backend="numba"))
    X, y = synthetic_dask(n, m, partition)
    words, labels = [], []
    with dask.config.set(scheduler="synchronous"):
        for i in range(X.numblocks[0]):
            block, target = dask.compute(X.blocks[i], y.blocks[i])
            words.append(bitset.pack_columns(block.astype(bool)))
            labels.append(target.astype(bool))
    context = FormalContext.from_bits(np.concatenate(words, axis=1), n, [f"a{j}" for j in range(m)])
    y = np.concatenate(labels)
    del words, block
    wall, cpu = time.perf_counter(), time.process_time()
    best = find_best_premises(context, y, max_size=max_size, backend="numba")[0]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall_s": wall, "driver_cpu_s": cpu, "passes": None, "driver_peak_mb": _peak_mb(), "worker_peak_mb": [],
            "worker_cpu_s": 0.0,
            "formula": str(best.formula), "score": best.score}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e6, 1e7], help="rows of the dask runs")
    parser.add_argument("--memory-rows", type=float, nargs="*", default=[1e6], help="rows of the in-memory runs")
    parser.add_argument("--attributes", type=int, default=200)
    parser.add_argument("--max-size", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partition", type=int, default=1 << 18,
                        help="rows per partition (a multiple of 64: the in-memory run joins their packed bits)")
    parser.add_argument("--worker-memory", default="4GB")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--data-dir", default="../shared/datasets", help="unused (synthetic data only)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.partition % 64:
        parser.error("--partition must be a multiple of 64")
    if args.case:
        kind, n = args.case.split(":")
        n = int(float(n))
        if kind == "dask":
            out = run_dask(n, args.attributes, args.max_size, args.workers, args.partition, args.worker_memory)
        else:
            out = run_memory(n, args.attributes, args.max_size, args.partition)
        print("RESULT " + json.dumps(out))
        return
    cases = [("memory", n) for n in args.memory_rows] + [("dask", n) for n in args.rows]
    print(f"planted rule {RULE}, {args.attributes} binary attributes, premise search max_size={args.max_size}, "
          f"{args.workers} workers, {args.partition} rows per partition")
    header = f"{'where':>7} {'rows':>10} {'wall s':>8} {'cpu s':>7} {'cpu s/1e6 rows':>14} {'passes':>6} " \
             f"{'driver MB':>9} {'workers MB':>14} {'bool MB':>8} {'bits MB':>8}  best"
    print(header)
    for kind, n in cases:
        n = int(n)
        cmd = [sys.executable, "-P", __file__, "--case", f"{kind}:{n}", "--attributes", str(args.attributes),
               "--max-size", str(args.max_size), "--workers", str(args.workers), "--partition", str(args.partition),
               "--worker-memory", args.worker_memory]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=dict(os.environ))
        except subprocess.TimeoutExpired:
            print(f"{kind:>7} {n:>10.0e} timed out after {args.timeout:.0f} s")
            continue
        line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        if not line:
            print(f"{kind:>7} {n:>10.0e} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(line[0][7:])
        workers = "/".join(f"{w:.0f}" for w in r["worker_peak_mb"]) or "-"
        cpu = r["driver_cpu_s"] + r["worker_cpu_s"]
        print(f"{kind:>7} {n:>10.0e} {r['wall_s']:>8.1f} {cpu:>7.1f} {cpu / n * 1e6:>14.2f} "
              f"{r['passes'] if r['passes'] is not None else '-':>6} {r['driver_peak_mb']:>9.0f} {workers:>14} "
              f"{n * args.attributes / 1e6:>8.0f} {n * args.attributes / 8e6:>8.0f}  {r['formula']} ({r['score']:.4f})",
              flush=True)


if __name__ == "__main__":
    main()
