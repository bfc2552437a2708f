"""Stable-Baselines3's vector wrappers around MARPLE envs: ``VecFrameStack`` with ``CodeArrayExtractor`` (the bare
code array, and the Dict of ``NumericObservation(boxes=True)``), ``VecNormalize`` for rewards."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.vec_env import VecFrameStack, VecNormalize

from marple_agents.rl import CodeArrayExtractor
from marple_gym import DenseReward, NumericObservation

LEVEL = "Marple-PickUp-OneRoom-v0"
PPO_SMALL = {"n_steps": 16, "batch_size": 16, "n_epochs": 1, "seed": 0, "device": "cpu"}


def stacked(keys=None, boxes=False, n_stack=4, view_size=7, **make):
    envs = make_vec_env(
        lambda: NumericObservation(DenseReward(gym.make(LEVEL, view_size=view_size, **make)), keys=keys, boxes=boxes),
        n_envs=2,
        seed=0,
    )
    return VecFrameStack(envs, n_stack)


def features(extractor: CodeArrayExtractor, obs: dict | np.ndarray, space: gym.Space) -> torch.Tensor:
    batch = {k: torch.as_tensor(v) for k, v in obs.items()} if isinstance(obs, dict) else torch.as_tensor(obs)
    with torch.no_grad():
        return extractor(preprocess_obs(batch, space))


@pytest.mark.parametrize(
    ("policy", "keys", "boxes", "near_size"),
    [
        ("CnnPolicy", ("image",), False, None),
        ("MultiInputPolicy", None, True, None),
        ("MultiInputPolicy", None, True, 7),
    ],
    ids=["the code array", "the Dict of boxes", "the Dict of boxes, a house-wide view in two streams"],
)
def test_ppo_trains_on_stacked_frames_with_normalised_rewards(policy, keys, boxes, near_size):
    view = {"view_size": 15, "see_through_walls": True} if near_size else {}
    envs = VecNormalize(stacked(keys, boxes, **view), norm_obs=False)  # codes are categories: never normalise them
    model = PPO(
        policy,
        envs,
        policy_kwargs={
            "features_extractor_class": CodeArrayExtractor,
            "features_extractor_kwargs": {"near_size": near_size},
        },
        **PPO_SMALL,
    )
    image = model.observation_space["image"] if keys is None else model.observation_space
    assert image.shape[-1] == 4 * 8 and model.policy.features_extractor.image.frames == 4
    model.learn(32)
    obs = envs.reset()
    action, _ = model.predict(obs)
    assert envs.action_space.contains(action[0])


def test_the_box_form_gives_the_features_of_the_discrete_form():
    discrete = NumericObservation(gym.make(LEVEL, view_size=7))
    boxes = NumericObservation(gym.make(LEVEL, view_size=7), boxes=True)
    assert all(isinstance(space, gym.spaces.Box) for space in boxes.observation_space.values())
    torch.manual_seed(0)
    a = CodeArrayExtractor(discrete.observation_space)
    torch.manual_seed(0)
    b = CodeArrayExtractor(boxes.observation_space)
    for seed in range(3):
        obs_a = {k: np.asarray(v)[None] for k, v in discrete.reset(seed=seed)[0].items()}
        obs_b = {k: np.asarray(v)[None] for k, v in boxes.reset(seed=seed)[0].items()}
        assert torch.allclose(
            features(a, obs_a, discrete.observation_space), features(b, obs_b, boxes.observation_space)
        )


def test_every_stacked_frame_is_seen_and_the_task_planes_come_from_the_newest():
    envs = stacked(boxes=True)
    obs = envs.reset()
    for _ in range(3):
        obs, *_ = envs.step(np.array([2, 1]))
    space = envs.observation_space
    torch.manual_seed(0)
    extractor = CodeArrayExtractor(space)
    base = features(extractor, obs, space)
    older = {**obs, "image": obs["image"].copy()}
    older["image"][..., 0] = (older["image"][..., 0] + 1) % 7  # the oldest frame's room codes
    assert not torch.allclose(features(extractor, older, space), base)
    subgoal = torch.as_tensor(obs["subgoal"])
    planes = extractor._match_planes(torch.as_tensor(obs["image"]), subgoal)
    newest = CodeArrayExtractor(NumericObservation(gym.make(LEVEL, view_size=7), boxes=True).observation_space)
    single = torch.as_tensor(obs["image"][..., -8:])
    assert torch.equal(planes, newest._match_planes(single, subgoal[:, -4:]))


def test_an_image_that_is_not_whole_frames_is_refused_naming_the_stacking():
    space = gym.spaces.Box(0, 255, (7, 7, 12), np.int16)
    with pytest.raises(ValueError, match=r"k \* 8 when k frames are stacked"):
        CodeArrayExtractor(space)
