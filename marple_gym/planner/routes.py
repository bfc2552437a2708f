"""Path following, the planner's low level: walk a shortest path to a cell next to a target, turn to face it, act.

A :class:`PlanRequest` is one subgoal's low-level problem in the world as it is (:func:`plan_request` poses it):
where the agent stands and faces, which cells it may cross, the goal cells in front of the subgoal's targets, and
the closed doors on the way (opened before stepping in). :meth:`PlanRequest.sample` draws the planner's plan: a
path uniform among all shortest paths (:mod:`marple_gym.planner.paths`), a target uniform among those in front of
its end, and the direction of each U-turn by a fair coin. Planning and exact inverse planning start from the same
request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from marple_gym.planner.paths import draw_shortest_path, passable_cells, shortest_path_counts
from marple_gym.world.actions import Action
from marple_gym.world.assets import DOOR, OPEN_BIT
from marple_gym.world.house import DIR_VEC
from marple_gym.world.state import CH_FUR, CH_FUR_STATE
from marple_gym.world.world import World

_DIR_OF_STEP = {v: d for d, v in enumerate(DIR_VEC)}


def plan_request(
    world: World, agent: int, targets: dict[tuple[int, int], int], action: int, through_agents: bool = False
) -> PlanRequest | None:
    """The problem of acting (``action``) on one of ``targets`` (cells) from where ``agent`` stands in ``world``;
    None if there is no target. With ``through_agents`` other agents' cells count as free (the problem once they
    have moved on), which is how a planner in a shared house tells a blocked way from an impossible one."""
    if not targets:
        return None
    house, state = world.house, world.state
    width = house.width
    passable = passable_cells(house, state, agent, through_agents)
    goals: dict[int, list[tuple[int, int]]] = {}
    for tx, ty in targets:
        for dx, dy in DIR_VEC:
            c = (ty + dy) * width + (tx + dx)
            if passable[c]:
                goals.setdefault(c, []).append((tx, ty))
    x, y = state.agent_pos[agent].tolist()
    grid = state.grid
    doors = np.flatnonzero(
        (grid[..., CH_FUR] == DOOR) & (((grid[..., CH_FUR_STATE].astype(np.int64) - 1) & OPEN_BIT) == 0)
    )
    return PlanRequest(
        passable,
        width,
        y * width + x,
        int(state.agent_dir[agent]),
        goals,
        frozenset(doors.tolist()),
        action,
    )


@dataclass(frozen=True)
class PlanRequest:
    """One subgoal's low-level problem: walk a shortest path to a goal cell, face a target next to it, act.

    Cells are flat indices (``y * width + x``). Closed doors on the way are opened
    before stepping into them.
    """

    passable: list[bool]
    width: int
    start: int
    facing: int
    goals: dict[int, list[tuple[int, int]]]
    """Goal cell -> the target cells in front of which an agent standing there can act."""
    closed_doors: frozenset[int]
    action: int

    @cached_property
    def search(self) -> tuple[dict[int, int], dict[int, int], list[int]]:
        """Distances and shortest-path counts from the start, and the nearest goals (computed once)."""
        return shortest_path_counts(self.passable, self.width, self.start, set(self.goals))

    @cached_property
    def _steps_back(self) -> dict:
        """The choices of :func:`draw_shortest_path` on this search, worked out once for every plan drawn."""
        return {}

    @cached_property
    def _routes(self) -> dict[tuple[int, ...], tuple[list[_Turning], int]]:
        """:meth:`_route` of the paths plans drawn from this request took."""
        return {}

    @cached_property
    def _finals(self) -> dict[tuple[int, int, tuple[int, int]], _Turning]:
        """:meth:`final_actions` of the (facing, end, target) plans drawn from this request ended with."""
        return {}

    def direction(self, a: int, b: int) -> int:
        """The direction of the step from flat cell ``a`` to the neighbouring flat cell ``b``."""
        return _DIR_OF_STEP[((b % self.width) - (a % self.width), (b // self.width) - (a // self.width))]

    def move_actions(self, facing: int, a: int, b: int, u_turn_left: bool) -> list[int]:
        """The actions stepping from ``a`` to ``b``: turns, opening a closed door, forward."""
        actions = turn_actions(facing, self.direction(a, b), u_turn_left)
        if b in self.closed_doors:
            actions.append(int(Action.open))
        actions.append(int(Action.forward))
        return actions

    def final_actions(self, facing: int, end: int, target: tuple[int, int], u_turn_left: bool) -> list[int]:
        """At the path's end: turn to face ``target``, then act."""
        tx, ty = target
        return turn_actions(facing, self.direction(end, ty * self.width + tx), u_turn_left) + [int(self.action)]

    def sample(self, rng: np.random.Generator) -> list[int] | None:
        """The planner's random choice of a plan: a path uniform among shortest paths, a target uniform among
        those in front of its end, a U-turn's direction by a fair coin. None if no goal is reachable."""
        path = draw_shortest_path(self.search, self.width, self.start, rng, self._steps_back)
        if path is None:
            return None
        key = tuple(path)
        route = self._routes.get(key)
        if route is None:
            route = self._routes[key] = self._route(path)
        parts, facing = route
        plan: list[int] = []
        for part in parts:
            plan += _turn(part, rng)
        end = path[-1]
        options = self.goals[end]
        # (numpy draws nothing for a choice of one: tests/unit/marple_gym/world/test_sampling.py)
        target = options[0] if len(options) == 1 else options[int(rng.integers(len(options)))]
        final = self._finals.get((facing, end, target))
        if final is None:
            wanted = self.direction(end, target[1] * self.width + target[0])
            final = _turning(lambda left: self.final_actions(facing, end, target, left), facing, wanted)
            self._finals[(facing, end, target)] = final
        return plan + list(_turn(final, rng))

    def _route(self, path: list[int]) -> tuple[list[_Turning], int]:
        """The steps along ``path`` as runs of fixed actions and U-turns either way (the coin decides which,
        in order), and the direction faced at its end."""
        facing = self.facing
        parts: list[_Turning] = []
        for a, b in zip(path, path[1:]):
            wanted = self.direction(a, b)
            part = _turning(lambda left, a=a, b=b, f=facing: self.move_actions(f, a, b, left), facing, wanted)
            if part[1] is None and parts and parts[-1][1] is None:
                parts[-1] = (parts[-1][0] + part[0], None)
            else:
                parts.append(part)
            facing = wanted
        return parts, facing


_Turning = tuple[tuple[int, ...], tuple[int, ...] | None]
"""Actions that turn from one direction to another and go on: (the actions, None), or for a U-turn (turning
left, turning right): a U-turn goes either way with equal chance, and the coin is only tossed for a U-turn."""


def _turning(actions: Callable[[bool], list[int]], facing: int, wanted: int) -> _Turning:
    """The :data:`_Turning` of ``actions(u_turn_left)``, which turn from ``facing`` to ``wanted``."""
    if (wanted - facing) % 4 == 2:
        return tuple(actions(True)), tuple(actions(False))
    return tuple(actions(False)), None


def _turn(turning: _Turning, rng: np.random.Generator) -> tuple[int, ...]:
    """The actions of a :data:`_Turning`, tossing the coin of a U-turn (below one half: left)."""
    actions, right = turning
    return actions if right is None or rng.random() < 0.5 else right


def turn_actions(facing: int, wanted: int, u_turn_left: bool = False) -> list[int]:
    """The fewest turns from ``facing`` to ``wanted``; a U-turn is two lefts or two rights."""
    diff = (wanted - facing) % 4
    if diff == 1:
        return [int(Action.right)]
    if diff == 3:
        return [int(Action.left)]
    if diff == 2:
        return [int(Action.left)] * 2 if u_turn_left else [int(Action.right)] * 2
    return []
