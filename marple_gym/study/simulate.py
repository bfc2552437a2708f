"""Simulated participants: a headless pilot of a study, through the exact trial sequence a person gets.

A participant is a function ``answer(trial, point) -> slider`` (0..100). :func:`run_participant`
drives a :class:`~marple_gym.study.state.StudyState` as the desktop app does (leave the intro,
step to each evidence point, set the slider, submit), so the responses file is the one a person
would leave. Participants backed by inference models live in ``marple_eval``, above this package;
they are found through the ``marple.participants`` entry-point group (name -> ``make(model, **options)``).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from marple_gym.study.state import StudyState
from marple_gym.study.trials import StudyError, Trial

Participant = Callable[[Trial, int], float]
"""(trial as shown, evidence point) -> the slider, 0 = definitely Agent A, 100 = definitely Agent B."""

PARTICIPANTS_GROUP = "marple.participants"


def run_participant(state: StudyState, answer: Participant) -> StudyState:
    """Answer every open evidence point of every open trial, in the session's order."""
    if state.phase == "intro":
        state.advance()
    while state.phase != "done":
        if state.phase == "ask":
            state.set_slider(float(answer(state.trial, state.open_point)))
            state.submit()
        else:
            state.advance()
    return state


def load_participant(model: str, **options: Any) -> Participant:
    """A participant answering like the registered inference model ``model`` (from ``marple_eval``)."""
    makers = {ep.name: ep for ep in entry_points(group=PARTICIPANTS_GROUP)}
    if "model" not in makers:
        raise StudyError("simulated participants need marple_eval installed (pip install 'marple-gym[eval]')")
    return makers["model"].load()(model, **options)
