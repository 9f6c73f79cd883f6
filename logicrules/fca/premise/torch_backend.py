"""Optional PyTorch backend (GPU) for the counting scans of the premise search, by module.

The numba kernels (:mod:`~logicrules.fca.premise.kernels`) count attribute combinations with
popcounts; on a GPU the same counts are matrix products of 0/1 matrices. The backend's parts:

* :mod:`~logicrules.fca.premise.torch_device`: importing torch (optional, never required),
  choosing and checking the device;
* :mod:`~logicrules.fca.premise.torch_counter`: :class:`TorchCounter`, the attribute matrices on
  the device and the size-3 scan;
* :mod:`~logicrules.fca.premise.torch_quadruples`: :class:`QuadrupleScan`, the size-4 scan;
* :mod:`~logicrules.fca.premise.torch_closed_forms`: the closed forms of the best premise over
  cells, vectorized.

This module re-exports their public names under the path they had before the split.
"""

from __future__ import annotations

from logicrules.fca.premise.torch_counter import TorchCounter
from logicrules.fca.premise.torch_device import MAX_EXACT_ROWS, gpu_available, torch_device  # noqa: F401
from logicrules.fca.premise.torch_quadruples import QuadrupleScan

__all__ = ["QuadrupleScan", "TorchCounter", "gpu_available", "torch_device"]
