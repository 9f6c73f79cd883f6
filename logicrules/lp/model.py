"""The Boolean group-testing LP of an OR-rule, in the paper's reduced form (19).

An OR-rule over the columns of a 0/1 matrix A (rows = examples, columns = candidate literals)
is a 0/1 vector w; it fires on row i when ``a_i w >= 1``. The LP relaxation (10) of learning it
minimizes ``lam * sum(w) + sum(xi)`` with ``a_i w + xi_i >= 1`` on positive rows and
``a_i w = xi_i`` on negative rows. Substituting the negative rows' errors into the objective gives
the equivalent form (19), whose only constraints are the positive rows::

    minimize   sum_j c_j w_j + c_pos * sum_{i in P} xi_i,   c_j = lam + c_neg * ||a_Z^j||_1
    subject to A_P w + xi >= 1,  w >= 0,  xi >= 0

and whose dual (20) is ``maximize sum(mu)`` subject to ``0 <= mu_i <= c_pos`` and
``mu^T A_P <= c``. The negative rows only enter through the column costs, so the model stores
``A_P`` (sparse) and the cost vector; the paper's unweighted problem is ``c_pos = c_neg = 1``.
Class weights (``c_pos``, ``c_neg``) price errors on the two classes separately.

Storage: a dense 0/1 input is kept as a C-ordered ``bool`` array (one byte per cell, against 12
bytes per nonzero of a float64 CSR matrix, and no index arrays), a sparse input as CSR. Products
with it are compiled passes over its rows (:func:`matvec`, :func:`rmatvec`, :mod:`logicrules.lp.kernels`),
so no float copy of the matrix is ever made; the solvers receive CSR only for the (small) reduced
problem.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["GroupTestingProblem", "as_binary_matrix", "as_compact_matrix", "build_problem",
           "problem_from_rows", "check_lam", "class_costs", "matvec", "rmatvec", "column_counts", "row_counts",
           "row_max", "to_csr"]

#: Cells per row block of the blocked row scans (a few MB of booleans).
_BLOCK_CELLS = 1 << 22


def as_binary_matrix(A, name: str) -> sparse.csr_array:
    """Validate a dense or sparse 0/1 matrix and return it as a float64 CSR array.

    Parameters
    ----------
    A : array-like or scipy sparse matrix of shape (rows, columns)
        Entries 0/1 or booleans.
    name : str
        Name used in error messages (e.g. ``"A_pos"``).

    Returns
    -------
    scipy.sparse.csr_array
        The same matrix (a copy: the input is never modified), explicit zeros removed.

    Examples
    --------
    >>> as_binary_matrix([[1, 0], [0, 1]], "A").toarray()
    array([[1., 0.],
           [0., 1.]])
    """
    if sparse.issparse(A):
        M = sparse.csr_array(A, dtype=np.float64, copy=True)
    else:
        dense = np.asarray(A)
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a 2-D 0/1 matrix, got an array with {dense.ndim} dimension(s)")
        if dense.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold 0/1 numbers or booleans, got dtype {dense.dtype}")
        M = sparse.csr_array(dense.astype(np.float64))
    if M.ndim != 2:
        raise ValueError(f"{name} must be 2-D")
    M.eliminate_zeros()
    values = M.data
    if values.size and not (np.isfinite(values).all() and np.all(values == 1.0)):
        raise ValueError(f"{name} must contain only 0 and 1 (found other values, e.g. NaN or 2)")
    M.sort_indices()
    return M


def check_lam(lam) -> float:
    """Validate the literal cost ``lam`` (a finite number >= 0) and return it as a float.

    Examples
    --------
    >>> check_lam(1)
    1.0
    """
    try:
        lam = float(lam)
    except (TypeError, ValueError):
        raise TypeError(f"lam must be a number, got {lam!r}") from None
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be finite and >= 0, got {lam}")
    return lam


def as_compact_matrix(A, name: str):
    """Validate a 0/1 matrix and return it in compact storage: dense ``bool`` or CSR.

    Parameters
    ----------
    A : array-like or scipy sparse matrix of shape (rows, columns)
        Entries 0/1 or booleans.
    name : str
        Name used in error messages.

    Returns
    -------
    ndarray of bool (C order) or scipy.sparse.csr_array
        A dense input becomes a bool array (the input itself when it already is one: it is only
        read), a sparse input a float64 CSR array as in :func:`as_binary_matrix`.

    Examples
    --------
    >>> as_compact_matrix([[1, 0], [0, 1]], "A").dtype
    dtype('bool')
    """
    if sparse.issparse(A):
        return as_binary_matrix(A, name)
    dense = np.asarray(A)
    if dense.ndim != 2:
        raise ValueError(f"{name} must be a 2-D 0/1 matrix, got an array with {dense.ndim} dimension(s)")
    if dense.dtype == bool:
        return np.ascontiguousarray(dense)
    if dense.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold 0/1 numbers or booleans, got dtype {dense.dtype}")
    if dense.size and not np.all((dense == 0) | (dense == 1)):
        raise ValueError(f"{name} must contain only 0 and 1 (found other values, e.g. NaN or 2)")
    return np.ascontiguousarray(dense != 0)


def _row_blocks(n_rows: int, n_columns: int):
    step = max(1, _BLOCK_CELLS // max(n_columns, 1))
    for start in range(0, n_rows, step):
        yield start, min(start + step, n_rows)


def matvec(A, v: np.ndarray) -> np.ndarray:
    """``A @ v`` in float64 for a dense bool or CSR 0/1 matrix (one compiled pass, no float copy).

    Examples
    --------
    >>> matvec(np.array([[True, False], [True, True]]), np.array([0.5, 2.0])).tolist()
    [0.5, 2.5]
    """
    from logicrules.lp import kernels

    return kernels.matvec(A, v)


def rmatvec(A, u: np.ndarray) -> np.ndarray:
    """``A.T @ u`` in float64 for a dense bool or CSR 0/1 matrix (one compiled pass, no float copy).

    Examples
    --------
    >>> rmatvec(np.array([[True, False], [True, True]]), np.array([0.5, 2.0])).tolist()
    [2.5, 2.0]
    """
    from logicrules.lp import kernels

    return kernels.rmatvec(A, u)


def column_counts(A) -> np.ndarray:
    """Number of true cells per column, as float64.

    Examples
    --------
    >>> column_counts(np.array([[True, False], [True, True]])).tolist()
    [2.0, 1.0]
    """
    if sparse.issparse(A):
        return np.asarray(A.sum(axis=0), dtype=np.float64).ravel()
    return np.count_nonzero(A, axis=0).astype(np.float64)


def row_max(A, w: np.ndarray) -> np.ndarray:
    """Per row, the largest ``w_j`` over its true columns (``-inf`` on a row with none).

    Examples
    --------
    >>> row_max(np.array([[True, True], [False, False]]), np.array([0.5, 2.0])).tolist()
    [2.0, -inf]
    """
    from logicrules.lp import kernels

    return kernels.row_max(A, w)


def row_counts(A) -> np.ndarray:
    """Number of true cells per row (int64).

    Examples
    --------
    >>> row_counts(np.array([[True, True], [False, True]])).tolist()
    [2, 1]
    """
    if sparse.issparse(A):
        return np.diff(A.indptr).astype(np.int64)
    return np.count_nonzero(A, axis=1).astype(np.int64)


def to_csr(A) -> sparse.csr_array:
    """The 0/1 matrix as a float64 CSR array (what the LP solvers take).

    Examples
    --------
    >>> to_csr(np.array([[True, False]])).toarray().tolist()
    [[1.0, 0.0]]
    """
    if sparse.issparse(A):
        return sparse.csr_array(A)
    cols = np.nonzero(A)[1]
    indptr = np.zeros(A.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(A, axis=1), out=indptr[1:])
    return sparse.csr_array((np.ones(cols.size), cols, indptr), shape=A.shape)


def class_costs(weights) -> tuple[float, float]:
    """Resolve ``weights`` into the costs ``(c_pos, c_neg)`` of one error on each class.

    Parameters
    ----------
    weights : None or pair of float
        None means the paper's unweighted problem ``(1, 1)``; otherwise
        ``(cost of a positive row left uncovered, cost of a negative row covered)``, both > 0.

    Examples
    --------
    >>> class_costs(None), class_costs((2, 0.5))
    ((1.0, 1.0), (2.0, 0.5))
    """
    if weights is None:
        return 1.0, 1.0
    try:
        c_pos, c_neg = (float(v) for v in weights)
    except (TypeError, ValueError):
        raise TypeError(f"weights must be None or a pair (positive cost, negative cost), got {weights!r}") from None
    if not (np.isfinite(c_pos) and np.isfinite(c_neg) and c_pos > 0 and c_neg > 0):
        raise ValueError(f"class weights must be finite and > 0, got ({c_pos}, {c_neg})")
    return c_pos, c_neg


@dataclass(frozen=True)
class GroupTestingProblem:
    """An instance of the LP (19): positive rows, column costs and the positive-error cost.

    Build it with :func:`build_problem`. Methods evaluate primal and dual solutions exactly
    (vectorized sparse products), so every solver and heuristic shares one definition of the
    objective and of dual feasibility.

    Attributes
    ----------
    A_pos : ndarray of bool or scipy.sparse.csr_array, shape (p, n)
        Positive rows over the candidate columns (dense bool, or float 0/1 CSR for sparse input).
    costs : ndarray of shape (n,)
        ``c_j = lam + c_neg * (number of negative rows where column j is 1)``.
    neg_counts : ndarray of shape (n,)
        Number of negative rows where each column is 1.
    lam : float
        Cost of one selected column.
    c_pos, c_neg : float
        Cost of an uncovered positive row and of a covered negative row.
    row_weights : ndarray of shape (p,) or None
        Weights of the positive rows (None: all 1); an uncovered positive row ``i`` costs
        ``c_pos * row_weights[i]`` (its :attr:`row_costs`), and ``neg_counts`` are then the
        weighted sums over the negative rows.

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1]], [[0, 1]], lam=0.5)
    >>> P.costs.tolist(), P.integer_objective(np.array([True, False]))
    ([0.5, 1.5], 0.5)
    """

    A_pos: np.ndarray | sparse.csr_array
    costs: np.ndarray
    neg_counts: np.ndarray
    lam: float
    c_pos: float
    c_neg: float
    row_weights: np.ndarray | None = None

    @property
    def row_costs(self) -> np.ndarray:
        """Cost of leaving each positive row uncovered: ``c_pos`` times its weight."""
        if self.row_weights is None:
            return np.full(self.n_rows, self.c_pos)
        return self.c_pos * self.row_weights

    def row_total(self, values: np.ndarray) -> float:
        """``sum_i row_costs[i] * values[i]`` (``c_pos * sum(values)`` without row weights)."""
        values = np.asarray(values, dtype=np.float64)
        if self.row_weights is None:
            return float(self.c_pos * values.sum())
        return float(self.row_costs @ values)

    def _rows_of(self, rows) -> np.ndarray | None:
        return None if self.row_weights is None else self.row_weights[np.asarray(rows)]

    @property
    def n_rows(self) -> int:
        """Number of positive rows p."""
        return int(self.A_pos.shape[0])

    @property
    def n_columns(self) -> int:
        """Number of candidate columns n."""
        return int(self.A_pos.shape[1])

    def coverage(self, w: np.ndarray) -> np.ndarray:
        """``A_P w``: the (weighted) number of selected columns true on each positive row."""
        return matvec(self.A_pos, w)

    def objective(self, w: np.ndarray) -> float:
        """Value of (19) at w with the best slack ``xi = max(0, 1 - A_P w)``."""
        w = np.asarray(w, dtype=np.float64)
        xi = np.maximum(0.0, 1.0 - self.coverage(w))
        return float(self.costs @ w) + self.row_total(xi)

    def integer_objective(self, w: np.ndarray) -> float:
        """Value of the integer program at a 0/1 vector w (uncovered positives pay ``c_pos``)."""
        w = np.asarray(w, dtype=bool)
        return float(self.costs[w].sum()) + self.row_total(~self.covered(w))

    def covered(self, w: np.ndarray) -> np.ndarray:
        """Boolean mask of the positive rows on which a column of the 0/1 vector w is true."""
        columns = np.flatnonzero(np.asarray(w, dtype=bool))
        if columns.size == 0:
            return np.zeros(self.n_rows, dtype=bool)
        if sparse.issparse(self.A_pos):
            return np.asarray(self.A_pos[:, columns].sum(axis=1)).ravel() > 0
        out = np.empty(self.n_rows, dtype=bool)
        for start, stop in _row_blocks(*self.A_pos.shape):
            out[start:stop] = self.A_pos[start:stop, columns].any(axis=1)
        return out

    def dual_slack(self, mu: np.ndarray) -> np.ndarray:
        """Reduced costs ``c - mu^T A_P`` of the columns (all >= 0 when mu is dual feasible)."""
        return self.costs - rmatvec(self.A_pos, mu)

    def dual_violation(self, mu: np.ndarray) -> float:
        """Largest violation of the dual (20) constraints by mu (0 when feasible)."""
        mu = np.asarray(mu, dtype=np.float64)
        if mu.shape != (self.n_rows,):
            raise ValueError(f"the dual needs one value per positive row ({self.n_rows}), got shape {mu.shape}")
        bounds = max(0.0, float(-mu.min(initial=0.0)), float((mu - self.row_costs).max(initial=0.0)))
        slack = self.dual_slack(mu)
        return max(bounds, float(-slack.min(initial=0.0)))

    def tolerance(self) -> float:
        """Absolute tolerance for comparing objective values of this instance."""
        scale = max(1.0, self.row_total(np.ones(self.n_rows)), float(self.costs.max(initial=0.0)))
        return 1e-7 * scale

    def restrict_rows(self, rows: np.ndarray) -> GroupTestingProblem:
        """The problem on a subset of the positive rows (same column costs)."""
        return GroupTestingProblem(self.A_pos[np.asarray(rows)], self.costs, self.neg_counts,
                                   self.lam, self.c_pos, self.c_neg, self._rows_of(rows))

    def sample_rows(self, rows: np.ndarray) -> GroupTestingProblem:
        """The problem on a sample of the positive rows, with column costs scaled by its fraction.

        Scaling by ``f = len(rows) / p`` keeps the balance of errors and rule size of the full
        problem (as if the negative rows and lam were sampled at the same rate); the costs only
        shrink, so a feasible dual of the sample, padded with zeros, is feasible for the full (20).
        """
        rows = np.asarray(rows)
        fraction = rows.size / max(self.n_rows, 1)
        return GroupTestingProblem(self.A_pos[rows], self.costs * fraction, self.neg_counts,
                                   self.lam, self.c_pos, self.c_neg, self._rows_of(rows))

    def restrict_columns(self, columns: np.ndarray) -> GroupTestingProblem:
        """The problem on a subset of the columns (indices or a boolean mask)."""
        columns = np.asarray(columns)
        return GroupTestingProblem(self.A_pos[:, columns], self.costs[columns], self.neg_counts[columns],
                                   self.lam, self.c_pos, self.c_neg, self.row_weights)


def build_problem(A_pos, A_neg, lam: float, weights=None, pos_weight=None,
                  neg_weight=None) -> GroupTestingProblem:
    """Build the LP (19) for an OR-rule from the positive and the negative rows.

    Parameters
    ----------
    A_pos : array-like or sparse matrix of shape (p, n)
        0/1 rows of the positive examples (the rule should fire on them).
    A_neg : array-like or sparse matrix of shape (z, n)
        0/1 rows of the negative examples (the rule should not fire on them); z may be 0.
    lam : float
        Cost of one selected column (literal), >= 0, in units of one (weighted) error.
    weights : None or pair of float, optional
        ``(c_pos, c_neg)``: cost of an uncovered positive and of a covered negative row.
    pos_weight, neg_weight : array-like of float, optional
        Row weights of the positive and of the negative rows (finite, > 0; None: all 1): each
        row counts as that many identical rows.

    Returns
    -------
    GroupTestingProblem

    Examples
    --------
    >>> P = build_problem([[1, 0, 1]], [[1, 1, 0], [0, 0, 0]], lam=1.0)
    >>> P.costs.tolist()
    [2.0, 2.0, 1.0]
    """
    P = as_compact_matrix(A_pos, "A_pos")
    Z = as_compact_matrix(A_neg, "A_neg")
    if P.shape[1] != Z.shape[1]:
        raise ValueError(f"A_pos and A_neg must have the same columns, got {P.shape[1]} and {Z.shape[1]}")
    pos_w = _row_weights(pos_weight, P.shape[0], "pos_weight")
    neg_w = _row_weights(neg_weight, Z.shape[0], "neg_weight")
    neg_counts = column_counts(Z) if neg_w is None else rmatvec(Z, neg_w)
    return _problem(P, neg_counts, lam, weights, pos_w)


def problem_from_rows(A, positive: np.ndarray, negative: np.ndarray, lam: float, weights=None, *,
                      complement: bool = False, sample_weight=None) -> GroupTestingProblem:
    """Build the LP (19) from one literal matrix and masks of its positive and negative rows.

    Only the positive rows are copied (the negatives enter through their column counts), so
    this needs far less memory than slicing ``A[positive]`` and ``A[negative]`` first.

    Parameters
    ----------
    A : ndarray of bool, shape (rows, n)
        Literal matrix (only read).
    positive, negative : ndarray of bool, shape (rows,)
        Rows the rule should fire on / should not fire on (disjoint; other rows are ignored).
    lam, weights
        As in :func:`build_problem`.
    complement : bool, default False
        Build the problem of ``~A`` (the De Morgan dual used for conjunctions) without
        materializing ``~A``.
    sample_weight : ndarray of shape (rows,), optional
        Row weights (finite, > 0; None: all 1), as ``pos_weight`` / ``neg_weight`` of
        :func:`build_problem`.

    Returns
    -------
    GroupTestingProblem

    Examples
    --------
    >>> A = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 0]], dtype=bool)
    >>> P = problem_from_rows(A, np.array([1, 0, 0], bool), np.array([0, 1, 1], bool), lam=1.0)
    >>> P.costs.tolist()
    [2.0, 2.0, 1.0]
    """
    A = as_compact_matrix(A, "A")
    positive = np.asarray(positive, dtype=bool)
    negative = np.asarray(negative, dtype=bool)
    if positive.shape != (A.shape[0],) or negative.shape != (A.shape[0],):
        raise ValueError(f"positive and negative must be boolean masks over the {A.shape[0]} rows of A")
    sw = _row_weights(sample_weight, A.shape[0], "sample_weight")
    P = A[positive]
    if complement:
        P = ~(P.toarray() != 0) if sparse.issparse(P) else ~P
    rows = np.flatnonzero(negative)
    if sparse.issparse(A):
        Z = A[rows]
        neg = column_counts(Z) if sw is None else rmatvec(Z, sw[rows])
    else:
        neg = np.zeros(A.shape[1])
        step = max(1, _BLOCK_CELLS // max(A.shape[1], 1))
        for start in range(0, rows.size, step):
            block = rows[start:start + step]
            neg += np.count_nonzero(A[block], axis=0) if sw is None else rmatvec(A[block], sw[block])
    if complement:
        neg = (float(rows.size) if sw is None else float(sw[rows].sum())) - neg
    return _problem(P, neg, lam, weights, None if sw is None else sw[positive])


def _problem(P, neg_counts: np.ndarray, lam, weights, pos_weight) -> GroupTestingProblem:
    lam = check_lam(lam)
    c_pos, c_neg = class_costs(weights)
    costs = lam + c_neg * neg_counts
    return GroupTestingProblem(P, costs, neg_counts, lam, c_pos, c_neg, pos_weight)


def _row_weights(weights, n: int, name: str) -> np.ndarray | None:
    if weights is None:
        return None
    weights = np.asarray(weights, dtype=np.float64).ravel()
    if weights.shape != (n,):
        raise ValueError(f"{name} must have one weight per row ({n}), got shape {weights.shape}")
    if not (np.isfinite(weights).all() and (weights > 0).all()):
        raise ValueError(f"{name} must hold finite weights > 0 (leave rows of weight 0 out)")
    return weights
