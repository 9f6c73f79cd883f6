"""Comparing formulas: exact logical equivalence and agreement on data.

Learners that reach the same rule by different routes (an ideal DNF, an optimal premise, an LP
rule) print differently; :func:`equivalent` decides whether two formulas denote the same Boolean
function, :func:`agreement` measures how often they agree on given rows.

Examples
--------
>>> from logicrules.formula import Literal
>>> from logicrules.equivalence import equivalent
>>> a, b = Literal("a"), Literal("b")
>>> equivalent(~(a & b), ~a | ~b)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from logicrules.checklist import AtLeast, _counter
from logicrules.conditions import Domain
from logicrules.formula import (
    FALSE,
    TRUE,
    And,
    Formula,
    Literal,
    Or,
)
from logicrules.formula_algebras import _BoolAlgebra, _evaluate_bits_on, _truth_table
from logicrules.formula_normal_forms import _literals_of
from logicrules.formula_inputs import _count, _ordered

__all__ = ["equivalent", "agreement"]

#: Largest number of variables decided by an exhaustive truth table (2**20 rows, packed).
TRUTH_TABLE_MAX_VARIABLES = 20


def equivalent(f: Formula, g: Formula,
               max_table_variables: int = TRUTH_TABLE_MAX_VARIABLES, *, domain: Any = None,
               unseen_categories: bool = False) -> bool:
    """Whether ``f`` and ``g`` are logically equivalent (exact).

    With ``k`` attributes in the union of both formulas, ``k <= max_table_variables`` is decided
    by evaluating both formulas on all ``2**k`` assignments at once, as packed bitsets (one
    vectorized operation per AST node). Beyond that, ``Xor(f, g)`` is tested for
    satisfiability with SymPy's ``satisfiable`` after a Tseitin encoding into CNF (SymPy's own
    CNF conversion distributes and can blow up exponentially; the encoding is linear and
    equisatisfiable).

    With ``domain`` (the binarization), the formulas are compared on the data's domain
    instead: only on the truth assignments that raw rows can produce, the attributes being
    conditions on columns (those the literals carry, and those of the domain). Then
    ``vote == y`` and ``vote != n`` are equivalent on a column whose values are y and n.

    Parameters
    ----------
    f, g : Formula
    max_table_variables : int, default 20
        Largest variable count for the truth-table method (memory ``2**k / 8`` bytes per node).
    domain : Domain, fitted binarizer, fitted model or conditions, optional
        The binarization (see :meth:`logicrules.conditions.Domain.of`); a binarizer also
        gives the categories it saw at fit.
    unseen_categories : bool, default False
        With ``domain``: whether a categorical column may hold a value other than its
        categories seen at fit (the binarizers accept one at transform). By default the
        comparison is on the values seen at fit.

    Returns
    -------
    bool

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> from logicrules.equivalence import equivalent
    >>> a, b, c = Literal(0), Literal(1), Literal(2)
    >>> equivalent(a & (b | c), (a & b) | (a & c)), equivalent(a | b, a)
    (True, False)
    """
    for h in (f, g):
        if not isinstance(h, Formula):
            raise TypeError(f"equivalent() compares Formula objects, got {type(h).__name__}")
    if f == g:
        return True
    if domain is not None:
        return _equivalent_on_domain(f, g, Domain.of(domain, unseen_categories=unseen_categories))
    attributes = _ordered(f.attributes | g.attributes)
    if len(attributes) <= _count(max_table_variables, "max_table_variables"):
        table = _truth_table(len(attributes))
        rows = dict(zip(attributes, table))
        n = 1 << len(attributes)
        return bool(np.array_equal(_evaluate_bits_on(f, rows, n), _evaluate_bits_on(g, rows, n)))
    return not _xor_satisfiable(f, g, attributes)


def _equivalent_on_domain(f: Formula, g: Formula, domain: Domain) -> bool:
    """Equal on every realizable assignment of the union of both formulas' attributes."""
    leaves = {**_literals_of(f), **_literals_of(g)}
    conditions = {a: lit.condition for (a, _), lit in leaves.items() if lit.condition is not None}
    attributes = _ordered(f.attributes | g.attributes)
    codes = domain.assignments(attributes, conditions)
    shifts = np.arange(len(attributes), dtype=np.int64)
    columns = dict(zip(attributes, ((codes[None, :] >> shifts[:, None]) & 1).astype(bool)))
    return bool(np.array_equal(f._fold(_BoolAlgebra(columns, codes.size)),
                               g._fold(_BoolAlgebra(columns, codes.size))))


def agreement(f: Formula, g: Formula, X: Any, feature_names: Sequence[str] | None = None) -> float:
    """Fraction of the rows of ``X`` on which ``f`` and ``g`` take the same value.

    Parameters
    ----------
    f, g : Formula
    X : ndarray (n, m), DataFrame or FormalContext
        Boolean data, as for :meth:`Formula.evaluate`.
    feature_names : sequence of str, optional
        Column names of ``X`` (see :meth:`Formula.evaluate`).

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        If ``X`` has no rows, or as :meth:`Formula.evaluate`.

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.formula import Literal
    >>> from logicrules.equivalence import agreement
    >>> X = np.array([[1, 0], [1, 1], [0, 0], [0, 1]], dtype=bool)
    >>> agreement(Literal(0), Literal(0) | Literal(1), X)
    0.75
    """
    for h in (f, g):
        if not isinstance(h, Formula):
            raise TypeError(f"agreement() compares Formula objects, got {type(h).__name__}")
    a = f.evaluate(X, feature_names)
    if a.size == 0:
        raise ValueError("agreement() needs at least one row in X")
    return float(np.mean(a == g.evaluate(X, feature_names)))


def _xor_satisfiable(f: Formula, g: Formula, attributes: list) -> bool:
    """Satisfiability of ``f XOR g`` by SymPy, through a Tseitin CNF."""
    import sympy
    from sympy.logic.inference import satisfiable

    symbols = {a: sympy.Symbol(f"v{i}") for i, a in enumerate(attributes)}
    clauses: list[Any] = []
    counter = iter(range(1 << 62))

    def encode(h: Formula) -> Any:
        """A SymPy literal equivalent to the NNF formula ``h`` under the clauses added."""
        if h is TRUE or h is FALSE:
            return sympy.true if h is TRUE else sympy.false
        if isinstance(h, Literal):
            symbol = symbols[h.attribute]
            return ~symbol if h.negated else symbol
        children = [encode(op) for op in h.operands]
        if isinstance(h, AtLeast):  # a unary counter, one fresh variable per AND / OR gate
            return _counter(children, h.m, lambda a, b: gate(And, [a, b]), lambda a, b: gate(Or, [a, b]))
        return gate(type(h), children)

    def gate(kind: type, children: list[Any]) -> Any:
        t = sympy.Symbol(f"t{next(counter)}")
        if kind is And:
            clauses.extend(sympy.Or(~t, c) for c in children)
            clauses.append(sympy.Or(t, *(~c for c in children)))
        else:
            clauses.append(sympy.Or(~t, *children))
            clauses.extend(sympy.Or(t, ~c) for c in children)
        return t

    p, q = encode(f.to_nnf()), encode(g.to_nnf())
    clauses.extend([sympy.Or(p, q), sympy.Or(~p, ~q)])
    return satisfiable(sympy.And(*clauses)) is not False
