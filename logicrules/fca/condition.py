"""What one binarized attribute means: a :class:`Condition` on an input column, and how values print.

A condition's ``name`` is the attribute name the learners and the printed formulas use; values
print as the shortest decimal that reads back to exactly the float used (:func:`format_value`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

#: Operators a :class:`Condition` may use.
OPERATORS = (">", "<=", ">=", "<", "==", "!=", "is missing", "is true")

#: Values of the ``missing`` parameter.
MISSING_POLICIES = ("error", "false", "indicator")

_COMPARE = {
    ">": np.greater,
    "<=": np.less_equal,
    ">=": np.greater_equal,
    "<": np.less,
}
# Strings that would read like a number, a bool or a missing value when printed bare.
_RESERVED_WORDS = frozenset({"", "True", "False", "None", "nan", "NaN", "<NA>", "NA", "NaT"})


def format_value(value: Any) -> str:
    """Print a threshold or category value compactly and faithfully.

    Floats get the shortest decimal that reads back to exactly the same float (Python's
    ``repr``), without a trailing ``.0`` for whole numbers; so ``float(format_value(t)) == t``
    for every finite float and two different thresholds never print alike.

    Parameters
    ----------
    value : float, int, bool, str or other
        The value to print.

    Returns
    -------
    str
        ``54.5``, ``0.26``, ``3`` (not ``3.0``), ``1e-05``, ``True``; strings are returned as is.

    Examples
    --------
    >>> format_value(54.5), format_value(3.0), format_value(1e-05), format_value("male")
    ('54.5', '3', '1e-05', 'male')
    """
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (Integral, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return str(value)


def _format_category(value: Any) -> str:
    """Print a category value; quote strings that would otherwise read as another value."""
    if isinstance(value, str):
        if value in _RESERVED_WORDS or value != value.strip() or _parses_as_float(value):
            return repr(value)
        return value
    return format_value(value)


def _parses_as_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Condition:
    """One binary attribute made from one input column, e.g. ``age > 54.5``.

    Parameters
    ----------
    column : str
        Name of the input column.
    op : str
        One of ``">"``, ``"<="``, ``">="``, ``"<"`` (numeric thresholds), ``"=="``, ``"!="``
        (categories), ``"is missing"`` (missing-value indicator), ``"is true"`` (a 0/1 or bool
        column: true when the value equals 1 / True).
    value : float, str or None
        The threshold (float) or the category (as found in the data, usually a str); None for
        ``"is missing"`` and ``"is true"``.
    missing : {"error", "false", "indicator"}, default "false"
        The missing-value policy of the binarizer that made the condition: under ``"error"`` a
        missing value never reaches it (transform raises); under ``"false"`` and
        ``"indicator"`` a missing value may occur and makes the condition false (so its
        negation true).

    Notes
    -----
    Under every operator except ``"is missing"`` a missing value makes the condition false.
    ``"x != v"`` is true for a category never seen at fit (it differs from ``v``). A value
    equals a category when it is equal, or, failing that, when both read the same (``1``,
    ``1.0`` and ``"1"``; see :meth:`MedianBinarizer.transform`).
    The policy does not change the name; :mod:`logicrules.conditions` uses it to print
    negations honestly (``x > 2.5 or missing``) and to know which rows a binarizer can produce.

    Examples
    --------
    >>> Condition("age", ">", 54.5).name
    'age > 54.5'
    >>> Condition("sex", "==", "male").name, Condition("x", "is missing").name
    ('sex == male', 'x is missing')
    >>> Condition("smoker", "is true").name
    'smoker'
    """

    column: str
    op: str
    value: Any = None
    missing: str = "false"

    def __post_init__(self) -> None:
        if self.missing not in MISSING_POLICIES:
            raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {self.missing!r}")
        if self.op not in OPERATORS:
            raise ValueError(f"unknown operator {self.op!r}; use one of {OPERATORS}")
        if self.op in ("is missing", "is true") and self.value is not None:
            raise ValueError(f"operator {self.op!r} takes no value, got {self.value!r}")
        if self.op in _COMPARE and not isinstance(self.value, (float, int, np.number)):
            raise TypeError(f"operator {self.op!r} needs a numeric threshold, got {self.value!r}")

    @property
    def name(self) -> str:
        """Readable name: ``age > 54.5``, ``sex == male``, ``x is missing``, ``smoker``."""
        if self.op == "is true":
            return self.column
        if self.op == "is missing":
            return f"{self.column} is missing"
        if self.op in ("==", "!="):
            return f"{self.column} {self.op} {_format_category(self.value)}"
        return f"{self.column} {self.op} {format_value(self.value)}"

    def __str__(self) -> str:
        return self.name
