"""scikit-learn classifier predicting with the provably best short premise.

:class:`OptimalPremiseClassifier` binarizes the data, runs :func:`find_best_premises` and predicts
positive where the best premise holds. Besides the rule it keeps what the search learned about
the data: the score, the per-size statistics (the FCA paper's Table 1) and the non-dominated
premises of each size on the true-positive / true-negative plane (the paper's figure, drawn by
:meth:`OptimalPremiseClassifier.plot_tp_tn`).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from logicrules.base import RuleClassifier
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import Counts
from logicrules.fca.premise.from_counts import find_best_premises_from_counts
from logicrules.fca.premise.search import find_best_premises
from logicrules.formula import Formula
from logicrules.memory import DEFAULT_MEMORY_LIMIT
from logicrules.metrics import OBJECTIVES
from logicrules.progress import tqdm_available
from logicrules.validation import Interval

__all__ = ["OptimalPremiseClassifier"]


class OptimalPremiseClassifier(RuleClassifier):
    """Predict with the premise of size <= ``max_size`` that maximizes an objective on training data.

    The premise space is ``P_1 = {m, not m}`` and ``P_k = {p AND q, p OR q : p in P_i,
    q in P_{k-i}}`` over the binarized attributes; the search is exhaustive and exact (see
    :func:`logicrules.fca.premise.search.find_best_premises`).

    Parameters
    ----------
    max_size : int, default 3
        Largest number of literals (1 to 4; 4 only for small attribute sets).
    objective : str or callable, default "f1"
        Objective of the confusion counts to maximize (any name of
        :mod:`logicrules.metrics` or a callable ``f(tp, fp, fn, tn)``).
    binarizer : str or transformer, default "quantile"
        ``"quantile"`` (:class:`~logicrules.fca.scaling.QuantileBinarizer`), ``"median"``,
        ``"threshold"`` (all-values scaling), ``"passthrough"`` (X already 0/1) or a
        transformer with ``fit``/``transform``/``get_feature_names_out``.
    negations : bool, default True
        Allow negated attributes as literals.
    top_k : int, default 1
        Number of best distinct premises to keep in ``premises_`` (the first one predicts).
    memory_limit : int or str, default 2 GiB
        Bytes the fit may allocate besides ``X``: the binarizer's data path (checked as every
        learner's, :mod:`logicrules.memory`) and the premise search, which covers its input
        copy, the packed bitsets, its tables and blocks and the torch backend's host side (see
        ``memory_limit`` of :func:`~logicrules.fca.premise.search.find_best_premises`).
    min_support : int, default 0
        Premises covering fewer training rows score -inf (useful with ``objective="precision"``).
    backend : {"auto", "numba", "torch"}, default "auto"
        Where the size-3 and size-4 scans count (same result): the compiled CPU loops, or
        PyTorch on ``device``; "auto" uses PyTorch when it is installed and a CUDA device is
        present.
    device : str, optional
        Device of the torch backend ("cuda", "cpu", ...).
    pos_label : label, optional
        The class the premise describes (predicted where it holds); ``classes_[1]`` when None.
    categorical : list of str or int, optional
        Input columns (names or positions) the binarizer one-hot encodes whatever their dtype,
        e.g. integer-coded categories (see :mod:`logicrules.fca.scaling`).
    verbose : int, default 0
        0: silent. 1 or more: progress of the fit on stderr (a tqdm bar when tqdm is installed,
        else one line per step; see :mod:`logicrules.progress`): the size-3 and size-4 scans of the search (tqdm only), or the classes of a multiclass target.
    time_limit : float, optional
        Seconds the premise search may take; it then stops with the best premise found and
        ``search_stats_.complete = False``. None: search to the end (exact optimum).

    Attributes
    ----------
    formula_ : Formula
        The best premise, over the binarized attribute names.
    score_ : float
        Its objective value on the training data.
    premises_ : list of PremiseResult
        The ``top_k`` best distinct premises, best first.
    search_stats_ : SearchStatistics
        Per-size work and timing; ``search_stats_.to_frame()`` is the paper's Table 1.
        ``search_stats_.complete`` is False when ``time_limit`` stopped the search (the rule is
        then the best premise found, not certified optimal); ``search_stats_.estimate`` the
        memory and work estimated before it started.
    pareto_ : dict of int -> DataFrame
        Per size k, the non-dominated premises of size <= k on the TP/TN plane (columns
        ``formula``, ``size``, ``tp``, ``tn``, ``score``): exact for k <= 2; for k = 3, 4 the
        larger premises considered are those the search scored exactly (near the optimum).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((200, 4)) < 0.5
    >>> y = X[:, 0] & (X[:, 1] | X[:, 2])
    >>> clf = OptimalPremiseClassifier(binarizer="passthrough").fit(X, y)
    >>> str(clf.formula_), clf.score_
    ('x0 AND (x1 OR x2)', 1.0)
    """

    _parameter_constraints: dict = {
        **RuleClassifier._parameter_constraints,
        "max_size": [Interval(Integral, 1, 4, closed="both")],
        "objective": [StrOptions(set(OBJECTIVES)), callable],
        "negations": ["boolean"],
        "top_k": [Interval(Integral, 1, None, closed="left")],
        "memory_limit": [Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0, None, closed="neither"), str, None],
        "min_support": [Interval(Integral, 0, None, closed="left")],
        "backend": [StrOptions({"auto", "numba", "torch"})],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "device": "no_validation",  # anything torch.device accepts, checked by torch
        "verbose": ["verbose"],
    }

    def __init__(self, *, max_size: int = 3, objective: Any = "f1", binarizer: Any = "quantile",
                 negations: bool = True, top_k: int = 1, memory_limit: Any = DEFAULT_MEMORY_LIMIT,
                 min_support: int = 0, backend: str = "auto", device: Any = None, pos_label: Any = None,
                 categorical: Any = None, verbose: int = 0, time_limit: float | None = None):
        self.max_size = max_size
        self.objective = objective
        self.binarizer = binarizer
        self.negations = negations
        self.top_k = top_k
        self.memory_limit = memory_limit
        self.min_support = min_support
        self.backend = backend
        self.device = device
        self.pos_label = pos_label
        self.categorical = categorical
        self.verbose = verbose
        self.time_limit = time_limit

    def _fit_formula(self, Xb: np.ndarray, y: np.ndarray, names: list[str], sample_weight=None) -> Formula:
        return self._search(pd.DataFrame(Xb, columns=list(names), copy=False), y, sample_weight)

    def _fit_packed(self, context: FormalContext, y: np.ndarray, weights: np.ndarray | None = None) -> Formula:
        """The search reads the packed context itself (no dense copy made here)."""
        return self._search(context, y, weights)

    def _search(self, X: Any, y: np.ndarray, sample_weight: np.ndarray | None = None) -> Formula:
        results, stats = find_best_premises(
            X, y, max_size=self.max_size, objective=self.objective, top_k=self.top_k,
            negations=self.negations, memory_limit=self.memory_limit, return_stats=True,
            min_support=self.min_support, pareto=True, backend=self.backend, device=self.device,
            sample_weight=sample_weight, time_limit=self.time_limit,
            progress=bool(self.verbose) and tqdm_available(),
        )
        self.premises_ = results
        self.score_ = results[0].score
        self.search_stats_ = stats
        self.pareto_ = {
            size: pd.DataFrame({
                "formula": [p.formula for p in front],
                "size": [p.size for p in front],
                "tp": [p.tp for p in front],
                "tn": [p.tn for p in front],
                "score": [p.score for p in front],
            })
            for size, front in (stats.pareto or {}).items()
        }
        self.n_positive_ = int(y.sum())
        self.n_negative_ = int((~y).sum())
        return results[0].formula

    def _fit_dask(self, X, y, sample_weight=None):
        """``fit`` on a dask DataFrame / Array X and a dask y partitioned alike: X is never materialized.

        The binarizer is fitted from distributed statistics
        (:func:`~logicrules.fca.dask_scaling.fit_binarizer`), the search reads counts over the
        partitions (:class:`~logicrules.fca.dask_counts.DaskCounts`, :meth:`_fit_counts`: sizes
        1-2 from summed Gram matrices, sizes 3-4 by counting passes), and ``rules_`` /
        ``cell_counts_`` come from the formula's type histogram (one more pass); the formula
        and predictions equal those of the same data fitted in memory. ``sample_weight`` (a
        dask Series / Array partitioned like X) weighs every count and the binarizer's
        thresholds; more than two classes give one premise per class (``estimators_``).
        """
        from sklearn.base import clone

        from logicrules.base import make_binarizer
        from logicrules.dask_fit import check_dask_fit_input, finish_from_counts, fit_one_vs_rest_from_dask
        from logicrules.fca.dask_counts import DaskCounts
        from logicrules.fca.dask_scaling import fit_binarizer

        X, target, weights, _ = check_dask_fit_input(self, X, y, sample_weight)
        spec = self.binarizer
        passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
        self.binarizer_ = None if passthrough else fit_binarizer(
            clone(make_binarizer(spec, categorical=self.categorical)), X, None, int(self.verbose), weights)

        def counts_of(labels):
            return DaskCounts(X, labels, self.binarizer_, weights, verbose=int(self.verbose))

        if len(self.classes_) > 2:
            names = list(counts_of(target == 0).attributes)
            conditions = self._conditions()

            def fit_class(sub, k):
                counts = counts_of(target == k)
                finish_from_counts(sub, sub._fit_counts(counts), names, counts, conditions=conditions)

            fit_one_vs_rest_from_dask(self, target, names, fit_class)
            return self
        counts = counts_of(target)
        formula = self._fit_counts(counts)
        finish_from_counts(self, formula, list(counts.attributes), counts)
        return self

    def _fit_counts(self, counts: Counts) -> Formula:
        """The search over counts alone: the route of a fit whose rows are chunks or dask partitions.

        :func:`~logicrules.fca.premise.from_counts.find_best_premises_from_counts` with this
        learner's settings (``backend``, ``device`` and ``verbose`` do not apply; a
        ``time_limit`` is refused, the counting passes cannot stop midway); the result equals
        the in-memory search's. ``search_stats_`` is None and ``pareto_`` empty (no per-size
        statistics or fronts are gathered from counts); ``n_positive_`` / ``n_negative_`` are
        the class totals (sums of weights when the counts are weighted).
        """
        if self.time_limit is not None:
            raise ValueError("time_limit is not supported when fitting from counts (chunked or dask data): "
                             "the counting passes run to the end; leave time_limit=None")
        results = find_best_premises_from_counts(
            counts, max_size=self.max_size, objective=self.objective, top_k=self.top_k, negations=self.negations,
            memory_limit=self.memory_limit, min_support=self.min_support)
        self.premises_ = results
        self.score_ = results[0].score
        self.search_stats_ = None
        self.pareto_ = {}
        self.n_positive_ = results[0].tp + results[0].fn
        self.n_negative_ = results[0].fp + results[0].tn
        return results[0].formula

    def plot_tp_tn(self, ax=None, iso_f1=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)):
        """Draw the non-dominated premises of each size on the TP-TN plane with F1 iso-lines.

        This is the FCA paper's figure: one colour per premise size, the chosen premise
        highlighted, and lines of equal F1 (``tn = P + N + tp - 2 tp / F1``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Axes to draw on (a new figure when None).
        iso_f1 : sequence of float
            F1 values of the iso-lines.

        Returns
        -------
        matplotlib Axes
        """
        from logicrules.plot import plot_tp_tn

        check_is_fitted(self, "pareto_")
        return plot_tp_tn(self, ax=ax, iso_f1=iso_f1)
