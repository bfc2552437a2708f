"""Observations: every modality of an episode, for every consumer, built in one place.

The Gymnasium env, the dataset recorder and the viewers all read an episode
through :func:`observe`, so what an agent saw while a dataset was recorded is
exactly what the env shows when the same actions are replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.audio import audio_token
from marple_gym.evidence.egocentric import egocentric_view
from marple_gym.evidence.language import intent
from marple_gym.missions.mission import Subgoal, subgoal_codes
from marple_gym.missions.progress import MissionProgress
from marple_gym.world.house import House
from marple_gym.world.state import CH_AGENT

OBSERVATION_KEYS: tuple[str, ...] = ("image", "direction", "carrying", "mission", "intent", "audio", "subgoal")
"""The env's modalities, in the order of its observation space."""
TEXT_KEYS: tuple[str, ...] = ("mission", "intent")
"""The modalities that are text (RL code often leaves them out; see marple_gym.envs.rl_wrappers)."""
RECORD_KEYS: tuple[str, ...] = ("image", "position", "direction", "carrying", "subgoal_index", "audio")
"""What a recorded trajectory stores per step (the mission's index is the recorder's own)."""
ALL_KEYS: tuple[str, ...] = OBSERVATION_KEYS + ("position", "subgoal_index", "heard")

_NO_MISSION = ""


@lru_cache(maxsize=512)
def _intent(subgoal: Subgoal | None) -> str:
    return intent(subgoal)


@lru_cache(maxsize=256)
def self_first_ids(index: int) -> np.ndarray:
    """The agent-id channel's relabelling for world agent ``index``: 0 stays 0, ``index + 1`` becomes 1, the
    ids below it move up by one, those above stay (a read-only lookup table indexed by id, 256 uint8 entries)."""
    ids = np.arange(256, dtype=np.uint8)
    ids[1 : index + 2] = np.roll(ids[1 : index + 2], -1)
    ids.flags.writeable = False
    return ids


def _self_first(image: np.ndarray, index: int) -> np.ndarray:
    """``image`` (a new array) with its agent-id channel seen from world agent ``index``."""
    if index:
        channel = image[..., CH_AGENT]
        channel[...] = self_first_ids(index)[channel]
    return image


def observe(
    house: House,
    episode: EpisodeState,
    agent: int = 0,
    keys: Sequence[str] = OBSERVATION_KEYS,
    progress: MissionProgress | None = None,
    view: int | None = None,
    see_through_walls: bool = False,
) -> dict[str, Any]:
    """The observation of acting agent ``agent`` (an index into ``episode.agents``).

    ``keys`` name the modalities: ``image`` (the (H, W, 8) vision grid, a copy),
    ``direction``, ``carrying`` (object type codes in both hands, 0 for empty),
    ``mission`` (its title), ``intent`` (the current subgoal's sentence),
    ``audio`` (the sound token of the agent's last action), ``subgoal`` (the
    current subgoal's (action, object, furniture, room) codes, all 0 once
    complete), ``position`` ((x, y)), ``subgoal_index`` (the current
    subgoal's index, -1 once complete or without a mission) and ``heard``
    (the sound tokens of every acting agent's last action, this agent's
    first, then the others' in order: what it hears in a shared house). ``progress``
    overrides the episode's tracker of this agent (a recorded planner tracks
    its mission itself). With ``view`` (odd), ``image`` is the agent's
    egocentric (view, view, 8) window (:mod:`marple_gym.evidence.egocentric`).

    In a house with several agents every agent sees itself as the single env's
    agent is seen: its ``image`` marks its own cell with agent id 1 and the
    others with ids 2, 3, ... in world order (:func:`self_first_ids`). For world
    agent 0 this is the world's own numbering, so the grid is copied unchanged.
    """
    state = episode.world
    index = episode.agents[agent]
    tracker = episode.progress[agent] if progress is None else progress
    obs: dict[str, Any] = {}
    for key in keys:
        if key == "image" and view is not None:
            obs[key] = _self_first(egocentric_view(state, index, view, see_through_walls), index)
        elif key == "image":
            obs[key] = _self_first(state.grid.copy(), index)
        elif key == "direction":
            obs[key] = int(state.agent_dir[index])
        elif key == "carrying":
            types = house.obj_type_list
            obs[key] = np.array([types[o] if o >= 0 else 0 for o in state.carrying[index].tolist()], dtype=np.int64)
        elif key == "mission":
            obs[key] = _NO_MISSION if tracker is None else tracker.mission.title
        elif key == "intent":
            obs[key] = _intent(None if tracker is None else tracker.current)
        elif key == "audio":
            obs[key] = audio_token(episode.last_outcomes[agent], house, state)
        elif key == "position":
            obs[key] = tuple(state.agent_pos[index].tolist())
        elif key == "subgoal":
            obs[key] = subgoal_codes(None if tracker is None else tracker.current)
        elif key == "subgoal_index":
            obs[key] = -1 if tracker is None or tracker.complete else tracker.index
        elif key == "heard":
            order = [agent] + [j for j in range(len(episode.agents)) if j != agent]
            obs[key] = np.array([audio_token(episode.last_outcomes[j], house, state) for j in order], dtype=np.int64)
        else:
            raise KeyError(f"unknown observation key {key!r}; choose from {ALL_KEYS}")
    return obs
