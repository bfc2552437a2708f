"""The Gymnasium environments: checkers, determinism, pickling, vector envs, rewards."""

from __future__ import annotations

import inspect
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from registered import REGISTERED_IDS
from scripted import SNACK_HOUSE, SNACK_SCRIPT

from marple_gym import FlatObservation, ImageObservation
from marple_gym.envs.registration import HOUSEHOLD_ID, mission_env_id
from marple_gym.evidence.language import intent
from marple_gym.missions import MISSIONS

ALL_IDS = REGISTERED_IDS
MISSION_IDS = [mission_env_id(name) for name in MISSIONS]


def make(env_id: str, **kwargs) -> gym.Env:
    if env_id == HOUSEHOLD_ID:
        kwargs.setdefault("mission", "do_laundry")
    return gym.make(env_id, **kwargs)


def assert_obs_equal(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]) if isinstance(a[key], np.ndarray) else a[key] == b[key], key


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_registered_env_passes_gymnasiums_checker(env_id):
    env = make(env_id, render_mode="rgb_array")
    check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("wrapper", [FlatObservation, ImageObservation])
def test_wrapped_env_passes_stable_baselines3_checker(wrapper):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(wrapper(make("Marple-DoLaundry-v0")), warn=False)


def test_two_envs_with_one_seed_agree_for_1000_random_steps():
    a, b = make("Marple-WatchMovieCozily-v0"), make("Marple-WatchMovieCozily-v0")
    obs_a, _ = a.reset(seed=11)
    obs_b, _ = b.reset(seed=11)
    assert_obs_equal(obs_a, obs_b)
    actions = np.random.default_rng(0).integers(0, 10, 1000)
    for action in actions:
        ra, rb = a.step(int(action)), b.step(int(action))
        assert_obs_equal(ra[0], rb[0])
        assert ra[1:4] == rb[1:4]
        if ra[2] or ra[3]:
            assert_obs_equal(a.reset()[0], b.reset()[0])


def test_different_seeds_give_different_houses():
    env = make("Marple-DoLaundry-v0")
    first = env.reset(seed=1)[0]["image"]
    second = env.reset(seed=2)[0]["image"]
    assert not np.array_equal(first, second)


def test_env_pickles_mid_episode_and_continues_identically():
    env = make("Marple-FeedDog-v0")
    env.reset(seed=5)
    for action in [2, 0, 2, 2, 1, 3]:
        env.step(action)
    clone = pickle.loads(pickle.dumps(env))
    for action in np.random.default_rng(1).integers(0, 10, 200):
        assert_obs_equal(env.step(int(action))[0], clone.step(int(action))[0])


@pytest.mark.parametrize("vector_cls", [gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv])
def test_vector_envs_step_with_default_settings(vector_cls):
    envs = vector_cls([lambda: make("Marple-GetSnack-v0") for _ in range(2)])
    obs, _ = envs.reset(seed=[1, 2])
    assert obs["image"].shape == (2, 20, 20, 8)
    assert len(obs["intent"]) == 2 and all(isinstance(t, str) for t in obs["intent"])
    envs.action_space.seed(0)  # the same actions every run
    for _ in range(20):
        obs, rewards, terminated, truncated, _ = envs.step(envs.action_space.sample())
    assert obs["image"].shape == (2, 20, 20, 8)
    envs.close()


def test_household_env_with_config_and_preferences_samples_missions():
    env = gym.make(HOUSEHOLD_ID, mission_preferences={"do_laundry": 0.5, "change_outfit": 0.5})
    seen = {env.reset(seed=s)[1]["mission"] for s in range(20)}
    assert seen == {"do_laundry", "change_outfit"}


def test_household_env_with_no_arguments_samples_every_mission_in_the_shipped_default_house():
    env = gym.make(HOUSEHOLD_ID)
    assert env.unwrapped.preferences == {name: 0.1 for name in MISSIONS}
    assert {env.reset(seed=s)[1]["mission"] for s in range(60)} == set(MISSIONS)
    check_env(env.unwrapped)


def test_household_env_with_a_config_of_no_missions_needs_a_mission():
    with pytest.raises(ValueError, match="no mission"):
        gym.make(HOUSEHOLD_ID, config={"width": 20, "height": 20})
    with pytest.raises(KeyError, match="unknown mission"):
        gym.make(HOUSEHOLD_ID, mission="fly_to_mars")


def test_scripted_mission_earns_reward_and_terminates():
    env = gym.make(HOUSEHOLD_ID, config=SNACK_HOUSE, mission="get_snack", subgoal_reward=0.1)
    obs, _ = env.reset(seed=0)
    assert obs["intent"] == "I am going to open the electric refrigerator in the Kitchen."
    rewards = []
    for i, action in enumerate(SNACK_SCRIPT):
        obs, reward, terminated, truncated, info = env.step(int(action))
        rewards.append(reward)
        assert terminated == (i == len(SNACK_SCRIPT) - 1)
        assert not truncated
    assert rewards[:3] == [0.1, 0.1, 0.1]
    assert rewards[-1] == pytest.approx(1.1)
    assert obs["intent"] == "I am done."


def test_truncation_at_max_steps():
    env = make("Marple-DoLaundry-v0", max_steps=5)
    env.reset(seed=0)
    flags = [env.step(9)[3] for _ in range(5)]
    assert flags == [False] * 4 + [True]


def test_observation_keys_select_modalities_and_scene_graph_is_on_request():
    env = make("Marple-DoLaundry-v0", observation_keys=("image", "audio"))
    obs, info = env.reset(seed=0)
    assert set(obs) == {"image", "audio"} and "scene_graph" not in info
    env = make("Marple-DoLaundry-v0", scene_graph=True)
    _, info = env.reset(seed=0)
    graph = info["scene_graph"]
    assert any(d["kind"] == "agent" for _, d in graph.nodes(data=True))


def test_render_returns_a_frame():
    env = make("Marple-DoLaundry-v0", render_mode="rgb_array", tile_size=8)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (160, 160, 3) and frame.dtype == np.uint8


def test_get_state_and_set_state_restore_an_episode():
    env = make("Marple-DoLaundry-v0").unwrapped
    env.reset(seed=3)
    snapshot = env.get_state()
    first = [env.step(int(a))[0] for a in np.random.default_rng(2).integers(0, 10, 50)]
    env.set_state(snapshot)
    second = [env.step(int(a))[0] for a in np.random.default_rng(2).integers(0, 10, 50)]
    for a, b in zip(first, second):
        assert_obs_equal(a, b)


def test_the_env_holds_one_state_the_episode_and_its_world_is_a_view_of_it():
    env = gym.make("Marple-DoLaundry-v0").unwrapped
    assert env.world is None and env.episode is None
    env.reset(seed=3)
    assert env.world.state is env.episode.world and env.world.house is env.house
    snapshot = env.get_state()
    for a in (2, 2, 1, 2):
        env.step(a)
    assert env.agent_pos == tuple(env.episode.world.agent_pos[0].tolist())  # MiniGrid's attributes read it too
    env.set_state(snapshot)
    assert env.episode is not snapshot and env.episode.step_count == 0  # a copy: the snapshot stays valid
    assert env.world.state is env.episode.world  # set_state leaves one state, nothing to re-link
    assert np.array_equal(env.episode.world.grid, snapshot.world.grid)
    assert env.agent_pos == tuple(snapshot.world.agent_pos[0].tolist())


MINIGRID_SECTIONS = (
    "Description",
    "Mission Space",
    "Action Space",
    "Observation Space",
    "Rewards",
    "Termination",
    "Registered Configurations",
)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_registered_env_docstring_has_minigrids_sections(env_id):
    env = make(env_id).unwrapped
    doc = inspect.getdoc(type(env))
    headings = [line[3:].strip() for line in doc.splitlines() if line.startswith("## ")]
    assert headings == list(MINIGRID_SECTIONS)
    assert env_id in doc
    if env_id in MISSION_IDS:  # a mission's docstring is generated from its data and the env's spaces
        mission = MISSIONS[next(iter(env.preferences))]
        assert f'"{mission.title}"' in doc
        assert all(intent(sg)[len("I am going to ") : -1] in doc for sg in mission.subgoals)
        space = env.observation_space
        assert f"{space['image'].shape}" in doc
        assert f"MultiDiscrete({space['carrying'].nvec.tolist()})" in doc
        assert f"Discrete({space['audio'].n})" in doc and f"Discrete({env.action_space.n})" in doc
        assert f"default {env.max_steps})" in doc
