"""What a :class:`~logicrules.formula.Formula` is evaluated on: attribute keys (names or column
positions), checked, and resolved against the columns of a boolean matrix, a DataFrame or a
formal context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Attribute = str | int


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


def _count(value: Any, what: str) -> int:
    """A non-negative int parameter, else ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{what} must be a non-negative int, got {value!r}")
    return int(value)


def _ordered(attributes: frozenset[Attribute]) -> list[Attribute]:
    """Deterministic order: int attributes first (by value), then str attributes."""
    return sorted(a for a in attributes if isinstance(a, int)) + \
        sorted(a for a in attributes if isinstance(a, str))


def _namer(feature_names: Sequence[str] | None) -> Callable[[Attribute], str]:
    if feature_names is None:
        return lambda a: a if isinstance(a, str) else f"x{a}"
    names = list(feature_names)

    def name(a: Attribute) -> str:
        if isinstance(a, str):
            return a
        if a >= len(names):
            raise ValueError(f"attribute {a} is out of range for {len(names)} feature names")
        return str(names[a])

    return name


def _is_context(X: Any) -> bool:
    return hasattr(X, "attributes") and hasattr(X, "bits") and hasattr(X, "n_objects")


def _is_frame(X: Any) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "columns") and getattr(X, "ndim", 0) == 2


def _resolve(attributes: frozenset[Attribute], names: Sequence[str] | None,
             m: int) -> dict[Attribute, int]:
    """Column index of every attribute; ValueError naming unknown / ambiguous ones."""
    if names is not None:
        names = [str(x) for x in names]
        if len(names) != m:
            raise ValueError(f"got {len(names)} feature names for {m} columns")
    index: dict[Attribute, int] = {}
    missing: list[Attribute] = []
    positions: dict[str, list[int]] | None = None
    for a in _ordered(attributes):
        if isinstance(a, int):
            if a >= m:
                raise ValueError(f"attribute {a} is out of range: X has {m} columns")
            index[a] = a
            continue
        if names is None:
            raise ValueError(f"the formula uses the named attribute {a!r}: pass feature_names "
                             "(or a DataFrame / FormalContext carrying names)")
        if positions is None:
            positions = {}
            for j, x in enumerate(names):
                positions.setdefault(x, []).append(j)
        found = positions.get(a)
        if found is None:
            missing.append(a)
        elif len(found) > 1:
            raise ValueError(f"attribute {a!r} is ambiguous: it names columns {found}")
        else:
            index[a] = found[0]
    if missing:
        raise ValueError(f"unknown attribute(s) {missing!r}: not among the {m} column names")
    return index


def _boolean_rows(block: np.ndarray, labels: Sequence[Attribute]) -> np.ndarray:
    """The (k, n) values of the columns read, as bool; ValueError naming a non-boolean column.

    ``block`` must be a private copy: a bool block is returned as is.
    """
    if block.dtype == bool:
        return block
    if block.dtype == object:
        try:
            block = block.astype(float)
        except (TypeError, ValueError):
            for label, row in zip(labels, block):
                try:
                    row.astype(float)
                except (TypeError, ValueError):
                    raise ValueError(f"column {label!r} is not boolean: it holds non-numeric "
                                     "values") from None
            raise
    if block.dtype.kind not in "biuf":
        raise ValueError(f"column {labels[0]!r} is not boolean (dtype {block.dtype})")
    ones = block == 1
    bad = ~(ones | (block == 0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"column {labels[r]!r} is not boolean: it holds the value "
                         f"{block[r, c].item()!r} (only 0/1/True/False are allowed)")
    return ones
