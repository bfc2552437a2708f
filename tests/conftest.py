"""The Hypothesis profiles and the shared fixtures (hand-made worlds are in worlds.py: no test imports conftest)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# Under pytest-xdist every worker is one process per core already: a worker's torch (and what its subprocesses
# run) on one thread each, since OpenMP threads that wait on a busy core spin, and two workers of two threads
# each on a loaded 2-core machine made one small training test run 50 times longer than alone.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# Property tests draw the same examples on every run, so a red run is one that reproduces: "ci" is the
# default, CI=true or not. HYPOTHESIS_PROFILE=explore draws new random ones (and keeps failures in .hypothesis/
# to replay them); `python -m pytest -m slow tests/test_explore.py` runs the property tests that way.
# No deadline and no too_slow check: both depend on the wall clock, which a loaded machine stretches.
WALL_CLOCK_FREE = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **WALL_CLOCK_FREE)
settings.register_profile("explore", derandomize=False, print_blob=True, **WALL_CLOCK_FREE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True, scope="session")
def _sb3_log_folder_inside_pytests(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Stable-Baselines3 makes a folder ``SB3-<time>`` in the system's temporary directory for every ``learn``
    without a logger of its own (its ``SB3_LOGDIR`` names another): keep the tests' inside pytest's own."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
