"""Test configuration: hypothesis explores new random cases locally, and CI replays fixed ones.

With ``CI`` set (as the CI script's environment does), hypothesis is derandomized so that a run
on a submitted commit is reproducible; local runs keep searching fresh examples.

The suite runs on every core with ``-n auto --dist loadscope --no-loadscope-reorder`` (README):
each module stays on one worker (its module fixtures are built once), and modules are handed out
in collection order, which :func:`pytest_collection_modifyitems` starts with the longest ones so
that no worker begins a long module when the others are nearly done. (xdist's default reorder,
by number of tests, would put a long module of few tests, such as the docs build, last.)
"""

import os

import pytest
from hypothesis import settings

#: The longest test modules (seconds summed over their tests with ``--durations``, 2 cores), run
#: first, about longest first; the two longest premise-search modules are not started together, so
#: that the second can read the numba kernels the first compiled from the on-disk cache.
LONG_MODULES = (
    "tests/fca/test_search.py",
    "tests/test_docs.py",
    "tests/lp/test_lp_dask_weights.py",
    "tests/fca/test_premise_from_counts.py",
    "tests/ideal/test_multiclass.py",
    "tests/lp/test_estimator.py",
    "tests/lp/test_lp_dask_colgen.py",
    "tests/test_dask_fit.py",
    "tests/test_compare_dask.py",
    "tests/lp/test_pricing_bits.py",
    "tests/fca/test_search_torch.py",
    "tests/test_model_report.py",
    "tests/lp/test_lp_dask_mofn.py",
    "tests/fca/test_search_memory.py",
    "tests/ideal/test_method.py",
    "tests/test_dask_scaling.py",
    "tests/test_examples.py",
    "tests/lp/test_row_generation.py",
)

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_collection_modifyitems(config, items):
    """Start with the modules of :data:`LONG_MODULES`, in its order; the others keep theirs."""
    rank = {path: i for i, path in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="module")
def dask_client():
    """A small dask LocalCluster (2 in-process workers) with its Client, shared by a module's tests;
    skipped with the reason when dask.distributed is missing or cannot start here."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                           dashboard_address=None)
    except Exception as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"a dask LocalCluster could not start here: {error}")
    with cluster, distributed.Client(cluster) as client:
        yield client
