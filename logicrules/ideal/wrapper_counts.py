"""The wrapper selection (``selection="wrapper"``) from counts: greedy forward selection on data
held as counts (dask partitions), with the in-memory path's choices.

At step ``l`` the chosen attributes ``S`` split the rows into types; adding candidate ``j`` splits
each type in two. One kernel counts, for every candidate at once, the rows of each class of the
training and of the validation part in each type of ``S + {j}``
(:func:`candidate_histograms`, one bincount per chunk of rows), so a step is one counting pass
(plus one for the chosen set's own histogram): the driver predicts every type by the training
majority under the tie rule and scores each candidate's validation accuracy (ties by training
accuracy, then column order), exactly as :func:`~logicrules.ideal.paths._score_candidates`
does on the rows (the same integer counts, the same divisions).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from logicrules.fca.counts import RowBlock, type_codes_from_bits
from logicrules.ideal.paths import _decide, _histogram_accuracy, _n_classes

__all__ = ["candidate_histograms", "wrapper_path_from_counts"]

#: Most (row, candidate) cells binned at once by :func:`candidate_histograms`.
_CELLS = 1 << 22


def candidate_histograms(block: RowBlock, chosen: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Rows (or weight) of each class in each type of ``chosen + [j]``, for every candidate ``j``.

    Returns
    -------
    ndarray of shape (len(candidates), 2 ** (len(chosen) + 1), n_classes)
        Entry ``[i, 2 t + b, k]``: the rows of class ``k`` whose type over ``chosen`` is ``t``
        (bit ``r`` of ``t`` is ``chosen[r]``) and whose value of ``candidates[i]`` is ``b``.
    """
    n, K, c = block.n_rows, block.n_classes, len(candidates)
    n_bins = 1 << (len(chosen) + 1)
    weighted = block.weights is not None
    out = np.zeros((c, n_bins, K), dtype=np.float64 if weighted else np.int64)
    codes = type_codes_from_bits(block.bits[chosen], n) if len(chosen) else np.zeros(n, dtype=np.int64)
    step = max(64, _CELLS // max(c, 1) // 64 * 64)
    offset = (np.arange(c, dtype=np.int64) * n_bins)[None, :]
    for start in range(0, n, step):
        stop = min(n, start + step)
        bins = offset + 2 * codes[start:stop, None] + block.dense(start, stop, columns=candidates)
        flat = (K * bins + block.labels[start:stop, None]).ravel()
        w = None if not weighted else np.broadcast_to(block.weights[start:stop, None], bins.shape).ravel()
        out += np.bincount(flat, weights=w, minlength=c * n_bins * K).reshape(c, n_bins, K).astype(out.dtype)
    return out


def wrapper_path_from_counts(counts: Any, tables: Any, n_max: int, rule: Any, progress: Any = None) -> list[tuple]:
    """The wrapper path ``(l, "wrapper", columns, validation accuracy, training accuracy, types)``
    from counts of ``2K`` classes (``y + K valid``); ``tables`` the method's training tables."""
    K = _n_classes(rule)
    totals = counts.class_totals()
    n_train, n_valid = totals[:K].sum(), totals[K:].sum()
    chosen: list[int] = []
    rows = []
    for l in range(1, n_max + 1):
        remaining = np.setdiff1d(np.arange(counts.n_attributes, dtype=np.intp), chosen)
        hist = counts._reduce(functools.partial(candidate_histograms, chosen=np.array(chosen, dtype=np.intp),
                                                candidates=remaining))
        c, n_bins = hist.shape[:2]
        train = hist[:, :, :K].reshape(-1, K).T
        valid = hist[:, :, K:].reshape(-1, K).T
        predicted = _decide(train, rule)
        errors = sum(np.where(predicted == k, 0, row) for k, row in enumerate(train)).reshape(c, n_bins).sum(axis=1)
        train_acc = 1.0 - errors / max(n_train, 1e-300)
        correct = sum(np.where(predicted == k, row, 0) for k, row in enumerate(valid)).reshape(c, n_bins).sum(axis=1)
        val_acc = correct / n_valid if n_valid else np.full(c, np.nan)
        chosen.append(int(remaining[np.lexsort((remaining, -train_acc, -val_acc))[0]]))
        cols = tuple(chosen)
        table = tables[cols]
        rows.append((l, "wrapper", cols, _histogram_accuracy(table, tables.validation(cols)),
                     1.0 - table.training_errors / table.n_rows, table.n_types))
        if progress is not None:
            progress.update()
    return rows
