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
    NUM_CHANNELS,
    WorldState,
)


def paint_grid(house: House, state: WorldState) -> None:
    """Overwrite ``state.grid`` with the encoding of the house and the state tables.

    Every cell is first copied whole from a small table of cells (one row per piece of furniture, then floor,
    then wall; :attr:`House.cell_rows` names each cell's row): one ``take`` writes all eight channels, where
    writing channels one by one walks the grid with a stride of eight bytes, which in a 128 x 128 house costs
    ten times as much. The room channel is laid over it; objects and agents are a few cells, written one by one.
    """
    grid = state.grid
    rows = np.zeros((house.num_furniture + 2, NUM_CHANNELS), dtype=np.uint8)
    rows[:-2, CH_FUR] = house.fur_type
    rows[:-2, CH_FUR_STATE] = state.fur_state + 1
    rows[-1, CH_FUR], rows[-1, CH_FUR_STATE] = WALL, 1  # the wall's row; the floor's (-2) stays 0
    np.take(rows, house.cell_rows, axis=0, out=grid, mode="wrap")  # -1, -2: the last rows ("raise" copies out twice)
    grid[..., CH_ROOM] = house.room_type_map
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
