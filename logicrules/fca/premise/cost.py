"""What a premise search will cost, known before it starts: memory by part, and combinations to visit.

:func:`estimate_search_cost` reads only the prepared attributes (their number after merging and
the words of their bitsets), so :func:`~logicrules.fca.premise.find_best_premises` checks it
against ``memory_limit`` before allocating anything large and reports it in its statistics, and
:func:`~logicrules.fca.premise.estimate_premise_search` gives it without searching.

The memory figures are upper estimates of what the search itself allocates (the caller's input
and the prepared bitsets come on top of what is listed only where named). The work figures are
the attribute combinations of each size *before* pruning (pairs, triples, quadruples): the
pruned scans count far fewer, so they bound the work from above; ``popcount_words`` is the
number of 64-bit AND + popcount steps of the size-3 (and size-4) scans without pruning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from logicrules.fca.premise.preparation import PreparedAttributes
from logicrules.fca.premise.space import pair_shapes

__all__ = ["SearchEstimate", "estimate_search_cost"]

_SIZE2_ENTRIES = 2_000_000        # candidate entries per block of the size-2 enumeration


@dataclass(frozen=True)
class SearchEstimate:
    """Estimated cost of one premise search.

    Attributes
    ----------
    n_rows : int
        Rows with positive weight.
    n_distinct_attributes : int
        Attributes left after merging equal (and complementary) extents, constants excluded.
    max_size : int
    memory_parts : dict of str -> int
        Bytes per part: ``"bitsets"`` (packed attributes), ``"pair tables"`` (pair counts,
        their weighted values, the proximity bounds and their temporaries, ``80-88 m^2``), ``"size-2 blocks"``,
        ``"triple counts"`` (size 4: 3-way counts of every attribute triple and their rooms).
    combinations : dict of int -> int
        Attribute combinations of each size before pruning (size 1: literals).
    popcount_words : int
        64-bit popcount steps of the size-3/4 scans without pruning (an upper bound of their work).
    """

    n_rows: int
    n_distinct_attributes: int
    max_size: int
    memory_parts: dict = field(default_factory=dict)
    combinations: dict = field(default_factory=dict)
    popcount_words: int = 0

    @property
    def memory_bytes(self) -> int:
        """Total estimated peak bytes of the search's own allocations."""
        return int(sum(self.memory_parts.values()))

    def __str__(self) -> str:
        parts = ", ".join(f"{k} {v / 1e9:.2f} GB" for k, v in self.memory_parts.items() if v)
        work = ", ".join(f"size {k}: {v:.3g}" for k, v in self.combinations.items())
        return (f"premise search of size <= {self.max_size} over {self.n_distinct_attributes} distinct attributes "
                f"and {self.n_rows} rows: about {self.memory_bytes / 1e9:.2f} GB ({parts}); attribute "
                f"combinations before pruning {work}; at most {self.popcount_words:.3g} popcount words")


def estimate_search_cost(prep: PreparedAttributes, max_size: int, size4_method: str = "cells",
                         rooms: bool = True) -> SearchEstimate:
    """The :class:`SearchEstimate` of a search over ``prep`` up to ``max_size``.

    Parameters
    ----------
    prep : PreparedAttributes
    max_size : int
    size4_method : {"cells", "extents"}
    rooms : bool
        Whether the size-4 scan keeps the rooms of all triples (4 bytes each).

    Returns
    -------
    SearchEstimate
    """
    nv = int((~prep.constant).sum())
    words = prep.bits_p.shape[1] + prep.bits_n.shape[1]
    n_rows = int(np.bitwise_count(prep.valid_p).sum() + np.bitwise_count(prep.valid_n).sum())
    count_bytes = 8 if prep.weighted else 4
    parts = {"bitsets": 2 * 8 * words * len(prep.columns)}
    combos = {1: prep.n_literals}
    popcount_words = 0
    if max_size >= 2:
        F = len(pair_shapes(prep.negations))
        pairs = nv * (nv - 1) // 2
        parts["pair tables"] = (2 * count_bytes + 72) * nv * nv
        parts["size-2 blocks"] = 12 * 8 * min(_SIZE2_ENTRIES, pairs * F + nv * F)
        combos[2] = pairs
    if max_size >= 3:
        triples = nv * (nv - 1) * (nv - 2) // 6
        combos[3] = triples
        popcount_words += triples * words
    if max_size >= 4:
        quads = nv * (nv - 1) * (nv - 2) * (nv - 3) // 24
        combos[4] = quads
        popcount_words += quads * words
        if size4_method == "cells":
            itemsize = 8 if prep.weighted else (2 if max(prep.n_pos, prep.n_neg) < 2**15 else 4)
            parts["triple counts"] = (2 * itemsize + (4 if rooms else 0)) * combos[3]
    return SearchEstimate(n_rows=n_rows, n_distinct_attributes=nv, max_size=max_size, memory_parts=parts,
                          combinations=combos, popcount_words=int(popcount_words))
