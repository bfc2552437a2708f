"""The Gymnasium environment of the belief family: one agent searching a house for an object it may not see."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import EXCLUSION, MAX_SEARCH_STEPS, pick_goal, sample_prior
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.locations import locations_of
from marple_gym.beliefs.perception import VIEW_SIZE, Percept, check_perception, perceive, sighting_of
from marple_gym.envs.spaces import action_index, action_space, modality_space
from marple_gym.episode.state import EpisodeState
from marple_gym.generation.config import HouseConfig, HouseConfigError
from marple_gym.generation.generator import generate_world
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House
from marple_gym.world.world import World

SEARCH_ID = "Marple-Search-v0"


class SearchEnv(gym.Env):
    """An agent searching a house for an object, seeing only what it perceives.

    ## Description
    An apartment (kitchen, bedroom, bathroom, living room; any house config works) with cabinets, a fridge,
    a closet, tables and a sofa, and objects on and in them. Every reset makes a new house and picks an object
    of which it holds exactly one; the agent must find it and pick it up. It sees its room (``perception="room"``)
    or its egocentric window (``"view"``), never the inside of a closed container until it opens it
    (:mod:`marple_gym.beliefs.perception`).

    ## Action Space
    ``Discrete(10)``: the household's ten actions (0 turn left, 1 turn right, 2 forward, 3 pick up, 4 drop,
    5 toggle, 6 open, 7 close, 8 clean, 9 idle).

    ## Observation Space
    A ``Dict``: ``image``, the (H, W, 8) vision array as the agent perceives it (cells it does not see all
    zeros, closed containers without their contents: :mod:`marple_gym.evidence.visibility`); ``direction``
    (0 east .. 3 north); ``carrying`` (object type codes in both hands, 0 empty); ``goal`` (the wanted object's
    type code).

    ## Info
    ``belief``: an (H, W) float32 map of where the agent's belief puts the object (a rational searcher's
    belief given what it perceived, starting from the episode's prior: :mod:`marple_gym.beliefs.belief`),
    each piece's probability spread over its cells. The full state stays with the env for observers:
    ``env.unwrapped.world``.

    ## Rewards
    1 when the agent picks the object up, 0 otherwise.

    ## Termination
    ``terminated`` once it holds the object; ``truncated`` after ``max_steps`` steps.

    ## Registered Configurations
    ``Marple-Search-v0``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 8}

    def __init__(
        self,
        config: HouseConfig | dict | str | os.PathLike | None = None,
        goal: str | None = None,
        perception: str = "room",
        view_size: int = VIEW_SIZE,
        exclusion: float = EXCLUSION,
        max_steps: int = MAX_SEARCH_STEPS,
        render_mode: str | None = None,
        tile_size: int = 32,
    ) -> None:
        self.config = apartment_config() if config is None else HouseConfig.load(config)
        self.perception = check_perception(perception, view_size)
        self.view_size = int(view_size)
        if goal is not None and goal not in ASSETS.object_code:
            raise ValueError(f"unknown object {goal!r} to search for")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.goal_name = goal
        self.exclusion = float(exclusion)
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        self.tile_size = int(tile_size)
        h, w = self.config.height, self.config.width
        self.action_space = action_space()
        self.observation_space = spaces.Dict(
            {
                "image": modality_space("image", h, w),
                "direction": modality_space("direction", h, w),
                "carrying": modality_space("carrying", h, w),
                "goal": spaces.Discrete(len(ASSETS.object_names)),
            }
        )
        self.house: House | None = None
        self.episode: EpisodeState | None = None
        self.goal = 0
        self.prior = 0
        self.belief = ObjectBelief.start(0)
        self.percept: Percept | None = None

    @property
    def world(self) -> World | None:
        """The current house and its full state (for observers; the agent sees :attr:`percept`)."""
        return None if self.episode is None else World(self.house, self.episode.world)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        world = generate_world(self.config, self.np_random)
        if (world.house.height, world.house.width) != (self.config.height, self.config.width):
            raise HouseConfigError("config", "the generated house does not match the observation space")
        self.house = world.house
        wanted = (options or {}).get("goal", self.goal_name)
        self.goal = pick_goal(world.house, world.state, wanted, self.np_random)
        self.prior = sample_prior(locations_of(world.house).candidates(self.goal), self.np_random, self.exclusion)
        self.belief = ObjectBelief.start(self.prior)
        self.episode = EpisodeState.start(world.house, world.state, (None,))
        self._perceive()
        return self._observation(), self._info()

    def step(self, action):
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        self.episode.advance(self.house, (action_index(action),))
        self._perceive()
        terminated = self.holds_goal
        truncated = not terminated and self.episode.step_count >= self.max_steps
        return self._observation(), float(terminated), terminated, truncated, self._info()

    @property
    def holds_goal(self) -> bool:
        types = self.house.obj_type_list
        return any(o >= 0 and types[o] == self.goal for o in self.episode.world.carrying[0].tolist())

    def _perceive(self) -> None:
        state = self.episode.world
        self.percept = perceive(self.house, state, 0, self.perception, self.view_size)
        seen = sighting_of(self.house, state, self.percept, self.goal)
        self.belief = self.belief.revise(self.percept, seen, locations_of(self.house).candidates(self.goal))

    def _observation(self) -> dict[str, Any]:
        state = self.episode.world
        types = self.house.obj_type_list
        return {
            "image": self.percept.view.vision(state.grid),
            "direction": int(state.agent_dir[0]),
            "carrying": np.array([types[o] if o >= 0 else 0 for o in state.carrying[0].tolist()], dtype=np.int64),
            "goal": int(self.goal),
        }

    def _info(self) -> dict[str, Any]:
        return {"belief": belief_map(self.house, self.belief)}

    def render(self):
        """The house as the agent sees it, an (H * tile_size, W * tile_size, 3) image: what it does not see is
        drawn as a screen, closed containers as empty."""
        if self.render_mode is None or self.episode is None:
            return None
        from marple_gym.rendering.frames import render_frame

        return render_frame(self.world, self.tile_size, visibility=self.percept.view)


def belief_map(house: House, belief: ObjectBelief) -> np.ndarray:
    """(H, W) float32: a belief's probability of each piece spread evenly over the piece's cells (all of it on
    the cell where the object was seen, while the agent thinks it is there)."""
    return _belief_map(house, belief).copy()


@lru_cache(maxsize=64)
def _belief_map(house: House, belief: ObjectBelief) -> np.ndarray:
    """:func:`belief_map`, kept: a belief changes on few steps, and spreading it costs a fifth of a step."""
    out = np.zeros((house.height, house.width), dtype=np.float32)
    if belief.cell is not None:
        out[belief.cell[1], belief.cell[0]] = 1.0
        return out
    for piece, p in belief.probabilities().items():
        ys, xs = house.fur_cells[piece]
        out[ys, xs] = p / len(ys)
    return out
