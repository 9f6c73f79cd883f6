"""Exporting a learned rule: text, JSON, SymPy, LaTeX and a pandas query string.

A rule model's formula speaks of binarized attributes (``age > 54.5``, ``sex == male``). The
text, JSON, SymPy and LaTeX forms keep those attributes as atoms; :func:`to_query` goes one step
further and rewrites each attribute as a condition on the ORIGINAL columns, through the fitted
binarizer's conditions, so that ``X.query(to_query(model))`` selects exactly the rows the model
predicts positive, missing values included.

Every function takes a fitted rule model (anything with ``formula_``, e.g. the three learners of
logicrules) or, except :func:`to_query`, a bare :class:`~logicrules.formula.Formula`.
"""

from __future__ import annotations

import json
import keyword
from typing import Any

from logicrules.checklist import AtLeast
from logicrules.formula import FALSE, TRUE, And, Formula, Literal, Not, Or

__all__ = ["EXPORT_FORMATS", "export_formula", "to_latex", "to_query", "to_sympy", "to_text"]

#: Formats accepted by :func:`export_formula`.
EXPORT_FORMATS = ("text", "json", "sympy", "latex", "query")

_LATEX_OPS = {">": ">", "<=": r"\leq", ">=": r"\geq", "<": "<", "==": "=", "!=": r"\neq"}
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "^": r"\^{}",
                  "#": r"\#", "$": r"\$", "%": r"\%", "&": r"\&", "~": r"\~{}"}


def _formula_of(obj: Any) -> Formula:
    if isinstance(obj, Formula):
        return obj
    formula = getattr(obj, "formula_", None)
    if formula is None:
        if hasattr(obj, "fit"):
            raise ValueError(f"this {type(obj).__name__} is not fitted yet (no formula_); call fit first")
        raise TypeError(f"expected a Formula or a fitted rule model, got {type(obj).__name__}")
    return formula


def _conditions_of(model: Any) -> dict[str, Any]:
    """Attribute name -> :class:`Condition` of a fitted model (passthrough: ``col is true``)."""
    from logicrules.fca.scaling import Condition

    binarizer = getattr(model, "binarizer_", None)
    if binarizer is None:
        return {str(name): Condition(str(name), "is true") for name in model.attribute_names_}
    conditions = getattr(binarizer, "conditions_", None)
    if conditions is None:
        raise TypeError(
            f"the model's binarizer ({type(binarizer).__name__}) has no conditions_; only the "
            "binarizers of logicrules.fca.scaling can be rewritten over the original columns"
        )
    return {c.name: c for c in conditions}


def to_text(obj: Any) -> str:
    """The formula as text, as ``str(formula)``: ``(age > 54.5 AND NOT smoker) OR chol > 240``.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> to_text(Literal("age > 54.5") & ~Literal("smoker"))
    'age > 54.5 AND NOT smoker'
    """
    return str(_formula_of(obj))


def to_sympy(obj: Any):
    """The formula as a SymPy Boolean expression, one ``Symbol`` per attribute (named after it).

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> to_sympy(Literal("a") | ~Literal("b"))
    a | ~b
    """
    return _formula_of(obj).to_sympy()


def _latex_text(text: str) -> str:
    return r"\text{" + "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text) + "}"


def _latex_condition(condition: Any) -> str:
    from logicrules.fca.scaling import format_value

    column = _latex_text(condition.column)
    if condition.op == "is true":
        return column
    if condition.op == "is missing":
        return _latex_text(f"{condition.column} is missing")
    value = condition.value
    if isinstance(value, str):
        shown = _latex_text(value)
    else:
        shown = _latex_text(format_value(value)) if isinstance(value, bool) else format_value(value)
    return f"\\left({column} {_LATEX_OPS[condition.op]} {shown}\\right)"


def to_latex(obj: Any) -> str:
    """The formula in LaTeX (``sympy.latex`` of :func:`to_sympy`) with readable attribute names.

    With a fitted model, each attribute is typeset from its binarizer condition:
    ``\\left(\\text{age} > 54.5\\right)``, ``\\left(\\text{sex} = \\text{male}\\right)`` (in
    parentheses, so that a negation reads unambiguously), ``\\text{smoker}`` for a 0/1 column; with
    a bare formula, attribute names are typeset as text. LaTeX special characters in names are
    escaped.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> to_latex(Literal("a_1") & ~Literal("b"))
    '\\\\text{a\\\\_1} \\\\wedge \\\\neg \\\\text{b}'
    """
    formula = _formula_of(obj)
    conditions = {} if isinstance(obj, Formula) else _conditions_of(obj)
    return _latex(formula, conditions)


def _latex(formula: Formula, conditions: dict[str, Any]) -> str:
    r"""LaTeX of a formula; each threshold node becomes ``\operatorname{at\,least}_m(...)``."""
    import sympy

    placeholders: dict[str, str] = {}

    def replace(f: Formula) -> Formula:
        if isinstance(f, AtLeast):
            key = f"at least node {len(placeholders)}"
            items = ", ".join(_latex(op, conditions) for op in f.operands)
            placeholders[key] = f"\\operatorname{{at\\,least}}_{{{f.m}}}\\left({items}\\right)"
            return Literal(key)
        if isinstance(f, Not):
            return Not(replace(f.operand))
        if isinstance(f, (And, Or)):
            return type(f)(*(replace(op) for op in f.operands))
        return f

    expr = replace(formula).to_sympy()
    names = {}
    for symbol in expr.free_symbols:
        condition = conditions.get(symbol.name)
        if symbol.name in placeholders:
            names[symbol] = placeholders[symbol.name]
        elif condition is not None:
            names[symbol] = _latex_condition(condition)
        else:
            names[symbol] = _latex_text(symbol.name)
    return sympy.latex(expr, symbol_names=names)


def _column(name: str) -> str:
    """A column reference in a pandas query: bare when an identifier, else in backticks."""
    if name.isidentifier() and not keyword.iskeyword(name):
        return name
    if "`" in name:
        raise ValueError(f"column name {name!r} contains a backtick and cannot be used in a pandas query")
    return f"`{name}`"


def _first_column(model: Any, conditions: dict[str, Any]) -> str:
    """Name of one input column of a fitted model (for a query of a constant rule)."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None and len(names):
        return str(names[0])
    if conditions:
        return next(iter(conditions.values())).column
    return "x0"  # arrays: columns are named x0, x1, ...


def _query_value(value: Any) -> str:
    from logicrules.fca.scaling import format_value

    if isinstance(value, str):
        return repr(value)
    return format_value(value)


def _query_atom(condition: Any, guard_missing: bool) -> str:
    """A query expression true exactly where the binarizer's attribute is true."""
    col = _column(condition.column)
    if condition.op == "is missing":
        return f"{col}.isna()"
    if condition.op == "is true":
        atom = f"{col} == 1"
    else:
        atom = f"{col} {condition.op} {_query_value(condition.value)}"
    # A missing value makes every attribute but "is missing" false. Under NaN semantics the
    # comparisons already are false, except "!=" (NaN != v is True), which needs the guard.
    if guard_missing or condition.op == "!=":
        return f"{col}.notna() and {atom}"
    return atom


def to_query(model: Any, guard_missing: bool = False) -> str:
    """A pandas query string over the model's ORIGINAL input columns.

    ``X.query(to_query(model))`` selects exactly the rows that ``model.predict(X)`` calls
    positive (``classes_[1]``). Each attribute becomes the binarizer's condition on its column
    (``(age > 54.5)``, ``(sex == 'male')``, ``(smoker == 1)`` for a 0/1 column,
    ``(x.isna())`` for a missing-value indicator); column names that are not Python identifiers
    are written in backticks. The binarizer's missing-value rule is kept: a missing value makes
    every attribute false except ``x is missing``, so ``x != v`` is written
    ``(x.notna() and x != v)`` and a negated attribute ``not (x > t)`` is true on missing ``x``.

    Parameters
    ----------
    model : fitted rule model
        A model of logicrules fitted with a binarizer of :mod:`logicrules.fca.scaling` or
        ``binarizer="passthrough"`` (then each attribute is a 0/1 column: ``(col == 1)``).
    guard_missing : bool, default False
        Write every atom as ``(x.notna() and ...)``. Needed for columns with pandas' nullable
        dtypes (``Int64``, ``Float64``, ``boolean``: missing is ``pd.NA``, whose comparisons
        give NA rather than False); the default, shorter form is exact for NumPy float, object,
        category and pandas' default string columns, where missing values are NaN.

    Returns
    -------
    str
        For the rule TRUE (every row) ``"(c.isna() or c.notna())"`` and for FALSE (no row)
        ``"(c.isna() and c.notna())"``, with ``c`` the model's first input column. The query
        compares with the values as typed at fit: a category column fitted on strings
        (``"1"``) must be queried on strings, though ``predict`` also matches ``1``.

    Examples
    --------
    >>> import pandas as pd
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> X = pd.DataFrame({"age": [30, 40, 60, 70], "blood pressure": [1, 2, 1, 2]})
    >>> model = OptimalPremiseClassifier(max_size=1, binarizer="median").fit(X, [0, 0, 1, 1])
    >>> q = to_query(model); q
    '(age > 50)'
    >>> X.query(q).index.tolist()
    [2, 3]
    """
    formula = _formula_of(model)
    if isinstance(model, Formula):
        raise TypeError("to_query needs a fitted model (its binarizer maps attributes to columns), "
                        "not a bare Formula")
    conditions = _conditions_of(model)
    col = _column(_first_column(model, conditions))

    def render(f: Formula) -> str:
        if f is TRUE:  # a constant needs a column: pandas' query takes no bare True
            return f"({col}.isna() or {col}.notna())"
        if f is FALSE:
            return f"({col}.isna() and {col}.notna())"
        if isinstance(f, Literal):
            try:
                condition = conditions[str(f.attribute)]
            except KeyError:
                raise ValueError(f"attribute {f.attribute!r} is not produced by the model's binarizer") from None
            atom = f"({_query_atom(condition, guard_missing)})"
            return f"not {atom}" if f.negated else atom
        if isinstance(f, Not):
            inner = render(f.operand)
            return f"not ({inner})" if isinstance(f.operand, (And, Or)) else f"not {inner}"
        if isinstance(f, AtLeast):
            counts = " + ".join(f"({render(op)}) * 1" for op in f.operands)
            return f"({counts} >= {f.m})"
        if isinstance(f, (And, Or)):
            joiner = " and " if isinstance(f, And) else " or "
            parts = [render(op) for op in f.operands]
            return joiner.join(p if isinstance(op, (Literal, Not)) or op is TRUE or op is FALSE
                               else f"({p})" for p, op in zip(parts, f.operands))
        raise TypeError(f"cannot export a {type(f).__name__}")

    return render(formula)


def export_formula(obj: Any, format: str = "text") -> str:
    """The formula in one of :data:`EXPORT_FORMATS`, as a string.

    ``"text"``: :func:`to_text`; ``"json"``: the JSON tree of
    :func:`logicrules.persistence.formula_to_json`; ``"sympy"``: ``str`` of :func:`to_sympy`;
    ``"latex"``: :func:`to_latex`; ``"query"``: :func:`to_query` (models only).

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> export_formula(Literal("a") | Literal("b"), "sympy")
    'a | b'
    """
    if format == "text":
        return to_text(obj)
    if format == "json":
        from logicrules.persistence import formula_to_json

        return json.dumps(formula_to_json(_formula_of(obj)))
    if format == "sympy":
        return str(to_sympy(obj))
    if format == "latex":
        return to_latex(obj)
    if format == "query":
        return to_query(obj)
    raise ValueError(f"unknown format {format!r}; use one of {', '.join(EXPORT_FORMATS)}")
