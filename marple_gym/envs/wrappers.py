"""Observation wrappers for common RL use (e.g. stable-baselines3)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class ImageObservation(gym.ObservationWrapper):
    """Keep only the (height, width, 8) vision array."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["image"]

    def observation(self, observation):
        return observation["image"]


class FlatObservation(gym.ObservationWrapper):
    """All numeric modalities in one float32 vector: image, direction, carrying, audio.

    Text modalities (mission, intent) are left out; use the Dict observation for
    language-conditioned agents.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        space = env.observation_space
        self._keys = [k for k in ("image", "direction", "carrying", "audio") if k in space.spaces]
        highs = []
        for key in self._keys:
            sub = space[key]
            if isinstance(sub, spaces.Box):
                highs.append(np.broadcast_to(sub.high, sub.shape).ravel().astype(np.float32))
            elif isinstance(sub, spaces.Discrete):
                highs.append(np.array([sub.n - 1], dtype=np.float32))
            else:
                highs.append((np.asarray(sub.nvec) - 1).astype(np.float32))
        high = np.concatenate(highs)
        self.observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)

    def observation(self, observation):
        return np.concatenate([np.asarray(observation[k], dtype=np.float32).ravel() for k in self._keys])
