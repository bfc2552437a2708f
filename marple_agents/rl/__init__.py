"""Reinforcement learning with stable-baselines3 on MARPLE envs."""

from marple_agents.rl.features import CodeArrayEmbedding, CodeArrayExtractor

__all__ = ["CodeArrayEmbedding", "CodeArrayExtractor"]
