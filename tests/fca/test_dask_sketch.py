"""Blocks packed from the radix pass's sketches equal those packed from the partitions themselves."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import IdealDNFClassifier  # noqa: E402
from logicrules.fca import dask_radix  # noqa: E402
from logicrules.fca.dask_counts import RowSplit, _make_block, dask_partitions  # noqa: E402
from logicrules.fca.dask_scaling import fit_binarizers  # noqa: E402
from logicrules.fca.dask_sketch import SketchKeeper, sketch_block  # noqa: E402
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer  # noqa: E402
from tests.test_dask_counts import _PRODUCED, _shared_source  # noqa: E402


def _table(seed: int, n: int):
    """Columns of every shape the sketches meet: continuous, ties, a heavy tie at the median,
    missing values, integers, and a column whose values all share one top-16-bit bucket."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n),
        rng.integers(0, 6, n),
        np.where(rng.random(n) < 0.6, 1.5, rng.normal(size=n)),
        np.where(rng.random(n) < 0.15, np.nan, rng.normal(size=n)),
        1.0 + rng.random(n) * 1e-6,
        -rng.exponential(size=n),
    ])
    y = ((X[:, 0] > 0) | (X[:, 1] > 3)).astype(np.int64) ^ (rng.random(n) < 0.1)
    w = np.where(rng.random(n) < 0.1, 0.0, rng.integers(1, 4, n)).astype(float)
    return X, y, w


def _check_blocks(keeper, binarizers, Xd, yd, wd, validations, n_classes):
    """Every partition's block from the sketch equals the one ``transform_packed`` packs; returns
    which binarizers the sketches covered."""
    sketches = keeper.take()
    covered = []
    for binarizer, validation, k in zip(binarizers, validations, n_classes):
        plan = sketches.plan(binarizer)
        covered.append(plan is not None)
        if plan is None:
            continue
        names = tuple(c.name for c in binarizer.conditions_)
        for number, (part, labels, weights) in enumerate(dask_partitions(Xd, yd, wd)):
            part, labels, weights, sketch = dask.compute(part, labels, weights, sketches.parts[number])
            want = _make_block(binarizer, names, k, number, part, labels, weights, None, validation)
            got = sketch_block(plan, k, number, sketch, validation)
            assert got.n_rows == want.n_rows and got.n_classes == want.n_classes
            assert np.array_equal(got.bits, want.bits), (number, binarizer.conditions_)
            assert np.array_equal(got.labels, want.labels)
            assert (got.weights is None) == (want.weights is None)
            if want.weights is not None:
                assert np.array_equal(got.weights, want.weights)
    return covered


@pytest.mark.parametrize("seed", range(24))
def test_blocks_from_sketches_equal_the_binarized_partitions(seed, monkeypatch):
    """Stage (a split's training rows) and final binarizers fitted in shared passes: where the
    sketches cover them, each partition's bits, labels and weights equal ``_make_block``'s, with
    the radix buckets made small (``GATHER``) so that thresholds fall inside, at the end of, and
    past real buckets, and with missing values, ties, weights of zero and a validation split."""
    monkeypatch.setattr(dask_radix, "GATHER", [4, 16, 64][seed % 3])
    n = 300 + 41 * seed
    X, y, w = _table(seed, n)
    missing = ["false", "indicator"][seed % 2]
    make = (lambda: MedianBinarizer(missing=missing)) if seed % 4 < 3 else \
        (lambda: QuantileBinarizer(n_thresholds=3, missing=missing))
    chunks = 37 + 13 * seed
    Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=chunks)
    wd = da.from_array(w, chunks=chunks) if seed % 2 else None
    split = RowSplit(0.3, seed=seed)
    keeper = SketchKeeper(lambda: yd)
    with dask.config.set(scheduler="synchronous"):
        stage, final = fit_binarizers([(make(), split), (make(), None)], Xd, weights=wd, keep=keeper)
        ranges = keeper.sketches.ranges
        assert set(ranges) == {f"x{j}" for j in range(6)}
        if seed % 4 < 3:  # the heavy tie's median has no bucket: its one key is sketched instead
            assert [low == high for low, high in ranges["x2"]] == [True]
        covered = _check_blocks(keeper, [stage, final], Xd, yd, wd, [split, None], [4, 2])
    assert keeper.take() is None  # handed over once
    # the final fit's rows are the sketches' rows: always covered; the stage's here too with
    # medians (a validation row between a cut point and the next training value would not be)
    assert covered == [True, True] if seed % 4 < 3 else covered[1]


def test_sketches_cover_continuous_columns_and_decline_what_they_cannot_tell(monkeypatch):
    """Continuous columns are covered by both fits; a column that is infinite on rows the stage
    did not see, missing values under ``missing='error'``, and a categorical DataFrame are not
    (the partitions are produced again there, where transform_packed raises or reads them)."""
    monkeypatch.setattr(dask_radix, "GATHER", 16)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    split = RowSplit(0.25, seed=1)
    Xd, yd = da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150)
    with dask.config.set(scheduler="synchronous"):
        keeper = SketchKeeper(lambda: yd)
        stage, final = fit_binarizers([(MedianBinarizer(), split), (MedianBinarizer(), None)], Xd, keep=keeper)
        assert _check_blocks(keeper, [stage, final], Xd, yd, None, [split, None], [4, 2]) == [True, True]

        valid = split.other().mask([150] * 5 + [50])
        for bad, missing in ((np.inf, "false"), (np.nan, "error")):
            Z = X.copy()
            Z[np.flatnonzero(valid)[3], 1] = bad  # a row only the final fit and the stage's transform see
            Zd = da.from_array(Z, chunks=(150, -1))
            keeper = SketchKeeper(lambda: yd)
            stage = fit_binarizers([(MedianBinarizer(missing=missing), split)], Zd, keep=keeper)[0]
            assert keeper.take().plan(stage) is None

        frame = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > 0, "p", "q")})
        fd = dd.from_pandas(frame, npartitions=3)
        yf = dd.from_pandas(pd.Series(y), npartitions=3)
        keeper = SketchKeeper(lambda: yf)
        (binarizer,) = fit_binarizers([(MedianBinarizer(), None)], fd, keep=keeper)
        assert keeper.take().plan(binarizer) is None


@pytest.mark.parametrize("seed", range(3))
def test_ideal_fit_from_sketches_produces_the_table_twice_and_fits_the_same(seed, monkeypatch):
    """With the blocks persisted, the ideal fit from dask packs its counts' blocks from the radix
    pass's sketches: every partition is produced twice (the summaries, the radix pass), not three
    times, and the fit (path, formula, predictions) is the one without sketches."""
    import logicrules.ideal.dask_fit as ideal_dask

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(3000, 6)).astype(np.float32 if seed % 2 else np.float64)
    y = (((X[:, 0] > 0) & (X[:, 1] > 0)) | (X[:, 2] > 0.3)).astype(np.int64) ^ (rng.random(3000) < 0.05)
    Xd, yd = _shared_source(X, y, 400)
    fits, produced = [], []
    with dask.config.set(scheduler="synchronous", **{"logicrules.persist-bits": True}):
        for keep in (True, False):
            if not keep:
                monkeypatch.setattr(ideal_dask, "SketchKeeper", lambda labels: None)
            _PRODUCED.clear()
            fits.append(IdealDNFClassifier(random_state=seed).fit(Xd, yd))
            produced.append(sorted(_PRODUCED))
    assert produced[0] == sorted(list(range(8)) * 2)
    assert len(produced[1]) > len(produced[0])
    sketched, plain = fits
    assert sketched.formula_ == plain.formula_
    pd.testing.assert_frame_equal(sketched.path_, plain.path_)
    assert np.array_equal(sketched.predict(X), plain.predict(X))


@pytest.mark.parametrize("weighted", [False, True])
def test_ideal_fit_from_sketches_on_a_local_cluster_equals_in_memory(weighted, dask_client, monkeypatch):
    """Under a distributed Client (blocks persisted by default) the ideal fit's counts are packed
    from the sketches, numeric DataFrame partitions with integer and float columns and missing
    values included, and the fit is the in-memory one on the same split (weights too)."""
    from logicrules.fca.dask_sketch import Sketches
    from tests.test_dask_fit import _in_memory_with_split, _same_model

    packed = []
    blocks = Sketches.blocks
    monkeypatch.setattr(Sketches, "blocks", lambda self, *args: packed.append(args[1]) or blocks(self, *args))
    monkeypatch.setattr(dask_radix, "GATHER", 32)
    rng = np.random.default_rng(3)
    n = 1500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 9, n), "c": rng.exponential(size=n),
                      "d": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n))})
    y = pd.Series(np.where((X.a > 0) & (X.b > 3) | (X.c > 2), "yes", "no"), name="target")
    w = pd.Series(rng.integers(0, 3, n).astype(float), name="w") if weighted else None
    Xd, yd = dd.from_pandas(X, npartitions=5), dd.from_pandas(y, npartitions=5)

    def make():
        return IdealDNFClassifier(random_state=2)  # the median binarizer with missing="false"

    kwargs = {} if w is None else {"sample_weight": dd.from_pandas(w, npartitions=5)}
    got = make().fit(Xd, yd, **kwargs)
    assert sorted(packed) == [2, 4]  # the final binarization's blocks and the split's (2 classes x 2 parts)
    lengths = Xd.map_partitions(len).compute().tolist() if w is None else \
        dd.from_pandas(w, npartitions=5).map_partitions(lambda s: int((s > 0).sum())).compute().tolist()
    positive = np.ones(n, bool) if w is None else w.to_numpy() > 0
    valid = RowSplit(make().validation_size, 2, "validation").mask(lengths)
    expected = make()
    expected._split = lambda target: (np.flatnonzero(~valid), np.flatnonzero(valid))
    if w is None:
        expected.fit(X, y)
    else:  # the split is drawn among the rows of positive weight
        expected.fit(X[positive].reset_index(drop=True), y[positive].reset_index(drop=True),
                     sample_weight=w[positive].to_numpy())
    _same_model(got, expected, X)
