""":meth:`LPRuleClassifier.fit` on dask data: the LP from passes over the partitions.

The binarizer is fitted from distributed statistics
(:func:`~logicrules.fca.dask_scaling.fit_binarizer`) and the rows are read through
:class:`~logicrules.fca.dask_counts.DaskCounts` partition by partition; X is never materialized.

- ``rule="or"`` / ``"and"``: the clause LP by the paper's row sampling, exact
  (:mod:`logicrules.lp.dask_clause`): a sample of the constraint rows on the driver, its dual
  extended over the partitions, the columns screened on the full data, and the reduced problem
  solved over merged rows by row generation. The LP optimum is that of the same data in memory;
  the rule is chosen from it as in memory (so it is the in-memory rule unless the LP has several
  optimal solutions and the solver returns another of them). Driver memory: the sample (10% of
  the constraint rows, at most :data:`~logicrules.lp.dask_clause.DASK_SAMPLE_ROWS`, or the
  ``row_sampling`` fraction) and the distinct patterns of the reduced problem.
- ``rule="dnf"`` / ``"cnf"`` / ``"m_of_n"``: these learners read the distinct rows of both
  classes, so the partitions send their distinct binarized rows with counts (merged by the tree
  sum) and the in-memory learner runs on them: the same rule as in memory. The driver must hold
  the distinct rows, checked against ``memory_limit`` (bounded by the rows and by ``2**m``)
  before they are gathered; data with many distinct rows is refused with a MemoryLimitError.

Not on dask data (a clear error says so): ``sample_weight``, ``class_weight``, ``lam="cv"``,
multiclass targets. Passes of an OR/AND fit: the classes (one), the binarizer (four to seven),
costs, sample, dual extension, then one per row-generation round (the greedy cover's passes ride
along), and the rule's type histogram (one); ``verbose=1`` prints one line per pass.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import clone

from logicrules.base import make_binarizer
from logicrules.dask_fit import check_dask_fit_input, finish_from_counts
from logicrules.fca.context import FormalContext
from logicrules.fca.dask_counts import DaskCounts
from logicrules.fca.dask_scaling import fit_binarizer
from logicrules.ideal.dask_fit import split_seed
from logicrules.lp.dask_clause import solve_clause_on_partitions
from logicrules.lp.data import merged_data
from logicrules.memory import MemoryBudget

__all__ = ["fit_lp_from_dask"]


def _check_supported(estimator: Any) -> None:
    if isinstance(estimator.lam, str):
        raise ValueError("lam='cv' is not available on dask data (its inner cross-validation refits on row "
                         "subsets); pass a number, e.g. one chosen with lam='cv' on a sample in memory")
    if estimator.class_weight is not None:
        raise ValueError("class_weight is not supported on dask data; fit with class_weight=None, or on data "
                         "in memory")


def _clause_objective(counts: DaskCounts, names: list[str], columns: np.ndarray, conjunction: bool,
                      lam_abs: float) -> float:
    """The training objective of a clause (``lam_abs`` per literal, one per error) from the
    type histogram of its literals (the pass that ``rules_`` reuses)."""
    histogram = counts.type_histogram([names[j] for j in sorted(columns)])
    patterns = histogram.patterns
    fires = patterns.all(axis=1) if conjunction else patterns.any(axis=1)
    missed, false_alarms = histogram.counts[1][~fires].sum(), histogram.counts[0][fires].sum()
    return float(lam_abs * len(columns) + 1.0 * float(missed) + 1.0 * float(false_alarms))


def fit_lp_from_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """:meth:`LPRuleClassifier.fit` on a dask DataFrame / Array X and a dask y (module notes)."""
    _check_supported(estimator)
    X, target = check_dask_fit_input(estimator, X, y, sample_weight)
    verbose = int(estimator.verbose)
    spec = estimator.binarizer
    passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
    estimator.binarizer_ = None if passthrough else fit_binarizer(
        clone(make_binarizer(spec, categorical=estimator.categorical)), X, None, verbose)
    counts = DaskCounts(X, target, estimator.binarizer_, verbose=verbose)
    names = list(counts.attributes)
    budget = MemoryBudget(estimator.memory_limit)
    estimator._budget = budget
    estimator.lam_ = float(estimator.lam)
    start = time.perf_counter()
    with budget.active():  # the sample, the reduced problems and the solvers' models are checked
        if estimator.rule in ("or", "and"):
            fit, lam_abs = solve_clause_on_partitions(
                counts, estimator.lam_, complement=estimator.rule == "and", row_sampling=estimator.row_sampling,
                seed=split_seed(estimator.random_state), solver=estimator.solver, screening=estimator.screening,
                rounding=estimator.rounding, time_limit=estimator.time_limit)
            objective = _clause_objective(counts, names, fit.columns, estimator.rule == "and", lam_abs)
            formula = estimator._store_fit(fit.columns, [fit], objective, names, time.perf_counter() - start)
            estimator.lp_result_["n_passes"] = counts.n_passes
            finish_from_counts(estimator, formula, names, counts)
            return estimator
        totals = counts.class_totals()
        bound = min(float(totals.sum()), 2.0 ** min(len(names), 62))
        estimator._require_rows(bound, len(names), "the distinct rows of both classes, gathered from the "
                                "partitions for a rule set or checklist on dask data")
        Xb, labels, weights = merged_data(counts)
        lam_abs = estimator.lam_ * (1.0 * float(totals[1]) + 1.0 * float(totals[0]))
        conditions = estimator._conditions()
        negated = np.array([getattr(conditions.get(name), "op", None) == "!=" for name in names], dtype=bool)
        structure, fits = estimator._learn_merged(Xb, labels, weights, lam_abs, (1.0, 1.0), negated)
        context = FormalContext(Xb, attributes=names)
        objective = estimator._training_objective(context, labels, structure, (1.0, 1.0), weights)
    formula = estimator._store_fit(structure, fits, objective, names, time.perf_counter() - start)
    estimator.lp_result_["n_passes"] = counts.n_passes
    estimator._finish_fit(formula, names, context, labels, row_counts=weights)
    return estimator
