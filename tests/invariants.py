"""Checks every valid world must pass; shared by generation and fuzz tests."""

from __future__ import annotations

import numpy as np

from marple_gym.missions import house_requirements
from marple_gym.world import World
from marple_gym.world.assets import ASSETS, BIT, DOOR, OPEN_BIT, WALL
from marple_gym.world.encoding import encoded_grid
from marple_gym.world.navigation import bitboard, walkable_mask
from marple_gym.world.state import CH_AGENT, CH_FUR, CH_OBJ


def assert_grid_consistent(world: World) -> None:
    """The incrementally updated vision grid equals one painted from the tables."""
    assert np.array_equal(world.state.grid, encoded_grid(world.house, world.state))


def assert_objects_conserved(world: World) -> None:
    """Every object is either in exactly one cell or in exactly one hand."""
    state = world.state
    held = [o for hands in state.carrying.tolist() for o in hands if o >= 0]
    assert len(held) == len(set(held))
    for obj in range(world.house.num_objects):
        in_world = state.obj_pos[obj, 0] >= 0
        assert in_world != (obj in held), f"object {obj} is both or neither held and placed"
    placed = state.obj_pos[state.obj_pos[:, 0] >= 0]
    assert len({tuple(p) for p in placed.tolist()}) == len(placed), "two objects share a cell"


def assert_agents_apart(world: World) -> None:
    """Agents stand on distinct cells, each on free floor or in an open door (never in a closed one)."""
    house, state = world.house, world.state
    cells = [tuple(p) for p in state.agent_pos.tolist()]
    assert len(set(cells)) == len(cells), f"two agents share a cell: {cells}"
    for agent, (x, y) in enumerate(cells):
        fur = house.fur_at[y][x]
        assert house.open_floor[y, x], f"agent {agent} stands on {house.fur_names[fur]}"
        if fur >= 0:
            assert state.fur_state[fur] & OPEN_BIT, f"agent {agent} stands in the closed {house.fur_names[fur]}"


def assert_no_object_in_walls(world: World) -> None:
    """No object lies in a wall or a door (an agent in a doorway shows what it holds there: that is no object lying)."""
    grid = world.state.grid
    fur = grid[..., CH_FUR]
    bad = (grid[..., CH_OBJ] > 0) & (grid[..., CH_AGENT] == 0) & ((fur == WALL) | (fur == DOOR))
    assert not bad.any()


def assert_rooms_reachable(world: World) -> None:
    """All walkable floor is one region, every room has some, every piece of furniture touches it."""
    house, state = world.house, world.state
    board = bitboard(house.width, house.height)
    walk = walkable_mask(state)
    for x, y in state.agent_pos.tolist():
        walk[y, x] = True
    # Closed doors can be opened: they do not split the house.
    walk |= house.fur_map >= 0
    walk &= ~((house.fur_map >= 0) & (state.grid[..., CH_FUR] != DOOR))
    bits = board.from_mask(walk)
    assert board.flood(bits & -bits, bits) == bits, "walkable floor is split"
    for i, room in enumerate(house.rooms):
        assert (walk & (house.room_map == i)).any(), f"room {room.name} has no walkable floor"
    usable = board.neighbours(bits)
    for i, name in enumerate(house.fur_names):
        ys, xs = house.fur_cells[i]
        fur_bits = sum(board.bit(x, y) for x, y in zip(xs.tolist(), ys.tolist()))
        assert fur_bits & usable, f"{name} cannot be used from any cell"


def assert_requirements_present(world: World, missions) -> None:
    """For every mission requirement some piece of furniture serves it, with its objects reachable."""
    house, state = world.house, world.state
    for req in house_requirements(list(missions)):
        fur_code, room_code = ASSETS.furniture_code[req.fur], ASSETS.room_code[req.room]
        candidates = [
            i
            for i in range(house.num_furniture)
            if house.fur_type[i] == fur_code
            and house.fur_room[i] >= 0
            and ASSETS.room_code[house.rooms[house.fur_room[i]].type] == room_code
        ]
        assert candidates, f"no {req.fur} in a {req.room}"

        def serves(i: int, req=req) -> bool:
            bits = int(state.fur_state[i])
            if any(bool(bits & BIT[s]) != v for s, v in req.initial.items()):
                return False
            on_it = [
                o
                for o in range(house.num_objects)
                if state.obj_pos[o, 0] >= 0 and house.fur_map[state.obj_pos[o, 1], state.obj_pos[o, 0]] == i
            ]
            types = {ASSETS.object_names[house.obj_type[o]] for o in on_it}
            return all(t in types for t in req.contains)

        assert any(serves(i) for i in candidates), f"no {req.fur} in a {req.room} serves {req}"


def assert_world_valid(world: World, missions=()) -> None:
    assert_grid_consistent(world)
    assert_objects_conserved(world)
    assert_no_object_in_walls(world)
    assert_rooms_reachable(world)
    if missions:
        assert_requirements_present(world, missions)


__all__ = [
    "assert_agents_apart",
    "assert_grid_consistent",
    "assert_no_object_in_walls",
    "assert_objects_conserved",
    "assert_requirements_present",
    "assert_rooms_reachable",
    "assert_world_valid",
]
