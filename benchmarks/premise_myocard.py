"""Reproduce the optimal short premise experiment of the FCA paper on Myocard, and time it.

Setting (paper, section 6): UCI Myocardial infarction complications, all 1700 rows, target ZSN
(chronic heart failure), the 111 input features, all-values binarization (for every observed
value v of a feature, ``f >= v`` and ``f < v``; a missing value is false in both; identical
extents merged, first kept: 1587 attributes), premises without negations, objective F1. The paper
reports best F1 0.401426 / 0.448819 / 0.473786 for sizes 1 / <=2 / <=3 and the size-3 rule
``NA_R_3_n >= 0 AND (ZSN_A >= 1 OR AGE >= 66)``.

The script runs that setting, the same with negations, the authors' 80/20 split
(``train_test_split(test_size=0.2, random_state=42)``, binarized on the training part), and size
4 where it fits, and prints Markdown tables (F1 per size, the paper's Table-1 statistics, times).

Usage::

    python benchmarks/premise_myocard.py [--data-dir ../shared/datasets]
        [--sections paper,objectives,size4,split,kernel] [--size4-attributes 40,100,...]
        [--size4-negations false,true] [--size4-methods cells,extents] [--memory-limit 2GiB]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from logicrules.fca.scaling import ThresholdBinarizer
from logicrules.fca.premise.search import PremiseSearchMemoryError, find_best_premises

OUTCOMES = ("FIBR_PREDS", "PREDS_TAH", "JELUD_TAH", "FIBR_JELUD", "A_V_BLOK", "OTEK_LANC", "RAZRIV",
            "DRESSLER", "ZSN", "REC_IM", "P_IM_STEN", "LET_IS")
EXPECTED_F1 = {1: 0.401426, 2: 0.448819, 3: 0.473786}


def load_myocard(data_dir: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The 111 input features and the boolean ZSN target."""
    frame = pd.read_csv(Path(data_dir) / "myocardial_infarction.csv.gz")
    inputs = frame.drop(columns=["ID", *OUTCOMES])
    if inputs.shape[1] != 111:
        raise ValueError(f"expected 111 input features, got {inputs.shape[1]}")
    return inputs.astype(float), frame["ZSN"].to_numpy() == 1


def binarize(train: pd.DataFrame, *others: pd.DataFrame) -> list[pd.DataFrame]:
    """The paper's all-values scaling fitted on ``train``, applied to ``train`` and ``others``.

    ``ThresholdBinarizer(missing="false")``: for every observed value ``v`` of a feature, ``f >= v``
    and ``f < v`` (missing values false in both), identical extents merged.
    """
    scaler = ThresholdBinarizer(missing="false").fit(train)
    names = [str(n) for n in scaler.get_feature_names_out()]
    if len(train) == 1700 and len(names) != 1587:
        raise ValueError(f"ThresholdBinarizer gives {len(names)} attributes on all rows, not the paper's 1587")
    return [pd.DataFrame(np.asarray(scaler.transform(f), dtype=bool), columns=names) for f in (train, *others)]


def markdown(frame: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table (no optional dependency)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(map(str, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def table1(stats) -> str:
    frame = stats.to_frame().reset_index()
    frame["seconds"] = frame["seconds"].map(lambda s: f"{s:.2f}")
    frame["best_score"] = frame["best_score"].map(lambda s: f"{s:.6f}")
    for col in ("premises", "extent_combinations", "counted", "tested", "new_extents"):
        frame[col] = frame[col].map(lambda v: "-" if v is None or (isinstance(v, float) and np.isnan(v))
                                    else (f"{int(v):.3g}" if int(v) >= 1e6 else str(int(v))))
    return markdown(frame)


def compare_counting(X: pd.DataFrame, y: np.ndarray, every: int = 40) -> str:
    """Why a compiled kernel: time the 3-way counts of every ``every``-th first attribute ``a``.

    (a) NumPy/BLAS: for each ``a``, one float32 GEMM ``X[a-rows, a+1:]^T X[a-rows, a+1:]`` (all
    3-way counts with ``b, c > a``; float32 is exact below 2^24 rows); (b) the numba scan
    (popcounts, inclusion-exclusion, closed-form filter) on the same ``a``'s without proximity
    pruning, and (c) with it. Extrapolated to all ``a`` by multiplying by ``every``.
    """
    import numba

    from logicrules.fca.premise import kernels
    from logicrules.fca.premise.preparation import prepare_attributes

    matrix = X.to_numpy(dtype=bool)
    prep = prepare_attributes(matrix, y, negations=False)
    m = len(prep.columns)
    a_list = np.arange(0, m - 2, every, dtype=np.int64)
    dense = matrix[:, prep.columns].astype(np.float32)
    t0 = time.perf_counter()
    for a in a_list:
        rows = dense[dense[:, a] > 0, a + 1:]
        rows.T @ rows
    blas = (time.perf_counter() - t0) * every
    t = 0.3104   # the optimum's Jaccard score: the filter of the last pass
    pp = (dense[y].T @ dense[y]).astype(np.int32)
    pn = (dense[~y].T @ dense[~y]).astype(np.int32)
    w1 = prep.tp - t * prep.fp
    w2 = pp - t * pn.astype(np.float64)
    wt = prep.n_pos - t * prep.n_neg
    zero_d = np.zeros((m, m))
    zero_e = np.zeros(m)
    no_room = np.full((m, m), -np.inf)
    out = np.zeros((len(a_list), 4096, 2), np.int32)
    counts = [np.zeros(len(a_list), np.int64) for _ in range(2)]
    args = (prep.bits_p, prep.bits_n, 1.0, -t, w1, w2, wt, t * prep.n_pos, False)
    kernels.scan_triples(*args, zero_d, zero_e, no_room, a_list[-2:], 4096, out, *counts)
    with numba.parallel_chunksize(1):
        t0 = time.perf_counter()
        kernels.scan_triples(*args, zero_d, zero_e, no_room, a_list, 4096, out, *counts)
        kernel = (time.perf_counter() - t0) * every
    return (f"3-way counting, extrapolated from every {every}th first attribute of {m}: NumPy/OpenBLAS "
            f"float32 GEMM per attribute {blas:.1f} s (counts only); numba scan without proximity pruning "
            f"{kernel:.1f} s (counts + closed-form filter of every triple).")


def run_setting(X: pd.DataFrame, y: np.ndarray, negations: bool, max_size: int = 3) -> list[str]:
    lines = []
    rows = []
    for k in range(1, max_size + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        found = find_best_premises(X, y, max_size=k, negations=negations, return_stats=k == max_size)
        results, stats = found if k == max_size else (found, None)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        best = results[0]
        expected = EXPECTED_F1.get(k) if not negations else None
        rows.append({"max size": k, "best F1": f"{best.score:.6f}",
                     "paper": f"{expected:.6f}" if expected else "-",
                     "size": best.size, "tp": best.tp, "fp": best.fp, "premise": str(best.formula),
                     "wall s": f"{elapsed:.2f}", "CPU s (all threads)": f"{cpu:.2f}"})
    lines.append(markdown(pd.DataFrame(rows)))
    lines.append("")
    lines.append(f"Table-1 statistics (search with max_size={max_size}, return_stats=True, which also "
                 "counts the distinct extents of sizes 1-2):")
    lines.append("")
    lines.append(table1(stats))
    return lines


def section_paper(X, y, args) -> list[str]:
    out = []
    for negations in (False, True):
        out += [f"### negations={negations}", ""]
        out += run_setting(X, y, negations)
        out.append("")
    return out


def section_objectives(X, y, args) -> list[str]:
    rows = []
    for objective in filter(None, args.objectives.split(",")):
        t0, c0 = time.perf_counter(), time.process_time()
        results, stats = find_best_premises(X, y, max_size=3, negations=False, objective=objective,
                                            return_stats=True)
        size3 = stats.sizes[-1]
        rows.append({"objective": objective, "best": f"{results[0].score:.6f}", "premise": str(results[0].formula),
                     "size-3 triples counted": size3.counted // 8, "size-3 formulas scored": size3.tested,
                     "wall s": f"{time.perf_counter() - t0:.2f}", "CPU s": f"{time.process_time() - c0:.2f}"})
    return ["### other objectives (size <= 3, negations=False)", "", markdown(pd.DataFrame(rows)), ""]


def _timed_search(X, y, **kwargs):
    t0, c0 = time.perf_counter(), time.process_time()
    results, stats = find_best_premises(X, y, return_stats=True, **kwargs)
    return results, stats, time.perf_counter() - t0, time.process_time() - c0


def quantile_scaling(features: pd.DataFrame):
    """``QuantileBinarizer()`` (9 thresholds, ``x <= t`` and ``x > t``) on all rows, as a DataFrame."""
    from logicrules.fca.scaling import QuantileBinarizer

    scaler = QuantileBinarizer().fit(features)
    names = [str(n) for n in scaler.get_feature_names_out()]
    return pd.DataFrame(np.asarray(scaler.transform(features), dtype=bool), columns=names)


def section_size4(X, y, args, features=None) -> list[str]:
    """Size 4: the quantile scaling and the best N attributes (the full scaling: ``size4full``).

    Every search is the whole ``max_size=4`` call (sizes 1-4, ``return_stats=True``); the time of
    the size-4 stage alone is the ``seconds`` of its statistics row. ``size4_method="extents"``
    (the former method) runs only where its memory estimate fits ``--memory-limit``.
    """
    out = ["### size 4", ""]
    if features is not None:
        Q = quantile_scaling(features)
        for negations in (v == "true" for v in args.size4_negations.split(",")):
            results, stats, wall, cpu = _timed_search(Q, y, max_size=4, negations=negations,
                                                      memory_limit=args.memory_limit)
            s3 = stats.sizes[2].best_score
            out += [f"QuantileBinarizer() scaling ({Q.shape[1]} attributes, "
                    f"{stats.n_distinct_attributes} distinct), negations={negations}: best F1 size <= 3 "
                    f"{s3:.6f}, size <= 4 **{results[0].score:.6f}** `{results[0].formula}` (size "
                    f"{results[0].size}); whole search {wall:.2f} s wall, {cpu:.2f} s CPU", "", table1(stats), ""]
    sizes = [int(n) for n in args.size4_attributes.split(",")]
    single = find_best_premises(X, y, max_size=1, negations=False, top_k=max(sizes))
    names = [next(iter(r.formula.attributes)) for r in single]
    rows = []
    for n_attr in sizes:
        for negations in (v == "true" for v in args.size4_negations.split(",")):
            for method in args.size4_methods.split(","):
                try:
                    results, stats, wall, cpu = _timed_search(
                        X[names[:n_attr]], y, max_size=4, negations=negations, memory_limit=args.memory_limit,
                        size4_method=method)
                except PremiseSearchMemoryError as exc:
                    rows.append({"N": n_attr, "negations": negations, "method": method, "best F1": "-",
                                 "premise": f"refused: {str(exc)[:60]}...", "size-4 counted": "-",
                                 "size-4 scored": "-", "size-4 s": "-", "wall s": "-", "CPU s": "-"})
                    continue
                s4 = stats.sizes[-1]
                rows.append({"N": n_attr, "negations": negations, "method": method,
                             "best F1": f"{results[0].score:.6f}", "premise": f"`{results[0].formula}`",
                             "size-4 counted": f"{s4.counted:.3g}", "size-4 scored": f"{s4.tested:.3g}",
                             "size-4 s": f"{s4.seconds:.2f}", "wall s": f"{wall:.2f}", "CPU s": f"{cpu:.2f}"})
                print(f"  [size4] N={n_attr} negations={negations} {method}: {rows[-1]['best F1']} "
                      f"{rows[-1]['wall s']} s", file=sys.stderr, flush=True)
    out += [f"Size 4 on the N attributes of the full scaling with the best single F1 (restricted attribute "
            f"sets, not the full scaling; memory_limit={args.memory_limit}):", "", markdown(pd.DataFrame(rows)), ""]
    return out


def section_size4_full(X, y, args) -> list[str]:
    """Size 4 on the full all-values scaling (1587 attributes), exact, with ``--size4full-memory-limit``.

    The 3-way counts of the sorted attribute triples take 2.65 GB and their rooms (for the
    strongest pruning) another 2.65 GB, so this needs a memory limit of about 6GiB; a progress
    bar goes to stderr when tqdm is installed.
    """
    out = ["### size 4 on the full scaling", ""]
    for negations in (v == "true" for v in args.size4_negations.split(",")):
        try:
            results, stats, wall, cpu = _timed_search(X, y, max_size=4, negations=negations,
                                                      memory_limit=args.size4full_memory_limit, progress=_has_tqdm())
        except PremiseSearchMemoryError as exc:
            out += [f"Full scaling, size 4, negations={negations}: refused: {exc}", ""]
            continue
        best = results[0]
        out += [f"Full scaling ({X.shape[1]} attributes), size <= 4, negations={negations}, "
                f"memory_limit={args.size4full_memory_limit}: best F1 **{best.score:.6f}** `{best.formula}` (size "
                f"{best.size}, tp={best.tp}, fp={best.fp}); whole search {wall:.1f} s wall, {cpu:.1f} s CPU", "",
                table1(stats), ""]
        print("\n".join(out[-4:]), file=sys.stderr, flush=True)
    return out


def section_backends(X, y, args) -> list[str]:
    """numba and torch backends side by side: same search, same result, time of each.

    Runs on the N attributes with the best single F1 (``--backend-attributes``; N = all for the
    full scaling), sizes ``--backend-sizes``, torch on ``--device`` (default: CUDA when present,
    else the CPU, where matrix products over all triples are far slower than the pruned numba
    scan: the torch backend is meant for a GPU).
    """
    from logicrules.fca.premise.torch_backend import gpu_available

    device = args.device or ("cuda" if gpu_available() else "cpu")
    sizes = [int(k) for k in args.backend_sizes.split(",")]
    counts = [X.shape[1] if n == "all" else int(n) for n in args.backend_attributes.split(",")]
    single = find_best_premises(X, y, max_size=1, negations=False, top_k=max(counts))
    names = [next(iter(r.formula.attributes)) for r in single]
    find_best_premises(X[names[:20]], y, max_size=4, backend="torch", device=device)      # warm up
    rows = []
    for n_attr in counts:
        Xn = X if n_attr == X.shape[1] else X[names[:n_attr]]
        for max_size in sizes:
            for backend in ("numba", "torch"):
                kwargs = dict(max_size=max_size, negations=False, memory_limit=args.memory_limit, backend=backend,
                              device=device if backend == "torch" else None)
                try:
                    results, stats, wall, cpu = _timed_search(Xn, y, **kwargs)
                except PremiseSearchMemoryError as exc:
                    rows.append({"N": n_attr, "size": max_size, "backend": backend, "best F1": "-",
                                 "premise": f"refused: {str(exc)[:50]}...", "last size counted": "-",
                                 "last size s": "-", "wall s": "-",
                                 "CPU s": "-"})
                    continue
                rows.append({"N": n_attr, "size": max_size, "backend": backend + ("" if backend == "numba" else
                                                                                    f" ({device})"),
                             "best F1": f"{results[0].score:.6f}", "premise": f"`{results[0].formula}`",
                             "last size counted": f"{stats.sizes[-1].counted:.3g}",
                             "last size s": f"{stats.sizes[-1].seconds:.2f}", "wall s": f"{wall:.2f}",
                             "CPU s": f"{cpu:.2f}"})
                print(f"  [backends] {rows[-1]}", file=sys.stderr, flush=True)
    return ["### numba and torch backends", "",
            f"Negations off, memory_limit={args.memory_limit}; N = attributes with the best single F1 "
            f"(N = {X.shape[1]}: the full scaling); `last size counted` = combinations of the largest size "
            "whose cells were computed, `last size s` = time of its scan.", "",
            markdown(pd.DataFrame(rows)), ""]


def _has_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def section_split(features, y) -> list[str]:
    train_x, test_x, train_y, test_y = train_test_split(features, y, test_size=0.2, random_state=42)
    Xtr, Xte = binarize(train_x, test_x)
    t0, c0 = time.perf_counter(), time.process_time()
    results, stats = find_best_premises(Xtr, train_y, max_size=3, negations=False, return_stats=True)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    best = results[0]
    pred = best.formula.evaluate(Xte)
    tp = int((pred & test_y).sum())
    test_f1 = 2 * tp / (pred.sum() + test_y.sum())
    return ["### authors' setting: 80/20 train_test_split(test_size=0.2, random_state=42)", "",
            f"{Xtr.shape[1]} attributes on the training part ({len(train_y)} rows); size <= 3, "
            f"no negations: `{best.formula}`, train F1 {best.score:.6f}, test F1 {test_f1:.6f}, "
            f"search {elapsed:.2f} s wall, {cpu:.2f} s CPU.", "", table1(stats)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=os.path.join("..", "shared", "datasets"))
    parser.add_argument("--sections", default="paper,objectives,size4,size4full,split",
                        help="comma-separated: paper, objectives, size4, split, kernel (NumPy/BLAS "
                             "3-way counting against the numba kernel), size4full (size 4 on the full "
                             "scaling: about 6GiB of memory and a few minutes on 2 cores), "
                             "backends (numba and torch side by side)")
    parser.add_argument("--objectives", default="accuracy,balanced_accuracy,mcc",
                        help="comma-separated objectives also run at size 3")
    parser.add_argument("--size4-attributes", default="40,100,150,200,300,400,600",
                        help="comma-separated N: size 4 on the best N single attributes")
    parser.add_argument("--size4-methods", default="cells,extents",
                        help="size4_method values to compare (extents only where it fits)")
    parser.add_argument("--size4-negations", default="false,true", help="settings of negations for size 4")
    parser.add_argument("--memory-limit", default="2GiB", help="memory_limit of the size-4 searches")
    parser.add_argument("--size4full-memory-limit", default="8GiB",
                        help="memory_limit of the size4full section (size 4 on the full scaling)")
    parser.add_argument("--backend-attributes", default="100,300",
                        help="comma-separated N (or 'all') for the backends section")
    parser.add_argument("--backend-sizes", default="3", help="comma-separated max_size for the backends section")
    parser.add_argument("--device", default=None, help="torch device of the backends section (default: "
                                                      "cuda when present, else cpu)")
    args = parser.parse_args(argv)
    sections = set(args.sections.split(","))
    features, y = load_myocard(args.data_dir)
    (X,) = binarize(features)
    print(f"Scaling: {X.shape[1]} attributes (ThresholdBinarizer, all values); {len(y)} rows, "
          f"{int(y.sum())} positive.\n"
          f"Threads: numba {__import__('numba').config.NUMBA_NUM_THREADS}, cores {os.cpu_count()}, "
          f"load average at start {os.getloadavg()[0]:.1f} (wall times grow with other jobs; CPU times "
          "are summed over threads).\n", flush=True)
    find_best_premises(X.iloc[:50, :20], y[:50], max_size=3)   # compile the kernels (cached on disk)
    find_best_premises(X.iloc[:50, :8], y[:50], max_size=4)
    if "kernel" in sections:
        print(compare_counting(X, y) + "\n", flush=True)
    if "paper" in sections:
        print("\n".join(section_paper(X, y, args)), flush=True)
    if "objectives" in sections:
        print("\n".join(section_objectives(X, y, args)), flush=True)
    if "size4" in sections:
        print("\n".join(section_size4(X, y, args, features)), flush=True)
    if "backends" in sections:
        print("\n".join(section_backends(X, y, args)), flush=True)
    if "size4full" in sections:
        print("\n".join(section_size4_full(X, y, args)), flush=True)
    if "split" in sections:
        print("\n".join(section_split(features, y)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
