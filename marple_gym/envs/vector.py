"""A native Gymnasium ``VectorEnv``: many episodes of one house stepped by the batched world.

``gymnasium.make_vec("Marple-DoLaundry-v0", num_envs=1024)`` returns a
:class:`MarpleVectorEnv` (the registered ``vector_entry_point``). Each
``reset(seed=...)`` generates one house, exactly as the single env would with
that seed, and starts ``num_envs`` episodes in it; every sub-env samples its own
mission from the preferences. The actions of all sub-envs apply in one call of
the vectorised rules (:func:`marple_gym.world.batch.apply_actions`), the same
rules the single env applies one at a time.

Autoreset follows Gymnasium's default (``AutoresetMode.NEXT_STEP``): the step
after a sub-env terminates or truncates restarts it from the house's first
state with a newly sampled mission, ignoring its action, and returns its first
observation with reward 0. Sub-envs stay in the house of the last ``reset``.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from marple_gym.envs.household import MarpleEnv
from marple_gym.envs.spaces import action_space, observation_space
from marple_gym.episode.observe import OBSERVATION_KEYS
from marple_gym.evidence.audio import SILENCE, audio_tokens
from marple_gym.evidence.language import intent
from marple_gym.generation.config import HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.mission import MISSIONS, subgoal_codes
from marple_gym.world.batch import BatchedState, apply_actions
from marple_gym.world.house import House
from marple_gym.world.state import WorldState


class MarpleVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` episodes of one household mission, stepped together as arrays.

    Takes the single env's arguments (``mission``, ``mission_preferences``,
    ``config``, ``max_steps``, ``subgoal_reward``, ``observation_keys``) plus
    ``num_envs``; ``single_observation_space`` and ``single_action_space`` are
    the single env's. The ``info`` dict holds ``subgoal`` and ``achieved`` (-1:
    none) and ``action_success`` arrays.

    ``copy`` (as Gymnasium's ``SyncVectorEnv``): with True (the default) every
    observation is the caller's own; with False the ``image`` is the batch's
    grid itself, a view that the next ``step`` or ``reset`` overwrites, which
    saves copying N x H x W x 8 bytes per step.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 8, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        mission: str | None = None,
        mission_preferences: dict[str, float] | None = None,
        config: HouseConfig | dict | str | os.PathLike | None = None,
        max_steps: int = 500,
        subgoal_reward: float = 0.0,
        observation_keys: tuple[str, ...] = OBSERVATION_KEYS,
        render_mode: str | None = None,
        tile_size: int = 32,
        max_episode_steps: int | None = None,
        copy: bool = True,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        # The single env validates every shared argument and resolves the mission preferences.
        self._single = MarpleEnv(
            mission=mission,
            mission_preferences=mission_preferences,
            config=config,
            # Gymnasium passes the spec's limit; like TimeLimit around the single env, the first limit ends it.
            max_steps=max_steps if max_episode_steps is None else min(max_steps, max_episode_steps),
            subgoal_reward=subgoal_reward,
            observation_keys=observation_keys,
            render_mode=render_mode,
            tile_size=tile_size,
        )
        single = self._single
        self.num_envs = int(num_envs)
        self.copy = bool(copy)
        self.render_mode = render_mode
        self.max_steps, self.subgoal_reward = single.max_steps, single.subgoal_reward
        self.observation_keys = single.observation_keys
        self.single_action_space = action_space()
        if single.agent_view_size is not None:
            raise ValueError(
                "view_size is not available in the native vector env; wrap single envs instead: "
                "gymnasium.make_vec(id, num_envs, vectorization_mode='sync', view_size=...)"
            )
        self.single_observation_space = observation_space(
            self.observation_keys, single.config.height, single.config.width
        )
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.table = MissionTable(single.missions)
        self._weights = np.array([single.preferences[m.name] for m in single.missions])
        self._titles = [m.title for m in self.table.missions]
        self._intents = [[intent(sg) for sg in m.subgoals] + [intent(None)] for m in self.table.missions]
        self._codes = _subgoal_code_table(self.table.missions)
        self.house: House | None = None
        self.start: WorldState | None = None
        self.batch: BatchedState | None = None
        self.progress: BatchProgress | None = None
        self.step_count = np.zeros(self.num_envs, dtype=np.int64)
        self._audio = np.full(self.num_envs, SILENCE, dtype=np.int64)
        self._restart = np.zeros(self.num_envs, dtype=bool)
        self._mission_text: list[str] = []
        self._intent_text: list[str] = []

    # ---- the Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        # Draw sub-env 0's mission before the house, as the single env does: with one seed, sub-env 0 is its episode.
        first = self._sample_missions(1)
        world = generate_world(self._single.config, self.np_random, self._single.missions)
        self.house, self.start = world.house, world.state
        self.batch = BatchedState.repeat(world.state, self.num_envs)
        missions = np.concatenate([first, self._sample_missions(self.num_envs - 1)])
        self.progress = BatchProgress(self.table, missions)
        self.step_count[:] = 0
        self._audio[:] = SILENCE
        self._restart[:] = False
        n = self.num_envs
        self._mission_text, self._intent_text = [""] * n, [""] * n
        self._retitle(np.arange(n))
        return self._observation(), self._info(np.full(n, -1), np.ones(n, dtype=bool))

    def step(self, actions):
        if self.batch is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        restart = np.flatnonzero(self._restart)
        before = self.progress.index.copy()
        out = apply_actions(self.house, self.batch, 0, actions)
        achieved = self.progress.update(self.house, self.batch, 0, out)
        self.step_count += 1
        self._audio = audio_tokens(out, self.house, self.batch)
        terminated = self.progress.complete
        truncated = ~terminated & (self.step_count >= self.max_steps)
        reward = terminated.astype(np.float64) + self.subgoal_reward * (achieved >= 0)
        if restart.size:  # last step ended these episodes: start them over, ignoring their actions
            self.batch.assign(restart, self.start)
            self.progress.restart(restart, self._sample_missions(restart.size))
            self.step_count[restart] = 0
            self._audio[restart] = SILENCE
            terminated[restart] = truncated[restart] = False
            reward[restart] = 0.0
            achieved[restart] = -1
        self._restart = terminated | truncated
        self._retitle(np.flatnonzero(self.progress.index != before))
        self._retitle(restart)
        return self._observation(), reward, terminated, truncated, self._info(achieved, out.success)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """``rgb_array``: one frame per sub-env."""
        if self.render_mode is None or self.batch is None:
            return None
        from marple_gym.rendering.frames import render_frame
        from marple_gym.world.world import World

        tile = self._single.tile_size
        return tuple(render_frame(World(self.house, self.batch.view(i)), tile_size=tile) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        self._single.close()

    # ---- helpers -------------------------------------------------------------------------------
    def _sample_missions(self, n: int) -> np.ndarray:
        if n == 1:  # one draw exactly as the single env makes it, so both consume the generator alike
            return np.array([self.np_random.choice(len(self._weights), p=self._weights)])
        return self.np_random.choice(len(self._weights), size=n, p=self._weights)

    def _retitle(self, rows: np.ndarray) -> None:
        """Refresh the mission title and intent sentence of the sub-envs ``rows`` (those whose subgoal changed)."""
        missions, index = self.progress.mission, self.progress.index
        for i in rows.tolist():
            m = int(missions[i])
            self._mission_text[i] = self._titles[m]
            self._intent_text[i] = self._intents[m][int(index[i])]

    def _observation(self) -> dict[str, Any]:
        batch = self.batch
        obs: dict[str, Any] = {}
        for key in self.observation_keys:
            if key == "image":
                obs[key] = batch.grid.copy() if self.copy else batch.grid
            elif key == "direction":
                obs[key] = batch.agent_dir[:, 0].astype(np.int64)
            elif key == "carrying":
                held = batch.carrying[:, 0].astype(np.int64)
                obs[key] = self.house.obj_codes[held]
            elif key == "mission":
                obs[key] = tuple(self._mission_text)
            elif key == "intent":
                obs[key] = tuple(self._intent_text)
            elif key == "subgoal":
                # One row gather from the flattened (mission x subgoal, 4) table: a 2-index fancy gather is slower.
                rows = self.progress.mission * self._codes.shape[1] + self.progress.index
                obs[key] = np.take(self._codes.reshape(-1, 4), rows, axis=0)
            else:
                obs[key] = self._audio.copy()
        return obs

    def _info(self, achieved: np.ndarray, success: np.ndarray) -> dict[str, Any]:
        return {"subgoal": self.progress.index.copy(), "achieved": achieved, "action_success": success}


def _subgoal_code_table(missions) -> np.ndarray:
    """(mission, subgoal index) -> the subgoal's codes; the row past the last subgoal (done) is all 0."""
    table = np.zeros((len(missions), max(len(m.subgoals) for m in missions) + 1, 4), dtype=np.int64)
    for i, m in enumerate(missions):
        for k, sg in enumerate(m.subgoals):
            table[i, k] = subgoal_codes(sg)
    return table


def _make_class(mission: str) -> type[MarpleVectorEnv]:
    def __init__(self, num_envs: int = 1, **kwargs) -> None:
        kwargs.setdefault("mission", mission)
        MarpleVectorEnv.__init__(self, num_envs, **kwargs)

    name = f"{MISSIONS[mission].env_name}VectorEnv"
    doc = f"{MISSIONS[mission].title!r}: :class:`MarpleVectorEnv` with ``mission={mission!r}``."
    return type(name, (MarpleVectorEnv,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


MISSION_VECTOR_ENVS: dict[str, type[MarpleVectorEnv]] = {name: _make_class(name) for name in MISSIONS}
globals().update({cls.__name__: cls for cls in MISSION_VECTOR_ENVS.values()})
