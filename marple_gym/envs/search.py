"""The Gymnasium environment of the belief family: one agent searching a house for an object it may not see."""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cache, lru_cache
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from marple_gym.beliefs.belief import ObjectBelief
from marple_gym.beliefs.episodes import EXCLUSION, MAX_SEARCH_STEPS, pick_goal, sample_prior
from marple_gym.beliefs.houses import apartment_config
from marple_gym.beliefs.locations import locations_of
from marple_gym.beliefs.perception import VIEW_SIZE, Percept, check_perception, perceive, sighting_of
from marple_gym.envs.minigrid_api import MiniGridAPI
from marple_gym.envs.spaces import action_index, action_space, modality_space
from marple_gym.envs.vector import SerialVectorEnv
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.egocentric import check_view_size, egocentric_view
from marple_gym.evidence.scene_graph import SceneGraphBuilder
from marple_gym.evidence.visibility import Visibility
from marple_gym.generation.config import HouseConfig, HouseConfigError
from marple_gym.generation.generator import build_world
from marple_gym.missions.words import word
from marple_gym.world.actions import Outcome
from marple_gym.world.assets import ASSETS
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT, CH_OBJ, WorldState
from marple_gym.world.world import World

SEARCH_ID = "Marple-Search-v0"
SEARCH_KEYS: tuple[str, ...] = ("image", "direction", "carrying", "mission", "goal")
"""The searching agent's observation keys, in the order of its observation space."""
NOT_ACHIEVED = -1
"""``info["achieved"]`` on a step that does not pick the object up (as the household envs')."""


@cache  # every step observes it; the object types are few
def search_title(goal: str) -> str:
    """The ``mission`` text of a search for object type ``goal``: "find the pot plant"."""
    return f"find the {word(goal)}"


@cache  # every step observes it; the object types are few
def search_name(goal: str) -> str:
    """``info["mission"]`` of a search for object type ``goal``: "find_pot_plant"."""
    return f"find_{goal}"


class SearchEnv(MiniGridAPI, gym.Env):
    """An agent searching a house for an object, seeing only what it perceives.

    ## Description
    An apartment (kitchen, bedroom, bathroom, living room; any house config works) with cabinets, a fridge,
    a closet, tables and a sofa, and objects on and in them. Every reset makes a new house and picks an object
    of which it holds exactly one; the agent must find it and pick it up. It sees its room (``perception="room"``)
    or its egocentric window (``"view"``, ``view_size`` cells, 7 by default), never the inside of a closed
    container until it opens it (:mod:`marple_gym.beliefs.perception`).

    ## Mission Space
    The object to find: ``goal="apple"`` fixes it, ``reset(options={"goal": name})`` for one episode; otherwise
    each reset draws one of the objects the house holds exactly one of. The ``mission`` observation is
    "find the apple" (:func:`search_title`), a ``Text`` space like every env's.

    ## Action Space
    ``Discrete(10)``: the household's ten actions (0 turn left, 1 turn right, 2 forward, 3 pick up, 4 drop,
    5 toggle, 6 open, 7 close, 8 clean, 9 idle).

    ## Observation Space
    A ``Dict`` with (by default) the keys :data:`SEARCH_KEYS`; ``observation_keys`` selects a subset.
    ``image``, the (H, W, 8) vision array as the agent perceives it (cells it does not see all zeros, closed
    containers without their contents: :mod:`marple_gym.evidence.visibility`); with ``view_size=v`` the
    agent's egocentric ``(v, v, 8)`` view of it instead (MiniGrid's ``agent_view_size``, walls and closed doors
    hiding what is behind them unless ``see_through_walls=True``; never what the agent does not perceive).
    ``direction`` (0 east .. 3 north); ``carrying`` (object type codes in both hands, 0 empty); ``mission``
    (the task as text); ``goal`` (the wanted object's type code).

    The ``info`` of every ``reset`` and ``step`` has the household envs' keys, each of one type: ``mission``
    (str, :func:`search_name`), ``subgoal`` (int: 0 while searching, 1 once the object is held), ``achieved``
    (int: 0 on the step that picks it up, else :data:`NOT_ACHIEVED`) and ``action_success`` (bool); and
    ``belief``, an (H, W) float32 map of where the agent's belief puts the object (a rational searcher's
    belief given what it perceived, starting from the episode's prior: :mod:`marple_gym.beliefs.belief`),
    each piece's probability spread over its cells. With ``scene_graph=True`` it also holds the scene graph of
    what the agent perceives. The full state stays with the env for observers: ``env.unwrapped.world``.

    ## Rewards
    1 when the agent picks the object up (plus ``subgoal_reward``: finding it is the search's one subgoal),
    0 otherwise.

    ## Termination
    ``terminated`` once it holds the object; ``truncated`` after ``max_steps`` steps (default 200).

    ## Registered Configurations
    ``Marple-Search-v0``, with the vector entry point :class:`SearchVectorEnv`.
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 8}

    def __init__(
        self,
        config: HouseConfig | dict | str | os.PathLike | None = None,
        goal: str | None = None,
        perception: str = "room",
        view_size: int | None = None,
        exclusion: float = EXCLUSION,
        max_steps: int = MAX_SEARCH_STEPS,
        render_mode: str | None = None,
        tile_size: int = 32,
        see_through_walls: bool = False,
        observation_keys: tuple[str, ...] = SEARCH_KEYS,
        subgoal_reward: float = 0.0,
        scene_graph: bool = False,
    ) -> None:
        self.config = apartment_config() if config is None else HouseConfig.load(config)
        self.agent_view_size = None if view_size is None else check_view_size(view_size)
        self.window_size = VIEW_SIZE if view_size is None else self.agent_view_size
        """The window of ``"view"`` perception: ``view_size``, or MiniGrid's 7 when the image is the house."""
        self.perception = check_perception(perception, self.window_size)
        if goal is not None and goal not in ASSETS.object_code:
            raise ValueError(f"unknown object {goal!r} to search for")
        unknown = [k for k in observation_keys if k not in SEARCH_KEYS]
        if unknown:
            raise ValueError(f"unknown observation keys {unknown} for {SEARCH_ID}; choose from {SEARCH_KEYS}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.goal_name = goal
        self.exclusion = float(exclusion)
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        self.tile_size = int(tile_size)
        self.see_through_walls = bool(see_through_walls)
        self.observation_keys = tuple(observation_keys)
        self.subgoal_reward = float(subgoal_reward)
        self.with_scene_graph = bool(scene_graph)
        self.action_space = action_space()
        self.observation_space = spaces.Dict({k: self._space(k) for k in self.observation_keys})
        self.house: House | None = None
        self.episode: EpisodeState | None = None
        self.goal = 0
        self.prior = 0
        self.belief = ObjectBelief.start(0)
        self.percept: Percept | None = None
        self._scene_graphs: SceneGraphBuilder | None = None  # the current house's, made on the first request
        self.window = None  # the pygame window of render_mode="human", opened on the first frame

    def _space(self, key: str) -> spaces.Space:
        if key == "goal":
            return spaces.Discrete(len(ASSETS.object_names))
        return modality_space(key, self.config.height, self.config.width, self.agent_view_size)

    # ---- the Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        world = build_world(self.config, self.np_random)  # the config checked in __init__
        if (world.house.height, world.house.width) != (self.config.height, self.config.width):
            raise HouseConfigError("config", "the generated house does not match the observation space")
        self.house = world.house
        wanted = (options or {}).get("goal", self.goal_name)
        self.goal = pick_goal(world.house, world.state, wanted, self.np_random)
        self.prior = sample_prior(locations_of(world.house).candidates(self.goal), self.np_random, self.exclusion)
        self.belief = ObjectBelief.start(self.prior)
        self.episode = EpisodeState.start(world.house, world.state, (None,))
        self._perceive()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(None, False)

    def step(self, action):
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        held = self.holds_goal
        ((outcome, _),) = self.episode.advance(self.house, (action_index(action),))
        self._perceive()
        terminated = self.holds_goal
        truncated = not terminated and self.episode.step_count >= self.max_steps
        reward = (1.0 + self.subgoal_reward) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info(outcome, terminated and not held)

    def render(self):
        """``rgb_array``: the house as the agent sees it, an (H * tile_size, W * tile_size, 3) image, what it does
        not see drawn as a screen and closed containers as empty. ``human``: show it in a window with the task and
        the step underneath (called by ``step`` and ``reset``)."""
        if self.render_mode is None or self.episode is None:
            return None
        from marple_gym.rendering.window import render_env  # MiniGrid's drawing and pygame: loaded when drawn

        title = search_title(ASSETS.object_names[self.goal])
        return render_env(self, f"MARPLE-Gym: {title}", lambda: [f"{title}, step {self.step_count}"], self.percept.view)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None

    # ---- the episode ---------------------------------------------------------------------------
    @property
    def world(self) -> World | None:
        """The current house and its full state (for observers; the agent sees :attr:`percept`)."""
        return None if self.episode is None else World(self.house, self.episode.world)

    @property
    def holds_goal(self) -> bool:
        """Does the agent hold an object of the type it searches for?"""
        return self._holds_goal

    def _holding_goal(self) -> bool:
        codes, goal = self.house.obj_type_list, self.goal  # Python lists: a step reads two hands, not arrays
        return any(codes[held] == goal for held in self.episode.world.carrying[0].tolist() if held >= 0)

    def scene_graph(self):
        """The scene graph of what the agent perceives now (a new ``networkx.DiGraph``)."""
        if self._scene_graphs is None or self._scene_graphs.house is not self.house:
            self._scene_graphs = SceneGraphBuilder(self.house)
        return self.percept.view.scene_graph(self._scene_graphs.build(self.episode.world))

    def _perceive(self) -> None:
        state = self.episode.world
        self._holds_goal = self._holding_goal()  # read three times a step; the state changes only here
        self.percept = perceive(self.house, state, 0, self.perception, self.window_size)
        seen = sighting_of(self.house, state, self.percept, self.goal)
        self.belief = self.belief.revise(self.percept, seen, locations_of(self.house).candidates(self.goal))

    def _observation(self) -> dict[str, Any]:
        state = self.episode.world
        out: dict[str, Any] = {}
        for key in self.observation_keys:
            if key == "image":
                out[key] = self._image(state)
            elif key == "direction":
                out[key] = state.agent_dir.item(0)
            elif key == "carrying":
                out[key] = self.house.obj_codes.take(state.carrying[0])  # an empty hand (-1) reads 0
            elif key == "mission":
                out[key] = search_title(ASSETS.object_names[self.goal])
            else:
                out[key] = int(self.goal)
        return out

    def _image(self, state: WorldState) -> np.ndarray:
        """The vision array as the agent perceives it: the house, or its egocentric view of it."""
        perceived = self.percept.view.vision(state.grid)
        if self.agent_view_size is None:
            return perceived
        return egocentric_view(replace(state, grid=perceived), 0, self.agent_view_size, self.see_through_walls)

    def _info(self, outcome: Outcome | None, found: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "mission": search_name(ASSETS.object_names[self.goal]),
            "subgoal": int(self.holds_goal),
            "achieved": 0 if found else NOT_ACHIEVED,
            "action_success": True if outcome is None else bool(outcome.success),
            "belief": belief_map(self.house, self.belief),
        }
        if self.with_scene_graph:
            info["scene_graph"] = self.scene_graph()
        return info

    # ---- what MiniGrid's wrappers read (more in MiniGridAPI) --------------------------------------
    def _perceived(self) -> Visibility:
        return self.percept.view

    def _goal_cells(self, world: World) -> np.ndarray:
        """(H, W) bool: where an object of the wanted type lies (the agent's task is done there)."""
        grid = world.state.grid
        return (grid[..., CH_OBJ] == self.goal) & (grid[..., CH_AGENT] == 0)


class SearchVectorEnv(SerialVectorEnv):
    """``num_envs`` searches stepped one after another, each in its own house: the vector entry point of
    ``Marple-Search-v0`` (``gym.make_vec(SEARCH_ID, n)``), every sub-env a :class:`SearchEnv` with the single
    env's arguments."""

    env_class = SearchEnv
    max_steps = MAX_SEARCH_STEPS


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
