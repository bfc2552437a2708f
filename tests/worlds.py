"""Small hand-made worlds for exact rule tests: one room with exactly the given contents."""

from __future__ import annotations

import numpy as np

from marple_gym.generation import generate_world
from marple_gym.world import World


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
