"""The premise search keeps its own allocations inside ``memory_limit`` (numpy allocations traced).

The search's arrays are numpy arrays, which ``tracemalloc`` sees; the input matrix is allocated
before the trace starts (the limit covers the search, not the caller's data). Covered: the
unweighted and the weighted search (packing by weight groups included), the search over chunked
counts, and the host side of the torch backend on the CPU (torch's own tensors are not traced:
their size is checked against the limit before they are allocated).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ChunkedCounts
from logicrules.fca.premise import (
    OptimalPremiseClassifier,
    PremiseSearchMemoryError,
    find_best_premises,
    find_best_premises_from_counts,
)
from logicrules.memory import MemoryLimitError


def _traced_peak(run) -> tuple[object, int]:
    """``run()``'s result and the peak of traced memory above what was allocated before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = run()
        return result, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_search_under_a_small_memory_limit_stays_inside_it():
    rng = np.random.default_rng(0)
    n, m = 200_000, 24
    X = rng.random((n, m), dtype=np.float32) < 0.3
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    find_best_premises(X[:300], y[:300], max_size=3)              # compile the kernels outside the trace
    limit = 8 * 2**20                       # the bool input alone is 4.8 MB, its packed bits 0.6 MB
    results, peak = _traced_peak(lambda: find_best_premises(X, y, max_size=3, memory_limit=limit))
    assert str(results[0].formula) == "x2 OR (x0 AND x1)"
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    unlimited = find_best_premises(X, y, max_size=3)[0]
    assert (results[0].score, results[0].tp, results[0].fp) == (unlimited.score, unlimited.tp, unlimited.fp)


def test_a_formal_context_is_read_from_its_bits_never_unpacked_whole():
    rng = np.random.default_rng(7)
    X = rng.random((100_000, 100), dtype=np.float32) < 0.3                 # as bools 10 MB, packed 1.25 MB
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    context = FormalContext(X, attributes=[f"x{j}" for j in range(100)])
    find_best_premises(X[:300], y[:300], max_size=3)              # compile the kernels outside the trace
    limit = 8 * 2**20
    # as the estimator calls it: statistics too (the distinct extents of sizes 1-2 are hashed by blocks)
    (results, _), peak = _traced_peak(lambda: find_best_premises(context, y, max_size=3, memory_limit=limit,
                                                                 return_stats=True))
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    expected = find_best_premises(X, y, max_size=3)[0]
    assert (results[0].score, results[0].tp, str(results[0].formula)) == (expected.score, expected.tp,
                                                                            str(expected.formula))


def test_non_bool_input_is_converted_by_blocks_inside_the_limit():
    """0/1 integers and DataFrames become one bool copy (counted), never a float copy of the input."""
    rng = np.random.default_rng(6)
    X = (rng.random((100_000, 24)) < 0.3).astype(np.int8)                  # 2.4 MB; as float64 19 MB
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    limit = 8 * 2**20
    for data in (X, pd.DataFrame(X, columns=[f"c{j}" for j in range(24)])):
        results, peak = _traced_peak(lambda: find_best_premises(data, y, max_size=2, memory_limit=limit))
        assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
        assert results[0].score == find_best_premises(X.astype(bool), y, max_size=2)[0].score
    with pytest.raises(PremiseSearchMemoryError, match="bool copy"):
        find_best_premises(X, y, max_size=2, memory_limit="2MB")


def test_too_small_a_memory_limit_is_refused_before_the_search():
    X = np.random.default_rng(1).random((5000, 60)) < 0.5
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        find_best_premises(X, X[:, 0], max_size=3, memory_limit="100KB")


def test_weighted_search_under_a_small_memory_limit_stays_inside_it():
    """Weighted packing (rows grouped by weight, each group a new word) and the weighted counts stay inside."""
    rng = np.random.default_rng(2)
    n, m = 100_000, 100                     # the bool input is 10 MB: a sorted copy of it would not fit
    X = rng.random((n, m), dtype=np.float32) < 0.3
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    w = rng.integers(0, 40, n).astype(np.float64) / 4          # 39 distinct positive weights, some rows left out
    find_best_premises(X[:300], y[:300], max_size=3, sample_weight=w[:300])   # compile outside the trace
    limit = 8 * 2**20
    results, peak = _traced_peak(lambda: find_best_premises(X, y, max_size=3, memory_limit=limit, sample_weight=w))
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    unlimited = find_best_premises(X, y, max_size=3, sample_weight=w)[0]
    assert (results[0].score, results[0].tp, results[0].fp) == (unlimited.score, unlimited.tp, unlimited.fp)
    assert str(results[0].formula) == str(unlimited.formula)


def test_weighted_packing_that_cannot_fit_is_refused_before_packing():
    """Each distinct weight starts a new 64-bit word: n distinct weights need a word per row, and the
    error says so before the bitsets are allocated."""
    rng = np.random.default_rng(3)
    X = rng.random((50_000, 40)) < 0.5
    w = rng.random(50_000) + 0.5                                  # every weight distinct
    tracemalloc.start()
    try:
        with pytest.raises(PremiseSearchMemoryError, match="sample_weight") as info:
            find_best_premises(X, X[:, 0] ^ X[:, 1], max_size=2, sample_weight=w, memory_limit="8MB")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "packing 40 attributes" in str(info.value) and "distinct values" in str(info.value)
    assert peak < 8e6                                             # refused before the 16 MB of bitsets
    assert isinstance(info.value, MemoryLimitError)


def test_search_from_counts_under_a_small_memory_limit_stays_inside_it():
    """The search over chunked counts: Gram matrices, pair bounds, candidate batches and the partial
    counts of each chunk stay inside the limit (the chunks themselves are the caller's)."""
    rng = np.random.default_rng(4)
    n, m = 30_000, 16
    X = rng.random((n, m), dtype=np.float32) < 0.3
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]).astype(int)
    w = rng.integers(1, 5, n).astype(np.float64)
    pieces = [(X[i:i + 10_000], y[i:i + 10_000], w[i:i + 10_000]) for i in range(0, n, 10_000)]
    counts = ChunkedCounts(pieces, attributes=[f"x{j}" for j in range(m)], weighted=True)
    small = ChunkedCounts(pieces[:1], attributes=[f"x{j}" for j in range(m)], weighted=True)
    find_best_premises_from_counts(small, max_size=4)                      # compile outside the trace
    limit = 4 * 2**20
    results, peak = _traced_peak(lambda: find_best_premises_from_counts(counts, max_size=4, memory_limit=limit))
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    expected = find_best_premises(X, y.astype(bool), max_size=4, sample_weight=w)[0]
    assert results[0].score == pytest.approx(expected.score, abs=1e-9)
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        find_best_premises_from_counts(counts, max_size=4, memory_limit="20KB")


def test_torch_backend_on_the_cpu_counts_its_matrices_in_the_limit():
    """On a CPU device the torch backend's dense matrices are host memory: a limit too small for them
    is refused naming them; under a sufficient limit the host-side (numpy) peak stays inside it."""
    pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    n, m = 40_000, 20
    X = rng.random((n, m), dtype=np.float32) < 0.3
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    w = rng.integers(1, 4, n).astype(np.float64)
    with pytest.raises(PremiseSearchMemoryError, match="dense 0/1 matrices on the CPU"):
        find_best_premises(X, y, max_size=3, backend="torch", device="cpu", memory_limit="3MB")
    find_best_premises(X[:300], y[:300], max_size=3, backend="torch", device="cpu")   # imports outside the trace
    limit = 16 * 2**20                      # the float32 matrices: 3.2 MB, float64 weighted: 6.4 MB
    for weight in (None, w):
        results, peak = _traced_peak(lambda: find_best_premises(X, y, max_size=3, backend="torch", device="cpu",
                                                                 memory_limit=limit, sample_weight=weight))
        assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
        expected = find_best_premises(X, y, max_size=3, sample_weight=weight, backend="numba")[0]
        assert (results[0].score, results[0].tp, results[0].fp) == (expected.score, expected.tp, expected.fp)


def test_the_estimator_fit_with_statistics_stays_inside_the_limit():
    """OptimalPremiseClassifier.fit: binarizer, packed context, search with statistics (distinct
    extents of sizes 1-3 kept as 16-byte digests, counted only as far as the limit allows)."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(100_000, 8))
    y = X[:, 0] > 0.3
    OptimalPremiseClassifier(max_size=3).fit(X[:500], y[:500])                # compile outside the trace
    limit = 16 * 2**20
    model, peak = _traced_peak(lambda: OptimalPremiseClassifier(max_size=3, memory_limit=limit).fit(X, y))
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    assert model.score_ == OptimalPremiseClassifier(max_size=3).fit(X, y).score_
