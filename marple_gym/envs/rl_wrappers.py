"""Wrappers for RL code: MiniGrid's usual views, and one that stable-baselines3 accepts as is.

MARPLE envs are fully observable by default, so the partial view is the wrapper here
(:class:`EgocentricView`, or ``gym.make(id, view_size=7)``). MiniGrid's own wrappers work on
MARPLE envs too, on the house in MiniGrid's vocabulary (:mod:`marple_gym.envs.minigrid_api`);
docs/rl.md has the table of every one of them and of our equivalents.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from marple_gym.episode.observe import TEXT_KEYS, observe
from marple_gym.evidence.egocentric import check_view_size


class EgocentricView(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Replace ``image`` with the agent's ``(view_size, view_size, 8)`` egocentric view.

    The same view as ``gym.make(id, view_size=v)`` (MiniGrid's convention: the
    agent in the middle of the bottom row, facing up; see
    :mod:`marple_gym.evidence.egocentric`). Walls and closed doors hide what is
    behind them unless ``see_through_walls`` is True.
    """

    def __init__(self, env: gym.Env, view_size: int = 7, see_through_walls: bool = False) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, view_size=view_size, see_through_walls=see_through_walls)
        gym.ObservationWrapper.__init__(self, env)
        if "image" not in env.observation_space.spaces:
            raise ValueError("EgocentricView needs the 'image' observation key")
        self.view_size = check_view_size(view_size)
        self.see_through_walls = bool(see_through_walls)
        view = spaces.Box(0, 255, (self.view_size, self.view_size, env.observation_space["image"].shape[2]), np.uint8)
        self.observation_space = spaces.Dict({**env.observation_space.spaces, "image": view})

    def observation(self, observation: dict) -> dict:
        base = self.env.unwrapped
        view = observe(
            base.house, base.episode, 0, ("image",), view=self.view_size, see_through_walls=self.see_through_walls
        )
        return {**observation, "image": view["image"]}


class RGBImageObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Replace ``image`` with the rendered house, ``(H * tile_size, W * tile_size, 3)`` RGB."""

    def __init__(self, env: gym.Env, tile_size: int = 8) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, tile_size=tile_size)
        gym.ObservationWrapper.__init__(self, env)
        base = env.unwrapped
        self.tile_size = int(tile_size)
        shape = (base.height * self.tile_size, base.width * self.tile_size, 3)
        self.observation_space = spaces.Dict(
            {**env.observation_space.spaces, "image": spaces.Box(0, 255, shape, np.uint8)}
        )

    def observation(self, observation: dict) -> dict:
        from marple_gym.rendering.frames import render_frame  # MiniGrid's drawing: loaded when drawn

        return {**observation, "image": render_frame(self.env.unwrapped.world, tile_size=self.tile_size)}


class NumericObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """What stable-baselines3 takes as it is: the Dict without text, the code array as integers.

    * ``mission`` and ``intent`` (text, which SB3 cannot batch) are dropped; the
      ``subgoal`` codes carry the same instruction as numbers.
    * ``image`` is re-declared ``int16``: it holds codes, not pixels, so SB3 must
      neither rescale it by 1/255 nor transpose it as a picture. Pair it with
      ``marple_agents.rl.CodeArrayExtractor`` (per-channel embeddings and a small CNN).
    * With ``keys=("image",)`` the observation is the bare array, for ``CnnPolicy``.
    * With ``boxes=True`` every key is a ``Box``: ``direction``, ``carrying``,
      ``audio`` and ``subgoal`` become ``int16`` Boxes of their codes (shapes
      (1,), (2,), (1,), (4,); highs one below their number of values), the form
      SB3's ``VecFrameStack`` stacks (it refuses discrete keys).
      ``CodeArrayExtractor`` one-hots them as SB3 one-hots the discrete keys.
    """

    def __init__(self, env: gym.Env, keys: Sequence[str] | None = None, boxes: bool = False) -> None:
        # keys recorded as a list: the form a spec's JSON (Minari's datasets) gives back
        gym.utils.RecordConstructorArgs.__init__(self, keys=None if keys is None else list(keys), boxes=boxes)
        gym.ObservationWrapper.__init__(self, env)
        available = [k for k in env.observation_space.spaces if k not in TEXT_KEYS]
        self.keys = tuple(available if keys is None else keys)
        self.boxes = bool(boxes)
        missing = [k for k in self.keys if k not in available]
        if missing or not self.keys:
            raise ValueError(
                f"NumericObservation keys {missing or list(self.keys)} not among the numeric keys {available}"
            )
        declared = {k: self._space(env.observation_space[k], k == "image") for k in self.keys}
        self.observation_space = declared["image"] if self.keys == ("image",) else spaces.Dict(declared)

    def _space(self, space: spaces.Space, image: bool) -> spaces.Space:
        if image:
            return spaces.Box(0, 255, space.shape, np.int16)
        if not self.boxes:
            return space
        n = np.atleast_1d(space.n if isinstance(space, spaces.Discrete) else space.nvec)
        return spaces.Box(np.zeros(n.shape, np.int16), (n - 1).astype(np.int16), dtype=np.int16)

    def observation(self, observation: dict):
        out = {k: self._value(k, observation[k]) for k in self.keys}
        return out["image"] if self.keys == ("image",) else out

    def _value(self, key: str, value):
        if key == "image":
            return value.astype(np.int16)
        return np.atleast_1d(np.asarray(value, dtype=np.int16)) if self.boxes else value
