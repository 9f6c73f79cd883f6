"""Tests of the optional PyTorch backend of the premise-search scans (CPU; CUDA too where present).

Every scan is checked against a slow reference written from the definitions (all attribute
combinations, their cell counts from the boolean matrix, every shape of the premise space) and
against the numba kernels with their pruning disabled, on small random contexts.
"""

import itertools
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from logicrules.fca.premise import kernels  # noqa: E402
from logicrules.fca.premise import torch_counter  # noqa: E402
from logicrules.fca.premise.results import PremiseSearchMemoryError  # noqa: E402
from logicrules.fca.premise.space import (  # noqa: E402
    _quadruple_index_tables,
    pair_shapes,
    prepare_attributes,
    quadruple_shapes,
    repeat_shapes,
    shape_matrix,
    triple_shapes,
)
from logicrules.fca.premise.torch_backend import TorchCounter, gpu_available, torch_device  # noqa: E402
from logicrules.fca.premise.torch_device import MAX_EXACT_ROWS, _check_exact_rows  # noqa: E402
from logicrules.metrics import get_objective  # noqa: E402

OBJECTIVES = ["f1", "accuracy", "mcc", "jaccard", "wracc", "balanced_accuracy"]
# the scans run on the CPU everywhere, and also on CUDA where a GPU is present (float16 GEMMs)
DEVICES = ["cpu", *(["cuda"] if torch.cuda.is_available() else [])]


# ----------------------------------------------------------------------------- the setting
def unweighted_groups(case):
    """The numba kernels' weight groups of an unweighted case: one group of weight 1 per class."""
    return (np.array([0, case.bits_p.shape[1]]), np.ones(1), np.array([0, case.bits_n.shape[1]]), np.ones(1))


class Case:
    """A random context prepared as search.py prepares it, and one linear filter's weights.

    The filter is the objective's ``filter(t, P, N)`` with ``t`` the ``rank``-th best score of the
    premises of size <= 2 (the search's running threshold after size 2).
    """

    def __init__(self, seed, n, m, density, negations, objective, rank):
        rng = np.random.default_rng(seed)
        X = rng.random((n, m)) < density
        y = rng.random(n) < 0.5
        y[0], y[-1] = True, False
        p = prepare_attributes(X, y, negations)
        v = np.flatnonzero(~p.constant)
        self.negations = negations
        self.m = len(v)
        self.bits_p = np.ascontiguousarray(p.bits_p[v])
        self.bits_n = np.ascontiguousarray(p.bits_n[v])
        self.n_pos, self.n_neg = p.n_pos, p.n_neg
        self.Xp = X[y][:, p.columns[v]]                 # dense reference, straight from X
        self.Xn = X[~y][:, p.columns[v]]
        self.a_list = np.flatnonzero(rng.random(self.m) < 0.8)
        obj = get_objective(objective)

        def score(tp, fp):
            values = obj(tp, fp, p.n_pos - tp, p.n_neg - fp)
            return np.where(np.isnan(values), -np.inf, values)

        tp2, fp2 = (self.counts(X, 2, shapes=pair_shapes(negations))[1] for X in (self.Xp, self.Xn))
        scores = np.sort(np.concatenate([score(tp2.ravel(), fp2.ravel()), score(p.tp[v], p.fp[v])]))
        self.filt = obj.filter(float(scores[::-1][min(rank, len(scores) - 1)]), p.n_pos, p.n_neg) \
            if len(scores) else None
        if self.filt is None:
            return
        a, b = self.filt.alpha, self.filt.beta
        tpv, fpv = p.tp[v], p.fp[v]
        pair_p = (self.Xp.T.astype(np.float32) @ self.Xp).astype(np.int32)     # as _Search.size2
        pair_n = (self.Xn.T.astype(np.float32) @ self.Xn).astype(np.int32)
        self.w_single = a * tpv + b * fpv                                       # as _filter_weights
        self.w_pair = a * pair_p + b * pair_n.astype(np.float64)
        self.w_total = a * p.n_pos + b * p.n_neg
        self.slack = 1e-9 * (abs(a) * p.n_pos + abs(b) * p.n_neg + 1.0)
        self.threshold = self.filt.threshold

    def counter(self, device="cpu", **kwargs):
        return TorchCounter(self.bits_p, self.bits_n, self.n_pos, self.n_neg, device=device, **kwargs)

    def args(self):
        f = self.filt
        return f.alpha, f.beta, self.w_single, self.w_pair, self.w_total, self.threshold, self.negations

    def counts(self, X, k, shapes, first=None):
        """Combinations ``a < b < ...`` (``a`` in ``first`` when given) and their counts per shape."""
        combos = np.array([c for c in itertools.combinations(range(self.m), k) if first is None or c[0] in first],
                          dtype=np.int64).reshape(-1, k)
        cell = sum(X[:, combos[:, i]].astype(np.int64) << (k - 1 - i) for i in range(k))   # (rows, C)
        cells = np.array([np.bincount(cell[:, j], minlength=2**k) for j in range(len(combos))],
                         dtype=np.int64).reshape(len(combos), 2**k)
        return combos, cells @ shape_matrix(shapes, k).T

    def best(self, k, shapes):
        """Combinations with first attribute in ``a_list`` and their best ``alpha tp + beta fp``."""
        combos, tp = self.counts(self.Xp, k, shapes, set(self.a_list))
        _, fp = self.counts(self.Xn, k, shapes, set(self.a_list))
        values = self.filt.alpha * tp + self.filt.beta * fp
        return combos, values.max(axis=1) if len(combos) else np.zeros(0)

    def reference(self, k, shapes, margin=0.0):
        """The combinations whose best shape passes: (strictly, with twice the slack).

        With ``margin``, the threshold is first raised by ``margin`` times the slack.
        """
        combos, best = self.best(k, shapes)
        thr = self.threshold + margin * self.slack
        return as_set(combos[best >= thr]), as_set(combos[best >= thr - 2 * self.slack])

    def move_threshold(self, k, shapes, quantile):
        """Optionally put the threshold on one of the combinations' values (ties with the threshold)."""
        _, best = self.best(k, shapes)
        if quantile is not None and len(best):
            self.threshold = float(np.quantile(best, quantile, method="lower"))


def as_set(rows):
    return {tuple(int(x) for x in r) for r in rows}


def check_sorted(rows, k):
    rows = np.asarray(rows)
    assert rows.dtype == np.int64 and rows.shape == (len(rows), k)
    assert (np.diff(rows, axis=1) > 0).all()                            # a < b < c (< d)
    order = np.lexsort(rows.T[::-1]) if len(rows) else np.zeros(0, np.int64)
    assert (order == np.arange(len(rows))).all()


cases = st.builds(
    Case, seed=st.integers(0, 2**32 - 1), n=st.integers(8, 80), m=st.integers(3, 12),
    density=st.floats(0.2, 0.8), negations=st.booleans(), objective=st.sampled_from(OBJECTIVES),
    rank=st.integers(0, 30))
small_cases = st.builds(
    Case, seed=st.integers(0, 2**32 - 1), n=st.integers(8, 60), m=st.integers(3, 8),
    density=st.floats(0.2, 0.8), negations=st.booleans(), objective=st.sampled_from(OBJECTIVES),
    rank=st.integers(0, 30))


# ----------------------------------------------------------------------------- size 3
@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=25, deadline=None)
@given(case=cases, quantile=st.none() | st.floats(0, 1))
def test_triple_scan_equals_reference_and_contains_numba(device, case, quantile):
    if case.filt is None:
        return
    case.move_threshold(3, triple_shapes(case.negations), quantile)
    got = case.counter(device).scan_triples(*case.args(), case.a_list)
    check_sorted(got, 3)
    strict, loose = case.reference(3, triple_shapes(case.negations))
    assert strict <= as_set(got) <= loose
    # numba's kernel with its proximity pruning disabled keeps a subset
    m = case.m
    a_list = case.a_list.astype(np.int64)
    out_bc = np.zeros((len(a_list), m * m + 1, 2), np.int32)
    out_count = np.zeros(len(a_list), np.int64)
    out_counted = np.zeros(len(a_list), np.int64)
    f = case.filt
    kernels.scan_triples(case.bits_p, case.bits_n, *unweighted_groups(case), f.alpha, f.beta, case.w_single, case.w_pair,
                         case.w_total, case.threshold, case.negations, 0, np.zeros((m, m)), np.zeros((m, m)), np.zeros(m),
                         np.full((m, m), -np.inf), np.full((m, m + 1), -np.inf),
                         a_list, m * m + 1, out_bc, out_count, out_counted)
    numba = {(int(a), int(b), int(c)) for i, a in enumerate(a_list) for b, c in out_bc[i, :out_count[i]]}
    assert numba <= as_set(got)
    assert case.reference(3, triple_shapes(case.negations), margin=2)[0] <= numba


# ----------------------------------------------------------------------------- size 4
@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=20, deadline=None)
@given(case=small_cases, quantile=st.none() | st.floats(0, 1))
def test_quadruple_scan_equals_reference_and_contains_numba(device, case, quantile):
    if case.filt is None:
        return
    neg = case.negations
    case.move_threshold(4, quadruple_shapes(neg), quantile)
    rep3 = repeat_shapes(3, neg)
    rep_cells = shape_matrix(rep3, 3).astype(np.float64)
    quads, trips = case.counter(device).scan_quadruples(*case.args(), rep_cells, case.a_list)
    check_sorted(quads, 4)
    check_sorted(trips, 3)
    strict, loose = case.reference(4, quadruple_shapes(neg))
    assert strict <= as_set(quads) <= loose
    strict, loose = case.reference(3, rep3)
    assert strict <= as_set(trips) <= loose
    # numba's kernel; infinite distances disable its proximity pruning (zeros would prune there)
    m = case.m
    if m < 3:
        return
    a_list = case.a_list[case.a_list < m - 2].astype(np.int64)
    offsets = kernels.triple_offsets(m)
    n_triples = m * (m - 1) * (m - 2) // 6
    t_p, t_n = np.zeros(n_triples, np.int16), np.zeros(n_triples, np.int16)
    kernels.triple_counts(case.bits_p, case.bits_n, *unweighted_groups(case), False, offsets, t_p, t_n)
    half, pair = _quadruple_index_tables()
    cap = m**3 + 1
    out_q = np.zeros((len(a_list), cap, 3), np.int32)
    out_t = np.zeros((len(a_list), cap, 2), np.int32)
    counts = [np.zeros(len(a_list), np.int64) for _ in range(3)]
    f = case.filt
    kernels.scan_quadruples(case.bits_p, case.bits_n, *unweighted_groups(case), offsets, t_p, t_n, f.alpha, f.beta,
                            case.w_single, case.w_pair, case.w_total, case.threshold, neg, 0, half, pair, rep_cells,
                            np.full((m, m), np.inf), np.full((m, m), np.inf), np.full(m, np.inf), case.slack,
                            np.zeros(1, np.float32), np.zeros((1, 1), np.float32),
                            False, a_list, cap, out_q, counts[0], out_t, counts[1], counts[2])
    numba_q = {(int(a), *map(int, r)) for i, a in enumerate(a_list) for r in out_q[i, :counts[0][i]]}
    numba_t = {(int(a), *map(int, r)) for i, a in enumerate(a_list) for r in out_t[i, :counts[1][i]]}
    assert numba_q <= as_set(quads)
    assert numba_t <= as_set(trips)
    assert case.reference(4, quadruple_shapes(neg), margin=2)[0] <= numba_q
    assert case.reference(3, rep3, margin=2)[0] <= numba_t


def test_small_blocks_give_the_same_result():
    """A tight memory_limit splits the scans into many blocks and chunks: same output."""
    case = Case(7, 70, 12, 0.5, True, "f1", 5)
    big = case.counter()
    small = case.counter(memory_limit=60_000)
    a_list = np.arange(case.m)
    rep_cells = shape_matrix(repeat_shapes(3, True), 3).astype(np.float64)
    np.testing.assert_array_equal(big.scan_triples(*case.args(), a_list), small.scan_triples(*case.args(), a_list))
    for x, y in zip(big.scan_quadruples(*case.args(), rep_cells, a_list),
                    small.scan_quadruples(*case.args(), rep_cells, a_list)):
        np.testing.assert_array_equal(x, y)


def test_degenerate_inputs():
    case = Case(3, 30, 6, 0.5, False, "accuracy", 3)
    counter = case.counter()
    rep_cells = shape_matrix(repeat_shapes(3, False), 3).astype(np.float64)
    assert counter.scan_triples(*case.args(), np.zeros(0, np.int64)).shape == (0, 3)
    assert counter.scan_triples(*case.args(), [case.m - 2, case.m - 1]).shape == (0, 3)
    q, t = counter.scan_quadruples(*case.args(), rep_cells, [])
    assert q.shape == (0, 4) and t.shape == (0, 3)
    # one class without rows: counts of the other class only
    bits = case.bits_p
    only = TorchCounter(bits, np.zeros((len(bits), 1), np.uint64), case.n_pos, 0, device="cpu")
    w_pair = (case.Xp.T.astype(float) @ case.Xp)
    got = only.scan_triples(1.0, -1.0, case.Xp.sum(0).astype(float), w_pair, case.n_pos, -np.inf, True,
                            np.arange(case.m))
    assert len(got) == case.m * (case.m - 1) * (case.m - 2) // 6


# ----------------------------------------------------------------------------- errors, devices
def test_memory_limit_too_small_raises():
    case = Case(1, 40, 8, 0.5, True, "f1", 2)
    counter = case.counter(memory_limit=1000)
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        counter.scan_triples(*case.args(), np.arange(case.m))
    rep_cells = shape_matrix(repeat_shapes(3, True), 3).astype(np.float64)
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        counter.scan_quadruples(*case.args(), rep_cells, np.arange(case.m))


def test_bad_inputs_raise_value_errors():
    case = Case(2, 40, 8, 0.5, True, "f1", 2)
    with pytest.raises(ValueError, match="uint64"):
        TorchCounter(case.bits_p.astype(np.int64), case.bits_n, case.n_pos, case.n_neg, device="cpu")
    with pytest.raises(ValueError, match="one row per attribute"):
        TorchCounter(case.bits_p[:-1], case.bits_n, case.n_pos, case.n_neg, device="cpu")
    with pytest.raises(ValueError, match="n_pos"):
        TorchCounter(case.bits_p, case.bits_n, 64 * case.bits_p.shape[1] + 1, case.n_neg, device="cpu")
    counter = case.counter()
    alpha, beta, w_single, w_pair, w_total, threshold, neg = case.args()
    with pytest.raises(ValueError, match="w_pair"):
        counter.scan_triples(alpha, beta, w_single, w_pair[:-1], w_total, threshold, neg, [0])
    with pytest.raises(ValueError, match="a_list"):
        counter.scan_triples(*case.args(), [case.m])
    with pytest.raises(ValueError, match="rep_cells"):
        counter.scan_quadruples(*case.args(), np.zeros((3, 4)), [0])


def test_exact_row_guard():
    _check_exact_rows(MAX_EXACT_ROWS)
    with pytest.raises(ValueError, match="2\\*\\*24"):
        _check_exact_rows(MAX_EXACT_ROWS + 1)


def test_devices():
    assert isinstance(gpu_available(), bool)
    assert torch_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="cpu' or 'cuda"):
        torch_device("meta")
    if not torch.cuda.is_available():
        assert gpu_available() is False
        for device in ("cuda", "cuda:1", None, "auto"):
            with pytest.raises(RuntimeError, match="CUDA"):
                torch_device(device)


def test_without_torch_clear_import_error(monkeypatch):
    case = Case(2, 20, 5, 0.5, True, "f1", 2)
    monkeypatch.setitem(sys.modules, "torch", None)         # import torch now raises ImportError
    assert gpu_available() is False
    with pytest.raises(ImportError, match="pip install torch"):
        torch_device("cpu")
    with pytest.raises(ImportError, match="pip install torch"):
        TorchCounter(case.bits_p, case.bits_n, case.n_pos, case.n_neg, device="cpu")


# ----------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("negations", [True, False])
def test_closed_forms_equal_the_best_shape(negations):
    """The vectorized closed forms equal the best of the enumerated shapes on random cells."""
    from logicrules.fca.premise.torch_closed_forms import _best3, _best_read_once4

    rng = np.random.default_rng(5)
    f3 = rng.normal(size=(8, 3000)) * rng.integers(1, 5, size=3000)
    f4 = rng.normal(size=(16, 3000)) * rng.integers(1, 5, size=3000)
    f3[:, ::3] = np.round(f3[:, ::3])                                   # ties
    f4[:, ::3] = np.round(f4[:, ::3])
    M3 = shape_matrix(triple_shapes(negations), 3).astype(float)
    M4 = shape_matrix(quadruple_shapes(negations), 4).astype(float)
    half, pair = _quadruple_index_tables()
    got3 = _best3(torch, torch.as_tensor(f3).view(2, 2, 2, -1), negations).numpy()
    got4 = _best_read_once4(torch, torch.as_tensor(f4), negations, torch.as_tensor(half.ravel()),
                            torch.as_tensor(pair.ravel())).numpy()
    np.testing.assert_allclose(got3, (M3 @ f3).max(axis=0), atol=1e-9)
    np.testing.assert_allclose(got4, (M4 @ f4).max(axis=0), atol=1e-9)
    for j in range(0, 3000, 97):                                        # and numba's closed form
        assert got4[j] == pytest.approx(kernels.best_read_once4(f4[:, j].copy(), negations, half, pair), abs=1e-9)


def test_automatic_backend_does_not_import_torch_without_a_gpu():
    # without a GPU driver the automatic choice must not pay for importing torch
    import os
    import subprocess
    import sys

    if os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/kfd"):
        pytest.skip("a GPU driver is present here")
    code = ("import sys, numpy as np\n"
            "from logicrules.fca import find_best_premises, gpu_available\n"
            "X = np.random.default_rng(0).random((40, 6)) < 0.5\n"
            "find_best_premises(X, X[:, 0] ^ X[:, 1], max_size=3)\n"
            "print(gpu_available(), 'torch' in sys.modules)")
    env = dict(os.environ, PATH="/usr/bin:/bin")        # no nvidia-smi on this PATH
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["False", "False"]


# ----------------------------------------------------------------------------- pruned scans
def _pruning_setting(seed, negations, objective, rank, device="cpu"):
    """A search after size 2 on all-values-like attributes (the pruning is busy), one threshold's test."""
    from logicrules.fca.premise.search import _Search

    rng = np.random.default_rng(seed)
    features = rng.integers(0, 6, size=(90, 3))
    X = np.concatenate([features >= v for v in range(1, 6)], axis=1)
    y = ((features[:, 0] >= 3) & (features[:, 1] >= 2)) ^ (rng.random(90) < 0.15)
    search = _Search(X, y, list(range(X.shape[1])), 4, get_objective(objective), 1, negations, 2**30, False)
    search.size1(False)
    search.size2(False)
    p, v = search.prep, search.vars
    grid = np.meshgrid(np.arange(p.n_pos + 1), np.arange(p.n_neg + 1), indexing="ij")
    values = search._scores(*grid)
    scores = np.unique(values[np.isfinite(values)])
    filt, w_single, w_pair, w_total = search._filter_weights(scores[max(0, len(scores) - 1 - rank)], p.tp[v],
                                                             p.fp[v])
    if filt is None or len(v) < 4:
        return None
    elim, _, elim_const, room = search._proximity_pruning(filt, w_single, w_pair, w_total)
    bits = (np.ascontiguousarray(p.bits_p[v]), np.ascontiguousarray(p.bits_n[v]), p.n_pos, p.n_neg)
    counter = TorchCounter(*bits, device=device)
    args = (filt.alpha, filt.beta, w_single, w_pair, w_total, filt.threshold, negations,
            shape_matrix(repeat_shapes(3, negations), 3).astype(np.float64))
    return counter, args, elim, elim_const, room, bits


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), negations=st.booleans(), objective=st.sampled_from(["f1", "accuracy", "mcc"]),
       rank=st.integers(0, 300))
def test_pruned_scans_keep_exactly_what_passes(device, seed, negations, objective, rank):
    # the exact pruning only skips what cannot pass: same triples and quadruples as the full scans
    setting = _pruning_setting(seed, negations, objective, rank, device)
    if setting is None:
        return
    counter, args, elim, elim_const, room, _ = setting
    m, a_list = counter.m, np.arange(counter.m)
    full, n_full = counter.scan_triples(*args[:7], a_list, return_counted=True)
    pruned, n_pruned = counter.scan_triples(*args[:7], a_list, elim, elim_const, room, return_counted=True)
    np.testing.assert_array_equal(pruned, full)
    check_sorted(pruned, 3)
    assert n_pruned <= n_full == m * (m - 1) * (m - 2) // 6
    full = counter.quadruple_scan(*args)
    pruned = counter.quadruple_scan(*args, elim, elim_const)
    for got, want in zip(pruned.run(a_list), full.run(a_list)):
        np.testing.assert_array_equal(got, want)
    assert pruned.counted <= full.counted == m * (m - 1) * (m - 2) * (m - 3) // 24


def test_pruned_quadruple_scan_skips_quadruples_and_splits_into_chunks():
    counter, args, elim, elim_const, _, bits = _pruning_setting(11, False, "f1", 150)
    a_list = np.arange(counter.m)
    full = counter.quadruple_scan(*args)
    want = full.run(a_list)
    pruned = counter.quadruple_scan(*args, elim, elim_const)
    got = pruned.run(a_list)
    assert len(want[0]) and len(want[1]) and pruned.counted < full.counted / 2
    small = TorchCounter(*bits, device="cpu", memory_limit=120_000)      # many chunks of pairs and cells
    split = small.quadruple_scan(*args, elim, elim_const)
    for x, y, z in zip(split.run(a_list), got, want):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)
    assert split.counted == pruned.counted
    with pytest.raises(ValueError, match="elim and elim_const together"):
        counter.quadruple_scan(*args, elim, None)
    with pytest.raises(ValueError, match="shapes"):
        counter.quadruple_scan(*args, elim[:-1], elim_const)


def test_pruned_triple_scan_skips_triples_and_splits_into_chunks():
    counter, args, elim, elim_const, room, bits = _pruning_setting(11, False, "f1", 150)
    a_list = np.arange(counter.m)
    full, n_full = counter.scan_triples(*args[:7], a_list, return_counted=True)
    pruned, n_pruned = counter.scan_triples(*args[:7], a_list, elim, elim_const, room, return_counted=True)
    assert len(full) and n_pruned < n_full / 3
    small = TorchCounter(*bits, device="cpu", memory_limit=20_000)          # chunks of a few pairs and cells
    split, n_split = small.scan_triples(*args[:7], a_list, elim, elim_const, room, return_counted=True)
    np.testing.assert_array_equal(split, full)
    assert n_split == n_pruned
    with pytest.raises(ValueError, match="together"):
        counter.scan_triples(*args[:7], a_list, elim, elim_const)
    with pytest.raises(ValueError, match="shapes"):
        counter.scan_triples(*args[:7], a_list, elim, elim_const, room[:-1])


# ----------------------------------------------------------------------------- the CUDA dtype path
def _emulate_half_gemm(monkeypatch, mode):
    """Let the CPU take the CUDA path: float16 matrices and ``torch.mm(..., out_dtype=float32)``.

    ``mode``: "exact" emulates that GEMM exactly (0/1 inputs cast to float32, as CUDA
    accumulates), "missing" raises like a build without it, "float16" rounds like a float16
    accumulator. Returns the list of shapes the emulated GEMM was called with.
    """
    real_mm = torch.mm
    calls = []

    def mm(left, right, *, out_dtype=None):
        if out_dtype is None:
            return real_mm(left, right)
        if mode == "missing":
            raise RuntimeError("Could not run 'aten::mm.dtype' with arguments from this backend")
        assert left.dtype == right.dtype == torch.float16 and out_dtype == torch.float32
        calls.append((tuple(left.shape), tuple(right.shape)))
        exact = real_mm(left.to(out_dtype), right.to(out_dtype))
        return exact if mode == "exact" else exact.to(torch.float16).to(out_dtype)

    monkeypatch.setattr(torch_counter, "_HALF_GEMM_DEVICES", ("cuda", "cpu"))
    monkeypatch.setattr(torch, "mm", mm)
    return calls


def _case_scans(counter, case):
    """The unpruned triple and quadruple scans of a :class:`Case`."""
    a_list = np.arange(case.m)
    rep_cells = shape_matrix(repeat_shapes(3, case.negations), 3).astype(np.float64)
    return [counter.scan_triples(*case.args(), a_list), *counter.scan_quadruples(*case.args(), rep_cells, a_list)]


def _pruned_scans(counter, args, elim, elim_const, room):
    """The pruned triple and quadruple scans of a :func:`_pruning_setting`."""
    a_list = np.arange(counter.m)
    return [counter.scan_triples(*args[:7], a_list, elim, elim_const, room),
            *counter.quadruple_scan(*args, elim, elim_const).run(a_list)]


@pytest.mark.parametrize("negations", [False, True])
def test_float16_matrices_with_float32_products_give_the_same_scans(monkeypatch, negations):
    # everything of the CUDA path but the CUDA kernel itself: float16 storage and products of
    # rows, the out_dtype GEMM, memory sized for 2-byte entries
    case = Case(5, 70, 10, 0.5, negations, "f1", 4)
    _, args, elim, elim_const, room, bits = _pruning_setting(11, negations, "f1", 150)
    want = (_case_scans(case.counter(), case)
            + _pruned_scans(TorchCounter(*bits, device="cpu"), args, elim, elim_const, room))
    assert all(len(rows) for rows in want)
    calls = _emulate_half_gemm(monkeypatch, "exact")
    half, half_pruned = case.counter(), TorchCounter(*bits, device="cpu")
    for counter in (half, half_pruned):
        assert counter._dtype == torch.float16 and counter._itemsize() == 2
        assert all(x.dtype == torch.float16 for x in counter._x)
    got = _case_scans(half, case) + _pruned_scans(half_pruned, args, elim, elim_const, room)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)
    assert calls and all(left[1] == right[0] for left, right in calls)


@pytest.mark.parametrize("mode", ["missing", "float16"])
def test_half_gemm_falls_back_to_float32_when_the_probe_fails(monkeypatch, mode):
    case = Case(6, 50, 8, 0.5, True, "accuracy", 3)
    want = case.counter().scan_triples(*case.args(), np.arange(case.m))
    _emulate_half_gemm(monkeypatch, mode)
    counter = case.counter()
    assert counter._dtype == torch.float32 and counter._itemsize() == 4
    np.testing.assert_array_equal(counter.scan_triples(*case.args(), np.arange(case.m)), want)


def test_float16_path_in_the_whole_search(monkeypatch):
    from logicrules.fca.premise.search import find_best_premises

    rng = np.random.default_rng(3)
    X = rng.random((80, 8)) < 0.45
    y = (X[:, 0] & (X[:, 1] | X[:, 2])) ^ (rng.random(80) < 0.1)
    want = find_best_premises(X, y, max_size=4, top_k=3, backend="numba")
    calls = _emulate_half_gemm(monkeypatch, "exact")
    got = find_best_premises(X, y, max_size=4, top_k=3, backend="torch", device="cpu")
    assert calls
    assert [(r.score, r.size) for r in got] == [(r.score, r.size) for r in want]
    for r in got:
        pred = r.formula.evaluate(X)
        assert (int((pred & y).sum()), int((pred & ~y).sum())) == (r.tp, r.fp)


def test_every_tensor_is_made_on_the_counter_device():
    # a tensor made without naming its device would land on the default device, not the GPU's:
    # with "meta" as the default, any such tensor would fail the CPU scans
    case = Case(5, 70, 10, 0.5, True, "f1", 4)
    _, args, elim, elim_const, room, bits = _pruning_setting(11, True, "f1", 150)
    want = (_case_scans(case.counter(), case)
            + _pruned_scans(TorchCounter(*bits, device="cpu"), args, elim, elim_const, room))
    with torch.device("meta"):
        got = (_case_scans(case.counter(), case)
               + _pruned_scans(TorchCounter(*bits, device="cpu"), args, elim, elim_const, room))
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)
    from logicrules.fca.premise.search import find_best_premises

    X, y = np.random.default_rng(8).random((60, 7)) < 0.5, np.arange(60) % 3 == 0
    expected = find_best_premises(X, y, max_size=4, top_k=2, backend="numba")
    with torch.device("meta"):
        found = find_best_premises(X, y, max_size=4, top_k=2, backend="torch", device="cpu")
    assert [(r.score, r.size) for r in found] == [(r.score, r.size) for r in expected]
