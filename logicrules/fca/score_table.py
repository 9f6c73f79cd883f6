"""An objective tabulated over every possible confusion count, and linear filters for it.

With ``P`` positive and ``N`` negative rows a premise's score depends only on ``(tp, fp)``
(``fn = P - tp``, ``tn = N - fp``), so any objective, a callable included, is evaluated once on
the ``(P + 1) x (N + 1)`` grid and looked up afterwards: scores are bit-identical to
``objective(tp, fp, fn, tn)`` and the search needs no per-objective code.

The triple scan tests a *linear* score ``alpha tp + beta fp`` (the best read-once formula over
three attributes has a closed form for linear scores). :func:`linear_filter` finds a line with
every grid point scoring above a threshold on its upper side: for F1/Jaccard that region is a
half-plane and the line is the Dinkelbach linearization ``tp - t fp >= t P``; for accuracy,
balanced accuracy and WRAcc it is the objective itself; for MCC and arbitrary callables it is
the tightest of many directions, a relaxation whose survivors are scored exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from logicrules.metrics import Objective

__all__ = ["LinearFilter", "ScoreTable", "linear_filter"]


@dataclass(frozen=True)
class ScoreTable:
    """``values[tp, fp]``: the objective of a premise with those counts (NaN mapped to -inf).

    Examples
    --------
    >>> from logicrules.metrics import get_objective
    >>> t = ScoreTable.build(get_objective("f1"), 2, 3)
    >>> float(t.values[2, 0])
    1.0
    """

    values: np.ndarray
    n_pos: int
    n_neg: int

    @classmethod
    def build(cls, objective: Objective, n_pos: int, n_neg: int) -> ScoreTable:
        tp = np.arange(n_pos + 1, dtype=np.int64)[:, None]
        fp = np.arange(n_neg + 1, dtype=np.int64)[None, :]
        tp, fp = np.broadcast_arrays(tp, fp)
        values = np.asarray(objective(tp, fp, n_pos - tp, n_neg - fp), dtype=np.float64)
        if values.shape != tp.shape:
            values = np.broadcast_to(values, tp.shape)
        values = np.where(np.isnan(values), -np.inf, values)
        return cls(np.ascontiguousarray(values), n_pos, n_neg)

    def prefix_max(self) -> np.ndarray:
        """``out[tp, fp] = max values[:tp+1, :fp+1]`` (best score of any AND with these operands)."""
        return np.maximum.accumulate(np.maximum.accumulate(self.values, axis=0), axis=1)

    def suffix_max(self) -> np.ndarray:
        """``out[tp, fp] = max values[tp:, fp:]`` (best score of any OR with these operands)."""
        flipped = self.values[::-1, ::-1]
        acc = np.maximum.accumulate(np.maximum.accumulate(flipped, axis=0), axis=1)
        return np.ascontiguousarray(acc[::-1, ::-1])


@dataclass(frozen=True)
class LinearFilter:
    """Keep a premise when ``alpha tp + beta fp >= threshold`` (all better premises pass)."""

    alpha: float
    beta: float
    threshold: float
    passing_cells: int   # grid points on the kept side (a selectivity measure)


def _boundary(table: ScoreTable, score: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ``fp`` column, the least and greatest ``tp`` scoring above ``score`` (and where any)."""
    above = table.values > score
    any_ = above.any(axis=0)
    lo = np.argmax(above, axis=0)
    hi = table.n_pos - np.argmax(above[::-1], axis=0)
    return lo, hi, any_


def _passing(alpha: float, beta: float, c: float, n_pos: int, fp: np.ndarray) -> int:
    """Grid points ``(tp, fp)`` with ``alpha tp + beta fp >= c``."""
    rhs = c - beta * fp
    if alpha > 1e-12:
        lo = np.clip(np.ceil(rhs / alpha - 1e-9), 0, n_pos + 1)
        return int(np.sum(n_pos + 1 - lo))
    if alpha < -1e-12:
        hi = np.clip(np.floor(rhs / alpha + 1e-9), -1, n_pos)
        return int(np.sum(hi + 1))
    return int(np.sum(rhs <= 1e-9)) * (n_pos + 1)


def linear_filter(table: ScoreTable, score: float, n_angles: int = 96) -> LinearFilter | None:
    """The line that lets fewest grid points through while keeping every point above ``score``.

    Returns None when no confusion count scores above ``score`` (nothing can improve).
    The threshold is lowered by a relative 1e-9 so that float rounding never loses a premise.
    """
    lo, hi, any_ = _boundary(table, score)
    if not any_.any():
        return None
    fp = np.flatnonzero(any_).astype(np.float64)
    tp_lo = lo[any_].astype(np.float64)
    tp_hi = hi[any_].astype(np.float64)
    all_fp = np.arange(table.n_neg + 1, dtype=np.float64)

    def evaluate(theta: float) -> tuple[int, float, float, float]:
        alpha, beta = float(np.cos(theta)), float(np.sin(theta))
        c = float(min((alpha * tp_lo + beta * fp).min(), (alpha * tp_hi + beta * fp).min()))
        scale = abs(alpha) * table.n_pos + abs(beta) * table.n_neg + 1.0
        c -= 1e-9 * scale
        return _passing(alpha, beta, c, table.n_pos, all_fp), alpha, beta, c

    thetas = np.linspace(-np.pi, np.pi, n_angles, endpoint=False)
    best = min((evaluate(t) + (t,) for t in thetas), key=lambda r: r[0])
    step = 2 * np.pi / n_angles
    for _ in range(3):
        local = np.linspace(best[4] - step, best[4] + step, 17)
        best = min([best] + [evaluate(t) + (t,) for t in local], key=lambda r: r[0])
        step /= 8
    return LinearFilter(alpha=best[1], beta=best[2], threshold=best[3], passing_cells=best[0])
