"""Dask collections as input: predictions computed partition by partition, lazily.

A fitted rule is a pure function of one row, so ``predict``, ``predict_proba``,
``decision_function`` and ``score`` of every learner take a ``dask.dataframe.DataFrame`` or a
``dask.array.Array`` and return dask collections with the same row partitions
(``map_partitions`` / ``map_blocks``): nothing is computed until the caller asks, and no
process ever holds more than one partition. dask is imported only when such an input is seen;
install it with ``pip install "logicrules[dask]"`` (dask, distributed and pyarrow, which dask
DataFrames need).

Fitting from a dask collection is not implemented: :func:`check_not_dask` raises a clear
error instead of letting scikit-learn's input checks compute the whole collection.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

__all__ = ["is_dask_collection", "import_dask", "map_rows", "check_not_dask", "lazy_score"]


def is_dask_collection(obj: Any) -> bool:
    """True for a dask collection (DataFrame, Series, Array), without importing dask.

    Examples
    --------
    >>> is_dask_collection(np.zeros(3))
    False
    """
    return hasattr(obj, "__dask_graph__") and callable(getattr(obj, "__dask_graph__"))


def import_dask():
    """Import dask (array and dataframe), or raise an ImportError that says what to install.

    Returns
    -------
    tuple of modules
        ``(dask.array, dask.dataframe)``.

    Examples
    --------
    >>> da, dd = import_dask()
    >>> da.__name__, dd.__name__
    ('dask.array', 'dask.dataframe')
    """
    try:
        import dask.array as da
        import dask.dataframe as dd
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("dask input needs dask with its DataFrame support: "
                          'pip install "logicrules[dask]" (dask, distributed, pyarrow); '
                          f"import failed with: {error}") from error
    return da, dd


def check_not_dask(**inputs: Any) -> None:
    """Refuse dask collections where only in-memory data is supported (fitting).

    Raises
    ------
    TypeError
        Naming the input, and how to proceed (compute a sample, or fit on in-memory data).

    Examples
    --------
    >>> check_not_dask(X=np.zeros((2, 2)), y=[0, 1])
    """
    for name, value in inputs.items():
        if is_dask_collection(value):
            raise TypeError(
                f"{name} is a dask collection: fitting from dask data is not supported (only "
                "predict, predict_proba, decision_function and score are); fit on data in "
                f"memory, e.g. {name}.compute() or a sample of it, then predict on the dask data")


def map_rows(func: Callable[[Any], np.ndarray], X: Any, n_outputs: int | None, dtype,
             columns: list[str] | None = None) -> Any:
    """Apply a row-wise function to every partition of a dask DataFrame or Array, lazily.

    Parameters
    ----------
    func : callable
        In-memory function of a pandas DataFrame or numpy array (one partition) returning an
        array with one entry (``n_outputs`` None) or one row of ``n_outputs`` values per row.
    X : dask.dataframe.DataFrame or dask.array.Array
        2-D input; a dask array is rechunked to hold all its columns in each block.
    n_outputs : int or None
        None for a 1-D result (a Series / 1-D array), else the number of output columns.
    dtype : numpy dtype
        dtype of the result.
    columns : list of str, optional
        Column names of a 2-D result on DataFrame input.

    Returns
    -------
    dask.dataframe.Series, dask.dataframe.DataFrame or dask.array.Array
        Partitioned like X (a DataFrame input gives a Series / DataFrame with its index).

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.from_array(np.arange(6).reshape(3, 2), chunks=(2, 2))
    >>> map_rows(lambda block: block.sum(axis=1), X, None, np.int64).compute().tolist()
    [1, 5, 9]
    """
    da, dd = import_dask()
    dtype = np.dtype(dtype)
    if isinstance(X, dd.DataFrame):
        if n_outputs is None:
            def series(part):
                return pd.Series(func(part), index=part.index, dtype=dtype)
            return X.map_partitions(series, meta=pd.Series([], dtype=dtype))
        names = columns if columns is not None else list(range(n_outputs))

        def frame(part):
            return pd.DataFrame(func(part), index=part.index, columns=names).astype(dtype)
        return X.map_partitions(frame, meta=pd.DataFrame({c: pd.Series([], dtype=dtype) for c in names}))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array, got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1})
        if n_outputs is None:
            return X.map_blocks(lambda block: np.asarray(func(block), dtype=dtype), drop_axis=1, dtype=dtype,
                                chunks=(X.chunks[0],))
        return X.map_blocks(lambda block: np.asarray(func(block), dtype=dtype), dtype=dtype,
                            chunks=(X.chunks[0], (n_outputs,)))
    raise TypeError(f"X must be a dask DataFrame or dask Array, got {type(X).__name__}")


def lazy_score(predicted: Any, y: Any, sample_weight: Any = None) -> Any:
    """Accuracy of dask predictions against a dask target, as a lazy dask scalar.

    Parameters
    ----------
    predicted : dask Series or Array
        Output of :func:`map_rows` (``predict``).
    y : dask Series or Array
        True labels, partitioned like the input rows.
    sample_weight : dask Series or Array, optional
        Row weights, partitioned like y.

    Returns
    -------
    dask scalar
        ``.compute()`` gives the (weighted) fraction of rows predicted right.

    Examples
    --------
    >>> import dask.array as da
    >>> pred = da.from_array(np.array([1, 0, 1]), chunks=2)
    >>> float(lazy_score(pred, da.from_array(np.array([1, 1, 1]), chunks=2)).compute())
    0.6666666666666666
    """
    _, dd = import_dask()

    def as_array(values):
        return values.to_dask_array(lengths=True) if isinstance(values, dd.Series) else values

    right = as_array(predicted) == as_array(y)
    if sample_weight is None:
        return right.mean()
    sample_weight = as_array(sample_weight)
    return (right * sample_weight).sum() / sample_weight.sum()
