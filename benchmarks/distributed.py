"""Fitting from data no process holds: the learners' ``fit`` on dask partitions on a LocalCluster.

Two lazily generated synthetic tables, their blocks drawn from a seed where they are computed
(NumPy's generator seeded per block), so that no process ever holds a whole table:

- ``binary``: ``--attributes`` (200) 0/1 uint8 attributes, P(true) = 0.5, planted rule
  ``y = (a0 AND a1) OR a2``, 5% of the labels flipped; fitted by
  ``OptimalPremiseClassifier(binarizer="passthrough", max_size=3)``.
- ``numeric``: 20 standard normal float32 columns, planted rule
  ``y = (x0 > 0 AND x1 > 0) OR x2 > 0``, 5% flipped; fitted by ``IdealDNFClassifier()`` (the
  paper's median binarizer fitted from exact distributed medians, the validation sweep from
  type histograms), by ``LPRuleClassifier()`` (rule "or", the quantile binarizer; learner
  ``lp``), by ``LPRuleClassifier(rule="dnf", method="covering")`` (a rule set; ``lp-dnf``) and
  by ``LPRuleClassifier(rule="dnf", method="cg")`` (a rule set by column generation; ``lp-cg``).

Every ``fit(X, y)`` receives the dask array and its labels and runs on a ``LocalCluster`` of
``--workers`` worker processes (1 thread each); the same fit runs in memory on the rows of
``--memory-rows`` (the table computed block by block into one array first, not timed).

Reported per case: wall time of the fit, CPU time of the fit (the driver's plus the workers'
during the fit), CPU per 1e6 rows, the fit's passes over the data, how many of them produced the
table (``produced``: the blocks drawn during the fit, per partition; a pass that reads the bits
the workers keep (``DaskCounts``' ``persist``) does not), the workers' CPU time of one pass that
only produces the lazily generated table (``data cpu``: every pass that produces the table pays
it again, as it would re-read files), the fit's own CPU per 1e6 rows (its CPU less ``produced x
data cpu``), peak RSS of the driver and of each worker (``ru_maxrss``, the
process's whole life: interpreter, imports, the fit), the workers' RSS before the fit (their
fixed cost), and the size of the binarized table (one byte per cell as a bool array, one bit
packed) for comparison. Each case runs in a fresh subprocess; numba kernels are compiled on a
tiny table first. Every process (the in-memory case's, the driver, the workers) runs with the
glibc allocator settings of ``MALLOC`` unless ``--malloc default``; the workers' statistical
profiler (distributed samples every thread every 10 ms, CPU that grows with the wall time, so
with the load of a shared machine) is off unless ``--worker-profile on``. The workers' CPU is
also reported on its own (``workers cpu``).

Examples
--------
    nice -n 10 python benchmarks/distributed.py --rows 1e7 --memory-rows 1e7 --learners premise ideal
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

# this file is named like the ``distributed`` package: keep its folder off the import path, so that
# dask (and the worker processes, which inherit the path) import the real one
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

#: glibc allocator settings of every case's process and of the workers (``--malloc default`` leaves
#: glibc's and distributed's own: distributed starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``,
#: which hands freed memory back at once, so that every fresh temporary of a partition's size
#: (a column of 262,144 values is 2 MB) faults its pages in again: 5-10x slower array operations
#: measured on the shared machine, in the in-memory fit too).
MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(64 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}
RULES = {"binary": "(a0 AND a1) OR a2", "numeric": "(x0 > 0 AND x1 > 0) OR x2 > 0"}
NUMERIC_COLUMNS = 20
LEARNERS = ("premise", "ideal", "lp", "lp-dnf", "lp-cg", "lp-mofn")


def _block(kind: str, n: int, m: int, seed: int, number: int) -> tuple[np.ndarray, np.ndarray]:
    """Block ``number`` of the table (``n`` rows) and its labels, drawn from ``[seed, number]``."""
    state = np.random.default_rng([seed, number])
    if kind == "binary":
        X = state.integers(0, 2, size=(n, m), dtype=np.uint8)
        rule = (X[:, 0] & X[:, 1]) | X[:, 2]
    else:
        X = state.standard_normal(size=(n, NUMERIC_COLUMNS), dtype=np.float32)
        rule = ((X[:, 0] > 0) & (X[:, 1] > 0)) | (X[:, 2] > 0)
    noise = state.random(n, dtype=np.float32) < 0.05
    return X, (rule.astype(bool) ^ noise).astype(np.int64)


def synthetic_dask(kind: str, n: int, m: int, rows_per_partition: int, seed: int = 0):
    """Lazy ``(X, y)``: a dask array (n, m) of 0/1 uint8 (``binary``) or of normal float32
    (``numeric``, 20 columns) and its planted, noisy int64 labels. Each block is drawn where it
    is computed by NumPy's generator seeded with ``[seed, block]`` (X and y of a block from one
    task: a pass that needs both draws the block once)."""
    import dask
    import dask.array as da

    width = m if kind == "binary" else NUMERIC_COLUMNS
    dtype = np.uint8 if kind == "binary" else np.float32
    blocks, labels = [], []
    for number, start in enumerate(range(0, n, rows_per_partition)):
        rows = min(rows_per_partition, n - start)
        both = dask.delayed(_block, pure=True, nout=2)(kind, rows, width, seed, number)
        blocks.append(da.from_delayed(both[0], shape=(rows, width), dtype=dtype))
        labels.append(da.from_delayed(both[1], shape=(rows,), dtype=np.int64))
    return da.concatenate(blocks, axis=0), da.concatenate(labels)


def make_learner(name: str):
    from logicrules import IdealDNFClassifier, LPRuleClassifier, OptimalPremiseClassifier

    if name == "premise":
        return "binary", OptimalPremiseClassifier(binarizer="passthrough", max_size=3)
    if name == "ideal":
        return "numeric", IdealDNFClassifier(random_state=0)
    if name == "lp-cg":  # a rule set by column generation: the master on a driver-held set of patterns,
        # its first rows a 10% sample in memory as on dask (where "auto" is the default)
        return "numeric", LPRuleClassifier(rule="dnf", method="cg", row_sampling="auto", random_state=0)
    if name == "lp-mofn":  # an m-of-n checklist by row generation over per-group sums
        return "binary", LPRuleClassifier(rule="m_of_n", binarizer="passthrough", random_state=0)
    if name == "lp-dnf":  # a rule set by sequential covering
        return "numeric", LPRuleClassifier(rule="dnf", method="covering", random_state=0)
    return "numeric", LPRuleClassifier(random_state=0)


def lp_fits_from_dask() -> bool:
    from logicrules import LPRuleClassifier
    from logicrules.base import RuleClassifier

    return LPRuleClassifier._fit_dask is not RuleClassifier._fit_dask


def _warm_up(name: str, dask_too: bool = False) -> None:
    """Fit the learner on a tiny table first (numba compilation; with ``dask_too`` a tiny dask
    fit on the synchronous scheduler as well: the imports of the dask path), so that times
    measure the fit."""
    kind, model = make_learner(name)
    rng = np.random.default_rng(1)
    X = rng.random((600, 6)) < 0.5 if kind == "binary" else rng.normal(size=(600, 6))
    y = (X[:, 0] & X[:, 1] | X[:, 2]) if kind == "binary" else (X[:, 0] > 0) | (X[:, 2] > 0)
    X, y = X.astype(np.uint8) if kind == "binary" else X, y.astype(int)
    model.fit(X, y)
    if dask_too:
        import dask
        import dask.array as da

        with dask.config.set(scheduler="synchronous"):
            make_learner(name)[1].fit(da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker_state() -> tuple[float, float, float]:
    """(CPU seconds, RSS MB now, peak RSS MB) of the calling worker process."""
    import psutil

    return time.process_time(), psutil.Process().memory_info().rss / 2**20, _peak_mb()


def _worker_warm_up(name: str) -> None:
    _warm_up(name)


def _report_peaks(client, done, every: float = 20.0) -> None:
    """Print the peaks so far (driver, workers) every ``every`` seconds until ``done``: what a
    run stopped by the timeout leaves."""
    begin = time.perf_counter()
    while not done.wait(every):
        peaks = client.run(_worker_state)
        print(f"PEAKS {time.perf_counter() - begin:.0f} s: driver {_peak_mb():.0f} MB, workers "
              f"{'/'.join(f'{peaks[w][2]:.0f}' for w in sorted(peaks))} MB", flush=True)


def run_dask(name: str, n: int, m: int, workers: int, partition: int, worker_memory: str, malloc: str,
             worker_profile: str = "off") -> dict:
    import dask
    from distributed import Client, LocalCluster, get_task_stream

    _warm_up(name, dask_too=True)
    if worker_profile == "off":  # the workers receive the driver's dask config
        dask.config.set({"distributed.worker.profile.enabled": False})
    if malloc == "tuned":  # the workers get the case's allocator settings (distributed sets its own)
        environ = dask.config.get("distributed.nanny.pre-spawn-environ")
        dask.config.set({"distributed.nanny.pre-spawn-environ": {**environ, **MALLOC}})
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=worker_memory,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        client.run(_worker_warm_up, name)
        kind, model = make_learner(name)
        model.set_params(verbose=1)  # one line per pass on stderr: the parent counts them
        X, y = synthetic_dask(kind, n, m, partition)
        start = client.run(_worker_state)
        dask.compute(X.sum(axis=0), y.sum())  # one pass that only produces the data: its cost per pass
        before = client.run(_worker_state)
        done = threading.Event()
        watch = threading.Thread(target=_report_peaks, args=(client, done), daemon=True)
        watch.start()
        wall, cpu = time.perf_counter(), time.process_time()
        with get_task_stream(client) as stream:  # which tasks ran: how often the table was produced
            model.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        produced = sum(str(task["key"]).startswith(("_block-", "('_block-")) for task in stream.data)
        done.set()
        watch.join()
        after = client.run(_worker_state)
    finally:
        client.close()
        cluster.close()
    return {"wall_s": wall, "driver_cpu_s": cpu, "driver_peak_mb": _peak_mb(),
            "worker_peak_mb": [after[w][2] for w in sorted(after)],
            "worker_start_mb": [start[w][1] for w in sorted(start)],
            "worker_cpu_s": sum(after[w][0] - before[w][0] for w in after),
            "data_pass_cpu_s": sum(before[w][0] - start[w][0] for w in before),
            "data_passes": produced / X.numblocks[0],
            "formula": str(model.formula_)}


def run_memory(name: str, n: int, m: int, partition: int) -> dict:
    """The same table (its dask blocks computed one at a time into one array), fitted in memory."""
    import dask

    _warm_up(name)
    kind, model = make_learner(name)
    X, y = synthetic_dask(kind, n, m, partition)
    width = m if kind == "binary" else NUMERIC_COLUMNS
    data = np.empty((n, width), dtype=bool if kind == "binary" else np.float32)
    labels = np.empty(n, dtype=np.int64)
    with dask.config.set(scheduler="synchronous"):
        start = 0
        for i in range(X.numblocks[0]):
            block, target = dask.compute(X.blocks[i], y.blocks[i])
            data[start:start + len(block)] = block
            labels[start:start + len(block)] = target
            start += len(block)
    del block
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(data, labels)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall_s": wall, "driver_cpu_s": cpu, "driver_peak_mb": _peak_mb(), "worker_peak_mb": [],
            "worker_start_mb": [], "worker_cpu_s": 0.0, "formula": str(model.formula_)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="*", default=[1e6, 1e7], help="rows of the dask runs")
    parser.add_argument("--memory-rows", type=float, nargs="*", default=[1e6], help="rows of the in-memory runs")
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--attributes", type=int, default=200, help="attributes of the binary table")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partition", type=int, default=1 << 18, help="rows per partition")
    parser.add_argument("--worker-memory", default="4GB")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per case")
    parser.add_argument("--malloc", choices=("tuned", "default"), default="tuned",
                        help="glibc allocator settings of every process (see MALLOC)")
    parser.add_argument("--worker-profile", choices=("off", "on"), default="off",
                        help="distributed's statistical profiler in the workers")
    parser.add_argument("--data-dir", default="../shared/datasets", help="unused (synthetic data only)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:
        where, name, n = args.case.split(":")
        n = int(float(n))
        if where == "dask":
            out = run_dask(name, n, args.attributes, args.workers, args.partition, args.worker_memory, args.malloc,
                           args.worker_profile)
        else:
            out = run_memory(name, n, args.attributes, args.partition)
        print("RESULT " + json.dumps(out))
        return
    learners = [name for name in args.learners if not name.startswith("lp") or lp_fits_from_dask()]
    if len(learners) < len(args.learners):
        print("lp: LPRuleClassifier does not fit from dask data in this version; skipped")
    print(f"binary table: {args.attributes} attributes, rule {RULES['binary']}; numeric table: "
          f"{NUMERIC_COLUMNS} columns, rule {RULES['numeric']}; {args.workers} workers, "
          f"{args.partition} rows per partition")
    print(f"{'learner':>8} {'where':>7} {'rows':>8} {'wall s':>8} {'cpu s':>8} {'workers cpu':>11} {'cpu s/1e6':>9} "
          f"{'driver MB':>9} {'workers MB':>11} {'at start':>9} {'bool MB':>8} {'bits MB':>8} {'passes':>6} "
          f"{'produced':>8} {'data cpu':>9} {'own/1e6':>9}  formula")
    for name in learners:
        kind, _ = make_learner(name)
        width = args.attributes if kind == "binary" else NUMERIC_COLUMNS  # median cuts: one per column
        cases = [("memory", n) for n in args.memory_rows] + [("dask", n) for n in args.rows]
        for where, n in cases:
            n = int(n)
            cmd = [sys.executable, "-P", __file__, "--case", f"{where}:{name}:{n}", "--attributes",
                   str(args.attributes), "--workers", str(args.workers), "--partition", str(args.partition),
                   "--worker-memory", args.worker_memory, "--malloc", args.malloc, "--worker-profile",
                   args.worker_profile]
            env = dict(os.environ, **(MALLOC if args.malloc == "tuned" else {}))
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
            except subprocess.TimeoutExpired as stopped:
                out, err = (x.decode() if isinstance(x, bytes) else x or "" for x in (stopped.stdout, stopped.stderr))
                peaks = [x for x in out.splitlines() if x.startswith("PEAKS")]
                passes = [x.strip() for x in err.replace("\r", "\n").splitlines() if "dask pass" in x]
                print(f"{name:>8} {where:>7} {n:>8.0e} timed out after {args.timeout:.0f} s; passes done: "
                      f"{passes}; last {peaks[-1] if peaks else 'PEAKS: none'}", flush=True)
                continue
            line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
            if not line:
                print(f"{name:>8} {where:>7} {n:>8.0e} failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
                continue
            r = json.loads(line[0][7:])
            cpu = r["driver_cpu_s"] + r["worker_cpu_s"]
            # the passes of the fit: one per "dask pass" line, and the pass over y for the classes
            # when it has no line (the ideal's shares a pass with the binarizers' or prints its own);
            # the passes that produce the table (the others read bits kept on the workers): the
            # blocks drawn over the fit, per partition
            passes = done.stderr.count("dask pass") + ("classes" not in done.stderr) if where == "dask" else 0
            data_passes = r.get("data_passes", 0.0)
            own = cpu - data_passes * r.get("data_pass_cpu_s", 0.0)
            print(f"{name:>8} {where:>7} {n:>8.0e} {r['wall_s']:>8.1f} {cpu:>8.1f} {r['worker_cpu_s']:>11.1f} "
                  f"{cpu / n * 1e6:>9.2f} "
                  f"{r['driver_peak_mb']:>9.0f} {'/'.join(f'{w:.0f}' for w in r['worker_peak_mb']) or '-':>11} "
                  f"{'/'.join(f'{w:.0f}' for w in r['worker_start_mb']) or '-':>9} "
                  f"{n * width / 2**20:>8.0f} {n * width / 8 / 2**20:>8.0f} {passes or '-':>6} "
                  f"{data_passes or '-':>8} "
                  f"{r.get('data_pass_cpu_s', 0.0):>9.1f} {own / n * 1e6:>9.2f}  {r['formula']}", flush=True)


if __name__ == "__main__":
    main()
