"""The ideal classifier method on dask data: every step from counts over partitions.

The steps of :mod:`logicrules.ideal.method` need only counts: the scorers read literal counts, the
empirical ideal DNF and its validation accuracy read type histograms. On a dask collection each
of them is one pass over the partitions (:class:`~logicrules.fca.dask_counts.DaskCounts`), and the
median binarizer is fitted from exact distributed statistics
(:func:`~logicrules.fca.dask_scaling.fit_binarizer`). The type histograms of every (l, scorer)
candidate, on the training and on the validation part, are counted together in one pass.

The validation split: row ``i`` of partition ``p`` is a validation row when
``numpy.random.default_rng([seed, p]).random(n_p)[i] < validation_size``
(:class:`~logicrules.fca.dask_counts.RowSplit`), where ``seed`` is ``random_state`` (an int; a
RandomState or None draws one). It is reproducible without materializing the data, given the
seed and the partitioning, but it is not the stratified split of the in-memory fit: fitted in
memory with that same split (:meth:`RowSplit.mask` of the partition lengths), the method gives
the same path, formula and predictions.

Passes of a fit: the classes (one), the stage binarizer (four to seven), literal counts and class
totals (two), all candidate histograms (one), the final binarizer (four to seven), the final type
histogram (one, more when ``max_rule_size`` asks for a shorter rule). ``verbose=1`` prints one
line per pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from logicrules.base import make_binarizer
from logicrules.dask_fit import check_dask_fit_input, finish_from_counts
from logicrules.fca.dask_counts import DaskCounts, RowSplit
from logicrules.fca.dask_scaling import fit_binarizer

__all__ = ["fit_ideal_from_dask", "split_seed"]


def split_seed(random_state: Any) -> int:
    """The seed of the dask validation split: ``random_state`` itself when an int, else drawn
    from it (a RandomState or Generator) or from fresh entropy (None).

    Examples
    --------
    >>> split_seed(7)
    7
    """
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    return int(np.random.SeedSequence().entropy % (2**31 - 1))


def fit_ideal_from_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """:meth:`IdealDNFClassifier.fit` on a dask DataFrame / Array X and a dask y (module notes)."""
    from logicrules.ideal.method import _map_features

    name = type(estimator).__name__
    if estimator.protocol == "paper":
        raise ValueError("protocol='paper' is not available on dask data (its validation part is the "
                         "last rows, and its mutual information needs the dense rows); use the default")
    if estimator.selection == "wrapper":
        raise ValueError("selection='wrapper' scores candidates row by row and is not available on dask "
                         "data; use selection='filter'")
    scorers = estimator._scorers()
    X, target = check_dask_fit_input(estimator, X, y, sample_weight)
    verbose = int(estimator.verbose)
    spec = estimator.binarizer
    passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
    split = RowSplit(estimator.validation_size, split_seed(estimator.random_state), "train")

    def binarized(rows):  # a fresh binarizer fitted on these rows from distributed statistics
        if passthrough:
            return None
        return fit_binarizer(clone(make_binarizer(spec, categorical=estimator.categorical)), X, rows, verbose)

    stage = binarized(split)  # fitted on the training part, applied to every row
    estimator.binarizer_ = stage
    both = DaskCounts(X, target, stage, n_classes=4, validation=split, verbose=verbose)  # y + 2 valid
    stage_names = list(both.attributes)
    estimator._check_attributes(stage_names)
    final = binarized(None)
    counts = DaskCounts(X, target, final, verbose=verbose)
    # the tie rule of the whole training data: class totals, and the first row for an exact tie
    totals = counts.class_totals()
    first = 2 * totals[1] == totals.sum() and _first_label(target)
    rule = estimator._tie_rule(np.array([first, not first]),  # two rows weighted as the two classes
                               np.array(totals[::-1] if first else totals, dtype=np.float64))
    stage_features = estimator._search(both, None, None, stage_names, scorers, rule)
    estimator.binarizer_ = final
    names = list(counts.attributes)
    estimator._check_attributes(names)
    while stage_features is not None:
        features = stage_features if passthrough else _map_features(stage, final, stage_features, names)
        estimator._fit_table(counts, None, names, features, rule)
        stage_features = estimator._shorter(names)
    finish_from_counts(estimator, estimator.formula_, names, counts, estimator.selected_features_)
    return estimator


def _first_label(target: Any) -> bool:
    """The (boolean) label of the first row of a dask Series / Array."""
    head = target.head(1, npartitions=-1) if hasattr(target, "head") else target[:1].compute()
    return bool(np.asarray(head).any())
