"""Observations: every modality of an episode, or of a batch of episodes, for every consumer, built in one place.

The Gymnasium envs (single, multi-agent and vector), the dataset recorder and
the viewers all read episodes through :func:`observe`, so what an agent saw
while a dataset was recorded is exactly what the env shows when the same
actions are replayed, and a vector env's sub-env sees what the single env would.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from marple_gym.evidence.audio import SILENCE, audio_token, audio_tokens
from marple_gym.evidence.egocentric import egocentric_view
from marple_gym.evidence.language import intent
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.mission import Mission, Subgoal, subgoal_codes
from marple_gym.world.batched_state import BatchedState
from marple_gym.world.house import House
from marple_gym.world.house_batch import HouseBatch
from marple_gym.world.state import CH_AGENT, WorldState


class Observed(Protocol):
    """What :func:`observe` reads of one episode (:class:`~marple_gym.episode.state.EpisodeState`) or of a batch
    (:class:`~marple_gym.episode.batch.EpisodeBatch`, whose fields have a leading episode axis)."""

    world: WorldState | BatchedState
    agents: tuple[int, ...]
    progress: tuple[Any, ...]
    last_outcomes: tuple[Any, ...]
    step_count: Any


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


def _texts_of(subgoals: Sequence[Subgoal | None]) -> tuple[tuple[str, ...], tuple[np.ndarray, ...]]:
    """The intent sentence and the subgoal codes of each of ``subgoals`` (each a read-only (4,) array)."""
    codes = np.stack([subgoal_codes(sg) for sg in subgoals])
    codes.flags.writeable = False
    return tuple(_intent(sg) for sg in subgoals), tuple(codes)


_MISSION_TEXTS: dict[int, tuple[Mission, tuple[tuple[str, ...], tuple[np.ndarray, ...]]]] = {}


def _mission_texts(mission: Mission) -> tuple[tuple[str, ...], tuple[np.ndarray, ...]]:
    """A mission's intent sentence and subgoal codes at each subgoal index, the last entry for "done": every step
    observes them, and they change only with the subgoal."""
    # Looked up by identity (hashing a mission is a Python call, and every step asks); each entry keeps its mission
    # alive, so its id stays its own.
    entry = _MISSION_TEXTS.get(id(mission))
    if entry is None or entry[0] is not mission:
        if len(_MISSION_TEXTS) >= 256:  # levels make missions of their own: keep the table small
            _MISSION_TEXTS.clear()
        entry = _MISSION_TEXTS[id(mission)] = (mission, _texts_of((*mission.subgoals, None)))
    return entry[1]


_NO_TEXTS = _texts_of((None,))
"""The texts of an agent without a mission (read at index -1)."""


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


def _image(state: WorldState, index: int, view: int | None, see_through_walls: bool) -> np.ndarray:
    """World agent ``index``'s ``image``: a copy of the grid, or its egocentric window, seen from its own place."""
    image = state.grid.copy() if view is None else egocentric_view(state, index, view, see_through_walls)
    return _self_first(image, index) if index else image


def _carrying(house: House, state: WorldState, index: int) -> np.ndarray:
    """The object type codes in world agent ``index``'s hands (an empty hand, -1, reads the codes' last entry,
    0); ``take`` costs a third less than a fancy index here."""
    return house.obj_codes.take(state.carrying[index])


def observe(
    house: House | HouseBatch,
    episode: Observed,
    agent: int = 0,
    keys: Sequence[str] = OBSERVATION_KEYS,
    view: int | None = None,
    see_through_walls: bool = False,
    **batch_options: Any,
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
    first, then the others' in order: what it hears in a shared house); the
    mission's modalities come from the episode's progress of the agent (a
    recorded planner's own, :meth:`HierarchicalPlanner.act_in`). With ``view`` (odd), ``image`` is the agent's
    egocentric (view, view, 8) window (:mod:`marple_gym.evidence.egocentric`).

    In a house with several agents every agent sees itself as the single env's
    agent is seen: its ``image`` marks its own cell with agent id 1 and the
    others with ids 2, 3, ... in world order (:func:`self_first_ids`). For world
    agent 0 this is the world's own numbering, so the grid is copied unchanged.

    For an :class:`~marple_gym.episode.batch.EpisodeBatch` every modality gets a
    leading episode axis (texts are tuples of strings); ``copy=False`` makes
    ``image`` the batch's grid itself rather than a copy (no ``view``).
    """
    if not isinstance(episode.world, WorldState):
        return _observe_batch(house, episode, agent, keys, **batch_options)
    if batch_options:
        raise TypeError(f"options {sorted(batch_options)} are for a batch of episodes")
    state = episode.world
    index = episode.agents[agent]
    tracker = episode.progress[agent]
    if tracker is None:
        title, (intents, codes), step = _NO_MISSION, _NO_TEXTS, -1
    else:
        mission = tracker.mission
        title, (intents, codes), step = mission.title, _mission_texts(mission), tracker.index
    if keys == OBSERVATION_KEYS:  # the env's own observation, every step: one dict, no loop over the keys
        return {
            "image": _image(state, index, view, see_through_walls),
            "direction": state.agent_dir.item(index),
            "carrying": _carrying(house, state, index),
            "mission": title,
            "intent": intents[step],
            "audio": audio_token(episode.last_outcomes[agent], house, state),
            "subgoal": codes[step].copy(),
        }
    obs: dict[str, Any] = {}
    for key in keys:
        if key == "image":
            obs[key] = _image(state, index, view, see_through_walls)
        elif key == "direction":
            obs[key] = state.agent_dir.item(index)
        elif key == "carrying":
            obs[key] = _carrying(house, state, index)
        elif key == "mission":
            obs[key] = title
        elif key == "intent":
            obs[key] = intents[step]
        elif key == "audio":
            obs[key] = audio_token(episode.last_outcomes[agent], house, state)
        elif key == "position":
            obs[key] = tuple(state.agent_pos[index].tolist())
        elif key == "subgoal":
            obs[key] = codes[step].copy()
        elif key == "subgoal_index":
            obs[key] = -1 if tracker is None or tracker.complete else tracker.index
        elif key == "heard":
            order = [agent] + [j for j in range(len(episode.agents)) if j != agent]
            obs[key] = np.array([audio_token(episode.last_outcomes[j], house, state) for j in order], dtype=np.int64)
        else:
            raise KeyError(f"unknown observation key {key!r}; choose from {ALL_KEYS}")
    return obs


@lru_cache(maxsize=32)
def _texts(table: MissionTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A mission table's titles (mission,), intents (mission, subgoal index + done) and subgoal codes
    (mission, subgoal index + done, 4; all 0 once done), for observing many episodes with a few gathers."""
    width = int(table.length.max()) + 1
    titles = np.array([m.title for m in table.missions], dtype=object)
    intents = np.full((len(table.missions), width), _intent(None), dtype=object)
    codes = np.zeros((len(table.missions), width, 4), dtype=np.int64)
    for i, m in enumerate(table.missions):
        sentences, rows = _mission_texts(m)
        intents[i, : len(m.subgoals)] = sentences[:-1]
        codes[i, : len(m.subgoals)] = np.stack(rows[:-1])
    return titles, intents.reshape(-1), codes.reshape(-1, 4)


def _observe_batch(
    house: House | HouseBatch,
    episodes: Observed,
    agent: int,
    keys: Sequence[str],
    copy: bool = True,
) -> dict[str, Any]:
    """:func:`observe` for every episode of a batch."""
    batch = episodes.world
    index = episodes.agents[agent]
    tracker = episodes.progress[agent]
    n = len(batch)
    if tracker is None and any(k in ("mission", "intent", "subgoal", "subgoal_index") for k in keys):
        raise ValueError("observing missions needs the batch's mission progress (start it with a MissionTable)")
    obs: dict[str, Any] = {}
    for key in keys:
        if key == "image":
            obs[key] = _self_first(batch.grid.copy(), index) if copy or index else batch.grid
        elif key == "direction":
            obs[key] = batch.agent_dir[:, index].astype(np.int64)
        elif key == "carrying":
            held = batch.carrying[:, index].astype(np.int64)
            if isinstance(house, House):
                obs[key] = house.obj_codes[held]
            else:
                obs[key] = house.obj_code(np.arange(n)[:, None], held)
        elif key in ("mission", "intent"):
            text = _text_rows(tracker)
            obs[key] = text.titles if key == "mission" else text.intents
        elif key == "subgoal":
            titles, _, codes = _texts(tracker.table)
            # One row gather from the flattened (mission x subgoal) table: a 2-index fancy gather is slower.
            obs[key] = np.take(codes, tracker.mission * (len(codes) // len(titles)) + tracker.index, axis=0)
        elif key == "audio":
            obs[key] = _batch_audio(house, episodes, agent)
        elif key == "position":
            obs[key] = batch.agent_pos[:, index].astype(np.int64)
        elif key == "subgoal_index":
            obs[key] = np.where(tracker.complete, -1, tracker.index)
        elif key == "heard":
            order = [agent] + [j for j in range(len(episodes.agents)) if j != agent]
            obs[key] = np.stack([_batch_audio(house, episodes, j) for j in order], axis=1)
        else:
            raise KeyError(f"unknown observation key {key!r}; choose from {ALL_KEYS}")
    return obs


class _TextRows:
    """The mission title and intent sentence of every episode of a batch, as last observed (tuples, immutable:
    every step that changes none hands out the same ones)."""

    def __init__(self, n: int) -> None:
        self.mission = np.full(n, -1, dtype=np.int64)
        self.index = np.full(n, -1, dtype=np.int64)
        self.titles: tuple[str, ...] = ("",) * n
        self.intents: tuple[str, ...] = ("",) * n


_TEXT_ROWS: weakref.WeakKeyDictionary[BatchProgress, _TextRows] = weakref.WeakKeyDictionary()


def _text_rows(tracker: BatchProgress) -> _TextRows:
    """The texts of ``tracker``'s episodes, rebuilt only for those whose mission or subgoal changed since they
    were last observed: most steps change few or none, and building 2 x N strings per step would cost more than
    the rules."""
    text = _TEXT_ROWS.get(tracker)
    if text is None or len(text.mission) != len(tracker.mission):
        text = _TEXT_ROWS[tracker] = _TextRows(len(tracker.mission))
    rows = np.flatnonzero((tracker.mission != text.mission) | (tracker.index != text.index))
    if rows.size:
        titles, intents, _ = _texts(tracker.table)
        mission, index = tracker.mission[rows], tracker.index[rows]
        all_titles, all_intents = list(text.titles), list(text.intents)
        new_titles = titles[mission].tolist()
        new_intents = intents[mission * (len(intents) // len(titles)) + index].tolist()
        for r, title, sentence in zip(rows.tolist(), new_titles, new_intents):
            all_titles[r], all_intents[r] = title, sentence
        text.titles, text.intents = tuple(all_titles), tuple(all_intents)
        text.mission[rows], text.index[rows] = mission, index
    return text


def _batch_audio(house: House | HouseBatch, episodes: Observed, agent: int) -> np.ndarray:
    """The sound token of acting agent ``agent``'s last action in each episode (silence before its first)."""
    out = episodes.last_outcomes[agent]
    if out is None:
        return np.full(len(episodes), SILENCE, dtype=np.int64)
    return np.where(episodes.step_count > 0, audio_tokens(out, house, episodes.world), SILENCE)
