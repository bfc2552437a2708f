"""N planners in one house: they reach their missions, replan around each other, and the record replays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from invariants import assert_agents_apart, assert_objects_conserved

from marple_gym.episode import EpisodeState
from marple_gym.evidence.language import NO_TESTIMONY
from marple_gym.generation import HouseConfig, generate_world
from marple_gym.generation.config import AgentSpec
from marple_gym.multiagent import generate_shared_episode, run_shared_episode, shared_house_config
from marple_gym.planner import HierarchicalPlanner
from marple_gym.planner.coordination import cells_ahead
from marple_gym.world import Action
from marple_gym.world.actions import Outcome
from marple_gym.world.rules import apply_action
from marple_gym.world.world import World

THREE = [{"do_laundry": 1.0}, {"change_outfit": 1.0}, {"get_snack": 1.0}]


@pytest.mark.parametrize("seed", range(6))
def test_three_planners_share_a_house_and_the_record_replays(seed):
    episode = generate_shared_episode(None, THREE, np.random.default_rng(seed), house_id=f"h{seed}", seed=seed)
    trajectories = episode.trajectories
    assert len({t.length for t in trajectories}) == 1 and len({t.agent for t in trajectories}) == 3
    # Every agent ends its mission well before the step limit: done (perhaps after a resampled attempt), or given
    # up by the planner's rules (another agent filled the laundry it meant to use); most reach their query state.
    assert episode.length < 400
    for trajectory in trajectories:
        assert trajectory.mission_index[-1] == -1 and trajectory.subgoal[-1] == -1
    assert sum(t.missions[-1] in t.query_steps for t in trajectories) >= 2
    # Replaying the joint actions gives back every agent's recorded positions, step by step, and keeps the rules.
    world = episode.initial_world()
    replay = EpisodeState.start(world.house, world.state, (None,) * 3)
    for t, actions in enumerate(episode.joint_actions().tolist()):
        steps = replay.advance(world.house, actions)
        for i, trajectory in enumerate(trajectories):
            assert tuple(trajectory.position[t + 1].tolist()) == tuple(world.state.agent_pos[i].tolist())
            assert int(trajectory.outcomes[t, 0]) == int(steps[i].outcome.success)
        assert_agents_apart(world)
    assert_objects_conserved(world)
    assert episode.world_at(episode.length).state.same_as(world.state)


def test_testimonies_come_from_the_shared_replay():
    episode = generate_shared_episode(None, THREE, np.random.default_rng(0))
    for i, trajectory in enumerate(episode.trajectories):
        said = episode.testimonies(i)
        assert len(said) == episode.length + 1 and said[0] == NO_TESTIMONY
        changes = [
            bool(trajectory.outcomes[t, 0]) and trajectory.actions[t] in (3, 4, 5, 6, 7, 8)
            for t in range(episode.length)
        ]
        for t, changed in enumerate(changes):
            if not changed:
                assert said[t + 1] == said[t]  # only the agent's own state changes make its testimony
        assert any(changes) and said[-1] != NO_TESTIMONY


def test_one_seed_gives_one_shared_episode():
    a = generate_shared_episode(None, THREE, np.random.default_rng(11))
    b = generate_shared_episode(None, THREE, np.random.default_rng(11))
    assert np.array_equal(a.joint_actions(), b.joint_actions())
    assert all(np.array_equal(x.vision, y.vision) for x, y in zip(a.trajectories, b.trajectories))


def test_each_agent_records_the_shared_grid_seen_as_itself():
    episode = generate_shared_episode(None, THREE, np.random.default_rng(3))
    world = episode.initial_world()
    for trajectory in episode.trajectories:
        x, y = trajectory.position[0].tolist()
        assert trajectory.vision[0][y, x, 6] == 1
        assert np.array_equal(trajectory.vision[0][..., :6], world.state.grid[..., :6])


def test_the_first_to_reach_a_query_state_is_the_culprit():
    # Two agents on the same mission: whoever turns the laundry on first produced the query state.
    episode = generate_shared_episode(None, [{"do_laundry": 1.0}] * 2, np.random.default_rng(5))
    steps = [t.query_steps.get("do_laundry") for t in episode.trajectories]
    agent, step = episode.first_to("do_laundry")
    assert step == min(s for s in steps if s is not None) and steps[agent] == step
    assert episode.first_to("feed_dog") is None


def _blocked_doorway(seed: int) -> World | None:
    """A two-room house (Bedroom, Bathroom, one door) with A in the Bathroom and B standing in the door."""
    world = generate_world(HouseConfig(num_rooms=2), np.random.default_rng(seed), ["do_laundry"])
    house, grid = world.house, world.state.grid
    if len(house.doors) != 1:
        return None
    free = house.open_floor & (house.fur_map < 0) & (grid[..., 3] == 0) & (grid[..., 6] == 0)
    (door,) = house.doors.tolist()
    x, y = house.fur_pos[door].tolist()
    bathroom = next(i for i, r in enumerate(house.rooms) if r.type == "Bathroom")
    # (B's cell beside the door, B's direction into it, A's cell behind B, the two cells B walks on to)
    sides = (
        ((x + 1, y), 2, (x + 2, y), ((x - 1, y), (x - 2, y))),
        ((x - 1, y), 0, (x - 2, y), ((x + 1, y), (x + 2, y))),
        ((x, y + 1), 3, (x, y + 2), ((x, y - 1), (x, y - 2))),
        ((x, y - 1), 1, (x, y - 2), ((x, y + 1), (x, y + 2))),
    )
    for (bx, by), b_dir, (ax, ay), beyond in sides:
        clear = all(free[oy, ox] for ox, oy in beyond)
        if free[by, bx] and free[ay, ax] and clear and house.room_map[ay, ax] == bathroom:
            config = house.source["config"]
            agents = [AgentSpec("A", (ax, ay), 0, "red"), AgentSpec("B", (bx, by), b_dir, "blue")]
            config = replace(config, doors=[replace(d, open=True) for d in config.doors], agents=agents)
            shared = generate_world(config, np.random.default_rng(0))
            assert apply_action(shared.house, shared.state, 1, int(Action.forward)).success  # B steps into the doorway
            return shared
    return None


def test_a_planner_blocked_only_by_another_agent_waits_or_steps_aside_instead_of_giving_up():
    worlds = (_blocked_doorway(seed) for seed in range(60))
    world = next(w for w in worlds if w is not None)
    # The clothes lie on the bed in the Bedroom, beyond the door B stands in: A's only way is blocked.
    planner = HierarchicalPlanner(world, 0, mission="do_laundry", rng=np.random.default_rng(1))
    assert not planner.failed_missions and planner.progress.index == 0
    first = planner.next_action()
    assert first in (Action.idle, Action.left, Action.right, Action.forward)
    # Once B walks on through the door and away from it, A's plan goes through it.
    for _ in range(2):
        planner.notice(apply_action(world.house, world.state, 1, int(Action.forward)))
    while planner.next_action() in (Action.idle,):
        planner.observe(apply_action(world.house, world.state, 0, int(Action.idle)))
    assert not planner.failed_missions and planner.progress.index == 0
    for _ in range(200):
        if planner.progress.index > 0:
            break
        planner.step()
    assert planner.progress.index > 0 and not planner.failed_missions


def test_a_planner_drops_its_plan_when_another_agent_changes_what_it_relies_on():
    world = generate_world(shared_house_config(None, 2), np.random.default_rng(4), ["do_laundry"])
    planner = HierarchicalPlanner(world, 0, mission="do_laundry", rng=np.random.default_rng(0))
    plan = list(planner._plan)
    ahead = cells_ahead(planner._plan, world.state, 0)
    x, y = next(iter(ahead))
    off_path = next(
        (cx, cy) for cx in range(world.house.width) for cy in range(world.house.height) if (cx, cy) not in ahead
    )
    # Turning, idling, failing or walking elsewhere changes nothing the plan relies on ...
    for outcome in (
        Outcome(int(Action.left), True, -1, -1, -1, *off_path),
        Outcome(int(Action.idle), True, -1, -1, -1, x, y),
        Outcome(int(Action.pickup), False, -1, -1, -1, x, y),
        Outcome(int(Action.forward), True, -1, -1, -1, *off_path),
    ):
        planner.notice(outcome)
        assert list(planner._plan) == plan
    # ... stepping onto its path does, and so does any change of state anywhere.
    planner.notice(Outcome(int(Action.forward), True, -1, -1, -1, x, y))
    assert not planner._plan
    planner.next_action()
    assert planner._plan
    planner.notice(Outcome(int(Action.open), True, 0, -1, 1, *off_path))
    assert not planner._plan


def test_run_shared_episode_checks_its_planners():
    config = shared_house_config(None, 2)
    world = generate_world(config, np.random.default_rng(0), ["do_laundry"])
    one = HierarchicalPlanner(world, 0, mission="do_laundry", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="one planner per world agent"):
        run_shared_episode(world, [one], house=config)
    other = HierarchicalPlanner(world.clone(), 1, mission="do_laundry", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="shared world"):
        run_shared_episode(world, [one, other], house=config)
    assert Action.idle == 9


def test_a_planner_that_cannot_redo_what_another_agent_undid_gives_up_instead_of_looping(monkeypatch):
    from marple_gym.missions.progress import MissionProgress

    world = generate_world(shared_house_config(None, 2), np.random.default_rng(4), ["do_laundry"])
    planner = HierarchicalPlanner(world, 0, mission="do_laundry", rng=np.random.default_rng(0))
    while planner.progress.index < 6:  # the laundry is on: next "toggle off the laundry" (skippable), then open it
        planner.step()
    assert planner.current_subgoal.name == "toggle-off-laundry-Bathroom"
    # Now the laundry is out of reach (another agent dropped things in front of it, say): the skippable toggle-off
    # is skipped, opening fails, and toggling off is what opening needs: going back to it cannot help.
    make_plan = planner._make_plan
    monkeypatch.setattr(planner, "_make_plan", lambda: planner.progress.current.fur != "laundry" and make_plan())
    rewinds = []
    rewind = MissionProgress.rewind

    def counted(progress, index):
        rewinds.append(index)
        assert len(rewinds) < 100, "the planner loops"
        rewind(progress, index)

    monkeypatch.setattr(MissionProgress, "rewind", counted)
    planner._plan.clear()
    planner.next_action()  # returns: the mission is dropped, not retried for ever
    assert planner.failed_missions[0] == "do_laundry" and rewinds[:1] == [6] and rewinds.count(6) <= 1


def test_waiting_for_a_way_that_never_clears_ends_in_a_bounded_number_of_steps():
    from marple_gym.planner.planner import MAX_MISSION_ATTEMPTS, MAX_WAITS

    world = next(w for w in (_blocked_doorway(seed) for seed in range(60)) if w is not None)
    planner = HierarchicalPlanner(world, 0, mission="do_laundry", rng=np.random.default_rng(1))
    steps = 0
    while not planner.done:  # B never moves out of the only doorway
        planner.step()
        steps += 1
        assert steps < 10 * MAX_MISSION_ATTEMPTS * MAX_WAITS, "the planner waits for ever"
    assert not planner.succeeded and set(planner.failed_missions) == {"do_laundry"}
