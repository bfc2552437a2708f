"""Drawing a dataset's houses and episodes: one shard's work (:func:`run_task`), a pure function of its task.

Every house and episode is drawn from a generator seeded by (the spec's seed, unit, split, role, house, episode),
so shards can run on any core in any order. Where several suspects' missions produce the query state, a test
group in which two suspects produce it first at the same step (no one culprit) is drawn again with the next
redraw number in its seed.
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.shards import file_sha256, write_shard
from marple_gym.datasets.spec import DatasetSpec, ShardTask, Unit
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.records import Trajectory, WhodunitEpisode, first_producer
from marple_gym.recording.role_episodes import shared_episode

_SPLIT_CODE = {"house": 0, "test": 1, "train-in": 2, "train-ood": 3}
MAX_REDRAWS = 50
"""How often a test group without one first producer is drawn again before generation gives up."""
PRACTICE_HOUSE = 2**30
"""House index of practice pairs (:func:`practice_pair`): past any test house a dataset can have."""


def _rng(spec: DatasetSpec, unit: str, split: str, *keys: int) -> np.random.Generator:
    return np.random.default_rng([spec.seed, zlib.crc32(unit.encode()), _SPLIT_CODE[split], *keys])


def _role_code(role: str) -> int:
    return zlib.crc32(role.encode())


def _without_agents(config: HouseConfig) -> HouseConfig:
    return replace(config, agents=[AgentSpec()])


def test_house(spec: DatasetSpec, unit: Unit, k: int) -> HouseConfig:
    """The explicit config of test house ``k`` of a unit (deterministic)."""
    world = generate_world(unit.house_config(spec.config), _rng(spec, unit.name, "house", k), unit.missions)
    return _without_agents(world.house.source["config"])


def _episode(
    house: HouseConfig, house_id: str, role: str, rng: np.random.Generator, seed: int, **planner
) -> Trajectory:
    """One agent's episode in a known house, starting at a random free cell."""
    world = generate_world(replace(house, agents=[AgentSpec(name=role)]), rng)
    agent = HierarchicalPlanner(world, rng=rng, **planner)
    return record_trajectory(world, agent, house=house, house_id=house_id, seed=seed)


def _shared_training_episode(
    unit: Unit, house: HouseConfig, house_id: str, role: str, rng: np.random.Generator, seed: int, **new_house
) -> Trajectory:
    """A training episode of a shared-house unit: every role acts with its preferences; ``role``'s is kept."""
    planners = {r: {"preferences": prefs} for r, prefs in unit.roles.items()}
    _, trajectories = shared_episode(house, planners, rng, house_id=house_id, seed=seed, **new_house)
    return trajectories[list(unit.roles).index(role)]


def _ood_episode(spec: DatasetSpec, unit: Unit, role: str, i: int) -> Trajectory:
    rng = _rng(spec, unit.name, "train-ood", _role_code(role), i)
    if unit.shared:
        config = HouseConfig.load(spec.config)
        return _shared_training_episode(unit, config, f"ood-{role}-{i:05d}", role, rng, i, missions=unit.missions)
    config = replace(HouseConfig.load(spec.config), agents=[AgentSpec(name=role)])
    world = generate_world(config, rng, unit.missions)
    house = _without_agents(world.house.source["config"])
    agent = HierarchicalPlanner(world, rng=rng, preferences=unit.roles[role])
    return record_trajectory(world, agent, house=house, house_id=f"ood-{role}-{i:05d}", seed=i)


def _test_group(spec: DatasetSpec, unit: Unit, house: HouseConfig, house_id: str, k: int, i: int) -> list[Trajectory]:
    """Test episode ``i`` of house ``k``: one trajectory per role, each in its own copy of the house (or all in
    the one house, for a shared unit), drawn again (the redraw number joins the seed) until exactly one
    suspect produced the query state first."""
    for redraw in range(MAX_REDRAWS):
        again = (redraw,) if redraw else ()  # the first draw keeps the seeds of datasets made before redraws
        if unit.shared:
            planners = {role: {"mission": mission} for role, mission in unit.test_missions.items()}
            rng = _rng(spec, unit.name, "test", k, i, *again)
            group = shared_episode(house, planners, rng, house_id=house_id, seed=i)[1]
            if first_producer(group, unit.query_mission, shared=True) is not None:
                return group
            continue
        group = [
            _episode(
                house, house_id, role, _rng(spec, unit.name, "test", k, i, _role_code(role), *again), i, mission=mission
            )
            for role, mission in unit.test_missions.items()
        ]
        if len(group) < 2 or unit.query_mission is None or first_producer(group, unit.query_mission) is not None:
            return group
    raise DatasetError(
        f"{unit.name}: test episode {i} of house {k}: no draw in {MAX_REDRAWS} had one suspect produce the "
        "query state first; the house cannot serve this scenario"
    )


def practice_pair(spec: DatasetSpec, unit_name: str, i: int) -> WhodunitEpisode:
    """Whodunit pair ``i`` of a unit in a house of its own, for practice trials (a study's habituation block).

    Drawn like the test pairs, from the spec's seed, in house :data:`PRACTICE_HOUSE`, which no split uses:
    the same dataset settings give the same practice pairs, and none of them is a pair that is scored.
    """
    unit = spec.unit(unit_name)
    house = test_house(spec, unit, PRACTICE_HOUSE)
    group = _test_group(spec, unit, house, f"{unit.name}-practice", PRACTICE_HOUSE, i)
    culprit = first_producer(group, unit.query_mission, unit.shared)
    return WhodunitEpisode(
        unit.name, unit.query_mission, tuple(group), culprit, f"{unit.name}/practice/{i:03d}", unit.shared
    )


def run_task(spec: DatasetSpec, task: ShardTask, root: Path) -> dict[str, Any]:
    """Generate and write one shard; return its manifest entry."""
    unit = spec.unit(task.unit)
    extra: dict[str, Any] = {"unit": unit.name, "split": task.split, "role": task.role}
    trajectories: list[Trajectory] = []
    if task.split == "train-ood":
        trajectories = [_ood_episode(spec, unit, task.role, i) for i in range(task.start, task.start + task.count)]
    else:
        house = test_house(spec, unit, task.house)
        house_id = f"{unit.name}-house-{task.house:02d}"
        for i in range(task.start, task.start + task.count):
            if task.split == "test":
                group = _test_group(spec, unit, house, house_id, task.house, i)
                extra.setdefault("groups", []).append(list(range(len(trajectories), len(trajectories) + len(group))))
                trajectories += group
                extra.setdefault("ids", []).append(f"{unit.name}/h{task.house:02d}/{i:03d}")
            else:
                rng = _rng(spec, unit.name, "train-in", _role_code(task.role), task.house, i)
                if unit.shared:
                    trajectories.append(_shared_training_episode(unit, house, house_id, task.role, rng, i))
                else:
                    prefs = unit.roles[task.role]
                    trajectories.append(_episode(house, house_id, task.role, rng, i, preferences=prefs))
        if task.split == "test":
            extra["roles"] = list(unit.test_missions)
            extra["query_mission"] = unit.query_mission
    path = root / task.path
    write_shard(path, trajectories, extra)
    return {
        "sha256": file_sha256(path),
        "episodes": len(trajectories),
        "steps": int(sum(t.length for t in trajectories)),
        "split": task.split,
        "unit": task.unit,
        "role": task.role,
    }
