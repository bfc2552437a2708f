"""Episodes of a dataset in one shared house: every suspect acts at once, each recorded as a trajectory.

The planner in a shared house is :mod:`marple_gym.recording.shared_house`'s; this
module places a unit's roles in a house for it. Agents are named by their
roles (A, B, C, ...) and act in that order within a joint step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.recording.records import Trajectory
from marple_gym.recording.shared_house import run_shared_episode
from marple_gym.rendering.palette import AGENT_COLORS


def with_roles(house: HouseConfig, roles: Sequence[str]) -> HouseConfig:
    """``house`` with one agent per role, at cells left to the generator, each in a colour of its own."""
    colors = list(AGENT_COLORS)
    return replace(house, agents=[AgentSpec(role, color=colors[i % len(colors)]) for i, role in enumerate(roles)])


def shared_episode(
    house: HouseConfig,
    planners: Mapping[str, Mapping[str, Any]],
    rng: np.random.Generator,
    *,
    house_id: str,
    seed: int,
    missions: Sequence[str] | None = None,
) -> tuple[HouseConfig, list[Trajectory]]:
    """One episode of every role in ``planners`` (role -> planner arguments: ``mission`` or ``preferences``)
    acting at once in ``house``; returns the explicit house (without agents) and one trajectory per role.

    ``missions``: the house is only a template; make a new one that serves these missions (train-ood).
    """
    world = generate_world(with_roles(house, list(planners)), rng, list(missions or ()))
    explicit = replace(world.house.source["config"], agents=[])
    agents = [HierarchicalPlanner(world, i, rng=rng, **dict(kw)) for i, kw in enumerate(planners.values())]
    episode = run_shared_episode(world, agents, house=explicit, house_id=house_id, seed=seed)
    return explicit, list(episode.trajectories)
