"""What the partitions compute for the clause LP on dask data: one scan of their rows per pass.

The OR-clause LP (19) reads its constraint rows (the rows of the *firing* class, complemented
for the De Morgan problem of a conjunction) only through sums over rows, so each step of
:mod:`logicrules.lp.dask_clause` is a *request* that every partition answers from its own rows
and whose answers add up: a row sample, the extension of a sampled dual, the rows a candidate
solution leaves uncovered (merged into distinct patterns over the working columns, with their
counts), the load of a dual on every column, threshold counts for rounding, the open counts of
a greedy cover. Several requests share one pass: :func:`run_pass` binarizes and packs each
partition once (:class:`~logicrules.fca.dask_counts.DaskCounts`), unpacks its constraint rows
in chunks of :data:`CHUNK_ROWS` and hands every chunk to every request; the partial answers are
tree-summed and only the sums reach the driver, in one ``compute``.

The row sample is drawn where the rows live: row ``i`` of partition ``p`` is sampled when
``numpy.random.default_rng([seed, p]).random(n_p)[i] < fraction`` and it is a constraint row,
so every pass of a fit sees the same sample without the sample ever being stored.

Weighted rows (``sample_weight``, the partition's :class:`~logicrules.fca.counts.RowBlock`
weights) enter every answer through their weights, exactly as the in-memory LP merges
identical rows into one of their summed weight: merged patterns carry summed weights, slacks,
uncovered rows and threshold counts are weighted sums, a pattern's dual is spread over its rows
in proportion to their weights. Without weights every row weighs 1 and all counts are exact
integers.

Memory per partition: its packed bits, one chunk of constraint rows (one byte per cell) and the
distinct rows a request keeps (the unseen rows of the dual extension, the uncovered rows of a
scan), each at most the partition's constraint rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logicrules.fca import bitset
from logicrules.fca.count_kernels import _class_totals, _literal_counts
from logicrules.fca.counts import RowBlock, RowMultiset
from logicrules.fca.dask_counts import expand_block, tree_sum
from logicrules.lp.model import GroupTestingProblem, matvec, rmatvec, row_counts, row_max
from logicrules.lp.screening import greedy_fill
from logicrules.progress import pass_line

__all__ = ["CHUNK_ROWS", "ClauseRows", "Sums", "Totals", "TermCounts", "term_fires", "SampleRows", "ExtendDual", "ScanRows", "OpenCounts",
           "row_keys", "lookup", "run_pass"]

#: Rows of a partition unpacked at once (a multiple of 64): one byte per cell of each.
CHUNK_ROWS = 1 << 15
#: Coverage below ``1 - COVER_TOL`` leaves a row (partly) uncovered, as in the in-memory LP.
COVER_TOL = 1e-9


class Sums(dict):
    """Named partial results that add up key by key (arrays, counts, row multisets, nested Sums)."""

    def __add__(self, other: Sums) -> Sums:
        out = Sums(self)
        for key, value in other.items():
            out[key] = value if key not in out or out[key] is None else (
                out[key] if value is None else out[key] + value)
        return out


@dataclass(frozen=True)
class ClauseRows:
    """Which rows are the constraint rows of the clause LP, and how they read.

    ``firing``: the class the OR-clause must fire on (1 for an OR-rule, 0 for the De Morgan
    problem of a conjunction); ``complement``: read rows and literals complemented (a
    conjunction's problem). ``sample``: ``(seed, fraction)`` of the row sample, or None.
    """

    firing: int
    complement: bool
    sample: tuple[int, float] | None = None


def row_keys(rows: np.ndarray) -> np.ndarray:
    """One opaque key per row of a bool matrix (its packed bytes), comparable and sortable."""
    packed = np.packbits(rows, axis=1, bitorder="little")
    if packed.shape[1] == 0:  # no columns: every row is the same (empty) pattern
        return np.zeros(rows.shape[0], dtype=np.dtype((np.void, 1)))
    return np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()


def lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Position of each key in ``sorted_keys`` (sorted, distinct), -1 where it is absent."""
    if sorted_keys.size == 0:
        return np.full(keys.size, -1, dtype=np.intp)
    at = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return np.where(sorted_keys[at] == keys, at, -1)


def _collect(parts: list[RowMultiset], rows: np.ndarray, weights: np.ndarray | None = None) -> list[RowMultiset]:
    """Add a chunk's rows (with their weights), merged, to a partition's list (merged once at its
    end, :func:`_merge`)."""
    if rows.shape[0]:
        parts.append(RowMultiset.from_dense(rows, weights))
    return parts


def _sum_of(weights: np.ndarray | None, mask: np.ndarray) -> float | int:
    """The weight of the rows of a chunk where ``mask`` holds (their number without weights)."""
    return int(np.count_nonzero(mask)) if weights is None else float(weights[mask].sum())


def _mask_weight(block: RowBlock, mask: np.ndarray) -> float | int:
    """The weight of the rows of packed ``mask`` (their number without weights)."""
    if block.weights is None:
        return int(bitset.popcount(mask))
    return float(block.weights[bitset.unpack(mask, block.n_rows)].sum())


def _masked_counts(block: RowBlock, mask: np.ndarray) -> tuple[float | int, np.ndarray]:
    """The weight of the rows of packed ``mask`` and the per-literal weight on them (popcounts
    without weights; a weighted sum over the unpacked rows, chunk by chunk, with them)."""
    if block.weights is None:
        return _mask_weight(block, mask), bitset.popcount(block.bits & mask[None, :])
    w = np.where(bitset.unpack(mask, block.n_rows), block.weights, 0.0)
    counts = np.zeros(block.n_attributes)
    for start in range(0, block.n_rows, CHUNK_ROWS):
        stop = min(block.n_rows, start + CHUNK_ROWS)
        counts += rmatvec(block.dense(start, stop), w[start:stop])
    return float(w.sum()), counts


def _merge(parts: list[RowMultiset], m: int) -> RowMultiset:
    """The distinct rows of a partition's chunks with their counts, merged in one sort."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return RowMultiset.from_dense(np.zeros((0, m), dtype=bool))
    return RowMultiset._merge(np.concatenate([p.packed for p in parts]), np.concatenate([p.weights for p in parts]), m)


def _below(reach: np.ndarray, thresholds: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """How many rows (how much weight) have ``reach < t`` for each threshold t."""
    if weights is None:
        return np.searchsorted(np.sort(reach), thresholds, side="left").astype(np.int64)
    order = np.argsort(reach, kind="stable")
    cumulative = np.concatenate([[0.0], np.cumsum(weights[order])])
    return cumulative[np.searchsorted(reach[order], thresholds, side="left")]


# ------------------------------------------------------------------------------ requests
class _Request:
    """A question every partition answers from its constraint rows (see the module notes)."""

    needs_sample = False
    what = "counts"

    def begin(self, number: int, block: RowBlock) -> dict:
        return {}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        """Read one chunk of constraint rows (bool, all columns), which of them are sampled and
        their weights (None: one each)."""

    def end(self, number: int, acc: dict) -> Sums:
        return Sums(acc)


def term_fires(block: RowBlock, term: np.ndarray, negated: bool) -> np.ndarray:
    """Packed rows of a block on which every column of ``term`` holds (of the complemented
    columns when ``negated``): where a sequential-covering term fires (bits past the rows may
    be set; callers mask them with class bits)."""
    if len(term) == 0:
        return np.full(block.bits.shape[1], np.uint64(0xFFFFFFFFFFFFFFFF))
    words = block.bits[np.asarray(term, dtype=np.intp)]
    return np.bitwise_and.reduce(~words if negated else words, axis=0)


def _fired(block: RowBlock, terms: list[np.ndarray], negated: bool) -> np.ndarray:
    out = np.zeros(block.bits.shape[1], dtype=np.uint64)
    for term in terms:
        out |= term_fires(block, term, negated)
    return out


@dataclass
class Totals(_Request):
    """Rows per class (weighted: ``totals``; in rows: ``rows``) and per-class literal counts,
    and the literal counts over the rows of
    class ``other`` that no term of ``terms`` fires on (``rest``; all of them without terms):
    the column costs of a clause, also of a step of sequential covering."""

    other: int = 0
    terms: list[np.ndarray] = field(default_factory=list)
    negated: bool = False

    what = "class totals and literal counts"

    def begin(self, number: int, block: RowBlock) -> dict:
        rest_total, rest = _masked_counts(block, block.class_bits()[self.other] & ~_fired(block, self.terms,
                                                                                              self.negated))
        return {"totals": _class_totals(block), "rows": np.bincount(block.labels, minlength=block.n_classes),
                "literals": _literal_counts(block), "rest_total": rest_total, "rest": rest}


@dataclass
class TermCounts(_Request):
    """A new term of sequential covering against the terms before it: the rows of class
    ``other`` it newly fires on (``tp``), the rows of the other class it fires on that no
    earlier term does (``fp``), and the costs of the next step should it be kept (the
    :class:`Totals` ``rest`` with it)."""

    other: int
    terms: list[np.ndarray]
    term: np.ndarray
    negated: bool

    what = "term counts"

    def begin(self, number: int, block: RowBlock) -> dict:
        classes = block.class_bits()
        earlier = _fired(block, self.terms, self.negated)
        new = term_fires(block, self.term, self.negated) & ~earlier
        rest_total, rest = _masked_counts(block, classes[self.other] & ~earlier & ~new)
        return {"tp": _mask_weight(block, classes[self.other] & new),
                "fp": _mask_weight(block, classes[1 - self.other] & new), "rest_total": rest_total, "rest": rest}


@dataclass
class SampleRows(_Request):
    """The sampled constraint rows, merged, and the unseen constraint rows of each partition."""

    what = "row sample"

    n_partitions: int
    needs_sample = True

    def begin(self, number: int, block: RowBlock) -> dict:
        return {"rows": [], "unseen": 0, "m": block.n_attributes}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        _collect(acc["rows"], rows[sampled], None if weights is None else weights[sampled])
        acc["unseen"] += int((~sampled).sum())

    def end(self, number: int, acc: dict) -> Sums:
        unseen = np.zeros(self.n_partitions, dtype=np.int64)
        unseen[number] = acc["unseen"]
        return Sums(rows=_merge(acc["rows"], acc["m"]), unseen=unseen)


@dataclass
class ExtendDual(_Request):
    """Extend a sampled dual over the unseen rows of each partition, and evaluate the sample's
    solution and some integral rules on all rows.

    Partition ``p`` raises the dual of its unseen rows (each at most ``c_pos`` times its weight)
    greedily within ``share[p]`` of the columns' slack (the shares sum to at most one, so the summed dual stays feasible): first
    H1 (a whole pattern at once, in their sorted order; H2 skips the rows the sample's primal
    covers more than once), then a fractional pass, sparsest rows first. Answers the dual's sum
    and its load on every column, the LP slack of ``w`` over all rows, the rows below each
    threshold of ``w`` (for rounding) and the rows each rule of ``rules`` leaves uncovered (all
    weighted, in rows: not times ``c_pos``).
    """

    what = "dual extension"

    slack: np.ndarray
    share: np.ndarray
    heuristic: str
    w: np.ndarray
    thresholds: np.ndarray
    rules: list[np.ndarray] = field(default_factory=list)
    c_pos: float = 1.0
    needs_sample = True

    def begin(self, number: int, block: RowBlock) -> dict:
        dtype = np.int64 if block.weights is None else np.float64
        return {"unseen": [], "xi": 0.0, "below": np.zeros(self.thresholds.size, dtype=dtype),
                "uncovered": np.zeros(len(self.rules), dtype=dtype)}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        slack = np.maximum(0.0, 1.0 - matvec(rows, self.w))
        acc["xi"] += float(slack.sum() if weights is None else slack @ weights)
        acc["below"] += _below(row_max(rows, self.w), self.thresholds, weights)
        for k, columns in enumerate(self.rules):
            acc["uncovered"][k] += _sum_of(weights, ~rows[:, columns].any(axis=1))
        _collect(acc["unseen"], rows[~sampled], None if weights is None else weights[~sampled])

    def end(self, number: int, acc: dict) -> Sums:
        m = self.slack.size
        unseen = _merge(acc.pop("unseen"), m)
        if unseen.n_rows == 0 or self.share[number] <= 0:
            return Sums(acc, mu=0.0, load=np.zeros(m))
        rows = unseen.to_dense()
        weights = unseen.weights.astype(np.float64)
        local = GroupTestingProblem(rows, self.slack * self.share[number], np.zeros(m), 0.0, self.c_pos, 1.0, weights)
        mu = np.zeros(rows.shape[0])
        order = np.arange(rows.shape[0])
        if self.heuristic == "H2":
            order = order[matvec(rows, self.w) <= 1.0 + COVER_TOL]
        mu = greedy_fill(local, mu, order, fractional=False)
        mu = greedy_fill(local, mu, np.argsort(row_counts(rows), kind="stable"), fractional=True)
        return Sums(acc, mu=float(mu.sum()), load=rmatvec(rows, mu))


@dataclass
class ScanRows(_Request):
    """Check a solution of the reduced problem (working columns ``columns``, weights ``w`` on
    them) against every constraint row.

    Answers the distinct patterns over the working columns of the rows it leaves uncovered,
    with their counts (``rows``), joined by the rows whose pattern over the working positions
    ``seed_positions`` is one of ``seed_keys`` (a row set carried over from fewer columns);
    the LP slack over all rows (``xi``); with ``thresholds``, the rows below each threshold of
    w (rounding); with ``dual_keys`` / ``dual_values`` (the dual of each pattern of the reduced
    problem per unit of its weight, 0 for other rows), the dual's load on every column
    (``load``: pricing). Slack and counts are weighted, in rows (not times ``c_pos``).
    """

    what = "row generation"

    columns: np.ndarray
    w: np.ndarray
    seed_positions: np.ndarray | None = None
    seed_keys: np.ndarray | None = None
    dual_keys: np.ndarray | None = None
    dual_values: np.ndarray | None = None
    thresholds: np.ndarray | None = None
    n_columns: int = 0

    def begin(self, number: int, block: RowBlock) -> dict:
        acc = {"rows": [], "xi": 0.0}
        if self.thresholds is not None:
            acc["below"] = np.zeros(self.thresholds.size, dtype=np.int64 if block.weights is None else np.float64)
        if self.dual_keys is not None:
            acc["load"] = np.zeros(self.n_columns)
        return acc

    def end(self, number: int, acc: dict) -> Sums:
        return Sums(acc, rows=_merge(acc["rows"], self.columns.size))

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        working = np.ascontiguousarray(rows[:, self.columns])
        coverage = matvec(working, self.w)
        slack = np.maximum(0.0, 1.0 - coverage)
        acc["xi"] += float(slack.sum() if weights is None else slack @ weights)
        keep = coverage < 1.0 - COVER_TOL
        if self.seed_keys is not None:
            keep |= lookup(self.seed_keys, row_keys(working[:, self.seed_positions])) >= 0
        _collect(acc["rows"], working[keep], None if weights is None else weights[keep])
        if self.thresholds is not None:
            acc["below"] += _below(row_max(working, self.w), self.thresholds, weights)
        if self.dual_keys is not None:
            at = lookup(self.dual_keys, row_keys(working))
            u = np.where(at >= 0, self.dual_values[np.maximum(at, 0)], 0.0)
            acc["load"] += rmatvec(rows, u if weights is None else u * weights)


@dataclass
class OpenCounts(_Request):
    """For a greedy cover: the constraint rows no column of ``chosen`` holds on, per column
    (``open``) and in all (``uncovered``); weighted, in rows."""

    what = "greedy cover"

    chosen: np.ndarray
    n_columns: int

    def begin(self, number: int, block: RowBlock) -> dict:
        return {"open": np.zeros(self.n_columns, dtype=np.int64 if block.weights is None else np.float64),
                "uncovered": 0}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        open_mask = ~rows[:, self.chosen].any(axis=1)
        open_rows = rows[open_mask]
        if weights is None:
            acc["open"] += np.count_nonzero(open_rows, axis=0)
        else:
            acc["open"] += rmatvec(open_rows, weights[open_mask])
        acc["uncovered"] += _sum_of(weights, open_mask)


# ------------------------------------------------------------------------------- the pass
def _answer(number: int, block: RowBlock, view: ClauseRows, requests: list[_Request]) -> Sums:
    """Every request's answer from one partition (its packed rows), chunk by chunk."""
    block = expand_block(block)
    accs = [request.begin(number, block) for request in requests]
    n = block.n_rows
    sampled_all = None
    if view.sample is not None and any(r.needs_sample for r in requests):
        seed, fraction = view.sample
        sampled_all = np.random.default_rng([seed, number]).random(n) < fraction
    chunked = [k for k, r in enumerate(requests) if type(r).chunk is not _Request.chunk]
    for start in range(0, n if chunked else 0, CHUNK_ROWS):
        stop = min(n, start + CHUNK_ROWS)
        firing = np.flatnonzero(block.labels[start:stop] == view.firing)
        if firing.size == 0:
            continue
        rows = block.dense(start, stop)[firing]
        if view.complement:
            np.logical_not(rows, out=rows)
        sampled = None if sampled_all is None else sampled_all[start + firing]
        weights = None if block.weights is None else block.weights[start + firing]
        for k in chunked:
            requests[k].chunk(accs[k], rows, sampled, weights)
    return Sums({k: request.end(number, acc) for k, (request, acc) in enumerate(zip(requests, accs))})


def run_pass(counts: Any, view: ClauseRows, requests: list[_Request], what: str) -> list[Sums]:
    """One pass over the partitions of a :class:`~logicrules.fca.dask_counts.DaskCounts`: every
    request answered by every partition, the answers tree-summed (one ``compute``)."""
    import dask

    start = time.perf_counter()
    answer = dask.delayed(_answer, pure=True)
    shared = dask.delayed(requests)  # one key in the graph, not one copy per task
    view_task = dask.delayed(view)
    total = tree_sum([answer(number, block, view_task, shared) for number, block in enumerate(counts._block_tasks())])
    (result,) = dask.compute(total)
    counts.n_passes += 1
    pass_line(counts.verbose, f"dask pass: {what} over {counts.n_partitions} partitions", time.perf_counter() - start)
    result = result or Sums()
    return [result.get(k, Sums()) for k in range(len(requests))]
