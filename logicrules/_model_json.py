"""Tagged JSON values of model files: formulas, arrays, frames, dataclasses and estimators.

Values are written as JSON where JSON suffices (str, int, finite float, bool, null, lists) and
as small tagged objects otherwise, so types survive the round trip: ``{"$tuple": [...]}``,
``{"$dict": [[key, value], ...]}`` (keys of any type), ``{"$float": "nan"}``,
``{"$array": {"dtype", "shape", "values"}}``, ``{"$frame": ...}`` (DataFrame),
``{"$formula": tree}``, ``{"$dataclass": ...}`` and ``{"$estimator": ...}`` (classes of
:mod:`logicrules` only). Reading is bounded: a :class:`_Budget` caps the memory the arrays of one
file may take, every dtype is plain and every shape must hold exactly the values written (so
nothing is allocated that the file does not spell out), and nesting is capped
(:data:`MAX_FORMULA_DEPTH` for formulas). :mod:`logicrules.persistence` builds model files
from these values.
"""

from __future__ import annotations

import dataclasses
import math
from importlib import import_module
from typing import Any

import numpy as np
import pandas as pd

from logicrules.checklist import AtLeast
from logicrules.formula import FALSE, TRUE, And, Formula, Literal, Not, Or

__all__: list[str] = []  # formula_to_json, formula_from_json, MAX_FORMULA_DEPTH: logicrules.persistence

#: Deepest formula tree, and deepest nesting of other values, that a model file may hold.
MAX_FORMULA_DEPTH = 200
_MAX_VALUE_DEPTH = 64
#: Array kinds a model file may hold (bool, int, unsigned, float, str, bytes, void; object).
_ARRAY_KINDS = "biufUSV"


# ------------------------------------------------------------------------------ formulas
def formula_to_json(formula: Formula) -> dict:
    """A formula as a JSON-ready tree.

    Nodes are ``{"op": "literal", "attribute": name, "negated": bool}`` (plus
    ``"condition": {"column", "op", "value", "missing"}`` when the literal carries its
    condition), ``{"op": "and" | "or", "operands": [...]}``, ``{"op": "not", "operand": ...}``,
    ``{"op": "at_least", "m": m, "operands": [...]}``, ``{"op": "true"}`` and
    ``{"op": "false"}``.

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> formula_to_json(Literal("a") & ~Literal("b"))["op"]
    'and'
    """
    if formula is TRUE:
        return {"op": "true"}
    if formula is FALSE:
        return {"op": "false"}
    if isinstance(formula, Literal):
        node = {"op": "literal", "attribute": formula.attribute, "negated": formula.negated}
        if formula.condition is not None:
            node["condition"] = condition_to_json(formula.condition)
        return node
    if isinstance(formula, AtLeast):
        return {"op": "at_least", "m": formula.m,
                "operands": [formula_to_json(op) for op in formula.operands]}
    if isinstance(formula, Not):
        return {"op": "not", "operand": formula_to_json(formula.operand)}
    if isinstance(formula, (And, Or)):
        return {"op": "and" if isinstance(formula, And) else "or",
                "operands": [formula_to_json(op) for op in formula.operands]}
    raise TypeError(f"cannot write a {type(formula).__name__} as a formula")


def formula_from_json(tree: Any, *, max_depth: int = MAX_FORMULA_DEPTH) -> Formula:
    """Rebuild a formula written by :func:`formula_to_json` (same structure, not re-simplified).

    Parameters
    ----------
    tree : dict
        A tree of :func:`formula_to_json`.
    max_depth : int, default :data:`MAX_FORMULA_DEPTH`
        Deepest nesting read; a deeper tree raises ValueError (learned formulas are a few
        levels deep, and a hostile file must not exhaust the stack).

    Returns
    -------
    Formula

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> f = Literal("a") | ~Literal("b")
    >>> formula_from_json(formula_to_json(f)) == f
    True
    """
    if max_depth < 1:
        raise ValueError(f"formula nested more than {MAX_FORMULA_DEPTH} levels deep (or max_depth "
                         "too small); a learned rule is a few levels deep")
    if not isinstance(tree, dict) or "op" not in tree:
        raise ValueError(f"not a formula node: {tree!r:.120}")
    op = tree["op"]
    if op == "true":
        return TRUE
    if op == "false":
        return FALSE
    if op == "literal":
        attribute, negated = tree.get("attribute"), tree.get("negated", False)
        if not isinstance(attribute, (str, int)) or isinstance(attribute, bool) or not isinstance(negated, bool):
            raise ValueError(f"malformed literal node {tree!r:.120}: 'attribute' must be a str or int and "
                             "'negated' a bool")
        condition = tree.get("condition")
        return Literal(attribute, negated=negated,
                       condition=None if condition is None else condition_from_json(condition, _Budget(0)))
    if op == "at_least":
        m = tree.get("m")
        if not isinstance(tree.get("operands"), list) or isinstance(m, bool) or not isinstance(m, int):
            raise ValueError("malformed 'at_least' node: 'm' must be an int and 'operands' a list")
        return AtLeast(m, [formula_from_json(t, max_depth=max_depth - 1) for t in tree["operands"]])
    if op == "not":
        return Not(formula_from_json(tree.get("operand"), max_depth=max_depth - 1))
    if op in ("and", "or"):
        if not isinstance(tree.get("operands"), list):
            raise ValueError(f"malformed {op!r} node: 'operands' must be a list")
        operands = [formula_from_json(t, max_depth=max_depth - 1) for t in tree["operands"]]
        return And(*operands) if op == "and" else Or(*operands)
    raise ValueError(f"unknown formula operator {op!r:.60}")


def condition_to_json(condition: Any) -> dict:
    """A binarizer :class:`~logicrules.fca.scaling.Condition` as a JSON-ready dict."""
    return {"column": condition.column, "op": condition.op,
            "value": _encode(condition.value, condition.name), "missing": condition.missing}


def condition_from_json(spec: Any, budget: _Budget, missing: str = "false") -> Any:
    """The :class:`~logicrules.fca.scaling.Condition` of :func:`condition_to_json`
    (``missing``: the policy of a file written before conditions recorded theirs)."""
    from logicrules.fca.scaling import Condition

    if not isinstance(spec, dict) or not {"column", "op"} <= set(spec):
        raise ValueError(f"not a condition: {spec!r:.120}")
    return Condition(spec["column"], spec["op"], _decode(spec.get("value"), budget),
                     missing=spec.get("missing", missing))


# -------------------------------------------------------------------------------- values
def _qualified(obj_or_cls: Any) -> str:
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    return f"{cls.__module__}.{cls.__qualname__}"


#: Modules that moved, by their former path: files written before the move name the former one.
_MOVED_MODULES = {"logicrules.fca.estimator": "logicrules.fca.premise.estimator"}


def _import_class(qualified: str) -> type:
    """A class of :mod:`logicrules` by its qualified name (nothing else is ever imported)."""
    module, _, name = str(qualified).rpartition(".")
    module = _MOVED_MODULES.get(module, module)
    if module != "logicrules" and not module.startswith("logicrules."):
        raise ValueError(f"refusing to load class {qualified!r}: only classes of logicrules are loaded")
    try:
        cls = getattr(import_module(module), name)
    except (ImportError, AttributeError):
        raise ValueError(f"class {qualified!r} does not exist in this version of logicrules") from None
    if not isinstance(cls, type):
        raise ValueError(f"{qualified!r} is not a class")
    return cls


def _encode(value: Any, where: str) -> Any:
    """A JSON-ready form of ``value`` that :func:`_decode` turns back into an equal value."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic) and not isinstance(value, np.void):
        return _encode(value.item(), where)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, Formula):
        return {"$formula": formula_to_json(value)}
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"$tuple": [_encode(v, where) for v in value]}
    if isinstance(value, dict):
        return {"$dict": [[_encode(k, where), _encode(v, where)] for k, v in value.items()]}
    if isinstance(value, np.ndarray):
        return {"$array": _encode_array(value, where)}
    if isinstance(value, pd.DataFrame):
        return {"$frame": _encode_frame(value, where)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and _is_ours(value):
        fields = {f.name: _encode(getattr(value, f.name), f"{where}.{f.name}")
                  for f in dataclasses.fields(value) if f.init}
        return {"$dataclass": {"class": _qualified(value), "fields": fields}}
    if hasattr(value, "get_params") and _is_ours(value):
        return {"$estimator": {"class": _qualified(value),
                               "params": _encode(value.get_params(deep=False), where)}}
    raise TypeError(f"{where}: cannot save a value of type {type(value).__name__} ({value!r:.80})")


def _is_ours(value: Any) -> bool:
    module = type(value).__module__
    return module == "logicrules" or module.startswith("logicrules.")


def _encode_array(array: np.ndarray, where: str) -> dict:
    out: dict[str, Any] = {"dtype": array.dtype.str if array.dtype.kind != "O" else "object",
                           "shape": list(array.shape)}
    if array.dtype.kind == "V":
        out["hex"] = np.ascontiguousarray(array).tobytes().hex()
    elif array.dtype.kind == "O":
        out["values"] = [_encode(v, where) for v in array.reshape(-1).tolist()]
    elif array.dtype.kind in "biuUS":
        out["values"] = array.reshape(-1).tolist()
    elif array.dtype.kind == "f":
        out["values"] = [_encode(float(v), where) for v in array.reshape(-1).tolist()]
    else:
        raise TypeError(f"{where}: cannot save an array of dtype {array.dtype}")
    return out


class _Budget:
    """What the values of one model file may still allocate, and how deep they may nest."""

    def __init__(self, array_bytes: int) -> None:
        self.array_bytes = array_bytes

    def take(self, nbytes: int) -> None:
        if nbytes > self.array_bytes:
            raise ValueError("its arrays would take more memory than the file could describe "
                             "(a dtype or shape out of proportion with the values written)")
        self.array_bytes -= nbytes


def _array_dtype(text: Any) -> np.dtype:
    """A plain dtype of a model file (no subarray, no fields, no object pointers)."""
    if not isinstance(text, str) or len(text) > 16:
        raise ValueError(f"malformed array dtype {text!r:.40}")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError):
        raise ValueError(f"malformed array dtype {text!r:.40}") from None
    if dtype.kind not in _ARRAY_KINDS or dtype.shape != () or dtype.fields is not None:
        raise ValueError(f"array dtype {text!r} is not a plain dtype a model file may hold")
    return dtype


def _array_shape(spec: dict, n_values: int) -> tuple[int, ...]:
    shape = spec.get("shape")
    if (not isinstance(shape, list) or len(shape) > 32
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
        raise ValueError(f"malformed array shape {shape!r:.60}")
    if math.prod(shape) != n_values:
        raise ValueError(f"array shape {shape} does not hold the {n_values} values written")
    return tuple(shape)


def _decode_array(spec: dict, budget: _Budget, depth: int) -> np.ndarray:
    if not isinstance(spec, dict):
        raise ValueError("malformed array")
    if spec.get("dtype") == "object":
        values = spec.get("values")
        if not isinstance(values, list):
            raise ValueError("malformed object array: 'values' must be a list")
        shape = _array_shape(spec, len(values))
        budget.take(8 * len(values))
        array = np.empty(len(values), dtype=object)
        array[:] = [_decode(v, budget, depth + 1) for v in values]
        return array.reshape(shape)
    dtype = _array_dtype(spec.get("dtype"))
    if "hex" in spec:
        if not isinstance(spec["hex"], str) or len(spec["hex"]) % (2 * max(dtype.itemsize, 1)):
            raise ValueError("malformed array: 'hex' does not hold whole items of its dtype")
        n_values = len(spec["hex"]) // (2 * max(dtype.itemsize, 1))
        shape = _array_shape(spec, n_values)
        budget.take(len(spec["hex"]) // 2)
        try:
            data = bytes.fromhex(spec["hex"])
        except ValueError:
            raise ValueError("malformed array: 'hex' is not hexadecimal") from None
        return np.frombuffer(data, dtype=dtype).reshape(shape).copy()
    values = spec.get("values")
    if not isinstance(values, list) or any(isinstance(v, (list, dict)) and not _is_float_tag(v) for v in values):
        raise ValueError("malformed array: 'values' must be a flat list")
    shape = _array_shape(spec, len(values))
    budget.take(dtype.itemsize * len(values))
    try:
        return np.array([_decode(v, budget, depth + 1) for v in values], dtype=dtype).reshape(shape)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"array values do not fit its dtype {dtype.str}") from None


def _is_float_tag(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and "$float" in value


def _encode_frame(frame: pd.DataFrame, where: str) -> dict:
    columns = []
    for j in range(frame.shape[1]):
        series = frame.iloc[:, j]
        kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else "O"
        dtype = series.dtype.str if kind in "biuf" else "object"
        column = {"name": _encode(frame.columns[j], where), "dtype": dtype,
                  "values": [_encode(v, where) for v in series.tolist()]}
        if isinstance(series.dtype, pd.StringDtype):
            column["string"] = {"storage": series.dtype.storage,
                                "na": "nan" if series.dtype.na_value is not pd.NA else "NA"}
        columns.append(column)
    return {"columns": columns, "index": [_encode(v, where) for v in frame.index.tolist()]}


def _decode_frame(spec: dict, budget: _Budget, depth: int) -> pd.DataFrame:
    data = {}
    for column in spec["columns"]:
        if not isinstance(column.get("values"), list):
            raise ValueError("malformed frame column: 'values' must be a list")
        values = [_decode(v, budget, depth + 1) for v in column["values"]]
        dtype = object if column["dtype"] == "object" else _array_dtype(column["dtype"])
        budget.take(8 * len(values))
        if dtype is object:
            array = np.empty(len(values), dtype=object)
            array[:] = values
            series = pd.Series(array, dtype=object)
            if "string" in column:
                na = np.nan if column["string"]["na"] == "nan" else pd.NA
                series = series.astype(pd.StringDtype(column["string"]["storage"], na_value=na))
            data[_decode(column["name"], budget, depth + 1)] = series
        else:
            data[_decode(column["name"], budget, depth + 1)] = pd.Series(values, dtype=dtype)
    frame = pd.DataFrame(data)
    index = [_decode(v, budget, depth + 1) for v in spec["index"]]
    if index != list(range(len(index))):
        frame.index = index
    return frame


def _decode(value: Any, budget: _Budget, depth: int = 0) -> Any:
    if depth > _MAX_VALUE_DEPTH:
        raise ValueError(f"values nested more than {_MAX_VALUE_DEPTH} levels deep")
    if isinstance(value, list):
        return [_decode(v, budget, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError(f"malformed value in model file: {value!r:.120}")
    (tag, body), = value.items()
    if tag == "$float":
        if body not in ("nan", "inf", "-inf"):
            raise ValueError(f"malformed $float {body!r:.40}: only 'nan', 'inf' and '-inf' are written so")
        return float(body)
    if tag == "$tuple":
        return tuple(_decode(v, budget, depth + 1) for v in body)
    if tag == "$dict":
        return {_decode(k, budget, depth + 1): _decode(v, budget, depth + 1) for k, v in body}
    if tag == "$array":
        return _decode_array(body, budget, depth)
    if tag == "$frame":
        return _decode_frame(body, budget, depth)
    if tag == "$formula":
        return formula_from_json(body)
    if tag == "$dataclass":
        cls = _import_class(body["class"])
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"{body['class']!r} is not a dataclass")
        return cls(**{k: _decode(v, budget, depth + 1) for k, v in body["fields"].items()})
    if tag == "$estimator":
        return _decode_estimator(body, budget, depth)
    raise ValueError(f"unknown value tag {tag!r:.40} in model file")


def _decode_estimator(body: dict, budget: _Budget, depth: int) -> Any:
    cls = _import_class(body["class"])
    if not hasattr(cls, "get_params"):
        raise ValueError(f"{body['class']!r} is not an estimator")
    estimator = cls(**_decode(body["params"], budget, depth + 1))
    _check_params(estimator)
    return estimator


def _check_params(estimator: Any) -> None:
    """The declared constraints of the estimator's parameters (what ``fit`` would check)."""
    if hasattr(estimator, "_parameter_constraints"):
        estimator._validate_params()


def _set_state(obj: Any, state: Any, budget: _Budget, where: str, reserved: tuple[str, ...] = ()) -> None:
    """Set the fitted attributes written by save_model; nothing may shadow a method or a parameter."""
    if not isinstance(state, dict):
        raise ValueError(f"malformed {where}: must be an object")
    params = set(obj.get_params(deep=False))
    for name, value in state.items():
        fitted = name.endswith("_") or name.startswith("_")
        if (not fitted or name.startswith("__") or name in reserved or name in params
                or any(name in vars(klass) for klass in type(obj).__mro__)):
            raise ValueError(f"{where} names {name!r:.60}, which is not a fitted attribute of "
                             f"{type(obj).__name__}")
        setattr(obj, name, _decode(value, budget))


