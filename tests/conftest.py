"""Test configuration: hypothesis explores new random cases locally, and CI replays fixed ones.

With ``CI`` set (as the CI script's environment does), hypothesis is derandomized so that a run
on a submitted commit is reproducible; local runs keep searching fresh examples.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
