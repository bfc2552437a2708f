"""One mission progress per agent per episode: the planner reads its own from the episode it acts in."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from marple_eval.inverse.likelihood import CachingPlanner
from marple_gym.episode import EpisodeState
from marple_gym.generation import generate_world
from marple_gym.generation.config import AgentSpec
from marple_gym.missions import MissionProgress, get_mission
from marple_gym.multiagent import run_shared_episode, shared_house_config
from marple_gym.planner import HierarchicalPlanner
from marple_gym.recording.recorder import AgentRecorder, record_trajectory
from marple_gym.world.world import World


def _laundry_planner(seed: int = 0) -> tuple[World, HierarchicalPlanner]:
    world = generate_world(None, np.random.default_rng(seed), ["do_laundry"])
    return world, HierarchicalPlanner(world, mission="do_laundry", rng=np.random.default_rng(seed))


def test_the_planners_progress_is_its_agents_in_its_episode_with_the_planners_policy():
    world, planner = _laundry_planner()
    assert planner.episode.world is world.state
    assert planner.progress is planner.episode.progress[0]
    assert planner.progress.skips_infeasible is False  # the planner passes over infeasible subgoals itself
    steps = 0
    while not planner.done:
        planner.step()
        steps += 1
    assert planner.succeeded and planner.episode.progress[0].complete
    assert planner.episode.step_count == steps


def test_a_progress_copy_keeps_its_policy_unless_told_otherwise():
    progress = MissionProgress(get_mission("do_laundry"))
    assert progress.skips_infeasible and progress.copy().skips_infeasible
    assert progress.copy(skips_infeasible=False).skips_infeasible is False


def test_the_recorders_trajectory_progress_is_the_episodes():
    world, planner = _laundry_planner(3)
    house = replace(world.house.source["config"], agents=[AgentSpec()])
    trajectory = record_trajectory(world, planner, house=house, house_id="h", seed=3)
    episode = planner.episode
    assert episode.agents == (0,) and episode.progress == (planner.progress,)  # one tracker, the planner's
    assert episode.step_count == len(trajectory.actions)
    assert planner.succeeded and trajectory.subgoal[-1] == -1  # recorded from the episode's progress


def test_a_recorder_refuses_a_planner_acting_in_another_episode():
    world, planner = _laundry_planner()
    other = EpisodeState.start(world.house, world.state, (None,))
    with pytest.raises(ValueError, match="act_in"):
        AgentRecorder(world.house, other, 0, planner)
    with pytest.raises(ValueError, match="own world state"):
        planner.act_in(EpisodeState.start(world.house, world.state.copy(), (None,)))


def test_planners_in_a_shared_house_keep_one_progress_each_in_the_shared_episode():
    config = shared_house_config(None, 2)
    world = generate_world(config, np.random.default_rng(1), ["do_laundry", "get_snack"])
    rng = np.random.default_rng(1)
    planners = [HierarchicalPlanner(world, i, mission=m, rng=rng) for i, m in enumerate(["do_laundry", "get_snack"])]
    run_shared_episode(world, planners, house=config, max_steps=40)
    episode = planners[0].episode
    assert all(p.episode is episode for p in planners)
    assert episode.progress == tuple(p.progress for p in planners)
    assert episode.step_count == 40 or all(p.done for p in planners)


def test_a_caching_planner_moves_its_progress_on_in_its_episode_for_cached_steps_too():
    world = generate_world(None, np.random.default_rng(2), ["do_laundry"])
    cache: dict = {}
    runs = []
    for _ in range(2):  # the second run takes every step from the cache the first one filled
        planner = CachingPlanner(
            World(world.house, world.state.copy()), mission="do_laundry", rng=np.random.default_rng(5), cache=cache
        )
        while not planner.done:
            planner.step()
        assert planner.progress is planner.episode.progress[0]
        runs.append((planner.progress.achieved, planner.progress.skipped, planner.episode.step_count))
    assert runs[0] == runs[1] and runs[0][2] > 0
