"""Optional PyTorch backend (GPU) for the counting scans of the premise search.

The numba kernels of :mod:`logicrules.fca.search_kernels` count ``a AND b AND c (AND d)`` with
one popcount per attribute combination. On a GPU the same counts are matrix products of 0/1
matrices: for a fixed ``a``, ``|a AND b AND c|`` over all ``b, c`` is one GEMM ``(X * x_a) X^T``
(batched over blocks of ``a``), and for a pair ``(a, b)`` the 4-way counts over all ``c, d`` are
one GEMM of the rows where both hold. The truth-table cells, the closed forms of the best
formula and the linear test then run as a few tensor operations over whole blocks.
torch is optional: it is imported only when this backend is used, and never required.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from typing import Any

import numpy as np

__all__ = ["TorchCounter", "gpu_available", "torch_device"]

MAX_EXACT_ROWS = 2**24          # float32 accumulation of 0/1 products is exact up to this many rows
_QUAD_CANDIDATE_BYTES = 2048    # peak bytes per candidate quadruple in the closed form of size 4
_TRIPLE_BYTES = 192             # peak bytes per triple (a, b, c) in the size-3 closed form


def _import_torch():
    try:
        import torch
    except ImportError:
        raise ImportError("the PyTorch backend of the premise search needs torch: pip install torch") from None
    return torch


def _memory_error(message: str) -> Exception:
    from logicrules.fca.search import PremiseSearchMemoryError     # lazy: search may import this module

    return PremiseSearchMemoryError(message)


def _check_exact_rows(n_rows: int) -> None:
    """Raise ValueError when counts over ``n_rows`` rows are not exact in float32 accumulation."""
    if n_rows > MAX_EXACT_ROWS:
        raise ValueError(
            f"the torch backend counts rows with float32 accumulation, exact up to 2**24 = {MAX_EXACT_ROWS} "
            f"rows per class; got {n_rows}. Use the numba backend or subsample rows.")


def torch_device(device: Any = None) -> Any:
    """The torch device of a search: a CUDA device by default, or the one asked for.

    Parameters
    ----------
    device : None, str or torch.device
        None or ``"auto"``: ``"cuda"`` when torch is installed and a CUDA device is present (an
        error otherwise: the backend is never chosen silently on the CPU); ``"cpu"``, ``"cuda"``,
        ``"cuda:1"``, ...: that device.

    Returns
    -------
    torch.device

    Raises
    ------
    ImportError
        torch is not installed.
    RuntimeError
        A CUDA device is asked for (explicitly or by default) and none is present.
    ValueError
        Another device type (the scans need float64 and exact float32 GEMMs: CPU or CUDA).

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> torch_device("cpu")
    device(type='cpu')
    """
    torch = _import_torch()
    if device is None or (isinstance(device, str) and device.strip().lower() == "auto"):
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device is present for the torch backend; pass device='cpu' to run it "
                               "on the CPU (the numba backend is faster there)")
        return torch.device("cuda")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"not a torch device: {device!r} ({exc})") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError(f"device {str(dev)!r} asked for, but no CUDA device is present "
                               "(torch.cuda.is_available() is False)")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise RuntimeError(f"device {str(dev)!r} asked for, but only {torch.cuda.device_count()} CUDA "
                               "device(s) are present")
    elif dev.type != "cpu":
        raise ValueError(f"the torch backend runs on 'cpu' or 'cuda' devices, got {str(dev)!r}")
    return dev


def gpu_available() -> bool:
    """Whether torch is importable and a CUDA device is present (never raises).

    Importing torch takes a second or more, so it is imported only when torch is installed and
    a GPU driver is visible (NVIDIA's or ROCm's), or torch is already loaded: a machine without
    a GPU pays nothing for the automatic backend choice.

    Examples
    --------
    >>> isinstance(gpu_available(), bool)
    True
    """
    if "torch" not in sys.modules:
        if importlib.util.find_spec("torch") is None:
            return False
        if not (os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/kfd")
                or shutil.which("nvidia-smi")):
            return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:
        return False


def _unpack(bits: np.ndarray, n: int) -> np.ndarray:
    """bool (k, n) from packed little-endian uint64 rows."""
    words = np.ascontiguousarray(bits, dtype="<u8")
    return np.unpackbits(words.view(np.uint8), axis=1, count=n, bitorder="little").astype(bool)


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


def _best3(torch, G, negations: bool):
    return _best_negations3(torch, G) if negations else _best_positive3(torch, G)


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


class TorchCounter:
    """Dense 0/1 attribute matrices of one search on a torch device, and the scans over them.

    The scans return the same attribute combinations as the numba kernels
    :func:`~logicrules.fca.search_kernels.scan_triples` and
    :func:`~logicrules.fca.search_kernels.scan_quadruples` without their proximity pruning
    (a superset of what those keep: values within a relative 1e-9 of the threshold are kept).
    Counts are exact: 0/1 inputs (float16 on CUDA, float32 on the CPU) with float32
    accumulation, converted to float64 before weighting.

    Parameters
    ----------
    bits_p, bits_n : uint64 ndarray (m, Wp), (m, Wn)
        Packed little-endian bitsets of the attributes over the positive and the negative rows
        (the first ``n_pos`` / ``n_neg`` bits of each row are used).
    n_pos, n_neg : int
        Number of positive and negative rows (each at most 2**24).
    device : None, str or torch.device
        See :func:`torch_device` (default: CUDA, an error without it).
    memory_limit : int
        Bytes of device memory the scans may use for their blocks; blocks of first attributes
        (and of second attributes for size 4) are sized to fit, and
        :class:`~logicrules.fca.search.PremiseSearchMemoryError` is raised when even one cannot.
        The resident matrices (``m (n_pos + n_neg)`` entries of 2 or 4 bytes) come on top.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> X = np.array([[1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1]], bool)   # rows x attributes
    >>> y = np.array([True, True, False, False])
    >>> from logicrules.fca.bitset import pack_columns
    >>> counter = TorchCounter(pack_columns(X[y]), pack_columns(X[~y]), 2, 2, device="cpu")
    >>> w_single = X[y].sum(0) - X[~y].sum(0)                   # alpha = 1, beta = -1
    >>> w_pair = (X[y].T.astype(float) @ X[y]) - (X[~y].T.astype(float) @ X[~y])
    >>> args = (1.0, -1.0, w_single, w_pair, 0.0, 2.0)              # w_total = 2 - 2; keep tp - fp >= 2
    >>> counter.scan_triples(*args, False, np.arange(4)).tolist()     # positive literals: none separates
    []
    >>> counter.scan_triples(*args, True, np.arange(4)).tolist()      # e.g. a1 AND (NOT a2 OR NOT a3)
    [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    """

    def __init__(self, bits_p: np.ndarray, bits_n: np.ndarray, n_pos: int, n_neg: int, device: Any = None,
                 memory_limit: int = 2 * 1024**3):
        torch = _import_torch()
        bits_p = np.asarray(bits_p)
        bits_n = np.asarray(bits_n)
        for name, bits in (("bits_p", bits_p), ("bits_n", bits_n)):
            if bits.ndim != 2 or bits.dtype != np.uint64:
                raise ValueError(f"{name} must be a 2-D uint64 array, got {bits.dtype} with shape {bits.shape}")
        if bits_p.shape[0] != bits_n.shape[0]:
            raise ValueError(f"bits_p and bits_n need one row per attribute: {bits_p.shape[0]} != {bits_n.shape[0]}")
        n_pos, n_neg = int(n_pos), int(n_neg)
        for name, n, bits in (("n_pos", n_pos, bits_p), ("n_neg", n_neg, bits_n)):
            if n < 0 or n > 64 * bits.shape[1]:
                raise ValueError(f"{name}={n} does not fit the {bits.shape[1]} words of its bitsets")
            _check_exact_rows(n)
        if int(memory_limit) <= 0:
            raise ValueError(f"memory_limit must be positive, got {memory_limit}")
        self._torch = torch
        self.device = torch_device(device)
        self.memory_limit = int(memory_limit)
        self.m = bits_p.shape[0]
        self.n_pos, self.n_neg = n_pos, n_neg
        self._dtype = torch.float32
        self._out_dtype = False
        if self.device.type == "cuda" and self._half_gemm_works():
            self._dtype = torch.float16
            self._out_dtype = True
        self._x = [torch.from_numpy(_unpack(bits, n)).to(self.device).to(self._dtype)
                   for bits, n in ((bits_p, n_pos), (bits_n, n_neg))]
        half, pair = _index_tables()
        self._half = torch.as_tensor(half.reshape(-1), device=self.device)
        self._pair = torch.as_tensor(pair.reshape(-1), device=self.device)

    # -- helpers -----------------------------------------------------------------------
    def _half_gemm_works(self) -> bool:
        """float16 GEMM with a float32 output (exact counts) on this device and torch version."""
        torch = self._torch
        try:
            one = torch.ones((8, 8), dtype=torch.float16, device=self.device)
            out = torch.mm(one, one, out_dtype=torch.float32)
        except (TypeError, RuntimeError, NotImplementedError):
            return False
        return out.dtype == torch.float32 and bool((out == 8).all())

    def _mm(self, left, right):
        """float32 product of two 0/1 matrices (exact integer counts)."""
        if self._out_dtype:
            return self._torch.mm(left, right, out_dtype=self._torch.float32)
        return self._torch.mm(left, right)

    def _itemsize(self) -> int:
        return 2 if self._dtype == self._torch.float16 else 4

    def _weighted(self, first, extra: int | None, start: int, flat, alpha: float, beta: float):
        """``alpha |f AND x AND y|_pos + beta |f AND x AND y|_neg`` in float64 for ``x, y >= start``.

        ``f`` runs over the attributes ``first`` (long tensor (B,)), each ANDed with the attribute
        ``extra`` when given. Returns (B, (m - start)**2), or with ``flat`` (long (K,)) the
        columns ``flat`` of it (``flat = (x - start) * (m - start) + (y - start)``).
        """
        torch = self._torch
        out = None
        for X, w in zip(self._x, (alpha, beta)):
            if X.shape[1] == 0:
                continue
            R = X[start:]
            rows = X[first] if extra is None else X[first] * X[extra]
            L = (rows[:, None, :] * R[None]).reshape(-1, X.shape[1])
            C = self._mm(L, R.T).view(rows.shape[0], -1)
            del L
            cnt = (C if flat is None else C.index_select(1, flat)).to(torch.float64)
            del C
            cnt.mul_(w)
            out = cnt if out is None else out.add_(cnt)
        if out is None:
            mr = self.m - start
            out = torch.zeros((len(first), mr * mr if flat is None else len(flat)), dtype=torch.float64,
                              device=self.device)
        return out

    def _gemm_bytes(self, mr: int) -> int:
        """Peak bytes of one row of a batched count GEMM over ``mr`` columns."""
        return self._itemsize() * mr * max(self.n_pos, self.n_neg, 1) + 4 * mr * mr

    def _inputs(self, alpha, beta, w_single, w_pair, w_total, threshold, a_list):
        torch = self._torch
        m = self.m
        w_single = np.asarray(w_single, dtype=np.float64)
        w_pair = np.asarray(w_pair, dtype=np.float64)
        if w_single.shape != (m,):
            raise ValueError(f"w_single must have shape ({m},), got {w_single.shape}")
        if w_pair.shape != (m, m):
            raise ValueError(f"w_pair must have shape ({m}, {m}), got {w_pair.shape}")
        a = np.asarray(a_list)
        if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
            raise ValueError(f"a_list must be a 1-D integer array, got {a.dtype} with shape {a.shape}")
        a = np.unique(a.astype(np.int64))
        if a.size and (a[0] < 0 or a[-1] >= m):
            raise ValueError(f"a_list holds attributes outside 0..{m - 1}")
        alpha, beta, w_total, threshold = float(alpha), float(beta), float(w_total), float(threshold)
        slack = 1e-9 * (abs(alpha) * self.n_pos + abs(beta) * self.n_neg + 1.0)
        ws = torch.as_tensor(w_single, device=self.device)
        wp = torch.as_tensor(w_pair, device=self.device)
        return alpha, beta, ws, wp, w_total, threshold - slack, a

    # -- size 3 ------------------------------------------------------------------------
    def scan_triples(self, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray, w_total: float,
                     threshold: float, negations: bool, a_list: np.ndarray) -> np.ndarray:
        """Triples ``a < b < c``, ``a`` in ``a_list``, whose best read-once formula passes a linear test.

        A triple is kept when ``max_f alpha tp(f) + beta fp(f) >= threshold`` over the read-once
        formulas of 3 literals over it (64 with negations, 8 positive ones), compared with a slack
        of ``1e-9 (|alpha| n_pos + |beta| n_neg + 1)`` in favour of keeping, so the result holds
        every triple that numba's ``scan_triples`` keeps (without its proximity pruning).

        Per block of first attributes ``A`` (``b, c`` range over ``A.min() + 1 .. m - 1``, ``mr``
        of them): one GEMM per class gives ``|a AND b AND c|`` for all ``a in A`` and ``b, c``;
        the ``K = mr (mr - 1) / 2`` pairs ``b < c`` are gathered, weighted in float64, turned into
        the 8 cells (inclusion-exclusion) and tested with the closed form. Memory per first
        attribute: about ``s mr n + 4 mr^2`` bytes for the GEMM (``s`` = 2 bytes on CUDA, 4 on the
        CPU, ``n`` the larger class) plus 192 ``K`` for the cells and the closed form, and 64 ``K``
        per block for the index tables; blocks are as large as ``memory_limit`` allows.

        Parameters
        ----------
        alpha, beta : float
            Weights of a positive and of a negative row.
        w_single : float64 (m,)
            ``alpha * tp(a) + beta * fp(a)``.
        w_pair : float64 (m, m)
            ``alpha * tp(a AND b) + beta * fp(a AND b)``.
        w_total : float
            ``alpha * n_pos + beta * n_neg``.
        threshold : float
        negations : bool
            Literals of both polarities, or positive ones only.
        a_list : int array (k,)
            First attributes to scan.

        Returns
        -------
        int64 ndarray (k, 3)
            Kept triples, sorted lexicographically.
        """
        torch = self._torch
        alpha, beta, ws, wp, w_total, thr, a_sorted = self._inputs(
            alpha, beta, w_single, w_pair, w_total, threshold, a_list)
        m = self.m
        a_sorted = a_sorted[a_sorted < m - 2]
        found = []
        i = 0
        with torch.inference_mode():
            while i < len(a_sorted):
                b0 = int(a_sorted[i]) + 1
                mr = m - b0
                K = mr * (mr - 1) // 2
                fixed = 64 * K
                per_a = self._gemm_bytes(mr) + _TRIPLE_BYTES * K
                count = (self.memory_limit - fixed) // per_a
                if count < 1:
                    raise _memory_error(
                        f"the torch triple scan needs about {(fixed + per_a) / 1e6:.1f} MB for one first attribute "
                        f"({m} attributes), more than memory_limit={self.memory_limit / 1e6:.1f} MB")
                A = torch.as_tensor(a_sorted[i:i + count], device=self.device)
                i += len(A)
                found.append(self._triples_block(A, b0, alpha, beta, ws, wp, w_total, thr, negations))
        return np.concatenate(found) if found else np.zeros((0, 3), np.int64)

    def _triples_block(self, A, b0, alpha, beta, ws, wp, w_total, thr, negations):
        torch = self._torch
        mr = self.m - b0
        bi, ci = torch.triu_indices(mr, mr, 1, device=self.device)
        D = self._weighted(A, None, b0, bi * mr + ci, alpha, beta)
        b, c = bi + b0, ci + b0
        F = torch.empty((2, 2, 2, len(A), len(b)), dtype=torch.float64, device=self.device)
        F[0, 0, 0] = w_total
        F[1, 0, 0] = ws[A][:, None]
        F[0, 1, 0] = ws[b]
        F[0, 0, 1] = ws[c]
        F[1, 1, 0] = wp[A[:, None], b[None, :]]
        F[1, 0, 1] = wp[A[:, None], c[None, :]]
        F[0, 1, 1] = wp[b, c]
        F[1, 1, 1] = D
        del D
        _mobius_(F, 3)
        keep = _best3(torch, F, negations) >= thr
        del F
        keep &= b[None, :] > A[:, None]
        rows, cols = keep.nonzero(as_tuple=True)
        return torch.stack([A[rows], b[cols], c[cols]], 1).cpu().numpy()

    # -- size 4 ------------------------------------------------------------------------
    def scan_quadruples(self, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray,
                        w_total: float, threshold: float, negations: bool, rep_cells: np.ndarray,
                        a_list: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Quadruples and triples, first attribute in ``a_list``, whose premises of size 4 may pass.

        Quadruples ``a < b < c < d`` are kept when the sum of their positive weighted cells and
        the best read-once formula of 4 literals (numba's ``best_read_once4``) reach
        ``threshold``; triples ``a < b < c`` when the best function of ``rep_cells`` over their 8
        cells does (numba's ``_best_repeat_shape``). Comparisons have the slack of
        :meth:`scan_triples`, so the results hold what numba's ``scan_quadruples`` keeps.

        Per ``a``: one GEMM per class gives ``|a AND x AND y|`` for all ``x, y > a`` (``mr`` of
        them, kept as float64, ``8 mr^2`` bytes). Per block of second attributes ``b`` (``c, d``
        range over the ``mq`` attributes after the block's first ``b``, ``Kq = mq (mq - 1) / 2``
        pairs ``c < d``): two GEMMs per class give ``|a b c d|`` and ``|b c d|``; the 16 cells
        (inclusion-exclusion) and their positive sum are computed for the whole block, and the
        closed form runs on the survivors of that bound, in chunks. Memory: blocks use half of
        ``memory_limit`` at about ``s mq n + 4 mq^2 + 304 Kq + 160 mq`` bytes per ``b`` (``s`` =
        2 bytes on CUDA, 4 on the CPU, ``n`` the larger class) on top of ``8 mr^2 + 24 Kq`` per
        ``a``; the chunks of the closed form use the other half, 2 KB per quadruple and
        ``8 L + 256`` bytes per triple (``L`` functions in ``rep_cells``).

        Parameters
        ----------
        alpha, beta, w_single, w_pair, w_total, threshold, negations
            As in :meth:`scan_triples`.
        rep_cells : float (L, 8)
            0/1 cell matrix of the functions of a triple computed by premises of size 4 with
            repeated attributes (cell ``k = 4 va + 2 vb + vc``).
        a_list : int array (k,)
            First attributes to scan.

        Returns
        -------
        quads : int64 ndarray (k, 4)
        trips : int64 ndarray (j, 3)
            Both sorted lexicographically.
        """
        torch = self._torch
        alpha, beta, ws, wp, w_total, thr, a_sorted = self._inputs(
            alpha, beta, w_single, w_pair, w_total, threshold, a_list)
        rep = np.asarray(rep_cells, dtype=np.float64)
        if rep.ndim != 2 or rep.shape[1] != 8 or not len(rep):
            raise ValueError(f"rep_cells must have shape (L, 8) with L >= 1, got {rep.shape}")
        m = self.m
        block_budget = self.memory_limit // 2
        chunk_budget = self.memory_limit - block_budget
        quad_chunk = chunk_budget // _QUAD_CANDIDATE_BYTES
        rep_chunk = chunk_budget // (8 * len(rep) + 256)
        if min(quad_chunk, rep_chunk) < 1:
            raise _memory_error(f"memory_limit={self.memory_limit} bytes leaves no room for the closed form of "
                                "size 4")
        quads, trips = [], []
        with torch.inference_mode():
            rep_t = torch.as_tensor(rep, device=self.device)
            for a in a_sorted[a_sorted < m - 2]:
                self._quadruples_of(int(a), alpha, beta, ws, wp, w_total, thr, negations, rep_t,
                                    block_budget, quad_chunk, rep_chunk, quads, trips)
        return (np.concatenate(quads) if quads else np.zeros((0, 4), np.int64),
                np.concatenate(trips) if trips else np.zeros((0, 3), np.int64))

    def _quadruples_of(self, a, alpha, beta, ws, wp, w_total, thr, negations, rep, block_budget, quad_chunk,
                       rep_chunk, quads, trips):
        torch = self._torch
        m = self.m
        r0 = a + 1
        mr = m - r0
        Kq0 = (mr - 1) * (mr - 2) // 2
        fixed = 8 * mr * mr + 24 * Kq0
        need = fixed + self._gemm_bytes(mr) + 16 * mr * mr
        if need > block_budget:
            raise _memory_error(f"the torch quadruple scan needs about {need / 1e6:.1f} MB "
                                f"for the 3-way counts of one attribute, more than half of "
                                f"memory_limit={self.memory_limit / 1e6:.1f} MB")
        a_t = torch.tensor([a], device=self.device)
        Da = self._weighted(a_t, None, r0, None, alpha, beta).view(mr, mr)   # |a x y|, x, y >= r0
        b_first = r0
        while b_first < m - 1:
            cs = b_first + 1
            mq = m - cs
            Kq = mq * (mq - 1) // 2
            per_b = self._gemm_bytes(mq) + 304 * Kq + 160 * mq
            count = (block_budget - fixed) // per_b
            if count < 1:
                raise _memory_error(f"the torch quadruple scan needs about {(fixed + per_b) / 1e6:.1f} MB for one "
                                    f"pair of attributes ({m} attributes), more than half of "
                                    f"memory_limit={self.memory_limit / 1e6:.1f} MB")
            bb = torch.arange(b_first, min(b_first + count, m - 1), device=self.device)
            b_first += len(bb)
            ctx = (a, bb, cs, Da, r0, ws, wp, w_total, thr)
            trips.append(self._repeat_block(ctx, rep, rep_chunk))
            if mq >= 2:
                quads.append(self._quad_block(ctx, alpha, beta, negations, quad_chunk))

    def _repeat_block(self, ctx, rep, rep_chunk):
        """Triples ``(a, b, c)``, ``b`` in the block, ``c > b``, passing the repeat-shape test."""
        torch = self._torch
        a, bb, cs, Da, r0, ws, wp, w_total, thr = ctx
        c = torch.arange(cs, self.m, device=self.device)
        F = torch.empty((2, 2, 2, len(bb), len(c)), dtype=torch.float64, device=self.device)
        F[0, 0, 0] = w_total
        F[1, 0, 0] = ws[a]
        F[0, 1, 0] = ws[bb][:, None]
        F[0, 0, 1] = ws[c]
        F[1, 1, 0] = wp[a, bb][:, None]
        F[1, 0, 1] = wp[a, c]
        F[0, 1, 1] = wp[bb][:, c]
        F[1, 1, 1] = Da[bb - r0][:, c - r0]
        _mobius_(F, 3)
        G = F.view(8, -1)
        cand = (G.clamp_min(0).sum(0) >= thr) & (c[None, :] > bb[:, None]).reshape(-1)
        idx = cand.nonzero().ravel()
        keep = [idx[s:s + rep_chunk][(rep @ G[:, idx[s:s + rep_chunk]]).amax(0) >= thr]
                for s in range(0, len(idx), rep_chunk)]
        idx = torch.cat(keep) if keep else idx
        rows, cols = idx // len(c), idx % len(c)
        return torch.stack([torch.full_like(rows, a), bb[rows], c[cols]], 1).cpu().numpy()

    def _quad_block(self, ctx, alpha, beta, negations, quad_chunk):
        """Quadruples ``(a, b, c, d)``, ``b`` in the block, ``b < c < d``, passing the size-4 test."""
        torch = self._torch
        a, bb, cs, Da, r0, ws, wp, w_total, thr = ctx
        mq = self.m - cs
        ci, di = torch.triu_indices(mq, mq, 1, device=self.device)
        flat = ci * mq + di
        c, d = ci + cs, di + cs
        F = torch.empty((2, 2, 2, 2, len(bb), len(c)), dtype=torch.float64, device=self.device)
        F[1, 1, 1, 1] = self._weighted(bb, a, cs, flat, alpha, beta)
        F[0, 1, 1, 1] = self._weighted(bb, None, cs, flat, alpha, beta)
        F[0, 0, 0, 0] = w_total
        F[1, 0, 0, 0] = ws[a]
        F[0, 1, 0, 0] = ws[bb][:, None]
        F[0, 0, 1, 0] = ws[c]
        F[0, 0, 0, 1] = ws[d]
        F[1, 1, 0, 0] = wp[a, bb][:, None]
        F[1, 0, 1, 0] = wp[a, c]
        F[1, 0, 0, 1] = wp[a, d]
        F[0, 1, 1, 0] = wp[bb][:, c]
        F[0, 1, 0, 1] = wp[bb][:, d]
        F[0, 0, 1, 1] = wp[c, d]
        Dab = Da[bb - r0]
        F[1, 1, 1, 0] = Dab[:, c - r0]
        F[1, 1, 0, 1] = Dab[:, d - r0]
        F[1, 0, 1, 1] = Da[c - r0, d - r0]
        del Dab
        _mobius_(F, 4)
        W = F.view(16, -1)
        cand = (W.clamp_min(0).sum(0) >= thr) & (c[None, :] > bb[:, None]).reshape(-1)
        idx = cand.nonzero().ravel()
        del cand
        keep = [idx[s:s + quad_chunk][_best_read_once4(torch, W[:, idx[s:s + quad_chunk]], negations, self._half,
                                                       self._pair) >= thr]
                for s in range(0, len(idx), quad_chunk)]
        idx = torch.cat(keep) if keep else idx
        rows, cols = idx // len(c), idx % len(c)
        return torch.stack([torch.full_like(rows, a), bb[rows], c[cols], d[cols]], 1).cpu().numpy()


def _index_tables() -> tuple[np.ndarray, np.ndarray]:
    """``_quadruple_index_tables()`` of :mod:`logicrules.fca.search` (imported lazily)."""
    from logicrules.fca.search import _quadruple_index_tables

    return _quadruple_index_tables()
