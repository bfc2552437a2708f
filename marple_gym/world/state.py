"""The dynamic part of a world, as a handful of numpy arrays.

The cell grid *is* the paper's m x n x 8 vision array, kept up to date by the
action rules, so an observation is a single array copy and a world clone is a
few small copies.

Channels of ``grid[y, x]`` (all uint8, 0 = nothing):

0. room type code (1..6; 0 on walls and doors)
1. furniture code (1 = wall, 2 = door, 3.. = furniture types)
2. furniture state, ``1 + bits`` (see :mod:`marple_gym.world.assets`)
3. object type code
4. object state, ``1 + bits``
5. object id (object instance index + 1)
6. agent id (agent index + 1) on the agent's cell
7. agent direction + 1 on the agent's cell

Agents never stand on an object, so on an agent's cell channels 3-5 show the
object the agent holds longest (the one ``drop`` puts down next).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

CH_ROOM, CH_FUR, CH_FUR_STATE, CH_OBJ, CH_OBJ_STATE, CH_OBJ_ID, CH_AGENT, CH_AGENT_DIR = range(8)
NUM_CHANNELS = 8
CHANNEL_NAMES: tuple[str, ...] = (
    "room_type",
    "furniture_type",
    "furniture_state",
    "object_type",
    "object_state",
    "object_id",
    "agent_id",
    "agent_direction",
)

HANDS = 2
"""An agent holds up to two objects; ``drop`` puts down the one held longest."""


@dataclass(eq=False)
class WorldState:
    """Everything that changes while agents act.

    ``obj_pos`` is (-1, -1) for a held object; ``carrying[a]`` lists the object
    indices agent ``a`` holds, oldest first, -1 for an empty hand.
    """

    grid: np.ndarray  # (H, W, 8) uint8
    fur_state: np.ndarray  # (n_fur,) uint8 state bits
    obj_pos: np.ndarray  # (n_obj, 2) int16 (x, y)
    obj_state: np.ndarray  # (n_obj,) uint8 state bits
    agent_pos: np.ndarray  # (n_agents, 2) int16 (x, y)
    agent_dir: np.ndarray  # (n_agents,) int8
    carrying: np.ndarray  # (n_agents, HANDS) int16

    def copy(self) -> WorldState:
        """An independent copy (a few small array copies)."""
        return WorldState(
            self.grid.copy(),
            self.fur_state.copy(),
            self.obj_pos.copy(),
            self.obj_state.copy(),
            self.agent_pos.copy(),
            self.agent_dir.copy(),
            self.carrying.copy(),
        )

    def copy_from(self, other: WorldState) -> None:
        """Overwrite this state in place with ``other`` (no allocation)."""
        np.copyto(self.grid, other.grid)
        np.copyto(self.fur_state, other.fur_state)
        np.copyto(self.obj_pos, other.obj_pos)
        np.copyto(self.obj_state, other.obj_state)
        np.copyto(self.agent_pos, other.agent_pos)
        np.copyto(self.agent_dir, other.agent_dir)
        np.copyto(self.carrying, other.carrying)

    def same_as(self, other: WorldState) -> bool:
        """Exact equality of every array."""
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))
