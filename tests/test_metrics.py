"""Objectives against scikit-learn's metrics computed on explicit label vectors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from logicrules.metrics import OBJECTIVES, Objective, get_objective

counts = st.tuples(*(st.integers(0, 30) for _ in range(4))).filter(lambda c: sum(c) > 0)


def labels_from_counts(tp, fp, fn, tn):
    y_true = np.array([1] * tp + [0] * fp + [1] * fn + [0] * tn)
    y_pred = np.array([1] * tp + [1] * fp + [0] * fn + [0] * tn)
    return y_true, y_pred


def wracc_reference(y_true, y_pred):
    n = len(y_true)
    covered = y_pred == 1
    if not covered.any():
        return 0.0
    return covered.sum() / n * (y_true[covered].mean() - y_true.mean())


REFERENCES = {
    "f1": lambda t, p: skm.f1_score(t, p, zero_division=0),
    "jaccard": lambda t, p: skm.jaccard_score(t, p, zero_division=0),
    "accuracy": skm.accuracy_score,
    "precision": lambda t, p: skm.precision_score(t, p, zero_division=0),
    "recall": lambda t, p: skm.recall_score(t, p, zero_division=0),
    "mcc": skm.matthews_corrcoef,
    "wracc": wracc_reference,
}


@settings(max_examples=200, deadline=None)
@given(counts)
def test_objectives_match_sklearn(c):
    y_true, y_pred = labels_from_counts(*c)
    for name, reference in REFERENCES.items():
        ours = float(get_objective(name)(*(np.array([v]) for v in c))[0])
        assert ours == pytest.approx(reference(y_true, y_pred), abs=1e-12), name


@settings(max_examples=200, deadline=None)
@given(counts)
def test_balanced_accuracy_matches_sklearn_when_both_classes_present(c):
    tp, fp, fn, tn = c
    if tp + fn == 0 or fp + tn == 0:
        return
    y_true, y_pred = labels_from_counts(*c)
    ours = float(get_objective("balanced_accuracy")(tp, fp, fn, tn))
    assert ours == pytest.approx(skm.balanced_accuracy_score(y_true, y_pred), abs=1e-12)


def test_f1_and_jaccard_rank_identically():
    rng = np.random.default_rng(0)
    tp, fp, fn, tn = rng.integers(0, 50, size=(4, 5000))
    f1 = get_objective("f1")(tp, fp, fn, tn)
    jac = get_objective("jaccard")(tp, fp, fn, tn)
    np.testing.assert_allclose(f1, 2 * jac / (1 + jac))
    order = np.lexsort((np.arange(5000), f1))
    assert np.all(np.diff(jac[order]) >= -1e-15)


def test_vectorized_broadcasting_and_dtype():
    scores = get_objective("accuracy")(np.arange(6).reshape(2, 3), 1, 1, 1)
    assert scores.shape == (2, 3) and scores.dtype == np.float64


def test_min_support_and_callable():
    prec = get_objective("precision", min_support=5)
    out = prec(np.array([1, 5]), np.array([0, 1]), 0, 0)
    assert out[0] == -np.inf and out[1] == pytest.approx(5 / 6)
    custom = get_objective(lambda tp, fp, fn, tn: tp - fp)
    assert custom(np.array([3]), np.array([1]), 0, 0)[0] == 2
    assert not custom.fractional
    assert {"f1", "jaccard", "precision"} == {n for n, o in OBJECTIVES.items() if o.fractional}


def test_bad_objectives():
    with pytest.raises(ValueError, match="unknown objective 'auc'"):
        get_objective("auc")
    with pytest.raises(TypeError, match="name or a callable"):
        get_objective(3)
    with pytest.raises(ValueError, match="min_support"):
        get_objective("f1", min_support=-1)


def test_resolving_an_objective_keeps_its_min_support():
    prec = get_objective("precision", min_support=5)
    assert get_objective(prec).min_support == 5
    assert get_objective(prec, min_support=0).min_support == 0


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(OBJECTIVES)), P=st.integers(0, 40), N=st.integers(0, 40),
       weighted=st.booleans(), quantile=st.floats(0, 1), seed=st.integers(0, 2**16))
def test_every_filter_keeps_every_count_pair_above_the_threshold(name, P, N, weighted, quantile, seed):
    # the filter of a score t is kept by every (tp, fp) in the count box scoring above t: on the
    # integer grid, and (weighted counts) on random real points of the box and its corners
    obj = get_objective(name)
    rng = np.random.default_rng(seed)
    if weighted:
        P, N = P * rng.uniform(0.01, 3), N * rng.uniform(0.01, 3)
        tp = np.concatenate([rng.uniform(0, P, 4000), [0, P, 0, P]])
        fp = np.concatenate([rng.uniform(0, N, 4000), [0, 0, N, N]])
    else:
        tp, fp = (a.ravel() for a in np.meshgrid(np.arange(P + 1), np.arange(N + 1), indexing="ij"))
    scores = obj(tp, fp, P - tp, N - fp)
    finite = scores[np.isfinite(scores)]
    t = float(np.quantile(finite, quantile)) if len(finite) else 0.0
    filt = obj.filter(t, P, N, integer_counts=not weighted)
    above = scores > t
    if filt is None:
        assert not above.any()
        return
    assert np.all(filt.alpha * tp[above] + filt.beta * fp[above] >= filt.threshold)


def test_filters_are_closed_forms_and_callables_get_a_boundary_search():
    f1 = get_objective("f1").filter(0.5, 10, 20)
    assert (f1.alpha, f1.beta) == (1.5, -0.5) and f1.threshold == pytest.approx(5, abs=1e-6)
    acc = get_objective("accuracy").filter(0.75, 10, 30)        # (tp + 30 - fp) / 40 > 0.75
    assert acc.alpha == pytest.approx(1 / 40) and acc.beta == pytest.approx(-1 / 40)
    assert acc.threshold == pytest.approx(0, abs=1e-6)
    assert get_objective("mcc").filter(1.0, 10, 20) is None
    assert get_objective("f1").filter(-np.inf, 10, 20).passes_all
    assert get_objective("precision").filter(-0.5, 10, 20).passes_all
    custom = get_objective(lambda tp, fp, fn, tn: tp - 2 * fp)
    assert custom.kind == "callable"
    line = custom.filter(3.0, 10, 20)             # a boundary search on the integer grid
    tp, fp = np.meshgrid(np.arange(11), np.arange(21), indexing="ij")
    above = (tp - 2 * fp) > 3
    assert np.all(line.alpha * tp[above] + line.beta * fp[above] >= line.threshold)
    assert custom.filter(3.0, 10.5, 20, integer_counts=False).passes_all
    assert get_objective(custom.function).filter(3.0, 10**5, 10**5).passes_all     # grid too large
    with pytest.raises(ValueError, match="kind"):
        Objective("x", custom.function, kind="nope")
