""":meth:`LPRuleClassifier.fit` on dask data: the LP from passes over the partitions.

The binarizer is fitted from distributed statistics
(:func:`~logicrules.fca.dask_scaling.fit_binarizer`) and the rows are read through
:class:`~logicrules.fca.dask_counts.DaskCounts` partition by partition; X is never materialized.

- ``rule="or"`` / ``"and"``: the clause LP by the paper's row sampling, exact
  (:mod:`logicrules.lp.dask_clause`): a sample of the constraint rows on the driver, its dual
  extended over the partitions, the columns screened on the full data, and the reduced problem
  solved over merged rows by row generation. The LP optimum is that of the same data in memory;
  the rule is chosen from it as in memory, so it is the in-memory rule unless the LP has several
  optimal solutions and the solver returns another one (whose rounding may differ; with
  ``rounding="exact"``: another optimal rule of the integer program). Driver memory: the sample (10% of
  the constraint rows, at most :data:`~logicrules.lp.dask_clause.DASK_SAMPLE_ROWS`, or the
  ``row_sampling`` fraction) and the distinct patterns of the reduced problem.
- ``rule="dnf"`` / ``"cnf"`` with ``method="covering"``: sequential covering, one such clause
  LP per term (:func:`~logicrules.lp.dask_clause.learn_rule_set_on_partitions`).
- ``method="cg"`` (the default for rule sets) and ``rule="m_of_n"``: these learners read the
  distinct rows of both classes, so the partitions send their distinct binarized rows with counts
  (merged by the tree sum) and the in-memory learner runs on them: the same rule as in memory.
  The driver must hold the distinct rows, checked against ``memory_limit`` (bounded by the rows
  and by ``2**m``) before they are gathered; data with many distinct rows is refused with a
  MemoryLimitError.

More than two classes: one rule per class against the others (``estimators_``), each fitted
from the partitions as above, as in memory. Not on dask data (a clear error says so):
``sample_weight``, ``class_weight``, ``lam="cv"``. Passes of an OR/AND fit: the classes (one), the binarizer (four to seven),
costs, sample, dual extension, then one per row-generation round (the greedy cover's passes ride
along), and the rule's type histogram (one); ``verbose=1`` prints one line per pass.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import clone

from logicrules.base import make_binarizer
from logicrules.dask_fit import check_dask_fit_input, finish_from_counts, fit_one_vs_rest_from_dask
from logicrules.fca.context import FormalContext
from logicrules.fca.dask_counts import DaskCounts
from logicrules.fca.dask_scaling import fit_binarizer
from logicrules.ideal.split import split_seed
from logicrules.lp.dask_clause import learn_rule_set_on_partitions, solve_clause_on_partitions
from logicrules.lp.data import distinct_rows_bytes, merged_data
from logicrules.lp.structure import _predict_structure, _structure_size
from logicrules.memory import MemoryBudget

__all__ = ["fit_lp_from_dask"]


def _check_supported(estimator: Any) -> None:
    if isinstance(estimator.lam, str):
        raise ValueError("lam='cv' is not available on dask data (its inner cross-validation refits on row "
                         "subsets); pass a number, e.g. one chosen with lam='cv' on a sample in memory")
    if estimator.class_weight is not None:
        raise ValueError("class_weight is not supported on dask data; fit with class_weight=None, or on data "
                         "in memory")


def _objective(counts: DaskCounts, names: list[str], rule: str, structure: Any, lam_abs: float) -> float:
    """The training objective of a clause or covering rule set (``lam_abs`` per literal, one per
    error), as the in-memory fit computes it, from the type histogram of its literals (the pass
    that ``rules_`` reuses)."""
    columns = sorted({int(j) for j in (np.concatenate([np.asarray(t) for t in structure]) if rule in ("dnf", "cnf")
                                          and len(structure) else np.asarray(structure, dtype=np.intp))})
    histogram = counts.type_histogram([names[j] for j in columns])
    position = {j: k for k, j in enumerate(columns)}
    local = ([np.array([position[int(j)] for j in t], dtype=np.intp) for t in structure] if rule in ("dnf", "cnf")
             else np.array([position[int(j)] for j in structure], dtype=np.intp))
    fires = _predict_structure(rule, local, FormalContext(histogram.patterns))
    missed, false_alarms = histogram.counts[1][~fires].sum(), histogram.counts[0][fires].sum()
    return float(lam_abs * _structure_size(rule, structure) + 1.0 * float(missed) + 1.0 * float(false_alarms))


def fit_lp_from_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """:meth:`LPRuleClassifier.fit` on a dask DataFrame / Array X and a dask y (module notes)."""
    _check_supported(estimator)
    if sample_weight is not None:
        raise TypeError("LPRuleClassifier.fit does not accept sample_weight with dask input; fit on data "
                        "in memory for weighted rows")
    X, target, _, _ = check_dask_fit_input(estimator, X, y)
    verbose = int(estimator.verbose)
    spec = estimator.binarizer
    passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
    estimator.binarizer_ = None if passthrough else fit_binarizer(
        clone(make_binarizer(spec, categorical=estimator.categorical)), X, None, verbose)
    if len(estimator.classes_) > 2:  # one rule per class, as in memory
        names = list(DaskCounts(X, target == 0, estimator.binarizer_).attributes)
        conditions = estimator._conditions()

        def fit_class(sub, k):
            _fit_binary(sub, DaskCounts(X, target == k, estimator.binarizer_, verbose=verbose), names, conditions)

        fit_one_vs_rest_from_dask(estimator, target, names, fit_class)
        return estimator
    counts = DaskCounts(X, target, estimator.binarizer_, verbose=verbose)
    _fit_binary(estimator, counts, list(counts.attributes))
    return estimator


def _fit_binary(estimator: Any, counts: DaskCounts, names: list[str], conditions: dict | None = None) -> None:
    """The two-class rule from counts over partitions (module notes), finished with ``rules_``
    and ``cell_counts_`` (``conditions``: the literals' conditions of a per-class rule)."""
    budget = MemoryBudget(estimator.memory_limit)
    estimator._budget = budget
    estimator.lam_ = float(estimator.lam)
    start = time.perf_counter()
    with budget.active():  # the sample, the reduced problems and the solvers' models are checked
        rule = estimator.rule
        if rule in ("or", "and") or (rule in ("dnf", "cnf") and estimator.method == "covering"):
            options = dict(row_sampling=estimator.row_sampling, seed=split_seed(estimator.random_state),
                           solver=estimator.solver, screening=estimator.screening, rounding=estimator.rounding,
                           time_limit=estimator.time_limit)
            if rule in ("or", "and"):
                fit, lam_abs = solve_clause_on_partitions(counts, estimator.lam_, complement=rule == "and", **options)
                structure, fits = fit.columns, [fit]
            else:
                rule_set, lam_abs = learn_rule_set_on_partitions(counts, estimator.lam_, int(estimator.max_clauses),
                                                                 cnf=rule == "cnf", **options)
                structure, fits = rule_set.terms, rule_set.fits
            objective = _objective(counts, names, rule, structure, lam_abs)
            formula = estimator._store_fit(structure, fits, objective, names, time.perf_counter() - start)
            estimator.lp_result_["n_passes"] = counts.n_passes
            finish_from_counts(estimator, formula, names, counts, conditions=conditions)
            return
        totals = counts.class_totals()
        bound = min(float(totals.sum()), 2.0 ** min(len(names), 62))
        budget.require(distinct_rows_bytes(bound, len(names)),
                       f"rule={estimator.rule!r} on dask data gathers the distinct binarized rows of both classes "
                       f"on the driver (up to {int(bound)} x {len(names)} cells)",
                       "rule='or' and rule='and' fit from dask at any size (row sampling); for a rule set use "
                       "a binarizer with fewer attributes, or fit on a sample in memory")
        Xb, labels, weights = merged_data(counts)
        lam_abs = estimator.lam_ * (1.0 * float(totals[1]) + 1.0 * float(totals[0]))
        negated = np.array([getattr(estimator._conditions().get(name), "op", None) == "!=" for name in names],
                           dtype=bool)
        structure, fits = estimator._learn_merged(Xb, labels, weights, lam_abs, (1.0, 1.0), negated)
        context = FormalContext(Xb, attributes=names)
        objective = estimator._training_objective(context, labels, structure, (1.0, 1.0), weights)
    formula = estimator._store_fit(structure, fits, objective, names, time.perf_counter() - start)
    estimator.lp_result_["n_passes"] = counts.n_passes
    estimator._finish_fit(formula, names, context, labels, conditions=conditions, row_counts=weights)
