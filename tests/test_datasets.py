"""Bundled datasets: shapes, targets and provenance agree with the manifest."""

import hashlib
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from logicrules.datasets import dataset_info, list_datasets, load_csv, load_dataset

EXPECTED = {  # name: (rows, input columns, positives) from the manifest notes
    "breast_cancer_wisconsin": (699, 9, 241),
    "hepatitis": (155, 19, 32),
    "heart_disease_cleveland": (303, 13, 139),
    "congressional_voting": (435, 16, 168),
    "tic_tac_toe": (958, 9, 626),
    "mushroom": (8124, 22, 3916),
    "myocardial_infarction": (1700, 111, 271),
}


def test_list_datasets():
    assert list_datasets() == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_load_dataset(name):
    X, y = load_dataset(name)
    rows, cols, positives = EXPECTED[name]
    assert X.shape == (rows, cols)
    assert set(np.unique(y)) == {0, 1} and int(y.sum()) == positives
    assert y.name == dataset_info(name).target and y.name not in X.columns
    info = dataset_info(name)
    data = resources.files("logicrules").joinpath(f"data/{name}.csv.gz").read_bytes()
    assert hashlib.sha256(data).hexdigest() == info.sha256


def test_missing_values_stay_nan_and_original_labels():
    X, _ = load_dataset("breast_cancer_wisconsin")
    assert X["bare_nuclei"].isna().sum() == 16
    _, y = load_dataset("hepatitis", binary_target=False)
    assert sorted(pd.unique(y)) == [1, 2]


def test_unknown_dataset():
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        load_dataset("iris")


def test_load_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n1,x,yes\n2,,no\n3,y,yes\n")
    X, y = load_csv(path, "label", positive="yes")
    assert list(X.columns) == ["a", "b"] and y.tolist() == [1, 0, 1]
    assert X["b"].isna().sum() == 1
    X, y = load_csv(path, "label")
    assert y.tolist() == ["yes", "no", "yes"]
    with pytest.raises(ValueError, match="target column 'cls' not found"):
        load_csv(path, "cls")
    with pytest.raises(ValueError, match="positive class 'maybe' does not occur"):
        load_csv(path, "label", positive="maybe")
    with pytest.raises(FileNotFoundError, match="no such CSV file"):
        load_csv(tmp_path / "nope.csv", "label")
