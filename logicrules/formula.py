"""Boolean formulas: one small immutable AST shared by every learner.

A formula is built from :class:`Literal` leaves (an attribute, possibly negated), the n-ary
connectives :class:`And` and :class:`Or`, :class:`Not`, and the constants :data:`TRUE` and
:data:`FALSE`. Attributes are either names (``str``, e.g. ``"age > 54.5"`` as produced by the
binarizers of :mod:`logicrules.fca.scaling`) or column positions (``int``).

Formulas are immutable, hashable and compared structurally (``And(a, b) != And(b, a)``: operand
order is kept as given so that printing is stable; use :func:`logicrules.equivalence.equivalent`
for logical equivalence). Evaluation is vectorized: one NumPy operation per AST node, either on a
boolean matrix / DataFrame / formal context (:meth:`Formula.evaluate`) or on packed ``uint64``
bitsets (:meth:`Formula.evaluate_bits`).

This module is the formula's public face; the parts live in modules named after them, each
importing only those below it: attribute keys and input checks (:mod:`logicrules.formula_inputs`),
the bottom-up algebras (:mod:`logicrules.formula_algebras`), evaluation and printing
(:mod:`logicrules.formula_evaluation`), the SymPy reader (:mod:`logicrules.formula_sympy`), the
normal forms (:mod:`logicrules.formula_normal_forms`), and the nodes and their constructors
(:mod:`logicrules.formula_nodes`).

Examples
--------
>>> from logicrules.formula import Literal
>>> age, smoker, chol = Literal("age > 54.5"), Literal("smoker"), Literal("chol > 240")
>>> f = (age & ~smoker) | chol
>>> print(f)
(age > 54.5 AND NOT smoker) OR chol > 240
>>> f.size, sorted(f.attributes)
(3, ['age > 54.5', 'chol > 240', 'smoker'])
"""

from __future__ import annotations

from logicrules.formula_inputs import Attribute  # the type of an attribute key, re-exported
from logicrules.formula_nodes import (FALSE, TRUE, And, Formula, Literal, Not, Or, conjunction,
                                      disjunction, from_sympy)

__all__ = [
    "Formula",
    "Literal",
    "And",
    "Or",
    "Not",
    "TRUE",
    "FALSE",
    "conjunction",
    "disjunction",
    "from_sympy",
]
