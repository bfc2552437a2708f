"""The symbolic and rendered-frames conditions of a question (the text condition is :mod:`.text`).

* **symbolic**: the vision arrays of every state from the episode's start to the cut (the full house, as an
  observer sees it, objects in closed containers included, as MMToM-QA's text gives them), the agents'
  actions before the cut, and the scene graph of any of those states;
* **frames**: pictures of the house at steps spread evenly from the start to the cut (MMToM-QA samples a few
  frames of each video), drawn by :mod:`marple_gym.rendering` as a camera sees them: closed containers show
  no contents.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from marple_gym.beliefs.questions.question import BeliefQuestion
from marple_gym.evidence.scene_graph import SceneGraphBuilder
from marple_gym.evidence.visibility import Visibility, closed_containers
from marple_gym.rendering.frames import render_frame, spread_steps
from marple_gym.world.world import World

FRAMES = 8
"""Frames per question by default (MMToM-QA gives GPT-4V eight)."""


def vision_arrays(question: BeliefQuestion) -> np.ndarray:
    """(end_time - start_time + 1, H, W, 8) uint8: the vision array of every state the question shows."""
    trace = question.episode.trace()
    return np.stack([s.grid for s in trace.states[question.start_time : question.end_time + 1]])


def actions(question: BeliefQuestion) -> np.ndarray:
    """(end_time - start_time, agents) int8: every agent's action before the cut."""
    return question.episode.actions[question.start_time : question.end_time].copy()


def scene_graphs(question: BeliefQuestion, steps: Sequence[int] | None = None) -> list[nx.DiGraph]:
    """The scene graphs of the states at ``steps`` (default: the first and the last shown)."""
    trace = question.episode.trace()
    builder = SceneGraphBuilder(trace.house)
    wanted = (question.start_time, question.end_time) if steps is None else steps
    for t in wanted:
        if not question.start_time <= t <= question.end_time:
            raise ValueError(f"step {t} is outside the question's steps {question.start_time}..{question.end_time}")
    return [builder.build(trace.states[t]) for t in wanted]


def frame_steps(question: BeliefQuestion, count: int = FRAMES) -> list[int]:
    """``count`` steps spread evenly from the start to the cut, both included (fewer if the clip is shorter;
    one frame is the cut's)."""
    return spread_steps(question.start_time, question.end_time, count)


def frames(question: BeliefQuestion, count: int = FRAMES, tile_size: int = 16) -> list[np.ndarray]:
    """RGB pictures of the house at :func:`frame_steps` (closed containers drawn without their contents)."""
    trace = question.episode.trace()
    house = trace.house
    out = []
    for t in frame_steps(question, count):
        state = trace.states[t]
        view = Visibility.everything(house).sealing(closed_containers(house, state))
        out.append(render_frame(World(house, state), tile_size, visibility=view))
    return out
