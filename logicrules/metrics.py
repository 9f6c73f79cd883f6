"""Objectives over confusion counts, vectorized over whole arrays of candidates.

Every learner scores candidate formulas from their confusion counts ``(tp, fp, fn, tn)`` only,
so one objective function serves a single rule, a GEMM block of millions of candidates, or
partial counts summed across chunks. Scores are float64, higher is better, and undefined ratios
(a zero denominator) score 0 so that degenerate candidates never win by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["OBJECTIVES", "LinearFilter", "Objective", "get_objective"]

CountFunction = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Elementwise ``numerator / denominator`` with 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def f1(tp, fp, fn, tn):
    """F1 score ``2 tp / (2 tp + fp + fn)``; ranks exactly as :func:`jaccard` does."""
    tp = np.asarray(tp, dtype=np.float64)
    return _ratio(2 * tp, 2 * tp + fp + fn)


def jaccard(tp, fp, fn, tn):
    """Jaccard score ``tp / (tp + fp + fn)``; ``f1 = 2 J / (1 + J)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fp + fn)


def accuracy(tp, fp, fn, tn):
    """Fraction of rows classified correctly."""
    tp = np.asarray(tp, dtype=np.float64)
    return _ratio(tp + tn, tp + fp + fn + tn)


def precision(tp, fp, fn, tn):
    """Positive predictive value ``tp / (tp + fp)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fp)


def recall(tp, fp, fn, tn):
    """True positive rate ``tp / (tp + fn)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fn)


def balanced_accuracy(tp, fp, fn, tn):
    """Mean of the true positive and true negative rates (a missing class counts its rate as 0)."""
    tp = np.asarray(tp, dtype=np.float64)
    tn = np.asarray(tn, dtype=np.float64)
    return (_ratio(tp, tp + fn) + _ratio(tn, tn + fp)) / 2


def mcc(tp, fp, fn, tn):
    """Matthews correlation coefficient (0 when any marginal is empty, as scikit-learn does)."""
    tp, fp, fn, tn = (np.asarray(a, dtype=np.float64) for a in (tp, fp, fn, tn))
    denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return _ratio(tp * tn - fp * fn, denominator)


def wracc(tp, fp, fn, tn):
    """Weighted relative accuracy ``coverage * (precision - prior)`` of subgroup discovery."""
    tp, fp, fn, tn = (np.asarray(a, dtype=np.float64) for a in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    covered = tp + fp
    return _ratio(covered, n) * (_ratio(tp, covered) - _ratio(tp + fn, n))


Form = Callable[[float, float], tuple[tuple[float, float, float], tuple[float, float, float]]]


def _safe_inverse(x: float) -> float:
    return 1.0 / x if x else 0.0


def _f1_form(P, N):
    return (2.0, 0.0, 0.0), (1.0, 1.0, P)                 # 2 tp / (tp + fp + P)


def _jaccard_form(P, N):
    return (1.0, 0.0, 0.0), (0.0, 1.0, P)                 # tp / (P + fp)


def _precision_form(P, N):
    return (1.0, 0.0, 0.0), (1.0, 1.0, 0.0)               # tp / (tp + fp)


def _accuracy_form(P, N):
    n = _safe_inverse(P + N)
    return (n, -n, N * n), _ONE                         # (tp + N - fp) / n


def _recall_form(P, N):
    return (_safe_inverse(P), 0.0, 0.0), _ONE


def _balanced_accuracy_form(P, N):
    return (_safe_inverse(2 * P), -_safe_inverse(2 * N), 0.5 if N else 0.0), _ONE


def _wracc_form(P, N):
    n = _safe_inverse(P + N)
    return (n - P * n * n, -P * n * n, 0.0), _ONE         # tp / n - (tp + fp) P / n^2


def _linear_form(P, N):
    return (1.0, -1.0, 0.0), _ONE


_ONE = (0.0, 0.0, 1.0)


@dataclass(frozen=True)
class LinearFilter:
    """Keep candidate counts with ``alpha * tp + beta * fp >= threshold``.

    An objective's filter for a score ``t`` keeps every ``(tp, fp)`` whose score exceeds ``t``
    (a necessary condition, so pruning with it is exact); the threshold includes a relative
    slack of 1e-9 so that float rounding of weighted counts never loses a candidate.
    ``LinearFilter(0, 0, -inf)`` keeps everything.
    """

    alpha: float
    beta: float
    threshold: float

    @property
    def passes_all(self) -> bool:
        """True when the filter keeps every candidate."""
        return self.threshold == -np.inf


_PASS_ALL = LinearFilter(0.0, 0.0, -np.inf)


def _line(alpha: float, beta: float, rhs: float, P: float, N: float) -> LinearFilter | None:
    """``alpha tp + beta fp >= rhs`` with slack, or None when no point of ``[0, P] x [0, N]`` passes."""
    slack = 1e-9 * (abs(alpha) * P + abs(beta) * N + abs(rhs) + 1.0)
    threshold = rhs - slack
    if max(alpha, 0.0) * P + max(beta, 0.0) * N < threshold:
        return None
    return LinearFilter(float(alpha), float(beta), float(threshold))


def _mcc_filter(t: float, P: float, N: float) -> LinearFilter | None:
    """A line through the region ``mcc > t`` (``t >= 0``) of the ``(tp, fp)`` box.

    With ``s = tp + fp``, ``n = P + N`` and ``d = N tp - P fp``, ``mcc = d / sqrt(P N s (n - s))``.
    For a coverage ``s`` the largest ``d`` is at ``tp = min(s, P)``, giving
    ``mcc <= sqrt(s N / (P (n - s)))`` for ``s <= P`` (increasing) and
    ``sqrt(P (n - s) / (N s))`` for ``s >= P`` (decreasing), so ``mcc > t`` needs
    ``s1 < s < s2`` with ``s1 = t^2 P n / (N + t^2 P)`` and ``s2 = P n / (P + t^2 N)``. There
    ``d > g(s) = t sqrt(P N s (n - s))``, and ``g`` is concave, so it lies above its chord over
    ``[s1, s2]``: ``mcc > t`` implies ``d > chord(s)``, a linear inequality in ``(tp, fp)``.
    """
    if P <= 0 or N <= 0 or t >= 1:
        return None                            # mcc is 0 everywhere, or never above t
    n = P + N
    t2 = t * t
    s1 = t2 * P * n / (N + t2 * P)
    s2 = P * n / (P + t2 * N)

    def g(s):
        return t * np.sqrt(max(P * N * s * (n - s), 0.0))

    slope = (g(s2) - g(s1)) / (s2 - s1) if s2 > s1 else 0.0
    # d - chord(s) > 0:  (N - slope) tp + (-P - slope) fp > g(s1) - slope s1
    return _line(N - slope, -P - slope, g(s1) - slope * s1, P, N)


def _boundary_filter(objective: Objective, t: float, P: int, N: int, n_angles: int = 96,
                     block: int = 1 << 22) -> LinearFilter | None:
    """The tightest of ``n_angles`` directions through ``{score > t}`` on the integer count grid.

    For an objective without a closed form (a callable) and integer counts: per ``fp`` the least
    and greatest ``tp`` scoring above ``t`` (the callable evaluated on blocks of columns, never
    the whole ``(P + 1) x (N + 1)`` grid at once), then the direction whose line lets the fewest
    grid points through. Exact for the integer grid.
    """
    tp = np.arange(P + 1, dtype=np.int64)[:, None]
    lo = np.zeros(N + 1, dtype=np.int64)
    hi = np.zeros(N + 1, dtype=np.int64)
    any_ = np.zeros(N + 1, dtype=bool)
    step = max(1, block // (P + 1))
    for start in range(0, N + 1, step):
        fp = np.arange(start, min(N + 1, start + step), dtype=np.int64)[None, :]
        tpb, fpb = np.broadcast_arrays(tp, fp)
        values = np.broadcast_to(np.asarray(objective(tpb, fpb, P - tpb, N - fpb), dtype=np.float64), tpb.shape)
        above = values > t               # NaN compares False
        sl = slice(start, start + above.shape[1])
        any_[sl] = above.any(axis=0)
        lo[sl] = np.argmax(above, axis=0)
        hi[sl] = P - np.argmax(above[::-1], axis=0)
    if not any_.any():
        return None
    fp = np.flatnonzero(any_).astype(np.float64)
    tp_lo = lo[any_].astype(np.float64)
    tp_hi = hi[any_].astype(np.float64)
    all_fp = np.arange(N + 1, dtype=np.float64)

    def passing(alpha, beta, c):
        rhs = c - beta * all_fp
        if alpha > 1e-12:
            return int(np.sum(P + 1 - np.clip(np.ceil(rhs / alpha - 1e-9), 0, P + 1)))
        if alpha < -1e-12:
            return int(np.sum(np.clip(np.floor(rhs / alpha + 1e-9), -1, P) + 1))
        return int(np.sum(rhs <= 1e-9)) * (P + 1)

    def evaluate(theta):
        alpha, beta = float(np.cos(theta)), float(np.sin(theta))
        c = float(min((alpha * tp_lo + beta * fp).min(), (alpha * tp_hi + beta * fp).min()))
        c -= 1e-9 * (abs(alpha) * P + abs(beta) * N + 1.0)
        return passing(alpha, beta, c), alpha, beta, c, theta

    best = min((evaluate(th) for th in np.linspace(-np.pi, np.pi, n_angles, endpoint=False)), key=lambda r: r[0])
    step_angle = 2 * np.pi / n_angles
    for _ in range(3):
        local = np.linspace(best[4] - step_angle, best[4] + step_angle, 17)
        best = min([best] + [evaluate(th) for th in local], key=lambda r: r[0])
        step_angle /= 8
    return LinearFilter(best[1], best[2], best[3])


BOUNDARY_SEARCH_CELLS = 20_000_000   # largest (P + 1)(N + 1) grid a callable's boundary search visits


@dataclass(frozen=True)
class Objective:
    """A named score of confusion counts, callable on arrays, with its own pruning filter.

    Parameters
    ----------
    name : str
        Name used in reports.
    function : callable
        ``function(tp, fp, fn, tn) -> float array``; higher is better. Counts may be floats
        (sums of row weights).
    fractional : bool
        True when the score is a ratio of linear functions of ``(tp, fp)`` (f1, jaccard,
        precision), maximized by Dinkelbach linearization.
    min_support : float
        Candidates covering less (``tp + fp < min_support``) score ``-inf``.
    form : callable, optional
        ``form(P, N) -> ((a, b, c), (d, e, g))``: the score is ``(a tp + b fp + c) / (d tp + e fp
        + g)`` for class totals ``P``, ``N`` (a linear score has ``(d, e, g) = (0, 0, 1)``); the
        denominator is non-negative on the count box, and the score is 0 where it is 0 and
        never negative when it is not linear. Gives the closed-form filter of :meth:`filter`.
    kind : {"ratio", "linear", "mcc", "callable"}
        Which filter :meth:`filter` uses (derived from ``form`` when omitted).

    Examples
    --------
    >>> import numpy as np
    >>> get_objective("f1")(np.array([3]), np.array([1]), np.array([1]), np.array([5]))
    array([0.75])
    >>> get_objective("f1").filter(0.5, 10, 20)       # Dinkelbach: 2 tp > 0.5 (tp + fp + 10)
    LinearFilter(alpha=1.5, beta=-0.5, threshold=4.999999969)
    """

    name: str
    function: CountFunction = field(repr=False)
    fractional: bool = False
    min_support: float = 0
    form: Form | None = field(default=None, repr=False)
    kind: str = ""

    def __post_init__(self):
        if not self.kind:
            kind = "callable" if self.form is None else ("ratio" if self.fractional else "linear")
            object.__setattr__(self, "kind", kind)
        if self.kind not in ("ratio", "linear", "mcc", "callable"):
            raise ValueError(f"Objective kind must be 'ratio', 'linear', 'mcc' or 'callable', got {self.kind!r}")

    def __call__(self, tp, fp, fn, tn) -> np.ndarray:
        scores = np.asarray(self.function(tp, fp, fn, tn), dtype=np.float64)
        if self.min_support > 0:
            support = np.asarray(tp) + np.asarray(fp)
            scores = np.where(support < self.min_support, -np.inf, scores)
        return scores

    def filter(self, threshold: float, n_pos: float, n_neg: float, integer_counts: bool = True
               ) -> LinearFilter | None:
        """A line ``alpha tp + beta fp >= c`` kept by every count pair scoring above ``threshold``.

        Closed forms: a linear score is its own filter; a ratio ``(a tp + b fp + c) / (d tp + e
        fp + g)`` above ``t >= 0`` needs ``(a - t d) tp + (b - t e) fp > t g - c`` (Dinkelbach:
        the denominator is positive there); MCC the chord of :func:`_mcc_filter`. A callable
        gets the boundary search of :func:`_boundary_filter` on the integer grid when it has at
        most ``BOUNDARY_SEARCH_CELLS`` points, else (and for weighted counts) a filter keeping
        everything. Below 0 a ratio or MCC keeps everything too.

        Parameters
        ----------
        threshold : float
            Score to beat (``-inf``: everything passes).
        n_pos, n_neg : float
            Class totals ``P = tp + fn`` and ``N = fp + tn`` (sums of weights when weighted).
        integer_counts : bool, default True
            Whether counts are integers (unweighted), which the boundary search needs.

        Returns
        -------
        LinearFilter, or None when no count pair in ``[0, P] x [0, N]`` can score above
        ``threshold``.
        """
        t = float(threshold)
        P, N = float(n_pos), float(n_neg)
        if np.isnan(t) or t == -np.inf:
            return _PASS_ALL
        if self.kind == "linear":
            (a, b, c), _ = self.form(P, N)
            return _line(a, b, t - c, P, N)
        if self.kind == "ratio":
            if t < 0:
                return _PASS_ALL
            (a, b, c), (d, e, g) = self.form(P, N)
            return _line(a - t * d, b - t * e, t * g - c, P, N)
        if self.kind == "mcc":
            return _PASS_ALL if t < 0 else _mcc_filter(t, P, N)
        if integer_counts and (int(P) + 1) * (int(N) + 1) <= BOUNDARY_SEARCH_CELLS:
            return _boundary_filter(self, t, int(P), int(N))
        return _PASS_ALL


def _linear(tp, fp, fn, tn):
    """``tp - fp``: with row weights, the signed linear objective ``sum_i c_i [premise holds on i]``."""
    return np.asarray(tp, dtype=np.float64) - np.asarray(fp, dtype=np.float64)


OBJECTIVES: dict[str, Objective] = {
    "f1": Objective("f1", f1, fractional=True, form=_f1_form),
    "jaccard": Objective("jaccard", jaccard, fractional=True, form=_jaccard_form),
    "precision": Objective("precision", precision, fractional=True, form=_precision_form),
    "accuracy": Objective("accuracy", accuracy, form=_accuracy_form),
    "balanced_accuracy": Objective("balanced_accuracy", balanced_accuracy, form=_balanced_accuracy_form),
    "recall": Objective("recall", recall, form=_recall_form),
    "mcc": Objective("mcc", mcc, kind="mcc"),
    "wracc": Objective("wracc", wracc, form=_wracc_form),
    "linear": Objective("linear", _linear, form=_linear_form),
}


def get_objective(
    objective: str | Objective | CountFunction, *, min_support: int | None = None
) -> Objective:
    """Resolve an objective by name, or wrap a callable ``f(tp, fp, fn, tn)``.

    Parameters
    ----------
    objective : str, Objective or callable
        One of ``OBJECTIVES`` (``"f1"``, ``"accuracy"``, ``"balanced_accuracy"``, ``"jaccard"``,
        ``"precision"``, ``"recall"``, ``"mcc"``, ``"wracc"``, ``"linear"``: ``tp - fp``), an :class:`Objective`, or a callable
        on count arrays returning scores (higher is better).
    min_support : int or float, optional
        Minimum number (or weight) of covered rows (``tp + fp``); smaller candidates score ``-inf``. Useful
        with precision, which a single covered positive row would otherwise maximize. When
        omitted, an :class:`Objective` keeps its own and a name or callable gets 0.

    Returns
    -------
    Objective

    Examples
    --------
    >>> get_objective("precision", min_support=10).min_support
    10
    """
    if min_support is not None and (isinstance(min_support, bool)
                                    or not isinstance(min_support, (int, float, np.integer, np.floating))
                                    or not np.isfinite(min_support) or min_support < 0):
        raise ValueError(f"min_support must be a finite non-negative number, got {min_support!r}")
    if isinstance(objective, Objective):
        base = objective
    elif isinstance(objective, str):
        try:
            base = OBJECTIVES[objective]
        except KeyError:
            known = ", ".join(sorted(OBJECTIVES))
            raise ValueError(f"unknown objective {objective!r}; known objectives: {known}") from None
    elif callable(objective):
        name = getattr(objective, "__name__", type(objective).__name__)
        base = Objective(name, objective)
    else:
        raise TypeError(f"objective must be a name or a callable, got {type(objective).__name__}")
    if min_support is None or min_support == base.min_support:
        return base
    return Objective(base.name, base.function, base.fractional, min_support, base.form, base.kind)
