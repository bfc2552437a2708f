"""Hand-built expectation trials: stages laid out cell by cell, agents with rewards chosen by hand."""

from __future__ import annotations

import numpy as np

from marple_gym.expectations import stages
from marple_gym.expectations.trial import Episode, Trial, TrialKey
from marple_gym.generation.stage import Stage, StageRoom
from marple_gym.planner.utility import Preferences

NORTH = 3


def hand_stage(objects, chairs=(), agent=(6, 8, NORTH), occluder=(), room="LivingRoom") -> Stage:
    """A 13 x 10 house: one room, floor x 1..11, y 1..8; the agent bottom middle facing north by default."""
    return Stage(
        13, 10, (StageRoom(room, (1, 1), (11, 8)),), obstacles=chairs, objects=objects, agent=agent, occluder=occluder
    )


def agent_of(rewards: dict[str, float], scale: float = 1.0) -> Preferences:
    return Preferences(rewards, stages.costs(scale), stages.BETA)


def hand_trial(scenario: str, kind: str, agent, familiarisation, expected, surprising) -> Trial:
    return Trial(TrialKey(scenario, kind, "test", 0), 0, agent, tuple(familiarisation), expected, surprising)


def chosen(stage: Stage, agent: Preferences, seed: int = 0) -> Episode:
    """The agent's best choice on ``stage``."""
    return stages.choosing(stage, agent, np.random.default_rng(seed))[0]


def going_for(stage: Stage, agent: Preferences, kind: str, seed: int = 0) -> Episode:
    return stages.going_for(stage, agent, kind, np.random.default_rng(seed))
