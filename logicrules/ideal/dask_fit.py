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
RandomState or None draws one) and ``n_p`` the partition's rows of positive weight. It is
reproducible without materializing the data, given the seed and the partitioning, but it is not
the stratified split of the in-memory fit: fitted in memory with that same split
(:meth:`RowSplit.mask` of the partition lengths), the method gives the same path, formula and
predictions. ``protocol="paper"``'s split, the last ``ceil(validation_size n)`` rows in partition
order (:class:`TailSplit`, one more pass to count the rows of each partition), is the in-memory
one itself.

What is exact through counts, and so supported: ``sample_weight`` (a dask Series / Array
partitioned like X: weighted medians, weighted counts; rows of weight 0 left out), more than two
classes (the native K-class classifier from per-class counts, or ``multiclass="ovr"``: one ideal
DNF per class against the others, from the counts of each), ``protocol="paper"`` with the
count-based scorers, and ``selection="wrapper"`` (:mod:`logicrules.ideal.wrapper_counts`: two
passes per feature added, every candidate counted in the first). Refused with a ValueError:
``protocol="paper"`` with ``"mutual_info"`` (the authors' scikit-learn nearest-neighbour
estimate on the dense rows, not a function of counts) and ``split="values"``. With fractional
weights the accuracies are sums in another order than in memory, so an exact tie between
candidates may break the other way (integer weights: exact).

Passes of a fit: the stage and the final binarizer together, the classes of y found in their first
pass (two for the median binarizer on numeric columns, up to seven with heavy ties or categorical
columns: see :mod:`~logicrules.fca.dask_scaling`; the classes take a pass of their own without a
binarizer, with ``protocol="paper"`` and with ``multiclass="ovr"``), literal counts and class
totals (one), all candidate
histograms, on the split and on the final binarization (one); one more for each shorter rule
``max_rule_size`` asks for, and with weights one for the rule statistics counted in rows.
``verbose=1`` prints one line per pass. When the packed bits are kept on the workers (under a
``distributed`` Client, see :class:`~logicrules.fca.dask_counts.DaskCounts`' ``persist``), the
radix pass of the binarizers also keeps a sketch of every partition
(:mod:`~logicrules.fca.dask_sketch`), and the counts' first pass packs the bits from it: a
median fit of a numeric table then produces (reads, generates) every partition twice, not three
times.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from logicrules.base import make_binarizer
from logicrules.dask_fit import (begin_dask_fit, classes_pass, finish_from_counts, fit_one_vs_rest_from_dask,
                                 histogram_rows)
from logicrules.fca.count_kernels import _class_totals, _literal_counts
from logicrules.fca.dask_counts import DaskCounts, RowSplit, _persisting, delayed_parts
from logicrules.fca.dask_scaling import fit_binarizers
from logicrules.fca.dask_sketch import SketchKeeper
from logicrules.ideal.binarization import map_features
from logicrules.ideal.split import split_seed

__all__ = ["fit_ideal_from_dask", "split_seed"]


class TailSplit:
    """``protocol="paper"``'s split of rows in partitions: the last ``n_valid`` rows (in partition
    order) are the validation part, as the authors' code takes the last rows of the table.

    Parameters
    ----------
    n_valid : int
    lengths : sequence of int
        Rows of each partition.
    part : {"train", "validation"}
        Which rows the split keeps when called.
    """

    def __init__(self, n_valid: int, lengths: list[int], part: str = "train") -> None:
        self.n_valid, self.part = int(n_valid), part
        self.starts = np.cumsum([0, *lengths])[:-1]
        self.n_rows = int(sum(lengths))

    def validation(self, number: int, n: int) -> np.ndarray:
        """Validation rows of partition ``number`` of ``n`` rows (bool mask)."""
        return self.starts[number] + np.arange(int(n)) >= self.n_rows - self.n_valid

    def __call__(self, number: int, n: int) -> np.ndarray:
        valid = self.validation(number, n)
        return valid if self.part == "validation" else ~valid


def _validation_split(estimator: Any, target: Any) -> RowSplit | TailSplit:
    """The dask fit's validation split (module notes); the paper's counts the rows per partition
    (one pass over the target)."""
    if estimator.protocol != "paper":
        return RowSplit(estimator.validation_size, split_seed(estimator.random_state), "train")
    import dask

    lengths = [int(n) for n in dask.compute(*[dask.delayed(len)(part) for part in delayed_parts(target)])]
    return TailSplit(int(np.ceil(estimator.validation_size * sum(lengths))), lengths)


def fit_ideal_from_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """:meth:`IdealDNFClassifier.fit` on a dask DataFrame / Array X and a dask y (module notes)."""
    if estimator.protocol == "paper" and "mutual_info" in estimator._scorers():
        raise ValueError("protocol='paper' ranks by scikit-learn's mutual_info_classif, a nearest-neighbour "
                         "estimate on the dense rows that no count gives: on dask data use protocol='paper' "
                         "with scorers=('f_classif', 'chi2'), or the default protocol")
    verbose = int(estimator.verbose)
    spec = estimator.binarizer
    passthrough = spec is None or (isinstance(spec, str) and spec == "passthrough")
    tasks, finish, weights = begin_dask_fit(estimator, X, y, sample_weight)
    found: list[Any] = []  # (X, target, weights, first) once the classes are known
    if passthrough or estimator.protocol == "paper" or estimator.multiclass == "ovr":
        # the classes first: the paper's split counts y's rows, one-vs-rest fits one binarizer, not two
        found[:] = classes_pass(estimator, tasks, finish)
        split = _validation_split(estimator, found[1])
    else:  # the split needs no labels: the classes come with the binarizers' first pass
        split = _validation_split(estimator, None)

    def binarized(*rows, keep=None):  # fresh binarizers fitted on these rows from distributed statistics,
        # in shared passes (``keep``: a SketchKeeper)
        if passthrough:
            return [None] * len(rows)
        first_pass = None if found else (tasks, lambda computed: found.extend(finish(computed)), "classes")
        return fit_binarizers([(clone(make_binarizer(spec, categorical=estimator.categorical)), r) for r in rows],
                              X, verbose, weights, first_pass, keep)

    if found and len(estimator.classes_) > 2 and estimator.multiclass == "ovr":  # one ideal DNF per class
        (final,) = binarized(None)
        X, target, weights, first = found
        estimator.binarizer_ = final
        names = list(DaskCounts(X, target == 0, final).attributes)
        estimator._check_attributes(names)
        conditions = estimator._conditions()
        fit_one_vs_rest_from_dask(estimator, target, names, lambda sub, k: _fit_rule(
            sub, X, target == k, weights, final, final, split, bool(first[0] == k), verbose, conditions))
        return estimator
    # the partitions sketched in the radix pass, so that the counts' first pass need not produce them
    keeper = SketchKeeper(lambda: found[1]) if _persisting(None) else None
    stage, final = binarized(split, None, keep=keeper)  # the stage's fitted on the training part, applied to every row
    X, target, weights, first = found
    estimator.binarizer_ = stage
    first_positive = len(estimator.classes_) == 2 and estimator.classes_[first[0]] == estimator.pos_label_
    _fit_rule(estimator, X, target, weights, stage, final, split, first_positive if len(estimator.classes_) == 2
              else first, verbose, sketches=None if keeper is None else keeper.take())
    return estimator


def _fit_rule(estimator: Any, X: Any, target: Any, weights: Any, stage: Any, final: Any, split: Any,
              first: Any, verbose: int, conditions: dict | None = None, sketches: Any = None) -> None:
    """Steps 2-7 from counts: the path on the split (attributes of ``stage``), the chosen rule on
    all rows (attributes of ``final``), its statistics. ``first``: whether the first row is
    positive (two classes), or the class indices in order of appearance (more). ``conditions``:
    a one-vs-rest copy's literals, the parent's (its own binarizer is None then). ``sketches``:
    the partitions' sketches of the binarizers' radix pass (:mod:`~logicrules.fca.dask_sketch`)."""
    K = len(estimator.classes_)
    both = DaskCounts(X, target, stage, weights, n_classes=2 * K, validation=split, verbose=verbose,  # y + K valid
                      sketches=sketches)
    stage_names = list(both.attributes)
    estimator._check_attributes(stage_names)
    counts = DaskCounts(X, target, final, weights, n_classes=K, verbose=verbose, sketches=sketches)
    del sketches  # the counts hold them until their first pass packs the blocks
    # the class totals of both countings and the training part's literal counts in one pass
    both.prefetch([_class_totals, _literal_counts], also=[counts])
    totals = counts.class_totals()
    if K == 2:  # the tie rule of the whole training data: two rows weighted as the two classes
        rule = estimator._tie_rule(np.array([first, not first]), np.array(totals[::-1] if first else totals,
                                                                          dtype=np.float64))
    else:  # the class priority: each class once in order of appearance, weighted by its total
        rule = estimator._tie_rule(np.asarray(first), np.asarray(totals, dtype=np.float64)[first])
    names = list(counts.attributes)

    def final_columns(columns):  # the final binarization's attributes of a candidate (None: not all there)
        if stage is final:
            return [stage_names[c] for c in columns]
        try:
            return map_features(stage, final, [stage_names[c] for c in columns], names)
        except ValueError:
            return None

    both.follow(counts, final_columns)  # the candidates' final histograms in the pass of the stage's
    stage_features = estimator._search(both, None, None, stage_names, scorers=estimator._scorers(), rule=rule)
    estimator.binarizer_ = None if conditions is not None else final
    estimator._check_attributes(names)
    while stage_features is not None:
        features = stage_features if stage is final else map_features(stage, final, stage_features, names)
        estimator._fit_table(counts, None, names, features, rule)
        stage_features = estimator._shorter(names)
    if K == 2:
        finish_from_counts(estimator, estimator.formula_, names, counts, estimator.selected_features_, conditions)
    else:
        _finish_native(estimator, names, counts)


def _finish_native(estimator: Any, names: list[str], counts: Any) -> None:
    """A native multiclass fit's ``_finish`` from counts: every class's formula simplified on the
    binarizer's domain, ``rules_`` from the type histogram of the selected attributes."""
    from logicrules import presentation
    from logicrules.conditions import with_conditions
    from logicrules.simplify import simplify_on_domain

    estimator.__dict__.pop("estimators_", None)
    estimator.attribute_names_ = list(names)
    conditions = estimator._conditions()
    estimator.raw_formula_ = {label: with_conditions(f, conditions) if conditions else f
                              for label, f in estimator.formula_.items()}
    estimator.formula_ = {label: simplify_on_domain(f, order=names) for label, f in estimator.raw_formula_.items()}
    Xb, cls, rows, _ = histogram_rows(counts, estimator.selected_features_, names)
    labels = estimator.classes_[cls]
    estimator.rules_ = estimator._per_class(lambda label: presentation.rules_frame(
        estimator.formula_[label], Xb, names, labels == label, row_counts=rows))
