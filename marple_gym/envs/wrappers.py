"""Observation wrappers for common RL use (e.g. stable-baselines3)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from marple_gym.episode.observe import observe
from marple_gym.missions.mission import SUBGOAL_NVEC

FLAT_KEYS = ("image", "direction", "carrying", "audio")
"""The observation keys :class:`FlatObservation` puts in its vector as numbers, in this order (those observed)."""


class ImageObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Keep only the (height, width, 8) vision array."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = env.observation_space["image"]

    def observation(self, observation):
        return observation["image"]


class FlatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """All numeric modalities and the task in one float32 vector: MiniGrid's ``FlatObsWrapper`` for MARPLE envs.

    The vector holds, in order, the :data:`FLAT_KEYS` the env observes as numbers (the ``image`` codes
    flattened, ``direction``, the two ``carrying`` codes, ``audio``), then the task: the current subgoal's
    (action, object, furniture, room) codes one-hot, a block per field (10 + 83 + 25 + 7 numbers; all
    four blocks mark 0 once the mission is done), as ``FlatObsWrapper`` one-hots the characters of
    MiniGrid's mission. On the ladder's levels every reset draws a new task, and this is how a flat
    policy learns which one it is on. The codes come from the ``subgoal`` key, or from the env itself
    when ``observation_keys`` leave that key out. Text (``mission``, ``intent``) is left out; use the
    ``Dict`` observation for language-conditioned agents.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space
        self._keys = [k for k in FLAT_KEYS if k in space.spaces]
        highs = [_highs(space[key]) for key in self._keys] + [np.ones(sum(SUBGOAL_NVEC), dtype=np.float32)]
        high = np.concatenate(highs)
        self.observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        self._task_offsets = np.cumsum((0,) + SUBGOAL_NVEC[:-1])

    def observation(self, observation):
        parts = [np.asarray(observation[k], dtype=np.float32).ravel() for k in self._keys]
        return np.concatenate(parts + [self._task(observation)])

    def _task(self, observation) -> np.ndarray:
        """The subgoal's codes, one-hot per field."""
        codes = observation.get("subgoal")
        if codes is None:
            base = self.env.unwrapped
            codes = observe(base.house, base.episode, 0, ("subgoal",))["subgoal"]
        task = np.zeros(sum(SUBGOAL_NVEC), dtype=np.float32)
        task[self._task_offsets + np.asarray(codes, dtype=np.int64)] = 1.0
        return task


def _highs(space: spaces.Space) -> np.ndarray:
    """The largest value of every number a key adds to the flat vector."""
    if isinstance(space, spaces.Box):
        return np.broadcast_to(space.high, space.shape).ravel().astype(np.float32)
    if isinstance(space, spaces.Discrete):
        return np.array([space.n - 1], dtype=np.float32)
    return (np.asarray(space.nvec) - 1).astype(np.float32).ravel()
