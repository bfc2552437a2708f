"""Reference models that need no training, to anchor the accuracy scale.

* :class:`UniformMethod` always answers 1/N (0.5 for two suspects): the chance level.
* :class:`DistanceMethod` is a simple vision heuristic: if the query state
  already shows in an agent's world (it holds the picked-up object, the
  appliance is on, the table is clean...), that agent did it; otherwise the
  agent closer (in steps) to the furniture the question is about is more likely,
  ``P(i) = softmax(-d_1 / scale, ..., -d_N / scale)_i``.
"""

from __future__ import annotations

import math

import numpy as np

from marple_eval.evidence import VISION, AgentEvidence, TrialEvidence
from marple_eval.methods.whodunit import WhodunitMethod
from marple_gym.missions.mission import Subgoal
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS, BIT
from marple_gym.world.navigation import bitboard, walkable_mask
from marple_gym.world.world import World


class UniformMethod(WhodunitMethod):
    """Always 1/N for each of N suspects: what an evaluation scores with no information."""

    name = "uniform"
    reads = frozenset()

    def predict(self, trial: TrialEvidence) -> tuple[float, ...]:
        return (1.0 / trial.suspects,) * trial.suspects


def _query_furniture(world: World, query: Subgoal) -> list[int]:
    """Furniture instances of the query's type in rooms of the query's type."""
    house = world.house
    fur_code, room_code = ASSETS.furniture_code[query.fur], ASSETS.room_code[query.room]
    rooms = [ASSETS.room_code[r.type] for r in house.rooms]
    return [
        i
        for i, (code, room) in enumerate(zip(house.fur_type_list, house.fur_room.tolist()))
        if code == fur_code and room >= 0 and rooms[room] == room_code
    ]


def query_shows(start: World, now: World, query: Subgoal) -> bool:
    """Has the agent visibly produced the query state since it started?

    Pickups show as the object in hand, drops as the object newly on the
    furniture, state changes as the furniture's state newly at the query value.
    Idling leaves no trace.
    """
    house = now.house
    if query.action == Action.pickup:
        code = ASSETS.object_code[query.obj]
        return any(o >= 0 and house.obj_type_list[o] == code for o in now.state.carrying[0].tolist())
    furniture = _query_furniture(now, query)
    if query.action == Action.drop:
        code = ASSETS.object_code[query.obj]
        for obj in np.flatnonzero(house.obj_type == code).tolist():
            x, y = now.state.obj_pos[obj].tolist()
            moved = tuple(start.state.obj_pos[obj].tolist()) != (x, y)
            if x >= 0 and moved and house.fur_at[y][x] in furniture:
                return True
        return False
    if query.state is None:
        return False
    bit, value = BIT[query.state[0]], query.state[1]
    return any(
        bool(now.state.fur_state[i] & bit) == value and bool(start.state.fur_state[i] & bit) != value for i in furniture
    )


def distance_to(world: World, query: Subgoal) -> float:
    """Steps from the agent to a cell next to furniture of the query's type in the query's room."""
    house, state = world.house, world.state
    board = bitboard(house.width, house.height)
    target = 0
    for i in _query_furniture(world, query):
        ys, xs = house.fur_cells[i]
        for x, y in zip(xs.tolist(), ys.tolist()):
            target |= board.bit(x, y)
    x, y = state.agent_pos[0].tolist()
    goal = board.neighbours(target)
    for d, layer in enumerate(board.layers(board.bit(x, y), board.from_mask(walkable_mask(state)))):
        if layer & goal:
            return float(d)
    return math.inf


class DistanceMethod(WhodunitMethod):
    """The vision heuristic described in the module docstring (``scale`` in steps)."""

    name = "distance"
    reads = frozenset({VISION})

    def __init__(self, scale: float = 5.0) -> None:
        self.scale = float(scale)

    def settings(self) -> dict:
        return {**super().settings(), "scale": self.scale}

    def _score(self, agent: AgentEvidence, query: Subgoal) -> float:
        start, world = agent.world(0), agent.world()
        if query_shows(start, world, query):
            return math.inf
        d = distance_to(world, query)
        return -d / self.scale

    def predict(self, trial: TrialEvidence) -> tuple[float, ...]:
        scores = np.array([self._score(agent, trial.query) for agent in trial.agents])
        top = scores.max()
        if math.isinf(top) or (scores == top).all():  # shown to have done it, or nothing to tell them apart
            best = scores == top
            return tuple((best / best.sum()).tolist())
        e = np.exp(scores - top)
        return tuple((e / e.sum()).tolist())
