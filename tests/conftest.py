"""Shared fixtures: small hand-made worlds for exact rule tests; the Hypothesis profiles."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# Property tests draw the same examples on every run, so a red run is one that reproduces: "ci" is the
# default, CI=true or not. HYPOTHESIS_PROFILE=explore draws new random ones (and keeps failures in .hypothesis/
# to replay them); `python -m pytest -m slow tests/test_explore.py` runs the property tests that way.
# No deadline and no too_slow check: both depend on the wall clock, which a loaded machine stretches.
WALL_CLOCK_FREE = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **WALL_CLOCK_FREE)
settings.register_profile("explore", derandomize=False, print_blob=True, **WALL_CLOCK_FREE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

from marple_gym.generation import generate_world  # noqa: E402
from marple_gym.world import World  # noqa: E402


def make_world(
    furniture: list[dict] | None = None,
    agent: tuple[int, int, int] = (2, 3, 0),
    floor_objects: list[dict] | None = None,
    width: int = 9,
    height: int = 7,
    room: str = "Kitchen",
) -> World:
    """One room filling a ``width`` x ``height`` grid, with exactly the given contents.

    ``furniture`` entries are dicts in the plain config form: ``{"type": "closet",
    "pos": [5, 1], "state": {...}, "objects": [{"type": "clothes", "pos": [5, 1]}]}``.
    """
    pieces = []
    for f in furniture or []:
        f = dict(f)
        f.setdefault("objects", [])
        f["num_objects"] = len(f["objects"])
        pieces.append(f)
    config = {
        "width": width,
        "height": height,
        "rooms": [
            {
                "type": room,
                "top": [1, 1],
                "size": [width - 2, height - 2],
                "furniture": pieces,
                "num_furniture": len(pieces),
                "floor_objects": floor_objects or [],
                "num_floor_objects": len(floor_objects or []),
            }
        ],
        "doors": [],
        "agents": [{"name": "A", "pos": [agent[0], agent[1]], "dir": agent[2]}],
    }
    return generate_world(config, np.random.default_rng(0))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
