"""Vision evidence: the m x n x 8 symbolic array.

The world keeps this array up to date as its state (see
:mod:`marple_gym.world.state` for the channels), so the observation is a copy.
This module adds helpers to read it.
"""

from __future__ import annotations

import numpy as np

from marple_gym.world.assets import ASSETS
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR, CH_FUR, CH_OBJ, CHANNEL_NAMES, NUM_CHANNELS, WorldState

__all__ = ["CHANNEL_NAMES", "NUM_CHANNELS", "channel_sizes", "describe_cell", "vision"]


def vision(state: WorldState) -> np.ndarray:
    """The (height, width, 8) uint8 vision array of a state (a copy)."""
    return state.grid.copy()


def channel_sizes() -> tuple[int, ...]:
    """How many distinct values each channel can take (for embedding tables).

    Object ids and agent ids are bounded by 255 (uint8).
    """
    return (
        len(ASSETS.room_types) + 1,
        len(ASSETS.furniture_names),
        256,
        len(ASSETS.object_names),
        256,
        256,
        256,
        5,
    )


def describe_cell(array: np.ndarray, x: int, y: int) -> dict[str, object]:
    """Human-readable content of one cell of a vision array."""
    cell = array[y, x].tolist()
    return {
        "room": ASSETS.room_types[cell[0] - 1] if cell[0] else None,
        "furniture": ASSETS.furniture_names[cell[CH_FUR]] or None,
        "object": ASSETS.object_names[cell[CH_OBJ]] or None,
        "agent": cell[CH_AGENT] - 1 if cell[CH_AGENT] else None,
        "direction": cell[CH_AGENT_DIR] - 1 if cell[CH_AGENT] else None,
    }
