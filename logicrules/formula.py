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

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from logicrules.fca import bitset
from logicrules.formula_algebras import _Algebra, _evaluate_bits_on, _truth_table
from logicrules.formula_evaluation import _FormulaEvaluation
from logicrules.formula_inputs import Attribute, _count, _ordered

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

#: Default bound on the number of terms :meth:`Formula.to_dnf` may produce.
DNF_MAX_TERMS = 10_000


def _check_attribute(attribute: Any) -> Attribute:
    """Normalize an attribute key to ``str`` or non-negative ``int``."""
    if isinstance(attribute, (bool, np.bool_)):
        raise TypeError("a Literal attribute must be a str or an int, not a bool")
    if isinstance(attribute, str):
        return str(attribute)
    if isinstance(attribute, (int, np.integer)):
        if attribute < 0:
            raise ValueError(f"an int Literal attribute is a column position >= 0, got {attribute}")
        return int(attribute)
    raise TypeError(f"a Literal attribute must be a str or an int, got {type(attribute).__name__}")


class Formula(_FormulaEvaluation, ABC):
    """Abstract base of all formula nodes.

    Subclasses are immutable: attributes are set once in ``__init__`` and cannot be changed.
    The Python operators ``&``, ``|`` and ``~`` build formulas (through :func:`conjunction`,
    :func:`disjunction` and negation), so ``a & TRUE`` is simply ``a``.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> f = Literal(0) & ~Literal(1)
    >>> f.to_string(["fever", "cough"])
    'fever AND NOT cough'
    """

    __slots__ = ()

    # --- immutability, pickling -------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    @abstractmethod
    def __reduce__(self) -> Any: ...

    # --- structure --------------------------------------------------------------------------
    @property
    @abstractmethod
    def size(self) -> int:
        """Number of literal leaves (constants count 0)."""

    @property
    @abstractmethod
    def attributes(self) -> frozenset[Attribute]:
        """The set of attribute keys (``str`` names or ``int`` positions) the formula reads."""

    @abstractmethod
    def _fold(self, alg: _Algebra) -> Any:
        """Evaluate the formula bottom-up in the given algebra (one operation per node)."""

    @abstractmethod
    def _text(self, name: Callable[[Attribute], str]) -> str: ...

    #: Whether the text needs parentheses as an operand ("a OR b", "x <= 5 or missing").
    _compound = False

    @abstractmethod
    def to_nnf(self) -> Formula:
        """Equivalent negation normal form: ``Not`` only on literals (as negated ``Literal``).

        Constants are removed unless the whole formula is constant.

        Examples
        --------
        >>> from logicrules.formula import Literal, Not
        >>> print(Not(Literal("a") | ~Literal("b")).to_nnf())
        NOT a AND b
        """

    @abstractmethod
    def _negated_nnf(self) -> Formula: ...

    # --- operators --------------------------------------------------------------------------
    def __and__(self, other: object) -> Formula:
        if not isinstance(other, Formula):
            return NotImplemented
        return conjunction(self, other)

    def __or__(self, other: object) -> Formula:
        if not isinstance(other, Formula):
            return NotImplemented
        return disjunction(self, other)

    def __invert__(self) -> Formula:
        return Not(self)

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
        if minterms.size == 0:
            result: Formula = FALSE
        elif minterms.size == n:
            result = TRUE
        else:
            symbols = [sympy.Symbol(f"v{i}") for i in range(len(attributes))]
            # SOPform reads an int minterm's bits most significant first: variable k-1 first.
            expr = SOPform(symbols[::-1], [int(i) for i in minterms])
            leaves = _literals_of(self)
            result = from_sympy(expr, {s.name: leaves.get((a, False), a)
                                       for s, a in zip(symbols, attributes)})
        return (result, True) if return_status else result

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
        return disjunction(*(conjunction(*(leaves.get((a, neg)) or Literal(a, neg) for a, neg in term.items()))
                             for term in terms))

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
        if self is TRUE:
            return [[]]
        if self is FALSE:
            return []
        terms = self.operands if isinstance(self, Or) else (self,)
        out = []
        for term in terms:
            parts = term.operands if isinstance(term, And) else (term,)
            literals = [_as_literal(p) for p in parts]
            if any(lit is None for lit in literals):
                raise TypeError(f"formula is not in DNF ({self}); call to_dnf() first")
            out.append(literals)
        return out


# --- node classes ---------------------------------------------------------------------------

class Literal(Formula):
    """An attribute or its negation, the leaf of every formula.

    Parameters
    ----------
    attribute : str or int
        Attribute name (e.g. ``"age > 54.5"``) or column position.
    negated : bool, default False
    condition : Condition, optional
        What the attribute means on the raw column (a
        :class:`~logicrules.fca.scaling.Condition`, whose ``name`` must equal ``attribute``).
        With it, a negated literal prints as the complementary condition, missing values
        included (``age <= 54.5 or missing``), and :mod:`logicrules.simplify` knows which
        literals imply or exclude each other. Equality and hashing ignore it: an attribute
        name stands for one condition.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> lit = Literal("age > 54.5", negated=True)
    >>> print(lit)
    NOT age > 54.5
    >>> ~lit
    Literal('age > 54.5')
    """

    __slots__ = ("attribute", "negated", "condition", "_hash")

    def __init__(self, attribute: Attribute, negated: bool = False, condition: Any = None) -> None:
        if not isinstance(negated, (bool, np.bool_)):
            raise TypeError(f"negated must be a bool, got {type(negated).__name__}")
        attribute = _check_attribute(attribute)
        if condition is not None and getattr(condition, "name", None) != attribute:
            raise ValueError(f"the condition of literal {attribute!r} must be named like it, got "
                             f"{getattr(condition, 'name', condition)!r}")
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "negated", bool(negated))
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "_hash", hash(("Literal", attribute, bool(negated))))

    def __reduce__(self) -> Any:
        return (Literal, (self.attribute, self.negated, self.condition))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        return (isinstance(other, Literal) and self.attribute == other.attribute
                and self.negated == other.negated)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        suffix = ", negated=True" if self.negated else ""
        return f"Literal({self.attribute!r}{suffix})"

    def __invert__(self) -> Literal:
        return Literal(self.attribute, not self.negated, self.condition)

    @property
    def size(self) -> int:
        return 1

    @property
    def attributes(self) -> frozenset[Attribute]:
        return frozenset((self.attribute,))

    def _fold(self, alg: _Algebra) -> Any:
        return alg.literal(self.attribute, self.negated)

    def _text(self, name: Callable[[Attribute], str]) -> str:
        if self.condition is not None:
            from logicrules._condition_text import literal_text

            return literal_text(self.condition, self.negated)
        return f"NOT {name(self.attribute)}" if self.negated else name(self.attribute)

    @property
    def _compound(self) -> bool:
        if self.condition is None:
            return False
        from logicrules._condition_text import is_compound

        return is_compound(self.condition, self.negated)

    def to_nnf(self) -> Formula:
        return self

    def _negated_nnf(self) -> Formula:
        return ~self


class _Constant(Formula):
    """The constants ``TRUE`` and ``FALSE`` (two singletons)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        object.__setattr__(self, "value", value)

    def __reduce__(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        return self is other

    def __hash__(self) -> int:
        return hash(("Constant", self.value))

    def __repr__(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def __invert__(self) -> Formula:
        return FALSE if self.value else TRUE

    @property
    def size(self) -> int:
        return 0

    @property
    def attributes(self) -> frozenset[Attribute]:
        return frozenset()

    def _fold(self, alg: _Algebra) -> Any:
        return alg.constant(self.value)

    def _text(self, name: Callable[[Attribute], str]) -> str:
        return "TRUE" if self.value else "FALSE"

    def to_nnf(self) -> Formula:
        return self

    def _negated_nnf(self) -> Formula:
        return ~self


#: The formula that is always true (the empty conjunction).
TRUE = _Constant(True)
#: The formula that is always false (the empty disjunction).
FALSE = _Constant(False)


class Not(Formula):
    """Negation of a formula. ``~f`` on a literal flips the literal instead.

    Examples
    --------
    >>> from logicrules.formula import Literal, Not
    >>> print(Not(Literal("a") | Literal("b")))
    NOT (a OR b)
    """

    __slots__ = ("operand", "_hash")

    def __init__(self, operand: Formula) -> None:
        if not isinstance(operand, Formula):
            raise TypeError(f"Not needs a Formula operand, got {type(operand).__name__}")
        object.__setattr__(self, "operand", operand)
        object.__setattr__(self, "_hash", hash(("Not", operand)))

    def __reduce__(self) -> Any:
        return (Not, (self.operand,))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        return (isinstance(other, Not) and self._hash == other._hash
                and self.operand == other.operand)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Not({self.operand!r})"

    def __invert__(self) -> Formula:
        return self.operand

    @property
    def size(self) -> int:
        return self.operand.size

    @property
    def attributes(self) -> frozenset[Attribute]:
        return self.operand.attributes

    def _fold(self, alg: _Algebra) -> Any:
        return alg.negate(self.operand._fold(alg))

    def _text(self, name: Callable[[Attribute], str]) -> str:
        inner = self.operand._text(name)
        return f"NOT ({inner})" if self.operand._compound else f"NOT {inner}"

    def to_nnf(self) -> Formula:
        return self.operand._negated_nnf()

    def _negated_nnf(self) -> Formula:
        return self.operand.to_nnf()


class _Node(Formula):
    """Common code of the nodes with operands: And, Or and the threshold node."""

    __slots__ = ("operands", "_hash", "_size", "_attributes")
    _compound = True

    def _store(self, key: Any, operands: tuple[Formula, ...]) -> None:
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "_hash", hash((key, operands)))
        object.__setattr__(self, "_size", sum(op.size for op in operands))
        object.__setattr__(self, "_attributes", frozenset().union(*(op.attributes for op in operands)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def size(self) -> int:
        return self._size

    @property
    def attributes(self) -> frozenset[Attribute]:
        return self._attributes


class _NAry(_Node):
    """Common code of :class:`And` and :class:`Or`."""

    __slots__ = ()
    _keyword = ""

    def __init__(self, *operands: Formula) -> None:
        cls = type(self)
        flat: list[Formula] = []
        for op in operands:
            if not isinstance(op, Formula):
                raise TypeError(f"{cls.__name__} operands must be Formula objects, got "
                                f"{type(op).__name__} (pass several operands as "
                                f"{cls.__name__}(*ops))")
            flat.extend(op.operands if type(op) is cls else (op,))
        if len(flat) < 2:
            helper = "conjunction" if cls is And else "disjunction"
            raise ValueError(f"{cls.__name__} needs at least 2 operands, got {len(flat)}; "
                             f"use {helper}(...) to accept fewer")
        self._store(cls.__name__, tuple(flat))

    def __reduce__(self) -> Any:
        return (type(self), self.operands)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        return (type(other) is type(self) and self._hash == other._hash
                and self.operands == other.operands)

    __hash__ = _Node.__hash__  # defining __eq__ would otherwise unset it

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.operands))})"

    def _text(self, name: Callable[[Attribute], str]) -> str:
        pairs = self._interval_pairs()
        absorbed = set(pairs.values())
        parts = []
        for i, op in enumerate(self.operands):
            if i in absorbed:
                continue
            if i in pairs:
                from logicrules._condition_text import interval_text

                text, compound = interval_text(op, self.operands[pairs[i]])
            else:
                text, compound = op._text(name), op._compound
            parts.append(f"({text})" if compound else text)
        return f" {self._keyword} ".join(parts)

    def _interval_pairs(self) -> dict[int, int]:
        """Operands printed together as one interval (``20 < x <= 50``): first -> second."""
        return {}


class And(_NAry):
    """Conjunction of at least two formulas (nested ``And`` operands are flattened).

    Use :func:`conjunction` (or ``&``) to also drop constants and accept 0 or 1 operands.

    Examples
    --------
    >>> from logicrules.formula import And, Literal
    >>> print(And(Literal("a"), Literal("b") | Literal("c")))
    a AND (b OR c)
    """

    __slots__ = ()
    _keyword = "AND"

    def _interval_pairs(self) -> dict[int, int]:
        if not any(isinstance(op, Literal) and op.condition is not None for op in self.operands):
            return {}
        from logicrules._condition_text import interval_pairs

        return interval_pairs(self.operands)

    def _fold(self, alg: _Algebra) -> Any:
        return alg.conj([op._fold(alg) for op in self.operands])

    def to_nnf(self) -> Formula:
        return conjunction(*(op.to_nnf() for op in self.operands))

    def _negated_nnf(self) -> Formula:
        return disjunction(*(op._negated_nnf() for op in self.operands))


class Or(_NAry):
    """Disjunction of at least two formulas (nested ``Or`` operands are flattened).

    Use :func:`disjunction` (or ``|``) to also drop constants and accept 0 or 1 operands.

    Examples
    --------
    >>> from logicrules.formula import Literal, Or
    >>> print(Or(Literal("a") & Literal("b"), Literal("c")))
    (a AND b) OR c
    """

    __slots__ = ()
    _keyword = "OR"

    def _fold(self, alg: _Algebra) -> Any:
        return alg.disj([op._fold(alg) for op in self.operands])

    def to_nnf(self) -> Formula:
        return disjunction(*(op.to_nnf() for op in self.operands))

    def _negated_nnf(self) -> Formula:
        return conjunction(*(op._negated_nnf() for op in self.operands))


def _combine(cls: type[_NAry], neutral: _Constant, formulas: tuple[Formula, ...]) -> Formula:
    flat: list[Formula] = []
    for f in formulas:
        if not isinstance(f, Formula):
            raise TypeError(f"operands must be Formula objects, got {type(f).__name__}")
        for op in (f.operands if type(f) is cls else (f,)):
            if op is neutral:
                continue
            if isinstance(op, _Constant):
                return op
            flat.append(op)
    if not flat:
        return neutral
    return flat[0] if len(flat) == 1 else cls(*flat)


def conjunction(*formulas: Formula) -> Formula:
    """AND of any number of formulas, simplified only by constants.

    Nested conjunctions are flattened, ``TRUE`` operands dropped, any ``FALSE`` operand makes
    the result ``FALSE``; no operand gives ``TRUE`` and a single operand is returned unchanged.

    Examples
    --------
    >>> from logicrules.formula import TRUE, Literal, conjunction
    >>> conjunction(Literal("a"), TRUE)
    Literal('a')
    >>> conjunction()
    TRUE
    """
    return _combine(And, TRUE, formulas)


def disjunction(*formulas: Formula) -> Formula:
    """OR of any number of formulas, simplified only by constants.

    Nested disjunctions are flattened, ``FALSE`` operands dropped, any ``TRUE`` operand makes
    the result ``TRUE``; no operand gives ``FALSE`` and a single operand is returned unchanged.

    Examples
    --------
    >>> from logicrules.formula import TRUE, Literal, disjunction
    >>> disjunction(Literal("a"), TRUE)
    TRUE
    >>> disjunction()
    FALSE
    """
    return _combine(Or, FALSE, formulas)


def from_sympy(expr: Any, attribute_map: Mapping[str, Attribute] | None = None) -> Formula:
    """Formula from a SymPy Boolean expression over symbols.

    Parameters
    ----------
    expr : sympy Boolean or bool
        Built from symbols, ``And``, ``Or``, ``Not``, ``true``/``false``; other Boolean
        functions (``Xor``, ``Implies``, ``Equivalent``, ``ITE``, ...) are rewritten to
        negation normal form first. Operands are ordered by SymPy's ``default_sort_key`` so
        the result is deterministic.
    attribute_map : mapping of str to (str, int or Literal), optional
        Attribute for each symbol name (e.g. to restore ``int`` attributes), or the positive
        :class:`Literal` itself (to restore its condition); symbols not in the map become
        ``Literal(symbol.name)``.

    Raises
    ------
    TypeError
        If ``expr`` contains something other than symbols and Boolean functions.

    Examples
    --------
    >>> import sympy
    >>> from logicrules.formula import from_sympy
    >>> a, b = sympy.Symbol("a"), sympy.Symbol("x1")
    >>> from_sympy(a & ~b, {"x1": 1})
    And(Literal('a'), Literal(1, negated=True))
    """
    import sympy
    from sympy.core.sorting import default_sort_key
    from sympy.logic import boolalg

    mapping = dict(attribute_map or {})

    def convert(e: Any) -> Formula:
        if e is True or e is sympy.true:
            return TRUE
        if e is False or e is sympy.false:
            return FALSE
        if isinstance(e, sympy.Symbol):
            target = mapping.get(e.name, e.name)
            return target if isinstance(target, Literal) else Literal(target)
        if isinstance(e, boolalg.Not):
            inner = convert(e.args[0])
            return ~inner if isinstance(inner, Literal) else Not(inner)
        if isinstance(e, (boolalg.And, boolalg.Or)):
            ops = [convert(a) for a in sorted(e.args, key=default_sort_key)]
            return conjunction(*ops) if isinstance(e, boolalg.And) else disjunction(*ops)
        if isinstance(e, boolalg.BooleanFunction):
            rewritten = boolalg.to_nnf(e, simplify=False)
            if rewritten != e:
                return convert(rewritten)
        raise TypeError(f"cannot convert {e!r} ({type(e).__name__}) to a Formula: only symbols, "
                        "Boolean functions and true/false are supported")

    return convert(expr)


def _literals_of(formula: Formula) -> dict[tuple[Attribute, bool], Literal]:
    """Every literal leaf of a formula (with its condition) by (attribute, negated), both signs."""
    found: dict[tuple[Attribute, bool], Literal] = {}
    stack = [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, Literal):
            found.setdefault((f.attribute, f.negated), f)
            found.setdefault((f.attribute, not f.negated), ~f)
        elif isinstance(f, Not):
            stack.append(f.operand)
        else:
            stack.extend(getattr(f, "operands", ()))
    return found


def _as_literal(f: Formula) -> Literal | None:
    if isinstance(f, Literal):
        return f
    if isinstance(f, Not) and isinstance(f.operand, Literal):
        return ~f.operand
    return None


def _dnf_terms(nnf: Formula, max_terms: int) -> list[dict[Attribute, bool]]:
    """DNF terms of an NNF formula as ordered dicts attribute -> negated, deduplicated."""
    if isinstance(nnf, Literal):
        return [{nnf.attribute: nnf.negated}]
    if nnf is TRUE:
        return [{}]
    if nnf is FALSE:
        return []
    if not isinstance(nnf, _NAry):  # a threshold node (logicrules.checklist.AtLeast)
        return _dnf_terms(nnf._expand(max_terms).to_nnf(), max_terms)
    parts = [_dnf_terms(op, max_terms) for op in nnf.operands]
    if isinstance(nnf, Or):
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
