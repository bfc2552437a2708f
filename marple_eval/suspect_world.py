"""One suspect's world in a shared house: every agent's actions replayed, then seen from that suspect alone.

In the paper's setting each suspect acts in its own copy of the house, so its
start and its own actions rebuild its world. In a shared house the others'
actions change that world too (they take the sandwich, open the door), so the
world at ``t`` comes from replaying every agent's actions, joint step by joint
step, through the episode transition. Methods are built around one agent in a
world (its distance to the query furniture, rollouts of its model, its
planner): they receive the shared world *seen from the suspect alone*, every
furniture and object state as it is at ``t``, the suspect as the only agent,
the others (and what they hold) left out. Rollouts from there model the
suspect carrying on with the others standing aside, an approximation the docs
state (docs/suspects.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.generation.config import HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.world.actions import Outcome
from marple_gym.world.encoding import paint_grid
from marple_gym.world.world import World


@dataclass(frozen=True)
class SharedReplay:
    """Every agent's start and actions in a shared house, and which agent the evidence is about."""

    house: HouseConfig = field(repr=False)
    """Every agent at its start (under neutral names, :func:`neutral_agents`)."""
    actions: np.ndarray = field(repr=False)
    """(tau, n_agents) joint actions, in the world's agent order."""
    agent: int = 0

    def replay(self, alone: HouseConfig, t: int) -> tuple[World, list[Outcome]]:
        """The world after ``t`` joint steps seen from the agent alone (``alone``: the house with only this
        agent, at its start), and what each of its actions did."""
        return self.replays(alone, [t])[0]

    def replays(self, alone: HouseConfig, ts: Sequence[int]) -> list[tuple[World, list[Outcome]]]:
        """:meth:`replay` at each of ``ts`` (ascending), from one replay of the joint actions."""
        world = generate_world(self.house, np.random.default_rng(0))
        episode = EpisodeState.start(world.house, world.state, (None,) * world.house.num_agents)
        outcomes: list[Outcome] = []
        out = []
        for t in ts:
            joints = self.actions[len(outcomes) : t]
            outcomes += [steps[self.agent].outcome for steps in replay(world.house, episode, joints)]
            seen = generate_world(alone, np.random.default_rng(0))
            project(world, self.agent, seen)
            out.append((seen, list(outcomes)))
        return out


def project(shared: World, agent: int, alone: World) -> None:
    """Overwrite ``alone`` (the same house with one agent) with ``shared``'s state as ``agent`` alone finds it."""
    src, dst = shared.state, alone.state
    np.copyto(dst.fur_state, src.fur_state)
    np.copyto(dst.obj_pos, src.obj_pos)
    np.copyto(dst.obj_state, src.obj_state)
    dst.agent_pos[0], dst.agent_dir[0], dst.carrying[0] = (
        src.agent_pos[agent],
        src.agent_dir[agent],
        src.carrying[agent],
    )
    paint_grid(alone.house, dst)


def neutral_agents(house: HouseConfig) -> HouseConfig:
    """The shared house's agents under names and a colour that say nothing of their roles. (Their order
    does: agents act in it within a joint step, so the replay keeps it, as a private field.)"""
    return replace(house, agents=[replace(a, name=f"agent-{i}", color="red") for i, a in enumerate(house.agents)])
