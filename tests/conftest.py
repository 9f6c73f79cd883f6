"""Test configuration: hypothesis explores new random cases locally, and CI replays fixed ones.

With ``CI`` set (as the CI script's environment does), hypothesis is derandomized so that a run
on a submitted commit is reproducible; local runs keep searching fresh examples.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


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
