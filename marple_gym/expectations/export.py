"""Trials as JSON, close to AGENT's release: a document per trial, with per-step states in AGENT's export.

AGENT's tree (:func:`write_trials`, the export; a trial set on disk keeps the same documents without the
per-step states, a shard's trials a line each: :mod:`marple_gym.expectations.sets`)::

    <root>/scenario_1_goal_preferences/type_1.1/test_set/Trial_00000.json

A trial's document::

    {"format": "marple-expectations", "version": 2,
     "id": "goal_preferences/1.1/test/00000", "scenario": "goal_preferences", "scenario_number": 1,
     "type": "1.1", "split": "test", "index": 0, "seed": 0,
     "agent": {"rewards": {"apple": 30.0, ...}, "costs": {"forward": 1.0, "turn": 0.5, "pickup": 0.0}, "beta": 1.0},
     "familiarization": [VIDEO, ...], "expected": VIDEO, "surprising": VIDEO}   # surprising: test split only

    VIDEO = {"scene_config": {...the stage: rooms, doors, furniture, obstacles, objects, agent, occluder...},
             "actions": ["forward", "left", ..., "pickup"], "reveal": false, "continues": null,
             "through": [[x, y], ...],                       # obstacles or walls passed through (type 2.5)
             "state_info": [STATE, ...]}                     # AGENT's export: one per step, the start first

    STATE = {"agent": {"class": "agent", "position": [x, y], "direction": "north", "holding": null,
                       "visible": true},
             "goal_1": {"class": "object", "type": "apple", "label": 1, "position": [x, y], "visible": true},
             "obstacle_1": {"class": "obstacle", "type": "chair", "position": [x, y], "size": [1, 1],
                            "visible": false},
             "occluder": {"class": "occluder", "cells": [[x, y], ...], "visible": true}}

As in AGENT's ``state_info.json``, entities carry their true state and a
``visible`` flag (false behind the occluder, before a reveal lifts it); a
model must read only what is visible. ``label`` numbers the trial's object
types in order of first appearance (AGENT's colour codes); a held object has
``position`` null. The agent's rewards and costs are the truth, for analysis:
no method is meant to read them. Reading (:func:`read_trial`) is strict, replays
every video through the world's rules and checks its states where it has them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from marple_gym.expectations.scenarios import EXPECTATION_SCENARIOS
from marple_gym.expectations.trial import SPLITS, Episode, Trial, TrialError, TrialKey
from marple_gym.files import atomic_write
from marple_gym.generation.stage import Stage, StageRoom
from marple_gym.planner.utility import ActionCosts, Preferences
from marple_gym.validation import Fields, message_error, read_json_file, reader
from marple_gym.world.actions import Action
from marple_gym.world.house import DIR_NAMES

FORMAT = "marple-expectations"
VERSION = 2
ACTION_NAMES = tuple(a.name for a in Action)
_error = message_error(TrialError)


# ---- writing ---------------------------------------------------------------------------------------------------------
def trial_document(trial: Trial, states: bool = True) -> dict[str, Any]:
    """The JSON document of ``trial`` (see module docs), with every video's per-step states (AGENT's export) or,
    with ``states`` False, without them (a set's shards: the states replay from the stage and the actions)."""
    scenario = EXPECTATION_SCENARIOS[trial.key.scenario]
    episodes = list(trial.familiarisation) + list(trial.tests.values())
    labels: dict[str, int] = {}
    for episode in episodes:
        for kind, _ in episode.stage.objects:
            labels.setdefault(kind, len(labels) + 1)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "id": trial.id,
        "scenario": scenario.name,
        "scenario_number": scenario.number,
        "type": trial.key.type,
        "split": trial.key.split,
        "index": trial.key.index,
        "seed": trial.seed,
        "agent": {
            "rewards": dict(trial.agent.rewards),
            "costs": {
                "forward": trial.agent.costs.forward,
                "turn": trial.agent.costs.turn,
                "pickup": trial.agent.costs.pickup,
            },
            "beta": trial.agent.beta,
        },
        "familiarization": [video(e, labels, states) for e in trial.familiarisation],
    }
    for name, episode in trial.tests.items():
        doc[name] = video(episode, labels, states)
    return doc


def video(episode: Episode, labels: dict[str, int], states: bool = True) -> dict[str, Any]:
    """One episode's part of a trial document: its stage, actions and (with ``states``) per-step states."""
    out = {
        "scene_config": episode.stage.to_dict(),
        "actions": [ACTION_NAMES[a] for a in episode.actions],
        "reveal": episode.reveal,
        "continues": episode.continues,
        "through": [list(c) for c in episode.through],
    }
    if states:
        out["state_info"] = state_info(episode, labels)
    return out


def state_info(episode: Episode, labels: dict[str, int]) -> list[dict[str, Any]]:
    """Every step's entities: the agent, the goal objects, the obstacles and the occluder (see module docs)."""
    stage = episode.stage
    hidden = stage.visibility().hidden
    kinds = Stage.object_types(stage.house)
    out = []
    for t, state in enumerate(episode.states):
        lifted = episode.reveal and t == len(episode.states) - 1

        def visible(x: int, y: int, lifted: bool = lifted) -> bool:
            return lifted or not bool(hidden[y, x])

        x, y = state.agent_pos[0].tolist()
        held = [kinds[o] for o in state.carrying[0].tolist() if o >= 0]
        step: dict[str, Any] = {
            "agent": {
                "class": "agent",
                "position": [x, y],
                "direction": DIR_NAMES[int(state.agent_dir[0])],
                "holding": held[0] if held else None,
                "visible": visible(x, y),
            }
        }
        for i, kind in enumerate(kinds):
            ox, oy = state.obj_pos[i].tolist()
            on_floor = ox >= 0
            step[f"goal_{i + 1}"] = {
                "class": "object",
                "type": kind,
                "label": labels[kind],
                "position": [ox, oy] if on_floor else None,
                "visible": visible(ox, oy) if on_floor else visible(x, y),
            }
        for i, (ox, oy) in enumerate(stage.obstacles):
            step[f"obstacle_{i + 1}"] = {
                "class": "obstacle",
                "type": stage.obstacle_type,
                "position": [ox, oy],
                "size": [1, 1],
                "visible": visible(ox, oy),
            }
        if stage.occluder:
            step["occluder"] = {"class": "occluder", "cells": [list(c) for c in stage.occluder], "visible": not lifted}
        out.append(step)
    return out


def trial_path(root: str | os.PathLike, key: TrialKey) -> Path:
    """Where :func:`write_trials` puts trial ``key`` under ``root`` (AGENT's tree)."""
    scenario = EXPECTATION_SCENARIOS[key.scenario]
    folder = Path(root) / f"scenario_{scenario.number}_{scenario.name}" / f"type_{key.type}" / f"{key.split}_set"
    return folder / f"Trial_{key.index:05d}.json"


def write_trials(trials: Iterable[Trial], root: str | os.PathLike, sync: bool = True) -> list[Path]:
    """Export each trial's document, with its per-step states, into AGENT's tree under ``root`` (each file whole
    or not at all, compact JSON); ``sync`` False leaves the files' flushing to disk to the operating system."""
    written = []
    for trial in trials:
        path = trial_path(root, trial.key)
        with atomic_write(path, sync=sync) as f:
            f.write(json.dumps(trial_document(trial), separators=(",", ":")))
        written.append(path)
    return written


# ---- reading ---------------------------------------------------------------------------------------------------------
def read_trial(source: str | os.PathLike | dict[str, Any], where: str | None = None) -> Trial:
    """The trial of a document (a dict, read from ``where``, or the path of a file :func:`write_trials` wrote),
    read strictly: an unknown key, a wrong type or an episode that does not replay (to its states, where it has
    them) is a :class:`TrialError` naming the file and the field."""
    if isinstance(source, dict):
        file, data = where, source
    else:
        file, data = str(source), read_json_file(source, _error, "trial file")
    doc = reader(data, file, _error)
    doc.allow(
        [
            "format",
            "version",
            "id",
            "scenario",
            "scenario_number",
            "type",
            "split",
            "index",
            "seed",
            "agent",
            "familiarization",
            "expected",
            "surprising",
        ]
    )
    doc.str("format", choices=[FORMAT])
    doc.int("version", low=VERSION, high=VERSION)
    scenario = EXPECTATION_SCENARIOS.get(doc.str("scenario", choices=list(EXPECTATION_SCENARIOS)))
    key = TrialKey(
        scenario.name,
        doc.str("type", choices=scenario.types),
        doc.str("split", choices=SPLITS),
        doc.int("index", low=0),
    )
    if doc.str("id") != key.id:
        raise doc.fail("id", f"says {doc.get('id')!r} but the scenario, type, split and index make {key.id!r}")
    doc.int("scenario_number", low=scenario.number, high=scenario.number)
    labels: dict[str, int] = {}
    familiarisation = tuple(_episode(v, labels) for v in doc.entries("familiarization"))
    if not familiarisation:
        raise doc.fail("familiarization", "a trial needs at least one familiarization video")
    expected = _episode(doc.fields("expected"), labels)
    surprising = _episode(doc.fields("surprising", None), labels) if doc.has("surprising") else None
    if (surprising is None) != (key.split != "test"):
        raise doc.fail("surprising", "test trials hold a surprising video and training and validation trials none")
    return Trial(key, doc.int("seed", low=0), _agent(doc.fields("agent")), familiarisation, expected, surprising)


def read_trials(root: str | os.PathLike) -> Iterator[Trial]:
    """Every trial file under ``root``, in path order."""
    for path in sorted(Path(root).rglob("Trial_*.json")):
        yield read_trial(path)


def _agent(fields: Fields) -> Preferences:
    fields.allow(["rewards", "costs", "beta"])
    rewards = fields.fields("rewards")
    values = {k: rewards.number(k) for k in rewards.data}
    costs = fields.fields("costs").allow(["forward", "turn", "pickup"])
    try:
        return Preferences(
            values,
            ActionCosts(costs.number("forward", low=0), costs.number("turn", low=0), costs.number("pickup", low=0)),
            fields.number("beta", low=0),
        )
    except ValueError as exc:
        raise fields.fail("", str(exc)) from None


def _episode(fields: Fields, labels: dict[str, int]) -> Episode:
    fields.allow(["scene_config", "actions", "reveal", "continues", "through", "state_info"])
    fields.require("scene_config", "actions", "reveal", "continues", "through")
    stage = _stage(fields.fields("scene_config"))
    actions = []
    for i, name in enumerate(fields.list("actions")):
        if name not in ACTION_NAMES:
            raise fields.fail(f"actions[{i}]", f"unknown action {name!r}; the actions are {list(ACTION_NAMES)}")
        actions.append(ACTION_NAMES.index(name))
    through = _cells(fields, "through")
    try:
        episode = Episode(stage, tuple(actions), fields.bool("reveal"), fields.int("continues", None, low=0), through)
    except TrialError as exc:
        raise fields.fail("through", str(exc)) from None
    for kind, _ in stage.objects:
        labels.setdefault(kind, len(labels) + 1)
    try:
        replayed = state_info(episode, labels)
    except TrialError as exc:
        raise fields.fail("actions", str(exc)) from None
    if fields.has("state_info") and fields.list("state_info") != replayed:
        raise fields.fail("state_info", "differs from the states the actions replay to in the scene_config")
    return episode


def _cells(fields: Fields, key: str) -> list[tuple[int, int]]:
    out = []
    for i, c in enumerate(fields.list(key)):
        if not (isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) for v in c)):
            raise fields.fail(f"{key}[{i}]", f"expected a cell [x, y], got {c!r}")
        out.append((c[0], c[1]))
    return out


def _stage(fields: Fields) -> Stage:
    keys = [
        "width",
        "height",
        "rooms",
        "doors",
        "furniture",
        "obstacle_type",
        "obstacles",
        "objects",
        "agent",
        "occluder",
    ]
    fields.allow(keys).require(*keys)

    def cells(key: str) -> list[tuple[int, int]]:
        return _cells(fields, key)

    def placed(key: str) -> list[tuple[str, tuple[int, int]]]:
        out = []
        for entry in fields.entries(key):
            entry.allow(["type", "pos"])
            pos = entry.list("pos")
            if not (len(pos) == 2 and all(isinstance(v, int) for v in pos)):
                raise entry.fail("pos", f"expected a cell [x, y], got {pos!r}")
            out.append((entry.str("type"), (pos[0], pos[1])))
        return out

    rooms = []
    for room in fields.entries("rooms"):
        room.allow(["type", "top", "size"])
        rooms.append(StageRoom(room.str("type"), tuple(room.list("top")), tuple(room.list("size"))))
    agent = fields.list("agent")
    try:
        stage = Stage(
            fields.int("width", low=3),
            fields.int("height", low=3),
            tuple(rooms),
            doors=cells("doors"),
            furniture=placed("furniture"),
            obstacles=cells("obstacles"),
            objects=placed("objects"),
            agent=tuple(agent),
            occluder=cells("occluder"),
            obstacle_type=fields.str("obstacle_type"),
        )
        stage.world()
    except (ValueError, TypeError) as exc:
        raise fields.fail("", f"not a stage the world can be: {exc}") from None
    return stage
