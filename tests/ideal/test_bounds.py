"""Sample bounds of Theorem 3.1 and Corollary 3.2, and the paper's worked example."""

import math

import numpy as np
import pytest

from logicrules.ideal.bounds import sample_size_bound, separation_sample_size


def test_corollary_number_for_the_papers_example():
    # |S| = 3, delta = 0.01, epsilon = 0.05: 2^7 ln(1600) / 0.05^2 = 377,741.26
    assert sample_size_bound(3, delta=0.01, epsilon=0.05) == 377_742
    assert sample_size_bound(3, 0.01, 0.05, integer=False) == pytest.approx(377_741.256, abs=1e-3)


def test_papers_printed_example_divides_by_epsilon():
    value = sample_size_bound(3, 0.01, 0.05, epsilon_power=1, integer=False)
    assert int(value) == 18_887  # the paper's printed figure (18,887.06 truncated)
    assert sample_size_bound(3, 0.01, 0.05, epsilon_power=1) == 18_888  # smallest integer >= it


def test_corollary_is_theorem_with_gamma_epsilon_over_two_to_the_k():
    for k in range(0, 8):
        for delta in (0.1, 0.01, 0.001):
            for eps in (0.2, 0.05, 0.01):
                direct = sample_size_bound(k, delta, eps, integer=False)
                via = separation_sample_size(k, delta, eps / 2**k, integer=False)
                assert direct == pytest.approx(via, rel=1e-12)
                assert direct == pytest.approx(2 ** (2 * k + 1) * math.log(2 ** (k + 1) / delta) / eps**2, rel=1e-12)


def test_theorem_formula_and_monotonicity():
    assert separation_sample_size(2, 0.05, 0.1, integer=False) == pytest.approx(2 * math.log(8 / 0.05) / 0.01)
    assert separation_sample_size(2, 0.05, 0.1) == 1016
    assert separation_sample_size(3, 0.05, 0.1) > separation_sample_size(2, 0.05, 0.1)
    assert separation_sample_size(2, 0.01, 0.1) > separation_sample_size(2, 0.05, 0.1)
    assert separation_sample_size(2, 0.05, 0.05) > separation_sample_size(2, 0.05, 0.1)


def test_theorem_holds_in_simulation():
    # one feature, two types separated by gamma = 0.2: with n from the theorem the empirical
    # classifier equals the ideal one in (far) more than 1 - delta of the samples
    rng = np.random.default_rng(0)
    delta, gamma = 0.1, 0.2
    n = separation_sample_size(1, delta, gamma)
    # p(t1 and q) = 0.35, p(t1 and not q) = 0.15; p(t0 and q) = 0.15, p(t0 and not q) = 0.35
    cells = rng.multinomial(n, [0.35, 0.15, 0.15, 0.35], size=2000)
    ideal_ok = (cells[:, 0] > cells[:, 1]) & (cells[:, 3] > cells[:, 2])
    assert ideal_ok.mean() >= 1 - delta


@pytest.mark.parametrize("kwargs, match", [
    ({"n_features": -1, "delta": 0.1, "epsilon": 0.1}, "n_features"),
    ({"n_features": 2.5, "delta": 0.1, "epsilon": 0.1}, "n_features"),
    ({"n_features": 2, "delta": 0.0, "epsilon": 0.1}, "delta"),
    ({"n_features": 2, "delta": 1.0, "epsilon": 0.1}, "delta"),
    ({"n_features": 2, "delta": 0.1, "epsilon": 0.0}, "epsilon"),
    ({"n_features": 2, "delta": 0.1, "epsilon": 1.5}, "epsilon"),
    ({"n_features": 2, "delta": 0.1, "epsilon": float("nan")}, "epsilon"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sample_size_bound(**kwargs)


def test_bad_epsilon_power_and_gamma():
    with pytest.raises(ValueError, match="epsilon_power"):
        sample_size_bound(3, 0.01, 0.05, epsilon_power=3)
    with pytest.raises(ValueError, match="gamma"):
        separation_sample_size(3, 0.01, -0.1)
