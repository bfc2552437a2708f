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
    CH_ROOM,
    WorldState,
)


def paint_grid(house: House, state: WorldState) -> None:
    """Overwrite ``state.grid`` with the encoding of the house and the state tables.

    Whole channels are looked up from the furniture map (a cell without furniture, -1, reads the 0 appended to
    each table) rather than written through boolean masks: generation paints every new house, and a handful of
    whole-array lookups cost less than a mask write each. Objects and agents are a few cells, written one by one.
    """
    grid = state.grid
    grid[..., CH_ROOM] = house.room_type_map
    grid[..., CH_FUR] = np.where(house.wall, WALL, house.fur_codes[house.fur_map])
    grid[..., CH_FUR_STATE] = np.where(house.wall, 1, np.append(state.fur_state + 1, 0)[house.fur_map])
    grid[..., CH_OBJ:] = 0
    obj_type, obj_state = house.obj_type_list, state.obj_state.tolist()

    def paint_object(x: int, y: int, i: int) -> None:  # the three object channels lie side by side
        grid[y, x, CH_OBJ : CH_OBJ_ID + 1] = (obj_type[i], obj_state[i] + 1, i + 1)

    for i, (x, y) in enumerate(state.obj_pos.tolist()):
        if x >= 0:
            paint_object(x, y, i)
    for agent, ((x, y), d, held) in enumerate(
        zip(state.agent_pos.tolist(), state.agent_dir.tolist(), state.carrying[:, 0].tolist())
    ):
        grid[y, x, CH_AGENT : CH_AGENT_DIR + 1] = (agent + 1, d + 1)
        if held >= 0:  # the first hand's object shows on the agent's cell
            paint_object(x, y, held)


def encoded_grid(house: House, state: WorldState) -> np.ndarray:
    """The grid :func:`paint_grid` would produce, without touching ``state``."""
    copy = state.copy()
    paint_grid(house, copy)
    return copy.grid
