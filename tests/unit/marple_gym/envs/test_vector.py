"""The native vector env: each sub-env is the single env, stepped by the batched world."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import marple_gym  # noqa: F401
from marple_gym.envs import env_ids
from marple_gym.envs.registration import RegistrationError, register
from marple_gym.envs.vector import MarpleVectorEnv
from marple_gym.planner import HierarchicalPlanner

N = 6


def _planner_actions(env_id: str, seed: int) -> list[int]:
    """The actions with which the planner completes the single env's episode of this seed."""
    env = gym.make(env_id).unwrapped
    env.reset(seed=seed)
    planner = HierarchicalPlanner(env.world, mission=env.mission, rng=np.random.default_rng(seed))
    actions = []
    while not planner.done:
        action = planner.next_action()
        actions.append(action)
        *_, terminated, _, _ = env.step(action)
        planner.observe(env.last_outcome)
        if terminated:
            break
    return actions


def _assert_same(vector_obs, i, single_obs):
    for key, value in single_obs.items():
        got = vector_obs[key][i]
        assert np.array_equal(np.asarray(got), np.asarray(value)), key


@pytest.mark.parametrize("env_id", ["Marple-DoLaundry-v0", "Marple-GetSnack-v0"])
def test_every_sub_env_steps_as_the_single_env(env_id):
    seed = 11
    vec = gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", subgoal_reward=0.5)
    assert isinstance(vec, MarpleVectorEnv)
    singles = [gym.make(env_id, subgoal_reward=0.5) for _ in range(N)]
    obs, _ = vec.reset(seed=seed)
    assert vec.observation_space.contains(obs)
    for i, env in enumerate(singles):
        _assert_same(obs, i, env.reset(seed=seed)[0])
    rng = np.random.default_rng(0)
    solved = _planner_actions(env_id, seed)
    for t in range(len(solved)):
        actions = rng.integers(0, 10, size=N)
        actions[0] = solved[t]  # sub-env 0 follows the planner to the end of its mission
        obs, reward, terminated, truncated, info = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, single_info = env.step(int(actions[i]))
            _assert_same(obs, i, o)
            assert (reward[i], terminated[i], truncated[i]) == (r, term, trunc), (t, i)
            assert info["subgoal"][i] == single_info["subgoal"]
    assert terminated[0] and reward[0] >= 1.0
    # The next step starts sub-env 0 over in the same house, ignoring its action.
    obs, reward, terminated, truncated, _ = vec.step(np.full(N, 2))
    first, _ = gym.make(env_id).reset(seed=seed)
    _assert_same(obs, 0, first)
    assert reward[0] == 0.0 and not terminated[0] and not truncated[0]
    vec.close()


def test_truncation_after_max_steps_then_autoreset():
    vec = gym.make_vec("Marple-DoLaundry-v0", num_envs=3, max_steps=4)
    obs, _ = vec.reset(seed=0)
    start = obs["image"].copy()
    flags = [vec.step(np.full(3, 9))[3].tolist() for _ in range(4)]
    assert flags == [[False] * 3] * 3 + [[True] * 3]
    obs, _, _, truncated, _ = vec.step(np.full(3, 1))
    assert not truncated.any() and np.array_equal(obs["image"], start)


def test_copy_false_returns_the_grid_as_a_view_with_the_same_observations():
    copied = gym.make_vec("Marple-DoLaundry-v0", num_envs=8, max_steps=5)
    viewed = gym.make_vec("Marple-DoLaundry-v0", num_envs=8, max_steps=5, copy=False)
    a, _ = copied.reset(seed=4)
    b, _ = viewed.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(12):  # through an autoreset
        for key in a:
            assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key
        assert b["image"] is viewed.unwrapped.batch.grid and a["image"] is not copied.unwrapped.batch.grid
        actions = rng.integers(0, 10, size=8)
        a, *_ = copied.step(actions)
        b, *_ = viewed.step(actions)


def test_mixed_missions_and_bad_input():
    vec = gym.make_vec("Marple-Household-v0", num_envs=64, mission_preferences={"do_laundry": 1, "get_snack": 1})
    obs, _ = vec.reset(seed=2)
    assert set(obs["mission"]) == {"do the laundry", "get a snack"}
    with pytest.raises(ValueError, match="expected 64 actions"):
        vec.step(np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="num_envs"):
        MarpleVectorEnv(num_envs=0, mission="do_laundry")


def test_register_refuses_an_id_taken_by_another_entry_point():
    env_id = env_ids()[0]
    spec = gym.spec(env_id)
    register(env_id, spec.entry_point, spec.vector_entry_point)  # the same again: fine
    with pytest.raises(RegistrationError, match="already registered"):
        register(env_id, "somebody.else:Env", spec.vector_entry_point)
