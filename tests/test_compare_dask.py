"""compare_learners on dask data: folds formed inside the partitions, fits from dask, scores from
dask predictions; the same results as the in-memory comparison on the same folds."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import OptimalPremiseClassifier, compare_learners, load_dataset  # noqa: E402
from logicrules.dask_folds import PartitionFolds  # noqa: E402
from logicrules.equivalence import equivalent  # noqa: E402

SCORING = ("accuracy", "f1", "balanced_accuracy", "precision", "recall")


def _learners():
    return {"premise2": OptimalPremiseClassifier(max_size=2),
            "premise3": OptimalPremiseClassifier(max_size=3, objective="accuracy", binarizer="quantile")}


def _random_frame(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n), "c": rng.choice(["u", "v"], n)})
    y = pd.Series(np.where(((X.a > 0) & (X.c == "u")) ^ (rng.random(n) < 0.1), "yes", "no"), name="t")
    return X, y


def _lengths(Xd):
    return Xd.map_partitions(len).compute().tolist()


def _same_results(got, expected):
    """Equal scores and rule sizes; the same rules (a size-3 premise from counts may list its
    literals in another order: equivalent formulas)."""
    columns = ["dataset", "learner", "fold", *SCORING, "formula_size", "n_attributes", "n_columns"]
    pd.testing.assert_frame_equal(got[columns], expected[columns])
    for a, b in zip(got["estimator"], expected["estimator"]):
        assert equivalent(a.formula_, b.formula_), (str(a.formula_), str(b.formula_))


@pytest.mark.parametrize("seed", [0, 1])
def test_dask_compare_equals_the_in_memory_compare_on_the_same_folds(seed):
    X, y = _random_frame(seed)
    Xd, yd = dd.from_pandas(X, npartitions=3 + seed), dd.from_pandas(y, npartitions=3 + seed)
    with dask.config.set(scheduler="synchronous"):
        got = compare_learners({"d": (Xd, yd)}, _learners(), cv=3, random_state=seed, scoring=SCORING, verbose=0,
                               return_estimators=True)
        folds = PartitionFolds(3, seed, lengths=_lengths(Xd))
    expected = compare_learners({"d": (X, y)}, _learners(), cv=folds, scoring=SCORING, verbose=0,
                                return_estimators=True)
    _same_results(got, expected)


def test_dask_arrays_with_weights_equal_in_memory():
    X, y = _random_frame(2, 240)
    values = np.column_stack([X.a.to_numpy(), X.b.to_numpy(), (X.c == "u").to_numpy()]).astype(float)
    target = (y == "yes").to_numpy().astype(int)
    w = np.random.default_rng(0).integers(1, 4, len(target)).astype(float)
    chunks = 70
    Xd, yd, wd = (da.from_array(values, chunks=(chunks, 3)), da.from_array(target, chunks=chunks),
                  da.from_array(w, chunks=chunks))
    learners = {"premise": OptimalPremiseClassifier(max_size=2)}
    with dask.config.set(scheduler="synchronous"):
        got = compare_learners({"d": (Xd, yd)}, learners, cv=4, scoring=SCORING, verbose=0, sample_weight={"d": wd})
    folds = PartitionFolds(4, 0, lengths=Xd.chunks[0])
    expected = compare_learners({"d": (values, target)}, learners, cv=folds, scoring=SCORING, verbose=0,
                                sample_weight={"d": w})
    for column in SCORING:  # weighted sums in another order: equal up to rounding
        np.testing.assert_allclose(got[column], expected[column], rtol=1e-12)
    assert got["formula"].tolist() == expected["formula"].tolist()


def test_dask_compare_on_bundled_data_and_a_local_cluster(dask_client):
    X, y = load_dataset("hepatitis")
    X, y = X.reset_index(drop=True), pd.Series(np.asarray(y), name="target")
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
    got = compare_learners({"hepatitis": (Xd, yd)}, _learners(), cv=3, scoring=SCORING, verbose=0,
                           client=dask_client, return_estimators=True)
    expected = compare_learners({"hepatitis": (X, y)}, _learners(), cv=PartitionFolds(3, 0, lengths=_lengths(Xd)),
                                scoring=SCORING, verbose=0, return_estimators=True)
    _same_results(got, expected)
    assert got["test_index"].isna().all() and got["estimator"].notna().all()


def test_mixed_datasets_keep_their_order():
    X, y = _random_frame(3, 150)
    with dask.config.set(scheduler="synchronous"):
        got = compare_learners({"mem": (X, y), "lazy": (dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))},
                               {"premise": OptimalPremiseClassifier(max_size=1)}, cv=2, verbose=0)
    assert got["dataset"].tolist() == ["mem", "mem", "lazy", "lazy"]


def test_partition_folds_are_stratified_within_each_partition():
    rng = np.random.default_rng(0)
    folds = PartitionFolds(4, seed=3)
    for number in range(5):
        labels = rng.integers(0, 2, rng.integers(0, 50))
        assigned = folds.assign(number, labels)
        for cls in (0, 1):
            sizes = np.bincount(assigned[labels == cls], minlength=4)
            assert sizes.max() - sizes.min() <= 1
        np.testing.assert_array_equal(assigned, folds.assign(number, labels))  # reproducible


def test_dask_compare_refuses_what_it_cannot_do_clearly():
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    X, y = _random_frame(0, 60)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(TypeError, match="does not fit from dask data"):
            compare_learners({"d": (Xd, yd)}, {"tree": DecisionTreeClassifier()}, cv=2, verbose=0)
        with pytest.raises(TypeError, match="cv must be an int or a PartitionFolds"):
            compare_learners({"d": (Xd, yd)}, _learners(), cv=StratifiedKFold(2), verbose=0)
        with pytest.raises(ValueError, match="scorer 'roc_auc' cannot score"):
            compare_learners({"d": (Xd, yd)}, {"p": OptimalPremiseClassifier(max_size=1)}, cv=2, verbose=0,
                             scoring="roc_auc")
    with pytest.raises(ValueError, match="needs the partition lengths"):
        list(PartitionFolds(2, 0).split(np.zeros((4, 1)), [0, 1, 0, 1]))
