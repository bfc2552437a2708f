"""Where a subgoal can be done: its target cells, and whether the agent can reach one.

A *target cell* is a cell that, faced by the agent, lets the subgoal's action
achieve the subgoal right now. A subgoal is *feasible* when some target cell has
a walkable neighbour the agent can reach. The planner walks to such a
neighbour; the mission tracker passes over skippable subgoals that are not
feasible.
"""

from __future__ import annotations

import numpy as np

from marple_gym.missions.mission import Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, BIT, DUSTY_BIT, OPEN_BIT, STAIN_BIT, TOGGLE_BIT
from marple_gym.world.containers import object_accessible
from marple_gym.world.house import House
from marple_gym.world.navigation import bitboard, reachable_cells
from marple_gym.world.state import CH_AGENT, CH_OBJ
from marple_gym.world.world import World

_GATED: list[bool] = ASSETS.fur_gated.tolist()


def _matching_furniture(house: House, sg: Subgoal) -> list[int]:
    """Furniture instances of the subgoal's type standing in a room of its type."""
    fur_code = ASSETS.furniture_code[sg.fur]
    room_code = ASSETS.room_code[sg.room]
    room_types = [ASSETS.room_code[r.type] for r in house.rooms]
    return [
        i
        for i, (t, r) in enumerate(zip(house.fur_type_list, house.fur_room.tolist()))
        if t == fur_code and r >= 0 and room_types[r] == room_code
    ]


def _state_allows(sg: Subgoal, bits: int, holds_tool: bool) -> bool:
    """Would the subgoal's state-changing action change this furniture as wanted?"""
    if sg.action == Action.toggle:
        return bool(bits & TOGGLE_BIT) != sg.state[1]
    if sg.action == Action.open:
        return not bits & OPEN_BIT
    if sg.action == Action.close:
        return bool(bits & OPEN_BIT)
    if sg.action == Action.clean:
        return holds_tool and bool(bits & (DUSTY_BIT | STAIN_BIT))
    return True


def target_cells(world: World, agent: int, sg: Subgoal) -> dict[tuple[int, int], int]:
    """Target cells of ``sg`` for ``agent``, mapped to the furniture instance there."""
    house, state = world.house, world.state
    hands = state.carrying[agent].tolist()
    out: dict[tuple[int, int], int] = {}
    if sg.action == Action.pickup:
        if min(hands) >= 0:
            return out
        furniture = set(_matching_furniture(house, sg))
        code = ASSETS.object_code[sg.obj]
        for obj in np.flatnonzero(house.obj_type == code).tolist():
            x, y = state.obj_pos[obj].tolist()
            if x >= 0 and house.fur_at[y][x] in furniture and object_accessible(house, state, obj):
                out[(x, y)] = house.fur_at[y][x]
        return out
    if sg.action == Action.drop:
        if hands[0] < 0 or house.obj_type_list[hands[0]] != ASSETS.object_code[sg.obj]:
            return out
        for fur in _matching_furniture(house, sg):
            if _GATED[house.fur_type_list[fur]] and not state.fur_state[fur] & OPEN_BIT:
                continue
            ys, xs = house.fur_cells[fur]
            free = (state.grid[ys, xs, CH_OBJ] == 0) & (state.grid[ys, xs, CH_AGENT] == 0)
            out.update({(x, y): fur for x, y in zip(xs[free].tolist(), ys[free].tolist())})
        return out
    holds_tool = any(h >= 0 and ASSETS.obj_cleaning_tool[house.obj_type_list[h]] for h in hands)
    for fur in _matching_furniture(house, sg):
        if _state_allows(sg, int(state.fur_state[fur]), holds_tool):
            ys, xs = house.fur_cells[fur]
            out.update({(x, y): fur for x, y in zip(xs.tolist(), ys.tolist())})
    return out


_STATE_ACTIONS = frozenset({Action.open, Action.close, Action.toggle})


def state_holds(world: World, sg: Subgoal, furniture: int | None = None) -> bool:
    """Is the state ``sg`` would produce (open, closed, on, off) already true of the furniture it names?

    ``furniture`` is the piece the mission uses, if it has chosen one; otherwise any matching piece counts.
    Always False for subgoals that do not set a furniture state.
    """
    if sg.state is None or sg.action not in _STATE_ACTIONS:
        return False
    name, value = sg.state
    pieces = _matching_furniture(world.house, sg) if furniture is None else [furniture]
    return any(bool(int(world.state.fur_state[f]) & BIT[name]) == value for f in pieces)


def access_bits(world: World, agent: int, cells) -> int:
    """Reachable cells next to any of ``cells``: where the agent can stand to act on them.

    Other agents do not make a cell unreachable: in a shared house they move on (the planner waits or
    steps aside for them), so a subgoal they only block for now stays feasible.
    """
    board = bitboard(world.house.width, world.house.height)
    targets = 0
    for x, y in cells:
        targets |= board.bit(x, y)
    return board.neighbours(targets) & reachable_cells(world.state, agent, through_agents=True)


def is_feasible(world: World, agent: int, sg: Subgoal) -> bool:
    """Can ``agent`` achieve ``sg`` from the current state (reach a target cell and act)?"""
    cells = target_cells(world, agent, sg)
    return bool(cells) and bool(access_bits(world, agent, cells))
