"""Compiled inner loops of the optimal premise search (numba), by module.

The premise search spends all its time in loops that NumPy cannot express without
materializing billions of intermediate values; each lives in the module named after it:

* :mod:`~logicrules.fca.premise.popcounts`: popcounts of packed rows, plain and weighted, and
  the pair counts (Gram matrices);
* :mod:`~logicrules.fca.premise.closed_forms`: the best premise over 8 or 16 weighted cells;
* :mod:`~logicrules.fca.premise.triple_scan`: the size-3 scan over attribute triples;
* :mod:`~logicrules.fca.premise.quadruple_scan`: the size-4 scan over attribute quadruples,
  the stored 3-way counts and the triples' rooms;
* :mod:`~logicrules.fca.premise.extent_pairs`: the former size-4 method over pairs of
  extents.

This module re-exports their public kernels under the path they had before the split.
"""

from __future__ import annotations

from logicrules.fca.premise.closed_forms import best_read_once4
from logicrules.fca.premise.extent_pairs import scan_extent_pairs
from logicrules.fca.premise.popcounts import popcount_rows
from logicrules.fca.premise.quadruple_scan import scan_quadruples, triple_counts, triple_offsets, triple_rooms
from logicrules.fca.premise.triple_scan import scan_triples

__all__ = [
    "best_read_once4", "popcount_rows", "scan_extent_pairs", "scan_quadruples", "scan_triples", "triple_counts",
    "triple_offsets", "triple_rooms",
]
