"""The ideal method's data path (one mask, one packed context of both parts, chunked median
binarization) against the direct recomputation it replaced: copies of the two parts, a
binarizer fitted column by column on the training copy, type tables of dense booleans."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from logicrules.fca.scaling import MedianBinarizer
from logicrules.ideal.algorithm import type_table
from logicrules.ideal.method import IdealDNFClassifier


def numeric_data(seed: int, n: int = 500):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6))
    X[:, 4] = rng.integers(0, 3, n)
    X[rng.random((n, 6)) < 0.05] = np.nan
    y = ((X[:, 0] > 0) & (X[:, 1] > 0.3)) | (rng.random(n) < 0.1)
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(6)]), y.astype(int)


def column_by_column(monkeypatch) -> None:
    monkeypatch.setattr(MedianBinarizer, "_fits_by_column_stats", lambda self, data, weights: False)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_candidates_equal_a_recomputation_on_copies_of_the_two_parts(seed, weighted, monkeypatch):
    X, y = numeric_data(seed)
    w = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float) if weighted else None
    model = IdealDNFClassifier(random_state=seed, max_features=4).fit(X, y, sample_weight=w)
    yb = y.astype(bool)
    train, valid = model._split(yb)
    tie, unseen = model._tie_rule(yb, w)
    with monkeypatch.context() as patch:
        column_by_column(patch)
        stage = MedianBinarizer(missing="false").fit(X.iloc[train], sample_weight=None if w is None else w[train])
        reference = IdealDNFClassifier(random_state=seed, max_features=4).fit(X, y, sample_weight=w)
    names = list(stage.get_feature_names_out())
    Bt, Bv = stage.transform(X.iloc[train]), stage.transform(X.iloc[valid])
    for _, row in model.candidates_.iterrows():
        cols = [names.index(f) for f in row["features"]]
        table = type_table(Bt, yb[train], features=cols, tie=tie, unseen=unseen,
                           sample_weight=None if w is None else w[train])
        agree = table.predict(Bv[:, cols]) == yb[valid]
        expected = np.average(agree, weights=None if w is None else w[valid])
        assert row["validation_accuracy"] == pytest.approx(expected, rel=1e-12)
        assert row["training_accuracy"] == pytest.approx(1 - table.training_errors / table.n_rows, rel=1e-12)
        assert row["n_types"] == table.n_types
    # the whole fit equals the fit through the column-by-column binarizer
    pd.testing.assert_frame_equal(model.candidates_, reference.candidates_)
    assert str(model.formula_) == str(reference.formula_)
    assert [c.name for c in model.binarizer_.conditions_] == [c.name for c in reference.binarizer_.conditions_]
    assert np.array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_the_training_part_is_never_copied():
    """The traced peak of a fit on a numeric array stays below what a copy of its training part
    (70% of the rows) would take alone."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1_000_000, 8))
    y = (X[:, 0] > 0) & (X[:, 1] > 0.5)
    IdealDNFClassifier(random_state=0).fit(X[:500], y[:500])  # imports and caches outside the trace
    tracemalloc.start()
    try:
        model = IdealDNFClassifier(random_state=0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.7 * X.nbytes
    assert model.score(X[:10_000], y[:10_000]) > 0.9
