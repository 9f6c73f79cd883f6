"""What a binarized attribute means on its raw column, and which rows a binarizer can produce.

A literal of a learned formula may carry the :class:`~logicrules.fca.scaling.Condition` behind
its attribute (column, operator, threshold or category, missing-value policy). This module
holds the condition logic the rest of the library builds on:

- honest text (in ``logicrules._condition_text``, re-exported here): a negated literal prints
  as the complementary condition, missing values included (``NOT x <= 2.5`` is ``x > 2.5 or
  missing`` when missing values may occur), and two bounds on one column in a conjunction
  print as one interval (``20 < x <= 50``);
- the *domain* of a set of conditions (:class:`Domain`): which truth assignments of the
  attributes some raw row can produce. Conditions on different columns are independent; on
  one column they are tied by the column's value: ``x > 55`` implies ``x > 45``, ``A == a``
  excludes ``A == b``, a missing value makes every condition but ``x is missing`` false.
  Literals without a condition (passthrough data) are free Boolean variables.

The domain is what :mod:`logicrules.simplify` minimizes over and what
:func:`logicrules.equivalence.equivalent` compares on when given the binarization.

Examples
--------
>>> from logicrules.fca.scaling import Condition
>>> literal_text(Condition("x", "<=", 2.5), negated=True)
'x > 2.5 or missing'
>>> literal_text(Condition("x", "<=", 2.5, missing="error"), negated=True)
'x > 2.5'
>>> Domain([Condition("x", ">", 45.0), Condition("x", ">", 55.0)]).patterns(
...     [Condition("x", ">", 45.0), Condition("x", ">", 55.0)]).astype(int).tolist()
[[0, 0], [1, 0], [1, 1]]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from logicrules._condition_text import (  # noqa: F401  (re-exported: their public home was here)
    _THRESHOLDS,
    interval_pairs,
    interval_text,
    is_compound,
    literal_text,
    may_be_missing,
)
from logicrules.fca.scaling import Condition

__all__ = ["Domain", "holds", "interval_text", "literal_text", "with_conditions"]

#: Most rows :meth:`Domain.assignments` enumerates (the product of the columns' patterns).
MAX_ASSIGNMENTS = 1 << 22


# ------------------------------------------------------------------------------- domain
_MISSING = ("missing",)
_OTHER = ("other",)


def holds(condition: Condition, value: tuple) -> bool:
    """Truth of a condition on one representative value (reference semantics of the binarizers).

    ``value`` is ``("num", float)``, ``("cat", category)``, ``("other",)`` (a category no
    condition names) or ``("missing",)``. A missing value makes every condition false except
    ``is missing``; ``x != v`` is false on missing and true on any other value than ``v``;
    thresholds and ``is true`` (value 1) hold on numbers only.

    Examples
    --------
    >>> from logicrules.fca.scaling import Condition
    >>> holds(Condition("x", ">", 1.0), ("num", 2.0)), holds(Condition("x", ">", 1.0), ("missing",))
    (True, False)
    """
    op = condition.op
    if value == _MISSING:
        return op == "is missing"
    if op == "is missing":
        return False
    kind = value[0]
    if op in _THRESHOLDS:
        if kind != "num":
            return False
        x, t = value[1], float(condition.value)
        return {">": x > t, "<=": x <= t, ">=": x >= t, "<": x < t}[op]
    if op == "is true":
        return kind == "num" and value[1] == 1.0
    same = kind == "cat" and _same_category(value[1], condition.value)
    return same if op == "==" else not same


def _same_category(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def _numeric_values(conditions: Sequence[Condition]) -> list[tuple]:
    """One number per cell cut by the thresholds: below, on, between and above them."""
    points = sorted({float(c.value) for c in conditions if c.op in _THRESHOLDS}
                    | ({0.0, 1.0} if any(c.op == "is true" for c in conditions) else set()))
    if not points:
        return []
    values = [np.nextafter(points[0], -np.inf), *points, np.nextafter(points[-1], np.inf)]
    for a, b in zip(points, points[1:]):
        middle = a + (b - a) / 2
        if a < middle < b:
            values.append(middle)
    return [("num", float(v)) for v in values if math.isfinite(v)]


class Domain:
    """The truth assignments of attributes that raw rows can produce.

    Parameters
    ----------
    conditions : iterable of Condition, or mapping of attribute name to Condition, optional
        Conditions known beside those that literals carry (e.g. a binarizer's
        ``conditions_``); they tell which attribute names are conditions.
    categories : mapping of str to sequence, optional
        Categories of categorical columns (a binarizer's ``categories_``).
    unseen_categories : bool, default True
        Whether a categorical column may hold a value none of its categories or conditions
        name (the binarizers accept one at transform: every ``x == v`` false, every
        ``x != v`` true). With False, a column whose ``categories`` are given takes only those
        values (or a missing value, when its policy allows).

    Examples
    --------
    >>> from logicrules.fca.scaling import Condition
    >>> a, b = Condition("A", "==", "a"), Condition("A", "==", "b")
    >>> Domain().patterns([a, b]).astype(int).tolist()
    [[0, 0], [0, 1], [1, 0]]
    """

    def __init__(self, conditions: Iterable[Condition] | Mapping[str, Condition] | None = None,
                 categories: Mapping[str, Sequence[Any]] | None = None, *,
                 unseen_categories: bool = True) -> None:
        items = conditions.values() if isinstance(conditions, Mapping) else (conditions or ())
        self.conditions: dict[str, Condition] = {}
        for c in items:
            if not isinstance(c, Condition):
                raise TypeError(f"a Domain is built from Condition objects, got {type(c).__name__}")
            self.conditions[c.name] = c
        self.categories = {str(k): list(v) for k, v in (categories or {}).items()}
        self.unseen_categories = bool(unseen_categories)

    @classmethod
    def of(cls, source: Any = None, *, unseen_categories: bool = True) -> Domain:
        """A domain from None, a Domain, a fitted binarizer, conditions, or a fitted model.

        Parameters
        ----------
        source : None, Domain, binarizer, model, iterable or mapping of Condition
            A binarizer of :mod:`logicrules.fca.scaling` gives its ``conditions_`` and
            ``categories_``; a fitted rule model its ``binarizer_`` (none for passthrough).
        unseen_categories : bool, default True
            See :class:`Domain` (ignored when ``source`` is a Domain).

        Returns
        -------
        Domain
        """
        if isinstance(source, Domain):
            return source
        if source is None:
            return cls(unseen_categories=unseen_categories)
        if hasattr(source, "formula_") and hasattr(source, "binarizer_"):
            return cls.of(source.binarizer_, unseen_categories=unseen_categories)
        if hasattr(source, "conditions_"):
            return cls(source.conditions_, getattr(source, "categories_", None),
                       unseen_categories=unseen_categories)
        if hasattr(source, "fit") and hasattr(source, "transform"):
            raise ValueError(f"the binarizer {type(source).__name__} is not fitted (no conditions_); "
                             "fit it first")
        return cls(source, unseen_categories=unseen_categories)

    def condition(self, attribute: Any) -> Condition | None:
        """The condition of an attribute name, if known."""
        return self.conditions.get(attribute) if isinstance(attribute, str) else None

    def patterns(self, conditions: Sequence[Condition]) -> np.ndarray:
        """Distinct truth patterns (rows) of conditions on ONE column over all its values.

        Parameters
        ----------
        conditions : sequence of Condition
            Conditions on the same column.

        Returns
        -------
        ndarray of bool, shape (n_patterns, len(conditions)), rows sorted
        """
        columns = {c.column for c in conditions}
        if len(columns) != 1:
            raise ValueError(f"patterns() needs conditions on one column, got columns {sorted(columns)}")
        values = _numeric_values(conditions)
        named = [c.value for c in conditions if c.op in ("==", "!=")]
        if named or not values:
            column = next(iter(columns))
            known = self.categories.get(column)
            if known is not None and not self.unseen_categories:
                values += [("cat", v) for v in known]
                values += [("cat", v) for v in named if not any(_same_category(v, k) for k in known)]
            else:
                values += [("cat", v) for v in named] + [_OTHER]
        if any(may_be_missing(c) for c in conditions):
            values.append(_MISSING)
        table = np.array([[holds(c, v) for c in conditions] for v in values], dtype=bool)
        return np.unique(table.reshape(len(values), len(conditions)), axis=0)

    def assignments(self, attributes: Sequence[Any],
                    conditions: Mapping[Any, Condition | None] | None = None, *,
                    limit: int = MAX_ASSIGNMENTS) -> np.ndarray:
        """Codes of every realizable truth assignment of ``attributes``.

        Bit ``j`` of a code is the value of ``attributes[j]``. Attributes with a condition (from
        ``conditions``, else this domain) are tied to the other conditions on their column;
        the others are free.

        Parameters
        ----------
        attributes : sequence of attribute keys (at most 62)
        conditions : mapping of attribute key to Condition or None, optional
            Conditions that override or complete the domain's (e.g. those the literals carry).
        limit : int, default :data:`MAX_ASSIGNMENTS`
            Most assignments enumerated (checked column by column, before each product).

        Returns
        -------
        ndarray of int64, sorted, distinct

        Raises
        ------
        ValueError
            If more than ``limit`` assignments would be enumerated.
        """
        if len(attributes) > 62:
            raise ValueError(f"assignments() handles at most 62 attributes, got {len(attributes)}")
        given = dict(conditions or {})
        groups: dict[Any, list[int]] = {}
        conds: list[Condition | None] = []
        for j, a in enumerate(attributes):
            c = given.get(a) or self.condition(a)
            conds.append(c)
            groups.setdefault(("column", c.column) if c is not None else ("free", j), []).append(j)
        codes = np.zeros(1, dtype=np.int64)
        for key, positions in groups.items():
            if key[0] == "free":
                table = np.array([[False], [True]])
            else:
                table = self.patterns([conds[j] for j in positions])
            weights = np.left_shift(np.int64(1), np.array(positions, dtype=np.int64))
            contributions = table.astype(np.int64) @ weights
            if codes.size * contributions.size > limit:
                raise ValueError(f"the domain of these {len(attributes)} attributes has more than "
                                 f"{limit} assignments")
            codes = (codes[:, None] | contributions[None, :]).reshape(-1)
        return np.unique(codes)


def with_conditions(formula: Any, conditions: Mapping[str, Condition]) -> Any:
    """The formula with every literal whose attribute names a condition carrying it.

    Parameters
    ----------
    formula : Formula
    conditions : mapping of attribute name to Condition
        E.g. ``{c.name: c for c in binarizer.conditions_}``.

    Returns
    -------
    Formula
        Equal to ``formula`` (conditions do not take part in equality), structure unchanged.

    Examples
    --------
    >>> from logicrules.fca.scaling import Condition
    >>> from logicrules.formula import Literal
    >>> c = Condition("x", "<=", 2.5)
    >>> print(with_conditions(~Literal("x <= 2.5"), {c.name: c}))
    x > 2.5 or missing
    """
    from logicrules.checklist import AtLeast
    from logicrules.formula import And, Literal, Not, Or

    def attach(f: Any) -> Any:
        if isinstance(f, Literal):
            condition = conditions.get(f.attribute) if isinstance(f.attribute, str) else None
            return f if condition is None else Literal(f.attribute, f.negated, condition)
        if isinstance(f, Not):
            return Not(attach(f.operand))
        if isinstance(f, (And, Or)):
            return type(f)(*(attach(op) for op in f.operands))
        if isinstance(f, AtLeast):
            return AtLeast(f.m, [attach(op) for op in f.operands])
        return f

    return attach(formula)
