"""Progress reports of long fits (the learners' ``verbose`` parameter).

``verbose=0`` (every learner's default) is silent. ``verbose >= 1`` shows a tqdm progress bar on
stderr when tqdm is installed (``pip install tqdm``), and otherwise one line per step on stderr.

Examples
--------
>>> with progress_bar(3, "steps", verbose=0) as bar:
...     for _ in range(3):
...         bar.update()
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["pass_line", "progress_bar", "tqdm_available"]


def tqdm_available() -> bool:
    """Whether tqdm can be imported."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


class _Silent:
    """The bar of ``verbose=0``: does nothing."""

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps (ignored)."""

    def close(self) -> None:
        """End the bar (nothing to do)."""

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Lines(_Silent):
    """Without tqdm: one line ``desc: done/total`` on stderr per step."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.desc, self.done = int(total), desc, 0

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps and print the count."""
        self.done += n
        print(f"{self.desc}: {self.done}/{self.total}", file=sys.stderr, flush=True)


def progress_bar(total: int, desc: str, verbose: int):
    """A progress bar over ``total`` steps: silent for ``verbose=0``, tqdm (or plain lines on
    stderr without tqdm) otherwise. Use as a context manager; call ``update()`` per step.

    Parameters
    ----------
    total : int
        Number of steps.
    desc : str
        What the steps are (shown before the count).
    verbose : int
        0: silent; 1 or more: report progress.

    Returns
    -------
    object with ``update(n=1)`` and ``close()``, usable in a ``with`` statement
    """
    if not verbose:
        return _Silent()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Lines(total, desc)
    return tqdm(total=total, desc=desc, unit="step", leave=False)


def pass_line(verbose: int, text: str, seconds: float | None = None) -> None:
    """One line on stderr for a pass over distributed data (``verbose >= 1``), with its seconds.

    Examples
    --------
    >>> pass_line(0, "dask pass 1: literal counts over 4 partitions", 0.5)
    """
    if verbose:
        tail = "" if seconds is None else f" ({seconds:.2f} s)"
        print(f"{text}{tail}", file=sys.stderr, flush=True)
