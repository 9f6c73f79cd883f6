"""Domain-aware simplification: shorter formulas that agree on every row a binarizer can produce.

A learner's formula treats its attributes as independent variables, but ``x > 45`` and
``x > 55`` are not: no row has ``x > 55`` without ``x > 45``, no row has ``A == a`` and
``A == b``. :func:`simplify_on_domain` uses these ties (a :class:`~logicrules.conditions.Domain`
built from the literals' conditions) in two steps:

1. *local*: in every AND / OR, the literals on one column are replaced by the fewest of them
   that allow the same values of the column (``x > 45 AND x > 55`` -> ``x > 55``,
   ``A == a AND NOT A == b`` -> ``A == a``), a conjunction allowing no value becomes FALSE and a
   disjunction allowing every value TRUE;
2. *two-level minimization with don't-cares*: the truth assignments no row can produce are
   don't-cares. Up to ``max_variables`` attributes the DNF is minimal: all prime implicants
   of the true and don't-care assignments (Quine-McCluskey, vectorized), then a cover of the
   true assignments of least total literal count (then fewest terms) by an integer program
   (within a time limit: a random function of 10 variables may take longer, and then gets the
   best cover found). Above, a heuristic cover (:func:`~logicrules.espresso.espresso_cover`:
   expand, irredundant, reduce over bit-packed cubes) starts from the formula's own DNF (or
   its true assignments), when the domain has at most ``2**16`` assignments and the starting
   cubes times the false assignments are at most ``2**22`` (the work of one expansion round;
   about a second on a loaded core at the limits). The DNF replaces
   the formula when it has fewer literals.

Both steps are exact on the domain: the result agrees with the input on every row the
binarizer can produce, missing values included. A threshold node (``AtLeast``) is kept intact:
its operands are simplified, and in step 2 the node is one opaque variable (costing its
literals) that the DNF may use or drop; the node's ties to literals elsewhere are not used as
don't-cares (treating it as free only adds assignments, so the result stays exact).

Examples
--------
>>> from logicrules.fca.scaling import Condition
>>> from logicrules.formula import Literal
>>> c45, c55 = Condition("x", ">", 45.0), Condition("x", ">", 55.0)
>>> x45, x55 = Literal(c45.name, condition=c45), Literal(c55.name, condition=c55)
>>> print(simplify_on_domain(x45 & x55), "|", simplify_on_domain((x45 & ~x55) | x55))
x > 55 | x > 45
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import optimize, sparse

from logicrules.checklist import AtLeast, at_least
from logicrules.conditions import Domain
from logicrules.espresso import espresso_cover
from logicrules.formula import (FALSE, TRUE, And, Attribute, Formula, Literal, Not, Or, conjunction,
                                disjunction)
from logicrules.formula_algebras import _BoolAlgebra
from logicrules.formula_nodes import _Constant
from logicrules.formula_normal_forms import _literals_of
from logicrules.formula_inputs import _ordered

__all__ = ["minimal_dnf", "prime_implicants", "simplify_on_domain"]

#: Default bound on the attributes of a formula minimized into a DNF (2**12 assignments).
MAX_VARIABLES = 12
#: Largest group of literals on one column searched for a smallest equivalent subset.
_LOCAL_GROUP = 10
#: Most realizable assignments the heuristic minimization enumerates.
_HEURISTIC_CODES = 1 << 16
#: Most terms of the DNF the heuristic starts from (else its true assignments, at most as many).
_HEURISTIC_START = 2048
#: Most (starting cubes x false assignments) the heuristic takes on: each expansion of a cube
#: reads every false assignment.
_HEURISTIC_WORK = 1 << 22
#: Prefix of the placeholder attributes that stand for threshold nodes during step 2.
_UNIT = "\x00at least #"


def simplify_on_domain(formula: Formula, domain: Any = None, *, order: Sequence[Attribute] | None = None,
                       max_variables: int = MAX_VARIABLES) -> Formula:
    """A formula with at most as many literals, equal to ``formula`` on the domain.

    Parameters
    ----------
    formula : Formula
        Literals that carry a condition are tied to the other conditions on their column;
        the others are free variables.
    domain : Domain, fitted binarizer, conditions or None, optional
        More about the attributes (see :meth:`Domain.of`); the literals' own conditions are
        always used.
    order : sequence of attribute keys, optional
        Order of literals in the terms of a new DNF (e.g. the binarizer's attribute order);
        other attributes follow in sorted order.
    max_variables : int, default 12
        Build a minimal DNF for formulas over at most this many attributes (a threshold node
        counting as one); above, a heuristic short DNF.

    Returns
    -------
    Formula

    Examples
    --------
    >>> from logicrules.fca.scaling import Condition
    >>> from logicrules.formula import Literal
    >>> a, b = Condition("A", "==", "a"), Condition("A", "==", "b")
    >>> la, lb = Literal(a.name, condition=a), Literal(b.name, condition=b)
    >>> print(simplify_on_domain(la & ~lb), "|", simplify_on_domain(la & lb))
    A == a | FALSE
    """
    if not isinstance(formula, Formula):
        raise TypeError(f"simplify_on_domain needs a Formula, got {type(formula).__name__}")
    domain = Domain.of(domain)
    conditions = {a: lit.condition for (a, _), lit in _literals_of(formula).items()
                  if lit.condition is not None}
    local = _positive(_local(formula, domain, conditions))
    if local.size <= 1:
        return local
    units: dict[str, AtLeast] = {}
    skeleton = _opaque(local, units)
    costs = {a: node.size for a, node in units.items()}
    if len(skeleton.attributes) <= max_variables:
        dnf = minimal_dnf(skeleton, domain, order=order, conditions=conditions, costs=costs)
    else:
        dnf = _heuristic_dnf(skeleton, domain, order, conditions, costs)
    if dnf is None:
        return local
    dnf = _restore(dnf, units)
    return dnf if dnf.size < local.size else local


def _positive(formula: Formula) -> Formula:
    """A negated formula with its negation pushed to the literals (De Morgan; the same literal
    count): ``NOT (x <= 1 OR (y <= 2 AND z <= 3))`` reads ``x > 1 AND (y > 2 OR z > 3)``."""
    return formula.to_nnf() if isinstance(formula, Not) else formula


def minimal_dnf(formula: Formula, domain: Any = None, *, order: Sequence[Attribute] | None = None,
                conditions: dict | None = None, time_limit: float = 1.0,
                costs: dict | None = None) -> Formula:
    """A DNF of least literal count (then fewest terms) equal to ``formula`` on the domain.

    Parameters
    ----------
    formula : Formula
    domain : Domain, binarizer, conditions or None, optional
        See :meth:`Domain.of`.
    order : sequence of attribute keys, optional
        Order of the literals within a term.
    conditions : dict of attribute to Condition, optional
        Conditions of the formula's attributes (default: those its literals carry).
    time_limit : float, default 1
        Seconds for the covering program; when it stops early, its best cover is used (short,
        exact, not proved least).
    costs : dict of attribute to int, optional
        Cost of a literal of each attribute (default 1): the cover minimizes the total cost.

    Returns
    -------
    Formula
        ``TRUE``, ``FALSE`` or a DNF of the formula's literals.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> a, b = Literal("a"), Literal("b")
    >>> print(minimal_dnf((a & b) | (a & ~b) | (~a & b)))
    a OR b
    """
    domain = Domain.of(domain)
    leaves = _literals_of(formula)
    if conditions is None:
        conditions = {a: lit.condition for (a, _), lit in leaves.items() if lit.condition is not None}
    attributes = _attribute_order(formula.attributes, order)
    k = len(attributes)
    codes = domain.assignments(attributes, conditions)
    on, off = _split(formula, attributes, codes)
    if on.size == 0 or off.size == 0:
        return FALSE if on.size == 0 else TRUE
    impossible = np.setdiff1d(np.arange(1 << k, dtype=np.int64), codes, assume_unique=True)
    values, masks = prime_implicants(np.concatenate([on, impossible]), k)
    covers = (on[None, :] & ~masks[:, None]) == values[:, None]  # (primes, true assignments)
    useful = covers.any(axis=1)
    values, masks, covers = values[useful], masks[useful], covers[useful]
    cost = _cube_costs(masks, attributes, costs)
    chosen = _least_cover(covers, cost, time_limit)
    return _dnf_of(values[chosen], masks[chosen], attributes, leaves, cost[chosen])


def _split(formula: Formula, attributes: list[Attribute], codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codes on which the formula is true, and those on which it is false."""
    shifts = np.arange(len(attributes), dtype=np.int64)
    columns = ((codes[None, :] >> shifts[:, None]) & 1).astype(bool)
    truth = formula._fold(_BoolAlgebra(dict(zip(attributes, columns)), codes.size))
    return codes[truth], codes[~truth]


def _cube_costs(masks: np.ndarray, attributes: list[Attribute], costs: dict | None) -> np.ndarray:
    """Cost of each cube: the summed literal costs of its fixed bits."""
    weights = np.array([(costs or {}).get(a, 1) for a in attributes], dtype=np.int64)
    bits = np.arange(len(attributes), dtype=np.int64)
    return ((~masks[:, None] >> bits) & 1) @ weights


def _dnf_of(values: np.ndarray, masks: np.ndarray, attributes: list[Attribute], leaves: dict,
            cost: np.ndarray) -> Formula:
    """The DNF of cubes over ``attributes``, its terms by cost then code, literals reusing
    the formula's own leaves (with their conditions)."""
    terms = []
    for p in np.lexsort((values, cost)).tolist():
        v, m = int(values[p]), int(masks[p])
        terms.append(conjunction(*(leaves.get((a, not (v >> j) & 1)) or Literal(a, not (v >> j) & 1)
                                   for j, a in enumerate(attributes) if not (m >> j) & 1)))
    return disjunction(*terms)


def _heuristic_dnf(formula: Formula, domain: Domain, order: Sequence[Attribute] | None, conditions: dict,
                   costs: dict) -> Formula | None:
    """A short DNF equal to ``formula`` on the domain by :func:`espresso_cover`, or None when
    the domain is too large to enumerate or the formula has no usable start."""
    attributes = _attribute_order(formula.attributes, order)
    if len(attributes) > 62:
        return None
    try:
        codes = domain.assignments(attributes, conditions, limit=_HEURISTIC_CODES)
    except ValueError:  # too many assignments to enumerate
        return None
    on, off = _split(formula, attributes, codes)
    if on.size == 0 or off.size == 0:
        return FALSE if on.size == 0 else TRUE
    position = {a: j for j, a in enumerate(attributes)}
    try:
        terms = formula.to_dnf(max_terms=_HEURISTIC_START).conjunctions()
        start = (np.array([sum((not lit.negated) << position[lit.attribute] for lit in t) for t in terms],
                          dtype=np.int64),
                 np.array([((1 << len(attributes)) - 1) & ~sum(1 << position[lit.attribute] for lit in t)
                           for t in terms], dtype=np.int64))
    except ValueError:  # the DNF has too many terms: start from the true assignments
        if on.size > _HEURISTIC_START:
            return None
        start = None
    if (on.size if start is None else start[0].size) * off.size > _HEURISTIC_WORK:
        return None
    weights = np.array([costs.get(a, 1) for a in attributes], dtype=np.int64)
    values, masks = espresso_cover(on, off, len(attributes), start, weights)
    return _dnf_of(values, masks, attributes, _literals_of(formula), _cube_costs(masks, attributes, costs))


def prime_implicants(minterms: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Quine-McCluskey merging: all prime implicants as (values, masks) of k-bit codes.

    An implicant is a pair (value, mask): the bits in ``mask`` are free, the others must equal
    ``value`` (whose masked bits are 0). Level by level, two implicants with the same mask whose
    values differ in one free-able bit merge; those never merged are prime.

    Parameters
    ----------
    minterms : ndarray of int
        Codes of the assignments to cover (true and don't-care ones).
    k : int
        Number of variables (at most 31).

    Returns
    -------
    values, masks : ndarray of int64

    Examples
    --------
    >>> values, masks = prime_implicants(np.array([1, 3]), 2)
    >>> values.tolist(), masks.tolist()
    ([1], [2])
    """
    full = (1 << k) - 1
    keys = np.unique(np.asarray(minterms, dtype=np.int64))  # key = mask << k | value
    prime_keys = []
    while len(keys):
        values, masks = keys & full, keys >> k
        merged = np.zeros(len(keys), dtype=bool)
        new = []
        for b in range(k):
            bit = np.int64(1 << b)
            low = ((values & bit) == 0) & ((masks & bit) == 0)
            partner = keys[low] | bit
            pos = np.minimum(np.searchsorted(keys, partner), len(keys) - 1)
            found = keys[pos] == partner
            merged[np.flatnonzero(low)[found]] = True
            merged[pos[found]] = True
            new.append(keys[low][found] | (bit << k))
        prime_keys.append(keys[~merged])
        keys = np.unique(np.concatenate(new)) if new else np.zeros(0, dtype=np.int64)
    primes = np.concatenate(prime_keys) if prime_keys else np.zeros(0, dtype=np.int64)
    return primes & full, primes >> k


def _least_cover(covers: np.ndarray, n_literals: np.ndarray, time_limit: float) -> list[int]:
    """Primes covering every column at least literal cost (then fewest primes): a 0/1 program.

    Essential primes (the only cover of some column) are taken first; the program covers the
    rest. When it is not solved within ``time_limit`` its best cover is used, and without one
    the greedy cover (most newly covered per prime, then fewer literals).
    """
    essential = np.flatnonzero((covers & (covers.sum(axis=0) == 1)).any(axis=1))
    left = ~covers[essential].any(axis=0)
    chosen = essential.tolist()
    if not left.any():
        return chosen
    candidates = np.flatnonzero(covers[:, left].any(axis=1))
    block = covers[np.ix_(candidates, left)]
    cost = n_literals[candidates].astype(np.float64) * (len(candidates) + 1) + 1.0
    constraint = optimize.LinearConstraint(sparse.csr_array(block.T.astype(np.float64)), lb=1.0)
    res = optimize.milp(cost, integrality=np.ones(len(candidates)), bounds=optimize.Bounds(0, 1),
                        constraints=constraint, options={"time_limit": float(time_limit)})
    if res.x is not None and block[res.x > 0.5].any(axis=0).all():
        return chosen + candidates[res.x > 0.5].tolist()
    uncovered = np.ones(block.shape[1], dtype=bool)
    while uncovered.any():
        gain = block[:, uncovered].sum(axis=1)
        best = int(np.lexsort((n_literals[candidates], -gain))[0])
        chosen.append(int(candidates[best]))
        uncovered &= ~block[best]
    return chosen


def _attribute_order(attributes: frozenset, order: Sequence[Attribute] | None) -> list[Attribute]:
    first = [a for a in dict.fromkeys(order or ()) if a in attributes]
    return first + [a for a in _ordered(attributes) if a not in set(first)]


def _opaque(formula: Formula, units: dict[str, AtLeast]) -> Formula:
    """The formula with every threshold node replaced by a placeholder literal (``units``
    collects them), so that step 2 treats each node as one variable."""
    if isinstance(formula, AtLeast):
        for name, node in units.items():
            if node == formula:
                return Literal(name)
        name = f"{_UNIT}{len(units)}"
        units[name] = formula
        return Literal(name)
    if isinstance(formula, Not):
        return Not(_opaque(formula.operand, units))
    if isinstance(formula, (And, Or)):
        return type(formula)(*(_opaque(op, units) for op in formula.operands))
    return formula


def _restore(formula: Formula, units: dict[str, AtLeast]) -> Formula:
    """The threshold nodes back in place of their placeholders."""
    if isinstance(formula, Literal) and formula.attribute in units:
        node = units[formula.attribute]
        return Not(node) if formula.negated else node
    if isinstance(formula, And):
        return conjunction(*(_restore(op, units) for op in formula.operands))
    if isinstance(formula, Or):
        return disjunction(*(_restore(op, units) for op in formula.operands))
    return formula


def _local(formula: Formula, domain: Domain, conditions: dict) -> Formula:
    """Step 1, bottom-up: fewest literals per column in every AND / OR."""
    if isinstance(formula, (Literal, _Constant)):
        return formula
    if isinstance(formula, Not):
        inner = _local(formula.operand, domain, conditions)
        return ~inner if isinstance(inner, (Literal, _Constant, Not)) else Not(inner)
    operands = [_local(op, domain, conditions) for op in formula.operands]
    if isinstance(formula, AtLeast):
        return at_least(formula.m, operands)
    is_and = isinstance(formula, And)
    combined = conjunction(*operands) if is_and else disjunction(*operands)
    if type(combined) is not type(formula):  # a constant, or the one operand left
        return combined
    groups: dict[Any, list[int]] = {}
    for i, op in enumerate(combined.operands):
        if isinstance(op, Literal):
            c = conditions.get(op.attribute) or domain.condition(op.attribute)
            groups.setdefault(("column", c.column) if c is not None else ("attribute", op.attribute),
                              []).append(i)
    drop: set[int] = set()
    for key, positions in groups.items():
        if len(positions) < 2 or len(positions) > _LOCAL_GROUP:
            continue
        literals = [combined.operands[i] for i in positions]
        truth = _group_truth(literals, key, domain, conditions)
        allowed = truth.all(axis=1) if is_and else truth.any(axis=1)
        if is_and and not allowed.any():
            return FALSE
        if not is_and and allowed.all():
            return TRUE
        keep = _smallest_subset(truth, allowed, is_and)
        drop.update(p for j, p in enumerate(positions) if j not in keep)
    kept = [op for i, op in enumerate(combined.operands) if i not in drop]
    return conjunction(*kept) if is_and else disjunction(*kept)


def _group_truth(literals: list[Literal], key: tuple, domain: Domain, conditions: dict) -> np.ndarray:
    """Truth (patterns, literals) of literals on one column over the column's value patterns."""
    attributes = list(dict.fromkeys(lit.attribute for lit in literals))
    if key[0] == "attribute":
        table = np.array([[False], [True]])
    else:
        table = domain.patterns([conditions.get(a) or domain.condition(a) for a in attributes])
    position = {a: j for j, a in enumerate(attributes)}
    return np.column_stack([table[:, position[lit.attribute]] ^ lit.negated for lit in literals])


def _smallest_subset(truth: np.ndarray, allowed: np.ndarray, is_and: bool) -> set[int]:
    """Fewest columns of ``truth`` whose AND (OR) equals ``allowed``, earliest first."""
    n = truth.shape[1]
    for size in range(1, n + 1):
        for subset in itertools.combinations(range(n), size):
            block = truth[:, list(subset)]
            if np.array_equal(block.all(axis=1) if is_and else block.any(axis=1), allowed):
                return set(subset)
    return set(range(n))
