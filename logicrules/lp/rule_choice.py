"""The rule a clause LP's rounding returns, chosen by one deterministic rule in memory and on
dask partitions.

The candidates of a rounding are the empty rule, the greedy cover and every threshold rule of
the LP solution. Several of them may reach the least objective (a clause LP with several
optimal clauses), and which of them wins must not depend on the order in which a path happens
to list or sum them: candidates within a relative :data:`TIE_RTOL` of the least objective are
tied, and a tie goes to the fewest literals, then to the first literals in column order.
Sequential covering compares the tied rules first by their gain to the rule set (a rule
already in the set gains nothing), then by that same order (:func:`best_gain`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["TIE_RTOL", "choose_rule", "best_gain"]

#: Objectives within this fraction of the least one (and of 1) are tied.
TIE_RTOL = 1e-9


def _tied(values: np.ndarray) -> np.ndarray:
    best = float(values.min())
    return values <= best + TIE_RTOL * max(1.0, abs(best))


def choose_rule(values: Sequence[float], rules: Sequence[np.ndarray]) -> tuple[float, np.ndarray, list[np.ndarray]]:
    """The least-objective rule of the candidates, ties broken by size then column order.

    Parameters
    ----------
    values : sequence of float
        The objective of each candidate.
    rules : sequence of bool arrays of shape (m,)
        The candidates (0/1 vectors over the columns).

    Returns
    -------
    value : float
        The chosen rule's objective.
    rule : ndarray of bool, shape (m,)
    tied : list of int arrays
        The column indices of every distinct tied rule, in preference order (the chosen first).

    Examples
    --------
    >>> rules = [np.array([False, True]), np.array([True, False]), np.array([True, True])]
    >>> value, rule, tied = choose_rule([1.0, 1.0, 2.0], rules)
    >>> rule.tolist(), [t.tolist() for t in tied]
    ([True, False], [[0], [1]])
    """
    values = np.asarray(values, dtype=np.float64)
    columns = {tuple(np.flatnonzero(rules[i]).tolist()): i for i in np.flatnonzero(_tied(values))[::-1]}
    order = sorted(columns, key=lambda c: (len(c), c))
    best = columns[order[0]]
    return float(values[best]), np.asarray(rules[best], dtype=bool), [np.array(c, dtype=np.intp) for c in order]


def best_gain(gains: Sequence[float]) -> int:
    """The position of the largest gain, the first one among gains tied with it.

    Examples
    --------
    >>> best_gain([0.0, 3.0, 3.0 + 1e-12])
    1
    """
    gains = np.asarray(gains, dtype=np.float64)
    return int(np.flatnonzero(_tied(-gains))[0])
