"""Bottom-up evaluators of a :class:`~logicrules.formula.Formula` (:meth:`Formula._fold`): on
boolean columns, on packed ``uint64`` bitsets and into SymPy; and the packed truth table of
``k`` variables that :meth:`Formula.simplify` evaluates on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from logicrules.fca import bitset
from logicrules.formula_inputs import Attribute

if TYPE_CHECKING:  # annotations only: the formulas are what these algebras fold
    from logicrules.formula import Formula


def _evaluate_bits_on(formula: Formula, rows: Mapping[Attribute, np.ndarray],
                      n_objects: int) -> np.ndarray:
    """Extent of ``formula`` given one bitset (W,) per attribute key (no checks)."""
    return formula._fold(_BitsAlgebra(rows, n_objects))


def _truth_table(k: int) -> np.ndarray:
    """Packed truth table over ``k`` variables: row ``j``, bit ``i`` is ``(i >> j) & 1``.

    Returns uint64 of shape (k, W), ``W = ceil(2**k / 64)``, tail bits zero; one vectorized
    operation per variable.
    """
    n = 1 << k
    width = (n + 63) // 64
    low = np.arange(64, dtype=np.uint64)
    weights = np.uint64(1) << low
    table = np.empty((k, width), dtype=np.uint64)
    for j in range(min(k, 6)):  # variables alternating inside a word: one constant word pattern
        on = (low >> np.uint64(j)) & np.uint64(1)
        table[j] = np.bitwise_or.reduce(np.where(on, weights, np.uint64(0)))
    words = np.arange(width, dtype=np.int64)
    for j in range(6, k):  # variables constant over whole words
        table[j] = np.where((words >> (j - 6)) & 1, np.iinfo(np.uint64).max, 0).astype(np.uint64)
    if n < 64:
        table &= np.uint64((1 << n) - 1)
    return table


class _Algebra(Protocol):
    """Interface of the bottom-up evaluators used by :meth:`Formula._fold`."""

    def literal(self, attribute: Attribute, negated: bool) -> Any: ...
    def constant(self, value: bool) -> Any: ...
    def negate(self, value: Any) -> Any: ...
    def conj(self, values: list[Any]) -> Any: ...
    def disj(self, values: list[Any]) -> Any: ...


class _BoolAlgebra:
    def __init__(self, columns: Mapping[Attribute, np.ndarray], n: int) -> None:
        self.columns, self.n = columns, n

    def literal(self, attribute: Attribute, negated: bool) -> np.ndarray:
        column = self.columns[attribute]
        return ~column if negated else column

    def constant(self, value: bool) -> np.ndarray:
        return np.full(self.n, value, dtype=bool)

    def negate(self, value: np.ndarray) -> np.ndarray:
        return ~value

    def conj(self, values: list[np.ndarray]) -> np.ndarray:
        out = np.logical_and(values[0], values[1])
        for value in values[2:]:
            np.logical_and(out, value, out=out)
        return out

    def disj(self, values: list[np.ndarray]) -> np.ndarray:
        out = np.logical_or(values[0], values[1])
        for value in values[2:]:
            np.logical_or(out, value, out=out)
        return out


class _BitsAlgebra:
    def __init__(self, rows: Mapping[Attribute, np.ndarray], n_objects: int) -> None:
        self.rows, self.n = rows, n_objects

    def literal(self, attribute: Attribute, negated: bool) -> np.ndarray:
        row = self.rows[attribute]
        return bitset.not_(row, self.n) if negated else row.copy()

    def constant(self, value: bool) -> np.ndarray:
        return bitset.full(self.n) if value else bitset.empty(self.n)

    def negate(self, value: np.ndarray) -> np.ndarray:
        return bitset.not_(value, self.n)

    def conj(self, values: list[np.ndarray]) -> np.ndarray:
        return np.bitwise_and.reduce(values, axis=0)

    def disj(self, values: list[np.ndarray]) -> np.ndarray:
        return np.bitwise_or.reduce(values, axis=0)


class _SympyAlgebra:
    def __init__(self, symbols: Mapping[Attribute, Any]) -> None:
        import sympy

        self.sympy, self.symbols = sympy, symbols

    def literal(self, attribute: Attribute, negated: bool) -> Any:
        symbol = self.symbols[attribute]
        return self.sympy.Not(symbol) if negated else symbol

    def constant(self, value: bool) -> Any:
        return self.sympy.true if value else self.sympy.false

    def negate(self, value: Any) -> Any:
        return self.sympy.Not(value)

    def conj(self, values: list[Any]) -> Any:
        return self.sympy.And(*values)

    def disj(self, values: list[Any]) -> Any:
        return self.sympy.Or(*values)
