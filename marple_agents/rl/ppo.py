"""PPO on MARPLE envs in a few lines: the env stack, a documented hyperparameter set, success tracking.

::

    from marple_agents.rl import make_ppo
    model = make_ppo("Marple-GoTo-OneRoom-v0", seed=0)
    model.learn(200_000)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

from marple_agents.rl.features import CodeArrayExtractor
from marple_gym.envs.rl_wrappers import NumericObservation
from marple_gym.levels.shaping import DenseReward

PPO_SETTINGS: dict[str, Any] = {
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 2.5e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
}
"""The PPO settings the ladder bench uses with 8 envs (rl-zoo's MiniGrid settings, fewer epochs for 2 CPU cores):
1,024 steps per update, 4 epochs of 4 minibatches."""


def marple_env(env_id: str, view_size: int | None = 7, dense: bool = True, **kwargs: Any) -> gym.Env:
    """``gym.make(env_id)`` ready for SB3: egocentric view, dense reward (optional), no text keys."""
    env = gym.make(env_id, view_size=view_size, **kwargs)
    if dense:
        env = DenseReward(env, gamma=PPO_SETTINGS["gamma"])
    return NumericObservation(env)


def make_ppo(
    env_id: str,
    n_envs: int = 8,
    seed: int = 0,
    view_size: int | None = 7,
    dense: bool = True,
    device: str = "cpu",
    **ppo_kwargs: Any,
) -> PPO:
    """PPO with :class:`CodeArrayExtractor` on ``n_envs`` copies of a MARPLE env (see :func:`marple_env`)."""
    envs = make_vec_env(lambda: marple_env(env_id, view_size, dense), n_envs=n_envs, seed=seed)
    settings = {**PPO_SETTINGS, **ppo_kwargs}
    policy_kwargs = {"features_extractor_class": CodeArrayExtractor, **settings.pop("policy_kwargs", {})}
    return PPO("MultiInputPolicy", envs, seed=seed, device=device, policy_kwargs=policy_kwargs, **settings)


class SuccessTracker(BaseCallback):
    """Records the success rate of finished training episodes every ``every`` steps.

    An episode succeeds when it terminates (is not cut by the time limit); for
    MARPLE levels and for MiniGrid's DoorKey and GoToObj that means the task was
    done. ``history`` holds (timesteps, success rate of the episodes finished
    since the previous record, episodes) triples.
    """

    def __init__(self, every: int = 10_000) -> None:
        super().__init__()
        self.every = int(every)
        self.history: list[tuple[int, float, int]] = []
        self._outcomes: list[bool] = []
        self._next = self.every

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                self._outcomes.append(not info.get("TimeLimit.truncated", False))
        if self.num_timesteps >= self._next:
            self._record()
            self._next += self.every
        return True

    def _on_training_end(self) -> None:
        if self._outcomes:
            self._record()

    def _record(self) -> None:
        rate = float(np.mean(self._outcomes)) if self._outcomes else float("nan")
        self.history.append((int(self.num_timesteps), rate, len(self._outcomes)))
        self._outcomes = []


def random_success(env: gym.Env, episodes: int, seed: int) -> float:
    """Success rate of uniformly random actions over ``episodes`` episodes (terminated = success)."""
    rng = np.random.default_rng(seed)
    wins = 0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        terminated = truncated = False
        while not (terminated or truncated):
            _, _, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
        wins += terminated
    return wins / episodes
