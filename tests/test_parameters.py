"""Declared parameter constraints of every estimator: scikit-learn's parameter-validation checks,
booleans that are booleans, keyword-only constructors."""

import inspect

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation, parametrize_with_checks

from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer, ThresholdBinarizer
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier

ESTIMATORS = [IdealDNFClassifier, OptimalPremiseClassifier, LPRuleClassifier,
              MedianBinarizer, QuantileBinarizer, ThresholdBinarizer]


@parametrize_with_checks([OptimalPremiseClassifier(max_size=2)])
def test_premise_classifier_is_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_scikit_learn_parameter_validation(cls):
    """Every parameter is declared, and a value of a wrong type or range fails in fit."""
    check_param_validation(cls.__name__, cls())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_constructors_are_keyword_only(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert parameters and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    with pytest.raises(TypeError):
        cls(1)


X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 5)
Y = np.array([0, 1, 1, 0] * 5)


@pytest.mark.parametrize("cls, params", [
    (IdealDNFClassifier, {"max_features": True}),
    (IdealDNFClassifier, {"tolerance": False}),
    (IdealDNFClassifier, {"random_state": -1}),
    (IdealDNFClassifier, {"random_state": "x"}),
    (IdealDNFClassifier, {"validation_size": 1}),
    (OptimalPremiseClassifier, {"negations": "no"}),
    (OptimalPremiseClassifier, {"negations": 1}),
    (OptimalPremiseClassifier, {"max_size": True}),
    (OptimalPremiseClassifier, {"memory_limit": float("nan")}),
    (OptimalPremiseClassifier, {"memory_limit": float("inf")}),
    (OptimalPremiseClassifier, {"top_k": 1.0}),
    (LPRuleClassifier, {"screening": "no"}),
    (LPRuleClassifier, {"max_clauses": True}),
    (LPRuleClassifier, {"time_limit": "soon"}),
    (LPRuleClassifier, {"time_limit": float("nan")}),
    (LPRuleClassifier, {"time_limit": 0}),
    (LPRuleClassifier, {"lam": float("inf")}),
    (LPRuleClassifier, {"lam": True}),
    (LPRuleClassifier, {"random_state": "x"}),
    (LPRuleClassifier, {"row_sampling": 0}),
    (QuantileBinarizer, {"negations": "no"}),
    (QuantileBinarizer, {"n_thresholds": True}),
    (ThresholdBinarizer, {"drop_constant": np.int64(1)}),
])
def test_bad_values_are_rejected_naming_the_parameter(cls, params):
    (name, value), = params.items()
    estimator = cls(**params)
    with pytest.raises(InvalidParameterError, match=rf"'{name}' parameter of {cls.__name__} must be"):
        if hasattr(estimator, "predict"):
            estimator.set_params(binarizer="passthrough").fit(X, Y)
        else:
            estimator.fit(X)


def test_numpy_booleans_and_integers_are_accepted():
    LPRuleClassifier(binarizer="passthrough", screening=np.True_, max_clauses=np.int64(2)).fit(X, Y)
    QuantileBinarizer(negations=np.False_, n_thresholds=np.int32(3)).fit(X)


def test_a_user_binarizer_is_validated_inside_the_learner():
    with pytest.raises(InvalidParameterError, match="'negations' parameter of QuantileBinarizer"):
        LPRuleClassifier(binarizer=QuantileBinarizer(negations="no")).fit(X, Y)
