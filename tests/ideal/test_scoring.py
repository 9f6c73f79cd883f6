"""Count-based feature scores equal scikit-learn's f_classif, chi2 and mutual_info_classif."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import SelectKBest, chi2, f_classif, mutual_info_classif

from logicrules.ideal.scoring import (
    SCORERS,
    boolean_counts,
    chi2_boolean,
    f_classif_boolean,
    get_scorer,
    mutual_info_boolean,
    rank_features,
)


@st.composite
def boolean_problem(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(3, 120))
    m = draw(st.integers(1, 10))
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < rng.random(m)
    X[:, rng.random(m) < 0.15] = False  # constant columns
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    y[0], y[1] = True, False  # both classes present
    if draw(st.booleans()):
        X[:, 0] = y  # a perfectly separating column
    return X, y


@settings(max_examples=150, deadline=None)
@given(boolean_problem())
def test_scores_equal_sklearn(problem):
    X, y = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f_ref, pf_ref = f_classif(X.astype(np.float64), y)
        c_ref, pc_ref = chi2(X, y)
        mi_ref = mutual_info_classif(X, y, discrete_features=True)
    f, pf = f_classif_boolean(X, y)
    c, pc = chi2_boolean(X, y)
    np.testing.assert_array_equal(f, f_ref)
    np.testing.assert_array_equal(pf, pf_ref)
    np.testing.assert_array_equal(c, c_ref)
    np.testing.assert_array_equal(pc, pc_ref)
    np.testing.assert_allclose(mutual_info_boolean(X, y), mi_ref, rtol=0, atol=1e-10)
    # sklearn's f_classif on a bool matrix computes in float32: close, not equal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f32 = f_classif(X, y)[0]
    finite = np.isfinite(f32) & np.isfinite(f)
    np.testing.assert_allclose(f[finite], f32[finite], rtol=1e-2, atol=1e-3)


@settings(max_examples=60, deadline=None)
@given(boolean_problem(), st.integers(1, 10))
def test_rank_features_selects_like_select_k_best(problem, k):
    X, y = problem
    k = min(k, X.shape[1])
    pairs = [(f_classif_boolean, lambda a, b: f_classif(a.astype(np.float64), b)),
             (chi2_boolean, chi2),
             (mutual_info_boolean, lambda a, b: mutual_info_classif(a, b, discrete_features=True))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ours, theirs in pairs:
            scores = ours(X, y)
            scores = scores[0] if isinstance(scores, tuple) else scores
            support = np.zeros(X.shape[1], dtype=bool)
            support[rank_features(scores)[:k]] = True
            reference = SelectKBest(theirs, k=k).fit(X, y).get_support()
            assert np.array_equal(support, reference)
            # and our functions plug into SelectKBest directly
            assert np.array_equal(SelectKBest(ours, k=k).fit(X, y).get_support(), reference)


def test_counts_and_named_scorers():
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=bool)
    c = boolean_counts(X, [1, 1, 0, 0])
    assert (c.n, c.n_pos, c.n_neg) == (4, 2, 2)
    assert c.true.tolist() == [2, 2] and c.true_pos.tolist() == [2, 1] and c.true_neg.tolist() == [0, 1]
    assert set(SCORERS) == {"f_classif", "mutual_info", "chi2"}
    np.testing.assert_array_equal(get_scorer("chi2")(c), chi2_boolean(X, [1, 1, 0, 0])[0])
    # labels other than 0/1 are fine; the scores do not depend on which class is positive
    np.testing.assert_array_equal(f_classif_boolean(X, ["b", "b", "a", "a"])[0], f_classif_boolean(X, [0, 0, 1, 1])[0])
    with pytest.raises(ValueError, match="unknown scorer"):
        get_scorer("gini")


def test_degenerate_scores():
    X = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    f, _ = f_classif_boolean(X, [1, 1, 0, 0])
    assert np.isinf(f[0]) and np.isnan(f[1]) and f[2] == 0.0
    assert mutual_info_boolean(X, [1, 1, 0, 0])[1] == 0.0
    assert np.isnan(chi2_boolean(X, [1, 1, 0, 0])[0][1])
    assert rank_features(f).tolist() == [0, 2, 1]


def test_bad_inputs():
    with pytest.raises(ValueError, match="exactly two classes"):
        f_classif_boolean(np.ones((3, 2)), [1, 1, 1])
    with pytest.raises(ValueError, match="exactly two classes"):
        chi2_boolean(np.ones((3, 2)), [0, 1, 2])
    with pytest.raises(ValueError, match="0/1"):
        mutual_info_boolean(np.array([[0.5], [1.0]]), [0, 1])
    with pytest.raises(ValueError, match="0/1"):
        mutual_info_boolean(np.array([[np.nan], [1.0]]), [0, 1])
    with pytest.raises(ValueError, match="2-D"):
        chi2_boolean(np.ones(3), [0, 1, 1])
    with pytest.raises(ValueError, match="3 rows but y has 2"):
        chi2_boolean(np.ones((3, 1)), [0, 1])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 5))
def test_multiclass_scores_equal_sklearn(seed, k):
    from logicrules.ideal.scoring import ClassCounts

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(k + 2, 120)), int(rng.integers(1, 8))
    X = rng.random((n, m)) < rng.random(m)
    X[:, rng.random(m) < 0.15] = False  # constant columns
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    counts = ClassCounts(n, np.bincount(y, minlength=k), X.sum(axis=0),
                         np.array([X[y == c].sum(axis=0) for c in range(k)]))
    Xf = X.astype(np.float64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name, theirs in (("f_classif", f_classif(Xf, y)[0]), ("chi2", chi2(Xf, y)[0]),
                             ("mutual_info", mutual_info_classif(Xf, y, discrete_features=True))):
            np.testing.assert_allclose(SCORERS[name](counts), theirs, rtol=1e-9, atol=1e-12, err_msg=name)
