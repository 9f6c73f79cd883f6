r"""Sample sizes after which the empirical ideal classifier is the ideal (Bayes) one.

Setting (DESIGN.md section 2, the paper's Theorem 3.1 and Corollary 3.2). Let ``S`` be a set of
``k = |S|`` boolean features, ``q`` the binary target and ``p`` the joint distribution. For an
``S``-type ``t`` (a full truth assignment of ``S``) the ideal classifier contains ``t`` when
``p(t and q) >= p(t and not q)``; the empirical ideal classifier, computed from ``n`` i.i.d.
rows, contains it when ``p_n(t and q) >= p_n(t and not q)`` for the empirical frequencies
``p_n``. The type ``t`` is *gamma-separated* when ``|p(t and q) - p(t and not q)| >= gamma``.

Derivation (Theorem 3.1)
------------------------
Fix a gamma-separated type with, say, ``p(t and q) - p(t and not q) >= gamma`` (the other sign
is symmetric). If both frequencies are within ``gamma / 2`` of their means,

    p_n(t and q) > p(t and q) - gamma/2 >= p(t and not q) + gamma/2 > p_n(t and not q),

so the empirical classifier decides ``t`` like the ideal one; the inequality is strict, so the
tie rule (``>=`` in the paper's text, ``>`` in its code) does not matter. Each frequency is a
mean of ``n`` indicator variables, so by Hoeffding's inequality each one-sided deviation of at
least ``gamma / 2`` has probability at most ``exp(-2 n (gamma/2)^2) = exp(-n gamma^2 / 2)``. A
union bound over the two frequencies and the at most ``2^k`` types gives a failure probability
of at most ``2^(k+1) exp(-n gamma^2 / 2)``, which is ``<= delta`` as soon as

    n >= 2 ln(2^(k+1) / delta) / gamma^2.                                        (Theorem 3.1)

Derivation (Corollary 3.2)
--------------------------
On a type that is not gamma-separated the two classifiers may disagree, and such a disagreement
costs ``|p(t and q) - p(t and not q)| < gamma`` of true error; on separated types they agree
(with probability ``>= 1 - delta``). Summing over the at most ``2^k`` types, the excess true
error of the empirical ideal classifier is below ``2^k gamma``. Choosing
``gamma = epsilon / 2^k`` makes it below ``epsilon``, and substituting this gamma in Theorem 3.1:

    n >= 2 ln(2^(k+1) / delta) / (epsilon / 2^k)^2
      = 2^(2k+1) ln(2^(k+1) / delta) / epsilon^2.                              (Corollary 3.2)

Which number the library returns
--------------------------------
The proof squares gamma (Hoeffding's exponent is quadratic in the deviation), so epsilon is
squared: for ``k = 3``, ``delta = 0.01``, ``epsilon = 0.05`` the bound is 377,741.26, i.e.
**377,742** samples, which is what :func:`sample_size_bound` returns. The paper's worked example
states 18,887 for the same inputs; that is ``2^7 ln(1600) / 0.05 = 18,887.06``, the same
expression divided by epsilon instead of epsilon squared (an arithmetic slip: the example does
not follow from the corollary as stated and proved). It is available explicitly with
``epsilon_power=1`` (``integer=False`` gives the unrounded 18,887.06 that the paper truncates;
the smallest integer satisfying it is 18,888).

Examples
--------
>>> sample_size_bound(3, delta=0.01, epsilon=0.05)
377742
>>> int(sample_size_bound(3, delta=0.01, epsilon=0.05, epsilon_power=1, integer=False))
18887
>>> separation_sample_size(3, delta=0.01, gamma=0.05 / 8)
377742
"""

from __future__ import annotations

import math
from numbers import Integral, Real

__all__ = ["sample_size_bound", "separation_sample_size"]


def _check_n_features(n_features: int) -> int:
    if isinstance(n_features, bool) or not isinstance(n_features, Integral) or n_features < 0:
        raise ValueError(f"n_features must be a non-negative int, got {n_features!r}")
    return int(n_features)


def _check_probability(value: float, name: str, *, closed_right: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
        raise ValueError(f"{name} must be a number in (0, 1{']' if closed_right else ')'}, got {value!r}")
    value = float(value)
    upper_ok = value <= 1.0 if closed_right else value < 1.0
    if not (value > 0.0 and upper_ok):
        raise ValueError(f"{name} must be in (0, 1{']' if closed_right else ')'}, got {value!r}")
    return value


def _finish(value: float, integer: bool) -> int | float:
    return math.ceil(value) if integer else value


def separation_sample_size(n_features: int, delta: float, gamma: float, *,
                           integer: bool = True) -> int | float:
    r"""Samples after which every gamma-separated type is classified ideally (Theorem 3.1).

    With at least ``2 ln(2^(k+1) / delta) / gamma^2`` i.i.d. rows (``k = n_features``), the
    empirical ideal classifier agrees with the ideal classifier on every type ``t`` with
    ``|p(t and q) - p(t and not q)| >= gamma``, with probability at least ``1 - delta``.
    See the module docstring for the derivation (Hoeffding per frequency, union bound over the
    two frequencies of each of the ``2^k`` types).

    Parameters
    ----------
    n_features : int
        ``|S|``, the number of boolean features the classifier uses.
    delta : float in (0, 1)
        Allowed failure probability.
    gamma : float in (0, 1]
        Separation margin.
    integer : bool, default True
        Return the smallest sufficient integer sample size (the ceiling); False gives the
        real-valued bound.

    Returns
    -------
    int or float

    Examples
    --------
    >>> separation_sample_size(2, delta=0.05, gamma=0.1)
    1016
    """
    k = _check_n_features(n_features)
    delta = _check_probability(delta, "delta", closed_right=False)
    gamma = _check_probability(gamma, "gamma", closed_right=True)
    value = 2.0 * ((k + 1) * math.log(2.0) - math.log(delta)) / gamma**2
    return _finish(value, integer)


def sample_size_bound(n_features: int, delta: float, epsilon: float, *,
                      epsilon_power: int = 2, integer: bool = True) -> int | float:
    r"""Samples after which the excess true error is below epsilon (Corollary 3.2).

    With at least ``2^(2k+1) ln(2^(k+1) / delta) / epsilon^2`` i.i.d. rows
    (``k = n_features``), the empirical ideal classifier's true error is below the ideal
    classifier's plus ``epsilon`` with probability at least ``1 - delta``. This is
    :func:`separation_sample_size` with ``gamma = epsilon / 2^k``.

    Parameters
    ----------
    n_features : int
        ``|S|``, the number of boolean features.
    delta : float in (0, 1)
        Allowed failure probability.
    epsilon : float in (0, 1]
        Allowed excess true error.
    epsilon_power : {2, 1}, default 2
        2 is the corollary as proved (epsilon squared). 1 reproduces the paper's worked example
        (``k=3, delta=0.01, epsilon=0.05`` -> 18,887.06, printed as 18887), which divides by
        epsilon instead; it is *not* a valid sample bound and is offered only so that the
        paper's figure can be recomputed.
    integer : bool, default True
        Return the ceiling (smallest sufficient integer); False gives the real-valued bound.

    Returns
    -------
    int or float

    Examples
    --------
    >>> sample_size_bound(3, delta=0.01, epsilon=0.05)
    377742
    >>> round(sample_size_bound(3, delta=0.01, epsilon=0.05, epsilon_power=1, integer=False), 2)
    18887.06
    """
    k = _check_n_features(n_features)
    delta = _check_probability(delta, "delta", closed_right=False)
    epsilon = _check_probability(epsilon, "epsilon", closed_right=True)
    if epsilon_power not in (1, 2) or isinstance(epsilon_power, bool):
        raise ValueError(f"epsilon_power must be 2 (the corollary) or 1 (the paper's example), got {epsilon_power!r}")
    value = 2.0 ** (2 * k + 1) * ((k + 1) * math.log(2.0) - math.log(delta)) / epsilon**epsilon_power
    return _finish(value, integer)
