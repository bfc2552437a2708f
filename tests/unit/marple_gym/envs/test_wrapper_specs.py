"""Our wrappers as Gymnasium's own: each records its constructor arguments in the env's spec, so
``gym.make(env.spec)`` rebuilds the wrapped env, Gymnasium's full ``check_env`` passes on it, and Minari's
``recover_environment()`` gives it back from a dataset collected through it."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import marple_gym
from marple_gym import (
    DenseReward,
    EgocentricView,
    FlatObservation,
    ImageObservation,
    NumericObservation,
    RGBImageObservation,
)
from marple_gym.missions.mission import SUBGOAL_NVEC

LEVEL = "Marple-PickUp-OneRoom-v0"
STACKS: dict[str, Callable[[gym.Env], gym.Env]] = {
    "EgocentricView": lambda env: EgocentricView(env, view_size=5, see_through_walls=True),
    "RGBImageObservation": lambda env: RGBImageObservation(env, tile_size=4),
    "NumericObservation": lambda env: NumericObservation(env, keys=("image", "subgoal"), boxes=True),
    "FlatObservation": FlatObservation,
    "ImageObservation": ImageObservation,
    "DenseReward": lambda env: DenseReward(env, subgoal_bonus=0.3, gamma=0.9),
    "DenseReward, EgocentricView and NumericObservation": lambda env: NumericObservation(
        EgocentricView(DenseReward(env, subgoal_bonus=1.0), view_size=7)
    ),
}
"""Every public wrapper of ``marple_gym``, with arguments other than its defaults, and a stack of three."""


def test_every_public_wrapper_is_in_the_stacks():
    public = {name for name in marple_gym.__all__ if isinstance(getattr(marple_gym, name), type)}
    wrappers = {name for name in public if issubclass(getattr(marple_gym, name), gym.Wrapper)}
    assert wrappers == {name for name in STACKS if "," not in name and " and " not in name}


def _rollout(env: gym.Env, seed: int = 4) -> list:
    env.action_space.seed(0)
    steps = [env.reset(seed=seed)]
    steps += [env.step(env.action_space.sample()) for _ in range(20)]
    return steps


@pytest.mark.parametrize("name", list(STACKS))
def test_make_of_the_spec_rebuilds_the_wrapped_env(name):
    env = STACKS[name](gym.make(LEVEL))
    spec = env.spec
    assert [w.name for w in spec.additional_wrappers][-1] == type(env).__name__
    rebuilt = gym.make(spec)
    assert type(rebuilt) is type(env) and rebuilt.observation_space == env.observation_space
    assert data_equivalence(_rollout(rebuilt), _rollout(env))
    from_json = gym.make(gym.envs.registration.EnvSpec.from_json(spec.to_json()))  # what Minari stores
    assert data_equivalence(_rollout(from_json), _rollout(env))


@pytest.mark.parametrize("name", list(STACKS))
def test_gymnasiums_full_checker_passes_on_the_wrapped_env(name):
    env = STACKS[name](gym.make(LEVEL))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)  # every check, the close and render checks on envs made from env.spec included
    unexpected = [str(w.message) for w in caught if "different from the unwrapped version" not in str(w.message)]
    assert not unexpected


@pytest.mark.parametrize("env_id", [LEVEL, "Marple-GetSnack-v0"])
def test_the_flat_observation_holds_the_task_one_hot(env_id):
    env = FlatObservation(gym.make(env_id))
    dict_env = gym.make(env_id)
    tasks = set()
    for seed in range(6):
        flat, _ = env.reset(seed=seed)
        codes = dict_env.reset(seed=seed)[0]["subgoal"]
        assert env.observation_space.contains(flat)
        task = flat[-sum(SUBGOAL_NVEC) :]
        blocks = np.split(task, np.cumsum(SUBGOAL_NVEC)[:-1])
        assert [int(block.argmax()) for block in blocks] == codes.tolist() and task.sum() == 4
        tasks.add(tuple(codes))
    assert len(tasks) > 1 or env_id != LEVEL, "the level draws a new task at each reset; the vector shows it"
    without = FlatObservation(gym.make(env_id, observation_keys=("image", "direction")))
    assert np.array_equal(without.reset(seed=0)[0][-sum(SUBGOAL_NVEC) :], env.reset(seed=0)[0][-sum(SUBGOAL_NVEC) :])


def _collect(env: gym.Env, seeds: range) -> list:
    """Minari's episode buffers of random episodes stepped through ``env`` (what ``minari.DataCollector`` records;
    it needs ``minari[create]``, i.e. jax, which the export extra does not install)."""
    from minari.data_collector import EpisodeBuffer

    env.action_space.seed(0)
    buffers = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        observations, actions, rewards, terminations, truncations = [obs], [], [], [], []
        terminated = truncated = False
        while not (terminated or truncated):
            actions.append(env.action_space.sample())
            obs, reward, terminated, truncated, _ = env.step(actions[-1])
            observations.append(obs)
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
        stacked = {key: np.stack([o[key] for o in observations]) for key in observations[0]}
        buffers.append(
            EpisodeBuffer(
                id=seed,
                seed=seed,
                observations=stacked,
                actions=np.array(actions),
                rewards=rewards,
                terminations=terminations,
                truncations=truncations,
                infos={},
            )
        )
    return buffers


def test_minari_recovers_the_wrapped_env_a_dataset_was_collected_through(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    wrapped = NumericObservation(EgocentricView(DenseReward(gym.make(LEVEL)), view_size=5), boxes=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Minari asks for a code permalink and an evaluation env
        dataset = minari.create_dataset_from_buffers(
            "marple/pickup-wrapped-v0", _collect(wrapped, range(2)), env=wrapped, data_format="arrow"
        )
    recovered = minari.load_dataset("marple/pickup-wrapped-v0").recover_environment()
    assert [w.name for w in recovered.spec.additional_wrappers] == [
        "DenseReward",
        "EgocentricView",
        "NumericObservation",
    ]
    assert recovered.observation_space == dataset.observation_space == wrapped.observation_space
    assert data_equivalence(_rollout(recovered), _rollout(wrapped))
    stored = json.loads(dataset.env_spec.to_json())
    assert stored["additional_wrappers"][-1]["kwargs"] == {"keys": None, "boxes": True}
