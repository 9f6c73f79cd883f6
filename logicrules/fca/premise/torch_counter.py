"""The torch backend's counter: dense 0/1 attribute matrices on a device, and the size-3 scan over them.

The numba kernels count ``a AND b AND c`` with one popcount per attribute combination
(:mod:`~logicrules.fca.premise.triple_scan`). On a GPU the same counts are matrix products of
0/1 matrices: for a list of attribute pairs ``(a, b)``, ``|a AND b AND c|`` over all ``c`` is
one GEMM of the rows where both hold. The search's exact proximity pruning decides, as whole
rows of masks, which pairs are worth a GEMM row and which triples get their cells computed; the
cells, the closed forms of the best formula and the linear test run as tensor operations over
them. The size-4 scan over the same matrices is :class:`~logicrules.fca.premise.torch_quadruples.QuadrupleScan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules.fca.premise.results import PremiseSearchMemoryError
from logicrules.fca.premise.space import _quadruple_index_tables
from logicrules.fca.premise.torch_closed_forms import _best3, _mobius_, _suffix_min
from logicrules.fca.premise.torch_device import _check_exact_rows, _import_torch, torch_device
from logicrules.fca.premise.torch_quadruples import QuadrupleScan

__all__ = ["TorchCounter"]

_STAGING_BYTES = 32 * 2**20     # host bytes of one block of the transfer of the bitsets to the device
_MIN_BLOCK_BYTES = 2**18        # least room for the scans' blocks beside the matrices (CPU device, counted)
_TRIPLE_BYTES = 192             # peak bytes per triple (a, b, c) in the size-3 closed form
_HALF_GEMM_DEVICES = ("cuda",)  # device types whose float16 GEMMs may write float32 (probed first)
_PROBE_DEPTH = 4099             # > 2048 and odd: a float16 accumulator or output cannot hold the sum


class TorchCounter:
    """Dense 0/1 attribute matrices of one search on a torch device, and the scans over them.

    The scans return the same attribute combinations as the numba kernels
    :func:`~logicrules.fca.premise.triple_scan.scan_triples` and
    :func:`~logicrules.fca.premise.quadruple_scan.scan_quadruples` (a superset of what those keep:
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
        The resident matrices (``m (n_pos + n_neg)`` entries of 2 or 4 bytes, 8 with
        ``row_weights``) come on top, unless ``limit_covers_matrices``.
    row_weights : (float64 ndarray, float64 ndarray), optional
        The weight of each row of the two classes: counts become sums of weights (float64
        matrices). Without ``row_positions``, one weight per bit position (``n_pos`` and
        ``n_neg`` of them; positions of weight 0 are left out of the matrices).
    row_positions : (int64 ndarray, int64 ndarray), optional
        With ``row_weights``: the increasing bit positions holding the rows (weighted bitsets
        have gaps between groups of equal weight), one per weight; only they become columns.
    staging_bytes : int, default 32 MiB
        Host memory of one block of the transfer to the device: the bitsets are unpacked a few
        words at a time into the device matrices, never whole on the host.
    limit_covers_matrices : bool, default False
        On a CPU device the matrices are host memory: count them in ``memory_limit`` (checked
        before they are allocated; the blocks get what is left).

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
                 memory_limit: int = 2 * 1024**3, row_weights: tuple[np.ndarray, np.ndarray] | None = None,
                 row_positions: tuple[np.ndarray, np.ndarray] | None = None, staging_bytes: int = _STAGING_BYTES,
                 limit_covers_matrices: bool = False):
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
        positions: list[np.ndarray | None] = [None, None]
        if row_weights is not None:
            row_weights = [np.asarray(w, dtype=np.float64) for w in row_weights]
            if row_positions is None:
                if [w.shape for w in row_weights] != [(n_pos,), (n_neg,)]:
                    raise ValueError(f"row_weights must be two arrays of n_pos={n_pos} and n_neg={n_neg} weights")
                positions = [np.flatnonzero(w > 0) for w in row_weights]
                row_weights = [w[pos] for w, pos in zip(row_weights, positions)]
            else:
                positions = [np.asarray(pos, dtype=np.int64) for pos in row_positions]
                if [w.shape for w in row_weights] != [pos.shape for pos in positions] or any(
                        pos.size and (pos[0] < 0 or pos[-1] >= n or (np.diff(pos) <= 0).any())
                        for pos, n in zip(positions, (n_pos, n_neg))):
                    raise ValueError("row_positions must be two increasing arrays of bit positions below n_pos and "
                                     "n_neg, one per weight of row_weights")
        elif row_positions is not None:
            raise ValueError("row_positions go with row_weights")
        if int(memory_limit) <= 0:
            raise ValueError(f"memory_limit must be positive, got {memory_limit}")
        self._torch = torch
        self.device = torch_device(device)
        self.memory_limit = int(memory_limit)
        self.m = bits_p.shape[0]
        # columns of the matrices: the rows themselves (weighted: only the positions holding one)
        self.n_pos, self.n_neg = (n_pos, n_neg) if row_weights is None else (len(positions[0]), len(positions[1]))
        self.total_p, self.total_n = (float(n_pos), float(n_neg)) if row_weights is None else \
            (float(row_weights[0].sum()), float(row_weights[1].sum()))
        self._dtype = torch.float32 if row_weights is None else torch.float64
        self._out_dtype = False
        if row_weights is None and self.device.type in _HALF_GEMM_DEVICES and self._half_gemm_works():
            self._dtype = torch.float16
            self._out_dtype = True
        if limit_covers_matrices and self.device.type == "cpu":
            need = self.matrix_bytes
            if need + _MIN_BLOCK_BYTES > self.memory_limit:
                raise PremiseSearchMemoryError(
                    f"the torch backend's dense 0/1 matrices on the CPU ({self.m} attributes x "
                    f"{self.n_pos + self.n_neg} rows x {self._itemsize()} bytes) need about {need / 1e9:.3g} GB, "
                    f"more than the {self.memory_limit / 1e9:.3g} GB of memory_limit left to them; use "
                    "backend='numba' (one bit per cell), fewer rows or attributes, or raise memory_limit")
            self.memory_limit -= need
        self._rw = None if row_weights is None else [torch.as_tensor(w, device=self.device) for w in row_weights]
        self._x = [self._dense(bits, n, pos, int(staging_bytes))
                   for bits, n, pos in ((bits_p, self.n_pos, positions[0]), (bits_n, self.n_neg, positions[1]))]
        half, pair = _quadruple_index_tables()
        self._half = torch.as_tensor(half.reshape(-1), device=self.device)
        self._pair = torch.as_tensor(pair.reshape(-1), device=self.device)

    @property
    def matrix_bytes(self) -> int:
        """Bytes of the resident 0/1 matrices (``m`` attributes x the rows of both classes)."""
        return self._itemsize() * self.m * (self.n_pos + self.n_neg)

    def _dense(self, bits: np.ndarray, n: int, positions: np.ndarray | None, staging_bytes: int):
        """The (m, n) 0/1 matrix of packed ``bits`` on the device, moved a block of words at a time.

        Columns are the first ``n`` bit positions, or the bit positions ``positions``. A block
        holds about ``staging_bytes`` on the host (its words, their unpacked bits and the cast).
        """
        torch = self._torch
        m, words = bits.shape
        out = torch.empty((m, n), dtype=self._dtype, device=self.device)
        per_word = max(1, m) * (8 + 64 * (2 + self._itemsize()))
        step = max(1, staging_bytes // per_word)
        for w0 in range(0, words, step):
            lo, hi = 64 * w0, 64 * min(words, w0 + step)
            c0, c1 = (min(lo, n), min(hi, n)) if positions is None else np.searchsorted(positions, [lo, hi])
            if c0 == c1:
                continue
            block = np.unpackbits(np.ascontiguousarray(bits[:, w0:w0 + step], dtype="<u8").view(np.uint8), axis=1,
                                  bitorder="little")
            block = block[:, :c1 - c0] if positions is None else block[:, positions[c0:c1] - lo]
            out[:, c0:c1] = torch.from_numpy(block).to(device=self.device, dtype=self._dtype)
            del block
        return out

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
        alpha, beta, w_single, w_pair, w_total, threshold, negations
            The linear test, as in :func:`~logicrules.fca.premise.triple_scan.scan_triples`
            (``w_single``, ``w_pair``: float64 (m,), (m, m) weighted single and pair counts).
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
