"""A PettingZoo environment: several agents carrying out their own missions in one house at once."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from marple_gym.envs.household import NOT_ACHIEVED, check_view_options, resolve_preferences
from marple_gym.envs.registration import MAX_EPISODE_STEPS
from marple_gym.envs.spaces import action_index, action_space, observation_space
from marple_gym.episode.observe import OBSERVATION_KEYS, TEXT_KEYS, observe
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.audio import AUDIO
from marple_gym.evidence.egocentric import check_view_size
from marple_gym.generation.config import HouseConfig, HouseConfigError
from marple_gym.generation.generator import generate_world
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.recording.shared_house import IDLE, shared_house_config
from marple_gym.world.house import House
from marple_gym.world.state import NUM_CHANNELS
from marple_gym.world.world import World

MULTIAGENT_KEYS: tuple[str, ...] = OBSERVATION_KEYS + ("heard",)
"""The keys an agent may observe: the single env's, and ``heard``, the sounds of every agent's last action."""
DEFAULT_MISSIONS: tuple[str, ...] = ("do_laundry", "change_outfit")
"""The missions of ``parallel_env()`` and ``env()`` with no arguments: the paper's "Who turned on the laundry?"
pair, ``agent_0`` (role A) doing the laundry and ``agent_1`` (role B) changing its outfit, in a default house."""
ROLES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""The benchmark's roles in agent order: ``agent_0`` is A (the culprit of a whodunit), ``agent_1`` B, ..."""


class MarpleParallelEnv(ParallelEnv):
    """A household gridworld in which N agents act at once, each on its own mission.

    ## Description
    The house of :class:`~marple_gym.envs.MarpleEnv`, generated anew at every
    reset from the env's seeded generator so that every agent's possible
    missions are feasible, with N agents in it. Every step takes one action per
    live agent; they apply in agent order through the one episode transition, so
    the simultaneous-move rules of docs/world.md settle conflicts (the lower
    index wins a cell or an object; a door never closes on an agent in it).

    ## Agents
    ``possible_agents`` are ``agent_0``, ``agent_1``, ... (PettingZoo's style; ``agents=[...]`` names them
    otherwise): ``num_agents=N`` of them, or one per entry of ``missions`` / ``preferences``, or one per
    agent of the config (whose settings they take, in order). ``roles`` maps each to the benchmark's role,
    A, B, ... in agent order. Each has a colour of its own in the pictures.

    ## Missions
    Per agent: ``missions=[name, ...]`` (fixed), ``preferences=[{name: weight},
    ...]`` (sampled at each reset), or the config's ``mission_preferences``. With no
    arguments at all: two agents, :data:`DEFAULT_MISSIONS`, in a default house.

    ## Action Space
    ``Discrete(10)`` per agent, as in the single env.

    ## Observation Space
    Per agent, the single env's ``Dict`` (``observation_keys`` selects keys), or with ``flat=True`` one
    flat ``Box``, what SuperSuit's wrappers and stable-baselines3 take: ``gymnasium.spaces.flatten`` of the
    numeric keys among ``observation_keys`` (text left out; discrete keys one-hot). The ``Dict`` holds
    the vision array with the agent itself marked as agent 1 and the others as
    2, 3, ... (every agent sees itself as the single env's agent), its
    direction, hands, mission title, intent, the sound of its own last action
    and its subgoal codes. With ``"heard"`` among ``observation_keys`` it also
    hears the others: the sound tokens of every agent's last action, its own
    first (``MultiDiscrete``, one entry per agent). ``state()`` is the whole
    vision array in world numbering.

    ## Rewards and termination
    Per agent as in the single env: 1 when its mission is complete (plus
    ``subgoal_reward`` per subgoal achieved), ``terminated`` then; it leaves
    ``agents`` and idles in place (it still blocks its cell). Every live agent is
    ``truncated`` after ``max_steps`` joint steps (``max_cycles``, PettingZoo's name, is the same setting).
    """

    metadata = {
        "name": "marple_household_v0",
        "render_modes": ["human", "rgb_array"],
        "render_fps": 8,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        config: HouseConfig | dict | str | os.PathLike | None = None,
        agents: Sequence[str] | None = None,
        num_agents: int | None = None,
        missions: Sequence[str | None] | None = None,
        preferences: Sequence[Mapping[str, float] | None] | None = None,
        max_steps: int | None = None,
        subgoal_reward: float = 0.0,
        observation_keys: Sequence[str] = OBSERVATION_KEYS,
        render_mode: str | None = None,
        tile_size: int = 32,
        view_size: int | None = None,
        see_through_walls: bool = False,
        max_cycles: int | None = None,
        flat: bool = False,
    ) -> None:
        if (config, agents, num_agents, missions, preferences) == (None,) * 5:
            missions = DEFAULT_MISSIONS
        per_agent = missions if missions is not None else preferences
        if agents is None and num_agents is None and per_agent is not None and not isinstance(per_agent, str):
            num_agents = len(per_agent)  # one agent per mission given
        self.config = _house_config(HouseConfig.load(config), agents, num_agents)
        self.possible_agents: list[str] = [a.name for a in self.config.agents]
        n = len(self.possible_agents)
        self.roles: dict[str, str] = dict(zip(self.possible_agents, ROLES))
        missions = _per_agent("missions", missions, n)
        preferences = _per_agent("preferences", preferences, n)
        self.preferences = [
            _agent_preferences(m, p, spec) for m, p, spec in zip(missions, preferences, self.config.agents)
        ]
        unknown = [k for k in observation_keys if k not in MULTIAGENT_KEYS]
        if unknown:
            raise ValueError(f"unknown observation keys {unknown}; choose from {MULTIAGENT_KEYS}")
        check_view_options([k for k in observation_keys if k != "heard"], render_mode, self.metadata["render_modes"])
        self.max_steps = _step_limit(max_steps, max_cycles)
        self.subgoal_reward = float(subgoal_reward)
        self.observation_keys = tuple(observation_keys)
        self.render_mode = render_mode
        self.tile_size = int(tile_size)
        self.view_size = None if view_size is None else check_view_size(view_size)
        self.see_through_walls = bool(see_through_walls)
        space = observation_space(
            [k for k in self.observation_keys if k != "heard"], self.config.height, self.config.width, self.view_size
        )
        if "heard" in self.observation_keys:
            heard = spaces.MultiDiscrete([len(AUDIO)] * n)
            space = spaces.Dict({k: heard if k == "heard" else space[k] for k in self.observation_keys})
        self.flat = bool(flat)
        self.numeric_space: spaces.Dict | None = None
        """With ``flat``: the ``Dict`` of numeric keys each flat observation flattens (in the ``Dict``'s key order,
        alphabetical); ``gymnasium.spaces.unflatten(env.numeric_space, obs)`` gives the keys back."""
        if self.flat:
            numeric = [k for k in self.observation_keys if k not in TEXT_KEYS]
            if not numeric:
                raise ValueError(f"flat=True needs a numeric observation key, got only {list(self.observation_keys)}")
            self.numeric_space = spaces.Dict({k: space[k] for k in numeric})
            space = spaces.flatten_space(self.numeric_space)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self.state_space = spaces.Box(0, 255, (self.config.height, self.config.width, NUM_CHANNELS), dtype=np.uint8)
        self.agents: list[str] = []
        self.house: House | None = None
        self.episode: EpisodeState | None = None  # the one state of the current episode
        self.window = None  # the pygame window of render_mode="human", opened on the first frame
        self._np_random: np.random.Generator | None = None

    @property
    def world(self) -> World | None:
        """The current episode's world (its house and state), a view of :attr:`episode` (None before a reset)."""
        return None if self.episode is None else World(self.house, self.episode.world)

    # ---- spaces ------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ---- the PettingZoo API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new house and new missions; ``options={"missions": {agent: name}}`` fixes some agents' missions."""
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        chosen = dict((options or {}).get("missions", {}))
        stray = sorted(set(chosen) - set(self.possible_agents))
        if stray:
            raise ValueError(f"options['missions'] names unknown agents {stray}; the agents are {self.possible_agents}")
        rng = self._np_random
        picked: list[Mission] = []
        for name, prefs in zip(self.possible_agents, self.preferences):
            # Drawn in agent order as the single env draws its one mission, so N = 1 reproduces it exactly.
            names = list(prefs)
            mission = chosen.get(name) or names[int(rng.choice(len(names), p=list(prefs.values())))]
            picked.append(get_mission(mission))
        possible = [m for prefs in self.preferences for m in prefs] + list(chosen.values())
        house_missions = [get_mission(m) for m in dict.fromkeys(possible)]
        world = generate_world(self.config, rng, house_missions)
        if world.house.width != self.config.width or world.house.height != self.config.height:
            raise HouseConfigError("config", "generated house does not match the observation space")
        self.house = world.house
        self.episode = EpisodeState.start(world.house, world.state, tuple(picked))
        self.agents = list(self.possible_agents)
        if self.render_mode == "human":
            self.render()
        return self._observations(), {a: self._info(i, None, None) for i, a in enumerate(self.agents)}

    def step(self, actions: Mapping[str, int]):
        """One action per live agent; finished agents idle. Returns per-agent dicts of the live agents."""
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        stray = sorted(set(actions) - set(self.agents))
        missing = [a for a in self.agents if a not in actions]
        if stray or missing:
            raise ValueError(
                f"step needs one action for each live agent {self.agents}; "
                + (f"missing {missing}" if missing else f"got actions for {stray}, which are not live")
            )
        live = list(self.agents)
        joint = [action_index(actions[a], f"{a}'s action") if a in actions else IDLE for a in self.possible_agents]
        steps = self.episode.advance(self.house, joint)
        index = {a: i for i, a in enumerate(self.possible_agents)}
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        out_of_time = self.episode.step_count >= self.max_steps
        for agent in live:
            i = index[agent]
            outcome, achieved = steps[i]
            done = self.episode.progress[i].complete
            rewards[agent] = (1.0 if done else 0.0) + (self.subgoal_reward if achieved is not None else 0.0)
            terminations[agent] = done
            truncations[agent] = out_of_time and not done
            infos[agent] = self._info(i, outcome, achieved)
        observations = self._observations(live)
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """The whole vision array, agents numbered as in the world (agent ``i`` is id ``i + 1``)."""
        if self.episode is None:
            raise RuntimeError("call reset() before state()")
        return self.episode.world.grid.copy()

    def render(self):
        """``rgb_array``: the house with every agent in its own colour, holding what it holds. ``human``: the
        same in a window, with each agent's mission and intent underneath."""
        from marple_gym.rendering.window import render_env  # pygame: loaded when rendering is asked for

        return render_env(self, f"MARPLE-Gym: {len(self.possible_agents)} agents", self._caption)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None

    # ---- per agent ---------------------------------------------------------------------------------
    def _observations(self, agents: Sequence[str] | None = None) -> dict[str, Any]:
        index = {a: i for i, a in enumerate(self.possible_agents)}
        observations = {
            agent: observe(
                self.house,
                self.episode,
                index[agent],
                self.observation_keys,
                view=self.view_size,
                see_through_walls=self.see_through_walls,
            )
            for agent in (self.agents if agents is None else agents)
        }
        if self.flat:
            numeric = self.numeric_space
            return {a: spaces.flatten(numeric, {k: obs[k] for k in numeric}) for a, obs in observations.items()}
        return observations

    def _info(self, i: int, outcome, achieved: int | None) -> dict[str, Any]:
        progress = self.episode.progress[i]
        return {
            "mission": progress.mission.name,
            "subgoal": progress.index,
            "achieved": NOT_ACHIEVED if achieved is None else int(achieved),
            "action_success": True if outcome is None else bool(outcome.success),
        }

    def _caption(self) -> list[str]:
        house = self.house
        lines = [f"Step {self.episode.step_count}"]
        for i, (name, color) in enumerate(zip(house.agent_names, house.agent_colors)):
            obs = observe(house, self.episode, i, ("mission", "intent"))
            lines.append(f"{name} ({color}): {obs['mission']}. {obs['intent']}")
        return lines


def _house_config(config: HouseConfig, agents: Sequence[str] | None, num_agents: int | None) -> HouseConfig:
    """The config with the agents asked for (named ones, a number of them, or the config's own), named
    ``agent_0``, ``agent_1``, ... unless ``agents`` names them."""
    if agents is not None and num_agents is not None and len(agents) != num_agents:
        raise ValueError(f"agents names {len(agents)} agents but num_agents is {num_agents}")
    if agents is not None:
        names = [str(a) for a in agents]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"agents must be distinct names, at least one, got {list(agents)}")
    else:
        if num_agents is not None and (
            isinstance(num_agents, bool) or not isinstance(num_agents, int) or num_agents < 1
        ):
            raise ValueError(f"num_agents must be a positive integer, got {num_agents!r}")
        names = [f"agent_{i}" for i in range(num_agents or len(config.agents))]
    config = shared_house_config(config, len(names))
    return replace(config, agents=[replace(spec, name=n) for spec, n in zip(config.agents, names)])


def _step_limit(max_steps: int | None, max_cycles: int | None) -> int:
    """The joint steps after which every live agent is truncated: ``max_steps``, or PettingZoo's ``max_cycles``."""
    if max_steps is not None and max_cycles is not None and max_steps != max_cycles:
        raise ValueError(f"max_steps ({max_steps}) and max_cycles ({max_cycles}) are one setting: give one of them")
    limit = next((v for v in (max_steps, max_cycles) if v is not None), MAX_EPISODE_STEPS)
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"max_steps (max_cycles) must be a positive integer, got {limit!r}")
    return int(limit)


def _agent_preferences(mission: str | None, preferences: Mapping[str, float] | None, spec) -> dict[str, float]:
    try:
        return resolve_preferences(mission, preferences, spec.mission_preferences)
    except ValueError as error:
        hint = " (for many agents: missions=[...] or preferences=[{...}, ...], one entry per agent)"
        raise ValueError(f"agent {spec.name}: {error}{hint}") from None


def _per_agent(what: str, values: Sequence | None, n: int) -> list:
    if values is None:
        return [None] * n
    if isinstance(values, (str, Mapping)) or len(values) != n:
        raise ValueError(f"{what} must be a list with one entry per agent ({n}), got {values!r}")
    return list(values)


def parallel_env(**kwargs: Any) -> MarpleParallelEnv:
    """The multi-agent env in PettingZoo's Parallel API (arguments: :class:`MarpleParallelEnv`)."""
    return MarpleParallelEnv(**kwargs)


class MarpleAECEnv(parallel_to_aec_wrapper):
    """PettingZoo's AEC form of :class:`MarpleParallelEnv` (its ``parallel_to_aec``), refusing a bad action at the
    step that gives it, naming the agent. The converter holds each action until every live agent has chosen, so a
    bad one would fail only at the next agent's step, and at every step after it until a reset."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):  # a finished agent's action is None
            action = action_index(action, f"{agent}'s action")
        super().step(action)


def env(**kwargs: Any) -> AECEnv:
    """The multi-agent env in PettingZoo's AEC API: agents act one after another, their actions applied together
    once every live agent has chosen (:class:`MarpleAECEnv`, in PettingZoo's order-enforcing wrapper)."""
    return OrderEnforcingWrapper(MarpleAECEnv(parallel_env(**kwargs)))
