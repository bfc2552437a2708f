"""The Gymnasium environment: one agent carrying out a household mission."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

import gymnasium as gym

from marple_gym.envs.minigrid_api import MiniGridAPI
from marple_gym.envs.spaces import action_space, fill_observation_space, observation_space
from marple_gym.episode.observe import OBSERVATION_KEYS, observe
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.egocentric import check_view_size
from marple_gym.evidence.scene_graph import SceneGraphBuilder
from marple_gym.generation.config import HouseConfig, HouseConfigError
from marple_gym.generation.generator import build_world
from marple_gym.missions.mission import MISSIONS, Mission, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.world.actions import Outcome
from marple_gym.world.house import House
from marple_gym.world.sampling import weighted_index
from marple_gym.world.world import World

DEFAULT_HOUSEHOLD = "data/household.json"
"""The house config of ``Marple-Household-v0`` made with no mission, preferences or config (package data of
``marple_gym.envs``): the missions' default 20 x 20 house of up to four rooms, its agent sampling any of the ten
missions uniformly at each reset (so every house is built for all ten)."""

NOT_ACHIEVED = -1
"""``info["achieved"]`` on a step that achieves no subgoal (and after ``reset``): every info value keeps one type on
every step, so Gymnasium's vector envs batch them (they size each key's array from the first sub-env's value)."""


def resolve_preferences(
    mission: str | None,
    preferences: Mapping[str, float] | None,
    fallback: Mapping[str, float],
    lookup: Callable[[str], Mission] = get_mission,
) -> dict[str, float]:
    """An agent's mission preferences, normalised: one ``mission``, or ``preferences``, or else ``fallback``
    (the config's). Raises ValueError for both or neither, an unknown name or weights that are negative or
    all zero."""
    if mission is not None and preferences:
        raise ValueError("give either mission or mission_preferences, not both")
    if mission is not None:
        lookup(mission)
        return {mission: 1.0}
    prefs = preferences or fallback
    if not prefs:
        raise ValueError(
            "no mission: pass mission='do_laundry' (one of: " + ", ".join(MISSIONS) + ") or mission_preferences={...}"
        )
    for name, weight in prefs.items():
        lookup(name)
        if weight < 0:
            raise ValueError(f"mission preference for {name!r} must be >= 0, got {weight}")
    total = float(sum(prefs.values()))
    if total <= 0:
        raise ValueError("mission preferences must not all be zero")
    return {name: w / total for name, w in prefs.items() if w > 0}


def default_household_config() -> HouseConfig:
    """The config of :data:`DEFAULT_HOUSEHOLD`, what ``gym.make("Marple-Household-v0")`` builds with no arguments."""
    source = resources.files("marple_gym.envs").joinpath(DEFAULT_HOUSEHOLD)
    with resources.as_file(source) as path:
        return HouseConfig.load(path)


def check_view_options(observation_keys: Sequence[str], render_mode: str | None, render_modes: Sequence[str]) -> None:
    """Raise ValueError for an unknown observation key or render mode."""
    unknown = [k for k in observation_keys if k not in OBSERVATION_KEYS]
    if unknown:
        raise ValueError(f"unknown observation keys {unknown}; choose from {OBSERVATION_KEYS}")
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode must be one of {list(render_modes)}, got {render_mode!r}")


class MarpleEnv(MiniGridAPI, gym.Env):
    """A household gridworld in which one agent carries out a mission.

    ## Description
    A house of up to four rooms (Kitchen, Bedroom, Bathroom, Garage, Study,
    Living Room) joined by doors, furnished from the MARPLE asset library. Every
    reset generates a new house with the env's seeded generator (or rebuilds the
    house a fully explicit ``config`` describes); the house always contains what
    the mission needs. The agent must achieve the mission's subgoals in order;
    skippable subgoals (closing the fridge after taking a snack) are done when
    possible and passed over when not.

    ## Mission Space
    The mission is fixed (``mission="do_laundry"``) or sampled at each reset
    from ``mission_preferences`` (``{"do_laundry": 0.6, "change_outfit": 0.4}``)
    or else from the config's agent's preferences. With none of the three
    (``gym.make("Marple-Household-v0")``) the env builds the default household,
    :data:`DEFAULT_HOUSEHOLD`: any of the ten missions, drawn uniformly at each
    reset, in a house where all ten are feasible. The ``mission`` observation
    is its title, e.g. "do the laundry".

    ## Action Space
    ``Discrete(10)``: 0 turn left, 1 turn right, 2 move forward, 3 pick up, 4 drop,
    5 toggle, 6 open, 7 close, 8 clean, 9 idle. Interactions act on the faced
    cell; an action that cannot apply changes nothing.

    ## Observation Space
    A ``Dict`` with (by default) every key below; ``observation_keys`` selects a
    subset. The shapes shown are those of the default house size.

    <observation space>
    With ``view_size=v`` (odd) the ``image`` is the agent's egocentric
    ``(v, v, 8)`` view instead (MiniGrid's ``agent_view_size``; see
    :mod:`marple_gym.evidence.egocentric`), walls and closed doors hiding what
    is behind them unless ``see_through_walls=True``.

    The ``info`` of every ``reset`` and ``step`` has the same keys, each of one
    type, so vector envs batch them: ``mission`` (str, the mission's name),
    ``subgoal`` (int, the index of the subgoal the agent is on), ``achieved``
    (int, the index of the subgoal the step achieved, or :data:`NOT_ACHIEVED`,
    -1) and ``action_success`` (bool, False when the action could not apply;
    True after ``reset``). With ``scene_graph=True`` it also holds the scene
    graph (a ``networkx.DiGraph``) of the new state; it costs nothing when off.

    ## Rewards
    1 when the mission is complete, plus ``subgoal_reward`` for every subgoal
    achieved (0 by default, i.e. sparse).

    ## Termination
    ``terminated`` when every subgoal is achieved or skipped; ``truncated`` after
    ``max_steps`` steps.

    ## Registered Configurations
    ``Marple-<Mission>-v0`` for the ten missions (``Marple-DoLaundry-v0``, ...)
    and the configurable ``Marple-Household-v0``.
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 8}

    def __init__(
        self,
        mission: str | Mission | None = None,
        mission_preferences: dict[str, float] | None = None,
        config: HouseConfig | dict | str | os.PathLike | None = None,
        max_steps: int = 500,
        subgoal_reward: float = 0.0,
        observation_keys: tuple[str, ...] = OBSERVATION_KEYS,
        scene_graph: bool = False,
        render_mode: str | None = None,
        tile_size: int = 32,
        view_size: int | None = None,
        see_through_walls: bool = False,
    ) -> None:
        if config is None and mission is None and not mission_preferences:
            config = default_household_config()  # any of the ten missions, in the default house
        self.config = HouseConfig.load(config)
        # a Mission object (a training level's) joins the table of names this env knows
        self._own_missions = {mission.name: mission} if isinstance(mission, Mission) else {}
        mission = mission.name if isinstance(mission, Mission) else mission
        self.preferences = self._preferences(mission, mission_preferences)
        self.missions: list[Mission] = [self._lookup(m) for m in self.preferences]
        check_view_options(observation_keys, render_mode, self.metadata["render_modes"])
        self.max_steps = int(max_steps)
        self.subgoal_reward = float(subgoal_reward)
        self.observation_keys = tuple(observation_keys)
        self.with_scene_graph = bool(scene_graph)
        self.render_mode = render_mode
        self.tile_size = int(tile_size)
        self.agent_view_size = None if view_size is None else check_view_size(view_size)
        self.see_through_walls = bool(see_through_walls)
        self.window = None  # the pygame window of render_mode="human", opened on the first frame
        self.action_space = action_space()
        self.observation_space = observation_space(
            self.observation_keys, self.config.height, self.config.width, self.agent_view_size
        )
        self.house: House | None = None
        """The current episode's house (immutable; a reset makes a new one)."""
        self.episode: EpisodeState | None = None
        """Everything that changes in the current episode: the env's one state (:meth:`get_state` copies it)."""
        self._pending_mission: Mission | None = None
        self._scene_graphs: SceneGraphBuilder | None = None  # the current house's, made on the first request

    # ---- setup -------------------------------------------------------------------------------
    def _preferences(self, mission: str | None, preferences: dict[str, float] | None) -> dict[str, float]:
        return resolve_preferences(mission, preferences, self.config.agents[0].mission_preferences, self._lookup)

    def _lookup(self, name: str) -> Mission:
        return self._own_missions.get(name) or get_mission(name)

    def _house_missions(self) -> list[Mission]:
        """The missions each new house must make feasible: every one the env may sample."""
        return self.missions

    # ---- the Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        name = options.get("mission")
        if name is None:
            names = list(self.preferences)
            name = names[weighted_index(self.np_random, list(self.preferences.values()))]
        mission = self._lookup(name)
        self.episode, self._pending_mission = None, mission  # levels build the house for this mission
        world = build_world(self.config, self.np_random, self._house_missions())  # the config checked in __init__
        if world.house.width != self.config.width or world.house.height != self.config.height:
            raise HouseConfigError("config", "generated house does not match the observation space")
        self.house = world.house
        self.episode = EpisodeState.start(world.house, world.state, (mission,))
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(None)

    def step(self, action):
        episode = self.episode
        if episode is None:
            raise RuntimeError("call reset() before step()")
        ((outcome, achieved),) = episode.advance(self.house, (int(action),))
        terminated = episode.progress[0].complete
        reward = (1.0 if terminated else 0.0) + (self.subgoal_reward if achieved is not None else 0.0)
        truncated = not terminated and episode.step_count >= self.max_steps
        obs = self._observation()
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, truncated, self._info(outcome, achieved)

    def render(self):
        """``rgb_array``: the house as an (H * tile_size, W * tile_size, 3) image. ``human``: show it in
        a window with the mission, intent, last sound and step underneath (called by ``step`` and ``reset``)."""
        if self.render_mode is None or self.episode is None:
            return None
        # The rendering package draws with MiniGrid, PIL and pygame: loaded when drawn, so that importing
        # marple_gym (which registers the envs) stays light.
        from marple_gym.rendering.captions import episode_caption
        from marple_gym.rendering.window import render_env

        title = f"MARPLE-Gym: {self.mission.title}"
        return render_env(self, title, lambda: episode_caption(self.house, self.episode))

    def get_keys_to_action(self) -> dict[tuple[int], int]:
        """The keymap of ``marple play`` for ``gymnasium.utils.play.play``: arrows turn and move, p picks up,
        d drops, t toggles, o opens, c closes, x cleans, i idles. Pass ``noop=9`` (idle) to ``play``: its
        default no-op, 0, would turn the agent left on every frame without a key."""
        from marple_gym.rendering.keys import keys_to_action  # the rendering package: see render()

        return keys_to_action()

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None

    # ---- the episode ---------------------------------------------------------------------------
    @property
    def world(self) -> World | None:
        """The current episode's world (its house and state), a view of :attr:`episode` (None before a reset).

        A view of the state the episode advances in place; a reset or :meth:`set_state` makes a new one.
        """
        return None if self.episode is None else World(self.house, self.episode.world)

    @property
    def progress(self) -> MissionProgress | None:
        """The agent's mission progress in the current episode."""
        return None if self.episode is None else self.episode.progress[0]

    @property
    def mission(self) -> Mission | None:
        """The current episode's mission (while a reset builds the house: the mission it will have)."""
        return self._pending_mission if self.episode is None else self.episode.progress[0].mission

    @property
    def last_outcome(self) -> Outcome | None:
        """What the agent's last action did (None before the first step)."""
        return None if self.episode is None else self.episode.last_outcomes[0]

    def current_intent(self) -> str:
        """The intent sentence for the subgoal the agent is on."""
        return observe(self.house, self.episode, 0, ("intent",))["intent"]

    def _observation(self) -> dict[str, Any]:
        return observe(
            self.house,
            self.episode,
            0,
            self.observation_keys,
            view=self.agent_view_size,
            see_through_walls=self.see_through_walls,
        )

    def _info(self, outcome: Outcome | None, achieved: int | None = None) -> dict[str, Any]:
        progress = self.episode.progress[0]
        info: dict[str, Any] = {
            "mission": progress.mission.name,
            "subgoal": progress.index,
            "achieved": NOT_ACHIEVED if achieved is None else int(achieved),
            "action_success": True if outcome is None else bool(outcome.success),
        }
        if self.with_scene_graph:
            info["scene_graph"] = self.scene_graph()
        return info

    def scene_graph(self):
        """The scene graph of the current state (a new ``networkx.DiGraph``)."""
        if self._scene_graphs is None or self._scene_graphs.house is not self.house:
            self._scene_graphs = SceneGraphBuilder(self.house)
        return self._scene_graphs.build(self.episode.world)

    # ---- state for simulation --------------------------------------------------------------------
    def get_state(self) -> EpisodeState:
        """A snapshot of everything that changes during the episode (restore with :meth:`set_state`)."""
        if self.episode is None:
            raise RuntimeError("call reset() before get_state()")
        return self.episode.copy()

    def set_state(self, snapshot: EpisodeState) -> None:
        """Restore a snapshot from :meth:`get_state` of this episode's house: a copy of it becomes the episode
        (the snapshot stays valid; a :attr:`world` view taken before shows the state left behind).

        Raises :class:`~marple_gym.episode.SnapshotMismatchError` for a snapshot of another house.
        """
        if self.episode is None:
            raise RuntimeError("call reset() before set_state()")
        if not isinstance(snapshot, EpisodeState):
            raise TypeError(f"set_state expects an EpisodeState from get_state(), got {type(snapshot).__name__}")
        snapshot.check_house(self.house)
        self.episode = snapshot.copy()


MarpleEnv.__doc__ = fill_observation_space(MarpleEnv.__doc__, HouseConfig().height, HouseConfig().width)
