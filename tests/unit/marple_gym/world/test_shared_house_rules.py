"""Simultaneous moves in a shared house: the documented rules, in the single-step and the batched transition."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from invariants import assert_agents_apart, assert_grid_consistent, assert_no_object_in_walls, assert_objects_conserved

from marple_gym.episode import EpisodeState
from marple_gym.generation import HouseConfig, generate_world
from marple_gym.generation.config import AgentSpec
from marple_gym.missions import MISSIONS
from marple_gym.world import Action
from marple_gym.world.assets import OPEN_BIT
from marple_gym.world.batch import apply_joint_actions
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.state import CH_AGENT, CH_OBJ, CH_OBJ_ID
from marple_gym.world.world import World

COLORS = ("red", "blue", "green", "purple")


def _two_agents_facing(kind: str, seed: int = 0) -> tuple[World, tuple[int, int]]:
    """A house where agents A and B stand on free floor on either side of one cell, both facing it.

    ``kind`` picks that cell: ``"floor"`` (free floor), ``"door"`` (a door, opened) or ``"object"`` (an
    object lying on the floor or on furniture, not in a container).
    """
    rng = np.random.default_rng(seed)
    for _ in range(200):
        world = generate_world(None, rng, ["do_laundry"])
        house, grid = world.house, world.state.grid
        free = house.open_floor & (house.fur_map < 0) & (grid[..., CH_OBJ] == 0) & (grid[..., CH_AGENT] == 0)
        if kind == "floor":
            targets = list(zip(*np.nonzero(free)[::-1]))
        elif kind == "door":
            targets = [tuple(house.fur_pos[d].tolist()) for d in house.doors.tolist()]
        else:
            targets = [tuple(p) for p in world.state.obj_pos.tolist() if p[0] >= 0]
        for x, y in targets:
            for (ax, ay, a_dir), (bx, by, b_dir) in (((x - 1, y, 0), (x + 1, y, 2)), ((x, y - 1, 1), (x, y + 1, 3))):
                if free[ay, ax] and free[by, bx]:
                    config = house.source["config"]
                    agents = [AgentSpec("A", (ax, ay), a_dir, "red"), AgentSpec("B", (bx, by), b_dir, "blue")]
                    config = replace(config, agents=agents, doors=[replace(d, open=True) for d in config.doors])
                    return generate_world(config, np.random.default_rng(0)), (int(x), int(y))
    raise AssertionError(f"no house with two free cells beside a {kind}")


def _joint_both_ways(world: World, actions: list[int]):
    """The joint step through the episode transition and through the batched rules: the two must agree."""
    batch = BatchedState.repeat(world.state, 1)
    episode = EpisodeState.start(world.house, world.state, (None,) * len(actions))
    steps = episode.advance(world.house, actions)
    batched = apply_joint_actions(world.house, batch, np.array([actions]))
    assert tuple(o.row(0) for o in batched) == tuple(s.outcome for s in steps)
    assert batch.view(0).same_as(world.state)
    return [s.outcome for s in steps]


def test_two_agents_stepping_into_one_cell_the_first_in_order_gets_it():
    world, (x, y) = _two_agents_facing("floor")
    a, b = _joint_both_ways(world, [Action.forward, Action.forward])
    assert a.success and not b.success
    assert tuple(world.state.agent_pos[0].tolist()) == (x, y)
    assert_agents_apart(world)


def test_two_pickups_of_one_object_the_first_in_order_takes_it():
    world, (x, y) = _two_agents_facing("object")
    obj = int(world.state.grid[y, x, CH_OBJ_ID]) - 1
    a, b = _joint_both_ways(world, [Action.pickup, Action.pickup])
    assert a.success and a.obj == obj and not b.success
    assert world.state.carrying[0, 0] == obj and (world.state.carrying[1] < 0).all()
    assert_objects_conserved(world)


def test_a_door_does_not_close_on_an_agent_standing_in_it():
    world, (x, y) = _two_agents_facing("door")
    door = world.house.fur_at[y][x]
    entered, closed = _joint_both_ways(world, [Action.forward, Action.close])
    assert entered.success and not closed.success
    assert world.state.fur_state[door] & OPEN_BIT
    # Once A walks back out of the doorway the door closes.
    for action in (Action.left, Action.left, Action.forward):
        assert _joint_both_ways(world, [action, Action.idle])[0].success
    assert _joint_both_ways(world, [Action.idle, Action.close])[1].success
    assert not world.state.fur_state[door] & OPEN_BIT
    assert_agents_apart(world)


def test_an_agent_cannot_walk_into_a_door_another_closes_in_the_same_step():
    world, (x, y) = _two_agents_facing("door")
    # B acts after A: A's close applies first, so B's forward meets a closed door.
    closed, entered = _joint_both_ways(world, [Action.close, Action.forward])
    assert closed.success and not entered.success
    assert_agents_apart(world)


def _fuzz(agents: int, houses: int, steps: int, seed: int) -> None:
    """Random joint actions in shared houses; every step keeps the collision and conservation invariants."""
    rng = np.random.default_rng(seed)
    names = sorted(MISSIONS)
    config = HouseConfig(agents=[AgentSpec(f"agent_{i}", color=COLORS[i]) for i in range(agents)])
    for _ in range(houses):
        world = generate_world(config, rng, [names[int(rng.integers(len(names)))]])
        episode = EpisodeState.start(world.house, world.state, (None,) * agents)
        # Half navigation so agents meet in doorways; the rest spread over the interactions, close included.
        joint = rng.choice(10, size=(steps, agents), p=[0.12, 0.12, 0.26] + [0.5 / 7] * 7)
        for t, actions in enumerate(joint.tolist()):
            episode.advance(world.house, actions)
            assert_agents_apart(world)
            if t % 5 == 0:
                assert_objects_conserved(world)
        assert_grid_consistent(world)
        assert_no_object_in_walls(world)


@pytest.mark.parametrize("agents", [2, 3, 4])
def test_random_joint_actions_keep_the_shared_house_invariants(agents):
    _fuzz(agents, houses=40, steps=300, seed=agents)


@pytest.mark.slow
def test_random_joint_actions_in_200_two_agent_houses():
    _fuzz(2, houses=200, steps=500, seed=200)


@pytest.mark.parametrize("agents", [2, 3, 4])
def test_batched_joint_actions_equal_the_episode_transition(agents):
    rng = np.random.default_rng(agents)
    config = HouseConfig(agents=[AgentSpec(f"agent_{i}", color=COLORS[i]) for i in range(agents)])
    world = generate_world(config, rng, ["clean_living_room_table"])
    house, n = world.house, 24
    episodes = [EpisodeState.start(house, world.state.copy(), (None,) * agents) for _ in range(n)]
    batch = BatchedState.repeat(world.state, n)
    for _ in range(250):
        actions = rng.choice(10, size=(n, agents), p=[0.12, 0.12, 0.26] + [0.5 / 7] * 7)
        outcomes = apply_joint_actions(house, batch, actions)
        for i, episode in enumerate(episodes):
            steps = episode.advance(house, actions[i].tolist())
            assert tuple(o.row(i) for o in outcomes) == tuple(s.outcome for s in steps), (i, actions[i])
            assert batch.view(i).same_as(episode.world)
    for i in range(n):
        assert_agents_apart(World(house, batch.view(i)))
        assert_objects_conserved(World(house, batch.view(i)))
