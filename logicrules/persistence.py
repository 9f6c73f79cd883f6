"""Saving fitted rule models as JSON, and loading them back (no pickle).

A saved model is a plain, readable JSON document: the learner's class and parameters, the fitted
binarizer (its class, parameters and every condition ``column op value`` with the state its
``transform`` needs), the formula as a JSON tree, the class labels with their types, the input
column names, the binarized attribute names, the library version, and the learner's other
fitted attributes (e.g. the ideal method's type table for ``predict_proba``, the LP learner's
m-of-n structure). Loading never imports code from outside :mod:`logicrules` and never unpickles,
so a model file can be read safely and inspected by eye; a loaded model predicts exactly as the
original.

Values that JSON cannot hold as they are (tuples, NaN, arrays, frames, formulas, fitted
dataclasses and estimators) are written as small tagged objects (``logicrules._model_json``), read
back within bounds: no array larger than the file could describe, no nesting deeper than a
model has.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from logicrules._model_json import (MAX_FORMULA_DEPTH, _Budget, _check_params, _decode, _encode, _import_class,
                                    _qualified, _is_ours, _set_state, condition_from_json, condition_to_json,
                                    formula_from_json, formula_to_json)

__all__ = ["FORMAT_VERSION", "MAX_FORMULA_DEPTH", "formula_from_json", "formula_to_json", "load_model",
           "save_model"]

#: Version of the file layout written by :func:`save_model`; :func:`load_model` reads up to it.
FORMAT_VERSION = 1
#: Value of the ``format`` field identifying a logicrules model file.
FORMAT_NAME = "logicrules.model"

#: Bytes the arrays of one model file may take in memory, beyond 16 times the file's size
#: (a JSON array of numbers takes at least 2 characters per 8-byte value).
_ARRAY_BYTES_BASE = 1 << 26

#: Fitted attributes written in their own fields (not in ``state``).
_CORE = ("classes_", "n_features_in_", "feature_names_in_", "binarizer_", "attribute_names_",
         "formula_")
#: Learner-specific fitted attributes that ``predict`` / ``predict_proba`` need: saving fails
#: loudly if one of them cannot be written. Every private fitted attribute is required as well.
_PREDICT_STATE = {
    "IdealDNFClassifier": ("type_table_", "class_prior_", "selected_features_"),
    "LPRuleClassifier": ("lam_",),
}


# ---------------------------------------------------------------------------- binarizers
def _encode_binarizer(binarizer: Any) -> dict | None:
    if binarizer is None:
        return None
    from logicrules.fca.binarizer_base import _BaseBinarizer

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
        "conditions": [condition_to_json(c) for c in binarizer.conditions_],
        "state": state,
    }


def _decode_binarizer(spec: dict | None, budget: _Budget) -> Any:
    if spec is None:
        return None
    from logicrules.fca.binarizer_base import _BaseBinarizer

    cls = _import_class(spec["class"])
    if not issubclass(cls, _BaseBinarizer):
        raise ValueError(f"{spec['class']!r} is not a binarizer of logicrules")
    binarizer = cls(**_decode(spec["params"], budget))
    _check_params(binarizer)
    _set_state(binarizer, spec["state"], budget, "binarizer state")
    binarizer.conditions_ = [condition_from_json(c, budget, getattr(binarizer, "missing", "false"))
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
        :class:`~logicrules.fca.premise.estimator.OptimalPremiseClassifier`,
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
    text = json.dumps(_document(model), indent=1, allow_nan=False)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _document(model: Any) -> dict:
    """The JSON document of a fitted model; a one-vs-rest model nests one per class, a native
    multiclass model lists one formula per class under ``formulas``."""
    name = type(model).__name__
    required = set(_PREDICT_STATE.get(name, ()))
    multiclass = isinstance(model.formula_, dict)
    per_class = multiclass and hasattr(model, "estimators_")
    state, omitted = {}, []
    for attr, value in vars(model).items():
        if attr in _CORE or not (attr.endswith("_") or attr.startswith("_")) or attr.startswith("__"):
            continue
        if multiclass and attr == "estimators_":
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
        "formula": None if multiclass else formula_to_json(model.formula_),
        "state": state,
        "omitted": sorted(omitted),
    }
    if per_class:  # one model per class, in the order of classes_
        document["estimators"] = [_document(model.estimators_[label]) for label in model.classes_.tolist()]
    elif multiclass:  # one formula per class, in the order of classes_
        document["formulas"] = [formula_to_json(model.formula_[label]) for label in model.classes_.tolist()]
    return document


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
    if len(model.classes_) > 2 and "formulas" not in document:
        _read_per_class(model, document, budget)
        _set_state(model, document["state"], budget, "state", reserved=(*_CORE, "estimators_"))
        return model
    if len(model.classes_) > 2:  # native multiclass: one formula per class
        formulas = document["formulas"]
        if document.get("formula") is not None or not isinstance(formulas, list) \
                or len(formulas) != len(model.classes_):
            raise ValueError(f"a model of {len(model.classes_)} classes needs 'formula': null and one formula "
                             "per class under 'formulas'")
        model.formula_ = {label: formula_from_json(tree) for label, tree in zip(model.classes_.tolist(), formulas)}
    else:
        model.formula_ = formula_from_json(document["formula"])
    formulas = model.formula_.values() if isinstance(model.formula_, dict) else [model.formula_]
    unknown = {str(a) for f in formulas for a in f.attributes} - set(attributes)
    if unknown:
        raise ValueError(f"the formula uses attributes missing from attribute_names: {sorted(unknown)[:5]}")
    _set_state(model, document["state"], budget, "state", reserved=(*_CORE, "estimators_"))
    if isinstance(model.formula_, dict):
        _check_predicts(model)
        return model
    if not hasattr(model, "pos_label_"):  # written before pos_label existed: classes_[1]
        model.pos_label_ = model.classes_[-1]
    if not any(model.pos_label_ == c for c in model.classes_.tolist()):
        raise ValueError(f"pos_label_ {model.pos_label_!r:.40} is not one of the classes {model.classes_.tolist()}")
    _check_predicts(model)
    return model


def _check_predicts(model: Any) -> None:
    """The loaded state predicts: three binarized rows (none, all, every other attribute true)."""
    n = len(model.attribute_names_)
    rows = np.zeros((3, n), dtype=bool)
    rows[1] = True
    rows[2, ::2] = True
    try:
        if isinstance(model.formula_, dict):  # native multiclass: one truth value per class and row
            fires = np.column_stack([f.evaluate(rows, feature_names=model.attribute_names_)
                                     for f in model.formula_.values()]).any(axis=1)
        else:
            fires = np.asarray(model._evaluate(rows))
        try:
            proba = np.asarray(model._proba(rows), dtype=np.float64)
        except AttributeError:  # a file written before predict_proba kept its counts
            proba = None
    except (IndexError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"its fitted state does not fit its {n} attributes ({type(error).__name__}: "
                         f"{str(error):.120})") from None
    if fires.shape != (3,) or fires.dtype != bool:
        raise ValueError("its rule does not give one truth value per row")
    if proba is not None and proba.shape != (3, len(model.classes_)) or not (np.isfinite(proba).all() and (proba >= 0).all()
                                                       and (proba <= 1).all()):
        raise ValueError("its fitted state gives probabilities outside [0, 1]")


def _read_per_class(model: Any, document: dict, budget: _Budget) -> None:
    """The per-class models of a multiclass model: one binary model per class, in class order,
    each reading the model's binarized attributes."""
    subs = document.get("estimators")
    if document.get("formula") is not None or not isinstance(subs, list) or len(subs) != len(model.classes_):
        raise ValueError(f"a model of {len(model.classes_)} classes needs 'formula': null and one "
                         "model per class under 'estimators'")
    model.estimators_ = {}
    for label, sub_document in zip(model.classes_.tolist(), subs):
        if not isinstance(sub_document, dict) or sub_document.get("class") != document["class"]:
            raise ValueError(f"the model of class {label!r:.40} is not a {document['class']!r:.80}")
        sub = _read_model(sub_document, budget)
        if sub.binarizer_ is not None or list(sub.attribute_names_) != list(model.attribute_names_) \
                or sub.classes_.tolist() != [False, True]:
            raise ValueError(f"the model of class {label!r:.40} must read the attributes of the model "
                             "(binarizer passthrough) and predict True / False")
        model.estimators_[label] = sub
    model.formula_ = {label: sub.formula_ for label, sub in model.estimators_.items()}


def _read_classes(classes: Any) -> np.ndarray:
    """Class labels: a 1-D array of two or more distinct labels, sorted as ``np.unique`` sorts them."""
    if not isinstance(classes, np.ndarray) or classes.ndim != 1:
        raise ValueError("classes must be a 1-D array of labels")
    if len(classes) < 2:
        raise ValueError(f"a rule model has at least two classes, the file lists {len(classes)}: "
                         f"{classes[:5].tolist()}")
    try:
        ordered = all(bool(a < b) for a, b in zip(classes[:-1], classes[1:]))
    except TypeError:
        ordered = False
    if not ordered:
        raise ValueError(f"classes must be distinct labels in increasing order, got {classes[:10].tolist()}")
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
