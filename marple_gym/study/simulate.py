"""Simulated participants: a headless pilot of a study, through the exact trial sequence a person gets.

A participant is a function ``answer(trial, point) -> slider`` (0..100). :func:`run_participant`
drives a :class:`~marple_gym.study.state.StudyState` as the desktop app does (leave the intro,
step to each evidence point, set the slider, submit), so the responses file is the one a person
would leave. Participants backed by inference models live in ``marple_eval``, above this package;
they are found through the ``marple.participants`` entry-point group (name -> ``make(model, **options)``).
:func:`simulate_session` (``marple study --simulate``) opens a session and has such a participant answer it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from marple_gym.study.session import SessionPlan, open_session
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


def simulate_session(
    data: str | Path | None,
    out: str | Path,
    model: str,
    plan: SessionPlan,
    *,
    participant: str | None = None,
    web: str | Path | None = None,
    noise: float = 0.0,
    model_args: Sequence[str] = (),
    agents: Sequence[str] = (),
) -> StudyState:
    """A headless pilot: the session ``plan`` (or the web study ``web``'s) opened as :func:`open_session` opens a
    person's, every trial answered by the registered inference model ``model`` (:func:`load_participant`, with
    Gaussian ``noise`` of that many slider points seeded by the session's seed, the model's constructor
    ``model_args`` and role ``agents`` as ``KEY=VALUE`` and ``ROLE=MODEL``). The participant's id defaults to
    ``sim-MODEL``."""
    state = open_session(data, out, participant or f"sim-{model}", plan, web=web)
    session = state.log.session
    answer = load_participant(
        model,
        noise=noise,
        seed=session["seed"],
        model_args=list(model_args),
        agents=list(agents),
        data=session.get("dataset"),
    )
    return run_participant(state, answer)
