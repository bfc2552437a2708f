"""The searching agent's env: Gymnasium's checks pass, the observation is what the agent perceives, and the
searching policy, acting through ``env.step`` on the env's belief, finds the object."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from search_houses import two_rooms

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym.beliefs.search import SearchPolicy, SearchSettings
from marple_gym.envs.search import SEARCH_ID
from marple_gym.world.state import CH_OBJ


@pytest.mark.parametrize("perception", ["room", "view"])
def test_the_search_env_passes_gymnasiums_checker(perception):
    check_env(gym.make(SEARCH_ID, perception=perception).unwrapped, skip_render_check=False)


def test_the_observation_hides_other_rooms_and_closed_containers_but_the_state_has_them():
    env = gym.make(SEARCH_ID, config=two_rooms({"fridge": "apple", "living cabinet": "remote"}), goal="apple")
    obs, info = env.reset(seed=0)
    world = env.unwrapped.world
    assert world.state.grid[2, 2, CH_OBJ] and world.state.grid[2, 14, CH_OBJ]  # both are in the full state
    assert not obs["image"][2, 2].any()  # the kitchen is another room: unseen
    assert obs["image"][2, 14, 1] and not obs["image"][2, 14, CH_OBJ]  # the cabinet is seen, not what is inside
    assert info["belief"].shape == (9, 17) and info["belief"].sum() == pytest.approx(1.0)
    assert info["belief"][2, 14] == 0 and info["belief"][2, 2] > 0  # apples are not kept in living rooms


def test_the_searching_policy_finds_the_object_through_env_step():
    env = gym.make(SEARCH_ID, config=two_rooms({"fridge": "apple", "kitchen cabinet": "plate"}), goal="apple")
    env.reset(seed=3)
    unwrapped = env.unwrapped
    policy = SearchPolicy(unwrapped.house, SearchSettings(lapse=0.0))
    rng, last, total = np.random.default_rng(0), None, 0.0
    terminated = truncated = False
    while not (terminated or truncated):
        moment = policy.moment(unwrapped.episode.world, 0, last)
        action = policy.sample(moment, unwrapped.goal, unwrapped.belief, rng)
        _, reward, terminated, truncated, _ = env.step(action)
        last, total = unwrapped.episode.last_outcomes[0], total + reward
    assert terminated and total == 1.0 and unwrapped.holds_goal


def test_the_env_is_deterministic_pickles_and_vectorises():
    actions = np.random.default_rng(0).integers(0, 10, 40).tolist()
    a, b = gym.make(SEARCH_ID), gym.make(SEARCH_ID)
    first, _ = a.reset(seed=7)
    second, _ = b.reset(seed=7)
    assert all(np.array_equal(first[k], second[k]) for k in first)
    for t, action in enumerate(actions):
        if t == 20:
            b = pickle.loads(pickle.dumps(b))
        x, y = a.step(action), b.step(action)
        assert all(np.array_equal(x[0][k], y[0][k]) for k in x[0]) and x[1:4] == y[1:4]
    vec = gym.make_vec(SEARCH_ID, num_envs=2, vectorization_mode="sync")
    obs, info = vec.reset(seed=1)
    assert vec.observation_space.contains(obs) and info["belief"].shape == (2, 20, 20)
    vec.close()
    with pytest.raises(ValueError, match="perception must be one of"):
        gym.make(SEARCH_ID, perception="x-ray")
