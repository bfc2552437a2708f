"""The ideal observer's rollouts share planning and plan execution, and answer exactly as stepping one by one.

A rollout taken with :meth:`CachingPlanner.reaches` (plans carried out once per
state and plan, from a cache) must reach the query in the same rollouts, and
leave the random generator in the same state, as the planner stepped action by
action with :meth:`HierarchicalPlanner.step`.
"""

from __future__ import annotations

import numpy as np
import pytest

from marple_eval.evidence import VISION, agent_evidence
from marple_eval.inverse import MissionTracker
from marple_gym.generation import generate_world
from marple_gym.missions import get_mission
from marple_gym.planner import HierarchicalPlanner
from marple_gym.recording.recorder import record_trajectory


def step_by_step(planner: HierarchicalPlanner, query, steps: int) -> bool:
    """How the ideal observer rolled out before plans were shared: one :meth:`step` at a time."""
    for _ in range(steps):
        outcome = planner.step()
        if outcome is None:
            return False
        if query.matches(outcome, planner.world.house):
            return True
    return False


def observed(mission: str, seed: int, length: int) -> tuple[MissionTracker, object]:
    """A tracker of ``mission`` that has seen the first ``length`` actions the planner took in a new house."""
    rng = np.random.default_rng(seed)
    world = generate_world(None, rng, [mission, "change_outfit"])
    actor = HierarchicalPlanner(world.clone(), mission=mission, rng=rng)
    tracker = MissionTracker(world, get_mission(mission))
    for _ in range(length):
        outcome = actor.step()
        if outcome is None:
            break
        tracker.observe_action(outcome.action)
    return tracker, actor.world


@pytest.mark.parametrize(
    ("mission", "hypothesis", "length"),
    [("do_laundry", "do_laundry", 9), ("do_laundry", "change_outfit", 4), ("take_shower", "take_shower", 0)],
)
def test_shared_rollouts_reach_the_query_as_stepping_does_and_draw_the_same_numbers(mission, hypothesis, length):
    query = get_mission(mission).query_subgoal
    for seed in range(3):
        tracker, world = observed(hypothesis, seed, length)
        before = world.state.copy()
        shared, alone = np.random.default_rng(seed), np.random.default_rng(seed)
        cache: dict = {}
        hits = []
        for steps in [*range(1, 40), 60, 80, 60, 80]:
            fast = tracker.continuation(world, shared, cache).reaches(query, steps)
            slow = step_by_step(tracker.continuation(world.clone(), alone, {}), query, steps)
            assert fast == slow
            assert shared.bit_generator.state == alone.bit_generator.state
            hits.append(fast)
        assert len(cache) > 0
        assert world.state.same_as(before)  # the rollouts left the world at tau as it was
    assert any(hits) or mission != hypothesis


def test_a_replay_from_the_kept_start_world_equals_one_from_the_start_config():
    rng = np.random.default_rng(4)
    world = generate_world(None, rng, ["feed_dog"])
    planner = HierarchicalPlanner(world, mission="feed_dog", rng=rng)
    trajectory = record_trajectory(world, planner, house=world.house.source["config"], house_id="h", seed=4)
    start = None
    for tau in (0, 5, trajectory.length // 2, trajectory.length):
        evidence = agent_evidence(trajectory, "A", "someone", tau, frozenset({VISION}))
        start = start or evidence.world(0)
        (kept, kept_outcomes), (built, built_outcomes) = evidence.replays([tau], start=start)[0], evidence.replay()
        assert kept.state.same_as(built.state) and kept_outcomes == built_outcomes
    assert start.state.same_as(agent_evidence(trajectory, "A", "x", 0, frozenset({VISION})).world(0).state)
