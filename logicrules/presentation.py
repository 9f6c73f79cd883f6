"""Presenting a learned rule: its parts with their statistics, a printable table, explanations.

A rule is read part by part: the terms of a DNF (the rule fires when one holds), the clauses of
a CNF (it fires when all hold) or the items of a checklist (at least m of n). This module turns
a fitted rule and binarized rows into

- :func:`rules_frame`: one row per part and one for the whole rule (when it has several
  parts), with support (rows where
  the part holds), precision (fraction of them in the positive class) and coverage (support
  over all rows), what ``get_rules()`` returns;
- :func:`rules_table`: the same as aligned text, what ``str(model)`` prints;
- :func:`explanations`: per row, why the rule decides as it does, each literal named once,
  and which missing value made a literal true or false.

Examples
--------
>>> import numpy as np
>>> from logicrules.formula import Literal
>>> f = (Literal("a") & Literal("b")) | Literal("c")
>>> Xb = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0], [1, 0, 0]], dtype=bool)
>>> frame = rules_frame(f, Xb, ["a", "b", "c"], np.array([1, 1, 0, 1], dtype=bool))
>>> frame[["rule", "part", "support", "precision"]].values.tolist()
[['a AND b', 'term', 1, 1.0], ['c', 'term', 1, 1.0], ['(a AND b) OR c', 'rule', 2, 1.0]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from logicrules.checklist import AtLeast
from logicrules.fca import bitset
from logicrules.fca.context import FormalContext
from logicrules.formula import And, Formula, Literal, Or, conjunction, disjunction

__all__ = ["explanations", "rule_parts", "rules_frame", "rules_table"]

#: Columns of :func:`rules_frame`.
RULE_COLUMNS = ["rule", "part", "size", "support", "precision", "coverage"]
_PART = {"dnf": "term", "cnf": "clause", "checklist": "checklist"}


def rule_parts(formula: Formula) -> tuple[str, list[list[Literal]]]:
    """The rule as ``("dnf", terms)``, ``("cnf", clauses)`` or ``("checklist", [items])``.

    A checklist is an :class:`~logicrules.checklist.AtLeast` of literals; a CNF an AND of at
    least two clauses, one with two literals or more; anything else is read as a DNF (expanded
    when it is not one).

    Parameters
    ----------
    formula : Formula

    Returns
    -------
    kind : str
    parts : list of list of Literal
    """
    if isinstance(formula, AtLeast) and all(isinstance(op, Literal) for op in formula.operands):
        return "checklist", [list(formula.operands)]
    clauses = _cnf_clauses(formula)
    if clauses is not None:
        return "cnf", clauses
    try:
        return "dnf", formula.conjunctions()
    except TypeError:
        return "dnf", formula.to_dnf().conjunctions()


def literal_matrix(Xb: np.ndarray | FormalContext, names: Sequence[str],
                   literals: Sequence[Literal]) -> np.ndarray:
    """Truth values (n, len(literals)) of literals over binarized rows with columns ``names``
    (a bool matrix, or a :class:`FormalContext` of which only the columns read are unpacked)."""
    if not literals:
        return np.zeros((n_rows(Xb), 0), dtype=bool)
    index = {name: j for j, name in enumerate(names)}
    positions = [index[lit.attribute] for lit in literals]
    if isinstance(Xb, FormalContext):
        cols = np.ascontiguousarray(bitset.unpack(Xb.bits[positions], Xb.n_objects).T)
    else:
        cols = Xb[:, positions]
    return cols ^ np.array([lit.negated for lit in literals], dtype=bool)


def n_rows(Xb: np.ndarray | FormalContext) -> int:
    return Xb.n_objects if isinstance(Xb, FormalContext) else Xb.shape[0]


def part_holds(formula: Formula, kind: str, part: list[Literal], truth: np.ndarray) -> np.ndarray:
    """Rows where a part holds, from the truth (n, len(part)) of its literals."""
    if kind == "checklist":
        return truth.sum(axis=1) >= formula.m
    return truth.all(axis=1) if kind == "dnf" else truth.any(axis=1)


def part_text(kind: str, part: list[Literal], formula: Formula) -> str:
    """Text of one part: a term, a clause or the checklist."""
    if kind == "checklist":
        return str(formula)
    if not part:
        return "TRUE" if kind == "dnf" else "FALSE"
    return str(conjunction(*part) if kind == "dnf" else disjunction(*part))


def rules_frame(formula: Formula, Xb: np.ndarray, names: Sequence[str], y: np.ndarray,
                fires: np.ndarray | None = None, row_counts: np.ndarray | None = None) -> pd.DataFrame:
    """The rule part by part, then whole, with support, precision and coverage on rows.

    Parameters
    ----------
    formula : Formula
    Xb : ndarray of bool, shape (n, len(names)), or FormalContext
        Binarized rows.
    names : sequence of str
        Attribute names of the columns of ``Xb``.
    y : ndarray of bool, shape (n,)
        Whether each row is in the positive class.
    fires : ndarray of bool, optional
        Where the whole rule holds (default: evaluated).
    row_counts : ndarray of int, shape (n,), optional
        How many identical rows each row stands for (default 1): the rows of a type histogram.

    Returns
    -------
    DataFrame
        One row per part, then (unless the rule has one part only) a row for the whole rule.
        Columns ``rule`` (text), ``part`` (``"term"``, ``"clause"``, ``"checklist"``, or
        ``"rule"`` for the whole rule), ``size`` (literals), ``support``, ``precision`` (NaN
        when the support is 0) and ``coverage``.
    """
    kind, parts = rule_parts(formula)
    counts = np.ones(n_rows(Xb), dtype=np.int64) if row_counts is None else np.asarray(row_counts)
    n = int(counts.sum())
    if fires is None:
        fires = formula.evaluate(Xb, feature_names=list(names))
    rows = []
    for part in parts:
        holds = part_holds(formula, kind, part, literal_matrix(Xb, names, part))
        rows.append(_row(part_text(kind, part, formula), _PART[kind], len(part), holds, y, counts))
    if len(rows) != 1:  # the whole rule, unless it is its one part
        rows.append(_row(str(formula), "rule", formula.size, np.asarray(fires, dtype=bool), y, counts))
    return pd.DataFrame(rows, columns=RULE_COLUMNS)


def _row(text: str, part: str, size: int, holds: np.ndarray, y: np.ndarray, counts: np.ndarray) -> dict:
    n = int(counts.sum())
    support = int(counts[holds].sum())
    positives = int(counts[holds & y].sum())
    return {"rule": text, "part": part, "size": int(size), "support": support,
            "precision": positives / support if support else float("nan"),
            "coverage": support / n if n else float("nan")}


def rules_table(frame: pd.DataFrame) -> str:
    """The frame of :func:`rules_frame` as aligned text, one line per part, the rule last.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    str

    Examples
    --------
    >>> frame = pd.DataFrame([{"rule": "a", "part": "term", "size": 1, "support": 3,
    ...                        "precision": 0.5, "coverage": 0.25},
    ...                       {"rule": "b", "part": "term", "size": 1, "support": 1,
    ...                        "precision": 1.0, "coverage": 0.125},
    ...                       {"rule": "a OR b", "part": "rule", "size": 2, "support": 4,
    ...                        "precision": 0.625, "coverage": 0.5}])
    >>> print(rules_table(frame))
      support  precision  coverage  term
            3      0.500     0.250  a
            1      1.000     0.125  b
            4      0.625     0.500  (whole rule, 2 literals)
    """
    header = frame["part"].iloc[0] if len(frame) else "rule"
    lines = [f"  support  precision  coverage  {header}"]
    for row in frame.itertuples(index=False):
        if row.part == "rule":
            plural = "" if row.size == 1 else "s"
            text = f"(whole rule, {row.size} literal{plural})"
        else:
            text = row.rule
        precision = "      nan" if np.isnan(row.precision) else f"{row.precision:9.3f}"
        lines.append(f"  {row.support:7d}  {precision}  {row.coverage:8.3f}  {text}")
    return "\n".join(lines)


def explanations(formula: Formula, Xb: np.ndarray, names: Sequence[str], prediction: np.ndarray,
                 labels: Sequence[Any], missing: Mapping[str, np.ndarray] | None = None) -> list[str]:
    """Per row, why the rule predicts what it does, each literal named once.

    A DNF names the term that fires on a positive row and, on a negative row, a false literal
    of every term (a literal shared by several terms is named once). A CNF names the failing
    clause of a negative row and a true literal of every clause of a positive row. A checklist
    names the items that hold and how many are needed. A literal decided by a missing value
    says so: ``x > 2.5 is false (x is missing)``, ``x <= 2.5 or missing holds (x is missing)``.

    Parameters
    ----------
    formula : Formula
    Xb : ndarray of bool, shape (n, len(names))
    names : sequence of str
    prediction : ndarray of bool, shape (n,)
        The rule's value on each row.
    labels : sequence
        ``labels[0]`` the label of a negative row, ``labels[1]`` of a positive one.
    missing : mapping of column name to ndarray of bool, optional
        Which rows have a missing value in each raw column.

    Returns
    -------
    list of str
    """
    kind, parts = rule_parts(formula)
    missing = missing or {}
    truths = [literal_matrix(Xb, names, part) for part in parts]
    out = []
    for i in range(n_rows(Xb)):
        if kind == "dnf" and not parts:
            reason = "the rule is FALSE"
        elif kind == "dnf" and parts == [[]]:
            reason = "the rule is TRUE"
        elif kind == "checklist":
            reason = _checklist_reason(formula, parts[0], truths[0][i], missing, i)
        elif (kind == "dnf") == bool(prediction[i]):  # a term fires / a clause fails
            j = next(j for j, t in enumerate(truths)
                     if (t[i].all() if kind == "dnf" else not t[i].any()))
            verb = "holds" if kind == "dnf" else "fails"
            noun = "" if kind == "dnf" else "clause "
            text = _literal_text(parts[j][0]) if len(parts[j]) == 1 else part_text(kind, parts[j], formula)
            reason = f"{noun}{text} {verb}{_missing_note(parts[j], missing, i)}"
        else:  # one witness per part: false literals (DNF), true literals (CNF)
            want = kind == "cnf"
            witnesses = _witnesses([t[i] == want for t in truths], parts)
            word = "is true" if want else "is false"
            reason = "; ".join(f"{_literal_text(lit)} {word}{_missing_note([lit], missing, i)}"
                               for lit in witnesses)
        out.append(f"{labels[int(bool(prediction[i]))]}: {reason}")
    return out


def _literal_text(literal: Literal) -> str:
    """A literal's text, in parentheses when it reads ``... or missing``."""
    return f"({literal})" if literal._compound else str(literal)


def _witnesses(candidates: list[np.ndarray], parts: list[list[Literal]]) -> list[Literal]:
    """Few literals, one per part at least: greedily the literal that is a witness in most parts."""
    remaining = set(range(len(parts)))
    chosen: list[Literal] = []
    while remaining:
        tally: dict[Literal, set[int]] = {}
        for j in remaining:
            for lit, ok in zip(parts[j], candidates[j]):
                if ok:
                    tally.setdefault(lit, set()).add(j)
        best = max(tally, key=lambda lit: len(tally[lit]))  # ties: first met
        chosen.append(best)
        remaining -= tally[best]
    return chosen


def _missing_note(literals: Sequence[Literal], missing: Mapping[str, np.ndarray], i: int) -> str:
    columns = []
    for lit in literals:
        condition = lit.condition
        if condition is not None and condition.op != "is missing":
            rows = missing.get(condition.column)
            if rows is not None and rows[i] and condition.column not in columns:
                columns.append(condition.column)
    if not columns:
        return ""
    return f" ({', '.join(columns)} {'is' if len(columns) == 1 else 'are'} missing)"


def _checklist_reason(formula: AtLeast, items: list[Literal], truth: np.ndarray,
                      missing: Mapping[str, np.ndarray], i: int) -> str:
    holding = [lit for lit, t in zip(items, truth) if t]
    text = f"{len(holding)} of the {len(items)} items hold (at least {formula.m} needed)"
    if holding:
        text += ": " + ", ".join(f"{_literal_text(lit)}{_missing_note([lit], missing, i)}" for lit in holding)
    failing = _missing_note([lit for lit, t in zip(items, truth) if not t], missing, i)
    if failing:  # items false because their value is missing
        text += f"; not holding{failing}"
    return text


def _cnf_clauses(formula: Formula) -> list[list[Literal]] | None:
    """Clauses of a CNF-shaped formula (an AND of ORs of literals), else None."""
    if not isinstance(formula, And):
        return None
    clauses = []
    for operand in formula.operands:
        if isinstance(operand, Literal):
            clauses.append([operand])
        elif isinstance(operand, Or) and all(isinstance(o, Literal) for o in operand.operands):
            clauses.append(list(operand.operands))
        else:
            return None
    if all(len(c) == 1 for c in clauses):
        return None  # a plain conjunction reads better as one DNF term
    return clauses
