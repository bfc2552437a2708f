"""The episodes ``marple replay`` shows: a dataset's whodunit test pair, or a fresh planner episode of one mission."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.errors import MarpleError
from marple_gym.generation import generate_world
from marple_gym.generation.config import AgentSpec
from marple_gym.missions import get_mission
from marple_gym.planner import HierarchicalPlanner
from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.records import Trajectory, WhodunitEpisode


def whodunit_pair(
    data: str | Path, episode_id: str | None = None, scenario: str | None = None, index: int = 0
) -> WhodunitEpisode:
    """The test pair ``episode_id`` of dataset ``data``, else pair ``index`` of ``scenario`` (default: the
    dataset's first two-agent scenario)."""
    dataset = MarpleDataset(data)
    if episode_id:
        return dataset.whodunit_episode(episode_id)  # a missing id is an error listing the nearest ones
    units = [u.name for u in dataset.spec.units if len(u.roles) == 2]
    unit = scenario or (units[0] if units else None)
    if unit is None:
        raise MarpleError(f"{data} has no whodunit pairs; give --mission to replay a planner episode")
    for k, episode in enumerate(dataset.whodunit(unit)):
        if k == index:
            return episode
    raise MarpleError(f"{unit} has no test pair {index} in {data}")


def planner_trajectory(mission: str, seed: int) -> Trajectory:
    """A fresh episode of ``mission`` by the hierarchical planner in a new house drawn from ``seed``."""
    get_mission(mission)
    rng = np.random.default_rng(seed)
    world = generate_world(None, rng, [mission])
    house = replace(world.house.source["config"], agents=[AgentSpec()])
    planner = HierarchicalPlanner(world, mission=mission, rng=rng)
    return record_trajectory(world, planner, house=house, house_id=f"{mission}-{seed}", seed=seed)
