"""DaskCounts: every count over dask partitions equals the in-memory count of the same rows."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules.fca.context import FormalContext  # noqa: E402
from logicrules.fca.counts import ContextCounts  # noqa: E402
from logicrules.fca.dask_counts import DaskCounts, RowSplit  # noqa: E402
from logicrules.fca.scaling import QuantileBinarizer  # noqa: E402


def _same_counts(got, expected, n_classes):
    np.testing.assert_array_equal(got.class_totals(), expected.class_totals())
    np.testing.assert_allclose(got.literal_counts(), expected.literal_counts())
    np.testing.assert_allclose(got.gram(), expected.gram())
    cols = [0, 2, 3] if got.n_attributes > 3 else [0]
    h, e = got.type_histogram(cols), expected.type_histogram(cols)
    np.testing.assert_array_equal(h.keys, e.keys)
    np.testing.assert_allclose(h.counts, e.counts)
    combos = np.array([[0, 1, 2], [1, 3, 4]]) if got.n_attributes > 4 else np.array([[0]])
    np.testing.assert_allclose(got.cell_counts(combos), expected.cell_counts(combos))
    for cls in range(n_classes):
        r, s = got.class_rows(cls), expected.class_rows(cls)
        np.testing.assert_array_equal(r.packed, s.packed)
        np.testing.assert_allclose(r.weights, s.weights)


def _random(seed, n=300, m=7, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)
    return X, rng.integers(0, n_classes, n), rng.integers(1, 4, n).astype(float)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_counts_of_boolean_partitions_equal_in_memory(seed, weighted):
    n_classes = 2 + seed % 2
    X, y, w = _random(seed, n_classes=n_classes)
    w = w if weighted else None
    names = [f"a{j}" for j in range(X.shape[1])]
    expected = ContextCounts(FormalContext(X, attributes=names), y, weights=w, n_classes=n_classes)
    frame = pd.DataFrame(X.astype(int), columns=names)
    with dask.config.set(scheduler="synchronous"):
        got = DaskCounts(dd.from_pandas(frame, npartitions=5), dd.from_pandas(pd.Series(y), npartitions=5),
                         weights=None if w is None else dd.from_pandas(pd.Series(w), npartitions=5),
                         n_classes=n_classes)
        _same_counts(got, expected, n_classes)
        arrays = DaskCounts(da.from_array(X, chunks=(70, 3)), da.from_array(y, chunks=100),
                            weights=None if w is None else da.from_array(w, chunks=45),
                            n_classes=n_classes, attributes=names)
        _same_counts(arrays, expected, n_classes)


@pytest.mark.parametrize("seed", range(3))
def test_counts_through_a_binarizer_and_a_row_split(seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"u": rng.normal(size=400), "v": rng.integers(0, 5, 400),
                      "c": rng.choice(["p", "q", "r"], 400)})
    y = pd.Series(rng.integers(0, 2, 400))
    binarizer = QuantileBinarizer(n_thresholds=3).fit(X)
    Xd, yd = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)
    lengths = Xd.map_partitions(len).compute().tolist()
    split = RowSplit(0.3, seed=seed, part="validation")
    for rows in (None, split, split.other()):
        keep = np.ones(len(X), dtype=bool) if rows is None else rows.mask(lengths)
        expected = ContextCounts(binarizer.transform_context(X[keep]), y.to_numpy()[keep])
        with dask.config.set(scheduler="synchronous"):
            got = DaskCounts(Xd, yd, binarizer=binarizer, rows=rows)
            _same_counts(got, expected, 2)
            assert got.attributes == expected.attributes


def test_partitions_must_hold_the_same_rows():
    X = pd.DataFrame({"a": [1, 0, 1, 1]})
    with dask.config.set(scheduler="synchronous"):
        counts = DaskCounts(dd.from_pandas(X, npartitions=2, sort=False),
                            dd.from_pandas(pd.Series([1, 0, 1], index=[0, 1, 3]), npartitions=2, sort=False))
        with pytest.raises(ValueError, match="partitioned alike"):
            counts.class_totals()


def test_verbose_prints_one_line_per_pass(capsys):
    X, y, _ = _random(0, n=50)
    with dask.config.set(scheduler="synchronous"):
        counts = DaskCounts(da.from_array(X, chunks=(20, 7)), da.from_array(y, chunks=20), verbose=1)
        counts.literal_counts()
        counts.gram()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("dask pass: literal counts over 3 partitions")


def test_counts_on_a_local_cluster(dask_client):
    X, y, w = _random(5, n_classes=3)
    names = [f"a{j}" for j in range(X.shape[1])]
    expected = ContextCounts(FormalContext(X, attributes=names), y, weights=w, n_classes=3)
    got = DaskCounts(da.from_array(X, chunks=(64, 7)), da.from_array(y, chunks=64),
                     weights=da.from_array(w, chunks=64), n_classes=3)
    _same_counts(got, expected, 3)


_PRODUCED: list[int] = []


def _produce(number, X, y):
    """Block ``number`` of X and its labels from one task (as a file holding both is read once)."""
    _PRODUCED.append(number)
    return X, y


def _shared_source(X, y, rows):
    """X and y as dask arrays whose blocks come from one task per block, which counts its calls."""
    import dask

    xs, ys = [], []
    for number, start in enumerate(range(0, len(X), rows)):
        both = dask.delayed(_produce, pure=True, nout=2)(number, X[start:start + rows], y[start:start + rows])
        n = min(rows, len(X) - start)
        xs.append(da.from_delayed(both[0], shape=(n, X.shape[1]), dtype=X.dtype))
        ys.append(da.from_delayed(both[1], shape=(n,), dtype=y.dtype))
    return da.concatenate(xs), da.concatenate(ys)


@pytest.mark.parametrize("seed", range(3))
def test_persisted_blocks_count_the_same_and_each_partition_is_produced_once(seed):
    """A pass reading X and y produces each partition once (their shared task is not copied into
    each); with ``persist`` the first pass keeps the packed blocks and no later pass produces a
    partition again; every count equals the in-memory one, with weights and a row split."""
    X, y, w = _random(seed, n=400, n_classes=2 + seed % 2)
    names = [f"a{j}" for j in range(X.shape[1])]
    Xd, yd = _shared_source(X.astype(np.uint8), y, 90)
    split = RowSplit(0.4, seed=seed, part="train") if seed == 2 else None
    keep = np.ones(len(y), dtype=bool) if split is None else split.mask([90, 90, 90, 90, 40])
    weights = w if seed == 1 else None
    expected = ContextCounts(FormalContext(X[keep], attributes=names), y[keep],
                             weights=None if weights is None else weights[keep], n_classes=2 + seed % 2)
    for persist in (False, True):
        _PRODUCED.clear()
        with dask.config.set(scheduler="synchronous"):
            got = DaskCounts(Xd, yd, weights=None if weights is None else da.from_array(weights, chunks=90),
                             n_classes=2 + seed % 2, attributes=names, rows=split, persist=persist)
            got.class_totals()
            assert sorted(_PRODUCED) == [0, 1, 2, 3, 4]
            _same_counts(got, expected, 2 + seed % 2)
        passes = got.n_passes
        assert passes > 1 and sorted(_PRODUCED) == sorted(list(range(5)) * (1 if persist else passes))


def test_persist_follows_the_scheduler_and_the_dask_config(dask_client):
    """By default the blocks are persisted when a distributed Client runs the passes, not with a
    local scheduler; the dask config value ``logicrules.persist-bits`` decides when set."""
    from logicrules.fca.dask_counts import _persisting

    assert _persisting(None) and not _persisting(False)
    with dask.config.set({"logicrules.persist-bits": False}):
        assert not _persisting(None) and _persisting(True)
    with dask.config.set(scheduler="synchronous"):
        assert not _persisting(None)
        with dask.config.set({"logicrules.persist-bits": True}):
            assert _persisting(None)
