"""Reading a SymPy Boolean expression into a formula (the inverse of ``Formula.to_sympy``).

The reader folds the SymPy expression into the node constructors it is given (the algebra
``Formula._constructors``), so it depends on no node class: :func:`logicrules.formula.from_sympy`
and :meth:`Formula.simplify <logicrules.formula.Formula.simplify>` both read through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _read_sympy(expr: Any, attribute_map: Mapping[str, Any] | None, build: Any) -> Any:
    """The formula of the SymPy Boolean ``expr`` (see :func:`logicrules.formula.from_sympy`), built by ``build``.

    ``build`` offers ``constant(value)``, ``atom(target)`` (the literal of a symbol's attribute or
    positive ``Literal``), ``negate(formula)``, and ``conj`` and ``disj`` of a list; ``attribute_map``
    maps symbol names to attributes (``str``, ``int``) or to positive literals.
    """
    import sympy
    from sympy.core.sorting import default_sort_key
    from sympy.logic import boolalg

    mapping: dict[str, Any] = dict(attribute_map or {})

    def convert(e: Any) -> Any:
        if e is True or e is sympy.true:
            return build.constant(True)
        if e is False or e is sympy.false:
            return build.constant(False)
        if isinstance(e, sympy.Symbol):
            return build.atom(mapping.get(e.name, e.name))
        if isinstance(e, boolalg.Not):
            return build.negate(convert(e.args[0]))
        if isinstance(e, (boolalg.And, boolalg.Or)):
            ops = [convert(a) for a in sorted(e.args, key=default_sort_key)]
            return build.conj(ops) if isinstance(e, boolalg.And) else build.disj(ops)
        if isinstance(e, boolalg.BooleanFunction):
            rewritten = boolalg.to_nnf(e, simplify=False)
            if rewritten != e:
                return convert(rewritten)
        raise TypeError(f"cannot convert {e!r} ({type(e).__name__}) to a Formula: only symbols, "
                        "Boolean functions and true/false are supported")

    return convert(expr)
