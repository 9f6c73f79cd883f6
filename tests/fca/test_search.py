"""find_best_premises against a brute-force enumeration of the premise space from its definition.

The reference builds the extents of P_1 = {m, not m} (or M) and P_k = {p AND q, p OR q : p in
P_i, q in P_{k-i}} as Python integer bitmasks, level by level, remembering the smallest size at
which each extent appears, and scores every distinct extent with the objective.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.premise.search import PremiseSearchMemoryError, find_best_premises
from logicrules.metrics import OBJECTIVES, get_objective

OBJECTIVE_NAMES = sorted(OBJECTIVES)


def brute_force_extents(X, max_size, negations=True, connectives=("and", "or")):
    """{extent bitmask: smallest size} over all premises of size <= max_size, from the definition
    (with only the operators in ``connectives``)."""
    n, m = X.shape
    full = (1 << n) - 1
    cols = [int(sum(1 << i for i in range(n) if X[i, j])) for j in range(m)]
    levels = {1: set(cols) | ({full ^ c for c in cols} if negations else set())}
    for k in range(2, max_size + 1):
        level = set()
        for i in range(1, k // 2 + 1):
            for p in levels[i]:
                for q in levels[k - i]:
                    if "and" in connectives:
                        level.add(p & q)
                    if "or" in connectives:
                        level.add(p | q)
        levels[k] = level
    smallest = {}
    for k in range(1, max_size + 1):
        for e in levels[k]:
            smallest.setdefault(e, k)
    return smallest


def score_extents(extents, y, objective):
    n = len(y)
    ymask = int(sum(1 << i for i in range(n) if y[i]))
    P = int(np.sum(y))
    keys = list(extents)
    tp = np.array([bin(e & ymask).count("1") for e in keys])
    fp = np.array([bin(e & ~ymask).count("1") for e in keys])
    scores = np.asarray(objective(tp, fp, P - tp, n - P - fp), dtype=float)
    scores = np.where(np.isnan(scores), -np.inf, scores)
    return keys, scores


def check_against_brute_force(X, y, max_size, objective, negations=True, top_k=1, **options):
    """Assert that the search (``options``: e.g. its backend) returns the brute-force top-k."""
    obj = get_objective(objective) if not hasattr(objective, "fractional") else objective
    results = find_best_premises(X, y, max_size=max_size, objective=obj, negations=negations, top_k=top_k,
                                 **options)
    extents = brute_force_extents(X, max_size, negations)
    keys, scores = score_extents(extents, y, obj)
    expected = np.sort(scores)[::-1][:top_k]
    got = np.array([r.score for r in results])
    assert len(results) == min(top_k, len(keys))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    n = len(y)
    seen = set()
    for r in results:
        ext = r.formula.evaluate(X)
        assert r.formula.size == r.size <= max_size
        tp = int((ext & y).sum())
        fp = int((ext & ~y).sum())
        assert (r.tp, r.fp, r.fn, r.tn) == (tp, fp, int(y.sum()) - tp, int((~y).sum()) - fp)
        assert r.score == pytest.approx(float(obj(np.array([tp]), np.array([fp]), np.array([r.fn]),
                                                  np.array([r.tn]))[0]), abs=1e-12)
        key = int(sum(1 << i for i in range(n) if ext[i]))
        assert key in extents and key not in seen
        seen.add(key)
        # literals only where allowed
        if not negations:
            assert "NOT" not in str(r.formula)
    if top_k == 1 and results:
        best = scores.max()
        smallest = min(extents[k] for k, s in zip(keys, scores) if s == best)
        assert results[0].size == smallest
    return results


def random_context(seed, n, m, density=0.5):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < density
    y = rng.random(n) < rng.uniform(0.2, 0.7)
    return X, y


@pytest.mark.parametrize("objective", OBJECTIVE_NAMES)
@pytest.mark.parametrize("negations", [True, False])
def test_every_objective_size3(objective, negations):
    for seed in range(4):
        X, y = random_context(seed, n=30 + 7 * seed, m=5 + seed % 2)
        check_against_brute_force(X, y, 3, objective, negations=negations)


@pytest.mark.parametrize("objective", ["f1", "accuracy", "mcc", "wracc", "balanced_accuracy", "precision"])
def test_size4(objective):
    for seed, negations in [(10, True), (11, False)]:
        X, y = random_context(seed, n=40, m=4 if negations else 5)
        check_against_brute_force(X, y, 4, objective, negations=negations)


@pytest.mark.parametrize("top_k", [2, 5, 17])
def test_top_k_distinct_extents(top_k):
    for seed in range(3):
        X, y = random_context(100 + seed, n=40, m=5)
        check_against_brute_force(X, y, 3, "f1", top_k=top_k)
        check_against_brute_force(X, y, 2, "mcc", top_k=top_k, negations=False)


def test_callable_and_min_support():
    X, y = random_context(7, n=50, m=6)

    def youden(tp, fp, fn, tn):
        tp, fp, fn, tn = (np.asarray(a, float) for a in (tp, fp, fn, tn))
        return tp / np.maximum(tp + fn, 1) - fp / np.maximum(fp + tn, 1)

    check_against_brute_force(X, y, 3, youden)
    check_against_brute_force(X, y, 3, get_objective("precision", min_support=8), top_k=3)


@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 60),
    m=st.integers(1, 6),
    max_size=st.integers(1, 3),
    negations=st.booleans(),
    objective=st.sampled_from(OBJECTIVE_NAMES),
    top_k=st.integers(1, 4),
)
def test_hypothesis_random_contexts(data, n, m, max_size, negations, objective, top_k):
    X = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    check_against_brute_force(X.reshape(n, m), y, max_size, objective, negations=negations, top_k=top_k)


@pytest.mark.parametrize("objective", ["f1", "accuracy", "mcc", "recall"])
def test_degenerate_targets(objective):
    X, _ = random_context(3, n=25, m=4)
    for y in (np.ones(25, bool), np.zeros(25, bool)):
        for negations in (True, False):
            check_against_brute_force(X, y, 3, objective, negations=negations)


def test_constant_duplicate_and_complementary_attributes():
    X, y = random_context(5, n=40, m=3)
    X = np.column_stack([X, np.ones(40, bool), np.zeros(40, bool), X[:, 0], ~X[:, 1], X[:, 2]])
    for objective in ("f1", "accuracy", "mcc"):
        for negations in (True, False):
            check_against_brute_force(X, y, 3, objective, negations=negations, top_k=3)
    check_against_brute_force(X[:, [0, 3, 4, 5, 6]], y, 4, "f1")


def test_single_attribute_and_max_size_larger_than_attributes():
    X, y = random_context(6, n=30, m=1)
    for k in (1, 2, 3, 4):
        for negations in (True, False):
            check_against_brute_force(X, y, k, "f1", negations=negations, top_k=3)
    X2, y2 = random_context(8, n=30, m=2)
    check_against_brute_force(X2, y2, 4, "accuracy", top_k=4)


def test_dataframe_and_names():
    X, y = random_context(9, n=40, m=4)
    frame = pd.DataFrame(X.astype(int), columns=["age > 50", "smoker", "male", "chol > 240"])
    best = find_best_premises(frame, y.astype(int), max_size=3)[0]
    assert best.formula.attributes <= set(frame.columns)
    assert (best.formula.evaluate(frame) & y).sum() == best.tp


def test_formal_context_input():
    context_module = pytest.importorskip("logicrules.fca.context")
    X, y = random_context(14, n=40, m=4)
    context = context_module.FormalContext(X, attributes=["a", "b", "c", "d"])
    from_context = find_best_premises(context, y, max_size=3, top_k=2)
    from_array = find_best_premises(X, y, max_size=3, top_k=2)
    assert [r.score for r in from_context] == [r.score for r in from_array]
    best = from_context[0]
    assert best.formula.attributes <= {"a", "b", "c", "d"}
    assert int((best.formula.evaluate(context) & y).sum()) == best.tp


def test_paper_style_example_finds_planted_rule():
    rng = np.random.default_rng(1)
    X = rng.random((300, 12)) < 0.4
    y = X[:, 3] & (X[:, 7] | X[:, 9])
    best = find_best_premises(X, y, max_size=3, negations=False)[0]
    assert best.score == 1.0 and best.size == 3
    assert np.array_equal(best.formula.evaluate(X), y)


def test_statistics():
    X, y = random_context(12, n=50, m=6)
    results, stats = find_best_premises(X, y, max_size=3, return_stats=True)
    frame = stats.to_frame()
    assert list(frame.index) == [1, 2, 3]
    assert list(frame["premises"]) == [12, 2 * 12 * 12, 2 * 12 * 2 * 144]
    assert frame.loc[3, "best_score"] == results[0].score
    assert (frame["seconds"] >= 0).all()
    # extent counts of sizes 1-2 equal the brute-force counts of new extents
    extents = brute_force_extents(X, 2)
    assert frame.loc[1, "new_extents"] == sum(1 for s in extents.values() if s == 1)
    assert frame.loc[2, "new_extents"] == sum(1 for s in extents.values() if s == 2)


def test_bad_inputs_and_memory_limit():
    X, y = random_context(13, n=30, m=4)
    with pytest.raises(ValueError, match="max_size"):
        find_best_premises(X, y, max_size=0)
    with pytest.raises(ValueError, match="max_size"):
        find_best_premises(X, y, max_size=5)
    with pytest.raises(ValueError, match="top_k"):
        find_best_premises(X, y, top_k=0)
    with pytest.raises(ValueError, match="30 rows but y has 29"):
        find_best_premises(X, y[:-1])
    with pytest.raises(ValueError, match="y must"):
        find_best_premises(X, np.where(y, 2, 0))
    with pytest.raises(ValueError, match="0/1"):
        find_best_premises(np.where(X, 0.5, 0.0), y)
    with pytest.raises(ValueError, match="2-D"):
        find_best_premises(X[:, 0], y)
    with pytest.raises(ValueError, match="no rows"):
        find_best_premises(X[:0], y[:0])
    with pytest.raises(ValueError, match="no attributes"):
        find_best_premises(X[:, :0], y)
    with pytest.raises(ValueError, match="memory_limit"):
        find_best_premises(X, y, memory_limit="lots")
    with pytest.raises(ValueError, match="unknown objective"):
        find_best_premises(X, y, objective="nope")
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        find_best_premises(X, y, memory_limit=100)
    big = np.random.default_rng(0).random((30, 80)) < 0.5
    with pytest.raises(PremiseSearchMemoryError, match="size 4"):
        find_best_premises(big, y, max_size=4, memory_limit="50MB", size4_method="extents")
    wide = np.random.default_rng(1).random((30, 120)) < 0.5      # pair tables fit, triple counts do not
    with pytest.raises(PremiseSearchMemoryError, match="size 4 keeps the 3-way counts"):
        find_best_premises(wide, y, max_size=4, memory_limit="2MB")
    with pytest.raises(ValueError, match="size4_method"):
        find_best_premises(X, y, max_size=4, size4_method="nope")
    assert find_best_premises(X, y, memory_limit="1GiB")[0].score > 0
    with pytest.raises(ValueError, match="min_support"):
        find_best_premises(X, y, objective="precision", min_support=31)


# ------------------------------------------------------------------- size 4 by truth-table cells
def test_closed_form_of_best_read_once_quadruple_formula():
    from logicrules.fca.premise import kernels
    from logicrules.fca.premise.space import _quadruple_index_tables, quadruple_shapes, shape_matrix

    half, pair = _quadruple_index_tables()
    rng = np.random.default_rng(0)
    for negations in (True, False):
        M = shape_matrix(quadruple_shapes(negations), 4).astype(float)
        for _ in range(500):
            f = rng.normal(size=16) * rng.integers(1, 5)
            if rng.random() < 0.3:
                f = np.round(f)
            got = kernels.best_read_once4(f, negations, half, pair)
            assert got == pytest.approx((M @ f).max(), abs=1e-9)


def test_size4_shape_lists_match_the_definition():
    from logicrules.fca.premise.space import quadruple_shapes, repeat_shapes

    assert len(quadruple_shapes(True)) == 832 and len(quadruple_shapes(False)) == 52
    for k in (2, 3):
        # all truth assignments of k variables as rows: extents are the functions themselves
        X = np.array([[(j >> (k - 1 - i)) & 1 for i in range(k)] for j in range(2**k)], dtype=bool)
        for negations in (True, False):
            expected = brute_force_extents(X, 4, negations)
            got = {s.mask for s in repeat_shapes(k, negations)}
            assert got == set(expected)
    assert len(repeat_shapes(2, True)) == 16          # XOR and XNOR need size 4


@pytest.mark.parametrize("objective", ["f1", "accuracy", "mcc", "jaccard", "precision", "wracc"])
def test_size4_cells_more_attributes(objective):
    for seed, negations, m in [(20, True, 5), (21, False, 6), (22, True, 6)]:
        X, y = random_context(seed, n=45, m=m)
        check_against_brute_force(X, y, 4, objective, negations=negations)


@pytest.mark.parametrize("top_k", [3, 9])
def test_size4_top_k_and_methods_agree(top_k):
    for seed, negations in [(30, True), (31, False)]:
        X, y = random_context(seed, n=40, m=5)
        cells = check_against_brute_force(X, y, 4, "f1", negations=negations, top_k=top_k)
        extents = find_best_premises(X, y, max_size=4, negations=negations, top_k=top_k, size4_method="extents")
        assert [r.score for r in cells] == [r.score for r in extents]


@settings(max_examples=15, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), m=st.integers(1, 5), negations=st.booleans(),
       objective=st.sampled_from(OBJECTIVE_NAMES), top_k=st.integers(1, 3))
def test_hypothesis_size4(data, n, m, negations, objective, top_k):
    X = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    check_against_brute_force(X.reshape(n, m), y, 4, objective, negations=negations, top_k=top_k)


def test_size4_planted_repeat_rule_and_statistics():
    # a multiplexer (a AND b) OR (NOT a AND c) needs size 4 with a repeated attribute
    rng = np.random.default_rng(3)
    X = rng.random((200, 7)) < 0.5
    y = (X[:, 1] & X[:, 4]) | (~X[:, 1] & X[:, 6])
    results, stats = find_best_premises(X, y, max_size=4, return_stats=True, pareto=True)
    best = results[0]
    assert best.score == 1.0 and best.size == 4
    assert np.array_equal(best.formula.evaluate(X), y)
    frame = stats.to_frame()
    assert list(frame.index) == [1, 2, 3, 4] and frame.loc[4, "best_score"] == 1.0
    assert 0 < frame.loc[4, "tested"] and frame.loc[4, "counted"] <= 7 * 6 * 5 * 4 // 24
    assert 0 < frame.loc[4, "new_extents"] <= frame.loc[4, "tested"]
    assert stats.pareto[4][-1].score >= 0
    pytest.importorskip("tqdm")
    assert find_best_premises(X, y, max_size=4, progress=True)[0].score == 1.0


@pytest.mark.parametrize("m", range(0, 9))
def test_triple_offsets_number_sorted_triples_lexicographically(m):
    from itertools import combinations

    from logicrules.fca.premise.kernels import triple_offsets

    off = triple_offsets(m)
    index = [int(off[a, b] + c) for a, b, c in combinations(range(m), 3)]
    assert index == list(range(m * (m - 1) * (m - 2) // 6))


def test_size4_greedy_seed_keeps_the_search_exact():
    # the seed may already reach the optimum; the exhaustive scan must still confirm it and
    # return the same top-k as the brute force
    for seed in range(3):
        X, y = random_context(100 + seed, n=50, m=6)
        check_against_brute_force(X, y, 4, "f1", negations=True, top_k=4)


# ------------------------------------------------------------------- backends
def test_backend_argument_is_checked():
    X, y = random_context(5, n=30, m=4)
    with pytest.raises(ValueError, match="backend"):
        find_best_premises(X, y, backend="gpu")
    with pytest.raises(ValueError, match="device"):
        find_best_premises(X, y, backend="numba", device="cpu")
    # without a scan of size 3 or 4 the automatic choice never needs torch
    assert find_best_premises(X, y, max_size=2, backend="auto")[0].score > 0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(8, 60), m=st.integers(3, 9), max_size=st.sampled_from([3, 4]),
       negations=st.booleans(), objective=st.sampled_from(["f1", "accuracy", "mcc", "precision"]),
       top_k=st.integers(1, 3))
def test_torch_backend_gives_the_numba_results(seed, n, m, max_size, negations, objective, top_k):
    torch = pytest.importorskip("torch")
    X, y = random_context(seed, n=n, m=m, density=0.2 + 0.6 * (seed % 7) / 6)
    kwargs = dict(max_size=max_size, negations=negations, objective=objective, top_k=top_k, min_support=2)
    devices = ["cpu", *(["cuda"] if torch.cuda.is_available() else [])]     # CUDA too where present
    try:
        numba_results = find_best_premises(X, y, backend="numba", **kwargs)
    except ValueError as exc:           # e.g. F1 undefined everywhere: both backends say so
        for device in devices:
            with pytest.raises(ValueError, match="no premise"):
                find_best_premises(X, y, backend="torch", device=device, **kwargs)
        assert "no premise" in str(exc)
        return
    for device in devices:
        torch_results = find_best_premises(X, y, backend="torch", device=device, **kwargs)
        assert [(r.score, r.size) for r in torch_results] == [(r.score, r.size) for r in numba_results]
        for r in torch_results:
            pred = r.formula.evaluate(X)
            assert (int((pred & y).sum()), int((pred & ~y).sum())) == (r.tp, r.fp)


def test_torch_backend_on_the_bundled_breast_cancer_data():
    pytest.importorskip("torch")
    from logicrules.datasets import load_dataset
    from logicrules.fca.scaling import QuantileBinarizer

    X, y = load_dataset("breast_cancer_wisconsin")
    Xb = QuantileBinarizer(n_thresholds=4).fit(X).transform(X)
    expected = find_best_premises(Xb, y, max_size=3, backend="numba", top_k=2)
    found = find_best_premises(Xb, y, max_size=3, backend="torch", device="cpu", top_k=2)
    assert [(r.score, r.size) for r in found] == [(r.score, r.size) for r in expected]
    for a, b in zip(found, expected):           # same extents (ties may pick different premises)
        assert np.array_equal(a.formula.evaluate(Xb), b.formula.evaluate(Xb))


def _evaluate_tree(tree, columns):
    """Rows where a shape's tree holds, ``columns[i]`` the values of its variable ``i``."""
    if tree[0] == "lit":
        return ~columns[tree[1]] if tree[2] else columns[tree[1]]
    left, right = _evaluate_tree(tree[1], columns), _evaluate_tree(tree[2], columns)
    return left & right if tree[0] == "and" else left | right


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), negations=st.booleans(), objective=st.sampled_from(["f1", "accuracy", "mcc"]),
       quantile=st.floats(0, 1))
def test_substitution_bounds_of_the_proximity_pruning(seed, negations, objective, quantile):
    # replacing one attribute of a read-once premise by another attribute (either polarity with
    # negations) or by a constant loses at most the bound the scans prune with
    from logicrules.fca.premise.space import quadruple_shapes, triple_shapes
    from logicrules.fca.premise.search import _Search
    from logicrules.metrics import get_objective

    X, y = random_context(seed, n=40, m=6, density=0.2 + 0.6 * (seed % 5) / 4)
    search = _Search(X, y, list(range(6)), 3, get_objective(objective), 1, negations, 2**30, False)
    search.size1(False)
    search.size2(False)
    v = search.vars
    if len(v) < 3:
        return
    grid = np.meshgrid(np.arange(search.prep.n_pos + 1), np.arange(search.prep.n_neg + 1), indexing="ij")
    values = search._scores(*grid)
    lo, hi = values[np.isfinite(values)].min(), values.max()
    filt, w_single, w_pair, w_total = search._filter_weights(lo + quantile * (hi - lo), search.prep.tp[v],
                                                             search.prep.fp[v])
    if filt is None:
        return
    elim, elim_t, elim_const, _ = search._proximity_pruning(filt, w_single, w_pair, w_total)
    assert np.array_equal(elim_t, elim.T)
    cols = [X[:, search.prep.columns[r]] for r in v]
    weight = np.where(y, filt.alpha, filt.beta)
    slack = 1e-9 * (abs(filt.alpha) * len(y) + abs(filt.beta) * len(y) + 1)
    rng = np.random.default_rng(seed)
    for shapes, k in ((triple_shapes(negations), 3), (quadruple_shapes(negations), 4)):
        if len(v) < k:
            continue
        for shape in rng.choice(np.array(shapes, dtype=object), size=min(12, len(shapes)), replace=False):
            chosen = rng.choice(len(v), size=k, replace=False)
            columns = [cols[i] for i in chosen]
            value = weight[_evaluate_tree(shape.tree, columns)].sum()
            for pos in range(k):
                x = chosen[pos]
                const = [weight[_evaluate_tree(shape.tree, columns[:pos] + [np.full(len(y), c)] + columns[pos + 1:])].sum()
                         for c in (False, True)]
                assert value <= max(const) + elim_const[x] + slack
                for z in range(len(v)):
                    if z == x:
                        continue
                    subs = [cols[z]] + ([~cols[z]] if negations else [])
                    after = [weight[_evaluate_tree(shape.tree, columns[:pos] + [s] + columns[pos + 1:])].sum()
                             for s in subs]
                    assert value <= max(after) + elim[x, z] + slack


@pytest.mark.parametrize("name", ["breast_cancer_wisconsin", "heart_disease_cleveland"])
@pytest.mark.parametrize("negations", [False, True])
def test_size4_methods_agree_on_real_data(name, negations):
    # the pruned quadruple scan against the unpruned extent combination, top 3, on bundled data
    from logicrules.datasets import load_dataset
    from logicrules.fca.scaling import QuantileBinarizer

    X, y = load_dataset(name)
    Xb = QuantileBinarizer(n_thresholds=3).fit(X).transform(X)
    cells = find_best_premises(Xb, y, max_size=4, negations=negations, top_k=3)
    extents = find_best_premises(Xb, y, max_size=4, negations=negations, top_k=3, size4_method="extents",
                                 memory_limit="4GB")
    assert [r.score for r in cells] == [r.score for r in extents]


def _threshold_context(seed):
    """All-values-like attributes (nested thresholds of a few integer features): pruning is busy."""
    rng = np.random.default_rng(seed)
    features = rng.integers(0, 6, size=(90, 3))
    X = np.concatenate([features >= v for v in range(1, 6)], axis=1)
    y = ((features[:, 0] >= 3) & (features[:, 1] >= 2)) ^ (rng.random(90) < 0.15)
    return X, y


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), negations=st.booleans(), objective=st.sampled_from(["f1", "accuracy", "mcc"]),
       rank=st.integers(0, 40), connectives=st.sampled_from([("and", "or"), ("and",), ("or",)]),
       weighted=st.booleans())
def test_pruned_scans_keep_every_combination_that_passes(seed, negations, objective, rank, connectives, weighted):
    # the numba scans with every pruning bound on keep each triple / quadruple whose best formula
    # passes the linear test (checked against all shapes, counted directly from the data)
    from logicrules.fca.premise import kernels
    from logicrules.fca.premise.search import _Search
    from logicrules.fca.premise.space import (_quadruple_index_tables, quadruple_shapes, repeat_shapes, shape_matrix,
                                              triple_shapes)

    X, y = _threshold_context(seed)
    row_weight = np.random.default_rng(seed).uniform(0.2, 3, len(y)).round(1) if weighted else np.ones(len(y))
    search = _Search(X, y, list(range(X.shape[1])), 4, get_objective(objective), 1, negations, 2**30, False,
                     sample_weight=row_weight if weighted else None, connectives=connectives)
    search.size1(False)
    search.size2(False)
    p, v = search.prep, search.vars
    grid = np.meshgrid(np.linspace(0, p.n_pos, 41), np.linspace(0, p.n_neg, 41), indexing="ij")
    values = search._scores(*grid)
    scores = np.unique(values[np.isfinite(values)])
    filt, w_single, w_pair, w_total = search._filter_weights(scores[max(0, len(scores) - 1 - rank)], p.tp[v], p.fp[v])
    if filt is None or len(v) < 4:
        return
    elim, elim_t, elim_const, room = search._proximity_pruning(filt, w_single, w_pair, w_total)
    least_room = np.full((len(v), len(v) + 1), np.inf)
    least_room[:, :len(v)] = np.minimum.accumulate(room[:, ::-1], axis=1)[:, ::-1]
    cols = np.stack([X[:, p.columns[r]] for r in v])
    weight = np.where(y, filt.alpha, filt.beta) * row_weight
    nv, a_list = len(v), np.arange(len(v), dtype=np.int64)
    mode = search.mode
    kw = search._kernel_weights()
    margin = 1e-7 if weighted else 0.0          # float sums in another order than the kernels' (weighted)

    def best_values(combos, matrix):
        k = combos.shape[1]
        cells = np.zeros((len(combos), 2**k))
        for cell in range(2**k):
            rows = np.ones((len(combos), len(y)), dtype=bool)
            for i in range(k):
                bit = (cell >> (k - 1 - i)) & 1
                rows &= cols[combos[:, i]] if bit else ~cols[combos[:, i]]
            cells[:, cell] = rows @ weight
        return (cells @ matrix.T).max(axis=1)

    from itertools import combinations

    triples = np.array(list(combinations(range(nv), 3)))
    shapes3 = shape_matrix(triple_shapes(negations, connectives), 3)
    must3 = {tuple(t) for t in triples[best_values(triples, shapes3) >= filt.threshold + margin]}
    out_bc = np.zeros((nv, nv * nv, 2), np.int32)
    count = np.zeros(nv, np.int64)
    kernels.scan_triples(np.ascontiguousarray(p.bits_p[v]), np.ascontiguousarray(p.bits_n[v]), *kw, filt.alpha,
                         filt.beta, w_single, w_pair, w_total, filt.threshold, negations, mode, elim, elim_t,
                         elim_const, room, least_room, a_list, nv * nv, out_bc, count, np.zeros(nv, np.int64))
    assert must3 <= {(int(a), int(b), int(c)) for a in range(nv) for b, c in out_bc[a, :count[a]]}

    quads = np.array(list(combinations(range(nv), 4)))
    rep3 = repeat_shapes(3, negations, 4, connectives)
    rep_cells = shape_matrix(rep3, 3).astype(np.float64)
    shapes4 = shape_matrix(quadruple_shapes(negations, connectives), 4)
    must4 = {tuple(q) for q in quads[best_values(quads, shapes4) >= filt.threshold + margin]}
    must_rep = {tuple(t) for t in triples[best_values(triples, rep_cells) >= filt.threshold + margin]}
    offsets = kernels.triple_offsets(nv)
    n3 = len(triples)
    dtype = search._triple_count_dtype()            # the search's own (no kernel compiled for the test alone)
    t_p, t_n, rooms = np.zeros(n3, dtype), np.zeros(n3, dtype), np.zeros(n3, np.float32)
    row_min = np.zeros((nv, nv), np.float32)
    bits_p, bits_n = np.ascontiguousarray(p.bits_p[v]), np.ascontiguousarray(p.bits_n[v])
    kernels.triple_counts(bits_p, bits_n, *kw, weighted, offsets, t_p, t_n)
    slack = 1e-9 * (abs(filt.alpha) * p.n_pos + abs(filt.beta) * p.n_neg + 1.0)
    kernels.triple_rooms(offsets, t_p, t_n, filt.alpha, filt.beta, w_single, w_pair, w_total, filt.threshold,
                         rep_cells, slack, rooms, row_min)
    half, pair = _quadruple_index_tables()
    cap = len(quads) + 1
    out_q, out_t = np.zeros((nv, cap, 3), np.int32), np.zeros((nv, cap, 2), np.int32)
    qc, tc = np.zeros(nv, np.int64), np.zeros(nv, np.int64)
    kernels.scan_quadruples(bits_p, bits_n, *kw, offsets, t_p, t_n, filt.alpha, filt.beta, w_single, w_pair, w_total,
                            filt.threshold, negations, mode, half, pair, rep_cells, elim, elim_t, elim_const, slack, rooms,
                            row_min, True, a_list, cap, out_q, qc, out_t, tc, np.zeros(nv, np.int64))
    assert must4 <= {(int(a), *map(int, r)) for a in range(nv) for r in out_q[a, :qc[a]]}
    assert must_rep <= {(int(a), *map(int, r)) for a in range(nv) for r in out_t[a, :tc[a]]}
