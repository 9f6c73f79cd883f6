"""Row generation for the m-of-n LP: the same optimum as the plain LP with one constraint per row."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from logicrules.lp.estimator import LPRuleClassifier
from logicrules.lp.mofn_rows import ChecklistRows, best_checklist, solve_threshold_lp
from logicrules.lp.rules import learn_m_of_n


def _reference_lp(A, y, sw, m, lam, c_pos, c_neg):
    """The LP with variables (w, one slack per original row): no merging, no sampling."""
    n = A.shape[1]
    sign = np.where(y, -1.0, 1.0)
    A_ub = np.hstack([sign[:, None] * A, -np.eye(len(y))])
    b_ub = np.where(y, -float(m), m - 1.0)
    c = np.concatenate([np.full(n, lam), np.where(y, c_pos, c_neg) * sw])
    res = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(0, 1)] * n + [(0, None)] * len(y), method="highs")
    assert res.status == 0
    return res.fun


def _objective(A, y, sw, w, m, lam, c_pos, c_neg):
    scores = A @ w
    hinge = np.where(y, np.maximum(0, m - scores) * c_pos, np.maximum(0, scores - (m - 1)) * c_neg)
    return lam * w.sum() + float(sw @ hinge)


def _instance(seed):
    rng = np.random.default_rng(seed)
    n_rows, n = int(rng.integers(1, 90)), int(rng.integers(1, 8))
    A = rng.random((n_rows, n)) < rng.uniform(0.1, 0.9, size=n)
    A[rng.integers(0, n_rows, size=n_rows // 3)] = A[rng.integers(0, n_rows, size=n_rows // 3)]  # repeats
    planted = A[:, : max(1, n // 2)].sum(axis=1) >= 1 + (n > 3)
    y = planted ^ (rng.random(n_rows) < 0.15)
    sw = rng.uniform(0.2, 3.0, size=n_rows) if rng.random() < 0.4 else np.ones(n_rows)
    m = int(rng.integers(1, min(n, 3) + 1))
    lam = float(rng.choice([0.0, 0.1, 0.5, 2.0]))
    c_pos, c_neg = (1.0, 1.0) if rng.random() < 0.6 else tuple(rng.uniform(0.3, 2.0, size=2))
    return rng, A, y, sw, m, lam, c_pos, c_neg


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 0.2, 0.5]), st.integers(2, 6), st.booleans())
def test_row_generation_reaches_the_plain_lp_optimum(seed, fraction, base_rows, warm):
    """Row generation (warm-started relaxations, or each solved cold) reaches the plain LP's optimum."""
    rng, A, y, sw, m, lam, c_pos, c_neg = _instance(seed)
    rows = ChecklistRows.from_dense(A, y, sw)
    fit = solve_threshold_lp(rows, m, lam, c_pos, c_neg, row_sampling=fraction, base_rows=base_rows,
                             random_state=int(rng.integers(1000)), warm=warm)
    reference = _reference_lp(A.astype(float), y, sw, m, lam, c_pos, c_neg)
    scale = max(1.0, float(sw.sum()) * max(c_pos, c_neg))
    assert fit.optimal
    assert fit.objective == pytest.approx(reference, abs=1e-6 * scale)
    # the reported objective is the full objective at w, and the bound certifies it
    assert fit.objective == pytest.approx(_objective(A, y, sw, fit.w, m, lam, c_pos, c_neg), abs=1e-9 * scale)
    assert fit.lower_bound <= fit.objective + 1e-9 * scale
    assert fit.objective - fit.lower_bound <= 1e-6 * scale
    assert ((fit.w >= 0) & (fit.w <= 1)).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.booleans())
def test_splitting_few_groups_per_round_reaches_the_plain_lp_optimum(seed, split_groups, warm):
    """With at most one or two mixed groups split per round (the worst first) the rounds still end
    only when no group is mixed: the same optimum as the plain LP."""
    import logicrules.lp.mofn_rows as mofn

    rng, A, y, sw, m, lam, c_pos, c_neg = _instance(seed)
    rows = ChecklistRows.from_dense(A, y, sw)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mofn, "SPLIT_GROUPS", split_groups)
        fit = solve_threshold_lp(rows, m, lam, c_pos, c_neg, row_sampling=0.3, base_rows=3,
                                 random_state=int(rng.integers(1000)), warm=warm)
    reference = _reference_lp(A.astype(float), y, sw, m, lam, c_pos, c_neg)
    scale = max(1.0, float(sw.sum()) * max(c_pos, c_neg))
    assert fit.optimal and fit.history[-1]["split"] == 0
    assert fit.objective == pytest.approx(reference, abs=1e-6 * scale)
    assert fit.objective == pytest.approx(_objective(A, y, sw, fit.w, m, lam, c_pos, c_neg), abs=1e-9 * scale)


def test_worst_mixed_groups_are_those_the_relaxation_underestimates_most():
    """The groups chosen for splitting: largest ``sum c max(0, r) - max(0, sum c r)`` first."""
    import logicrules.lp.mofn_rows as mofn

    group = np.array([0, 0, 1, 1, 2, 2, 3])
    costs = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    residual = np.array([0.5, -0.5, 1.0, -1.0, 0.2, -0.1, 1.0])
    mixed = np.array([True, True, True, False])
    # gaps: group 0: 0.5 - 0 = 0.5; group 1: 2 - 1 = 1; group 2: 0.2 - 0 = 0.2; group 3 unmixed
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mofn, "SPLIT_GROUPS", 2)
        assert mofn._worst_mixed(group, costs, residual, mixed).tolist() == [True, True, False, False]
        patch.setattr(mofn, "SPLIT_GROUPS", 3)
        assert mofn._worst_mixed(group, costs, residual, mixed).tolist() == mixed.tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 0.3]))
def test_row_generation_solves_the_integer_program(seed, fraction):
    rng, A, y, sw, m, lam, c_pos, c_neg = _instance(seed)
    rows = ChecklistRows.from_dense(A, y, sw)
    fit = solve_threshold_lp(rows, m, lam, c_pos, c_neg, integral=True, row_sampling=fraction, base_rows=3,
                             random_state=1)
    brute = min(_objective(A, y, sw, np.array(w, float), m, lam, c_pos, c_neg)
                for w in itertools.product([0, 1], repeat=A.shape[1]))
    scale = max(1.0, float(sw.sum()) * max(c_pos, c_neg))
    assert set(np.unique(fit.w)) <= {0.0, 1.0}
    assert fit.objective == pytest.approx(brute, abs=1e-6 * scale)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_best_checklist_matches_the_brute_force_scan(seed):
    rng, A, y, sw, _, lam, c_pos, c_neg = _instance(seed)
    rows = ChecklistRows.from_dense(A, y, sw)
    solutions = {m: np.round(rng.random(A.shape[1]) * (rng.random(A.shape[1]) < 0.7), 1) for m in (1, 2)}
    value, columns, m = best_checklist(rows, solutions, lam, c_pos, c_neg)
    best = (c_pos * sw[y].sum(), 0, [], 1)
    for w in solutions.values():
        for t in np.unique(w[w > 1e-6]):
            chosen = np.flatnonzero(w >= t)
            counts = A[:, chosen].sum(axis=1)
            for k in range(1, chosen.size + 1):
                fires = counts >= k
                score = lam * chosen.size + c_pos * sw[y & ~fires].sum() + c_neg * sw[~y & fires].sum()
                if (score, chosen.size) < best[:2] and not np.isclose(score, best[0]):
                    best = (score, chosen.size, chosen.tolist(), k)
    assert value == pytest.approx(best[0])
    # the rule found scores its value exactly
    fires = A[:, columns].sum(axis=1) >= m if columns.size else np.zeros(len(y), bool)
    assert value == pytest.approx(lam * columns.size + c_pos * sw[y & ~fires].sum() + c_neg * sw[~y & fires].sum())


def test_rows_are_read_in_blocks(monkeypatch):
    import logicrules.lp.mofn_rows as mofn

    rng = np.random.default_rng(3)
    A = rng.random((300, 9)) < 0.5
    y = A[:, :3].sum(axis=1) >= 2
    rows = ChecklistRows.from_dense(A, y)
    whole = solve_threshold_lp(rows, 2, 1.0, row_sampling=0.2, base_rows=20, random_state=0)
    monkeypatch.setattr(mofn, "BLOCK_CELLS", 50)  # blocks of 5 rows
    blocked = solve_threshold_lp(rows, 2, 1.0, row_sampling=0.2, base_rows=20, random_state=0)
    assert blocked.objective == pytest.approx(whole.objective, abs=1e-9)
    assert best_checklist(rows, {2: blocked.w}, 1.0)[0] == pytest.approx(best_checklist(rows, {2: whole.w}, 1.0)[0])


def test_sampling_generates_few_constraints():
    """On 20,000 rows with a planted 2-of-3 rule the sampled LP needs far fewer constraints."""
    rng = np.random.default_rng(5)
    A = rng.random((20_000, 12)) < 0.5
    y = (A[:, :3].sum(axis=1) >= 2) ^ (rng.random(20_000) < 0.05)
    rows = ChecklistRows.from_dense(A, y)
    for m in (1, 2, 3):
        fit = solve_threshold_lp(rows, m, 50.0, row_sampling=0.1, base_rows=200, random_state=0)
        reference = solve_threshold_lp(rows, m, 50.0)
        assert fit.objective == pytest.approx(reference.objective, rel=1e-9)
        assert fit.groups < rows.n_rows / 2 and reference.groups == rows.n_rows


@pytest.mark.parametrize("dataset", ["tic_tac_toe", "congressional_voting"])
def test_sampled_checklist_on_bundled_data(dataset):
    """The estimator with row sampling reaches the LP optima of the plain fit on real data."""
    from logicrules.datasets import load_dataset

    X, y = load_dataset(dataset)
    plain = LPRuleClassifier(rule="m_of_n", lam=0.002).fit(X, y)
    sampled = LPRuleClassifier(rule="m_of_n", lam=0.002, row_sampling=0.2, random_state=0).fit(X, y)
    assert sampled.lp_result_["rows_sampled"] is not None and plain.lp_result_["rows_sampled"] is None
    assert sampled.lp_result_["status"] == "optimal"
    Xb = np.asarray(plain.binarizer_.transform(X), dtype=bool)
    target = np.asarray(y == plain.classes_[1])
    lam_abs = 0.002 * len(target)
    a = learn_m_of_n(Xb, target, lam_abs)
    b = learn_m_of_n(Xb, target, lam_abs, row_sampling=0.2, random_state=0)
    for m in a.lp_objectives:
        assert b.lp_objectives[m] == pytest.approx(a.lp_objectives[m], rel=1e-7, abs=1e-6)
    assert sampled.score(X, y) >= plain.score(X, y) - 0.05


def test_the_plain_lp_is_refused_by_the_memory_limit_before_it_is_built():
    from logicrules.memory import MemoryLimitError

    rng = np.random.default_rng(0)
    X = rng.random((5000, 50)) < 0.5
    y = X[:, 0] | X[:, 1]
    with pytest.raises(MemoryLimitError, match="m-of-n LP.*use row_sampling"):
        LPRuleClassifier(rule="m_of_n", binarizer="passthrough", memory_limit="20MB").fit(X, y)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 0.3]))
def test_the_m_lps_in_threads_give_the_serial_result(seed, fraction):
    """The LPs of the m's run side by side (one thread per m) or one after another: the same
    samples, w, objectives and checklist."""
    from logicrules.lp.rules import learn_checklist

    _, A, y, sw, _, lam, c_pos, c_neg = _instance(seed)
    if not y.any() or y.all():
        return
    rows = ChecklistRows.from_dense(A, y, sw)
    serial = learn_checklist(rows, lam, weights=(c_pos, c_neg), row_sampling=fraction, random_state=seed,
                             n_jobs=1)
    threaded = learn_checklist(rows, lam, weights=(c_pos, c_neg), row_sampling=fraction, random_state=seed,
                               n_jobs=3)
    assert threaded.lp_objectives == serial.lp_objectives
    assert (threaded.columns.tolist(), threaded.m, threaded.objective) == (serial.columns.tolist(), serial.m,
                                                                          serial.objective)


def test_threads_of_a_fit_see_its_memory_limit(monkeypatch):
    """With row sampling the m's LPs run in threads, each checked against the fit's
    memory_limit as in the fit's own thread (the sample's LP is refused there too); without
    sampling they run one after another."""
    import logicrules.lp.rules as rules_module
    from logicrules.memory import MemoryBudget, MemoryLimitError
    from logicrules.lp.rules import learn_checklist

    seen = []
    real = rules_module.map_in_threads
    monkeypatch.setattr(rules_module, "map_in_threads",
                        lambda *args, threads: seen.append(threads) or real(*args, threads=threads))
    rng = np.random.default_rng(1)
    A = rng.random((12000, 40)) < 0.5
    rows = ChecklistRows.from_dense(A, A[:, 0] | A[:, 1])
    with MemoryBudget("2MB").active(), pytest.raises(MemoryLimitError, match="m-of-n LP"):
        learn_checklist(rows, 1.0, n_jobs=3, row_sampling=0.3)
    learn_checklist(rows.take(np.arange(300)), 1.0, n_jobs=3)
    assert seen == [3, 1]


def test_the_estimator_runs_fewer_lps_at_once_under_a_small_memory_limit(monkeypatch):
    """One m-of-n LP per core and m, fewer when their working arrays would not fit together."""
    import logicrules.lp.estimator as estimator_module
    from logicrules.lp.mofn_rows import checklist_bytes
    from logicrules.memory import MemoryBudget

    monkeypatch.setattr(estimator_module, "thread_count", lambda n_tasks, n_jobs=None: min(n_tasks, 8))
    model = LPRuleClassifier(rule="m_of_n", max_m=3)
    assert model._checklist_threads(10**6, 200) == 3
    model._budget = MemoryBudget(checklist_bytes(10**6, 200, 2) + 1)
    assert model._checklist_threads(10**6, 200) == 2
    model._budget = MemoryBudget(checklist_bytes(10**6, 200, 1))
    assert model._checklist_threads(10**6, 200) == 1
    model._budget = MemoryBudget(1000)   # too small even for one: the fit's own check refuses it
    assert model._checklist_threads(10**6, 200) == 1
