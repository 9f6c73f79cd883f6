"""Optional PyTorch backend (GPU) for the counting scans of the premise search.

The numba kernels of :mod:`logicrules.fca.premise.kernels` count ``a AND b AND c (AND d)`` with
one popcount per attribute combination. On a GPU the same counts are matrix products of 0/1
matrices: for a list of attribute pairs ``(a, b)``, ``|a AND b AND c|`` over all ``c`` is one
GEMM of the rows where both hold; for a first attribute ``a``, ``|a AND x AND y|`` over all
``x, y`` is one GEMM, and for a list of triples ``(a, b, c)`` the 4-way counts over all ``d``
are one more. The search's exact proximity pruning decides, as whole rows of masks, which pairs
and triples are worth a GEMM row and which combinations get their cells computed; the cells,
the closed forms of the best formula and the linear test run as tensor operations over them.
torch is optional: it is imported only when this backend is used, and never required.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules.fca.premise.results import PremiseSearchMemoryError
from logicrules.fca.premise.space import _quadruple_index_tables

__all__ = ["QuadrupleScan", "TorchCounter", "gpu_available", "torch_device"]

MAX_EXACT_ROWS = 2**24          # float32 accumulation of 0/1 products is exact up to this many rows
_QUAD_CANDIDATE_BYTES = 2048    # peak bytes per candidate quadruple in the closed form of size 4
_CELL_BYTES = 640               # peak bytes per quadruple whose 16 cells are computed
_TRIPLE_BYTES = 192             # peak bytes per triple (a, b, c) in the size-3 closed form
_HALF_GEMM_DEVICES = ("cuda",)  # device types whose float16 GEMMs may write float32 (probed first)
_PROBE_DEPTH = 4099             # > 2048 and odd: a float16 accumulator or output cannot hold the sum


def _import_torch():
    try:
        import torch
    except ImportError:
        raise ImportError("the PyTorch backend of the premise search needs torch: pip install torch") from None
    return torch


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


class TorchCounter:
    """Dense 0/1 attribute matrices of one search on a torch device, and the scans over them.

    The scans return the same attribute combinations as the numba kernels
    :func:`~logicrules.fca.premise.kernels.scan_triples` and
    :func:`~logicrules.fca.premise.kernels.scan_quadruples` (a superset of what those keep:
    values within a relative 1e-9 of the threshold are kept), with or without their exact
    proximity pruning.
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
        Bytes of device memory the scans may use for their blocks; chunks of attribute pairs
        and triples are sized to fit, and
        :class:`~logicrules.fca.premise.search.PremiseSearchMemoryError` is raised when even one cannot.
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
                 memory_limit: int = 2 * 1024**3, row_weights: tuple[np.ndarray, np.ndarray] | None = None):
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
            if row_weights is None:
                _check_exact_rows(n)
        if row_weights is not None:
            row_weights = [np.asarray(w, dtype=np.float64) for w in row_weights]
            if [w.shape for w in row_weights] != [(n_pos,), (n_neg,)]:
                raise ValueError(f"row_weights must be two arrays of n_pos={n_pos} and n_neg={n_neg} weights")
        if int(memory_limit) <= 0:
            raise ValueError(f"memory_limit must be positive, got {memory_limit}")
        self._torch = torch
        self.device = torch_device(device)
        self.memory_limit = int(memory_limit)
        self.m = bits_p.shape[0]
        self.n_pos, self.n_neg = n_pos, n_neg
        self.total_p, self.total_n = (float(n_pos), float(n_neg)) if row_weights is None else \
            (float(row_weights[0].sum()), float(row_weights[1].sum()))
        self._dtype = torch.float32 if row_weights is None else torch.float64
        self._out_dtype = False
        if row_weights is None and self.device.type in _HALF_GEMM_DEVICES and self._half_gemm_works():
            self._dtype = torch.float16
            self._out_dtype = True
        self._rw = None if row_weights is None else [torch.as_tensor(w, device=self.device) for w in row_weights]
        self._x = [torch.from_numpy(_unpack(bits, n)).to(self.device).to(self._dtype)
                   for bits, n in ((bits_p, n_pos), (bits_n, n_neg))]
        half, pair = _quadruple_index_tables()
        self._half = torch.as_tensor(half.reshape(-1), device=self.device)
        self._pair = torch.as_tensor(pair.reshape(-1), device=self.device)

    # -- helpers -----------------------------------------------------------------------
    def _half_gemm_works(self) -> bool:
        """float16 GEMM with a float32 output and exact float32 accumulation on this device.

        The probe sums ``_PROBE_DEPTH`` products of ones, a count that float16 cannot represent,
        so a device or torch version that accumulates or rounds in float16 falls back to float32.
        """
        torch = self._torch
        try:
            ones = torch.ones((2, _PROBE_DEPTH), dtype=torch.float16, device=self.device)
            out = torch.mm(ones, ones.T, out_dtype=torch.float32)
        except (TypeError, RuntimeError, NotImplementedError):
            return False
        return out.dtype == torch.float32 and bool((out == _PROBE_DEPTH).all())

    def _mm(self, left, right):
        """float32 product of two 0/1 matrices (exact integer counts)."""
        if self._out_dtype:
            return self._torch.mm(left, right, out_dtype=self._torch.float32)
        return self._torch.mm(left, right)

    def _itemsize(self) -> int:
        return {self._torch.float16: 2, self._torch.float32: 4}.get(self._dtype, 8)

    def _weighted_products(self, factors: tuple, start: int, alpha: float, beta: float):
        """``alpha |g AND x|_pos + beta |g AND x|_neg`` in float64 for ``x >= start``, (K, m - start).

        ``g`` is the AND of ``factors``: attributes, as ints or long tensors (K,) (at least one).
        """
        torch = self._torch
        k = next(len(f) for f in factors if not isinstance(f, int))
        out = None
        for c, (X, w) in enumerate(zip(self._x, (alpha, beta))):
            if X.shape[1] == 0:
                continue
            rows = X[factors[0]]
            for f in factors[1:]:
                rows = rows * X[f]
            if self._rw is not None:
                rows = rows * self._rw[c]
            cnt = self._mm(rows, X[start:].T).to(torch.float64)
            cnt.mul_(w)
            out = cnt if out is None else out.add_(cnt)
        if out is None:
            out = torch.zeros((k, self.m - start), dtype=torch.float64, device=self.device)
        return out

    def _gemm_bytes(self, mr: int) -> int:
        """Peak bytes of one row of a batched count GEMM over ``mr`` columns."""
        return self._itemsize() * mr * max(self.n_pos, self.n_neg, 1) + 4 * mr * mr

    def _weights(self, alpha, beta, w_single, w_pair, w_total, threshold):
        """Checked weights of a linear test on the device: ``(alpha, beta, ws, wp, w_total, threshold, slack)``.

        ``slack = 1e-9 (|alpha| n_pos + |beta| n_neg + 1)``: comparisons keep what is within it.
        """
        torch = self._torch
        m = self.m
        w_single = np.asarray(w_single, dtype=np.float64)
        w_pair = np.asarray(w_pair, dtype=np.float64)
        if w_single.shape != (m,):
            raise ValueError(f"w_single must have shape ({m},), got {w_single.shape}")
        if w_pair.shape != (m, m):
            raise ValueError(f"w_pair must have shape ({m}, {m}), got {w_pair.shape}")
        alpha, beta, w_total, threshold = float(alpha), float(beta), float(w_total), float(threshold)
        slack = 1e-9 * (abs(alpha) * self.total_p + abs(beta) * self.total_n + 1.0)
        ws = torch.as_tensor(w_single, device=self.device)
        wp = torch.as_tensor(w_pair, device=self.device)
        return alpha, beta, ws, wp, w_total, threshold, slack

    def _pruning_tables(self, **given) -> tuple[list, bool]:
        """The proximity-pruning tables ``given`` on the device, checked, and whether they prune.

        Names: ``elim`` and ``room`` (m, m), ``elim_const`` (m,), float64. All given: checked
        and moved; none: tables that prune nothing (``elim``, ``elim_const`` = inf, ``room`` =
        -inf). Returns the tensors in the order given and whether they were given.
        """
        names = list(given)
        present = [given[n] is not None for n in names]
        if any(present) and not all(present):
            raise ValueError(f"give {' and '.join(names)} together, or none of them")
        pruned = all(present)
        out = []
        for name in names:
            shape = (self.m,) if name == "elim_const" else (self.m, self.m)
            table = np.asarray(given[name], dtype=np.float64) if pruned else \
                np.full(shape, -np.inf if name == "room" else np.inf)
            if table.shape != shape:
                raise ValueError(f"the pruning tables must have shapes (m, m) for elim and room and (m,) for "
                                 f"elim_const, m = {self.m}; {name} has {table.shape}")
            out.append(self._torch.as_tensor(table, device=self.device))
        return out, pruned

    def _first_attributes(self, a_list) -> np.ndarray:
        """``a_list`` checked, sorted and deduplicated (int64)."""
        a = np.asarray(a_list)
        if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
            raise ValueError(f"a_list must be a 1-D integer array, got {a.dtype} with shape {a.shape}")
        a = np.unique(a.astype(np.int64))
        if a.size and (a[0] < 0 or a[-1] >= self.m):
            raise ValueError(f"a_list holds attributes outside 0..{self.m - 1}")
        return a

    # -- size 3 ------------------------------------------------------------------------
    def scan_triples(self, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray, w_total: float,
                     threshold: float, negations: bool, a_list: np.ndarray, elim: np.ndarray | None = None,
                     elim_const: np.ndarray | None = None, room: np.ndarray | None = None,
                     return_counted: bool = False, mode: int = 0) -> np.ndarray | tuple[np.ndarray, int]:
        """Triples ``a < b < c``, ``a`` in ``a_list``, whose best read-once formula passes a linear test.

        A triple is kept when ``max_f alpha tp(f) + beta fp(f) >= threshold`` over the read-once
        formulas of 3 literals over it (64 with negations, 8 positive ones), compared with a slack
        of ``1e-9 (|alpha| n_pos + |beta| n_neg + 1)`` in favour of keeping, so the result holds
        every triple that numba's ``scan_triples`` keeps.

        With ``elim``, ``elim_const`` and ``room`` (the search's proximity pruning) the scan
        skips, with numba's exact tests, the pairs ``(a, b)`` one of whose attributes is
        replaceable whatever ``c`` is, then per chunk of the remaining pairs the ``c`` near one of
        ``a, b`` or a constant. One GEMM per class over the pairs with a ``c`` left gives ``|a
        AND b AND c|`` for all ``c``; the 8 cells of each triple left (inclusion-exclusion) go
        through the closed form of the best formula. Without them every triple is counted.
        Memory: half of ``memory_limit`` for the chunks of pairs, about ``2 s n + 112 m`` bytes
        per pair (``s`` = 2 bytes on CUDA, 4 on the CPU, ``n`` the larger class), the other half
        for the cells (192 bytes per triple); ``5 m^2`` float64 stay resident.

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
        elim, elim_const, room : float64 (m, m), (m,), (m, m), optional
            Substitution bounds (``elim[x, y]``: what a premise loses at most when ``x`` is
            replaced by ``y``; ``elim_const[x]``: by a constant) and the room ``threshold`` minus
            the best premise of size <= 2 over each pair; give all three or none.
        return_counted : bool
            Also return the number of triples whose cells were computed.
        mode : int
            0: every read-once formula; 1: conjunctions only; 2: disjunctions only.

        Returns
        -------
        triples : int64 ndarray (k, 3)
            Kept triples, sorted lexicographically.
        counted : int
            With ``return_counted``.
        """
        torch = self._torch
        alpha, beta, ws, wp, w_total, threshold, slack = self._weights(
            alpha, beta, w_single, w_pair, w_total, threshold)
        a_sorted = self._first_attributes(a_list)
        m = self.m
        (E, elim_const, room), _ = self._pruning_tables(elim=elim, elim_const=elim_const, room=room)
        budget = self.memory_limit // 2
        per_pair = 2 * self._itemsize() * max(self.n_pos, self.n_neg, 1) + 112 * m
        pair_chunk = budget // per_pair
        cell_chunk = (self.memory_limit - budget) // _TRIPLE_BYTES
        if pair_chunk < 1 or cell_chunk < 1:
            raise PremiseSearchMemoryError(
                f"the torch triple scan needs about {2 * per_pair / 1e6:.1f} MB for one pair of "
                f"attributes ({m} attributes), more than memory_limit={self.memory_limit / 1e6:.1f} MB")
        found = []
        counted = 0
        with torch.inference_mode():
            tab = _TripleTables(E, E.T.contiguous(), elim_const, room, ws, wp, w_total, threshold - slack, negations,
                                int(mode))
            least_room = torch.full((m, m + 1), np.inf, dtype=torch.float64, device=self.device)
            least_room[:, :m] = _suffix_min(torch, tab.room)
            A = torch.as_tensor(a_sorted[a_sorted < m - 2], device=self.device)
            # pairs (a, b): b replaced by a or a constant, or a by b or a constant, whatever c is
            b = torch.arange(m, device=self.device)
            a_block = max(1, budget // (128 * m))       # the (block, m) masks of the pairs, a quarter of budget
            for s in range(0, len(A), a_block):
                Ab = A[s:s + a_block]
                da = torch.minimum(E[Ab], tab.elim_const[Ab][:, None])
                db = torch.minimum(tab.elim_t[Ab], tab.elim_const[None, :])
                ok = (b[None, :] > Ab[:, None]) & (b[None, :] < m - 1)
                ok &= db >= least_room[Ab, 1:]
                ok &= da >= least_room[b, b + 1][None, :]
                pa, pb = ok.nonzero(as_tuple=True)
                del da, db, ok
                pa = Ab[pa]
                for t in range(0, len(pa), pair_chunk):
                    kept, n = self._triples_of_pairs(pa[t:t + pair_chunk], pb[t:t + pair_chunk], tab, alpha, beta,
                                                     cell_chunk)
                    found += kept
                    counted += n
        triples = np.concatenate(found) if found else np.zeros((0, 3), np.int64)
        return (triples, counted) if return_counted else triples

    def _triples_of_pairs(self, a, b, tab: _TripleTables, alpha: float, beta: float, cell_chunk: int):
        """Kept triples ``(a, b, c)`` of the pairs ``a, b`` (long (K,)) and the number counted."""
        torch = self._torch
        c0 = int(b.min()) + 1
        E, E_t, EC, room = tab.elim, tab.elim_t, tab.elim_const, tab.room
        # c replaced by a, b or a constant: the room of (a, b); b, a replaced by c: of (a, c), (b, c)
        keep = torch.minimum(torch.minimum(E_t[a, c0:], E_t[b, c0:]), EC[c0:][None, :]) >= room[a, b][:, None]
        keep &= torch.arange(c0, self.m, device=self.device)[None, :] > b[:, None]
        da = torch.minimum(E[a, b], EC[a])
        db = torch.minimum(E[b, a], EC[b])
        keep &= torch.minimum(db[:, None], E[b, c0:]) >= room[a, c0:]
        keep &= torch.minimum(da[:, None], E[a, c0:]) >= room[b, c0:]
        rows = keep.any(1).nonzero().ravel()
        if not len(rows):
            return [], 0
        keep, a, b = keep[rows], a[rows], b[rows]
        abc = self._weighted_products((a, b), c0, alpha, beta)
        k, c = keep.nonzero(as_tuple=True)
        del keep
        ws, wp = tab.ws, tab.wp
        out = []
        for s in range(0, len(k), cell_chunk):
            kk, cc = k[s:s + cell_chunk], c[s:s + cell_chunk]
            ak, bk, ck = a[kk], b[kk], cc + c0
            F = torch.empty((2, 2, 2, len(kk)), dtype=torch.float64, device=self.device)
            F[1, 1, 1] = abc[kk, cc]
            F[0, 0, 0] = tab.w_total
            F[1, 0, 0] = ws[ak]
            F[0, 1, 0] = ws[bk]
            F[0, 0, 1] = ws[ck]
            F[1, 1, 0] = wp[ak, bk]
            F[1, 0, 1] = wp[ak, ck]
            F[0, 1, 1] = wp[bk, ck]
            _mobius_(F, 3)
            passed = (_best3(torch, F, tab.negations, tab.mode) >= tab.thr).nonzero().ravel()
            out.append(torch.stack([ak[passed], bk[passed], ck[passed]], 1).cpu().numpy())
        return out, len(k)

    # -- size 4 ------------------------------------------------------------------------
    def quadruple_scan(self, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray, w_total: float,
                       threshold: float, negations: bool, rep_cells: np.ndarray, elim: np.ndarray | None = None,
                       elim_const: np.ndarray | None = None, mode: int = 0) -> QuadrupleScan:
        """The size-4 scan of one linear test on this counter's device: see :class:`QuadrupleScan`."""
        return QuadrupleScan(self, alpha, beta, w_single, w_pair, w_total, threshold, negations, rep_cells, elim,
                             elim_const, mode)

    def scan_quadruples(self, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray,
                        w_total: float, threshold: float, negations: bool, rep_cells: np.ndarray,
                        a_list: np.ndarray, elim: np.ndarray | None = None,
                        elim_const: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Quadruples and triples, first attribute in ``a_list``, whose premises of size 4 may pass.

        One-shot form of :meth:`quadruple_scan` (arguments there) followed by
        :meth:`QuadrupleScan.run` (``a_list``): returns ``(quads, trips)``, int64 (k, 4) and
        (j, 3), both sorted lexicographically.
        """
        return self.quadruple_scan(alpha, beta, w_single, w_pair, w_total, threshold, negations, rep_cells, elim,
                                   elim_const).run(a_list)


@dataclass
class _TripleTables:
    """The tables of one pruned triple scan on the device (see :meth:`TorchCounter.scan_triples`)."""

    elim: Any
    elim_t: Any
    elim_const: Any
    room: Any
    ws: Any
    wp: Any
    w_total: float
    thr: float
    negations: bool
    mode: int = 0


class QuadrupleScan:
    """Premises of size 4 passing one linear test, by attribute quadruples and triples, with torch.

    The counterpart of numba's :func:`~logicrules.fca.premise.kernels.scan_quadruples` and
    :func:`~logicrules.fca.premise.kernels.triple_rooms` for one linear test
    ``alpha tp + beta fp >= threshold``. A quadruple ``a < b < c < d`` is kept when the sum of
    its positive weighted cells and the best read-once formula of 4 literals reach the
    threshold; a triple ``a < b < c`` when the best function of ``rep_cells`` over its 8 cells
    does (premises of size 4 repeating an attribute). Comparisons have the slack of
    :meth:`TorchCounter.scan_triples`, so the results hold what numba keeps.

    With ``elim`` and ``elim_const`` (the substitution bounds of the search's proximity pruning)
    the scan skips what cannot pass, with the same exact tests as the numba kernel: each triple
    has a room ``threshold - M3 - slack`` (``M3`` bounds every premise of size <= 4 over it);
    the construction computes the least room ``row_min[a, b]`` of the triples ``(a, b, .)``
    (one pass of triple tables over all first attributes). :meth:`run` then works per first
    attribute ``a``:

    1. the triple table of ``a``: ``|a AND x AND y|`` for all ``x, y > a`` (one GEMM per class),
       the 8 cells, the best function of ``rep_cells`` and the room of every ``(a, b, c)``;
    2. the pairs ``(b, c)`` left by the range skips (``a`` or ``b`` replaceable whatever ``c, d``
       are; ``c`` replaceable whatever ``d`` is);
    3. per chunk of those pairs: the tests on ``d`` from the rooms of ``(a, b, c)``, ``(a, b,
       d)`` and ``(a, c, d)``; for the pairs with a ``d`` left, two GEMMs per class give
       ``|a b c d|`` and ``|b c d|`` for all ``d``; the 16 cells of the quadruples left, their
       positive sum and the closed form.

    Without ``elim`` nothing is skipped (every quadruple's cells are computed). ``counted``
    adds up the quadruples whose cells were computed, as numba's ``out_counted``.

    Memory: half of the counter's ``memory_limit`` for the triple table of one ``a`` (about
    ``160 mr^2 + s mr n`` bytes, ``mr = m - a - 1``, ``s`` = 2 bytes on CUDA, 4 on the CPU,
    ``n`` the larger class) and the chunks of pairs (``2 s n + 112 mr`` bytes per pair); the
    other half for the chunks of cells and closed forms.
    On top, resident: ``5 m^2`` float64 (pair weights, bounds, least rooms).

    Parameters
    ----------
    counter : TorchCounter
    alpha, beta, w_single, w_pair, w_total, threshold, negations
        As in :meth:`TorchCounter.scan_triples`.
    rep_cells : float (L, 8)
        0/1 cell matrix of the functions of a triple computed by premises of size 4 with
        repeated attributes (cell ``k = 4 va + 2 vb + vc``).
    elim : float (m, m), optional
        ``elim[x, y]``: bound on what a premise loses when attribute ``x`` is replaced by ``y``.
    elim_const : float (m,), optional
        The same for ``x`` replaced by a constant. Give both or neither.
    mode : int
        0: every read-once formula of 4 literals; 1: conjunctions only; 2: disjunctions only.
    """

    def __init__(self, counter: TorchCounter, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray,
                 w_total: float, threshold: float, negations: bool, rep_cells: np.ndarray,
                 elim: np.ndarray | None = None, elim_const: np.ndarray | None = None, mode: int = 0):
        torch = counter._torch
        self._torch = torch
        self.counter = counter
        (self.alpha, self.beta, self.ws, self.wp, self.w_total, self.threshold,
         self.slack) = counter._weights(alpha, beta, w_single, w_pair, w_total, threshold)
        self.thr = self.threshold - self.slack
        self.negations = bool(negations)
        self.mode = int(mode)
        rep = np.asarray(rep_cells, dtype=np.float64)
        if rep.ndim != 2 or rep.shape[1] != 8 or not len(rep):
            raise ValueError(f"rep_cells must have shape (L, 8) with L >= 1, got {rep.shape}")
        m = counter.m
        (self.elim, self.elim_const), self.pruned = counter._pruning_tables(elim=elim, elim_const=elim_const)
        self.elim_t = self.elim.T.contiguous()
        dev = counter.device
        self.rep = torch.as_tensor(rep, device=dev)
        self.block_budget = counter.memory_limit // 2
        chunk_budget = counter.memory_limit - self.block_budget
        self.quad_chunk = chunk_budget // _QUAD_CANDIDATE_BYTES
        self.cell_chunk = chunk_budget // _CELL_BYTES
        self.rep_chunk = chunk_budget // (8 * len(rep) + 256)
        if min(self.quad_chunk, self.rep_chunk) < 1:
            raise PremiseSearchMemoryError(
                f"memory_limit={counter.memory_limit} bytes leaves no room for the closed form of "
                "size 4")
        self.counted = 0
        with torch.inference_mode():
            self.row_min = self._row_min() if self.pruned else torch.full((m, m), -np.inf, dtype=torch.float64,
                                                                          device=dev)
            # least_room_a[a, c]: the least room of the triples (a, c', d), c' >= c; least_b[b]: of (b, ., .)
            self.least_room_a = torch.full((m, m + 1), np.inf, dtype=torch.float64, device=dev)
            self.least_room_a[:, :m] = _suffix_min(torch, self.row_min)
            self.least_b = self.row_min.amin(1)

    def _best(self, W):
        """Best premise of 4 literals over the 16 cells ``W`` (16, N) in this scan's premise space."""
        if self.mode:
            return _best_cells(self._torch, W, self.negations, self.mode)
        return _best_read_once4(self._torch, W, self.negations, self.counter._half, self.counter._pair)

    def _table_bytes(self, mr: int) -> int:
        """Peak bytes of the triple table of one first attribute (``mr`` attributes after it)."""
        return 160 * mr * mr + self.counter._gemm_bytes(mr)

    def _triple_table(self, A, r0: int):
        """Triple tables of the first attributes ``A`` (long (B,)), over ``x, y`` in ``r0 .. m - 1``.

        Returns ``(D, R, keep)``, each (B, mr, mr): ``D`` the weighted ``|a x y|``, ``R`` the room
        of the triple ``(a, x, y)`` (inf unless ``a < x < y``), ``keep`` whether the best
        function of ``rep_cells`` passes.
        """
        torch = self._torch
        m = self.counter.m
        mr = m - r0
        x = torch.arange(r0, m, device=self.counter.device)
        D = self.counter._weighted_products((A.repeat_interleave(mr), x.repeat(len(A))), r0, self.alpha,
                                            self.beta).view(len(A), mr, mr)
        ws, wp = self.ws, self.wp
        F = torch.empty((2, 2, 2, len(A), mr, mr), dtype=torch.float64, device=self.counter.device)
        F[0, 0, 0] = self.w_total
        F[1, 0, 0] = ws[A][:, None, None]
        F[0, 1, 0] = ws[r0:][None, :, None]
        F[0, 0, 1] = ws[r0:][None, None, :]
        w_ax = wp[A][:, r0:]
        F[1, 1, 0] = w_ax[:, :, None]
        F[1, 0, 1] = w_ax[:, None, :]
        F[0, 1, 1] = wp[r0:, r0:][None]
        F[1, 1, 1] = D
        _mobius_(F, 3)
        G = F.view(8, -1)
        m3 = G.clamp_min(0).sum(0)                      # bounds every function of the 8 cells
        idx = (m3 >= self.thr).nonzero().ravel()
        for s in range(0, len(idx), self.rep_chunk):
            part = idx[s:s + self.rep_chunk]
            m3[part] = (self.rep @ G[:, part]).amax(0)
        del F, G
        valid = (x[None, :, None] > A[:, None, None]) & (x[None, None, :] > x[None, :, None])
        m3 = m3.view(len(A), mr, mr)
        keep = (m3 >= self.thr) & valid
        R = (self.threshold - self.slack) - m3.clamp_min_(max(0.0, self.w_total))
        R.masked_fill_(~valid, np.inf)
        return D, R, keep

    def _row_min(self):
        """``row_min[a, b]``: the least room of the triples ``(a, b, c)``, ``c > b`` (inf: none)."""
        torch = self._torch
        m = self.counter.m
        row_min = torch.full((m, m), np.inf, dtype=torch.float64, device=self.counter.device)
        i = 0
        while i < m - 2:
            r0 = i + 1
            count = self.block_budget // self._table_bytes(m - r0)
            if count < 1:
                raise PremiseSearchMemoryError(
                    f"the torch quadruple scan needs about {self._table_bytes(m - r0) / 1e6:.1f} MB "
                    f"for the triple table of one attribute ({m} attributes), more than half of "
                    f"memory_limit={self.counter.memory_limit / 1e6:.1f} MB")
            A = torch.arange(i, min(i + count, m - 2), device=self.counter.device)
            row_min[A, r0:] = self._triple_table(A, r0)[1].amin(2)
            i += len(A)
        return row_min

    def run(self, a_list: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scan the first attributes ``a_list``; returns ``(quads, trips)`` sorted lexicographically.

        Parameters
        ----------
        a_list : int array (k,)

        Returns
        -------
        quads : int64 ndarray (k, 4)
        trips : int64 ndarray (j, 3)
        """
        a_sorted = self.counter._first_attributes(a_list)
        quads, trips = [], []
        with self._torch.inference_mode():
            for a in a_sorted[a_sorted < self.counter.m - 2]:
                self._scan_first(int(a), quads, trips)
        return (np.concatenate(quads) if quads else np.zeros((0, 4), np.int64),
                np.concatenate(trips) if trips else np.zeros((0, 3), np.int64))

    def _scan_first(self, a: int, quads: list, trips: list) -> None:
        torch = self._torch
        m = self.counter.m
        dev = self.counter.device
        r0 = a + 1
        mr = m - r0
        fixed = self._table_bytes(mr)
        per_pair = 2 * self.counter._itemsize() * max(self.counter.n_pos, self.counter.n_neg, 1) + 112 * mr
        pair_chunk = (self.block_budget - fixed) // per_pair
        if pair_chunk < 1:
            raise PremiseSearchMemoryError(
                f"the torch quadruple scan needs about {(fixed + per_pair) / 1e6:.1f} MB for one "
                f"attribute ({m} attributes), more than half of "
                f"memory_limit={self.counter.memory_limit / 1e6:.1f} MB")
        D, R, keep = (t[0] for t in self._triple_table(torch.tensor([a], device=dev), r0))
        b, c = keep.nonzero(as_tuple=True)
        trips.append(torch.stack([torch.full_like(b, a), b + r0, c + r0], 1).cpu().numpy())
        del keep, b, c
        if mr < 3:
            return
        x = torch.arange(r0, m, device=dev)
        E = self.elim[r0:, r0:]                                     # E[i, j] = elim[r0 + i, r0 + j]
        near_a = torch.minimum(self.elim[a, r0:], self.elim_const[a])   # a replaced by b or a constant
        near_b = torch.minimum(self.elim[r0:, a], self.elim_const[r0:])
        # whole ranges: b (by a or a constant) or a (by b or a constant) for every (c, d)
        skip_b = (near_b < self.least_room_a[a, r0 + 1:]) | (near_a < self.least_b[r0:])
        # c by a, b or a constant, or b, a by c, for every d
        near_c = torch.minimum(torch.minimum(self.elim[r0:, a][None, :], E.T), self.elim_const[r0:][None, :])
        later = torch.full((mr, mr), np.inf, dtype=torch.float64, device=dev)
        later[:, :-1] = _suffix_min(torch, R)[:, 1:]               # least room of (a, b, c'), c' > c
        ok = near_c >= later
        del later
        ok &= torch.minimum(near_b[:, None], E) >= self.row_min[a, r0:][None, :]
        ok &= torch.minimum(near_a[:, None], self.elim[a, r0:][None, :]) >= self.row_min[r0:, r0:]
        ok &= (x[None, :] > x[:, None]) & (x[None, :] < m - 1) & ~skip_b[:, None]
        pb, pc = ok.nonzero(as_tuple=True)
        del ok
        for s in range(0, len(pb), pair_chunk):
            self._scan_pairs(a, r0, pb[s:s + pair_chunk], pc[s:s + pair_chunk], D, R, E, near_b, near_c, quads)

    def _scan_pairs(self, a, r0, b, c, D, R, E, near_b, near_c, quads) -> None:
        """Quadruples ``(a, b, c, d)`` of the pairs ``b, c`` (long, local to ``r0``) passing the test."""
        torch = self._torch
        d0 = int(c.min()) + 1                   # d runs over d0 .. mr - 1 (local)
        ba, ca = b + r0, c + r0
        # d replaced by a, b, c or a constant: the room of (a, b, c)
        keep = torch.minimum(torch.minimum(self.elim_t[a, r0 + d0:][None, :], self.elim_t[ba, r0 + d0:]),
                             torch.minimum(self.elim_t[ca, r0 + d0:], self.elim_const[r0 + d0:][None, :])) \
            >= R[b, c][:, None]
        keep &= torch.arange(d0, R.shape[0], device=keep.device)[None, :] > c[:, None]
        # c replaced by a, b, d or a constant: the room of (a, b, d)
        keep &= torch.minimum(near_c[b, c][:, None], E[c, d0:]) >= R[b, d0:]
        # b replaced by a, c, d or a constant: the room of (a, c, d)
        keep &= torch.minimum(torch.minimum(near_b[b], E[b, c])[:, None], E[b, d0:]) >= R[c, d0:]
        rows = keep.any(1).nonzero().ravel()
        if not len(rows):
            return
        keep, b, c, ba, ca = keep[rows], b[rows], c[rows], ba[rows], ca[rows]
        start = r0 + d0
        abcd = self.counter._weighted_products((a, ba, ca), start, self.alpha, self.beta)
        bcd = self.counter._weighted_products((ba, ca), start, self.alpha, self.beta)
        k, d = keep.nonzero(as_tuple=True)
        del keep
        self.counted += len(k)
        ws, wp = self.ws, self.wp
        for s in range(0, len(k), self.cell_chunk):
            kk, dd = k[s:s + self.cell_chunk], d[s:s + self.cell_chunk]
            bl, cl, dl = b[kk], c[kk], dd + d0
            bq, cq, dq = bl + r0, cl + r0, dl + r0
            F = torch.empty((2, 2, 2, 2, len(kk)), dtype=torch.float64, device=abcd.device)
            F[1, 1, 1, 1] = abcd[kk, dd]
            F[0, 1, 1, 1] = bcd[kk, dd]
            F[1, 1, 1, 0] = D[bl, cl]
            F[1, 1, 0, 1] = D[bl, dl]
            F[1, 0, 1, 1] = D[cl, dl]
            F[0, 0, 0, 0] = self.w_total
            F[1, 0, 0, 0] = ws[a]
            F[0, 1, 0, 0] = ws[bq]
            F[0, 0, 1, 0] = ws[cq]
            F[0, 0, 0, 1] = ws[dq]
            F[1, 1, 0, 0] = wp[a, bq]
            F[1, 0, 1, 0] = wp[a, cq]
            F[1, 0, 0, 1] = wp[a, dq]
            F[0, 1, 1, 0] = wp[bq, cq]
            F[0, 1, 0, 1] = wp[bq, dq]
            F[0, 0, 1, 1] = wp[cq, dq]
            _mobius_(F, 4)
            W = F.view(16, -1)
            idx = (W.clamp_min(0).sum(0) >= self.thr).nonzero().ravel()
            passed = [idx[i:i + self.quad_chunk][self._best(W[:, idx[i:i + self.quad_chunk]]) >= self.thr]
                      for i in range(0, len(idx), self.quad_chunk)]
            if passed:
                idx = torch.cat(passed)
                quads.append(torch.stack([torch.full_like(idx, a), bq[idx], cq[idx], dq[idx]], 1).cpu().numpy())


def _suffix_min(torch, T):
    """``out[i, j] = min(T[i, j:])`` along the last axis."""
    return T.flip(-1).cummin(-1).values.flip(-1)
