"""The result list of the premise search over counts, and its distinct extents.

The search over counts (:mod:`~logicrules.fca.premise.from_counts`) knows a premise by its counts
only: :class:`_Groups` keeps the best ``k`` *count classes* (premises with equal counts
together), which keeps the threshold, and so the pruning, exact; :class:`_DistinctExtents`
tells the members of a group apart at the end (for ``top_k > 1``) with one pass of cell counts
over the union of their attributes.
"""

from __future__ import annotations

import numpy as np

from logicrules.fca.premise.results import PremiseResult
from logicrules.fca.premise.space import pair_shapes, triple_shapes

__all__: list[str] = []


class _Groups:
    """The best ``k`` *count classes* seen: premises with equal ``(tp, fp)`` kept together.

    Equal extents have equal counts, so each group holds at least one distinct extent: the
    threshold (the k-th best group's score) is at most the k-th best distinct extent's, and
    pruning with it stays exact. Members of a group are kept smallest first (all of them only
    when ``top_k > 1`` asks for distinct extents; :meth:`_CountsSearch.resolve` splits them).
    """

    def __init__(self, k: int, tolerance: float):
        self.k = k
        self.tolerance = tolerance
        self.groups: list[list] = []       # [score, size, tp, fp, members [(size, spec, score)]]

    def threshold(self) -> float:
        return -np.inf if len(self.groups) < self.k else min(g[0] for g in self.groups)

    def _find(self, tp: float, fp: float) -> list | None:
        for g in self.groups:
            if abs(g[2] - tp) <= self.tolerance and abs(g[3] - fp) <= self.tolerance:
                return g
        return None

    def offer(self, scores: np.ndarray, sizes: np.ndarray, tp: np.ndarray, fp: np.ndarray, specs_of) -> None:
        """Offer candidates (flat arrays), best first in growing batches (``specs_of(indices)``)."""
        scores = np.asarray(scores).ravel()
        sizes = np.broadcast_to(np.asarray(sizes), scores.shape)
        idx = np.flatnonzero(scores > self.threshold())
        if not len(idx):
            return
        order = idx[np.lexsort((sizes[idx], -scores[idx]))]
        start, batch = 0, 4 * self.k + 8
        while start < len(order) and scores[order[start]] > self.threshold():
            chunk = order[start:start + batch]
            for i, spec in zip(chunk, specs_of(chunk)):
                score = float(scores[i])
                if score <= self.threshold():
                    break
                self._add(score, int(sizes[i]), tp[i].item(), fp[i].item(), spec)
            start += len(chunk)
            batch *= 2

    def _add(self, score, size, tp, fp, spec) -> None:
        group = self._find(tp, fp)
        if group is not None:
            if self.k > 1:
                group[4].append((size, spec, score))
            elif size < group[1]:
                group[4] = [(size, spec, score)]
            group[1] = min(group[1], size)
            group[0] = max(group[0], score)
            return
        self.groups.append([score, size, tp, fp, [(size, spec, score)]])
        if len(self.groups) > self.k:
            worst = min(range(len(self.groups)), key=lambda j: (self.groups[j][0], -self.groups[j][1]))
            del self.groups[worst]


class _DistinctExtents:
    """The ``top_k`` best distinct extents of a search over counts (a mixin of ``_CountsSearch``)."""

    def _spec_cells(self, spec: tuple) -> tuple[tuple[int, ...], int]:
        """Representatives of a premise spec and its cell mask over them (first = most significant)."""
        kind = spec[0]
        if kind == "lit":
            return (spec[1],), 0b01 if spec[2] else 0b10
        if kind == "const":
            return (spec[2],), 0b11 if spec[1] else 0
        if kind == "f2":
            return (spec[1], spec[2]), pair_shapes(self.negations, self.connectives)[spec[3]].mask
        if kind == "f3":
            return tuple(spec[1:4]), triple_shapes(self.negations, self.connectives)[spec[4]].mask
        return spec[1], spec[2].mask

    def _same_extents(self, pairs: list[tuple[tuple, tuple]]) -> np.ndarray:
        """Whether each pair of premise specs has the same extent (one pass of cell counts)."""
        parts = []
        for s1, s2 in pairs:
            (v1, m1), (v2, m2) = self._spec_cells(s1), self._spec_cells(s2)
            parts.append((sorted(set(v1) | set(v2)), v1, m1, v2, m2))
        width = max(len(p[0]) for p in parts)
        combos = np.array([u + [u[0]] * (width - len(u)) for u, *_ in parts], dtype=np.int64)
        cells_p, cells_n = self._cells(combos)
        occupied = (cells_p > self.tolerance) | (cells_n > self.tolerance)
        cell = np.arange(1 << width)
        out = np.zeros(len(parts), dtype=bool)
        for i, (u, v1, m1, v2, m2) in enumerate(parts):
            values = [(cell >> (width - 1 - u.index(x))) & 1 for x in u]

            def holds(vs, mask):
                sub = np.zeros_like(cell)
                for j, x in enumerate(vs):
                    sub |= values[u.index(x)] << (len(vs) - 1 - j)
                return (mask >> sub) & 1

            out[i] = not (occupied[i] & (holds(v1, m1) != holds(v2, m2))).any()
        return out

    def resolve(self) -> list[tuple]:
        """The ``top_k`` best distinct extents: (score, size, tp, fp, spec), best first."""
        groups = sorted(self.top.groups, key=lambda g: (-g[0], g[1]))
        pending = [sorted(g[4], key=lambda m: m[0]) for g in groups]
        found: list[list] = [[] for _ in groups]
        while True:
            total, need = 0, []
            for i, g in enumerate(groups):
                if total >= self.top_k:
                    break
                total += len(found[i])
                if len(pending[i]) == 1:
                    found[i].append(pending[i].pop())
                    total += 1
                elif pending[i]:
                    need.append(i)
                    total += 1
            if not need:
                break
            pairs = [(pending[i][0][1], other[1]) for i in need for other in pending[i][1:]]
            same = iter(self._same_extents(pairs))
            for i in need:
                first, rest = pending[i][0], pending[i][1:]
                found[i].append(first)
                pending[i] = [o for o in rest if not next(same)]
        out = [(score, size, g[2], g[3], spec) for g, f in zip(groups, found) for size, spec, score in f]
        out.sort(key=lambda e: (-e[0], e[1]))
        return out[:self.top_k]

    def results(self) -> list[PremiseResult]:
        if self.top_k == 1:
            entries = [(g[4][0][2], g[4][0][0], g[2], g[3], g[4][0][1]) for g in self.top.groups]
        else:
            entries = self.resolve()
        return [PremiseResult(formula=self.builder.build(spec), score=float(score), tp=tp, fp=fp,
                              fn=self.n_pos - tp, tn=self.n_neg - fp, size=int(size))
                for score, size, tp, fp, spec in entries]
