"""The batched world: vectorised rules equal the single-episode transition, action by action."""

from __future__ import annotations

import numpy as np
import pytest
from invariants import assert_grid_consistent, assert_objects_conserved

from marple_gym.generation import generate_world
from marple_gym.missions import MISSIONS
from marple_gym.world.batch import apply_actions
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.rules import apply_action
from marple_gym.world.state import WorldState
from marple_gym.world.world import World


def _diverse_start(world, n: int, rng: np.random.Generator) -> list[WorldState]:
    """``n`` states of one house reached by random walks of different lengths (interactions included)."""
    states = []
    for _ in range(n):
        state = world.state.copy()
        for action in rng.integers(0, 10, size=int(rng.integers(0, 400))).tolist():
            apply_action(world.house, state, 0, action)
        states.append(state)
    return states


@pytest.mark.parametrize("seed", range(len(MISSIONS)))
def test_batched_rules_equal_the_single_transition_action_by_action(seed):
    rng = np.random.default_rng(seed)
    world = generate_world(None, rng, [sorted(MISSIONS)[seed]])
    house = world.house
    singles = _diverse_start(world, 48, rng)
    batch = BatchedState.stack([s.copy() for s in singles])
    for _ in range(300):
        actions = rng.integers(0, 10, size=len(singles))
        outcomes = apply_actions(house, batch, 0, actions)
        for i, (state, action) in enumerate(zip(singles, actions.tolist())):
            expected = apply_action(house, state, 0, action)
            assert outcomes.row(i) == expected, (i, action)
            assert batch.view(i).same_as(state), (i, action)
    for i in range(len(singles)):
        assert_grid_consistent(World(house, batch.view(i)))
        assert_objects_conserved(World(house, batch.view(i)))


@pytest.mark.parametrize("seed", range(4))
def test_a_step_changes_no_cell_outside_its_written_cells(seed):
    # written_cells is what the vector env's image copies bring up to date: a cell missed would show a stale image
    rng = np.random.default_rng(seed)
    world = generate_world(None, rng, [sorted(MISSIONS)[seed]])
    houses = HouseBatch.of(world.house)
    batch = BatchedState.stack(_diverse_start(world, 32, rng))
    for _ in range(200):
        grid, before = batch.grid.copy(), batch.agent_pos[:, 0].copy()
        # drop, open, close, toggle and clean often: furniture and objects change as well as the agents; idle too
        out = apply_actions(world.house, batch, 0, rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9], size=len(batch)))
        changed = np.flatnonzero((grid != batch.grid).any(axis=-1).reshape(-1))
        assert np.isin(changed, out.written_cells(houses, before)).all()


def test_views_share_memory_and_rows_reset():
    world = generate_world(None, np.random.default_rng(9), ["do_laundry"])
    batch = BatchedState.repeat(world.state, 4)
    view = batch.view(2)
    apply_action(world.house, view, 0, 1)  # the scalar rule on a view changes the batch in place
    assert batch.agent_dir[2, 0] != batch.agent_dir[0, 0]
    batch.assign(np.array([2]), world.state)
    assert batch.view(2).same_as(world.state)
    with pytest.raises(ValueError, match="one action per episode"):
        apply_actions(world.house, batch, 0, np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="unknown action"):
        apply_actions(world.house, batch, 0, np.array([0, 1, 2, 10]))


def test_joint_actions_of_two_agents_equal_the_episode_transition():
    from marple_gym.episode import EpisodeState
    from marple_gym.generation import HouseConfig
    from marple_gym.generation.config import AgentSpec
    from marple_gym.world.batch import apply_joint_actions

    rng = np.random.default_rng(7)
    world = generate_world(HouseConfig(agents=[AgentSpec(), AgentSpec()]), rng, ["do_laundry"])
    house = world.house
    episodes = [EpisodeState.start(house, world.state.copy(), (None, None)) for _ in range(16)]
    batch = BatchedState.repeat(world.state, 16)
    for _ in range(300):
        actions = rng.integers(0, 10, size=(16, 2))
        outcomes = apply_joint_actions(house, batch, actions)
        for i, episode in enumerate(episodes):
            steps = episode.advance(house, actions[i].tolist())
            assert tuple(o.row(i) for o in outcomes) == tuple(s.outcome for s in steps)
            assert batch.view(i).same_as(episode.world)
    for i in range(16):
        assert_grid_consistent(World(house, batch.view(i)))


def _houses_of_one_shape(count: int) -> list:
    """``count`` worlds of different houses whose shapes match (the largest group among random seeds)."""
    groups: dict[tuple, list] = {}
    for seed in range(60):
        world = generate_world(None, np.random.default_rng(seed), ["do_laundry"])
        h = world.house
        group = groups.setdefault((h.width, h.height, h.num_furniture, h.num_objects, h.num_agents), [])
        group.append(world)
        if len(group) == count:
            return group
    raise AssertionError("no shape repeated often enough")


def test_a_stack_of_different_houses_steps_as_each_house_alone():
    from marple_gym.evidence.audio import audio_token, audio_tokens
    from marple_gym.missions.batch import subgoal_reached
    from marple_gym.missions.mission import MISSIONS as ALL
    from marple_gym.world.house_batch import HouseBatch

    rng = np.random.default_rng(3)
    worlds = _houses_of_one_shape(4)
    assert len({w.house.fingerprint for w in worlds}) == 4
    # Several episodes of each house, interleaved, from states reached by random walks.
    singles = [(w, s) for w in worlds for s in _diverse_start(w, 6, rng)]
    rng.shuffle(singles)
    houses = HouseBatch.of([w.house for w, _ in singles])
    batch = BatchedState.stack([s.copy() for _, s in singles])
    queries = [sg for m in ALL.values() for sg in m.subgoals]
    for _ in range(300):
        actions = rng.integers(0, 10, size=len(singles))
        outcomes = apply_actions(houses, batch, 0, actions)
        tokens = audio_tokens(outcomes, houses, batch)
        reached = [subgoal_reached(q, houses, outcomes) for q in queries]
        for i, ((world, state), action) in enumerate(zip(singles, actions.tolist())):
            expected = apply_action(world.house, state, 0, action)
            assert outcomes.row(i) == expected, (i, action)
            assert batch.view(i).same_as(state), (i, action)
            assert tokens[i] == audio_token(expected, world.house, state)
            assert [r[i] for r in reached] == [q.matches(expected, world.house) for q in queries]
    for i, (world, _) in enumerate(singles):
        assert_grid_consistent(World(world.house, batch.view(i)))
        assert_objects_conserved(World(world.house, batch.view(i)))


def test_houses_of_different_shapes_do_not_share_a_batch():
    from marple_gym.errors import MarpleError
    from marple_gym.world.house_batch import HouseBatch, HouseShapeError

    first, second = (generate_world(None, np.random.default_rng(s), ["do_laundry"]) for s in (0, 1))
    assert first.house.num_objects != second.house.num_objects
    with pytest.raises(
        HouseShapeError, match="house 1 has furniture count .doors included. 12, house 0 has 13"
    ) as error:
        HouseBatch.of([first.house, second.house])
    assert isinstance(error.value, MarpleError)
    houses = HouseBatch.of([first.house, first.house])
    with pytest.raises(HouseShapeError, match="a batch of 3 episodes needs 3 houses"):
        apply_actions(houses, BatchedState.repeat(first.state, 3), 0, np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="different shapes"):
        BatchedState.stack([first.state, second.state])
    assert HouseBatch.of(first.house) is HouseBatch.of(first.house)  # one shared table per house
