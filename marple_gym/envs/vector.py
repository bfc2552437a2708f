"""A native Gymnasium ``VectorEnv``: many episodes of one house stepped by the batched world.

``gymnasium.make_vec("Marple-DoLaundry-v0", num_envs=1024)`` returns a
:class:`MarpleVectorEnv` (the registered ``vector_entry_point``). Each
``reset(seed=...)`` generates one house, exactly as the single env would with
that seed, and starts ``num_envs`` episodes in it; every sub-env samples its own
mission from the preferences. The actions of all sub-envs apply in one call of
the batch of episodes (:meth:`marple_gym.episode.EpisodeBatch.advance`: the
vectorised rules, then mission progress over arrays), the same transition the
single env applies one episode at a time, and its observations are built by
the same :func:`marple_gym.episode.observe`.

Autoreset follows Gymnasium's default (``AutoresetMode.NEXT_STEP``): the step
after a sub-env terminates or truncates restarts it from the house's first
state with a newly sampled mission, ignoring its action, and returns its first
observation with reward 0. Sub-envs stay in the house of the last ``reset``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from marple_gym.envs.household import MarpleEnv
from marple_gym.envs.image_copies import ImageCopies
from marple_gym.envs.spaces import action_space, observation_space
from marple_gym.episode.batch import EpisodeBatch
from marple_gym.episode.observe import OBSERVATION_KEYS
from marple_gym.generation.config import HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.mission import MISSIONS
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import WorldState
from marple_gym.world.world import World


class MarpleVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` episodes of one household mission, stepped together as arrays.

    Takes the single env's arguments (``mission``, ``mission_preferences``,
    ``config``, ``max_steps``, ``subgoal_reward``, ``observation_keys``) plus
    ``num_envs``; ``single_observation_space`` and ``single_action_space`` are
    the single env's. The ``info`` dict holds the single env's keys
    (``mission``, ``subgoal``, ``achieved``, -1 for none, and
    ``action_success``) as arrays, each with its ``_key`` mask, as Gymnasium's
    vector envs batch infos.

    ``copy`` (as Gymnasium's ``SyncVectorEnv``): with True (the default) every
    observation is the caller's own (an ``image`` the caller has let go of is
    reused, brought up to date by copying only the cells that changed:
    :mod:`marple_gym.envs.image_copies`); with False the ``image`` is the
    batch's grid itself, a view that the next ``step`` or ``reset`` overwrites.
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
        self._names = np.array([m.name for m in single.missions], dtype=object)
        self._weights = np.array([single.preferences[m.name] for m in single.missions])
        self.house: House | None = None
        self.start: WorldState | None = None
        self.episodes: EpisodeBatch | None = None
        self._restart = np.zeros(self.num_envs, dtype=bool)
        self._images = ImageCopies()
        self._every = np.ones(self.num_envs, dtype=bool)
        self._every.flags.writeable = False  # every info key's mask, shared by all steps: read-only

    # ---- the Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Generate one house and start every sub-env's episode in it.

        ``seed`` is an int (the house and sub-env 0 are the single env's with that seed; the other sub-envs'
        missions come from the same generator), or, as Gymnasium's API allows, one seed per sub-env: the
        house is then the first seed's, and each sub-env's mission is the one the single env draws with its
        own seed (None: drawn from the env's generator).
        """
        seeds = self._seed_list(seed)
        super().reset(seed=seeds[0] if seeds is not None else seed)
        # Draw sub-env 0's mission before the house, as the single env does: with one seed, sub-env 0 is its episode.
        first = self._sample_missions(1)
        world = generate_world(self._single.config, self.np_random, self._single.missions)
        self.house, self.start = world.house, world.state
        if seeds is None:
            others = self._sample_missions(self.num_envs - 1)
        else:
            others = [self._sample_missions(1, None if s is None else seeding.np_random(s)[0])[0] for s in seeds[1:]]
        missions = np.concatenate([first, np.asarray(others, dtype=np.int64)])
        self.episodes = EpisodeBatch.start(BatchedState.repeat(world.state, self.num_envs), self.table, (missions,))
        self._images.forget()
        self._restart[:] = False
        n = self.num_envs
        return self._observation(), self._info(np.full(n, -1), np.ones(n, dtype=bool))

    def step(self, actions):
        if self.episodes is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        restart = np.flatnonzero(self._restart)
        before = self.episodes.world.agent_pos[:, 0].copy() if self.copy else None
        ((out, achieved),) = self.episodes.advance(self.house, actions)
        terminated = self.progress.complete
        truncated = ~terminated & (self.step_count >= self.max_steps)
        reward = terminated.astype(np.float64)
        if self.subgoal_reward:
            reward += self.subgoal_reward * (achieved >= 0)
        if restart.size:  # last step ended these episodes: start them over, ignoring their actions
            self.episodes.restart(restart, self.start, (self._sample_missions(restart.size),))
            terminated[restart] = truncated[restart] = False
            reward[restart] = 0.0
            achieved[restart] = -1
        if self.copy:  # what the image copies must bring up to date
            self._images.changed(out.written_cells(HouseBatch.of(self.house), before), restart)
        self._restart = terminated | truncated
        return self._observation(), reward, terminated, truncated, self._info(achieved, out.success)

    @property
    def batch(self) -> BatchedState | None:
        """The sub-envs' world states, stacked."""
        return None if self.episodes is None else self.episodes.world

    @property
    def progress(self) -> BatchProgress | None:
        """The sub-envs' mission progress."""
        return None if self.episodes is None else self.episodes.progress[0]

    @property
    def step_count(self) -> np.ndarray:
        """Each sub-env's steps since it (re)started."""
        return np.zeros(self.num_envs, dtype=np.int64) if self.episodes is None else self.episodes.step_count

    def render(self) -> tuple[np.ndarray, ...] | None:
        """``rgb_array``: one frame per sub-env."""
        if self.render_mode is None or self.episodes is None:
            return None
        from marple_gym.rendering.frames import render_frame  # MiniGrid's drawing: loaded when drawn

        tile = self._single.tile_size
        batch = self.episodes.world
        return tuple(render_frame(World(self.house, batch.view(i)), tile_size=tile) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        self._single.close()

    # ---- helpers -------------------------------------------------------------------------------
    def _seed_list(self, seed: int | Sequence[int | None] | None) -> list[int | None] | None:
        """A list of per-sub-env seeds checked against ``num_envs``; None for an int seed or none."""
        if seed is None or isinstance(seed, int | np.integer):
            return None
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"a list of seeds needs one per sub-env ({self.num_envs}), got {len(seeds)}")
        return seeds

    def _sample_missions(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        rng = self.np_random if rng is None else rng
        if n == 1:  # one draw exactly as the single env makes it, so both consume the generator alike
            return np.array([rng.choice(len(self._weights), p=self._weights)])
        return rng.choice(len(self._weights), size=n, p=self._weights)

    def _observation(self) -> dict[str, Any]:
        obs = self.episodes.observe(self.house, 0, self.observation_keys, copy=False)
        if self.copy and "image" in obs:
            obs["image"] = self._images.copy(self.episodes.world)
        return obs

    def _info(self, achieved: np.ndarray, success: np.ndarray) -> dict[str, Any]:
        """The single env's info keys batched as Gymnasium's vector envs batch them: an array per key and its
        ``_key`` mask (every sub-env has every key)."""
        values = {
            "mission": self._names[self.progress.mission],
            "subgoal": self.progress.index.copy(),
            "achieved": achieved,
            "action_success": np.asarray(success, dtype=bool),
        }
        return {**values, **{f"_{key}": self._every for key in values}}


class SerialVectorEnv(gym.vector.SyncVectorEnv):
    """``num_envs`` single envs of one class stepped one after another (Gymnasium's ``SyncVectorEnv``): the
    ``vector_entry_point`` of the ids whose episodes cannot share one house, as :class:`MarpleVectorEnv`'s do
    (a ladder level draws a house for each episode's task, a search one for each episode's object).

    A subclass names the single env (:attr:`env_class`) and its step limit (:attr:`max_steps`); every
    sub-env takes the single env's arguments.
    """

    env_class: type[gym.Env]
    """The single env each sub-env is."""
    max_steps: int
    """The single env's ``max_steps`` default."""

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs: Any) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if max_episode_steps is not None:  # Gymnasium passes the spec's limit: the first limit ends an episode
            kwargs["max_steps"] = min(kwargs.get("max_steps", self.max_steps), max_episode_steps)
        super().__init__([partial(self.env_class, **kwargs) for _ in range(int(num_envs))])


def _make_class(mission: str) -> type[MarpleVectorEnv]:
    def __init__(self, num_envs: int = 1, **kwargs) -> None:
        kwargs.setdefault("mission", mission)
        MarpleVectorEnv.__init__(self, num_envs, **kwargs)

    name = f"{MISSIONS[mission].env_name}VectorEnv"
    doc = f"{MISSIONS[mission].title!r}: :class:`MarpleVectorEnv` with ``mission={mission!r}``."
    return type(name, (MarpleVectorEnv,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


MISSION_VECTOR_ENVS: dict[str, type[MarpleVectorEnv]] = {name: _make_class(name) for name in MISSIONS}
globals().update({cls.__name__: cls for cls in MISSION_VECTOR_ENVS.values()})
