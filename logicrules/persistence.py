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

__all__ = ["FORMAT_VERSION", "formula_from_json", "formula_to_json", "load_model", "save_model"]

#: Version of the file layout written by :func:`save_model`; :func:`load_model` reads up to it.
FORMAT_VERSION = 1
#: Value of the ``format`` field identifying a logicrules model file.
FORMAT_NAME = "logicrules.model"

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


def formula_from_json(tree: Any) -> Formula:
    """Rebuild a formula written by :func:`formula_to_json` (same structure, not re-simplified).

    Examples
    --------
    >>> from logicrules.formula import Literal
    >>> f = Literal("a") | ~Literal("b")
    >>> formula_from_json(formula_to_json(f)) == f
    True
    """
    if not isinstance(tree, dict) or "op" not in tree:
        raise ValueError(f"not a formula node: {tree!r}")
    op = tree["op"]
    if op == "true":
        return TRUE
    if op == "false":
        return FALSE
    if op == "literal":
        return Literal(tree["attribute"], negated=bool(tree.get("negated", False)))
    if op == "not":
        return Not(formula_from_json(tree["operand"]))
    if op in ("and", "or"):
        operands = [formula_from_json(t) for t in tree["operands"]]
        return And(*operands) if op == "and" else Or(*operands)
    raise ValueError(f"unknown formula operator {op!r}")


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


def _decode_array(spec: dict) -> np.ndarray:
    shape = tuple(spec["shape"])
    if spec["dtype"] == "object":
        array = np.empty(len(spec["values"]), dtype=object)
        array[:] = [_decode(v) for v in spec["values"]]
        return array.reshape(shape)
    dtype = np.dtype(spec["dtype"])
    if "hex" in spec:
        return np.frombuffer(bytes.fromhex(spec["hex"]), dtype=dtype).reshape(shape).copy()
    values = [_decode(v) for v in spec["values"]]
    return np.array(values, dtype=dtype).reshape(shape)


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


def _decode_frame(spec: dict) -> pd.DataFrame:
    data = {}
    for column in spec["columns"]:
        values = [_decode(v) for v in column["values"]]
        dtype = object if column["dtype"] == "object" else np.dtype(column["dtype"])
        if dtype is object:
            array = np.empty(len(values), dtype=object)
            array[:] = values
            series = pd.Series(array, dtype=object)
            if "string" in column:
                na = np.nan if column["string"]["na"] == "nan" else pd.NA
                series = series.astype(pd.StringDtype(column["string"]["storage"], na_value=na))
            data[_decode(column["name"])] = series
        else:
            data[_decode(column["name"])] = pd.Series(values, dtype=dtype)
    frame = pd.DataFrame(data)
    index = [_decode(v) for v in spec["index"]]
    if index != list(range(len(index))):
        frame.index = index
    return frame


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError(f"malformed value in model file: {value!r:.120}")
    (tag, body), = value.items()
    if tag == "$float":
        return float(body)
    if tag == "$tuple":
        return tuple(_decode(v) for v in body)
    if tag == "$dict":
        return {_decode(k): _decode(v) for k, v in body}
    if tag == "$array":
        return _decode_array(body)
    if tag == "$frame":
        return _decode_frame(body)
    if tag == "$formula":
        return formula_from_json(body)
    if tag == "$dataclass":
        cls = _import_class(body["class"])
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"{body['class']!r} is not a dataclass")
        return cls(**{k: _decode(v) for k, v in body["fields"].items()})
    if tag == "$estimator":
        return _decode_estimator(body)
    raise ValueError(f"unknown value tag {tag!r} in model file")


def _decode_estimator(body: dict) -> Any:
    cls = _import_class(body["class"])
    if not hasattr(cls, "get_params"):
        raise ValueError(f"{body['class']!r} is not an estimator")
    return cls(**_decode(body["params"]))


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


def _decode_binarizer(spec: dict | None) -> Any:
    if spec is None:
        return None
    from logicrules.fca.scaling import Condition, _BaseBinarizer

    cls = _import_class(spec["class"])
    if not issubclass(cls, _BaseBinarizer):
        raise ValueError(f"{spec['class']!r} is not a binarizer of logicrules")
    binarizer = cls(**_decode(spec["params"]))
    for name, value in spec["state"].items():
        setattr(binarizer, name, _decode(value))
    binarizer.conditions_ = [Condition(c["column"], c["op"], _decode(c["value"]))
                             for c in spec["conditions"]]
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
        by a newer logicrules (format version above :data:`FORMAT_VERSION`), or names a class
        outside logicrules.

    Examples
    --------
    See :func:`save_model`.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such model file: {path!r}")
    with open(path, encoding="utf-8") as handle:
        try:
            document = json.load(handle)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"{path!r} is not a logicrules model file (not JSON)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ValueError(f"{path!r} is not a logicrules model file (no 'format': {FORMAT_NAME!r} field)")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValueError(f"{path!r}: malformed format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path!r} was written by a newer logicrules (library "
            f"{document.get('library_version', '?')}, model format {version}); this logicrules "
            f"{_library_version()} reads model formats up to {FORMAT_VERSION}: upgrade logicrules"
        )
    from logicrules.base import RuleClassifier

    try:
        cls = _import_class(document["class"])
        if not issubclass(cls, RuleClassifier):
            raise ValueError(f"{document['class']!r} is not a rule model")
        model = cls(**_decode(document["params"]))
        model.classes_ = _decode(document["classes"])
        model.n_features_in_ = int(document["n_features_in"])
        if document["feature_names_in"] is not None:
            model.feature_names_in_ = _decode(document["feature_names_in"])
        model.attribute_names_ = list(document["attribute_names"])
        model.binarizer_ = _decode_binarizer(document["binarizer"])
        model.formula_ = formula_from_json(document["formula"])
        for attr, value in document["state"].items():
            setattr(model, attr, _decode(value))
        if not hasattr(model, "pos_label_"):  # written before pos_label existed: classes_[1]
            model.pos_label_ = model.classes_[-1]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path!r}: malformed logicrules model file ({type(error).__name__}: {error})") from None
    return model
