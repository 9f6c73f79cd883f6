"""The most accurate DNF within a literal budget, searched over a type histogram.

The empirical ideal DNF is the most accurate formula over its ``k`` attributes on the training
rows, but it may need many literals. :func:`bounded_dnf` looks for the DNF of at most
``max_literals`` literals over the same attributes with the most training rows classified
right. What is optimised is exactly that count, read from the per-class training counts of the
realized types (a :class:`~logicrules.fca.counts.TypeHistogram`, never the rows): a type that
a term covers is predicted positive, the others negative. The rule may also be the negation
of a DNF (covered types negative), which is the shorter form when the positive class is the
majority, as in the ideal DNF itself. Types without training rows (unseen or impossible
cells) weigh nothing: they are don't-cares.

Search. Every cube (conjunction) over the ``k`` attributes, ``3**k`` of them, gets its covered
weight at once by a sum over the cube lattice (``k`` vectorized passes). Starts: the ideal DNF
minimized (with and without the unseen types as don't-cares) and truncated (its terms in
decreasing gain, kept while they fit: what a naive bound would do), and two greedy covers (most gain per
literal, most gain). Each start is improved by local search (the best of them then also by pair moves): replace one
term, or merge two, by the best cube within the remaining budget (this generalizes a term by dropping literals,
specializes it, removes it when nothing helps), add a term; every move is scored for all
``3**k`` cubes by one lattice sum. Moves are taken while they add training accuracy (or keep it
with fewer literals), so the result is never less accurate on the training counts than the
truncation. On small lattices an integer program (HiGHS through SciPy) gives the proved
optimum (``exact``).

:func:`validated_bounded_dnf` chooses among the optima of both polarities and the shorter
rules on their removal chains (terms removed one at a time, least loss first) by validation
accuracy (ties: training accuracy, then fewer literals).

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.counts import TypeHistogram
>>> # a, b: neg/pos counts of the four types (a, b) = 00, 10, 01, 11
>>> h = TypeHistogram((0, 1), np.arange(4), np.array([[40, 5, 5, 1], [2, 31, 30, 20]]))
>>> r = bounded_dnf(h, 2, features=["a", "b"])
>>> print(r.formula, r.n_literals, round(r.training_accuracy, 3))
a OR b 2 0.903
>>> print(bounded_dnf(h, 1, features=["a", "b"]).formula)
a
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, sparse

from logicrules.fca.counts import TypeHistogram
from logicrules.formula import Formula, Literal, conjunction, disjunction
from logicrules.simplify import prime_implicants

__all__ = ["BoundedDNF", "MAX_BOUNDED_FEATURES", "bounded_dnf", "validated_bounded_dnf"]

#: Most attributes searched (the cube lattice holds 3**k cubes: 531441 at 12).
MAX_BOUNDED_FEATURES = 12
#: Largest integer program tried for the exact optimum (candidate cubes x weighted types).
_EXACT_CELLS = 4_000
#: Seconds for that program; past them, the local search's answer stands.
_EXACT_SECONDS = 1.0


@dataclass(frozen=True)
class BoundedDNF:
    """A rule of at most a given number of literals found by :func:`bounded_dnf`.

    Attributes
    ----------
    cubes : tuple of (int, int)
        Its terms as ``(value, mask)`` pairs of type codes: bit ``j`` of ``mask`` set means
        attribute ``j`` is free, else the term requires bit ``j`` of ``value``.
    negated : bool
        Whether the rule is the negation of the disjunction of ``cubes`` (covered types
        predicted negative).
    n_literals : int
        Literals of the rule (at most the budget).
    training_accuracy : float
        Fraction (of the weight) of the histogram's rows the rule classifies right.
    exact : bool
        Whether the rule is proved the most accurate within the budget (integer program).
    formula : Formula
        The rule over the histogram's attributes.
    """

    cubes: tuple[tuple[int, int], ...]
    negated: bool
    n_literals: int
    training_accuracy: float
    exact: bool
    formula: Formula

    def predict(self, codes: np.ndarray) -> np.ndarray:
        """The rule on type codes (bit ``j``: attribute ``j``)."""
        codes = np.asarray(codes, dtype=np.int64)
        covered = np.zeros(codes.shape, dtype=bool)
        for value, mask in self.cubes:
            covered |= (codes & ~mask) == value
        return covered ^ self.negated


@functools.lru_cache(maxsize=4)
def _lattice(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Literals, values and masks of the ``3**k`` cubes; cube ``sum_j d_j 3**j`` has digit
    ``d_j`` 0 (attribute j false), 1 (true) or 2 (free)."""
    index = np.arange(3 ** k, dtype=np.int64)
    digits = (index[:, None] // 3 ** np.arange(k, dtype=np.int64)) % 3 if k else np.zeros((1, 0), np.int64)
    bits = np.left_shift(np.int64(1), np.arange(k, dtype=np.int64))
    literals = (digits != 2).sum(axis=1)
    return literals, (digits == 1).astype(np.int64) @ bits, (digits == 2).astype(np.int64) @ bits


def _cube_sums(dense: np.ndarray, k: int) -> np.ndarray:
    """For every cube (lattice order), the sum of ``dense`` (indexed by type code) over its codes.

    Bit by bit from the lowest: the array holds the sums over the processed bits' cubes
    (trailing, base 3) for each value of the other bits (leading, base 2).
    """
    f = np.asarray(dense, dtype=np.float64).reshape(1 << k, 1)
    for j in range(k):
        g = f.reshape(1 << (k - j - 1), 2, 3 ** j)
        out = np.empty((g.shape[0], 3, 3 ** j))
        out[:, :2] = g
        np.add(g[:, 0], g[:, 1], out=out[:, 2])
        f = out.reshape(g.shape[0], 3 ** (j + 1))
    return f.reshape(-1)


class _Search:
    """Local search for the cubes of most covered gain within a literal budget."""

    def __init__(self, gain: np.ndarray, k: int, budget: int) -> None:
        self.gain, self.k, self.budget = gain, k, budget
        self.literals, self.values, self.masks = _lattice(k)
        self.codes = np.arange(1 << k, dtype=np.int64)
        self.tol = 1e-9 * max(float(np.abs(gain).sum()), 1e-300)

    def covered(self, cubes: Sequence[int]) -> np.ndarray:
        out = np.zeros(self.codes.size, dtype=bool)
        for c in cubes:
            out |= (self.codes & ~self.masks[c]) == self.values[c]
        return out

    def score(self, cubes: Sequence[int]) -> float:
        return float(self.gain[self.covered(cubes)].sum())

    def size(self, cubes: Sequence[int]) -> int:
        return int(self.literals[list(cubes)].sum()) if len(cubes) else 0

    def best_addition(self, cubes: Sequence[int], room: int, per_literal: bool = False) -> tuple[int, float]:
        """The cube of at most ``room`` literals adding the most gain to ``cubes`` (-1 if none
        adds any); ties: fewer literals, then lattice order."""
        if room < 1:
            return -1, 0.0
        g = _cube_sums(np.where(self.covered(cubes), 0.0, self.gain), self.k)
        allowed = np.flatnonzero((self.literals >= 1) & (self.literals <= room) & (g > self.tol))
        if allowed.size == 0:
            return -1, 0.0
        key = g[allowed] / self.literals[allowed] if per_literal else g[allowed]
        top = allowed[key >= key.max() - self.tol]
        best = int(top[np.argmin(self.literals[top])])  # argmin: first of the fewest literals
        return best, float(g[best])

    def greedy(self, per_literal: bool) -> list[int]:
        cubes: list[int] = []
        while True:
            c, _ = self.best_addition(cubes, self.budget - self.size(cubes), per_literal)
            if c < 0:
                return cubes
            cubes.append(c)

    def improve(self, cubes: list[int], pairs: bool = True) -> list[int]:
        """Moves until none adds gain (or keeps it with fewer literals): add a term, replace
        one, and (with ``pairs``, when no single move helps) replace two by one."""
        cubes = list(cubes)
        current = (self.score(cubes), -self.size(cubes))
        while True:
            n = len(cubes)
            removals = [()] + [(i,) for i in range(n)]
            removals += [(i, j) for i in range(n) for j in range(i + 1, n)] if pairs else []
            best, best_key = None, current
            for removed in removals:
                rest = [c for i, c in enumerate(cubes) if i not in removed]
                base, size = self.score(rest), self.size(rest)
                options = [(rest, base, size)] if removed else []
                c, g = self.best_addition(rest, self.budget - size)
                if c >= 0:
                    options.append((rest + [c], base + g, size + int(self.literals[c])))
                for option, score, literals in options:
                    if score > best_key[0] + self.tol or (score >= best_key[0] - self.tol
                                                          and -literals > best_key[1]):
                        best, best_key = option, (score, -literals)
                if best is not None and len(removed) < 2:
                    break  # a single-term move improves: take it before trying pairs
            if best is None:
                return cubes
            cubes, current = best, best_key

    def truncation(self, dont_care: np.ndarray) -> list[int]:
        """The naive bound: the positive types' prime cover (essential primes, then most newly
        covered; ``dont_care`` codes may be covered), terms in decreasing gain (then fewer
        literals, lower code), kept while they fit in the budget."""
        positive = self.codes[self.gain > 0]
        if positive.size == 0:
            return []
        values, masks = prime_implicants(np.concatenate([positive, self.codes[dont_care]]), self.k)
        covers = (positive[None, :] & ~masks[:, None]) == values[:, None]
        n_literals = self.k - np.array([int(m).bit_count() for m in masks], dtype=np.int64)
        chosen = list(np.flatnonzero((covers & (covers.sum(axis=0) == 1)).any(axis=1)))
        left = ~covers[chosen].any(axis=0)
        while left.any():
            chosen.append(int(np.lexsort((values, n_literals, -(covers & left).sum(axis=1)))[0]))
            left &= ~covers[chosen[-1]]
        three = 3 ** np.arange(self.k, dtype=np.int64)
        bits = np.arange(self.k, dtype=np.int64)
        cubes = [int(((((int(masks[p]) >> bits) & 1) * 2 + ((int(values[p]) >> bits) & 1)) * three).sum())
                 for p in sorted(chosen, key=lambda p: (n_literals[p], int(values[p])))]
        cubes.sort(key=lambda c: -self.score([c]))
        kept: list[int] = []
        for c in cubes:
            if self.size(kept) + int(self.literals[c]) <= self.budget:
                kept.append(c)
        return kept

    def exact(self) -> list[int] | None:
        """The optimum by an integer program, or None (too large, or not solved in time)."""
        upper = _cube_sums(np.maximum(self.gain, 0.0), self.k)
        cand = np.flatnonzero((self.literals >= 1) & (self.literals <= self.budget) & (upper > self.tol))
        types = np.flatnonzero(np.abs(self.gain) > self.tol)
        if cand.size == 0 or cand.size * types.size > _EXACT_CELLS:
            return [] if cand.size == 0 else None
        cover = (self.codes[types][None, :] & ~self.masks[cand][:, None]) == self.values[cand][:, None]
        pos, neg = self.gain[types] > 0, self.gain[types] < 0
        n_c, n_t = cand.size, types.size
        rows = []  # positive type t: z_t <= sum of its cubes; negative type: z_t >= each cube
        p_rows = sparse.hstack([-sparse.csr_array(cover[:, pos].T.astype(float)),
                                sparse.eye_array(n_t, format="csr")[np.flatnonzero(pos)]])
        rows.append(p_rows)
        pairs_c, pairs_t = np.nonzero(cover[:, neg])
        neg_index = np.flatnonzero(neg)[pairs_t]
        m = pairs_c.size
        if m:
            rows.append(sparse.csr_array((np.r_[np.ones(m), -np.ones(m)],
                                          (np.r_[np.arange(m), np.arange(m)], np.r_[pairs_c, n_c + neg_index])),
                                         shape=(m, n_c + n_t)))
        rows.append(sparse.csr_array(np.r_[self.literals[cand], np.zeros(n_t)].astype(float)[None, :]))
        A = sparse.vstack(rows).tocsr()
        upper_b = np.r_[np.zeros(A.shape[0] - 1), float(self.budget)]
        cost = np.r_[np.zeros(n_c), -self.gain[types]]
        res = optimize.milp(cost, integrality=np.r_[np.ones(n_c), np.zeros(n_t)], bounds=optimize.Bounds(0, 1),
                            constraints=optimize.LinearConstraint(A, -np.inf, upper_b),
                            options={"time_limit": _EXACT_SECONDS})
        if res.status != 0 or res.x is None:
            return None
        return [int(c) for c in cand[res.x[:n_c] > 0.5]]

    def chain(self, cubes: list[int]) -> list[list[int]]:
        """``cubes``, then shorter rules: one term removed at a time, least loss first."""
        out = [list(cubes)]
        while cubes:
            cubes = max(([c for j, c in enumerate(cubes) if j != i] for i in range(len(cubes))),
                        key=self.score)
            out.append(cubes)
        return out


def _dense(histogram: TypeHistogram, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Negative and positive weight of every type code, and which codes have no rows."""
    neg, pos = np.zeros(1 << k), np.zeros(1 << k)
    neg[histogram.keys] = histogram.counts[0]
    pos[histogram.keys] = histogram.counts[1]
    return neg, pos, (neg + pos) == 0


def _check(histogram: TypeHistogram, max_literals: int) -> int:
    if not isinstance(histogram, TypeHistogram):
        raise TypeError(f"bounded_dnf needs a TypeHistogram, got {type(histogram).__name__}")
    if histogram.counts.shape[0] != 2:
        raise ValueError(f"bounded_dnf needs a two-class histogram, got {histogram.counts.shape[0]} classes")
    if isinstance(max_literals, bool) or not isinstance(max_literals, (int, np.integer)) or max_literals < 0:
        raise ValueError(f"max_literals must be an int >= 0, got {max_literals!r}")
    k = len(histogram.columns)
    if k > MAX_BOUNDED_FEATURES:
        raise ValueError(f"bounded_dnf searches at most {MAX_BOUNDED_FEATURES} attributes "
                         f"(3**k cubes), got {k}")
    return k


def _rule(search: _Search, cubes: list[int], negated: bool, baseline: float, total: float,
          exact: bool, features: Sequence[Any]) -> BoundedDNF:
    pairs = tuple((int(search.values[c]), int(search.masks[c])) for c in cubes)
    literals = [(Literal(f, negated=True), Literal(f)) for f in features]
    terms = [conjunction(*(literals[j][(v >> j) & 1] for j in range(search.k) if not (m >> j) & 1))
             for v, m in sorted(pairs, key=lambda p: (p[1].bit_count() * -1, p[0]))]
    formula = disjunction(*terms)
    accuracy = (baseline + search.score(cubes)) / total if total > 0 else float("nan")
    return BoundedDNF(pairs, negated, search.size(cubes), accuracy, exact, ~formula if negated else formula)


def _optima(histogram: TypeHistogram, max_literals: int, features: Sequence[Any] | None,
            chains: bool) -> list[BoundedDNF]:
    """The optimum of each polarity (positive rule first) and, with ``chains``, their removal chains."""
    k = _check(histogram, max_literals)
    features = list(features) if features is not None else [f"x{c}" for c in histogram.columns]
    if len(features) != k:
        raise ValueError(f"features names {len(features)} attributes, the histogram has {k}")
    neg, pos, unseen = _dense(histogram, k)
    total = float(neg.sum() + pos.sum())
    out = []
    for negated, gain, baseline in ((False, pos - neg, neg.sum()), (True, neg - pos, pos.sum())):
        search = _Search(gain, k, int(max_literals))
        starts = [search.truncation(unseen), search.truncation(np.zeros_like(unseen)),
                  search.greedy(True), search.greedy(False)]
        key = lambda c: (search.score(c), -search.size(c))  # noqa: E731
        best = search.improve(max((search.improve(s, pairs=False) for s in starts), key=key))
        exact = search.exact()
        if exact is not None:
            best = max((best, exact), key=key)
        proved = exact is not None
        rules = search.chain(best) if chains else [best]
        out += [_rule(search, c, negated, float(baseline), total, proved and i == 0, features)
                for i, c in enumerate(rules)]
    return out


def bounded_dnf(histogram: TypeHistogram, max_literals: int, *,
                features: Sequence[Any] | None = None) -> BoundedDNF:
    """The most accurate rule of at most ``max_literals`` literals on a type histogram.

    Parameters
    ----------
    histogram : TypeHistogram
        Two-class training counts of the realized types of ``k <= 12`` attributes (e.g.
        ``ContextCounts.type_histogram``).
    max_literals : int
        Budget of literals (0: the rule is ``TRUE`` or ``FALSE``).
    features : sequence, optional
        Attribute keys of the histogram's columns for the formula (default ``x<column>``).

    Returns
    -------
    BoundedDNF
        A DNF, or the negation of one, whichever classifies more training weight right (the
        DNF on a tie, then fewer literals).
    """
    first, second = _optima(histogram, max_literals, features, chains=False)
    return max((first, second), key=lambda r: (round(r.training_accuracy, 12), -r.n_literals, not r.negated))


def validated_bounded_dnf(train: TypeHistogram, validation: TypeHistogram, max_literals: int, *,
                          features: Sequence[Any] | None = None) -> tuple[BoundedDNF, float]:
    """Among the budget's optima on ``train`` and their shorter forms, the most accurate on
    ``validation`` (same columns), ties by training accuracy, then fewer literals.

    Returns
    -------
    BoundedDNF, float
        The rule and its validation accuracy (NaN without validation rows).
    """
    if tuple(validation.columns) != tuple(train.columns):
        raise ValueError("the training and validation histograms must count the same columns")
    total = float(validation.counts.sum())

    def accuracy(rule: BoundedDNF) -> float:
        if total == 0:
            return float("nan")
        predicted = rule.predict(validation.keys)
        return float((validation.counts[1][predicted].sum() + validation.counts[0][~predicted].sum()) / total)

    scored = [(rule, accuracy(rule)) for rule in _optima(train, max_literals, features, chains=True)]
    return max(scored, key=lambda s: (np.nan_to_num(s[1], nan=0.0), s[0].training_accuracy, -s[0].n_literals))
