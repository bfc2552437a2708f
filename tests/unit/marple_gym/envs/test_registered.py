"""Every registered id, checked as MiniGrid checks its own: determinism, pickling, render modes,
truncation, the native vector env, and the planner solving it through ``env.step``."""

from __future__ import annotations

import pickle
import re

import gymnasium as gym
import numpy as np
import pytest
from paths import ROOT
from registered import REGISTERED_IDS

import marple_gym
from marple_gym.envs import HOUSEHOLD_ID, env_ids
from marple_gym.envs.registration import FAMILY_IDS
from marple_gym.planner import HierarchicalPlanner

IDS = REGISTERED_IDS
MISSION_IDS = [i for i in env_ids() if i != HOUSEHOLD_ID]
HOUSEHOLD_KWARGS = {HOUSEHOLD_ID: {"mission": "do_laundry"}}


def make(env_id: str, **kwargs) -> gym.Env:
    return gym.make(env_id, **{**HOUSEHOLD_KWARGS.get(env_id, {}), **kwargs})


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)


@pytest.mark.parametrize("env_id", IDS)
def test_determinism_and_pickling(env_id):
    actions = np.random.default_rng(1).integers(0, 10, 120).tolist()
    first, second = make(env_id), make(env_id)
    obs_a, _ = first.reset(seed=5)
    obs_b, _ = second.reset(seed=5)
    assert _same(obs_a, obs_b)
    for t, action in enumerate(actions):
        if t == 60:  # mid-episode: a pickled copy continues exactly as the original
            second = pickle.loads(pickle.dumps(second))
        a, b = first.step(action), second.step(action)
        assert _same(a[0], b[0]) and a[1:4] == b[1:4], t


@pytest.mark.parametrize("env_id", IDS)
def test_every_render_mode(env_id, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    for mode in make(env_id).unwrapped.metadata["render_modes"]:
        env = make(env_id, render_mode=mode, tile_size=8)
        env.reset(seed=0)
        env.step(1)
        frame = env.render()
        if mode == "rgb_array":
            unwrapped = env.unwrapped
            assert frame.shape == (unwrapped.config.height * 8, unwrapped.config.width * 8, 3)
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_max_steps_truncates(env_id):
    env = make(env_id, max_steps=7)
    env.reset(seed=0)
    flags = [env.step(9)[3] for _ in range(7)]
    assert flags == [False] * 6 + [True]


@pytest.mark.parametrize("env_id", IDS)
def test_native_vector_env_matches_its_single_env(env_id):
    kwargs = HOUSEHOLD_KWARGS.get(env_id, {})
    vec = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", **kwargs)
    single = make(env_id)
    obs, _ = vec.reset(seed=4)
    first, _ = single.reset(seed=4)
    assert vec.single_observation_space == single.observation_space
    assert vec.observation_space.contains(obs)
    assert all(np.array_equal(np.asarray(obs[k][0]), np.asarray(first[k])) for k in first)
    vec.close()


@pytest.mark.parametrize("env_id", MISSION_IDS)
def test_planner_drives_the_env_through_step_to_reward_one(env_id):
    for seed in range(3):
        env = make(env_id)
        env.reset(seed=seed)
        unwrapped = env.unwrapped
        planner = HierarchicalPlanner(unwrapped.world, mission=unwrapped.mission, rng=np.random.default_rng(seed))
        terminated = truncated = False
        reward = 0.0
        while not (terminated or truncated):
            action = planner.next_action()
            assert action is not None, "the planner gave up on a feasible mission"
            _, reward, terminated, truncated, _ = env.step(action)
            planner.observe(unwrapped.last_outcome)
        assert terminated and reward == 1.0, (env_id, seed)


@pytest.mark.parametrize("env_id", marple_gym.level_ids(include_missions=False) + list(FAMILY_IDS))
def test_a_serial_vector_entry_point_plays_the_single_env_with_its_step_limit(env_id):
    vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    single = gym.make(env_id)
    obs, _ = vec.reset(seed=4)
    first, _ = single.reset(seed=4)
    assert vec.single_observation_space == single.observation_space
    assert all(np.array_equal(np.asarray(obs[k][0]), np.asarray(first[k])) for k in first)
    idle = np.full(2, 9)
    truncated = [vec.step(idle)[3].tolist() for _ in range(vec.spec.max_episode_steps)]
    assert truncated[-1] == [True, True] and not any(any(t) for t in truncated[:-1])
    vec.close()


def test_marple_envs_lists_every_registered_id_with_all_and_says_how_many_more_without(capsys):
    from marple.cli.main import main

    registered = {i for i in gym.registry if i.startswith("Marple-")}
    assert main(["envs", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in lines]
    assert sorted(listed) == sorted(registered) and len(listed) == 32
    column = {len(line) - len(line.split(maxsplit=1)[1]) for line in lines}  # where each description starts
    assert column == {max(map(len, listed)) + 3}, "the descriptions are one aligned column"
    assert main(["envs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 13 and out[-1].startswith("... and 20 more") and "--all" in out[-1]


def test_the_env_catalog_lists_the_missions_and_the_household_and_the_levels_when_asked():
    from marple_gym.levels import LEVELS
    from marple_gym.levels.catalog import env_catalog

    short, every = env_catalog(), env_catalog(levels=True)
    assert [env_id for env_id, _ in short.rows] == env_ids() + list(FAMILY_IDS) and short.more_levels == len(LEVELS)
    assert every.rows[: len(short.rows)] == short.rows and every.more_levels == 0
    assert [env_id for env_id, _ in every.rows[len(short.rows) :]] == list(LEVELS)
    assert all(what for _, what in every.rows)


KEYWORDS = {
    "render_mode": "rgb_array",
    "view_size": 5,
    "see_through_walls": True,
    "observation_keys": ("image", "direction"),
    "max_steps": 3,
    "subgoal_reward": 0.5,
    "scene_graph": True,
    "tile_size": 8,
}
"""A value of each keyword of docs/environments.md's "What every env takes" (not its default)."""


def documented_keywords() -> list[str]:
    page = (ROOT / "docs" / "environments.md").read_text()
    table = page[page.index("## What every env takes") :].split("\n## ")[0]
    return re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE)


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_takes_every_keyword_the_environments_page_lists(env_id):
    assert sorted(documented_keywords()) == sorted(KEYWORDS)
    env = gym.make(env_id, **KEYWORDS)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"image", "direction"} and obs["image"].shape == (5, 5, 8) and "scene_graph" in info
    assert [env.step(9)[3] for _ in range(3)] == [False, False, True]
    assert env.render().shape == (env.unwrapped.height * 8, env.unwrapped.width * 8, 3)
