"""A learned LP structure (clause, rule set or checklist of column indices): its size, its
predictions on packed rows and its formula, shared by the in-memory and the dask fits."""

from __future__ import annotations

import numpy as np

from logicrules.checklist import at_least
from logicrules.formula import FALSE, Formula, Literal, conjunction, disjunction
from logicrules.fca import bitset
from logicrules.fca.context import FormalContext


def _structure_size(rule: str, structure) -> int:
    if rule in ("or", "and"):
        return int(len(structure))
    if rule in ("dnf", "cnf"):
        return int(sum(len(t) for t in structure))
    return int(len(structure[0]))


def _predict_structure(rule: str, structure, context: FormalContext) -> np.ndarray:
    """Evaluate a learned structure on packed rows (fast path, no formula): bool of n_objects."""
    n = context.n_objects
    bits = context.bits

    def all_of(columns) -> np.ndarray:
        return np.bitwise_and.reduce(bits[np.asarray(columns, dtype=np.intp)], axis=0)

    def any_of(columns) -> np.ndarray:
        return np.bitwise_or.reduce(bits[np.asarray(columns, dtype=np.intp)], axis=0)

    if rule in ("or", "and", "dnf", "cnf") and not len(structure):
        return np.full(n, rule in ("and", "cnf"))
    if rule == "or":
        return bitset.unpack(any_of(structure), n)
    if rule == "and":
        return bitset.unpack(all_of(structure), n)
    if rule == "dnf":
        return bitset.unpack(np.bitwise_or.reduce([all_of(t) if len(t) else bitset.full(n) for t in structure]), n)
    if rule == "cnf":
        return bitset.unpack(np.bitwise_and.reduce([any_of(c) if len(c) else bitset.empty(n) for c in structure]), n)
    columns, m = structure
    if len(columns) == 0:
        return np.zeros(n, dtype=bool)
    held = np.zeros(n, dtype=np.int64)
    for j in columns:
        held += bitset.unpack(bits[j], n)
    return held >= m


def _to_formula(rule: str, structure, names: list[str]) -> Formula:
    """The learned structure as a Formula over the attribute names."""
    def lits(columns):
        return [Literal(names[j]) for j in columns]

    if rule == "or":
        return disjunction(*lits(structure))
    if rule == "and":
        return conjunction(*lits(structure))
    if rule == "dnf":
        return disjunction(*(conjunction(*lits(t)) for t in structure))
    if rule == "cnf":
        return conjunction(*(disjunction(*lits(c)) for c in structure))
    columns, m = structure
    return at_least(m, lits(columns)) if len(columns) else FALSE
