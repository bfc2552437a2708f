"""Painting the vision grid from the state tables.

The action rules update the grid incrementally; :func:`paint_grid` computes it
from scratch. Generation uses it to create the first grid, and the tests use it
to prove the incremental updates exact.
"""

from __future__ import annotations

import numpy as np

from marple_gym.world.assets import WALL
from marple_gym.world.house import House
from marple_gym.world.state import (
    CH_AGENT,
    CH_AGENT_DIR,
    CH_FUR,
    CH_FUR_STATE,
    CH_OBJ,
    CH_OBJ_ID,
    CH_OBJ_STATE,
    CH_ROOM,
    WorldState,
)


def paint_grid(house: House, state: WorldState) -> None:
    """Overwrite ``state.grid`` with the encoding of the house and the state tables."""
    grid = state.grid
    grid[:] = 0
    grid[..., CH_ROOM] = house.room_type_map
    grid[house.wall, CH_FUR : CH_FUR_STATE + 1] = (WALL, 1)
    fur = house.fur_map >= 0
    index = house.fur_map[fur]
    grid[fur, CH_FUR] = house.fur_type[index]
    grid[fur, CH_FUR_STATE] = state.fur_state[index] + 1
    placed = np.flatnonzero(state.obj_pos[:, 0] >= 0)
    xs, ys = state.obj_pos[placed, 0], state.obj_pos[placed, 1]
    grid[ys, xs, CH_OBJ] = house.obj_type[placed]
    grid[ys, xs, CH_OBJ_STATE] = state.obj_state[placed] + 1
    grid[ys, xs, CH_OBJ_ID] = placed + 1
    for agent, ((x, y), d) in enumerate(zip(state.agent_pos.tolist(), state.agent_dir.tolist())):
        grid[y, x, CH_AGENT] = agent + 1
        grid[y, x, CH_AGENT_DIR] = d + 1
        held = int(state.carrying[agent, 0])
        if held >= 0:
            grid[y, x, CH_OBJ] = house.obj_type[held]
            grid[y, x, CH_OBJ_STATE] = int(state.obj_state[held]) + 1
            grid[y, x, CH_OBJ_ID] = held + 1


def encoded_grid(house: House, state: WorldState) -> np.ndarray:
    """The grid :func:`paint_grid` would produce, without touching ``state``."""
    copy = state.copy()
    paint_grid(house, copy)
    return copy.grid
