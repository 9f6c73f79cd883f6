"""A short DNF for an ideal DNF over too many attributes for SymPy's exact minimization.

Step 7 of the ideal method simplifies the empirical ideal DNF with SymPy up to
``simplify_max_variables`` attributes; beyond, up to :data:`COMPACT_MAX_VARIABLES`,
:func:`compact_dnf` shortens it from its prime implicants (an equivalent, short, not always
minimal DNF).
"""

from __future__ import annotations

import numpy as np

from logicrules.formula import Formula, Literal, conjunction, disjunction
from logicrules.ideal.algorithm import TypeTable
from logicrules.simplify import prime_implicants

__all__ = ["compact_dnf"]

#: Most attributes for which the final DNF is shortened by :func:`compact_dnf` (about 0.05 s at
#: 10 attributes, seconds at 12, minutes at 14 for a random function); above, the DNF is kept.
COMPACT_MAX_VARIABLES = 12


def compact_dnf(table: TypeTable) -> Formula:
    """A short DNF equivalent to the table's ideal DNF, for too many variables for SymPy.

    Prime implicants of the positive types (unseen types as the table predicts them), then the
    essential primes, then greedily the prime covering most still uncovered positive types
    (ties: fewer literals, then lower code). Exact equivalence is kept; the
    number of terms is within a logarithmic factor of the minimum (greedy set cover).

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.ideal.algorithm import type_table
    >>> X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=bool)
    >>> print(compact_dnf(type_table(X, [1, 1, 0, 0])))
    NOT x0 AND x2
    """
    k = table.n_features
    if k > 31:
        raise ValueError(f"compact_dnf handles at most 31 features, got {k}")
    positive = table.positive_codes()
    if len(positive) == 0:
        return disjunction()
    values, masks = prime_implicants(positive, k)
    covers = (positive[None, :] & ~masks[:, None]) == values[:, None]  # (primes, minterms)
    n_literals = k - np.array([int(m).bit_count() for m in masks])
    chosen = list(np.flatnonzero((covers & (covers.sum(axis=0) == 1)).any(axis=1)))
    uncovered = ~covers[chosen].any(axis=0) if chosen else np.ones(len(positive), dtype=bool)
    while uncovered.any():
        gain = covers[:, uncovered].sum(axis=1)
        best = int(np.lexsort((values, n_literals, -gain))[0])
        chosen.append(best)
        uncovered &= ~covers[best]
    literals = [(Literal(f, negated=True), Literal(f)) for f in table.features]
    terms = []
    for p in sorted(chosen, key=lambda i: (n_literals[i], int(values[i]))):
        v, m = int(values[p]), int(masks[p])
        terms.append(conjunction(*(literals[j][(v >> j) & 1] for j in range(k) if not (m >> j) & 1)))
    return disjunction(*terms)
