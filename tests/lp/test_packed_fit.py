"""The LP learner fitted from counts (packed rows) learns what the dense path learned.

``_dense_learn`` is the estimator's former data path, kept here as the reference: the dense
binarized matrix, identical (row, label) pairs merged by sorting their packed bits, then the
dense learners of :mod:`logicrules.lp.rules` / :mod:`logicrules.lp.colgen`.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ChunkedCounts, ContextCounts
from logicrules.lp.colgen import learn_cnf_cg, learn_dnf_cg
from logicrules.lp.data import class_rows_in_bit_order, clause_problem
from logicrules.lp.estimator import LPRuleClassifier, _predict_structure
from logicrules.lp.model import problem_from_rows
from logicrules.lp.rules import learn_and_rule, learn_cnf, learn_dnf, learn_m_of_n, learn_or_rule


def _merge_rows(Xb, y, sw):
    """Identical (row, label) pairs merged, sorted by their packed bits (the former estimator's)."""
    n = len(y)
    packed = np.packbits(np.column_stack([y, Xb]).astype(bool), axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    weights = np.bincount(inverse.reshape(-1), weights=np.ones(n) if sw is None else sw, minlength=first.size)
    return Xb[first], y[first], weights


def _dense_learn(clf, Xb, y, lam, weights, sw):
    n_pos, n_neg = (y.sum(), (~y).sum()) if sw is None else (sw[y].sum(), sw[~y].sum())
    lam_abs = lam * (weights[0] * n_pos + weights[1] * n_neg)
    Xb, y, sw = _merge_rows(Xb, y, sw)
    options = clf._solve_options()
    if clf.rule == "or":
        return learn_or_rule(Xb, y, lam_abs, weights=weights, sample_weight=sw, **options).columns
    if clf.rule == "and":
        return learn_and_rule(Xb, y, lam_abs, weights=weights, sample_weight=sw, **options).columns
    if clf._column_generation():
        learner = learn_dnf_cg if clf.rule == "dnf" else learn_cnf_cg
        return learner(Xb, y, lam_abs, weights=weights, sample_weight=sw, max_size=int(clf.max_term_size),
                       time_limit=clf.time_limit, mip_time_limit=clf.time_limit).terms
    if clf.rule in ("dnf", "cnf"):
        learner = learn_dnf if clf.rule == "dnf" else learn_cnf
        return learner(Xb, y, lam_abs, int(clf.max_clauses), weights=weights, sample_weight=sw, **options).terms
    fit = learn_m_of_n(Xb, y, lam_abs, max_m=int(clf.max_m), weights=weights, sample_weight=sw)
    return fit.columns, fit.m


def _same(rule, a, b):
    if rule in ("or", "and"):
        return np.array_equal(a, b)
    if rule == "m_of_n":
        return np.array_equal(a[0], b[0]) and a[1] == b[1]
    return len(a) == len(b) and all(np.array_equal(s, t) for s, t in zip(a, b))


def _data(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(8, 120)), int(rng.integers(1, 12))
    X = rng.random((n, m)) < rng.uniform(0.1, 0.9, size=m)
    X[rng.integers(0, n, size=n // 3)] = X[rng.integers(0, n, size=n // 3)]      # repeated rows
    y = (X[:, 0] ^ (rng.random(n) < 0.2)) if m else rng.random(n) < 0.5
    y[:2] = [True, False]
    return rng, X, y


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["or", "and", "dnf", "cnf", "m_of_n"]), st.booleans(),
       st.sampled_from([None, "balanced"]), st.booleans())
def test_packed_fit_learns_what_the_dense_path_learned(seed, rule, weighted, class_weight, sampling):
    rng, X, y = _data(seed)
    # multiples of 1/4: sums of weights are exact in any order, so both paths see the same numbers
    sw = rng.integers(1, 9, size=len(y)) / 4 if weighted else None
    clf = LPRuleClassifier(rule=rule, method="covering", class_weight=class_weight, random_state=0,
                           row_sampling=0.5 if sampling else None, binarizer="passthrough")
    clf.classes_ = np.array([False, True])
    clf.pos_label_ = True
    costs = clf._class_costs(y, sw)
    lam = float(rng.choice([0.0, 0.01, 0.05, 0.2]))
    context = FormalContext(X, attributes=[f"a{j}" for j in range(X.shape[1])])
    packed, _ = clf._learn(context, y, lam, costs, sw)
    dense = _dense_learn(clf, X, y, lam, costs, sw)
    assert _same(rule, packed, dense), (packed, dense)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["dnf", "cnf"]), st.booleans())
def test_packed_column_generation_learns_what_the_dense_path_learned(seed, rule, weighted):
    rng, X, y = _data(seed)
    X = X[:, :6]
    sw = rng.integers(1, 9, size=len(y)) / 4 if weighted else None
    clf = LPRuleClassifier(rule=rule, max_term_size=2, binarizer="passthrough", time_limit=60)
    context = FormalContext(X, attributes=[f"a{j}" for j in range(X.shape[1])])
    a, _ = clf._learn(context, y, 0.05, (1.0, 1.0), sw)
    b = _dense_learn(clf, X, y, 0.05, (1.0, 1.0), sw)
    assert _same(rule, a, b)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_clause_problem_from_counts_equals_the_problem_from_rows(seed, weighted, complement):
    rng, X, y = _data(seed)
    sw = rng.integers(1, 9, size=len(y)) / 4 if weighted else None
    counts = ContextCounts(FormalContext(X), y, sw)
    P = clause_problem(counts, 0.3, (1.0, 2.0), complement=complement)
    Xm, ym, swm = _merge_rows(X, y, sw)
    Q = problem_from_rows(Xm, ym if not complement else ~ym, ~ym if not complement else ym, 0.3, (1.0, 2.0),
                          complement=complement, sample_weight=swm)
    np.testing.assert_array_equal(P.A_pos, Q.A_pos)
    np.testing.assert_array_equal(P.costs, Q.costs)
    np.testing.assert_array_equal(P.row_weights, Q.row_weights)
    # chunked counts give the same problem (rows, order, weights, costs)
    chunks = [(X[i:i + 16], y[i:i + 16]) if sw is None else (X[i:i + 16], y[i:i + 16], sw[i:i + 16])
              for i in range(0, len(y), 16)]
    R = clause_problem(ChunkedCounts(chunks, X.shape[1], weighted=weighted), 0.3, (1.0, 2.0), complement=complement)
    np.testing.assert_array_equal(P.A_pos, R.A_pos)
    np.testing.assert_array_equal(P.costs, R.costs)


def test_rows_come_in_bit_order():
    X = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 1], [1, 0, 1]] * 3 + [[1, 1, 0]], dtype=bool)
    rows, weights = class_rows_in_bit_order(ContextCounts(FormalContext(X), np.ones(len(X), dtype=bool)), 1)
    assert rows.astype(int).tolist() == [[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
    assert weights.tolist() == [3.0, 3.0, 6.0, 1.0]


@pytest.mark.parametrize("rule", ["or", "and", "dnf", "cnf", "m_of_n"])
def test_prediction_of_a_structure_on_packed_rows(rule):
    rng = np.random.default_rng(3)
    A = rng.random((70, 5)) < 0.5
    structures = {"or": [np.array([0, 3]), np.array([], dtype=int)], "and": [np.array([1, 2]), np.array([], dtype=int)],
                  "dnf": [[np.array([0, 1]), np.array([4])], [], [np.array([], dtype=int)]],
                  "cnf": [[np.array([0, 1]), np.array([4])], [], [np.array([], dtype=int)]],
                  "m_of_n": [(np.array([0, 1, 2]), 2), (np.array([], dtype=int), 1)]}
    for structure in structures[rule]:
        if rule == "or":
            expected = A[:, structure].any(axis=1)
        elif rule == "and":
            expected = A[:, structure].all(axis=1)
        elif rule == "dnf":
            expected = np.zeros(70, bool)
            for t in structure:
                expected |= A[:, t].all(axis=1)
        elif rule == "cnf":
            expected = np.ones(70, bool)
            for c in structure:
                expected &= A[:, c].any(axis=1)
        else:
            columns, m = structure
            expected = A[:, columns].sum(axis=1) >= m if len(columns) else np.zeros(70, bool)
        np.testing.assert_array_equal(_predict_structure(rule, structure, FormalContext(A)), expected)


@pytest.mark.parametrize("rule", ["or", "and", "m_of_n"])
def test_lam_cross_validation_reads_packed_rows(rule):
    rng, X, y = _data(11)
    clf = LPRuleClassifier(rule=rule, lam="cv", binarizer="passthrough", random_state=0).fit(X, y)
    assert clf.lam_ in (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
    np.testing.assert_array_equal(clf.predict(X), _predict_structure(
        rule, clf._learn(FormalContext(X), y, clf.lam_, (1.0, 1.0))[0], FormalContext(X)))
