import numpy as np
import pytest
from threadpoolctl import threadpool_info

import logicrules.lp.blas_threads as blas_threads
from logicrules.lp.blas_threads import SMALL_PRODUCT_FLOPS, pricing_blas_threads
from logicrules.lp.master import build_rule_set_problem
from logicrules.lp.pricing import price_exact, price_short_beam

from ._colgen_reference import random_rule_instance


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_small_pricing_runs_numba_kernels_on_one_thread_and_restores_the_setting():
    import numba

    before = numba.get_num_threads()
    with pricing_blas_threads(150, 900):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    rows = SMALL_PRODUCT_FLOPS // (1000 * 1000) + 1
    with pricing_blas_threads(rows, 1000):
        assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), pricing_blas_threads(150, 900):
        raise RuntimeError("the setting is restored on errors too")
    assert numba.get_num_threads() == before


def test_small_products_run_on_one_blas_thread_and_large_ones_as_configured():
    before = _blas_threads()
    if not before:
        pytest.skip("no BLAS library that threadpoolctl can control is loaded")
    with pricing_blas_threads(150, 900):
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before
    rows = SMALL_PRODUCT_FLOPS // (1000 * 1000) + 1
    with pricing_blas_threads(rows, 1000):
        assert _blas_threads() == before


def test_pricing_under_the_limit_returns_what_it_returns_without(monkeypatch):
    rng = np.random.default_rng(7)
    A, y = random_rule_instance(rng, 60, 9, 0.5)
    problem = build_rule_set_problem(A, y, 0.05, sample_weight=rng.uniform(0.5, 2.0, 60))
    mu = rng.random(len(problem.pos_weight)) * problem.pos_weight
    limited = price_exact(problem, mu, 0.0, 3, top_k=8), price_short_beam(problem, mu, 0.0, width=5, max_size=3)
    monkeypatch.setattr(blas_threads, "SMALL_PRODUCT_FLOPS", -1)   # never limit
    free = price_exact(problem, mu, 0.0, 3, top_k=8), price_short_beam(problem, mu, 0.0, width=5, max_size=3)
    for a, b in zip(limited, free):
        assert a.terms == b.terms and np.array_equal(a.reduced_costs, b.reduced_costs) and a.least == b.least
