"""Walking a given route: the actions that take an agent through a list of cells, then act on a target.

A scripted agent that repeats an old way (the detour it took round an obstacle
that is gone now) walks the cells of that way with the fewest turns between
steps (a U-turn turns left) and finally faces its target and acts; the actions
then go through the episode transition like any other agent's.
"""

from __future__ import annotations

from collections.abc import Sequence

from marple_gym.planner.routes import turn_actions
from marple_gym.world.actions import Action
from marple_gym.world.house import DIR_VEC

_DIRECTION = {step: d for d, step in enumerate(DIR_VEC)}


def direction_between(a: tuple[int, int], b: tuple[int, int]) -> int:
    """The heading of the step from cell ``a`` to the neighbouring cell ``b`` (ValueError if not neighbours)."""
    step = (b[0] - a[0], b[1] - a[1])
    if step not in _DIRECTION:
        raise ValueError(f"cells {a} and {b} are not neighbours: a route moves one cell at a time")
    return _DIRECTION[step]


def route_actions(
    start: tuple[int, int, int],
    cells: Sequence[tuple[int, int]],
    target: tuple[int, int] | None = None,
    action: int = int(Action.pickup),
) -> list[int]:
    """From pose ``start`` (x, y, heading): walk ``cells`` in order (the first may be the start cell), then turn
    to face ``target`` (a neighbour of the last cell) and do ``action``."""
    x, y, facing = start
    here = (x, y)
    actions: list[int] = []
    for cell in cells:
        cell = (int(cell[0]), int(cell[1]))
        if cell == here:
            continue
        wanted = direction_between(here, cell)
        actions += turn_actions(facing, wanted, u_turn_left=True) + [int(Action.forward)]
        here, facing = cell, wanted
    if target is not None:
        actions += turn_actions(facing, direction_between(here, target), u_turn_left=True) + [int(action)]
    return actions
