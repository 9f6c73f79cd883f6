"""How a literal over a :class:`~logicrules.fca.scaling.Condition` prints.

A negated literal prints as the complementary condition, missing values included (``NOT x <=
2.5`` is ``x > 2.5 or missing`` when missing values may occur), and two bounds on one column in
a conjunction print as one interval (``20 < x <= 50``). The formula classes
(:mod:`logicrules.formula`) print their literals with these functions; they only read the
literals' ``condition`` and ``negated``, so this module depends on no formula class (and
:mod:`logicrules.conditions`, which builds on formulas, re-exports them).

Examples
--------
>>> from logicrules.fca.scaling import Condition
>>> literal_text(Condition("x", "<=", 2.5), negated=True)
'x > 2.5 or missing'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from logicrules.fca.scaling import Condition

__all__ = ["interval_pairs", "interval_text", "is_compound", "literal_text", "may_be_missing"]

_COMPLEMENT = {">": "<=", "<=": ">", ">=": "<", "<": ">=", "==": "!=", "!=": "=="}
_THRESHOLDS = (">", "<=", ">=", "<")


def may_be_missing(condition: Condition) -> bool:
    """Whether a missing value can reach the condition (its policy is not ``"error"``)."""
    return condition.missing != "error"


def literal_text(condition: Condition, negated: bool) -> str:
    """Text of a literal over ``condition``: its name, or the complement when negated.

    A negated condition is true where the condition is false: on the complementary values and,
    unless the policy is ``"error"``, on a missing value, which the text says (``or missing``).

    Parameters
    ----------
    condition : Condition
    negated : bool

    Returns
    -------
    str

    Examples
    --------
    >>> from logicrules.fca.scaling import Condition
    >>> literal_text(Condition("sex", "==", "male"), True)
    'sex != male or missing'
    >>> literal_text(Condition("x", "is missing"), True)
    'x is not missing'
    """
    if not negated:
        return condition.name
    if condition.op == "is missing":
        return f"{condition.column} is not missing"
    tail = " or missing" if may_be_missing(condition) else ""
    if condition.op == "is true":
        return f"NOT {condition.column}{tail}"
    complement = Condition(condition.column, _COMPLEMENT[condition.op], condition.value)
    return f"{complement.name}{tail}"


def is_compound(condition: Condition, negated: bool) -> bool:
    """Whether :func:`literal_text` reads ``... or missing`` (needs parentheses as an operand)."""
    return negated and condition.op != "is missing" and may_be_missing(condition)


def _bound(literal: Any) -> tuple[str, float, bool, bool] | None:
    """(side, threshold, strict, allows missing) of a threshold literal, else None."""
    condition = getattr(literal, "condition", None)
    if condition is None or condition.op not in _THRESHOLDS:
        return None
    op = _COMPLEMENT[condition.op] if literal.negated else condition.op
    side = "lower" if op in (">", ">=") else "upper"
    return side, float(condition.value), op in (">", "<"), literal.negated and may_be_missing(condition)


def interval_pairs(operands: Sequence[Any]) -> dict[int, int]:
    """In a conjunction, pairs (lower bound, upper bound) of one column to print as an interval.

    Only a column with exactly one lower and one upper threshold literal among the operands is
    paired (the interval then stands for exactly those two literals); the key is the position
    of the first of the two, the value that of the second.
    """
    by_column: dict[str, list[int]] = {}
    for i, op in enumerate(operands):
        if _bound(op) is not None:
            by_column.setdefault(op.condition.column, []).append(i)
    pairs = {}
    for positions in by_column.values():
        sides = sorted(_bound(operands[i])[0] for i in positions)
        if sides == ["lower", "upper"]:
            pairs[positions[0]] = positions[1]
    return pairs


def interval_text(first: Any, second: Any) -> tuple[str, bool]:
    """``"20 < x <= 50"`` for a lower and an upper bound literal on one column (any order).

    Returns the text and whether it reads ``(... or missing)`` (both literals hold on a
    missing value), i.e. needs parentheses as an operand.
    """
    from logicrules.fca.scaling import format_value

    low, high = (first, second) if _bound(first)[0] == "lower" else (second, first)
    _, lo, lo_strict, lo_missing = _bound(low)
    _, hi, hi_strict, hi_missing = _bound(high)
    text = (f"{format_value(lo)} {'<' if lo_strict else '<='} {low.condition.column} "
            f"{'<' if hi_strict else '<='} {format_value(hi)}")
    if lo_missing and hi_missing:
        return f"{text} or missing", True
    return text, False
