"""Reinforcement learning with stable-baselines3 on MARPLE envs."""

from marple_agents.rl.features import CodeArrayEmbedding, CodeArrayExtractor
from marple_agents.rl.ppo import (
    N_ENVS,
    PPO_SETTINGS,
    SuccessTracker,
    episode_outcomes,
    greedy_actions,
    make_ppo,
    marple_env,
    policy_success,
    random_actions,
    random_success,
    success_count,
    wilson_interval,
)

__all__ = [
    "CodeArrayEmbedding",
    "CodeArrayExtractor",
    "N_ENVS",
    "PPO_SETTINGS",
    "SuccessTracker",
    "episode_outcomes",
    "greedy_actions",
    "make_ppo",
    "marple_env",
    "policy_success",
    "random_actions",
    "random_success",
    "success_count",
    "wilson_interval",
]
