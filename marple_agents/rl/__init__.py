"""Reinforcement learning with stable-baselines3 on MARPLE envs."""

from marple_agents.rl.features import CodeArrayEmbedding, CodeArrayExtractor
from marple_agents.rl.ppo import (
    MISSION_RECIPE,
    N_ENVS,
    PPO_SETTINGS,
    SKILL_COMPANIONS,
    SuccessTracker,
    episode_outcomes,
    greedy_actions,
    make_ppo,
    marple_env,
    mixture_ids,
    policy_success,
    random_actions,
    random_success,
    success_count,
    target_envs,
    wilson_interval,
)
from marple_agents.rl.saved import EnvStack, load_ppo, save_ppo

__all__ = [
    "CodeArrayEmbedding",
    "CodeArrayExtractor",
    "EnvStack",
    "MISSION_RECIPE",
    "N_ENVS",
    "PPO_SETTINGS",
    "SKILL_COMPANIONS",
    "SuccessTracker",
    "episode_outcomes",
    "greedy_actions",
    "load_ppo",
    "make_ppo",
    "marple_env",
    "mixture_ids",
    "policy_success",
    "random_actions",
    "random_success",
    "save_ppo",
    "success_count",
    "target_envs",
    "wilson_interval",
]
