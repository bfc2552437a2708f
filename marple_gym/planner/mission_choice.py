"""Mission choice, the planner's high level: which mission an agent carries out, and how far it got in one.

An agent is given a mission, or preferences over missions from which it draws one (:func:`draw_mission`); an
infeasible mission is dropped and another drawn, at most :data:`MAX_MISSION_ATTEMPTS` in all. A
:class:`MissionHistory` (:func:`follow_history`: observed actions replayed) lets a planner resume a mission
part-way: the basis of a perfect agent model for simulation inference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.missions.mission import Mission, get_mission
from marple_gym.missions.progress import MissionProgress
from marple_gym.planner.binding import Binding, bind
from marple_gym.world.sampling import weighted_index
from marple_gym.world.world import World

MAX_MISSION_ATTEMPTS = 10
"""Most missions an agent starts or finds infeasible before it is done, without success."""


@dataclass
class MissionHistory:
    """How far an agent got in a mission, and which furniture its subgoals used."""

    progress: MissionProgress
    binding: Binding = field(default_factory=dict)


def follow_history(start: World, actions, mission: str | Mission, agent: int = 0) -> MissionHistory:
    """Replay observed actions from ``start`` (a copy is stepped) and track a mission's progress.

    Lets a planner resume a mission part-way: the basis of a perfect agent model
    for simulation inference.
    """
    house = start.house
    mission = mission if isinstance(mission, Mission) else get_mission(mission)
    binding: Binding = {}
    # The episode transition steps the world and updates the mission's progress, as env.step does.
    episode = EpisodeState.start(house, start.state.copy(), (mission,), (agent,))
    episode.skip_infeasible(house)
    for ((outcome, achieved),) in replay(house, episode, actions):
        if achieved is not None:
            bind(binding, mission.subgoals[achieved], outcome)
    return MissionHistory(episode.progress[0], binding)


def mission_preferences(
    mission: str | Mission | None, preferences: Mapping[str, float] | None
) -> tuple[dict[str, Mission], dict[str, float]]:
    """The missions an agent may carry out by name, and the probability of drawing each: ``mission`` alone, or
    ``preferences`` normalised (those of weight 0 left out)."""
    if mission is not None:
        chosen = mission if isinstance(mission, Mission) else get_mission(mission)
        return {chosen.name: chosen}, {chosen.name: 1.0}
    if not preferences:
        raise ValueError("give a mission or mission preferences")
    weights = np.array(list(preferences.values()), dtype=float)
    if (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"mission preferences must be >= 0 and not all zero, got {preferences}")
    known = {n: get_mission(n) for n in preferences}
    return known, {n: w for n, w in zip(preferences, weights / weights.sum()) if w > 0}


def draw_mission(rng: np.random.Generator, preferences: Mapping[str, float]) -> str:
    """A mission's name drawn from ``preferences`` (probabilities by name)."""
    names = list(preferences)
    return names[weighted_index(rng, list(preferences.values()))]
