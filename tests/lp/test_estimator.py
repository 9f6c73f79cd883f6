import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from logicrules.lp.estimator import LAM_GRID, LPRuleClassifier, regularization_path
from logicrules.lp.rules import learn_and_rule, learn_m_of_n, m_of_n_predict
from logicrules.lp.solvers import SolverError, SolverWarning


def _bits(seed, n=120, m=8, density=0.5):
    rng = np.random.default_rng(seed)
    return rng.random((n, m)) < density


@parametrize_with_checks([
    LPRuleClassifier(),
    LPRuleClassifier(rule="dnf"),
    LPRuleClassifier(rule="cnf", method="covering", max_clauses=2),
    LPRuleClassifier(rule="m_of_n", max_m=2),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_recovers_planted_or_rule():
    X = _bits(0, n=300)
    y = (X[:, 0] | X[:, 3]).astype(int)
    clf = LPRuleClassifier(binarizer="passthrough", lam=0.01).fit(X.astype(int), y)
    assert clf.formula_.attributes == {"x0", "x3"}
    assert (clf.predict(X.astype(int)) == y).all()
    assert {"objective", "columns_screened", "rows_sampled", "seconds"} <= set(clf.lp_result_)


def test_and_rule_is_de_morgan_of_or_rule_on_complements():
    for seed in range(6):
        X = _bits(seed, n=150, m=7)
        y = X[:, 1] & X[:, 4] | (np.random.default_rng(seed).random(150) < 0.1)
        clf = LPRuleClassifier(rule="and", binarizer="passthrough", lam=0.01).fit(X, y)
        S = [int(name[1:]) for name in sorted(clf.formula_.attributes)]
        # AND_{j in S} x_j == NOT OR_{j in S} NOT x_j on every row
        complement_or = (~X[:, S]).any(axis=1)
        assert (clf.predict(X) == ~complement_or).all()
        assert (clf.formula_.evaluate(X, feature_names=clf.attribute_names_) == X[:, S].all(axis=1)).all()


def test_and_rule_exact_rounding_matches_brute_force():
    """The AND-rule program (OR-rule on complements for the complemented label), by enumeration."""
    for seed in range(8):
        X = _bits(10 + seed, n=40, m=6)
        y = X[:, 0] & ~X[:, 2] | (np.random.default_rng(seed).random(40) < 0.15)
        lam = 0.7
        fit = learn_and_rule(X, y, lam, rounding="exact")
        best = np.inf
        for bits in itertools.product([False, True], repeat=6):
            S = np.array(bits)
            fires = X[:, S].all(axis=1)
            # negatives not excluded cost 1; on positives every false literal costs 1 (group testing)
            value = lam * S.sum() + (fires & ~y).sum() + (~X[y][:, S]).sum()
            best = min(best, value)
        assert fit.objective == pytest.approx(best)


def test_cnf_is_de_morgan_of_dnf():
    for seed in range(4):
        X = _bits(20 + seed, n=200, m=8)
        y = ((X[:, 0] | X[:, 1]) & (X[:, 2] | X[:, 5])).astype(int)
        cnf = LPRuleClassifier(rule="cnf", binarizer="passthrough", lam=0.005).fit(X, y)
        dnf = LPRuleClassifier(rule="dnf", binarizer="passthrough", lam=0.005).fit(~X, 1 - y)
        assert (cnf.predict(X) == 1 - dnf.predict(~X)).all()
        assert (cnf.formula_.evaluate(X, feature_names=cnf.attribute_names_) == cnf.predict(X).astype(bool)).all()
    assert (cnf.predict(X) == y).mean() > 0.95


@pytest.mark.parametrize("method", ["cg", "covering"])
def test_dnf_rule_set_fits_planted_dnf(method):
    X = _bits(5, n=400, m=8)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])
    clf = LPRuleClassifier(rule="dnf", binarizer="passthrough", lam=0.002, method=method).fit(X, y)
    assert (clf.predict(X) == y).mean() > 0.95
    assert len(clf.get_rules()) >= 2
    assert ("iterations" in clf.lp_result_) == (method == "cg")


def test_column_generation_recovers_the_tic_tac_toe_lines():
    from logicrules.datasets import load_dataset

    X, y = load_dataset("tic_tac_toe")
    clf = LPRuleClassifier(rule="dnf", lam=0.001).fit(X, y)
    result = clf.lp_result_
    assert result["certified"] and result["lp_bound"] == pytest.approx(result["lp_objective"])
    assert result["mip_gap"] == 0 and result["status"] == "optimal"
    assert result["pool_size"] >= 8 and result["iterations"] >= 2 and result["seconds"] > 0
    assert clf.score(X, y) == 1.0
    terms = clf.formula_.conjunctions()
    assert len(terms) == 8 and all(len(term) == 3 for term in terms)


def test_m_of_n_semantics():
    X = _bits(7, n=300, m=7)
    y = X[:, [0, 2, 4]].sum(axis=1) >= 2
    clf = LPRuleClassifier(rule="m_of_n", binarizer="passthrough", lam=0.01).fit(X, y)
    names, m = clf.checklist_
    assert (sorted(names), m) == (["x0", "x2", "x4"], 2)
    for seed in range(5):
        Xt = _bits(100 + seed, n=50, m=7)
        cols = [int(name[1:]) for name in names]
        reference = np.array([sum(bool(row[j]) for j in cols) >= m for row in Xt])
        assert (clf.predict(Xt) == reference).all()
        # the expanded DNF formula is exact
        assert (clf.formula_.evaluate(Xt, feature_names=clf.attribute_names_) == reference).all()
    assert m_of_n_predict(X, [0, 2, 4], 2).tolist() == y.tolist()


def test_m_of_n_limits_the_expansion():
    X = _bits(8, n=200, m=12)
    y = X.sum(axis=1) >= 6
    fit = learn_m_of_n(X, y, 0.01, max_m=6, max_terms=20)
    from math import comb
    assert comb(fit.columns.size, fit.m) <= 20


def test_rounding_exact_is_at_least_as_good():
    X = _bits(9, n=200, m=10)
    y = X[:, 0] | (X[:, 1] & X[:, 2])
    t = LPRuleClassifier(binarizer="passthrough", lam=0.01).fit(X, y)
    e = LPRuleClassifier(binarizer="passthrough", lam=0.01, rounding="exact").fit(X, y)
    assert e.lp_result_["objective"] <= t.lp_result_["objective"] + 1e-9


@pytest.mark.parametrize("options", [dict(solver="pulp"), dict(screening=False), dict(row_sampling=0.3)])
def test_solver_options_give_the_same_rule_value(options):
    X = _bits(11, n=250, m=9)
    y = X[:, 0] | X[:, 5] | (np.random.default_rng(1).random(250) < 0.1)
    base = LPRuleClassifier(binarizer="passthrough", lam=0.01).fit(X, y)
    other = LPRuleClassifier(binarizer="passthrough", lam=0.01, random_state=0, **options).fit(X, y)
    assert other.lp_result_["lp_objective"] == pytest.approx(base.lp_result_["lp_objective"], abs=1e-6)


def test_lam_cv_and_regularization_path():
    X = _bits(12, n=150, m=6)
    y = (X[:, 0] | X[:, 1]).astype(int)
    clf = LPRuleClassifier(binarizer="passthrough", lam="cv", random_state=0).fit(X, y)
    assert clf.lam_ in LAM_GRID
    path = regularization_path(LPRuleClassifier(binarizer="passthrough"), X, y, lams=[0.001, 0.9], X_test=X, y_test=y)
    assert isinstance(path, pd.DataFrame) and path["lam"].tolist() == [0.001, 0.9]
    assert path["size"].tolist()[-1] == 0 and path["test_accuracy"].iloc[0] == 1.0


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_lam_cv_with_column_generation_warm_starts(rule, monkeypatch):
    # lam="cv" walks the grid from the largest lam down, each fit on a fold started from the
    # previous fit's pool; the final fit is still certified, with the LP bound of a cold fit
    import logicrules.lp.estimator as estimator
    X = _bits(5, n=120, m=6)
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]).astype(int)
    y[:6] = 1 - y[:6]
    starts = []
    learn = estimator.learn_dnf_cg  # a CNF too: the DNF of the complemented literals

    def spy(*args, initial_terms=(), **kwargs):
        starts.append(len(initial_terms))
        return learn(*args, initial_terms=initial_terms, **kwargs)

    monkeypatch.setattr(estimator, "learn_dnf_cg", spy)
    clf = LPRuleClassifier(binarizer="passthrough", rule=rule, lam="cv", random_state=0).fit(X, y)
    assert clf.lam_ in LAM_GRID and clf.lp_result_["certified"]
    assert len(starts) == 3 * len(LAM_GRID) + 1
    assert all(n == 0 for n in starts[:-1:len(LAM_GRID)]) and max(starts) > 0   # each fold starts cold
    cold = LPRuleClassifier(binarizer="passthrough", rule=rule, lam=clf.lam_).fit(X, y)
    assert clf.lp_result_["lp_bound"] == pytest.approx(cold.lp_result_["lp_bound"], abs=1e-6)


def test_class_weight_balanced_helps_rare_class():
    rng = np.random.default_rng(13)
    X = rng.random((400, 6)) < 0.5
    y = X[:, 0] & X[:, 1] & X[:, 2] & (rng.random(400) < 0.6)
    plain = LPRuleClassifier(binarizer="passthrough", rule="and").fit(X, y)
    balanced = LPRuleClassifier(binarizer="passthrough", rule="and", class_weight="balanced").fit(X, y)
    recall = lambda clf: (clf.predict(X) & y).sum() / y.sum()  # noqa: E731
    assert recall(balanced) >= recall(plain)


def test_time_limit_is_never_silent():
    rng = np.random.default_rng(14)
    X = rng.random((3000, 150)) < 0.3
    y = rng.random(3000) < 0.5
    clf = LPRuleClassifier(binarizer="passthrough", screening=False, time_limit=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SolverWarning)
        with pytest.raises((SolverError, SolverWarning)):
            clf.fit(X, y)


@pytest.mark.parametrize("params, match", [
    (dict(rule="xor"), "rule"), (dict(lam=-1), "lam"), (dict(lam="auto"), "lam"),
    (dict(solver="cplex"), "solver"), (dict(rounding="up"), "rounding"), (dict(max_clauses=0), "max_clauses"),
    (dict(class_weight="heavy"), "class_weight"), (dict(row_sampling=2.0), "row_sampling"),
])
def test_bad_parameters(params, match):
    X = _bits(15, n=30, m=3)
    with pytest.raises(ValueError, match=match):
        LPRuleClassifier(binarizer="passthrough", **params).fit(X, X[:, 0])


def test_raw_data_with_binarizer_and_presentation():
    rng = np.random.default_rng(16)
    X = pd.DataFrame({"age": rng.integers(20, 80, 300), "color": rng.choice(["red", "blue"], 300)})
    y = ((X["age"] > 50) & (X["color"] == "red")).astype(int)
    clf = LPRuleClassifier(rule="and", lam=0.01).fit(X, y)
    assert clf.score(X, y) > 0.9
    assert len(clf.explain(X.iloc[:3])) == 3 and "IF" in str(clf)
    assert clf.to_sympy() is not None


def test_threshold_lp_matches_dense_reference_with_duplicate_rows():
    from scipy import optimize

    from logicrules.lp.mofn_rows import ChecklistRows, solve_threshold_lp

    for seed in range(6):
        rng = np.random.default_rng(60 + seed)
        base = rng.random((10, 5)) < 0.5
        A = base[rng.integers(0, 10, size=40)]
        y = rng.random(40) < 0.5
        m = int(rng.integers(1, 4))
        P, Z = A[y].astype(float), A[~y].astype(float)
        p, z = len(P), len(Z)
        # dense reference: variables (w, xi, zeta), one constraint per row, no merging
        c = np.concatenate([np.full(5, 0.4), np.full(p, 1.0), np.full(z, 1.0)])
        A_ub = np.vstack([-np.hstack([P, np.eye(p), np.zeros((p, z))]), np.hstack([Z, np.zeros((z, p)), -np.eye(z)])])
        b_ub = np.concatenate([np.full(p, -float(m)), np.full(z, m - 1.0)])
        ref = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(0, 1)] * 5 + [(0, None)] * (p + z), method="highs")
        fit = solve_threshold_lp(ChecklistRows.from_dense(A, y), m, 0.4)
        assert fit.optimal and fit.objective == pytest.approx(ref.fun, abs=1e-7)
