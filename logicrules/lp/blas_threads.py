"""One BLAS thread (and one numba thread) for the small matrix products of the in-memory pricing.

The float pricing of column generation (:mod:`logicrules.lp.pricing`,
:mod:`logicrules.lp.conjunction_search`) runs many small products, rows x literals by
literals (sonar: 187 rows x 923 literals, a few hundred products per fit). A threaded BLAS
splits each of them across its threads, which then wait for one another: on a busy machine
the waiting threads spin, and the fit's CPU time grew 2-4x while its wall time grew too
(ionosphere, one fold under load 7-9: 7.7 s CPU / 19.4 s wall with OpenBLAS's 2 threads,
1.8 s / 6.9 s with one). So the pricing limits BLAS to one thread while its largest product,
``rows x literals^2`` multiply-adds (the weighted Gram matrix), is at most
:data:`SMALL_PRODUCT_FLOPS`, and leaves BLAS as configured for larger ones, where threads pay.
The limit only changes the time: the same products are computed.

The compiled kernels of the same pricing (the triple search of
:mod:`logicrules.lp.triple_bounds`, numba ``prange`` loops) are limited to one thread under the
same rule: each of its passes over 64 first literals is a parallel region of a few
milliseconds, and a thread that finishes first waits for the other at the region's end,
spinning on a busy machine (sonar, the pricing calls of one fold replayed under load 8-11:
2.2-2.6 s CPU with numba's 2 threads, 1.4-1.6 s with one, the same results).
"""

from __future__ import annotations

import contextlib
import functools

__all__ = ["SMALL_PRODUCT_FLOPS", "pricing_blas_threads"]

#: Largest ``rows x literals^2`` priced with one BLAS thread (about a second of one core).
SMALL_PRODUCT_FLOPS = 1 << 31


@functools.lru_cache(maxsize=1)
def _controller():
    from threadpoolctl import ThreadpoolController   # a dependency of scikit-learn

    return ThreadpoolController()


@contextlib.contextmanager
def _one_numba_thread():
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def pricing_blas_threads(n_rows: int, n_literals: int):
    """A context that limits BLAS and numba's parallel loops to one thread when ``n_rows x
    n_literals^2`` is at most :data:`SMALL_PRODUCT_FLOPS` (a no-op context otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> with pricing_blas_threads(150, 900):
    ...     float((np.ones((150, 900)).T @ np.ones((150, 900)))[0, 0])
    150.0
    """
    if int(n_rows) * int(n_literals) ** 2 > SMALL_PRODUCT_FLOPS:
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(_controller().limit(limits=1, user_api="blas"))
    stack.enter_context(_one_numba_thread())
    return stack
