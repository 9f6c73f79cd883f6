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
- ``method="cg"`` (the default for rule sets, any ``max_term_size`` from 1 to 4): column
  generation from the partitions (:mod:`logicrules.lp.dask_colgen`): the first columns from
  column generation on a driver-held row sample, then the master over groups of positive rows
  (rows merged by their cover pattern over the pool) grown by row generation (a bounded number
  of the most violated groups per round), the exact pricing from counts of the duals over
  every row and of the negatives (Gram matrices, counting passes over the candidate triples
  and quadruples, :mod:`logicrules.lp.dask_gains`), the LP optimum over all rows certified as
  in memory; the rule set is the integer master's over its own pool, so it may differ from the
  in-memory one where the pools differ (the LP bound is the same).
- ``rule="m_of_n"``: the checklist LP of every m by row groups that the partitions rebuild
  and sum (:mod:`logicrules.lp.dask_mofn`), the same LP optimum as in memory, then the choice
  among its thresholds from level histograms counted over the partitions.

More than two classes: one rule per class against the others (``estimators_``), each fitted
from the partitions as above, as in memory (a ``class_weight`` dict becomes row weights, the cost
of each row's class, as in memory).

``sample_weight`` (a dask Series / Array partitioned like X) and ``class_weight`` are used as in
memory: the binarizer is fitted on the weighted rows, every count of the LP is a sum of weights
(merged rows weigh the sum of theirs), errors on each class cost its ``class_weight``, and the
weights are divided by the largest one when it lies outside ``[1e-6, 1e6]`` (one more pass, over
the weights, finds it); ``class_weight="balanced"`` takes one more pass (the class totals).
``lam="cv"``: the inner cross-validation over folds drawn inside the partitions
(:mod:`logicrules.lp.dask_cv`: the in-memory procedure on ``PartitionFolds``, not on
scikit-learn's ``StratifiedKFold``), every fold's fit from dask as above.

Passes of an OR/AND fit: the classes (one), the binarizer (four to seven), costs, sample, dual
extension, then one per row-generation round (the greedy cover's passes ride along), and the
rule's type histogram (one); ``verbose=1`` prints one line per pass.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np
from sklearn.base import clone

from logicrules.base import make_binarizer
from logicrules.dask_fit import check_dask_fit_input, finish_from_counts, fit_one_vs_rest_from_dask
from logicrules.distributed import import_dask
from logicrules.fca.context import FormalContext
from logicrules.fca.dask_counts import DaskCounts
from logicrules.fca.dask_scaling import fit_binarizer
from logicrules.ideal.split import split_seed
from logicrules.lp.dask_clause import learn_rule_set_on_partitions, solve_clause_on_partitions
from logicrules.lp.dask_colgen import learn_rule_set_cg_on_partitions
from logicrules.lp.dask_cv import choose_lam_on_partitions
from logicrules.lp.dask_mofn import learn_checklist_on_partitions
from logicrules.lp.structure import _predict_structure, _structure_size
from logicrules.memory import MemoryBudget

__all__ = ["fit_lp_from_dask"]


def _objective(counts: DaskCounts, names: list[str], rule: str, structure: Any, lam_abs: float,
               costs: tuple[float, float], per_term: bool = False) -> float:
    """The training objective of a clause, rule set or checklist (``lam_abs`` per literal, and per term
    with ``per_term``: column generation; ``costs`` per error on class 1 and on class 0,
    weighted), as the in-memory fit computes it, from the type histogram of its literals (the
    pass that ``rules_`` reuses)."""
    literals = structure[0] if rule == "m_of_n" else structure
    columns = sorted({int(j) for j in (np.concatenate([np.asarray(t) for t in structure]) if rule in ("dnf", "cnf")
                                          and len(structure) else np.asarray(literals, dtype=np.intp))})
    histogram = counts.type_histogram([names[j] for j in columns])
    position = {j: k for k, j in enumerate(columns)}
    local = ([np.array([position[int(j)] for j in t], dtype=np.intp) for t in structure] if rule in ("dnf", "cnf")
             else np.array([position[int(j)] for j in literals], dtype=np.intp))
    if rule == "m_of_n":
        local = (local, structure[1])
    fires = _predict_structure(rule, local, FormalContext(histogram.patterns))
    missed, false_alarms = histogram.counts[1][~fires].sum(), histogram.counts[0][fires].sum()
    size = _structure_size(rule, structure) + (len(structure) if per_term else 0)
    return float(lam_abs * size + costs[0] * float(missed) + costs[1] * float(false_alarms))


def _class_index_costs(part: Any, costs: np.ndarray, weights: Any = None) -> Any:
    """The cost of each row's class (times its weight) in a partition of class indices."""
    import pandas as pd

    values = costs[np.asarray(part)] * (1.0 if weights is None else np.asarray(weights, dtype=np.float64))
    return pd.Series(values, index=part.index) if isinstance(part, pd.Series) else values


def _costed_weights(estimator: Any, target: Any, weights: Any) -> Any:
    """A ``class_weight`` dict of a multiclass fit as row weights (lazy, partitioned like y): the
    cost of each row's class times its weight, as ``_fit_one_vs_rest`` in memory."""
    da, dd = import_dask()
    class_weight = estimator.class_weight
    unknown = set(class_weight) - set(estimator.classes_.tolist())
    if unknown:
        raise ValueError(f"class_weight has labels not in y: {sorted(map(str, unknown))}; "
                         f"the classes are {estimator.classes_.tolist()}")
    costs = np.array([float(class_weight.get(c, 1.0)) for c in estimator.classes_.tolist()])
    if isinstance(target, dd.Series):
        args = (target,) if weights is None else (target, weights)
        return dd.map_partitions(lambda t, w=None: _class_index_costs(t, costs, w), *args, meta=(None, np.float64))
    if weights is None:
        return target.map_blocks(_class_index_costs, costs, dtype=np.float64)
    if isinstance(weights, dd.Series):
        weights = weights.to_dask_array(lengths=True)
    return da.map_blocks(_class_index_costs, target, costs, weights.rechunk((target.chunks[0],)), dtype=np.float64)


def fit_lp_from_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """:meth:`LPRuleClassifier.fit` on a dask DataFrame / Array X and a dask y (module notes)."""
    X, target, weights, _ = check_dask_fit_input(estimator, X, y, sample_weight)
    verbose = int(estimator.verbose)
    spec = estimator.binarizer
    passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
    binarizer = None if passthrough else fit_binarizer(
        clone(make_binarizer(spec, categorical=estimator.categorical)), X, None, verbose, weights)
    estimator.binarizer_ = binarizer
    if len(estimator.classes_) > 2:  # one rule per class, as in memory
        names = list(DaskCounts(X, target == 0, binarizer).attributes)
        conditions = estimator._conditions()
        if isinstance(estimator.class_weight, dict):
            weights = _costed_weights(estimator, target, weights)

        def fit_class(sub, k):
            _fit_binary(sub, X, target == k, weights, binarizer, conditions)

        fit_one_vs_rest_from_dask(estimator, target, names, fit_class)
        return estimator
    _fit_binary(estimator, X, target, weights, binarizer)
    return estimator


def _lp_weights(estimator: Any, weights: Any) -> tuple[Any, bool]:
    """The weights the LP reads: divided by the largest when it lies outside the solver's range,
    as in memory (one pass over the weights); and whether they were."""
    import dask

    if weights is None:
        return None, False
    (largest,) = dask.compute(weights.max())
    divisor = estimator._weight_divisor(float(largest))
    return (weights, False) if divisor == 1.0 else (weights / divisor, True)


def _error_costs(estimator: Any, counts: DaskCounts) -> tuple[float, float]:
    """``(cost of an error on class 1, on class 0)`` as ``_class_costs`` in memory; "balanced"
    from the (weighted) class totals, one pass: the costs of two rows weighing the totals."""
    if estimator.class_weight == "balanced":
        totals = counts.class_totals().astype(np.float64)
        return estimator._class_costs(np.array([True, False]), totals[::-1])
    return estimator._class_costs(None)


def _fit_binary(estimator: Any, X: Any, target: Any, weights: Any, binarizer: Any,
                conditions: dict | None = None) -> None:
    """The two-class rule from counts over partitions (module notes), finished with ``rules_``
    and ``cell_counts_`` (``conditions``: the literals' conditions of a per-class rule)."""
    verbose = int(estimator.verbose)
    lp_weights, scaled = _lp_weights(estimator, weights)
    counts = DaskCounts(X, target, binarizer, lp_weights, verbose=verbose)
    names = list(counts.attributes)
    budget = MemoryBudget(estimator.memory_limit)
    estimator._budget = budget
    start = time.perf_counter()
    fold_counts: list[DaskCounts] = []
    with budget.active():  # the sample, the reduced problems and the solvers' models are checked
        costs = _error_costs(estimator, counts)
        negated = np.array([getattr(estimator._conditions().get(name), "op", None) == "!=" for name in names],
                           dtype=bool)
        warm = ()
        if isinstance(estimator.lam, str):
            def counts_of(reweight):
                for done in fold_counts:  # the bits of one fold's counts kept on the workers at a time
                    done.release()
                fold_counts.append(DaskCounts(X, target, binarizer, lp_weights, verbose=verbose, reweight=reweight))
                return fold_counts[-1]

            smallest = int(min(_rows_per_class(counts)))
            estimator.lam_, warm = choose_lam_on_partitions(
                estimator._lam_grid(), functools.partial(_predict_structure, estimator.rule), smallest,
                split_seed(estimator.random_state), counts_of,
                lambda fold, lam, initial: _learn(estimator, fold, names, lam, costs, negated, initial)[:2],
                estimator._column_generation(), verbose)
        else:
            estimator.lam_ = float(estimator.lam)
        structure, fits, lam_abs = _learn(estimator, counts, names, estimator.lam_, costs, negated, warm)
        objective = _objective(counts, names, estimator.rule, structure, lam_abs, costs, estimator._column_generation())
    formula = estimator._store_fit(structure, fits, objective, names, time.perf_counter() - start)
    estimator.lp_result_["n_passes"] = counts.n_passes + sum(c.n_passes for c in fold_counts)
    finish = DaskCounts(X, target, binarizer, weights, verbose=verbose) if scaled else counts
    finish_from_counts(estimator, formula, names, finish, conditions=conditions)


def _rows_per_class(counts: DaskCounts) -> np.ndarray:
    """Rows of positive weight per class (a pass; the class totals without weights)."""
    return (counts.unweighted() if counts.weighted else counts).class_totals()


def _learn(estimator: Any, counts: DaskCounts, names: list[str], lam: float, costs: tuple[float, float],
           negated: np.ndarray, initial_terms: tuple = ()) -> tuple:
    """The structure of one lam from the counts (``estimator._learn`` in memory): ``(structure,
    fits, lam_abs)``."""
    rule = estimator.rule
    if rule in ("or", "and") or (rule in ("dnf", "cnf") and estimator.method == "covering"):
        options = dict(row_sampling=estimator.row_sampling, seed=split_seed(estimator.random_state),
                       solver=estimator.solver, screening=estimator.screening, rounding=estimator.rounding,
                       time_limit=estimator.time_limit, error_costs=costs)
        if rule in ("or", "and"):
            fit, lam_abs = solve_clause_on_partitions(counts, lam, complement=rule == "and", **options)
            structure, fits = fit.columns, [fit]
        else:
            rule_set, lam_abs = learn_rule_set_on_partitions(counts, lam, int(estimator.max_clauses),
                                                             cnf=rule == "cnf", **options)
            structure, fits = rule_set.terms, rule_set.fits
        return structure, fits, lam_abs
    if estimator._column_generation():
        fit, lam_abs = learn_rule_set_cg_on_partitions(
            counts, lam, cnf=rule == "cnf", error_costs=costs, max_size=int(estimator.max_term_size),
            budget=estimator.budget, literal_cost=lambda lam_abs: estimator._literal_cost(lam_abs, negated),
            row_sampling=estimator.row_sampling, seed=split_seed(estimator.random_state), solver=estimator.solver,
            time_limit=estimator.time_limit,
            **estimator._mip_limits(), initial_terms=initial_terms)
        return fit.terms, [fit], lam_abs
    totals = counts.class_totals()
    lam_abs = lam * (costs[0] * float(totals[1]) + costs[1] * float(totals[0]))
    fit = learn_checklist_on_partitions(counts, lam_abs, max_m=int(estimator.max_m), weights=costs,
                                        rounding=estimator.rounding, time_limit=estimator.time_limit)
    return (fit.columns, fit.m), [fit], lam_abs
