"""Normal forms of a formula: DNF by distribution, its terms, and the minimal DNF (``simplify``).

:class:`_FormulaNormalForms` is a base of :class:`~logicrules.formula.Formula`, as
:class:`~logicrules.formula_evaluation._FormulaEvaluation` is: it sits below the node classes
(:mod:`logicrules.formula_nodes`) and never imports them. It reads a formula through the
structural hooks every node defines (``_children``, ``_as_literal``, ``_keyword``, ``to_nnf``)
and builds formulas with the node constructors the formula carries (``_constructors``, an
algebra whose fold rebuilds a formula), so the dependency goes one way: the nodes import this
module, this module imports no node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from logicrules.fca import bitset
from logicrules.formula_algebras import _evaluate_bits_on, _truth_table
from logicrules.formula_inputs import Attribute, _count, _ordered
from logicrules.formula_sympy import _read_sympy

if TYPE_CHECKING:  # annotations only: the nodes are what these methods read and build
    from logicrules.formula_nodes import Formula, Literal, _Constructors

#: Default bound on the number of terms :meth:`Formula.to_dnf` may produce.
DNF_MAX_TERMS = 10_000


class _FormulaNormalForms:
    """The normal forms of every :class:`~logicrules.formula.Formula`: :meth:`to_dnf`,
    :meth:`conjunctions` and :meth:`simplify`, written against the nodes' structural hooks."""

    __slots__ = ()

    #: The node constructors (set by :class:`~logicrules.formula.Formula`).
    _constructors: _Constructors
    #: The connective of an n-ary node (``"AND"``, ``"OR"``); empty for every other node.
    _keyword = ""

    @property
    def _children(self) -> tuple[Formula, ...]:
        """The direct sub-formulas (none for a leaf)."""
        return ()

    def _as_literal(self) -> Literal | None:
        """This node as a literal: a ``Literal`` itself, ``Not`` of a literal flipped, else None."""
        return None

    # --- normal forms -----------------------------------------------------------------------
    def to_dnf(self, max_terms: int = DNF_MAX_TERMS) -> Formula:
        """Equivalent disjunctive normal form by distribution (no minimization).

        Terms keep the order in which literals occur in the formula; repeated literals,
        contradictory terms (``a AND NOT a``) and duplicate terms are removed. Use
        :meth:`simplify` for a minimal DNF.

        Parameters
        ----------
        max_terms : int, default 10_000
            Guard against exponential blow-up: ValueError when the DNF would need more terms.

        Returns
        -------
        Formula
            ``TRUE``, ``FALSE``, a literal, an ``And`` of literals or an ``Or`` of those.

        Examples
        --------
        >>> from logicrules.formula import Literal
        >>> a, b, c = Literal("a"), Literal("b"), Literal("c")
        >>> print((a & (b | ~c)).to_dnf())
        (a AND b) OR (a AND NOT c)
        """
        nnf = self.to_nnf()
        terms = _dnf_terms(nnf, _count(max_terms, "max_terms"))
        leaves = _literals_of(nnf)
        build = self._constructors
        return build.disj([build.conj([leaves.get((a, neg)) or build.literal(a, neg) for a, neg in term.items()])
                           for term in terms])

    def conjunctions(self) -> list[list[Literal]]:
        """The terms of a formula in DNF, each a list of literals.

        ``TRUE`` gives ``[[]]`` (one empty term), ``FALSE`` gives ``[]``. ``Not`` of a literal
        counts as a negated literal.

        Raises
        ------
        TypeError
            If the formula is not a DNF (call :meth:`to_dnf` first).

        Examples
        --------
        >>> from logicrules.formula import Literal
        >>> a, b, c = Literal("a"), Literal("b"), Literal("c")
        >>> ((a & ~b) | c).conjunctions()
        [[Literal('a'), Literal('b', negated=True)], [Literal('c')]]
        """
        build = self._constructors
        if self is build.constant(True):
            return [[]]
        if self is build.constant(False):
            return []
        terms = self._children if self._keyword == "OR" else (self,)
        out = []
        for term in terms:
            parts = term._children if term._keyword == "AND" else (term,)
            literals = [p._as_literal() for p in parts]
            if any(lit is None for lit in literals):
                raise TypeError(f"formula is not in DNF ({self}); call to_dnf() first")
            out.append(literals)
        return out

    def simplify(self, max_variables: int = 10,
                 return_status: bool = False) -> Formula | tuple[Formula, bool]:
        """Minimal DNF by SymPy's Quine-McCluskey, as ``simplify_logic(form="dnf", force=True)``.

        The truth table is computed here, vectorized on packed bitsets, and its true rows
        (minterms) are passed to ``sympy.logic.SOPform``, the routine behind
        ``simplify_logic(expr, form="dnf", force=True)``. Calling ``simplify_logic`` directly
        is avoided for two reasons: it silently gives up above 8 variables unless
        ``force=True``, and it returns an expression that is already a flat DNF of literals
        unchanged (``a | ~a | b`` stays as is). The cost of Quine-McCluskey grows quickly with
        the number of variables (seconds at 8-9 variables, up to a minute at 10 with many true
        rows), hence the explicit ``max_variables`` limit: above it the formula is returned
        unchanged.

        Parameters
        ----------
        max_variables : int, default 10
            Simplify only formulas with at most this many attributes.
        return_status : bool, default False
            If True return ``(formula, simplified)`` where ``simplified`` tells whether the
            minimization was run.

        Returns
        -------
        Formula or (Formula, bool)
            ``TRUE``, ``FALSE`` or a DNF over the formula's own attribute keys.

        Examples
        --------
        >>> from logicrules.formula import Literal
        >>> a, b = Literal("a"), Literal("b")
        >>> print(((a & b) | (a & ~b)).simplify())
        a
        >>> (a | ~a | b).simplify(return_status=True)
        (TRUE, True)
        """
        if len(self.attributes) > _count(max_variables, "max_variables"):
            return (self, False) if return_status else self
        import sympy
        from sympy.logic import SOPform

        attributes = _ordered(self.attributes)
        n = 1 << len(attributes)
        words = _evaluate_bits_on(self, dict(zip(attributes, _truth_table(len(attributes)))), n)
        minterms = np.flatnonzero(bitset.unpack(words, n))
        build = self._constructors
        if minterms.size == 0:
            result: Formula = build.constant(False)
        elif minterms.size == n:
            result = build.constant(True)
        else:
            symbols = [sympy.Symbol(f"v{i}") for i in range(len(attributes))]
            # SOPform reads an int minterm's bits most significant first: variable k-1 first.
            expr = SOPform(symbols[::-1], [int(i) for i in minterms])
            leaves = _literals_of(self)
            result = _read_sympy(expr, {s.name: leaves.get((a, False), a)
                                        for s, a in zip(symbols, attributes)}, build)
        return (result, True) if return_status else result


def _literals_of(formula: Formula) -> dict[tuple[Attribute, bool], Literal]:
    """Every literal leaf of a formula (with its condition) by (attribute, negated), both signs."""
    found: dict[tuple[Attribute, bool], Literal] = {}
    stack = [formula]
    while stack:
        f = stack.pop()
        if (leaf := _leaf(f)) is not None:
            found.setdefault((leaf.attribute, leaf.negated), leaf)
            found.setdefault((leaf.attribute, not leaf.negated), ~leaf)
        else:
            stack.extend(f._children)
    return found


def _leaf(f: Formula) -> Literal | None:
    """``f`` itself when it is a literal leaf (a node without children that is a literal)."""
    return None if f._children else f._as_literal()


def _dnf_terms(nnf: Formula, max_terms: int) -> list[dict[Attribute, bool]]:
    """DNF terms of an NNF formula as ordered dicts attribute -> negated, deduplicated."""
    if (leaf := _leaf(nnf)) is not None:
        return [{leaf.attribute: leaf.negated}]
    if nnf is nnf._constructors.constant(True):
        return [{}]
    if nnf is nnf._constructors.constant(False):
        return []
    if nnf._keyword not in ("AND", "OR"):  # a threshold node (logicrules.checklist.AtLeast)
        return _dnf_terms(nnf._expand(max_terms).to_nnf(), max_terms)
    parts = [_dnf_terms(op, max_terms) for op in nnf._children]
    if nnf._keyword == "OR":
        terms = [t for p in parts for t in p]
    else:
        terms = [{}]
        for p in parts:
            if len(terms) * len(p) > max_terms:
                raise ValueError(f"the DNF would have more than max_terms={max_terms} terms; raise "
                                 "max_terms or use simplify()")
            terms = [merged for t in terms for s in p if (merged := _merge(t, s)) is not None]
    if len(terms) > max_terms:
        raise ValueError(f"the DNF would have more than max_terms={max_terms} terms; raise "
                         "max_terms or use simplify()")
    unique: dict[frozenset, dict[Attribute, bool]] = {}
    for t in terms:
        unique.setdefault(frozenset(t.items()), t)
    return list(unique.values())


def _merge(t: dict[Attribute, bool], s: dict[Attribute, bool]) -> dict[Attribute, bool] | None:
    """Conjunction of two terms, None when they contradict."""
    merged = dict(t)
    for a, neg in s.items():
        if merged.setdefault(a, neg) != neg:
            return None
    return merged
