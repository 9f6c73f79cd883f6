"""Comparing the rules of fitted models: logical equivalence, agreement on data, shared attributes
(:func:`compare_formulas`), and the ideal DNF restricted to a model's attributes
(:func:`restricted_ideal_dnf`)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd


# ------------------------------------------------------------------ formula comparison
def compare_formulas(models: Mapping[str, Any], X: Any = None, *, on_domain: bool = False) -> pd.DataFrame:
    """Compare the rules of fitted models pairwise: equivalence, agreement, shared attributes.

    Equivalence is decided by :func:`logicrules.equivalence.equivalent` on the formulas as
    Boolean functions of their binarized attribute NAMES, each name an independent variable.
    It is therefore only meaningful when the models speak of the same attributes: when their
    binarized names coincide (same binarizer fitted on the same data, ``same_attributes``).
    The names of logicrules' binarizers are faithful conditions (``age > 54.5``), so
    ``equivalent=True`` still implies equal predictions on every row; but two formulas over
    different thresholds (``age > 54.5`` vs ``age > 55``) are never called equivalent even if
    no row separates them, since the implications between attributes are not known to the test.
    ``agreement`` measures the models on actual rows instead.

    Parameters
    ----------
    models : dict of str to fitted rule model
        Models with ``formula_`` (e.g. the fold's estimators of
        ``compare_learners(..., return_estimators=True)``).
    X : DataFrame or array-like, optional
        Raw rows (as given to ``predict``) on which to measure agreement.
    on_domain : bool, default False
        Decide ``equivalent`` on the data's domain instead: the literals are the binarizers'
        conditions on the original columns (``age > 54.5`` implies ``age > 50``), compared on
        every value a column can take (its categories seen at fit, missing values where the
        policy allows), so formulas over different binarizations of the same columns compare
        meaningfully.

    Returns
    -------
    DataFrame
        One row per pair: ``model_a``, ``model_b``, ``formula_a``, ``formula_b``,
        ``equivalent`` (bool), ``same_attributes`` (identical ``attribute_names_``),
        ``agreement`` (fraction of rows of X with the same positive/negative prediction; NaN
        without X), ``shared_attributes`` (binarized attributes used by both rules),
        ``shared_columns`` (original columns used by both) and ``attribute_jaccard``.

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> from logicrules.lp.estimator import LPRuleClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> models = {"premise": OptimalPremiseClassifier(binarizer="passthrough").fit(X, y),
    ...           "lp": LPRuleClassifier(binarizer="passthrough").fit(X, y)}
    >>> compare_formulas(models, X)[["equivalent", "agreement"]].values.tolist()
    [[True, 1.0]]
    """
    from logicrules.equivalence import equivalent

    if not isinstance(models, Mapping) or len(models) < 2:
        raise ValueError("compare_formulas needs a dict of at least two fitted models")
    for name, model in models.items():
        if getattr(model, "formula_", None) is None:
            raise TypeError(f"model {name!r} ({type(model).__name__}) has no formula_: "
                            "pass fitted rule models")
    positive = {}
    if X is not None:
        for name, model in models.items():
            positive[name] = np.asarray(model.predict(X)) == model.pos_label_
    rows = []
    for a, b in combinations(models, 2):
        ma, mb = models[a], models[b]
        fa, fb = ma.formula_, mb.formula_
        attrs_a, attrs_b = {str(x) for x in fa.attributes}, {str(x) for x in fb.attributes}
        shared = sorted(attrs_a & attrs_b)
        union = attrs_a | attrs_b
        cols_a, cols_b = _columns_of(ma, attrs_a), _columns_of(mb, attrs_b)
        rows.append({
            "model_a": a, "model_b": b, "formula_a": str(fa), "formula_b": str(fb),
            "equivalent": bool(equivalent(fa, fb, domain=_joint_domain(ma, mb) if on_domain else None)),
            "same_attributes": list(getattr(ma, "attribute_names_", []))
            == list(getattr(mb, "attribute_names_", [])),
            "agreement": float(np.mean(positive[a] == positive[b])) if X is not None else np.nan,
            "shared_attributes": shared,
            "shared_columns": sorted(cols_a & cols_b),
            "attribute_jaccard": len(shared) / len(union) if union else 1.0,
        })
    return pd.DataFrame(rows)


def _joint_domain(*models: Any):
    """The domain of several fitted models' binarizers: their conditions and categories."""
    from logicrules.conditions import Domain

    conditions, categories = [], {}
    for model in models:
        binarizer = getattr(model, "binarizer_", None)
        conditions += list(getattr(binarizer, "conditions_", None) or ())
        for column, values in (getattr(binarizer, "categories_", None) or {}).items():
            categories.setdefault(column, [])
            categories[column] += [v for v in values if v not in categories[column]]
    return Domain(conditions, categories, unseen_categories=False)


def _columns_of(model: Any, attributes: set[str]) -> set[str]:
    binarizer = getattr(model, "binarizer_", None)
    conditions = getattr(binarizer, "conditions_", None) if binarizer is not None else None
    if conditions is None:
        return set(attributes)
    by_name = {c.name: c.column for c in conditions}
    return {by_name.get(a, a) for a in attributes}


def restricted_ideal_dnf(model: Any, X: Any, y: Any, tie: str = "positive"):
    """The empirical ideal DNF over the attributes of a model's rule, on data ``(X, y)``.

    The ideal DNF over a set of attributes is the formula with the fewest errors on ``(X, y)``
    among all formulas over those attributes (DESIGN.md, the ideal classifier method). Comparing
    it with the model's own rule (:func:`logicrules.equivalence.equivalent`, or
    :func:`compare_formulas`) answers whether, e.g., the optimal premise and the ideal DNF
    coincide when restricted to the same attributes; on its training rows the ideal DNF is
    never less accurate than the rule.

    Parameters
    ----------
    model : fitted rule model
        Its binarizer turns ``X`` into the attributes, and ``pos_label_`` is the positive class.
    X, y : data
        Usually the model's training rows (raw, as given to ``fit``).
    tie : {"positive", "negative"}, default "positive"
        Prediction of a type with exactly half positives.

    Returns
    -------
    Formula
        Over the attribute names of ``model.formula_`` (FALSE or TRUE when the rule has none).

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> model = OptimalPremiseClassifier(binarizer="passthrough").fit(X, y)
    >>> print(model.formula_, "|", restricted_ideal_dnf(model, X, y))
    x0 | x0
    """
    from logicrules.ideal.algorithm import empirical_ideal_dnf

    if getattr(model, "formula_", None) is None:
        raise TypeError(f"{type(model).__name__} has no formula_: pass a fitted rule model")
    positive = np.asarray(y) == model.pos_label_
    features = sorted(str(a) for a in model.formula_.attributes)
    Xb = pd.DataFrame(model.binarize(X), columns=[str(a) for a in model.attribute_names_])
    return empirical_ideal_dnf(Xb, positive, features=features, tie=tie)
