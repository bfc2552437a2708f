"""A one-room world with a light to switch on, and hand-made evidence in it: for tests of rollouts and scoring."""

from __future__ import annotations

import numpy as np
from worlds import make_world

from marple_eval.evidence import AgentEvidence
from marple_gym.evidence import AUDIO
from marple_gym.missions import Subgoal
from marple_gym.world import Action, World


def light_world() -> World:
    return make_world(furniture=[{"type": "light", "pos": [3, 3], "state": {"toggleable": False}}])


TOGGLE_ON = Subgoal(Action.toggle, "light", "Kitchen", state=("toggleable", True))
"""Switch on the light in the Kitchen: the query subgoal in :func:`light_world`."""


def evidence_for(world: World) -> AgentEvidence:
    """Minimal agent evidence at tau = 0 in a hand-made world."""
    config = world.house.source["config"]
    return AgentEvidence(
        "A",
        "agent-x",
        0,
        frozenset({"vision", "audio"}),
        config,
        world.state.grid[None].copy(),
        np.zeros(0, dtype=np.int8),
        np.array([AUDIO.index["toggle_on_light"]]),
        None,
        None,
    )


def evidence_after(world: World, actions: list[int], identity: str = "agent-x", label: str = "A") -> AgentEvidence:
    """Vision evidence of an agent that took ``actions`` from ``world`` (a copy is stepped): tau = len(actions)."""
    from marple_gym.world.rules import apply_action

    stepped = world.clone()
    frames = [stepped.state.grid.copy()]
    for action in actions:
        apply_action(stepped.house, stepped.state, 0, action)
        frames.append(stepped.state.grid.copy())
    config = world.house.source["config"]
    taken = np.array(actions, dtype=np.int8)
    return AgentEvidence(
        label, identity, len(actions), frozenset({"vision"}), config, np.stack(frames), taken, None, None, None
    )
