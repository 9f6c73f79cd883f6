"""The threshold node: "at least m of" a list of formulas (an m-of-n checklist) as one node.

An m-of-n rule expanded into a DNF has C(n, m) terms (210 for 4 of 10); as one node it has n
literals. :class:`AtLeast` is evaluated directly (a row count on boolean matrices, a bit-sliced
counter on packed bitsets), printed ``at least 2 of: a, b, c``, exported to SymPy as the
counter's formula (linear in n * m, never the expansion) and expanded into a DNF only on
request (:meth:`AtLeast.expand`, :meth:`Formula.to_dnf`).

Examples
--------
>>> import numpy as np
>>> from logicrules.formula import Literal
>>> rule = at_least(2, [Literal("a"), Literal("b"), Literal("c")])
>>> print(rule)
at least 2 of: a, b, c
>>> rule.size
3
>>> rule.evaluate(np.array([[1, 1, 0], [0, 0, 1]]), feature_names=["a", "b", "c"]).tolist()
[True, False]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from logicrules.formula import (
    FALSE,
    TRUE,
    Attribute,
    Formula,
    conjunction,
    disjunction,
)
from logicrules.formula_algebras import _Algebra, _BitsAlgebra, _BoolAlgebra
from logicrules.formula_inputs import _count
from logicrules.formula_nodes import _Node
from logicrules.formula_normal_forms import DNF_MAX_TERMS

__all__ = ["AtLeast", "at_least"]


def at_least(m: int, formulas: Sequence[Formula]) -> Formula:
    """"At least ``m`` of ``formulas`` hold", in its simplest node.

    ``m <= 0`` gives ``TRUE``, ``m > n`` ``FALSE``, ``m == 1`` the disjunction, ``m == n`` the
    conjunction, anything else an :class:`AtLeast`.

    Parameters
    ----------
    m : int
    formulas : sequence of Formula

    Returns
    -------
    Formula

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> print(at_least(1, [Literal("a"), Literal("b")]), "|", at_least(3, [Literal("a")]))
    a OR b | FALSE
    """
    formulas = list(formulas)
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
        raise TypeError(f"m must be an int, got {type(m).__name__}")
    m = int(m)
    if m <= 0:
        return TRUE
    if m > len(formulas):
        return FALSE
    if m == 1:
        return disjunction(*formulas)
    if m == len(formulas):
        return conjunction(*formulas)
    return AtLeast(m, formulas)


class AtLeast(_Node):
    """True where at least ``m`` of the ``n`` operands hold, ``2 <= m <= n - 1`` (checklist).

    Parameters
    ----------
    m : int
        The threshold, ``1 <= m <= n`` (use :func:`at_least` to accept any m).
    operands : sequence of Formula
        The checklist items, usually literals (order kept, at least 2).

    Notes
    -----
    ``size`` is the number of literals of the operands (n for a checklist of literals), not
    the size of the expansion. The negation is again a threshold node:
    ``NOT at least m of (f_i)`` is ``at least n - m + 1 of (NOT f_i)`` (:meth:`to_nnf`).

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> rule = AtLeast(2, [Literal("a"), Literal("b"), Literal("c")])
    >>> print(rule.expand())
    (a AND b) OR (a AND c) OR (b AND c)
    >>> print((~rule).to_nnf())
    at least 2 of: NOT a, NOT b, NOT c
    """

    __slots__ = ("m",)

    def __init__(self, m: int, operands: Sequence[Formula]) -> None:
        operands = tuple(operands)
        for op in operands:
            if not isinstance(op, Formula):
                raise TypeError(f"AtLeast operands must be Formula objects, got {type(op).__name__}")
        if len(operands) < 2:
            raise ValueError(f"AtLeast needs at least 2 operands, got {len(operands)}; use at_least()")
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) \
                or not 1 <= m <= len(operands):
            raise ValueError(f"AtLeast needs an int m with 1 <= m <= {len(operands)} (the number of "
                             f"operands), got {m!r}; use at_least() to accept any m")
        object.__setattr__(self, "m", int(m))
        self._store(("AtLeast", int(m)), operands)

    def __reduce__(self) -> Any:
        return (AtLeast, (self.m, self.operands))

    def _key(self) -> tuple[int, tuple[Formula, ...]]:
        return (self.m, self.operands)

    def __repr__(self) -> str:
        return f"AtLeast({self.m}, [{', '.join(map(repr, self.operands))}])"

    def _fold(self, alg: _Algebra) -> Any:
        values = [op._fold(alg) for op in self.operands]
        if isinstance(alg, _BoolAlgebra):
            return np.add.reduce(np.asarray(values, dtype=np.uint32), axis=0) >= self.m
        if isinstance(alg, _BitsAlgebra):
            return _counter(values, self.m, np.bitwise_and, np.bitwise_or)
        return _counter(values, self.m, lambda a, b: alg.conj([a, b]), lambda a, b: alg.disj([a, b]))

    def _text(self, name: Callable[[Attribute], str]) -> str:
        parts = (f"({op._text(name)})" if op._compound else op._text(name) for op in self.operands)
        return f"at least {self.m} of: {', '.join(parts)}"

    def to_nnf(self) -> Formula:
        return at_least(self.m, [op.to_nnf() for op in self.operands])

    def _negated_nnf(self) -> Formula:
        return at_least(len(self.operands) - self.m + 1, [op._negated_nnf() for op in self.operands])

    def expand(self, max_terms: int = DNF_MAX_TERMS) -> Formula:
        """The OR over all m-subsets of the operands of their AND (C(n, m) terms).

        Parameters
        ----------
        max_terms : int, default 10_000
            ValueError when C(n, m) is larger.

        Returns
        -------
        Formula
        """
        return self._expand(_count(max_terms, "max_terms"))

    def _expand(self, max_terms: int) -> Formula:
        n_terms = math.comb(len(self.operands), self.m)
        if n_terms > max_terms:
            raise ValueError(f"at least {self.m} of {len(self.operands)} expands into {n_terms} terms, "
                             f"more than max_terms={max_terms}")
        return disjunction(*(conjunction(*subset)
                             for subset in itertools.combinations(self.operands, self.m)))


def _counter(values: list[Any], m: int, conj: Callable[[Any, Any], Any],
             disj: Callable[[Any, Any], Any]) -> Any:
    """At least m of the values, by a unary counter: ``c[k]`` = at least k of those seen.

    ``c[k] <- c[k] OR (c[k-1] AND x)`` for each value x, k from m down to 1 (c[0] is true): n * m
    operations of the algebra, exact, and shared sub-results instead of C(n, m) terms.
    """
    counts: list[Any] = [None] * (m + 1)  # None: false so far
    for i, x in enumerate(values):
        for k in range(min(m, i + 1), 0, -1):
            step = x if k == 1 else (None if counts[k - 1] is None else conj(counts[k - 1], x))
            if step is not None:
                counts[k] = step if counts[k] is None else disj(counts[k], step)
    return counts[m]
