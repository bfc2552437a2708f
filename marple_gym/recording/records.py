"""Episode records: the one schema shared by the gym, agents and evaluation.

A :class:`Trajectory` is one agent's episode in one house. Per observation
``t = 0..T`` it holds the vision array, the agent's position and direction, the
object types in its hands, the index of its current subgoal (which gives the
intent sentence) and the audio token it just made; per action ``t = 0..T-1``
the action and what it did (success, furniture, object, new state value,
which give the testimony). Per episode it holds the house (a fully explicit
config: the exact house can be rebuilt), the missions, where each subgoal
started and ended, and the step at which each mission's query state was
reached. The scene graph of any step is rebuilt by replaying the actions.

A :class:`WhodunitEpisode` holds the suspects' trajectories in copies of one
house (two in the paper's scenarios) and the query state; the culprit is the
suspect that produced it first (:func:`first_producer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import networkx as nx
import numpy as np

from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.language import intent, testimony
from marple_gym.evidence.scene_graph import scene_graph
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.missions.mission import Subgoal, get_mission
from marple_gym.missions.scenarios import ScenarioError, get_scenario, question_for
from marple_gym.world.actions import Outcome
from marple_gym.world.world import World


@dataclass(frozen=True)
class SubgoalSpan:
    """Steps ``start <= t < end`` during which a subgoal was the current one."""

    mission: int  # index into Trajectory.missions
    subgoal: int
    start: int
    end: int
    achieved: bool


@dataclass(eq=False)
class Trajectory:
    """One agent's recorded episode (see module docs for the fields' alignment)."""

    house: HouseConfig
    house_id: str
    seed: int
    agent: str
    missions: tuple[str, ...]
    vision: np.ndarray  # (T+1, H, W, 8) uint8
    position: np.ndarray  # (T+1, 2) int16
    direction: np.ndarray  # (T+1,) int8
    carrying: np.ndarray  # (T+1, 2) int16 object type codes, 0 = empty hand
    mission_index: np.ndarray  # (T+1,) int8 index into missions (-1 once done)
    subgoal: np.ndarray  # (T+1,) int16 current subgoal index (-1 once done)
    audio: np.ndarray  # (T+1,) int16 token of the action that led to this observation
    actions: np.ndarray  # (T,) int8
    outcomes: np.ndarray  # (T, 4) int16: success, furniture, object, value
    spans: tuple[SubgoalSpan, ...] = ()
    query_steps: dict[str, int] = field(default_factory=dict)
    """Mission name -> number of actions after which its query state was reached."""

    @property
    def length(self) -> int:
        """T: the number of actions."""
        return len(self.actions)

    def __repr__(self) -> str:
        """One line (the arrays' shapes, not their contents)."""
        rows, cols = self.vision.shape[1:3]
        return (
            f"Trajectory(agent={self.agent!r}, missions={list(self.missions)}, house={self.house_id!r}, "
            f"seed={self.seed}, steps={self.length}, grid={rows}x{cols}, subgoals={len(self.spans)})"
        )

    def subgoal_at(self, t: int) -> Subgoal | None:
        """The subgoal the agent worked on at observation ``t`` (None once done)."""
        m, s = int(self.mission_index[t]), int(self.subgoal[t])
        return None if m < 0 or s < 0 else get_mission(self.missions[m]).subgoals[s]

    def intent(self, t: int) -> str:
        """The intent sentence at observation ``t``."""
        return intent(self.subgoal_at(t))

    @cached_property
    def intents(self) -> list[str]:
        return [self.intent(t) for t in range(self.length + 1)]

    def outcome(self, t: int) -> Outcome:
        """What action ``t`` did."""
        success, fur, obj, value = self.outcomes[t].tolist()
        x, y = self.position[t].tolist()
        return Outcome(int(self.actions[t]), bool(success), fur, obj, value, x, y)

    @cached_property
    def testimonies(self) -> list[str]:
        """Testimony at each observation: the latest state change so far."""
        world = self.initial_world()
        out = [testimony(None, world.house)]
        for ((outcome, _),) in replay(
            world.house, EpisodeState.start(world.house, world.state, (None,)), self.actions[: self.length]
        ):
            out.append(testimony(outcome, world.house) if changes_state(outcome) else out[-1])
        return out

    # ---- rebuilding the world -------------------------------------------------------------------
    def episode_config(self) -> HouseConfig:
        """The house with this agent at its recorded start: builds the episode's first state."""
        x, y = self.position[0].tolist()
        color = self.house.agents[0].color if self.house.agents else "red"
        return replace(self.house, agents=[AgentSpec(self.agent, (x, y), int(self.direction[0]), color)])

    def initial_world(self) -> World:
        return generate_world(self.episode_config(), np.random.default_rng(0))

    def world_at(self, t: int) -> World:
        """The world after ``t`` actions (replayed through the world's rules)."""
        world = self.initial_world()
        for _ in replay(world.house, EpisodeState.start(world.house, world.state, (None,)), self.actions[:t]):
            pass
        return world

    def scene_graph(self, t: int) -> nx.DiGraph:
        world = self.world_at(t)
        return scene_graph(world.house, world.state)

    def evidence_until(self, tau: int) -> Trajectory:
        """The trajectory cut after observation ``tau`` (nothing later is kept)."""
        tau = max(0, min(int(tau), self.length))
        return Trajectory(
            house=self.house,
            house_id=self.house_id,
            seed=self.seed,
            agent=self.agent,
            missions=self.missions,
            vision=self.vision[: tau + 1],
            position=self.position[: tau + 1],
            direction=self.direction[: tau + 1],
            carrying=self.carrying[: tau + 1],
            mission_index=self.mission_index[: tau + 1],
            subgoal=self.subgoal[: tau + 1],
            audio=self.audio[: tau + 1],
            actions=self.actions[:tau],
            outcomes=self.outcomes[:tau],
            spans=tuple(s for s in self.spans if s.start <= tau),
            query_steps={k: v for k, v in self.query_steps.items() if v <= tau},
        )


def changes_state(outcome: Outcome) -> bool:
    """Did the action change the state of something (the actions a testimony reports)?"""
    return outcome.success and outcome.action >= 3 and outcome.action != 9


EVIDENCE_POINTS = 11
"""Answers are asked for at tau = 0, T/10, ..., T (paper section 6.1)."""


def evidence_steps(horizon: int, points: int = EVIDENCE_POINTS) -> list[int]:
    """``points`` evenly spaced steps from 0 to ``horizon`` inclusive, rounded half up."""
    return [int(k * horizon / (points - 1) + 0.5) for k in range(points)]


def first_producer(trajectories: Sequence[Trajectory], query_mission: str, shared: bool = False) -> int | None:
    """The index of the trajectory that reached ``query_mission``'s query state first; None when none did.

    In copies of a house, suspects that reach it at the same step tie (None: no one culprit). In a shared
    house (``shared``) agents act in index order within a joint step, so the lower index was first.
    """
    steps = [tr.query_steps.get(query_mission) for tr in trajectories]
    reached = [s for s in steps if s is not None]
    if not reached or (not shared and reached.count(min(reached)) > 1):
        return None
    return steps.index(min(reached))


@dataclass(eq=False)
class WhodunitEpisode:
    """The suspects' trajectories in copies of one house, and the whodunit question.

    ``culprit`` indexes ``trajectories``; ``horizon`` is T, the number of actions
    after which the culprit reached the query state.
    """

    scenario: str
    query_mission: str
    trajectories: tuple[Trajectory, ...]
    culprit: int = 0
    episode_id: str = ""
    """Stable id within its dataset, e.g. ``laundry/h03/017`` (scenario, test house, pair)."""
    shared: bool = False
    """The suspects acted at once in one house (their trajectories are aligned on its joint steps, each
    ``house`` holds every agent at its start) rather than each in a copy of it."""

    def __repr__(self) -> str:
        agents = ", ".join(f"{chr(ord('A') + i)}={tr!r}" for i, tr in enumerate(self.trajectories))
        return (
            f"WhodunitEpisode({self.episode_id or self.scenario!r}, question={self.question!r}, "
            f"culprit={self.culprit}, {agents})"
        )

    @property
    def suspects(self) -> int:
        """N: how many agents are suspected."""
        return len(self.trajectories)

    @property
    def query(self) -> Subgoal:
        return get_mission(self.query_mission).query_subgoal

    @property
    def question(self) -> str:
        """The whodunit question, e.g. "Who turned on the laundry?"."""
        try:
            return get_scenario(self.scenario).question
        except ScenarioError:
            return question_for(self.query)

    @property
    def horizon(self) -> int:
        return self.trajectories[self.culprit].query_steps[self.query_mission]

    def evidence_steps(self, points: int = EVIDENCE_POINTS) -> list[int]:
        """The evidence cut-offs tau = 0, T/10, ..., T (rounded half up) at which answers are asked for."""
        return evidence_steps(self.horizon, points)
