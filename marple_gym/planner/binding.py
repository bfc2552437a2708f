"""Subgoal binding: which piece of furniture a mission's subgoal uses, among those of the kind in the room.

Once a piece serves a subgoal, later subgoals on the same kind of furniture in the same room use it again when
they can ("close the fridge you opened"): a :data:`Binding` maps (furniture type, room type) to the piece. The
first choice prefers pieces that can carry the mission's whole chain of subgoals on them (:func:`serves`): in the
states the mission expects, holding what it will pick up and with room for what it will put down (open the fridge
that has the sandwich; use the laundry that is off, since the mission will switch it on).
"""

from __future__ import annotations

from functools import lru_cache

from marple_gym.missions.feasibility import target_cells
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.missions.requirements import Requirement, mission_requirements
from marple_gym.world.actions import Outcome
from marple_gym.world.assets import ASSETS, BIT
from marple_gym.world.house import DIR_VEC
from marple_gym.world.state import CH_OBJ
from marple_gym.world.world import World

Binding = dict[tuple[str, str], int]
"""(furniture type, room type) -> the piece of furniture (its index in the house) the mission's subgoals use."""


@lru_cache(maxsize=256)
def requirements_by_target(mission: Mission) -> dict[tuple[str, str], Requirement]:
    """What ``mission`` needs of each (furniture, room) it uses: shared by every planner on it, never changed."""
    return {(r.fur, r.room): r for r in mission_requirements(mission)}


def bind(binding: Binding, sg: Subgoal, outcome: Outcome) -> None:
    """Record the piece of furniture that the action achieving ``sg`` used (if it used one)."""
    if outcome.fur >= 0:
        binding[(sg.fur, sg.room)] = outcome.fur


def bound_targets(
    world: World, agent: int, mission: Mission, sg: Subgoal, binding: Binding
) -> dict[tuple[int, int], int]:
    """Target cells of ``sg`` for ``agent`` (mapped to the piece there), narrowed to the piece the mission uses:
    the one bound already, else those that can serve the mission's whole chain (see module docs)."""
    cells = target_cells(world, agent, sg)
    if not cells:
        return cells
    key = (sg.fur, sg.room)
    bound = binding.get(key)
    if bound is not None:
        mine = {c: f for c, f in cells.items() if f == bound}
        if mine:
            return mine
    requirement = requirements_by_target(mission).get(key)
    if requirement is not None:
        suitable = {c: f for c, f in cells.items() if serves(world, f, requirement)}
        if suitable:
            return suitable
    return cells


def serves(world: World, fur: int, requirement: Requirement) -> bool:
    """Can this piece carry the mission's whole chain of subgoals on it (states, contents)?"""
    house, state = world.house, world.state
    bits = int(state.fur_state[fur])
    if any(bool(bits & BIT[name]) != value for name, value in requirement.initial.items()):
        return False
    ys, xs = house.fur_cells[fur]
    objects = state.grid[ys, xs, CH_OBJ]
    present = {ASSETS.object_names[c] for c in objects.tolist() if c}
    if not all(obj in present for obj in requirement.contains):
        return False
    if not requirement.needs_free_cell:
        return True
    floor = house.open_floor
    return any(
        floor[y + dy, x + dx]
        for x, y, o in zip(xs.tolist(), ys.tolist(), objects.tolist())
        if not o
        for dx, dy in DIR_VEC
    )
