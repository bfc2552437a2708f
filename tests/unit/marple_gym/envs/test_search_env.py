"""The searching agent's env: Gymnasium's checks pass, the observation is what the agent perceives, and the
searching policy, acting through ``env.step`` on the env's belief, finds the object."""

from __future__ import annotations

import pickle
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from minigrid.core.world_object import Goal
from minigrid.wrappers import RGBImgPartialObsWrapper
from registered import expert_episode
from search_houses import two_rooms

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym.beliefs.search import SearchPolicy, SearchSettings
from marple_gym.envs.minigrid_grid import view_grid
from marple_gym.envs.search import SEARCH_ID
from marple_gym.evidence.egocentric import egocentric_view
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


# ---- the clients' contract: MiniGrid's attributes and views, the household envs' keywords and info ----------


def test_minigrids_grid_holds_the_truth_and_its_view_only_what_the_searcher_perceives():
    config = two_rooms({"fridge": "apple", "living cabinet": "remote"})  # the agent in the living room, facing west
    env = gym.make(SEARCH_ID, config=config, goal="remote")
    env.reset(seed=0)
    base = env.unwrapped
    goals = [(i % base.width, i // base.width) for i, cell in enumerate(base.grid.grid) if isinstance(cell, Goal)]
    assert goals == [(14, 2)]  # the remote, shut in the living-room cabinet: the whole truth, as MiniGrid's grid
    _, household = view_grid(base.world, np.zeros((9, 17), dtype=bool), 7, False)  # a household agent's view
    view, seen = base.gen_obs_grid(7)
    assert household[:, :2].any() and not seen[:, :2].any()  # the kitchen, seen through the door, is not perceived
    base.step(1), base.step(1)  # turn to face the cabinet (east): in view, shut, so no goal shows
    view, seen = base.gen_obs_grid(7)
    assert "box" in {cell.type for cell in view.grid if cell} and not any(isinstance(c, Goal) for c in view.grid)


def test_the_egocentric_image_is_the_perceived_house_cut_as_minigrid_cuts_it():
    config = two_rooms({"fridge": "apple", "living cabinet": "remote"})
    actions = np.random.default_rng(2).integers(0, 10, 30).tolist()
    for see_through_walls in (False, True):
        whole = gym.make(SEARCH_ID, config=config)
        window = gym.make(SEARCH_ID, config=config, view_size=5, see_through_walls=see_through_walls)
        assert window.observation_space["image"].shape == (5, 5, 8)
        full, cut = whole.reset(seed=1)[0], window.reset(seed=1)[0]
        for action in [None, *actions]:
            if action is not None:
                full, cut = whole.step(action)[0], window.step(action)[0]
            state = replace(whole.unwrapped.world.state, grid=full["image"])
            assert np.array_equal(cut["image"], egocentric_view(state, 0, 5, see_through_walls))
            _, seen = window.unwrapped.gen_obs_grid()  # MiniGrid's view of the same cells
            assert np.array_equal(seen.T, cut["image"].any(axis=-1))


def test_the_partial_rgb_view_of_the_searcher_is_the_house_as_it_perceives_it():
    partial = RGBImgPartialObsWrapper(gym.make(SEARCH_ID))
    shown = gym.make(SEARCH_ID, render_mode="rgb_array", tile_size=8)
    obs, _ = partial.reset(seed=0)
    shown.reset(seed=0)
    assert partial.observation_space.contains(obs) and np.array_equal(obs["image"], shown.render())


def test_the_info_has_the_household_envs_keys_and_the_reward_counts_the_one_subgoal():
    config = two_rooms({"fridge": "apple", "kitchen cabinet": "plate"})
    env = gym.make(SEARCH_ID, config=config, goal="apple", subgoal_reward=0.5, scene_graph=True)
    obs, info = env.reset(seed=3)
    assert obs["mission"] == "find the apple" and info["mission"] == "find_apple"
    assert (info["subgoal"], info["achieved"], info["action_success"]) == (0, -1, True)
    assert "apple" not in {d.get("type") for _, d in info["scene_graph"].nodes(data=True)}  # shut in the fridge
    steps = [env.step(action) for action in expert_episode(gym.make(SEARCH_ID, config=config, goal="apple"), 3)]
    *_, (obs, reward, terminated, _, info) = steps
    assert terminated and reward == 1.5 and (info["subgoal"], info["achieved"]) == (1, 0)
    assert all(step[4]["achieved"] == -1 and step[1] == 0.0 for step in steps[:-1])
    assert obs["carrying"][0] == obs["goal"]


def test_the_search_takes_only_its_own_observation_keys():
    env = gym.make(SEARCH_ID, observation_keys=("image", "mission"))
    assert set(env.reset(seed=0)[0]) == {"image", "mission"}
    with pytest.raises(ValueError, match="unknown observation keys \\['intent'\\]"):
        gym.make(SEARCH_ID, observation_keys=("image", "intent"))
