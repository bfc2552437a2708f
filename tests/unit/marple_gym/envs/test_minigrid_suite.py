"""MiniGrid's env and wrapper contract on every registered id (Gymnasium's registry, :mod:`registered`): the checks of MiniGrid's own test suite
(``tests/test_envs.py``, ``tests/test_wrappers.py``) that carry over to MARPLE envs, written for ours.

The ones that cannot carry over, each with its reason, are listed in docs/rl.md ("MiniGrid's test suite");
pickling, render modes and ``max_steps`` truncation on every id are in test_registered.py, every MiniGrid wrapper
on every id (with the arguments our envs need) in test_minigrid_wrappers.py.
"""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from minigrid.core.constants import OBJECT_TO_IDX
from minigrid.wrappers import (
    DictObservationSpaceWrapper,
    DirectionObsWrapper,
    FlatObsWrapper,
    FullyObsWrapper,
    ImgObsWrapper,
    NoDeath,
    OneHotPartialObsWrapper,
    ReseedWrapper,
    RGBImgObsWrapper,
    RGBImgPartialObsWrapper,
    StochasticActionWrapper,
    SymbolicObsWrapper,
    ViewSizeWrapper,
)
from registered import REGISTERED_IDS

from marple_gym.levels import mission_words

IDS = REGISTERED_IDS
SEEDS = [100, 243, 500]
NUM_STEPS = 50


def same(a, b, where: str = "") -> None:
    """MiniGrid's equality of step data: the same types all the way down, equal values."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} and {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, where


@pytest.mark.parametrize("env_id", IDS)
def test_the_checker_passes_without_a_warning(env_id):
    env = gym.spec(env_id).make(disable_env_checker=True).unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert not [str(w.message) for w in caught]


@pytest.mark.parametrize("env_id", IDS)
def test_two_envs_of_one_seed_roll_out_alike_with_infos_of_one_type(env_id):
    spec = gym.spec(env_id)
    first, second = spec.make(disable_env_checker=True), spec.make(disable_env_checker=True)
    same(first.reset(seed=0), second.reset(seed=0), "reset")
    first.action_space.seed(0)
    for t in range(NUM_STEPS):
        action = first.action_space.sample()
        step = first.step(action)
        same(step, second.step(action), f"step {t}")
        assert first.observation_space.contains(step[0])
        if step[2] or step[3]:
            first.reset(seed=0)
            second.reset(seed=0)


@pytest.mark.parametrize("env_id", IDS)
def test_the_spec_serialises_to_json(env_id):
    spec = gym.spec(env_id)
    assert json.loads(spec.to_json())["id"] == env_id
    assert gym.envs.registration.EnvSpec.from_json(spec.to_json()) == spec


@pytest.mark.parametrize("env_id", IDS)
def test_the_reseed_wrapper_replays_each_seeds_episode(env_id):
    spec = gym.spec(env_id)
    plain = spec.make()
    env = ReseedWrapper(spec.make(), seeds=SEEDS)
    env.action_space.seed(0)
    for seed in SEEDS:
        env.reset()
        plain.reset(seed=seed)
        for t in range(100):
            action = env.action_space.sample()
            step = env.step(action)
            same(step, plain.step(action), f"seed {seed}, step {t}")
            if step[2] or step[3]:
                break


# MiniGrid's own arguments, except where the docs name what our envs need: the one-hot view needs MiniGrid's
# codes (ViewSizeWrapper makes them), and the words of our missions are not MiniGrid's.
MAIN_WRAPPERS = {
    "ReseedWrapper": ReseedWrapper,
    "ImgObsWrapper": ImgObsWrapper,
    "FlatObsWrapper": FlatObsWrapper,
    "ViewSizeWrapper": ViewSizeWrapper,
    "DictObservationSpaceWrapper": lambda env: DictObservationSpaceWrapper(env, word_dict=mission_words()),
    "OneHotPartialObsWrapper": lambda env: OneHotPartialObsWrapper(ViewSizeWrapper(env)),
    "RGBImgPartialObsWrapper": RGBImgPartialObsWrapper,
    "FullyObsWrapper": FullyObsWrapper,
}


@pytest.mark.parametrize("env_id", IDS)
def test_the_main_wrappers_reset_and_step(env_id):
    spec = gym.spec(env_id)
    for name, wrap in MAIN_WRAPPERS.items():
        keys = {"observation_keys": ("image", "direction", "mission")} if "Dict" in name else {}
        env = wrap(spec.make(**keys))
        obs, _ = env.reset() if name == "ReseedWrapper" else env.reset(seed=123)  # it seeds, and warns if we do
        assert env.observation_space.contains(obs), name
        assert env.observation_space.contains(env.step(0)[0]), name
        env.close()


def test_every_title_fits_the_flat_wrappers_96_characters_of_its_alphabet():
    from marple_gym.levels import LEVELS
    from marple_gym.missions import MISSIONS

    titles = [m.title for m in MISSIONS.values()] + [m.title for level in LEVELS.values() for m in level.missions]
    alphabet = set("abcdefghijklmnopqrstuvwxyz ,")
    assert all(len(title) <= 96 and set(title.lower()) <= alphabet for title in titles)


@pytest.mark.parametrize("env_id", IDS)
def test_the_observation_space_wrappers_give_a_dict_that_img_obs_wrapper_takes(env_id):
    spec = gym.spec(env_id)
    for wrap in (RGBImgPartialObsWrapper, FullyObsWrapper, MAIN_WRAPPERS["OneHotPartialObsWrapper"]):
        env = wrap(spec.make(disable_env_checker=True))
        assert isinstance(env.observation_space, gym.spaces.Dict)
        ImgObsWrapper(env)
        env.reset()
        env.step(0)
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_the_dict_wrapper_numbers_the_missions_words(env_id):
    env = DictObservationSpaceWrapper(
        gym.make(env_id, observation_keys=("image", "direction", "mission")), word_dict=mission_words()
    )
    env.reset(seed=0)
    mission = gym.make(env_id, observation_keys=("mission",)).reset(seed=0)[0]["mission"]
    obs, *_ = env.step(0)
    assert env.string_to_indices(mission) == [value for value in obs["mission"] if value != 0]


@pytest.mark.parametrize("view_size", [5, 7, 9])
def test_the_view_size_wrapper_gives_its_size(view_size):
    env = ViewSizeWrapper(gym.make("Marple-GoTo-OneRoom-v0"), agent_view_size=view_size)
    env.reset()
    obs, *_ = env.step(0)
    assert obs["image"].shape == (view_size, view_size, 3)


@pytest.mark.parametrize("kind", ["slope", "angle"])
def test_the_direction_wrapper_points_at_the_goal(kind):
    env = DirectionObsWrapper(gym.make("Marple-GoTo-TwoRooms-v0"), type=kind)
    obs, _ = env.reset(seed=1)
    for _ in range(2):
        base = env.unwrapped
        slope = np.divide(env.goal_position[1] - base.agent_pos[1], env.goal_position[0] - base.agent_pos[0])
        assert obs["goal_direction"] == (slope if kind == "slope" else np.arctan(slope))
        obs, *_ = env.step(2)


def test_the_symbolic_wrapper_marks_the_agent_and_the_goal():
    env = SymbolicObsWrapper(gym.make("Marple-GoTo-TwoRooms-v0"))
    for obs in (env.reset(seed=123)[0], env.step(2)[0]):
        base = env.unwrapped
        x, y = base.agent_pos
        assert obs["image"].shape == (base.width, base.height, 3)
        assert (obs["image"][x, y] == [x, y, OBJECT_TO_IDX["agent"]]).all()
        goals = [tuple(cell[:2]) for cell in obs["image"].reshape(-1, 3) if cell[2] == OBJECT_TO_IDX["goal"]]
        assert goals and all(base.grid.get(*goal).type == "goal" for goal in goals)


def test_the_stochastic_action_wrapper_steps():
    for kwargs in ({"prob": 0.2}, {"prob": 0.2, "random_action": 1}):
        env = StochasticActionWrapper(gym.make("Marple-GoTo-OneRoom-v0"), **kwargs)
        env.reset(seed=0)
        for _ in range(20):
            env.step(0)


def test_the_dict_wrapper_takes_the_one_hot_view():
    env = DictObservationSpaceWrapper(
        OneHotPartialObsWrapper(ViewSizeWrapper(gym.make("Marple-GoTo-OneRoom-v0"))), word_dict=mission_words()
    )
    env.reset(seed=0)
    obs, *_ = env.step(0)
    assert obs["image"].shape == env.observation_space["image"].shape == (7, 7, 20)


def test_no_death_changes_nothing_where_no_cell_ends_an_episode():
    plain, wrapped = gym.make("Marple-GoTo-OneRoom-v0"), NoDeath(gym.make("Marple-GoTo-OneRoom-v0"), ("lava",), -1)
    plain.reset(seed=2)
    wrapped.reset(seed=2)
    for action in (1, 2, 2, 0, 2):
        same(wrapped.step(action), plain.step(action))


def test_the_rgb_wrapper_of_a_house_that_is_not_square():
    env = RGBImgObsWrapper(gym.make("Marple-Open-TwoRooms-v0"))  # 13 x 7
    obs, _ = env.reset(seed=0)
    assert env.observation_space["image"].shape == obs["image"].shape == (7 * 8, 13 * 8, 3)
