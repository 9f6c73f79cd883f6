"""Counts over the partitions of a dask collection: fitting from data no machine holds whole.

:class:`DaskCounts` is the :class:`~logicrules.fca.counts.Counts` of raw data in a
``dask.dataframe.DataFrame`` (or a 2-D ``dask.array.Array``) with its labels in a dask Series /
array partitioned alike. Every count is one *pass*: each partition is binarized by the fitted
binarizer (``transform_packed``), packed into a :class:`~logicrules.fca.counts.RowBlock` and
counted by the kernel where it lives; the partial counts are summed pairwise (a tree reduction)
and only the sum reaches the driver, in one ``compute`` per pass. A worker holds one partition
and its bits; the driver holds counts. Whatever scheduler is active runs the pass: the
synchronous or threaded scheduler, or a ``distributed.Client`` (a ``LocalCluster`` or a real
cluster's address).

Rows of a partition can be restricted by a :class:`RowSplit` (the ideal method's validation
split), drawn per partition from a seed, so that the split is reproducible without ever
materializing the data: it depends on the seed and on the partitioning (the number of rows of
each partition), not on where the partitions are computed.

Examples
--------
>>> import numpy as np, pandas as pd, dask, dask.dataframe as dd
>>> X = pd.DataFrame({"a": [1, 0, 1, 1], "b": [0, 0, 1, 1]})
>>> y = pd.Series([1, 0, 1, 0])
>>> with dask.config.set(scheduler="synchronous"):
...     counts = DaskCounts(dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))
...     counts.literal_counts().tolist()
[[1, 1], [2, 1]]
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from logicrules.fca import bitset
from logicrules.fca.count_kernels import _type_histogram
from logicrules.fca.counts import MAX_TYPE_FEATURES, Counts, RowBlock
from logicrules.fca.row_block import _check_rows
from logicrules.progress import pass_line

__all__ = ["DaskCounts", "RowSplit", "dask_partitions", "delayed_parts", "expand_block", "packed_block", "partition_rows",
           "tree_sum"]


class RowSplit:
    """A reproducible random split of the rows of each partition (no row is ever gathered).

    Row ``i`` of partition ``p`` (``n`` rows) is a *validation* row when
    ``numpy.random.default_rng([seed, p]).random(n)[i] < fraction``: each row independently,
    with probability ``fraction``. The split depends only on ``seed`` and the partitioning, so
    the same data in the same partitions gives the same split on any scheduler; the split of
    the same rows held in memory is :meth:`mask` of the partition lengths.

    Parameters
    ----------
    fraction : float in (0, 1)
        Probability that a row is a validation row.
    seed : int >= 0
    part : {"train", "validation"}
        Which rows the split keeps when called.

    Examples
    --------
    >>> split = RowSplit(0.5, seed=0, part="validation")
    >>> split.mask([3, 2]).tolist()
    [False, True, True, False, False]
    >>> split.other()(1, 2).tolist()
    [True, True]
    """

    def __init__(self, fraction: float, seed: int, part: str = "train") -> None:
        if part not in ("train", "validation"):
            raise ValueError(f"part must be 'train' or 'validation', got {part!r}")
        if not 0 < float(fraction) < 1:
            raise ValueError(f"fraction must lie in (0, 1), got {fraction!r}")
        self.fraction, self.seed, self.part = float(fraction), int(seed), part

    def validation(self, number: int, n: int) -> np.ndarray:
        """Validation rows of partition ``number`` of ``n`` rows (bool mask)."""
        return np.random.default_rng([self.seed, int(number)]).random(int(n)) < self.fraction

    def __call__(self, number: int, n: int) -> np.ndarray:
        """The kept rows (this split's ``part``) of partition ``number``."""
        valid = self.validation(number, n)
        return valid if self.part == "validation" else ~valid

    def other(self) -> RowSplit:
        """The complementary part of the same split."""
        return RowSplit(self.fraction, self.seed, "validation" if self.part == "train" else "train")

    def mask(self, lengths: Sequence[int]) -> np.ndarray:
        """The kept rows of data partitioned into ``lengths`` rows each, concatenated."""
        masks = [self(p, n) for p, n in enumerate(lengths)]
        return np.concatenate(masks) if masks else np.zeros(0, dtype=bool)

    def __repr__(self) -> str:
        return f"RowSplit({self.fraction!r}, seed={self.seed}, part={self.part!r})"


def delayed_parts(collection: Any) -> list[Any]:
    """The partitions (blocks, in row order) of a dask collection as delayed objects.

    A dask array's blocks keep the keys of its graph (``to_delayed(optimize_graph=False)``):
    optimized one by one, the graphs of X and of y each get their own copy of the tasks that
    produce both (a block of X and its labels read or drawn by one task), so a pass that reads
    X and y would produce every partition twice. A DataFrame's partitions keep their shared
    keys when optimized (and their column projections)."""
    from logicrules.distributed import import_dask

    da, _ = import_dask()
    if isinstance(collection, da.Array):
        return list(collection.to_delayed(optimize_graph=False).ravel())
    return list(collection.to_delayed())


def dask_partitions(X: Any, *others: Any) -> list[tuple[Any, ...]]:
    """The row partitions of X and of row-aligned companions (labels, weights) as delayed objects.

    Parameters
    ----------
    X : dask.dataframe.DataFrame or 2-D dask.array.Array
        A dask array is rechunked to hold all its columns in every block.
    *others : dask Series / 1-D Array, or None
        Partitioned like X: a Series with the same number of partitions (or repartitioned to
        X's known divisions), an array rechunked to X's row chunks. None stays None.

    Returns
    -------
    list of tuples
        One ``(X_part, other_part, ...)`` per partition, each a ``dask.delayed`` object.
    """
    from logicrules.distributed import import_dask

    da, dd = import_dask()
    if isinstance(X, dd.DataFrame):
        parts = [delayed_parts(X)]
        for other in others:
            if other is None:
                parts.append([None] * X.npartitions)
                continue
            if not isinstance(other, (dd.Series, dd.DataFrame)):
                raise TypeError(f"with a dask DataFrame X, labels and weights must be dask Series, got "
                                f"{type(other).__name__}")
            if other.npartitions != X.npartitions:
                if not (X.known_divisions and other.known_divisions):
                    raise ValueError(f"X has {X.npartitions} partitions but a companion Series has "
                                     f"{other.npartitions} (and the divisions are unknown): partition "
                                     "them alike (e.g. take y from the same DataFrame as X)")
                other = other.repartition(divisions=X.divisions)
            parts.append(delayed_parts(other))
        return list(zip(*parts))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array, got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1})
        parts = [delayed_parts(X)]
        for other in others:
            if other is None:
                parts.append([None] * len(parts[0]))
                continue
            if isinstance(other, (dd.Series, dd.DataFrame)):
                other = other.to_dask_array(lengths=True)
            if not isinstance(other, da.Array) or other.ndim != 1:
                raise TypeError(f"with a dask array X, labels and weights must be 1-D dask arrays, got "
                                f"{type(other).__name__}")
            if other.shape[0] != X.shape[0]:
                raise ValueError(f"X has {X.shape[0]} rows but a companion array has {other.shape[0]}")
            parts.append(delayed_parts(other.rechunk((X.chunks[0],))))
        return list(zip(*parts))
    raise TypeError(f"X must be a dask DataFrame or a 2-D dask Array, got {type(X).__name__}")


def _add(a: Any, b: Any) -> Any:
    """``a + b`` where None stands for an empty partial."""
    if a is None:
        return b
    return a if b is None else a + b


def _add_each(a: tuple | None, b: tuple | None) -> tuple | None:
    """:func:`_add` entry by entry of two tuples of partials (None: an empty partition)."""
    if a is None:
        return b
    return a if b is None else tuple(_add(x, y) for x, y in zip(a, b))


def tree_sum(partials: Sequence[Any], add_partials: Callable[[Any, Any], Any] = _add) -> Any:
    """Pairwise (tree) sum of delayed partial counts; a delayed None when there is none.
    ``add_partials``: how two partials add (None stands for an empty one)."""
    import dask

    add = dask.delayed(add_partials, pure=True)
    level = list(partials)
    if not level:
        return dask.delayed(None)
    while len(level) > 1:
        level = [add(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def _frame_rows(part: Any, keep: np.ndarray) -> Any:
    return part.iloc[np.flatnonzero(keep)] if hasattr(part, "iloc") else np.asarray(part)[keep]


def partition_rows(number: int, part: Any, others: Sequence[Any], rows: Callable | None, weights: Any = None):
    """A partition, its companions (labels) and its weights restricted to the rows kept: rows of
    weight 0 are dropped first (as if absent, as the in-memory fit drops them), then ``rows(number,
    n)`` selects among the ``n`` remaining rows. Returns ``(part, others, weights)``."""
    n = len(part)
    for other in (*others, weights):
        if other is not None and len(other) != n:
            raise ValueError(f"partition {number} holds {n} rows of X but {len(other)} labels or "
                             "weights: X and y must be partitioned alike")
    others = [None if o is None else np.asarray(o) for o in others]
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        if not (weights > 0).all():
            positive = weights > 0
            part, others, weights = (_frame_rows(part, positive), [None if o is None else o[positive] for o in others],
                                     weights[positive])
    if rows is None:
        return part, others, weights
    keep = np.asarray(rows(number, len(part)), dtype=bool)
    return (_frame_rows(part, keep), [None if o is None else o[keep] for o in others],
            None if weights is None else weights[keep])


#: Rows of a 0/1 partition checked and packed at once (a multiple of 64): bounds the temporaries.
_PACK_ROWS = 1 << 16


def _pack_boolean(values: np.ndarray, names: tuple[str, ...], number: int) -> np.ndarray:
    """A 0/1 partition packed into bits chunk by chunk: the temporaries (a chunk's booleans and
    checks) stay a ``_PACK_ROWS``-row slice, whatever the partition's size and dtype."""
    from logicrules.validation import as_boolean_matrix

    if values.ndim != 2 or values.shape[1] != len(names):
        raise ValueError(f"partition {number} has shape {values.shape}, expected {len(names)} columns")
    n = values.shape[0]
    bits = np.zeros((len(names), bitset.n_words(n)), dtype=np.uint64)
    for start in range(0, n, _PACK_ROWS):
        chunk = values[start:start + _PACK_ROWS]
        if chunk.dtype.kind in "iu":  # integers: 0/1 checked without a float copy
            bad = np.flatnonzero(((chunk != 0) & (chunk != 1)).any(axis=0))
            if bad.size:
                as_boolean_matrix(chunk[:, bad[:10]], labels=[names[j] for j in bad[:10]])  # raises, naming them
            chunk = chunk.astype(bool)
        else:
            chunk = as_boolean_matrix(chunk, labels=names)
        bits[:, start // 64:start // 64 + bitset.n_words(chunk.shape[0])] = bitset.pack_columns(chunk)
    return bits


def _make_block(binarizer: Any, names: tuple[str, ...], n_classes: int, number: int, part: Any,
                labels: Any, weights: Any, rows: Callable | None, validation: RowSplit | None = None,
                count_weights: bool = True, reweight: Callable | None = None, compact: bool = False) -> RowBlock:
    """Binarize and pack one partition (its kept rows) into a RowBlock (unweighted when not
    ``count_weights``: the rows of positive weight, one each; ``compact``: as it is kept
    between passes, see :func:`_compact`)."""
    if reweight is not None:
        weights = reweight(number, np.asarray(labels), None if weights is None else np.asarray(weights, np.float64))
    part, (labels,), weights = partition_rows(number, part, (labels,), rows, weights)
    n = len(part)
    if binarizer is None:
        bits = _pack_boolean(np.asarray(part), names, number)
    else:
        bits = binarizer.transform_packed(part) if n else np.zeros((len(names), 0), dtype=np.uint64)
    return packed_block(bits, n, labels, weights if count_weights else None, n_classes, number, validation, compact)


def packed_block(bits: np.ndarray, n: int, labels: Any, weights: np.ndarray | None, n_classes: int, number: int,
                 validation: RowSplit | None = None, compact: bool = False) -> RowBlock:
    """The RowBlock of partition ``number``'s packed ``bits`` (its ``n`` kept rows), their labels
    and weights: with ``validation``, class ``label + K`` for a validation row (``n_classes =
    2K``); ``compact``: as kept between passes (:func:`_compact`)."""
    if validation is not None:
        labels = np.asarray(labels).astype(np.intp) + (n_classes // 2) * validation.validation(number, n)
    labels, weights = _check_rows(labels, weights, n, n_classes)
    block = RowBlock(bits, n, labels, weights, n_classes)
    return _compact(block) if compact else block


def _compact(block: RowBlock) -> RowBlock:
    """A block as it is kept between passes: its labels in one byte each (up to 256 classes),
    not eight. The task that packs a kept block compacts it too, so that no block with eight
    bytes a label waits for a task of its own (fast packing runs ahead of it)."""
    if block.n_classes > 256:
        return block
    return dataclasses.replace(block, labels=block.labels.astype(np.uint8))


def expand_block(block: RowBlock) -> RowBlock:
    """A block of :meth:`DaskCounts._block_tasks` as the kernels read it: a kept block's labels
    as intp again. Called inside the task that reads the block, so that the eight-byte labels
    live for that task only (a task of its own would keep them until its readers ran, and fast
    tasks run ahead of their readers)."""
    return dataclasses.replace(block, labels=block.labels.astype(np.intp, copy=False))


def _apply(kernel: Callable[[RowBlock], Any], block: RowBlock) -> Any:
    return kernel(expand_block(block)) if block.n_rows else None


def _apply_each(kernels: tuple[Callable[[RowBlock], Any], ...], block: RowBlock) -> tuple | None:
    if not block.n_rows:
        return None
    block = expand_block(block)
    return tuple(kernel(block) for kernel in kernels)


class DaskCounts(Counts):
    """:class:`~logicrules.fca.counts.Counts` over the partitions of a dask collection.

    Parameters
    ----------
    X : dask.dataframe.DataFrame or 2-D dask.array.Array
        Raw rows (binarized partition by partition by ``binarizer``), or 0/1 rows when
        ``binarizer`` is None.
    labels : dask Series or 1-D dask Array
        Class index of every row (int in ``0 .. n_classes - 1``, or bool), partitioned like X;
        e.g. ``y == positive_label``, built lazily.
    binarizer : fitted binarizer with ``transform_packed`` and ``conditions_``, optional
        None: X holds 0/1 values already.
    weights : dask Series or 1-D dask Array, optional
        Row weights (``sample_weight``), partitioned like X; rows of weight 0 are left out
        (before ``rows`` and ``validation`` select among the others).
    n_classes : int, default 2
    attributes : sequence of str, optional
        Attribute names; default the binarizer's condition names, or X's column names
        (``x0, x1, ...`` for an array) without a binarizer.
    rows : callable ``(partition number, n_rows) -> bool mask``, optional
        Keep only these rows of each partition (e.g. a :class:`RowSplit`); picklable.
    validation : RowSplit, optional
        Count a K-class target as 2K classes, ``label + K * (validation row)``: the training
        and the validation part of the split in the same passes (``n_classes=2K``).
    verbose : int, default 0
        1 or more: one line on stderr per pass (what was counted, partitions, seconds).
    reweight : callable ``(partition number, labels, weights or None) -> weights``, optional
        The row weights of each partition from its labels and ``weights``, applied first (the
        counts are then weighted): e.g. error costs per class, or weight 0 outside the training
        rows of a cross-validation fold; picklable.
    persist : bool, optional
        Keep every partition's packed rows (its :class:`~logicrules.fca.counts.RowBlock`: bits,
        labels, weights) where it was computed, from the first pass on (``dask.persist``), so
        that later passes read those bits instead of producing and binarizing the partitions
        again. Default (None): the dask config value ``"logicrules.persist-bits"`` when set,
        else True when a ``distributed`` Client runs the passes (the bits are spread over its
        workers) and False with a local scheduler (the bits of every partition would all be
        held by this process).
    sketches : Sketches, optional
        The partitions' sketches kept by the binarizer's radix pass
        (:class:`~logicrules.fca.dask_sketch.SketchKeeper`): with ``persist``, and when they cover
        every attribute of ``binarizer`` (:meth:`~logicrules.fca.dask_sketch.Sketches.plan`), the
        first pass packs the blocks from them instead of producing the partitions, then lets go
        of them. Not with ``rows`` or ``reweight``.

    Notes
    -----
    Without ``persist`` every pass reads and binarizes the partitions again (``persist()`` the
    collection first when it is expensive to produce); the result of each count is kept, so
    asking the same count twice makes one pass (dask collections do not change). Memory: a
    worker holds one partition, its binarization (one bit per row and attribute, plus the
    binarizer's chunk of booleans) and one partial count; with ``persist`` the workers also
    keep their partitions' bits, ``n_attributes * n_rows / 8`` bytes over all workers (plus the
    labels, one byte per row, and the weights, eight); the driver holds the partial counts of
    a reduction.
    """

    def __init__(self, X: Any, labels: Any, binarizer: Any = None, weights: Any = None,
                 n_classes: int = 2, attributes: Sequence[str] | None = None,
                 rows: Callable[[int, int], np.ndarray] | None = None, verbose: int = 0,
                 validation: RowSplit | None = None, reweight: Callable | None = None,
                 persist: bool | None = None, sketches: Any = None) -> None:
        if attributes is None:
            if binarizer is not None:
                attributes = [c.name for c in binarizer.conditions_]
            elif hasattr(X, "columns"):
                attributes = [str(c) for c in X.columns]
            else:
                attributes = [f"x{j}" for j in range(int(X.shape[1]))]
        super().__init__(attributes, n_classes)
        if binarizer is not None and not hasattr(binarizer, "transform_packed"):
            raise TypeError(f"the binarizer of dask counts must offer transform_packed (the library's "
                            f"binarizers do), got {type(binarizer).__name__}")
        self._parts = dask_partitions(X, labels, weights)
        self._binarizer = binarizer
        self._weighted = weights is not None or reweight is not None
        self._reweight = reweight
        self._count_weights = True
        self._rows = rows
        self._validation = validation
        self.verbose = verbose
        self.n_passes = 0
        self._cache: dict[Any, Any] = {}
        self._followers: list[tuple[DaskCounts, Callable]] = []
        self._persist = persist
        self._kept: list[Any] | None = None  # the persisted blocks, once computed
        self._sketches = sketches if rows is None and reweight is None and binarizer is not None else None

    @property
    def weighted(self) -> bool:
        return self._weighted and self._count_weights

    def unweighted(self) -> DaskCounts:
        """The same rows (those of positive weight) counted one each, e.g. for the rule
        statistics the in-memory fit counts in rows (``rules_``); its own cache of counts."""
        twin = copy.copy(self)
        twin._count_weights, twin._cache, twin.n_passes, twin._followers, twin._kept = False, {}, 0, [], None
        twin._sketches = None
        return twin

    def release(self) -> None:
        """Let go of the persisted blocks (see ``persist``): the workers free them, and a later
        pass produces and packs the partitions again. The counts kept stay."""
        self._kept = None

    @property
    def n_partitions(self) -> int:
        """Number of row partitions."""
        return len(self._parts)

    def _block_tasks(self) -> list[Any]:
        """The partitions' delayed RowBlocks: persisted ones (see ``persist``) from the first
        pass on, computed where they are kept while that pass's kernels wait for them. A kept
        block holds its labels in one byte each: readers take it through :func:`expand_block`."""
        import dask

        if self._kept is not None:
            return self._kept
        persisting = _persisting(self._persist)
        sketches, self._sketches = self._sketches, None  # read once: the workers free them once the blocks are kept
        plan = sketches.plan(self._binarizer) if persisting and sketches is not None else None
        if plan is not None:
            tasks = sketches.blocks(plan, self.n_classes, self._validation, self._count_weights, persisting)
        else:
            binarizer = dask.delayed(self._binarizer)  # one key in the graph, not one copy per task
            make = dask.delayed(_make_block, pure=True)
            tasks = [make(binarizer, self.attributes, self.n_classes, number, part, labels, weights, self._rows,
                          self._validation, self._count_weights, self._reweight, persisting)
                     for number, (part, labels, weights) in enumerate(self._parts)]
        if persisting:
            self._kept = list(dask.persist(*tasks))
            return self._kept
        return tasks

    def lazy(self, kernel: Callable[[RowBlock], Any], blocks: list[Any] | None = None) -> Any:
        """The delayed tree sum of ``kernel`` over the partitions (``blocks``: the partitions'
        delayed RowBlocks, to share them among several kernels computed in one pass)."""
        import dask

        apply = dask.delayed(_apply, pure=True)
        return tree_sum([apply(kernel, block) for block in (blocks or self._block_tasks())])

    def _reduce(self, kernel: Callable[[RowBlock], Any]) -> Any:
        key = _kernel_key(kernel)
        if key not in self._cache:
            self._compute({key: kernel}, _kernel_name(kernel))
        value = self._cache[key]
        return value.copy() if isinstance(value, np.ndarray) else value  # callers may write to it

    def _compute(self, kernels: dict[Any, Callable], what: str, also: Sequence[DaskCounts] = ()) -> None:
        """One pass: every kernel on this object's and on ``also``'s rows, results cached."""
        self._run([(counts, key, kernel) for counts in (self, *also) for key, kernel in kernels.items()], what)

    def _run(self, jobs: Sequence[tuple[DaskCounts, Any, Callable]], what: str) -> None:
        """One pass: each ``(counts, key, kernel)`` job not cached yet on its counts' rows."""
        import dask

        start = time.perf_counter()
        jobs = [(counts, key, kernel) for counts, key, kernel in jobs if key not in counts._cache]
        if not jobs:
            return
        # one task per partition runs all of a counts' kernels, one tree sum adds their tuples:
        # the tasks of a pass grow with the partitions, not with partitions x kernels
        groups: dict[int, tuple[DaskCounts, dict[Any, Callable]]] = {}
        for counts, key, kernel in jobs:
            groups.setdefault(id(counts), (counts, {}))[1][key] = kernel
        apply = dask.delayed(_apply_each, pure=True)
        tasks = []
        for counts, kernels in groups.values():
            shared = dask.delayed(tuple(kernels.values()), pure=True)  # one key, not one copy per task
            tasks.append(tree_sum([apply(shared, block) for block in counts._block_tasks()], _add_each))
        for (counts, kernels), total in zip(groups.values(), dask.compute(*tasks)):
            for i, key in enumerate(kernels):
                counts._cache[key] = None if total is None else total[i]
        self.n_passes += 1
        pass_line(self.verbose, f"dask pass: {what} over {self.n_partitions} partitions",
                  time.perf_counter() - start)

    def follow(self, other: DaskCounts, columns_of: Callable[[tuple[int, ...]], Sequence[str] | None]) -> None:
        """Whenever type histograms of this object's columns are prefetched, count in the same
        pass those of ``columns_of(columns)`` on ``other`` (names of its attributes; None: none),
        e.g. the final binarization's histograms of the candidates a validation stage counts."""
        self._followers.append((other, columns_of))

    def prefetch(self, kernels: Sequence[Callable[[RowBlock], Any]], also: Sequence[DaskCounts] = ()) -> None:
        """Count several kernels (e.g. ``_class_totals``, ``_literal_counts`` of
        :mod:`~logicrules.fca.counts`) on these rows and on those of ``also`` in one pass; the
        counts that ask for them later read the result."""
        self._compute({_kernel_key(k): k for k in kernels}, ", ".join(_kernel_name(k) for k in kernels), also)

    def prefetch_type_histograms(self, column_sets: Sequence[Sequence[Any]],
                                 also: Sequence[DaskCounts] = ()) -> None:
        """Count the type histograms of several column sets, on these rows and on the rows of
        ``also`` (e.g. the validation part), in one pass, with those :meth:`follow` asks on
        other counts; later :meth:`type_histogram` calls of those columns read the result."""
        jobs = [(counts, *_histogram_kernel(self, columns)) for columns in column_sets for counts in (self, *also)]
        for other, columns_of in self._followers:
            for columns in column_sets:
                mapped = columns_of(tuple(int(c) for c in self.attribute_indices(columns)))
                if mapped is not None:
                    jobs.append((other, *_histogram_kernel(other, mapped)))
        self._run(jobs, f"{len(jobs)} type histograms")

    def _blocks(self) -> Iterator[RowBlock]:
        import dask

        for task in self._block_tasks():
            (block,) = dask.compute(task)
            if block.n_rows:
                yield expand_block(block)


def _persisting(persist: bool | None) -> bool:
    """Whether to persist the packed blocks (see :class:`DaskCounts`' ``persist``)."""
    import dask

    if persist is None:
        persist = dask.config.get("logicrules.persist-bits", None)
    if persist is None:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - distributed comes with the dask extra
            return False
        return isinstance(getattr(dask.base.get_scheduler(), "__self__", None), Client)
    return bool(persist)


def _histogram_kernel(counts: Counts, columns: Sequence[Any]) -> tuple[Any, Callable]:
    """The cache key and the kernel of the type histogram of ``columns`` of ``counts``."""
    index = counts.attribute_indices(columns)
    if index.size > MAX_TYPE_FEATURES:
        raise ValueError(f"a type histogram holds at most {MAX_TYPE_FEATURES} columns, got {index.size}")
    kernel = functools.partial(_type_histogram, columns=index)
    return _kernel_key(kernel), kernel


def _kernel_key(kernel: Callable) -> Any:
    """A hashable key of a kernel: the function and its keyword arguments (arrays as tuples)."""
    if not isinstance(kernel, functools.partial):
        return kernel
    frozen = tuple(sorted((k, (v.shape, tuple(v.ravel().tolist())) if isinstance(v, np.ndarray) else v)
                          for k, v in kernel.keywords.items()))
    return kernel.func, tuple(kernel.args), frozen


def _kernel_name(kernel: Callable) -> str:
    func = kernel.func if isinstance(kernel, functools.partial) else kernel
    return getattr(func, "__name__", type(func).__name__).strip("_").replace("_", " ")

