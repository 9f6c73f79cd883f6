"""Saving fitted rule models as JSON, and loading them back (no pickle).

A saved model is a plain, readable JSON document: the learner's class and parameters, the fitted
binarizer (its class, parameters and every condition ``column op value`` with the state its
``transform`` needs), the formula as a JSON tree, the class labels with their types, the input
column names, the binarized attribute names, the library version, and the learner's other
fitted attributes (e.g. the ideal method's type table for ``predict_proba``, the LP learner's
m-of-n structure). Loading never imports code from outside :mod:`logicrules` and never unpickles,
so a model file can be read safely and inspected by eye; a loaded model predicts exactly as the
original.

Values are written as JSON where JSON suffices (str, int, finite float, bool, null, lists) and
as small tagged objects otherwise, so types survive the round trip: ``{"$tuple": [...]}``,
``{"$dict": [[key, value], ...]}`` (keys of any type), ``{"$float": "nan"}``,
``{"$array": {"dtype", "shape", "values"}}``, ``{"$frame": ...}`` (DataFrame),
``{"$formula": tree}``, ``{"$dataclass": ...}`` and ``{"$estimator": ...}`` (classes of
:mod:`logicrules` only).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from importlib import import_module
from typing import Any

import numpy as np
import pandas as pd

from logicrules.formula import FALSE, TRUE, And, Formula, Literal, Not, Or

__all__ = ["FORMAT_VERSION", "MAX_FORMULA_DEPTH", "formula_from_json", "formula_to_json", "load_model",
           "save_model"]

#: Version of the file layout written by :func:`save_model`; :func:`load_model` reads up to it.
FORMAT_VERSION = 1
#: Value of the ``format`` field identifying a logicrules model file.
FORMAT_NAME = "logicrules.model"

#: Deepest formula tree, and deepest nesting of other values, that :func:`load_model` reads.
MAX_FORMULA_DEPTH = 200
_MAX_VALUE_DEPTH = 64
#: Bytes the arrays of one model file may take in memory, beyond 16 times the file's size
#: (a JSON array of numbers takes at least 2 characters per 8-byte value).
_ARRAY_BYTES_BASE = 1 << 26
#: Array kinds a model file may hold (bool, int, unsigned, float, str, bytes, void; object).
_ARRAY_KINDS = "biufUSV"

#: Fitted attributes written in their own fields (not in ``state``).
_CORE = ("classes_", "n_features_in_", "feature_names_in_", "binarizer_", "attribute_names_",
         "formula_")
#: Learner-specific fitted attributes that ``predict`` / ``predict_proba`` need: saving fails
#: loudly if one of them cannot be written. Every private fitted attribute is required as well.
_PREDICT_STATE = {
    "IdealDNFClassifier": ("type_table_", "class_prior_", "selected_features_"),
    "LPRuleClassifier": ("lam_",),
}


# ------------------------------------------------------------------------------ formulas
def formula_to_json(formula: Formula) -> dict:
    """A formula as a JSON-ready tree.

    Nodes are ``{"op": "literal", "attribute": name, "negated": bool}``,
    ``{"op": "and" | "or", "operands": [...]}``, ``{"op": "not", "operand": ...}``,
    ``{"op": "true"}`` and ``{"op": "false"}``.

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
        return {"op": "literal", "attribute": formula.attribute, "negated": formula.negated}
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
        return Literal(attribute, negated=negated)
    if op == "not":
        return Not(formula_from_json(tree.get("operand"), max_depth=max_depth - 1))
    if op in ("and", "or"):
        if not isinstance(tree.get("operands"), list):
            raise ValueError(f"malformed {op!r} node: 'operands' must be a list")
        operands = [formula_from_json(t, max_depth=max_depth - 1) for t in tree["operands"]]
        return And(*operands) if op == "and" else Or(*operands)
    raise ValueError(f"unknown formula operator {op!r:.60}")


# -------------------------------------------------------------------------------- values
def _qualified(obj_or_cls: Any) -> str:
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    return f"{cls.__module__}.{cls.__qualname__}"


def _import_class(qualified: str) -> type:
    """A class of :mod:`logicrules` by its qualified name (nothing else is ever imported)."""
    module, _, name = str(qualified).rpartition(".")
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


# ---------------------------------------------------------------------------- binarizers
def _encode_binarizer(binarizer: Any) -> dict | None:
    if binarizer is None:
        return None
    from logicrules.fca.scaling import _BaseBinarizer

    if not isinstance(binarizer, _BaseBinarizer):
        raise TypeError(
            f"cannot save a model whose binarizer is a {type(binarizer).__name__}: only the "
            "binarizers of logicrules.fca.scaling (median, quantile, threshold) and "
            "'passthrough' can be saved"
        )
    state = {name: _encode(value, f"binarizer_.{name}") for name, value in vars(binarizer).items()
             if name.endswith("_") and name != "conditions_"}
    return {
        "class": _qualified(binarizer),
        "params": _encode(binarizer.get_params(deep=False), "binarizer_ params"),
        "conditions": [{"column": c.column, "op": c.op, "value": _encode(c.value, c.name)}
                       for c in binarizer.conditions_],
        "state": state,
    }


def _decode_binarizer(spec: dict | None, budget: _Budget) -> Any:
    if spec is None:
        return None
    from logicrules.fca.scaling import Condition, _BaseBinarizer

    cls = _import_class(spec["class"])
    if not issubclass(cls, _BaseBinarizer):
        raise ValueError(f"{spec['class']!r} is not a binarizer of logicrules")
    binarizer = cls(**_decode(spec["params"], budget))
    _check_params(binarizer)
    _set_state(binarizer, spec["state"], budget, "binarizer state")
    binarizer.conditions_ = [Condition(c["column"], c["op"], _decode(c["value"], budget))
                             for c in spec["conditions"]]
    kinds = getattr(binarizer, "column_kinds_", None)
    if not isinstance(kinds, dict) or not all(c.column in kinds for c in binarizer.conditions_):
        raise ValueError("the binarizer's conditions name columns missing from its column_kinds_")
    return binarizer


# ------------------------------------------------------------------------------ models
def _library_version() -> str:
    import logicrules

    return str(logicrules.__version__)


def save_model(model: Any, path: str | os.PathLike) -> None:
    """Write a fitted rule model to ``path`` as JSON.

    Parameters
    ----------
    model : RuleClassifier
        A fitted :class:`~logicrules.ideal.method.IdealDNFClassifier`,
        :class:`~logicrules.fca.estimator.OptimalPremiseClassifier`,
        :class:`~logicrules.lp.estimator.LPRuleClassifier` (or another learner of logicrules).
    path : path-like
        File to write (overwritten).

    Raises
    ------
    TypeError
        If ``model`` is not a fitted logicrules rule model, or a parameter or fitted attribute
        needed for prediction cannot be written (a callable objective, a ``RandomState``, a
        binarizer from outside logicrules): the message names it. Informational fitted
        attributes that cannot be written are left out and listed under ``omitted`` in the file.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from logicrules.lp.estimator import LPRuleClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> model = LPRuleClassifier(binarizer="passthrough").fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> save_model(model, path)
    >>> load_model(path).predict(X[:4]).tolist()
    [1, 1, 0, 0]
    """
    from logicrules.base import RuleClassifier

    if not isinstance(model, RuleClassifier) or not _is_ours(model):
        raise TypeError(f"save_model saves the rule models of logicrules, got {type(model).__name__}")
    if not hasattr(model, "formula_"):
        raise TypeError(f"this {type(model).__name__} is not fitted yet; call fit before save_model")
    name = type(model).__name__
    required = set(_PREDICT_STATE.get(name, ()))
    state, omitted = {}, []
    for attr, value in vars(model).items():
        if attr in _CORE or not (attr.endswith("_") or attr.startswith("_")) or attr.startswith("__"):
            continue
        try:
            state[attr] = _encode(value, attr)
        except TypeError as error:
            if attr.startswith("_") or attr in required:
                raise TypeError(f"cannot save {name}: {error}") from None
            omitted.append(attr)
    document = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "library_version": _library_version(),
        "class": _qualified(model),
        "params": _encode(model.get_params(deep=False), "params"),
        "classes": _encode(np.asarray(model.classes_), "classes_"),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (_encode(np.asarray(model.feature_names_in_), "feature_names_in_")
                             if hasattr(model, "feature_names_in_") else None),
        "attribute_names": [str(a) for a in model.attribute_names_],
        "binarizer": _encode_binarizer(model.binarizer_),
        "formula": formula_to_json(model.formula_),
        "state": state,
        "omitted": sorted(omitted),
    }
    text = json.dumps(document, indent=1, allow_nan=False)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def load_model(path: str | os.PathLike) -> Any:
    """Read a model written by :func:`save_model`; it predicts exactly as the saved one.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    RuleClassifier
        A fitted model of the saved class, with its parameters and fitted attributes.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a logicrules model (not JSON, or no ``format`` field), was written
        by a newer logicrules (format version above :data:`FORMAT_VERSION`), names a class
        outside logicrules, or does not describe a valid fitted model: parameters outside
        their declared constraints, class labels that are not two sorted distinct labels,
        ``attribute_names`` other than the binarizer's conditions in order, a formula over
        other attributes or nested deeper than :data:`MAX_FORMULA_DEPTH`, an array whose dtype
        is not plain or whose shape does not hold the values written (arrays never take more
        memory than the file could describe, and every check runs before allocating), or a
        fitted attribute that would shadow a method or parameter.

    Examples
    --------
    See :func:`save_model`.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such model file: {path!r}")
    with open(path, encoding="utf-8") as handle:
        try:
            text = handle.read()
            document = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"{path!r} is not a logicrules model file (not JSON)") from None
        except RecursionError:
            raise ValueError(f"{path!r}: malformed logicrules model file (JSON nested too deeply)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ValueError(f"{path!r} is not a logicrules model file (no 'format': {FORMAT_NAME!r} field)")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= 1000:
        raise ValueError(f"{path!r}: malformed format_version {version!r:.40} (this logicrules "
                         f"writes {FORMAT_VERSION})")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path!r} was written by a newer logicrules (library "
            f"{document.get('library_version', '?')!s:.40}, model format {version}); this logicrules "
            f"{_library_version()} reads model formats up to {FORMAT_VERSION}: upgrade logicrules"
        )
    budget = _Budget(16 * len(text) + _ARRAY_BYTES_BASE)
    try:
        model = _read_model(document, budget)
    except ValueError as error:
        raise ValueError(f"{path!r}: malformed logicrules model file: {str(error):.300}") from None
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        raise ValueError(f"{path!r}: malformed logicrules model file ({type(error).__name__}: "
                         f"{str(error):.300})") from None
    except RecursionError:
        raise ValueError(f"{path!r}: malformed logicrules model file (values nested too deeply)") from None
    return model


def _read_model(document: dict, budget: _Budget) -> Any:
    """The model of a parsed model file, every field checked against the model class."""
    from logicrules.base import RuleClassifier

    cls = _import_class(document["class"])
    if not issubclass(cls, RuleClassifier):
        raise ValueError(f"{document['class']!r} is not a rule model")
    model = cls(**_decode(document["params"], budget))
    _check_params(model)
    model.classes_ = _read_classes(_decode(document["classes"], budget))
    n_features = document["n_features_in"]
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise ValueError(f"n_features_in must be an int >= 1, got {n_features!r:.40}")
    model.n_features_in_ = n_features
    if document["feature_names_in"] is not None:
        names = _decode(document["feature_names_in"], budget)
        if not isinstance(names, np.ndarray) or names.shape != (n_features,) \
                or not all(isinstance(c, str) for c in names):
            raise ValueError(f"feature_names_in must be {n_features} column names (n_features_in)")
        model.feature_names_in_ = names
    attributes = document["attribute_names"]
    if not isinstance(attributes, list) or not all(isinstance(a, str) for a in attributes):
        raise ValueError("attribute_names must be a list of str")
    model.attribute_names_ = attributes
    model.binarizer_ = _decode_binarizer(document["binarizer"], budget)
    _check_attributes(model)
    model.formula_ = formula_from_json(document["formula"])
    unknown = {str(a) for a in model.formula_.attributes} - set(attributes)
    if unknown:
        raise ValueError(f"the formula uses attributes missing from attribute_names: {sorted(unknown)[:5]}")
    _set_state(model, document["state"], budget, "state", reserved=_CORE)
    if not hasattr(model, "pos_label_"):  # written before pos_label existed: classes_[1]
        model.pos_label_ = model.classes_[-1]
    if not any(model.pos_label_ == c for c in model.classes_.tolist()):
        raise ValueError(f"pos_label_ {model.pos_label_!r:.40} is not one of the classes {model.classes_.tolist()}")
    return model


def _read_classes(classes: Any) -> np.ndarray:
    """Class labels: a 1-D array of two distinct labels, sorted as ``np.unique`` sorts them."""
    if not isinstance(classes, np.ndarray) or classes.ndim != 1:
        raise ValueError("classes must be a 1-D array of labels")
    if len(classes) != 2:
        raise ValueError(f"a rule model has exactly two classes, the file lists {len(classes)}: "
                         f"{classes[:5].tolist()}")
    try:
        ordered = bool(classes[0] < classes[1])
    except TypeError:
        ordered = False
    if not ordered:
        raise ValueError(f"classes must be two distinct labels in increasing order, got {classes.tolist()}")
    return classes


def _check_attributes(model: Any) -> None:
    """attribute_names must be what the binarizer (or, for passthrough, the input) produces."""
    binarizer = model.binarizer_
    if binarizer is None:
        expected = ([str(c) for c in model.feature_names_in_] if hasattr(model, "feature_names_in_")
                    else [f"x{j}" for j in range(model.n_features_in_)])
        source = "the input columns (passthrough)"
    else:
        expected = [c.name for c in binarizer.conditions_]
        source = "the binarizer's conditions"
        if getattr(binarizer, "n_features_in_", None) != model.n_features_in_:
            raise ValueError(f"the binarizer reads {getattr(binarizer, 'n_features_in_', None)} columns, "
                             f"the model {model.n_features_in_} (n_features_in)")
    if model.attribute_names_ != expected:
        raise ValueError(f"attribute_names do not match {source} in order: "
                         f"{model.attribute_names_[:4]} ... against {expected[:4]} ...")
