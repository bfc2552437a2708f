"""PPO on MARPLE envs in a few lines: the env stack, a documented hyperparameter set, success tracking.

::

    from marple_agents.rl import make_ppo
    model = make_ppo("Marple-GoTo-OneRoom-v0", seed=0)
    model.learn(200_000)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from marple_agents.rl.features import CodeArrayExtractor
from marple_gym.envs.household import NOT_ACHIEVED
from marple_gym.envs.rl_wrappers import NumericObservation
from marple_gym.levels.shaping import SUBGOAL_BONUS, DenseReward

N_ENVS = 16
"""Envs per PPO run: 16 copies stepped in one process, so each policy call serves 16 steps."""

PPO_SETTINGS: dict[str, Any] = {
    "n_steps": 64,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 1e-3,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
}
"""The PPO settings the ladder bench uses with :data:`N_ENVS` envs: 1,024 steps per update (16 envs x 64 steps),
4 epochs of 4 minibatches, the learning rate of torch-ac's MiniGrid defaults (1e-3; with rl-zoo's 2.5e-4,
PickUp-OneRoom reached 0.56 success in 200,000 steps instead of 0.90: docs/rl.md)."""


SKILL_COMPANIONS = tuple(f"Marple-{skill}-TwoRooms-v0" for skill in ("Open", "PickUp", "Put", "ToggleOn"))
"""The two-room skill levels a mission can train beside (``make_ppo(..., companions=SKILL_COMPANIONS)``): the
actions every mission chains (open, pick up, put, toggle), each learnt in short episodes where its reward comes
soon, and met again in the mission under the same ``subgoal`` codes."""


MISSION_RECIPE: dict[str, Any] = {
    "view_size": 39,
    "see_through_walls": True,
    "companions": SKILL_COMPANIONS,
    "max_episode_steps": 150,
    "subgoal_bonus": 1.0,
}
"""``make_ppo`` keywords for the ten missions (``make_ppo("Marple-GetSnack-v0", **MISSION_RECIPE)``): the whole
20 x 20 house in the agent's frame, half the envs on :data:`SKILL_COMPANIONS`, mission training episodes cut at
150 steps (evaluation keeps 500) and a subgoal bonus of 1. What it achieves in 1,000,000 steps: docs/rl.md."""


def marple_env(
    env_id: str,
    view_size: int | None = 7,
    dense: bool = True,
    gamma: float = PPO_SETTINGS["gamma"],
    subgoal_bonus: float = SUBGOAL_BONUS,
    **kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id)`` ready for SB3: egocentric view, dense reward (optional), no text keys.

    ``gamma`` is the shaping's discount; it must be the learner's for the shaping to keep optimal policies.
    ``subgoal_bonus`` is ``DenseReward``'s reward per achieved subgoal. Other keywords go to ``gym.make``
    (``max_episode_steps=150`` cuts training episodes shorter than the level's own limit).
    """
    env = gym.make(env_id, view_size=view_size, **kwargs)
    if dense:
        env = DenseReward(env, subgoal_bonus=subgoal_bonus, gamma=gamma)
    return NumericObservation(env)


NEAR_SIZE = 7
"""With a larger egocentric view, :func:`make_ppo` embeds only this window around the agent (MiniGrid's view)
and passes the whole view as cheap 0/1 planes (``CodeArrayExtractor(near_size=...)``)."""


def make_ppo(
    env_id: str,
    n_envs: int = N_ENVS,
    seed: int = 0,
    view_size: int | None = 7,
    dense: bool = True,
    device: str = "cpu",
    see_through_walls: bool = False,
    companions: Sequence[str] = (),
    subgoal_bonus: float = SUBGOAL_BONUS,
    max_episode_steps: int | None = None,
    **ppo_kwargs: Any,
) -> PPO:
    """PPO with :class:`CodeArrayExtractor` on ``n_envs`` copies of a MARPLE env (see :func:`marple_env`).

    A view larger than :data:`NEAR_SIZE` (``view_size=39, see_through_walls=True`` shows a whole 20 x 20
    house in the agent's frame) gets the extractor's two streams: embeddings near the agent, planes beyond.

    With ``companions`` (for example :data:`SKILL_COMPANIONS`) the first half of the envs run ``env_id`` and
    the second half the companion ids in turn, so one policy learns the mission beside easier levels that share
    its subgoal codes; :func:`target_envs` gives the indices of the ``env_id`` copies (what a success curve of
    the mission should count). ``max_episode_steps`` cuts the ``env_id`` copies' training episodes (companions
    keep their own limits); ``subgoal_bonus`` is the dense reward's per-subgoal term.
    """
    if max_episode_steps is not None and max_episode_steps < 1:
        raise ValueError(f"max_episode_steps must be at least 1, got {max_episode_steps}")
    settings = {**PPO_SETTINGS, **ppo_kwargs}
    ids = mixture_ids(env_id, n_envs, companions)

    def maker(rank: int, level: str) -> Callable[[], gym.Env]:
        limit = {"max_episode_steps": max_episode_steps} if level == env_id and max_episode_steps is not None else {}

        def make() -> gym.Env:  # as SB3's make_vec_env: action space seeded per rank, the env at its first reset
            env = marple_env(
                level, view_size, dense, settings["gamma"], subgoal_bonus, see_through_walls=see_through_walls, **limit
            )
            env.action_space.seed(seed + rank)
            return Monitor(env)

        return make

    envs: VecEnv = DummyVecEnv([maker(rank, level) for rank, level in enumerate(ids)])
    envs.seed(seed)
    policy_kwargs = {"features_extractor_class": CodeArrayExtractor, **settings.pop("policy_kwargs", {})}
    if view_size is not None:  # egocentric: the extractor splits the view only where it is larger than NEAR_SIZE
        extractor_kwargs = policy_kwargs.get("features_extractor_kwargs", {})
        policy_kwargs["features_extractor_kwargs"] = {"near_size": NEAR_SIZE, **extractor_kwargs}
    return PPO("MultiInputPolicy", envs, seed=seed, device=device, policy_kwargs=policy_kwargs, **settings)


def mixture_ids(env_id: str, n_envs: int, companions: Sequence[str] = ()) -> list[str]:
    """The env id of each of ``n_envs`` training envs: all ``env_id``, or its half and the companions in turn."""
    if not companions:
        return [env_id] * n_envs
    if n_envs < 2:
        raise ValueError(f"training beside companions needs at least 2 envs, got n_envs={n_envs}")
    unknown = [c for c in companions if c not in gym.registry]
    if unknown:
        raise ValueError(f"unknown companion env ids {unknown}")
    own = (n_envs + 1) // 2
    return [env_id] * own + [companions[i % len(companions)] for i in range(n_envs - own)]


def target_envs(env_id: str, n_envs: int, companions: Sequence[str] = ()) -> list[int]:
    """Indices of the ``env_id`` copies among :func:`mixture_ids`."""
    return [i for i, level in enumerate(mixture_ids(env_id, n_envs, companions)) if level == env_id]


class SuccessTracker(BaseCallback):
    """Records the success rate of finished training episodes every ``every`` steps.

    An episode succeeds when it terminates (is not cut by the time limit); for
    MARPLE levels and for MiniGrid's DoorKey and GoToObj that means the task was
    done. ``history`` holds (timesteps, success rate of the episodes finished
    since the previous record, episodes) triples. With ``stop_at`` training
    stops once a record reaches that success rate (saving the rest of the
    budget for harder envs). ``on_record(history)`` is called after each record
    (to save a curve while training runs). ``envs`` restricts the count to those env indices (the mission's
    copies when it trains beside companions; see :func:`target_envs`).
    """

    def __init__(
        self,
        every: int = 10_000,
        stop_at: float | None = None,
        on_record: Callable[[list[tuple[int, float, int]]], None] | None = None,
        envs: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.every = int(every)
        self.stop_at = stop_at
        self.on_record = on_record
        self.envs = None if envs is None else set(envs)
        self.history: list[tuple[int, float, int]] = []
        self._outcomes: list[bool] = []
        self._next = self.every

    def _on_step(self) -> bool:
        for index, (done, info) in enumerate(zip(self.locals["dones"], self.locals["infos"])):
            if done and (self.envs is None or index in self.envs):
                self._outcomes.append(not info.get("TimeLimit.truncated", False))
        if self.num_timesteps >= self._next:
            self._record()
            self._next += self.every
            return self.stop_at is None or not self.history[-1][1] >= self.stop_at
        return True

    def _on_training_end(self) -> None:
        if self._outcomes:
            self._record()

    def _record(self) -> None:
        rate = float(np.mean(self._outcomes)) if self._outcomes else float("nan")
        self.history.append((int(self.num_timesteps), rate, len(self._outcomes)))
        self._outcomes = []
        if self.on_record is not None:
            self.on_record(self.history)


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a success rate (95% by default); (0, 1) for no trials.

    Unlike the normal approximation it stays inside [0, 1] and is not empty at
    0 or all successes, the rates a learning curve starts and ends at.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # at 0 or all successes the bound is the rate itself; computed, it misses it by a rounding error
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return float(low), float(high)


def episode_outcomes(env: gym.Env, act: Callable[[Any], int], episodes: int, seed: int) -> list[tuple[bool, int]]:
    """(succeeded, subgoals achieved) of ``episodes`` episodes under ``act``, reset with seeds ``seed``, ``seed + 1``, ...

    Success is termination (the task done, not the step limit); subgoals are
    counted from MARPLE's ``info["achieved"]`` (always 0 on other envs).
    """
    outcomes = []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        terminated = truncated = False
        subgoals = 0
        while not (terminated or truncated):
            obs, _, terminated, truncated, info = env.step(act(obs))
            subgoals += info.get("achieved", NOT_ACHIEVED) != NOT_ACHIEVED
        outcomes.append((bool(terminated), subgoals))
    return outcomes


def success_count(env: gym.Env, act: Callable[[Any], int], episodes: int, seed: int) -> int:
    """Episodes of ``episodes`` (see :func:`episode_outcomes`) that terminate (succeed) under ``act``."""
    return sum(done for done, _ in episode_outcomes(env, act, episodes, seed))


def random_actions(env: gym.Env, seed: int) -> Callable[[Any], int]:
    """A uniformly random policy over ``env``'s discrete actions."""
    rng = np.random.default_rng(seed)
    return lambda _: int(rng.integers(env.action_space.n))


def greedy_actions(model: PPO, deterministic: bool = True) -> Callable[[Any], int]:
    """``model``'s policy as an action function (greedy by default)."""

    def act(obs: Any) -> int:
        action, _ = model.predict(obs, deterministic=deterministic)
        return int(action)

    return act


def random_success(env: gym.Env, episodes: int, seed: int) -> float:
    """Success rate of uniformly random actions over ``episodes`` episodes (terminated = success)."""
    return success_count(env, random_actions(env, seed), episodes, seed) / episodes


def policy_success(model: PPO, env: gym.Env, episodes: int, seed: int, deterministic: bool = True) -> int:
    """Episodes that ``model`` completes on ``env`` (its own observation stack), acting greedily by default."""
    return success_count(env, greedy_actions(model, deterministic), episodes, seed)
