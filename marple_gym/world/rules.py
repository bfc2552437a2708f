"""The effects of actions: the world's one transition function.

Every consumer that changes the world (the Gymnasium env, the planner, Monte
Carlo rollouts) goes through :func:`apply_action`. An action that cannot apply
returns a failed :class:`~marple_gym.world.actions.Outcome` and leaves the state
untouched.

Rules, for the cell the agent faces ("front"):

* ``left`` / ``right`` turn; ``forward`` moves onto a free floor cell or an open
  door (not onto furniture, an object, a wall, a closed door or another agent).
* ``pickup`` takes the object in front into a free hand, if it is not inside a
  closed container.
* ``drop`` puts the object held longest onto the front cell: free floor, or a
  free cell of furniture that holds objects (an openable container must be open).
* ``toggle`` / ``open`` / ``close`` / ``clean`` act on the furniture (or door) in
  front when it has that ability and the action changes its state, otherwise on
  the object in front; ``clean`` needs a cleaning tool (towel, rag, broom, scrub
  brush) in hand and clears both dust and stains. Nothing can close while an
  agent stands in it (only a door can hold an agent): a door with an agent in
  it stays open, so a closed door never holds one.
* ``idle`` always succeeds and changes nothing; its outcome names the furniture
  in front (a mission may ask to idle at the television).
"""

from __future__ import annotations

from marple_gym.world.actions import Action, Outcome, failed
from marple_gym.world.assets import ASSETS, DOOR, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT, WALL
from marple_gym.world.containers import container_closed
from marple_gym.world.house import DIR_VEC, House
from marple_gym.world.state import (
    CH_AGENT,
    CH_AGENT_DIR,
    CH_FUR,
    CH_FUR_STATE,
    CH_OBJ,
    CH_OBJ_ID,
    CH_OBJ_STATE,
    WorldState,
)

# Plain lists index faster than numpy arrays for single values.
_FUR_MASK: list[int] = ASSETS.fur_mask.tolist()
_FUR_HOLDS: list[int] = ASSETS.fur_holds.tolist()
_OBJ_MASK: list[int] = ASSETS.obj_mask.tolist()
_CLEANING_TOOL: list[bool] = ASSETS.obj_cleaning_tool.tolist()

LEFT, RIGHT, FORWARD = int(Action.left), int(Action.right), int(Action.forward)
PICKUP, DROP, TOGGLE = int(Action.pickup), int(Action.drop), int(Action.toggle)
OPEN, CLOSE, CLEAN, IDLE = int(Action.open), int(Action.close), int(Action.clean), int(Action.idle)


def apply_action(house: House, state: WorldState, agent: int, action: int) -> Outcome:
    """Apply ``action`` of agent ``agent`` to ``state`` in place and report what happened."""
    grid = state.grid
    x, y = state.agent_pos[agent].tolist()
    d = state.agent_dir.item(agent)
    if action in (LEFT, RIGHT):
        d = (d + (3 if action == LEFT else 1)) % 4
        state.agent_dir[agent] = d
        grid[y, x, CH_AGENT_DIR] = d + 1
        dx, dy = DIR_VEC[d]
        return Outcome(action, True, -1, -1, -1, x + dx, y + dy)
    dx, dy = DIR_VEC[d]
    fx, fy = x + dx, y + dy
    cell = grid[fy, fx].tolist()
    if action == FORWARD:
        return _forward(state, agent, x, y, fx, fy, cell)
    if action == PICKUP:
        return _pickup(house, state, agent, fx, fy, cell)
    if action == DROP:
        return _drop(house, state, agent, fx, fy, cell)
    if action == IDLE:
        return Outcome(IDLE, True, house.fur_at[fy][fx], -1, -1, fx, fy)
    if action == TOGGLE:
        return _toggle(house, state, fx, fy, cell)
    if action in (OPEN, CLOSE):
        return _open_close(house, state, action, fx, fy, cell)
    if action == CLEAN:
        return _clean(house, state, agent, fx, fy, cell)
    raise ValueError(f"unknown action {action!r}; expected 0..9 (see marple_gym.Action)")


# ---- navigation -------------------------------------------------------------


def _forward(state: WorldState, agent: int, x: int, y: int, fx: int, fy: int, cell: list[int]) -> Outcome:
    fur = cell[CH_FUR]
    blocked = cell[CH_OBJ] or cell[CH_AGENT] or (fur and not (fur == DOOR and (cell[CH_FUR_STATE] - 1) & OPEN_BIT))
    if blocked:
        return failed(FORWARD, fx, fy)
    grid = state.grid
    # The agent and the object it shows in hand (channels 3-7) move together.
    grid[fy, fx, CH_OBJ:] = grid[y, x, CH_OBJ:]
    grid[y, x, CH_OBJ:] = 0
    state.agent_pos[agent] = (fx, fy)
    return Outcome(FORWARD, True, -1, -1, -1, fx, fy)


# ---- objects ----------------------------------------------------------------


def _show_in_hand(house: House, state: WorldState, agent: int) -> None:
    """Paint the object held longest onto the agent's cell (channels 3-5)."""
    x, y = state.agent_pos[agent].tolist()
    held = int(state.carrying[agent, 0])
    if held < 0:
        state.grid[y, x, CH_OBJ:CH_AGENT] = 0
    else:
        state.grid[y, x, CH_OBJ:CH_AGENT] = (house.obj_type_list[held], int(state.obj_state[held]) + 1, held + 1)


def _pickup(house: House, state: WorldState, agent: int, fx: int, fy: int, cell: list[int]) -> Outcome:
    obj = cell[CH_OBJ_ID] - 1
    if obj < 0 or cell[CH_AGENT]:
        return failed(PICKUP, fx, fy)
    fur = house.fur_at[fy][fx]
    hands = state.carrying[agent]
    if container_closed(house, state, fur) or (hands >= 0).all():
        return failed(PICKUP, fx, fy)
    state.grid[fy, fx, CH_OBJ:CH_AGENT] = 0
    state.obj_pos[obj] = (-1, -1)
    if hands[0] < 0:
        hands[0] = obj
        _show_in_hand(house, state, agent)
    else:
        hands[1] = obj
    return Outcome(PICKUP, True, fur, obj, -1, fx, fy)


def _drop(house: House, state: WorldState, agent: int, fx: int, fy: int, cell: list[int]) -> Outcome:
    hands = state.carrying[agent]
    obj = int(hands[0])
    if obj < 0 or cell[CH_OBJ] or cell[CH_AGENT]:
        return failed(DROP, fx, fy)
    fur_code = cell[CH_FUR]
    fur = -1
    if fur_code:
        if fur_code in (WALL, DOOR) or not _FUR_HOLDS[fur_code]:
            return failed(DROP, fx, fy)
        fur = house.fur_at[fy][fx]
        if container_closed(house, state, fur):
            return failed(DROP, fx, fy)
    state.grid[fy, fx, CH_OBJ:CH_AGENT] = (house.obj_type_list[obj], int(state.obj_state[obj]) + 1, obj + 1)
    state.obj_pos[obj] = (fx, fy)
    hands[0], hands[1] = hands[1], -1
    _show_in_hand(house, state, agent)
    return Outcome(DROP, True, fur, obj, -1, fx, fy)


# ---- state changes ------------------------------------------------------------


def _set_fur_bits(house: House, state: WorldState, fur: int, bits: int) -> None:
    state.fur_state[fur] = bits
    ys, xs = house.fur_cells[fur]
    state.grid[ys, xs, CH_FUR_STATE] = bits + 1


def _set_obj_bits(house: House, state: WorldState, obj: int, bits: int, fx: int, fy: int) -> None:
    state.obj_state[obj] = bits
    state.grid[fy, fx, CH_OBJ_STATE] = bits + 1


def _object_in_front(house: House, state: WorldState, fx: int, fy: int, cell: list[int]) -> int:
    """The reachable object lying on the front cell, or -1."""
    obj = cell[CH_OBJ_ID] - 1
    if obj < 0 or cell[CH_AGENT] or container_closed(house, state, house.fur_at[fy][fx]):
        return -1
    return obj


def _change_bits(
    house: House, state: WorldState, action: int, fx: int, fy: int, cell: list[int], bit: int, want: int | None
) -> Outcome:
    """Set (``want`` 1), clear (``want`` 0) or flip (``want`` None) one state bit.

    The furniture in front is tried first, then the object in front. The action
    fails if neither has the ability or the bit is already as wanted, and a
    door does not close on an agent standing in it.
    """
    fur = house.fur_at[fy][fx]
    if fur >= 0 and _FUR_MASK[house.fur_type_list[fur]] & bit:
        bits = int(state.fur_state[fur])
        new = (bits ^ bit) if want is None else (bits | bit if want else bits & ~bit)
        shuts_on_agent = cell[CH_AGENT] and bits & ~new & OPEN_BIT
        if new != bits and not shuts_on_agent:
            _set_fur_bits(house, state, fur, new)
            return Outcome(action, True, fur, -1, int(bool(new & bit)), fx, fy)
    obj = _object_in_front(house, state, fx, fy, cell)
    if obj >= 0 and _OBJ_MASK[house.obj_type_list[obj]] & bit:
        bits = int(state.obj_state[obj])
        new = (bits ^ bit) if want is None else (bits | bit if want else bits & ~bit)
        if new != bits:
            _set_obj_bits(house, state, obj, new, fx, fy)
            return Outcome(action, True, fur, obj, int(bool(new & bit)), fx, fy)
    return failed(action, fx, fy)


def _toggle(house: House, state: WorldState, fx: int, fy: int, cell: list[int]) -> Outcome:
    return _change_bits(house, state, TOGGLE, fx, fy, cell, TOGGLE_BIT, None)


def _open_close(house: House, state: WorldState, action: int, fx: int, fy: int, cell: list[int]) -> Outcome:
    return _change_bits(house, state, action, fx, fy, cell, OPEN_BIT, 1 if action == OPEN else 0)


def _holds_cleaning_tool(house: House, state: WorldState, agent: int) -> bool:
    return any(o >= 0 and _CLEANING_TOOL[house.obj_type_list[o]] for o in state.carrying[agent].tolist())


def _clean(house: House, state: WorldState, agent: int, fx: int, fy: int, cell: list[int]) -> Outcome:
    if not _holds_cleaning_tool(house, state, agent):
        return failed(CLEAN, fx, fy)
    dirt = DUSTY_BIT | STAIN_BIT
    fur = house.fur_at[fy][fx]
    if fur >= 0 and state.fur_state[fur] & dirt:
        _set_fur_bits(house, state, fur, int(state.fur_state[fur]) & ~dirt)
        return Outcome(CLEAN, True, fur, -1, 0, fx, fy)
    obj = _object_in_front(house, state, fx, fy, cell)
    if obj >= 0 and state.obj_state[obj] & dirt:
        _set_obj_bits(house, state, obj, int(state.obj_state[obj]) & ~dirt, fx, fy)
        return Outcome(CLEAN, True, fur, obj, 0, fx, fy)
    return failed(CLEAN, fx, fy)
