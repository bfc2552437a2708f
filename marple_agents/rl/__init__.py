"""Reinforcement learning with stable-baselines3 on MARPLE envs."""

from marple_agents.rl.features import CodeArrayEmbedding, CodeArrayExtractor
from marple_agents.rl.ppo import PPO_SETTINGS, SuccessTracker, make_ppo, marple_env, random_success

__all__ = [
    "CodeArrayEmbedding",
    "CodeArrayExtractor",
    "PPO_SETTINGS",
    "SuccessTracker",
    "make_ppo",
    "marple_env",
    "random_success",
]
