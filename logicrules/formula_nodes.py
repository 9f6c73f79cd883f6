"""The formula AST: the abstract :class:`Formula`, its nodes and their constructors.

The node classes (:class:`Literal`, :class:`Not`, :class:`And`, :class:`Or`, the constants
:data:`TRUE` and :data:`FALSE`) and the constructors :func:`conjunction`, :func:`disjunction`
and :func:`from_sympy`. What a formula does beyond its structure comes from its two bases,
below this module: evaluation and printing (:mod:`logicrules.formula_evaluation`) and normal
forms (:mod:`logicrules.formula_normal_forms`); they read a formula through its ``_fold``
and structural hooks, and build formulas with the constructors each formula carries
(``Formula._constructors``). The public names are exported by :mod:`logicrules.formula`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from logicrules.formula_algebras import _Algebra
from logicrules.formula_evaluation import _FormulaEvaluation
from logicrules.formula_inputs import Attribute, _check_attribute
from logicrules.formula_normal_forms import _FormulaNormalForms
from logicrules.formula_sympy import _read_sympy


class _Constructors:
    """The node constructors as an algebra (its fold of a formula rebuilds the formula).

    The modules below this one (normal forms, the SymPy reader) build formulas with it, through
    ``Formula._constructors``, without importing the node classes.
    """

    def literal(self, attribute: Attribute, negated: bool = False) -> Literal:
        return Literal(attribute, negated)

    def atom(self, target: Attribute | Literal) -> Literal:
        """A literal as it is, else the positive literal of an attribute."""
        return target if isinstance(target, Literal) else Literal(target)

    def constant(self, value: bool) -> Formula:
        return TRUE if value else FALSE

    def negate(self, value: Formula) -> Formula:
        return ~value if isinstance(value, Literal) else Not(value)

    def conj(self, values: list[Formula]) -> Formula:
        return conjunction(*values)

    def disj(self, values: list[Formula]) -> Formula:
        return disjunction(*values)


_CONSTRUCTORS = _Constructors()


class Formula(_FormulaEvaluation, _FormulaNormalForms, ABC):
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
    _constructors: ClassVar[_Constructors] = _CONSTRUCTORS

    # --- immutability, pickling -------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    @abstractmethod
    def __reduce__(self) -> Any: ...

    # --- structural equality, hashing -------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        return type(other) is type(self) and self._hash == other._hash and self._key() == other._key()

    def __hash__(self) -> int:
        return self._hash

    @abstractmethod
    def _key(self) -> Any:
        """What two nodes of one type must share to be equal (hashed, with the type, into ``_hash``)."""

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

    def _key(self) -> tuple[Attribute, bool]:
        return (self.attribute, self.negated)

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

    def _as_literal(self) -> Literal:
        return self


class _Constant(Formula):
    """The constants ``TRUE`` and ``FALSE`` (two singletons)."""

    __slots__ = ("value", "_hash")

    def __init__(self, value: bool) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_hash", hash(("Constant", value)))

    def __reduce__(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def _key(self) -> bool:
        return self.value

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

    def _key(self) -> Formula:
        return self.operand

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

    @property
    def _children(self) -> tuple[Formula, ...]:
        return (self.operand,)

    def _as_literal(self) -> Literal | None:
        return ~self.operand if isinstance(self.operand, Literal) else None


class _Node(Formula):
    """Common code of the nodes with operands: And, Or and the threshold node."""

    __slots__ = ("operands", "_hash", "_size", "_attributes")
    _compound = True

    def _store(self, key: Any, operands: tuple[Formula, ...]) -> None:
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "_hash", hash((key, operands)))
        object.__setattr__(self, "_size", sum(op.size for op in operands))
        object.__setattr__(self, "_attributes", frozenset().union(*(op.attributes for op in operands)))

    def _key(self) -> Any:
        return self.operands

    @property
    def size(self) -> int:
        return self._size

    @property
    def attributes(self) -> frozenset[Attribute]:
        return self._attributes

    @property
    def _children(self) -> tuple[Formula, ...]:
        return self.operands


class _NAry(_Node):
    """Common code of :class:`And` and :class:`Or`."""

    __slots__ = ()

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
    return _read_sympy(expr, attribute_map, _CONSTRUCTORS)
