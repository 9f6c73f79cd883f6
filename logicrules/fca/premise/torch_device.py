"""Where the torch backend of the premise search runs: importing torch, choosing and checking the device.

torch is optional: it is imported only when the backend is used (:func:`_import_torch` raises
a clear ImportError without it), and :func:`gpu_available` answers without importing it on a
machine with no GPU driver.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from typing import Any

__all__ = ["gpu_available", "torch_device"]

MAX_EXACT_ROWS = 2**24          # float32 accumulation of 0/1 products is exact up to this many rows


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
