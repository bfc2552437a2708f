"""Shared-house coordination: how a planner lives with other agents in its house.

It hears of their actions (:func:`plan_survives`) and plans again when one changed the world its plan relied on
(took an object, opened or closed something, stepped onto its path). It treats other agents as obstacles to route
around; when they are the only obstacle it waits a step or, half the time, steps aside to a free neighbouring cell
(:func:`wait_or_step_aside`), and tries again. A subgoal whose furniture state another agent already produced is
passed over as accomplished (:func:`done_by_others`); when another agent undid what an earlier subgoal produced,
the agent goes back to that subgoal (:func:`undone_by_others`).

What others do can never make a planner loop or wait for ever: it goes back to an earlier subgoal at most
:data:`MAX_REWINDS` times per mission, and waits for others to clear the way at most :data:`MAX_WAITS` plans in a
row; past either bound the mission is dropped, as any infeasible mission is.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from marple_gym.missions.feasibility import state_holds
from marple_gym.missions.mission import Mission, Subgoal
from marple_gym.planner.binding import Binding
from marple_gym.planner.routes import turn_actions
from marple_gym.world.actions import Action, Outcome
from marple_gym.world.house import DIR_VEC
from marple_gym.world.navigation import walkable_mask
from marple_gym.world.state import WorldState
from marple_gym.world.world import World

MAX_REWINDS = 20
"""Most times a mission goes back to an earlier subgoal that another agent undid (see module docs)."""
MAX_WAITS = 100
"""Most plans in a row that wait for other agents to clear the way (see module docs)."""
_KEEPS_PLAN = frozenset({int(Action.left), int(Action.right), int(Action.idle)})
_STATE_ACTIONS = frozenset({Action.open, Action.close, Action.toggle})


def done_by_others(world: World, sg: Subgoal, binding: Binding) -> bool:
    """In a shared house: has another agent already put ``sg``'s furniture in the state it wants?"""
    if world.house.num_agents < 2:
        return False
    return state_holds(world, sg, binding.get((sg.fur, sg.room)))


def undone_by_others(world: World, mission: Mission, index: int, binding: Binding) -> int | None:
    """In a shared house: the latest state subgoal before ``index`` whose state another agent undid (closed the
    laundry this agent opened), to go back to and do again; None if there is none."""
    if world.house.num_agents < 2:
        return None
    subgoals = mission.subgoals
    for j in reversed(range(index)):
        sg = subgoals[j]
        if sg.state is None or sg.action not in _STATE_ACTIONS:
            continue
        return None if state_holds(world, sg, binding.get((sg.fur, sg.room))) else j
    return None


def plan_survives(outcome: Outcome, plan: Iterable[int], state: WorldState, agent: int) -> bool:
    """Whether ``agent``'s ``plan`` still holds after another agent's action had ``outcome``.

    A state change (an object taken or put down, something opened, closed, switched or cleaned) may have achieved
    or ruined what the plan is for; a step onto the plan's path blocks it. Turns, idling, failed actions and steps
    elsewhere leave the plan as it is.
    """
    if not outcome.success or outcome.action in _KEEPS_PLAN:
        return True
    return outcome.action == Action.forward and (outcome.x, outcome.y) not in cells_ahead(plan, state, agent)


def cells_ahead(plan: Iterable[int], state: WorldState, agent: int) -> set[tuple[int, int]]:
    """The cells ``plan`` walks into or acts on, from ``agent``'s current cell and direction."""
    x, y = state.agent_pos[agent].tolist()
    d = int(state.agent_dir[agent])
    cells = set()
    for action in plan:
        if action in (Action.left, Action.right):
            d = (d + (3 if action == Action.left else 1)) % 4
            continue
        dx, dy = DIR_VEC[d]
        cells.add((x + dx, y + dy))
        if action == Action.forward:
            x, y = x + dx, y + dy
    return cells


def wait_or_step_aside(state: WorldState, agent: int, rng: np.random.Generator) -> list[int]:
    """When only other agents block every way: wait a step, or half the time step aside (which breaks the
    deadlock of two agents waiting for each other in a doorway)."""
    return step_aside(state, agent, rng) if rng.random() < 0.5 else [int(Action.idle)]


def step_aside(state: WorldState, agent: int, rng: np.random.Generator) -> list[int]:
    """The actions to step onto a free neighbouring cell drawn at random (idle if there is none)."""
    x, y = state.agent_pos[agent].tolist()
    free = walkable_mask(state)
    aside = [d for d, (dx, dy) in enumerate(DIR_VEC) if free[y + dy, x + dx]]
    if not aside:
        return [int(Action.idle)]
    d = aside[int(rng.integers(len(aside)))]
    return turn_actions(int(state.agent_dir[agent]), d) + [int(Action.forward)]
