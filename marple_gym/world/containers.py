"""What closed containers hide: the queries that rules, feasibility checks and planners share.

Pure reads of a state; the rules that change it live in :mod:`marple_gym.world.rules`.
"""

from __future__ import annotations

from marple_gym.world.assets import ASSETS, OPEN_BIT
from marple_gym.world.house import House
from marple_gym.world.state import WorldState

# Plain lists index faster than numpy arrays for single values.
_FUR_GATED: list[bool] = ASSETS.fur_gated.tolist()


def container_closed(house: House, state: WorldState, fur: int) -> bool:
    """Furniture ``fur`` (-1: none) is a container that gates its objects and is closed."""
    return fur >= 0 and _FUR_GATED[house.fur_type_list[fur]] and not state.fur_state[fur] & OPEN_BIT


def object_accessible(house: House, state: WorldState, obj: int) -> bool:
    """An object lying in the world (not held) and not shut inside a closed container."""
    x, y = state.obj_pos[obj].tolist()
    if x < 0:
        return False
    return not container_closed(house, state, house.fur_at[y][x])
