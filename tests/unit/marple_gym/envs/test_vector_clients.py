"""Gymnasium's vector envs on every registered id, as Gymnasium's own vector tests drive theirs.

Each registered id runs in ``SyncVectorEnv``, ``AsyncVectorEnv`` with shared memory on and off, and its
``vector_entry_point``, through whole episodes and their autoresets: sub-env 0 follows the scripted expert (the
planner, or the searcher) to the end of its task (so it achieves subgoals on steps where sub-env 1 does not, the step whose info batching used to
crash), sub-env 1 acts at random until its step limit. The three Gymnasium vectorisations must agree on every
observation, reward, flag and info (Gymnasium's ``test_vector_env_equal``); the native vector env's sub-env 0
must play the single env's episode.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from registered import REGISTERED_IDS, expert_episode

from marple_gym.envs import HOUSEHOLD_ID
from marple_gym.envs.household import NOT_ACHIEVED
from marple_gym.envs.vector import MarpleVectorEnv

SEED = 3
INFO_TYPES = {"mission": str, "subgoal": int, "achieved": int, "action_success": bool}
"""The info keys of every id (an id may add its own, each also of one type on every step)."""


def planned_episode(env_id: str, seed: int = SEED) -> list[int]:
    """The actions with which the expert completes the single env's episode of ``seed``."""
    return expert_episode(gym.make(env_id), seed)


def joint_actions(planned: list[int], steps: int) -> np.ndarray:
    """(steps, 2) actions: sub-env 0 the planned episode then idling, sub-env 1 random."""
    actions = np.zeros((steps, 2), dtype=np.int64)
    actions[:, 1] = np.random.default_rng(0).integers(0, 10, steps)
    actions[:, 0] = 9
    actions[: len(planned), 0] = planned
    return actions


def rollout(envs: gym.vector.VectorEnv, actions: np.ndarray) -> list[tuple]:
    """Every (observations, rewards, terminations, truncations, infos) from ``reset(seed=SEED)`` on."""
    obs, info = envs.reset(seed=SEED)
    steps = [(obs, None, None, None, info)]
    steps += [envs.step(a) for a in actions]
    envs.close()
    return steps


@pytest.mark.parametrize("env_id", REGISTERED_IDS)
def test_every_id_steps_alike_in_sync_and_async_vector_envs_through_autoresets(env_id):
    planned = planned_episode(env_id)
    limit = len(planned) + 4  # sub-env 1 is cut here; sub-env 0 has finished and restarted by then
    actions = joint_actions(planned, limit + 3)
    runs = {
        name: rollout(gym.make_vec(env_id, 2, vectorization_mode=mode, vector_kwargs=kwargs, max_steps=limit), actions)
        for name, mode, kwargs in (
            ("sync", "sync", {}),
            ("async", "async", {"shared_memory": True}),
            ("async, no shared memory", "async", {"shared_memory": False}),
        )
    }
    sync = runs.pop("sync")
    for name, run in runs.items():
        for t, (got, expected) in enumerate(zip(run, sync)):
            assert data_equivalence(got, expected), f"{name} differs from sync at step {t}"
    infos = [step[4] for step in sync]
    assert all(set(info) == set(infos[0]) for info in infos)
    achieved = np.stack([info["achieved"] for info in infos])
    assert (achieved[: len(planned) + 1, 0] >= 0).any() and achieved.dtype.kind == "i"
    ended = [(step[2] | step[3]).tolist() for step in sync[1:]]
    assert ended[len(planned) - 1][0] and any(e[1] for e in ended), "an episode of each sub-env ended"


def assert_sub_env_0_is(obs: dict, info: dict, single_obs: dict, single_info: dict) -> None:
    assert all(np.array_equal(obs[key][0], value) for key, value in single_obs.items())
    assert info.keys() - single_info.keys() == {f"_{key}" for key in single_info}
    assert all(np.array_equal(info[key][0], value) for key, value in single_info.items())


@pytest.mark.parametrize("env_id", REGISTERED_IDS)
def test_every_ids_vector_entry_point_plays_the_single_env_and_restarts(env_id):
    planned = planned_episode(env_id)
    vec = gym.make_vec(env_id, 2, vectorization_mode="vector_entry_point", max_steps=len(planned) + 4)
    single = gym.make(env_id)
    assert_sub_env_0_is(*vec.reset(seed=SEED), *single.reset(seed=SEED))
    actions = joint_actions(planned, len(planned) + 1)
    for action in actions[:-1]:
        obs, reward, terminated, truncated, info = vec.step(action)
        single_obs, *single_step, single_info = single.step(int(action[0]))
        assert_sub_env_0_is(obs, info, single_obs, single_info)
        assert [reward[0], terminated[0], truncated[0]] == single_step
    assert terminated[0]
    _, reward, terminated, truncated, info = vec.step(actions[-1])  # the autoreset: a new episode's start
    assert (reward[0], terminated[0], truncated[0], info["subgoal"][0]) == (0.0, False, False, 0)
    vec.close()


@pytest.mark.parametrize("env_id", REGISTERED_IDS)
def test_every_info_value_keeps_one_type_on_every_step(env_id):
    """Gymnasium sizes a batched info array from the first sub-env's value: a key whose type changes (an
    ``achieved`` of None, then an int) breaks every vector env."""
    env = gym.make(env_id)
    _, info = env.reset(seed=SEED)
    infos = [info]
    for action in planned_episode(env_id):
        infos.append(env.step(action)[-1])
    types = {k: type(v) for k, v in infos[0].items()}
    assert INFO_TYPES.items() <= types.items()
    for info in infos:
        assert {k: type(v) for k, v in info.items()} == types
    achieved = [info["achieved"] for info in infos]
    assert achieved[0] == NOT_ACHIEVED and sorted(set(achieved))[1:] and all(a >= NOT_ACHIEVED for a in achieved)


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
def test_the_other_autoreset_modes_batch_the_final_info(mode):
    env_id = "Marple-Put-OneRoom-v0"
    planned = planned_episode(env_id)
    envs = gym.make_vec(env_id, 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    envs.reset(seed=SEED)
    for action in joint_actions(planned, len(planned)):
        *_, terminated, _, info = envs.step(action)
    assert terminated[0]
    if mode == AutoresetMode.SAME_STEP:
        assert info["_final_info"][0] and info["final_info"]["achieved"][0] >= 0
    else:
        envs.reset(options={"reset_mask": np.array([True, False])})
    envs.close()


def test_the_native_vector_env_takes_a_seed_per_sub_env():
    """Gymnasium's ``reset(seed=[...])``: the house is the first seed's, each sub-env's mission its own seed's."""
    preferences = {"do_laundry": 1, "get_snack": 1, "feed_dog": 1}
    vec = MarpleVectorEnv(3, mission_preferences=preferences)
    single = gym.make(HOUSEHOLD_ID, mission_preferences=preferences)
    for seeds in ([5, 6, 7], [5, 9, 7], [11, None, 2]):
        obs, info = vec.reset(seed=seeds)
        first, _ = single.reset(seed=seeds[0])
        assert np.array_equal(obs["image"][0], first["image"])
        for i, seed in enumerate(seeds):
            if seed is not None:
                assert info["mission"][i] == single.reset(seed=seed)[1]["mission"]
    again, _ = vec.reset(seed=[5, 9, 7])
    assert data_equivalence(again, vec.reset(seed=[5, 9, 7])[0])
    with pytest.raises(ValueError, match="one per sub-env"):
        vec.reset(seed=[1, 2])


def test_the_native_vector_env_batches_its_info_as_gymnasium_does():
    vec = gym.make_vec("Marple-GetSnack-v0", 2, vectorization_mode="vector_entry_point")
    sync = gym.make_vec("Marple-GetSnack-v0", 2, vectorization_mode="sync")
    _, native_info = vec.reset(seed=0)
    _, sync_info = sync.reset(seed=0)
    assert set(native_info) == set(sync_info)
    for key, value in sync_info.items():
        assert native_info[key].dtype.kind == value.dtype.kind, key
    vec.close()
    sync.close()
