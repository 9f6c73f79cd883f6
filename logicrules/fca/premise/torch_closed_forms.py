"""Closed forms of the best premise over weighted cells, vectorized with torch (the numba ones' counterparts).

Each function takes the cells of many attribute combinations at once (cell axes first, a batch
axis last) and computes, as tensor operations, what :mod:`~logicrules.fca.premise.closed_forms`
computes per combination in compiled loops, in the same order of operations.
"""

from __future__ import annotations

__all__: list[str] = []


def _mobius_(F, n_vars: int) -> None:
    """In place over the leading ``n_vars`` axes of size 2: intersection weights -> cell weights.

    Same order of operations as numba's ``_mobius`` (the last variable first).
    """
    for axis in reversed(range(n_vars)):
        F.select(axis, 0).sub_(F.select(axis, 1))


def _best_negations3(torch, G):
    """Vectorized ``_best_negations``: ``G`` (2, 2, 2, *batch), cell axes ``(va, vb, vc)``."""
    best = tot = None
    for axis in range(3):
        others = tuple(d for d in range(3) if d != axis)
        s = G.sum(dim=others)
        lo = G.amin(dim=others)
        hi = G.amax(dim=others)
        if tot is None:
            tot = s[0] + s[1]
            best = torch.maximum(hi.amax(0), tot - lo.amin(0))
        s0 = s[0]
        s1 = tot - s0
        split = torch.maximum(torch.maximum(s0 - lo[0], s1 - lo[1]), torch.maximum(s0 + hi[1], s1 + hi[0]))
        best = torch.maximum(best, split)
        del s, lo, hi, s0, s1, split             # free before the next split's reductions
    return best


def _best_positive3(torch, G):
    """Vectorized ``_best_positive``: ``G`` (2, 2, 2, *batch)."""
    w0, w1, w2, w3, w4, w5, w6, w7 = (G[k >> 2, (k >> 1) & 1, k & 1] for k in range(8))
    a_and = w5 + w6 + w7
    b_and = w3 + w6 + w7
    c_and = w3 + w5 + w7
    tot = w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7
    best = torch.maximum(w7, tot - w0)
    best = torch.maximum(best, torch.maximum(a_and, torch.maximum(b_and, c_and)))
    best = torch.maximum(best, torch.maximum(w4 + w5 + w6 + w7 + w3, w2 + w3 + w6 + w7 + w5))
    return torch.maximum(best, w1 + w3 + w5 + w7 + w6)


def _best3(torch, G, negations: bool, mode: int = 0):
    """Best formula of 3 literals over the cells ``G`` (2, 2, 2, *batch): every read-once one
    (``mode`` 0), conjunctions only (1: one cell) or disjunctions only (2: all cells but one)."""
    if mode == 0:
        return _best_negations3(torch, G) if negations else _best_positive3(torch, G)
    flat = G.reshape(8, *G.shape[3:])
    return _best_cells(torch, flat, negations, mode)


def _best_cells(torch, W, negations: bool, mode: int):
    """Best conjunction (``mode`` 1) or disjunction (2) of literals over cells ``W`` (2**k, *batch).

    A conjunction of one literal per variable holds on one cell (the all-true cell without
    negations), a disjunction on all cells but one (but the all-false cell without negations).
    """
    if mode == 1:
        return W.amax(0) if negations else W[-1]
    return W.sum(0) - (W.amin(0) if negations else W[0])


def _best_read_once4(torch, W, negations: bool, half, pair):
    """Vectorized ``best_read_once4``: ``W`` (16, N) cells, ``half`` (64,), ``pair`` (48,) long indices."""
    n = W.shape[1]
    tot = W.sum(0)
    H = W[half].view(4, 2, 2, 2, 2, n)                  # [x, value of x, 8 cells of the other three]
    b = _best3(torch, H.permute(2, 3, 4, 0, 1, 5), negations)          # (4, 2, N)
    s1 = H[:, 1].sum(dim=(1, 2, 3))
    if negations:
        s0 = tot - s1
        v = torch.maximum(torch.maximum(b[:, 1], b[:, 0]), torch.maximum(s1 + b[:, 0], s0 + b[:, 1]))
    else:
        v = torch.maximum(b[:, 1], s1 + b[:, 0])
    best = v.amax(0)
    del H, b, v
    P = W[pair].view(3, 4, 4, n)                        # [pairing, cell of (x, y), cell of (z, w)]
    if negations:
        R = P.sum(2, keepdim=True)
        C = P.sum(1, keepdim=True)
        mx = P.amax(dim=(1, 2))
        mn = P.amin(dim=(1, 2))
        for k in range(3):
            t = R - P if k == 0 else C - P if k == 1 else tot - R - C + P
            mx = torch.maximum(mx, t.amax(dim=(1, 2)))
            mn = torch.minimum(mn, t.amin(dim=(1, 2)))
            del t
        best = torch.maximum(best, torch.maximum(mx, tot - mn).amax(0))
    else:
        s_and11 = P[:, 3, 3]
        s_and13 = P[:, 3, 1] + P[:, 3, 2] + P[:, 3, 3]
        s_and31 = P[:, 1, 3] + P[:, 2, 3] + P[:, 3, 3]
        s_and33 = P[:, 1:, 1:].sum(dim=(1, 2))
        s_or11 = P[:, :3, :3].sum(dim=(1, 2))
        s_or33 = P[:, 0, 0]
        s_or13 = P[:, 0, 0] + P[:, 1, 0] + P[:, 2, 0]
        s_or31 = P[:, 0, 0] + P[:, 0, 1] + P[:, 0, 2]
        ands = torch.maximum(torch.maximum(s_and11, s_and13), torch.maximum(s_and31, s_and33))
        ors = torch.minimum(torch.minimum(s_or11, s_or33), torch.minimum(s_or13, s_or31))
        best = torch.maximum(best, torch.maximum(ands, tot - ors).amax(0))
    return best


def _suffix_min(torch, T):
    """``out[i, j] = min(T[i, j:])`` along the last axis."""
    return T.flip(-1).cummin(-1).values.flip(-1)
